/*
 * Starts short-lived programs (ripgrep for agentContext_glob) through one long-lived /bin/sh
 * instead of spawning them from this process.
 *
 * Why: spawn() forks the calling process, and a fork copies its page tables: the cost grows with
 * the process. The MCP server at the L scale of the bench holds some 545 MB after a glob, a
 * briefing and an agent listing, and the extension host more; there one spawn() blocked the event
 * loop for 3.5–6 ms, a third of a glob for every Markdown file (ripgrep's walk takes about 12 ms).
 * A shell is small and forks fast, and writing it a command line costs nothing: measured in a
 * process of 394 MB, ripgrep through the shell returned in 12.6–15.0 ms against 15.9–19.7 ms
 * spawned directly (medians of 31, load average 4.4 on 2 cores).
 *
 * The shell runs one command at a time; a call made while it is busy, on Windows, or with an
 * argument the shell cannot carry (a newline or NUL) is spawned directly as before. Each
 * command's output ends with a line holding a random marker and the exit code, which cannot be
 * mistaken for output. When the shell is idle it does not keep this process alive, and it exits
 * by itself when this process goes away (its stdin closes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { endProcessTree } from '../platform/processTree';

/** A running program whose standard output arrives in complete lines. */
export interface LineStream {
  /** The exit code; null when the program could not run or was killed. */
  done: Promise<number | null>;
  /** Stops the program (its remaining output is dropped). */
  kill(): void;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

class Shell {
  private readonly child: ChildProcess;
  private carry = '';
  private current: { marker: string; onLines: (lines: string[]) => void; finish: (code: number | null) => void } | undefined;
  dead = false;
  /** The shell never started (no such program, or not allowed): callers spawn directly from then on. */
  failedToStart = false;

  constructor(shellPath: string) {
    // Its own process group, so a kill reaches the program it is running too.
    this.child = spawn(shellPath, [], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    let started = false;
    this.child.once('spawn', () => (started = true));
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => this.data(d));
    const gone = (): void => {
      this.dead = true;
      if (!started) this.failedToStart = true;
      this.end(null);
    };
    this.child.once('error', gone);
    this.child.once('exit', gone);
    this.child.stdin!.on('error', gone);
    this.idle();
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Nothing pending: the shell must not keep the process (a test run, the MCP server) alive. */
  private idle(): void {
    this.child.unref();
    (this.child.stdin as { unref?: () => void }).unref?.();
    (this.child.stdout as { unref?: () => void }).unref?.();
  }

  private active(): void {
    this.child.ref();
    (this.child.stdin as { ref?: () => void }).ref?.();
    (this.child.stdout as { ref?: () => void }).ref?.();
  }

  run(cmd: string, args: readonly string[], cwd: string, onLines: (lines: string[]) => void): LineStream {
    const marker = `@@agent-context-end-${randomBytes(12).toString('hex')}@@`;
    const done = new Promise<number | null>((resolve) => {
      this.current = { marker, onLines, finish: resolve };
    });
    this.carry = '';
    this.active();
    // A subshell, so the shell's own folder never changes; `echo` first, so the marker starts a line
    // even after output without a final newline (the empty line is dropped with the others). The
    // folder is made absolute: relative to this process, as spawn() takes it, and never read as an option.
    const line = `(cd ${quote(path.resolve(cwd))} 2>/dev/null || exit 127; exec ${[cmd, ...args].map(quote).join(' ')} </dev/null 2>/dev/null); c=$?; echo; echo "${marker} $c"\n`;
    this.child.stdin!.write(line);
    return { done, kill: () => this.kill() };
  }

  /** The shell goes with the program it runs (one process group); the next call starts a new shell. */
  kill(): void {
    this.dead = true;
    endProcessTree(this.child.pid, 'SIGKILL');
    this.child.stdout!.destroy();
    this.end(null);
  }

  private data(d: string): void {
    const cur = this.current;
    if (!cur) return;
    const text = this.carry + d;
    const cut = text.lastIndexOf('\n');
    if (cut < 0) {
      this.carry = text;
      return;
    }
    this.carry = text.slice(cut + 1);
    const lines = text.slice(0, cut).split('\n');
    const at = lines.findIndex((l) => l.startsWith(cur.marker));
    if (at < 0) {
      cur.onLines(lines);
      return;
    }
    cur.onLines(lines.slice(0, at));
    const code = Number(lines[at].slice(cur.marker.length + 1));
    this.carry = '';
    this.end(Number.isInteger(code) ? code : null);
  }

  private end(code: number | null): void {
    const cur = this.current;
    this.current = undefined;
    if (!this.dead) this.idle();
    cur?.finish(code);
  }
}

const shells = new Map<string, Shell>();
let noShell = process.platform === 'win32';
/** Spawns the program directly (the old way): for Windows, a busy shell, or arguments the shell cannot carry. */
function direct(cmd: string, args: readonly string[], cwd: string, onLines: (lines: string[]) => void): LineStream {
  const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    const text = rest + d;
    const cut = text.lastIndexOf('\n');
    rest = text.slice(cut + 1);
    if (cut >= 0) onLines(text.slice(0, cut).split('\n'));
  });
  const done = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (c) => {
      if (rest) onLines([rest]);
      resolve(c);
    });
  });
  return { done, kill: () => void child.kill() };
}

/**
 * Runs `cmd args` in `cwd` and hands its standard output to `onLines` in complete lines as it
 * arrives (empty lines included; a last line without a newline comes at the end). Standard input
 * and error are discarded. Through the long-lived shell where possible (see the top of the file).
 */
export function streamLines(
  cmd: string,
  args: readonly string[],
  cwd: string,
  onLines: (lines: string[]) => void,
  opts: { viaShell?: boolean; shellPath?: string } = {},
): LineStream {
  const carriable = [cmd, cwd, ...args].every((a) => !/[\n\r\0]/.test(a));
  if (opts.viaShell === false || noShell || !carriable) return direct(cmd, args, cwd, onLines);
  const shellPath = opts.shellPath ?? '/bin/sh';
  let shell = shells.get(shellPath);
  if (!shell || shell.dead) shells.set(shellPath, (shell = new Shell(shellPath)));
  if (shell.busy) return direct(cmd, args, cwd, onLines);
  const first = shell.run(cmd, args, cwd, onLines);
  const started = shell;
  let retry: LineStream | undefined;
  return {
    // A shell that could not start ran nothing: this call is spawned directly, and so is every later one.
    done: first.done.then((code) => {
      if (code !== null || !started.failedToStart) return code;
      if (!opts.shellPath) noShell = true;
      retry = direct(cmd, args, cwd, onLines);
      return retry.done;
    }),
    kill: () => (retry ? retry.kill() : first.kill()),
  };
}
