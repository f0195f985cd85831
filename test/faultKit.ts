// The fault-injection kit (issue 22): real faults made by the test itself, shared by the unit tier,
// the slow tier and anyone testing a writer of .agent/ (the shell hooks of issue 21 too).
//
// - A small file system of its own: a tmpfs mounted by the test (root, which CI and our machines
//   have) or, for an unprivileged user, inside `unshare --user --map-root-user --mount`
//   (see smallFsAvailable). Disk full is then the real ENOSPC from the kernel, read-only the real
//   EROFS (remount,ro).
// - Stand-ins for ripgrep that fail the ways a real binary does (killed, broken, missing
//   interpreter, I/O error, hung).
// - Processes that run as another user (EACCES where root reads everything).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_TOOL_CONFIG } from '../src/core/config';
import { nullLogger } from '../src/core/log';
import type { ToolContext } from '../src/core/tools/toolContext';

/** A temp workspace with an empty `.agent/`, and a tool context for it. */
export function faultWorkspace(prefix = 'ac-fault-', parent = os.tmpdir()): { root: string; agentDir: string; ctx: ToolContext } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(parent, prefix)));
  const agentDir = path.join(root, '.agent');
  fs.mkdirSync(agentDir, { recursive: true });
  return { root, agentDir, ctx: toolContext(root) };
}

/** A tool context for a workspace folder (trusted, commands allowed). */
export function toolContext(root: string, over: Partial<ToolContext> = {}): ToolContext {
  return {
    folders: [{ name: path.basename(root), path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: nullLogger, source: 'mcp', trusted: true, allowRun: true, ...over,
  };
}

export const isRoot = (): boolean => process.getuid?.() === 0;

/** Whether this process can mount a tmpfs (it is root); otherwise small-file-system tests say why they cannot run. */
export function smallFsAvailable(): { ok: true } | { ok: false; why: string } {
  if (process.platform !== 'linux') return { ok: false, why: 'tmpfs mounts need Linux' };
  if (!isRoot()) return { ok: false, why: 'mounting a tmpfs needs root (CI runs as root); run this file under `unshare --user --map-root-user --mount node --test <file>` as a normal user' };
  return { ok: true };
}

/** A tmpfs of `bytes` mounted on a fresh folder; `done()` unmounts it (lazily, so a test that failed mid-way never leaves it busy). */
export function mountSmallFs(bytes: number, prefix = 'ac-smallfs-'): { dir: string; done: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.max(4096, bytes)},mode=0755`, 'tmpfs', dir]);
  return {
    dir,
    done: () => {
      spawnSync('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Remounts a mounted small file system read-only (EROFS for every write) or back to read-write. */
export function remount(dir: string, mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, dir]);
}

/** Free bytes on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * Fills the file system of `dir` with a filler file until at most `leave` bytes remain free;
 * returns the filler's path (delete it to give the space back).
 */
export function fillDisk(dir: string, leave = 0): string {
  const filler = path.join(dir, `.filler-${process.pid}-${Date.now()}`);
  const fd = fs.openSync(filler, 'w');
  try {
    const block = Buffer.alloc(64 * 1024, 0x2e);
    for (;;) {
      const free = freeBytes(dir);
      if (free <= leave) break;
      const n = Math.min(block.length, free - leave);
      try {
        fs.writeSync(fd, block, 0, n);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw e;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** The kinds of broken ripgrep the grep tool must survive. */
export type BrokenRipgrep = 'killed' | 'execFormat' | 'missingInterpreter' | 'missing' | 'ioError' | 'hang' | 'silentExit2';

/**
 * A stand-in for ripgrep in `dir` that fails as `kind` says. `realRg` (for ioError) is the real
 * ripgrep it runs first, so the matches it finds are real and only the exit is the fault.
 */
export function brokenRipgrep(dir: string, kind: BrokenRipgrep, realRg?: string): string {
  const file = path.join(dir, `rg-${kind}`);
  const script = (body: string): void => {
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
    fs.chmodSync(file, 0o755);
  };
  switch (kind) {
    case 'killed':
      script('kill -KILL $$');
      break;
    case 'execFormat':
      // Executable bits on bytes that are no program: spawn fails with ENOEXEC.
      fs.writeFileSync(file, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xde, 0xad]));
      fs.chmodSync(file, 0o755);
      break;
    case 'missingInterpreter':
      fs.writeFileSync(file, '#!/nonexistent/interpreter\n');
      fs.chmodSync(file, 0o755);
      break;
    case 'missing':
      return path.join(dir, 'no-such-rg');
    case 'ioError':
      if (!realRg) throw new Error('ioError needs the real ripgrep');
      script(`"${realRg}" "$@"; echo './broken.log: Input/output error (os error 5)' >&2; exit 2`);
      break;
    case 'hang':
      script('exec sleep 600');
      break;
    case 'silentExit2':
      script('exit 2');
      break;
  }
  return file;
}

/** uid/gid of `nobody` (65534 on Debian), for processes that must meet EACCES. */
export const NOBODY = { uid: 65534, gid: 65534 };

/** Makes `dir` and everything under it belong to `nobody` (so a process running as nobody can write it). */
export function giveToNobody(dir: string): void {
  execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, dir]);
  // The folders above must be passable too (mkdtemp makes 0700 folders).
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const st = fs.statSync(d);
    if ((st.mode & 0o001) === 0) fs.chmodSync(d, st.mode | 0o001);
  }
}
