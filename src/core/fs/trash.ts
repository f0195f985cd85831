import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isInside } from '../workspace/relativePaths';

/** Where moveToTrash looks; tests and the MCP server can override the environment. */
export interface TrashOptions {
  platform?: NodeJS.Platform;
  home?: string;
  /** `$XDG_DATA_HOME`; defaults to the environment variable, then `~/.local/share`. */
  xdgDataHome?: string;
  uid?: number;
  /**
   * The host's own trash, for a platform whose trash the core does not write (Windows' recycle bin
   * has no layout a program may fill by moving files): the editor passes VS Code's
   * `workspace.fs.delete(uri, { useTrash: true })`. Resolves true when the path was moved there. Not
   * used on Linux or macOS, whose trash the core writes itself (a path with no usable trash there
   * stays in `noTrash`).
   */
  hostTrash?: (abs: string) => Promise<boolean>;
}

/** What happened to each path: trashed, failed, or no usable trash (ask before deleting permanently). */
export interface TrashOutcome {
  trashed: { path: string; trashPath: string }[];
  failed: { path: string; message: string }[];
  /** Paths for which no trash exists on this system or file system; nothing was done to them. */
  noTrash: string[];
}

interface TrashDir {
  files: string;
  info: string;
  /** Info files record paths relative to this folder (topdir trashes) or absolute (home trash). */
  relativeTo?: string;
}

/**
 * Moves files or folders to the OS trash without following symlinks: the freedesktop.org
 * Trash spec on Linux (home trash, or `$topdir/.Trash/$uid` / `$topdir/.Trash-$uid` on another
 * file system), `~/.Trash` on macOS, the host's trash elsewhere (Windows: `hostTrash`, the
 * editor's; not tested on Windows yet). Paths with no usable trash are returned in `noTrash`.
 */
export async function moveToTrash(paths: readonly string[], opts: TrashOptions = {}): Promise<TrashOutcome> {
  const out: TrashOutcome = { trashed: [], failed: [], noTrash: [] };
  const platform = opts.platform ?? process.platform;
  const home = opts.home ?? os.homedir();
  const homeTrashCache = new Map<string, TrashDir | undefined>();
  for (const p of paths) {
    const abs = path.resolve(p);
    let st: fs.Stats;
    try {
      st = await fs.promises.lstat(abs);
    } catch (e) {
      out.failed.push({ path: abs, message: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'already gone' : (e as Error).message });
      continue;
    }
    if (!writesTrash(platform)) {
      const moved = opts.hostTrash ? await opts.hostTrash(abs).catch(() => false) : false;
      if (moved) out.trashed.push({ path: abs, trashPath: '' });
      else out.noTrash.push(abs);
      continue;
    }
    const trash = await trashOf(abs, st, platform, home, opts, homeTrashCache);
    if (!trash) {
      out.noTrash.push(abs);
      continue;
    }
    try {
      const dest = await moveInto(abs, trash);
      out.trashed.push({ path: abs, trashPath: dest });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EXDEV') out.noTrash.push(abs);
      else out.failed.push({ path: abs, message: (e as Error).message });
    }
  }
  return out;
}

/**
 * The paths for which moveToTrash would find no usable trash, without moving anything: a command
 * asks once, before it starts, whether to delete those permanently. (A move across file systems
 * can still fail later; moveToTrash then reports the path in `noTrash` too.)
 */
export async function pathsWithoutTrash(paths: readonly string[], opts: TrashOptions = {}): Promise<string[]> {
  const platform = opts.platform ?? process.platform;
  const home = opts.home ?? os.homedir();
  const cache = new Map<string, TrashDir | undefined>();
  const out: string[] = [];
  for (const p of paths) {
    const abs = path.resolve(p);
    const st = await fs.promises.lstat(abs).catch(() => undefined);
    if (!st) continue;
    if (!writesTrash(platform) ? !opts.hostTrash : !(await trashOf(abs, st, platform, home, opts, cache))) out.push(abs);
  }
  return out;
}

/** Whether the core writes this platform's trash itself (else only the host's trash can take a path). */
function writesTrash(platform: NodeJS.Platform): boolean {
  return platform === 'linux' || platform === 'freebsd' || platform === 'openbsd' || platform === 'darwin';
}

/** The trash a path would go to on this platform; undefined when there is none usable. */
async function trashOf(abs: string, st: fs.Stats, platform: NodeJS.Platform, home: string, opts: TrashOptions, cache: Map<string, TrashDir | undefined>): Promise<TrashDir | undefined> {
  try {
    if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') return await freedesktopTrashFor(abs, st, home, opts, cache);
    if (platform === 'darwin') {
      const dir = path.join(home, '.Trash');
      return fs.existsSync(dir) ? { files: dir, info: '' } : undefined;
    }
  } catch {
    // no usable trash
  }
  return undefined;
}

async function freedesktopTrashFor(
  abs: string,
  st: fs.Stats,
  home: string,
  opts: TrashOptions,
  cache: Map<string, TrashDir | undefined>,
): Promise<TrashDir | undefined> {
  const dataHome = opts.xdgDataHome ?? (process.env.XDG_DATA_HOME || path.join(home, '.local', 'share'));
  const homeTrash = path.join(dataHome, 'Trash');
  const key = `home:${homeTrash}`;
  if (!cache.has(key)) cache.set(key, await ensureTrash(homeTrash, undefined));
  const ht = cache.get(key);
  if (ht) {
    const htDev = (await fs.promises.stat(ht.files)).dev;
    if (htDev === st.dev) return ht;
  }
  // Another file system: use its top directory's trash.
  const top = await topDir(path.dirname(abs), st.dev);
  const uid = opts.uid ?? process.getuid?.() ?? 0;
  const topKey = `top:${top}`;
  if (!cache.has(topKey)) {
    let dir: TrashDir | undefined;
    const shared = path.join(top, '.Trash');
    const sst = await fs.promises.lstat(shared).catch(() => undefined);
    // The spec only allows $topdir/.Trash when it is a real directory with the sticky bit set.
    if (sst && sst.isDirectory() && !sst.isSymbolicLink() && (sst.mode & 0o1000) !== 0) {
      dir = await ensureTrash(path.join(shared, String(uid)), top);
    }
    dir ??= await ensureTrash(path.join(top, `.Trash-${uid}`), top);
    cache.set(topKey, dir);
  }
  return cache.get(topKey);
}

/** The mount point of a path: the highest ancestor on the same device. */
async function topDir(dir: string, dev: number): Promise<string> {
  let cur = dir;
  for (;;) {
    const parent = path.dirname(cur);
    if (parent === cur) return cur;
    const pst = await fs.promises.stat(parent).catch(() => undefined);
    if (!pst || pst.dev !== dev) return cur;
    cur = parent;
  }
}

async function ensureTrash(dir: string, relativeTo: string | undefined): Promise<TrashDir | undefined> {
  try {
    await fs.promises.mkdir(path.join(dir, 'files'), { recursive: true, mode: 0o700 });
    await fs.promises.mkdir(path.join(dir, 'info'), { recursive: true, mode: 0o700 });
    await fs.promises.access(path.join(dir, 'files'), fs.constants.W_OK);
    await fs.promises.access(path.join(dir, 'info'), fs.constants.W_OK);
    return { files: path.join(dir, 'files'), info: path.join(dir, 'info'), relativeTo };
  } catch {
    return undefined;
  }
}

/** Encodes a path for a .trashinfo `Path=` line: each segment URL-encoded, slashes kept. */
export function encodeTrashPath(p: string): string {
  return p.split('/').map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/');
}

function deletionDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

async function moveInto(abs: string, trash: TrashDir): Promise<string> {
  const base = path.basename(abs);
  const ext = path.extname(base);
  const stem = ext ? base.slice(0, -ext.length) : base;
  for (let n = 1; n < 10_000; n++) {
    const name = n === 1 ? base : `${stem}.${n}${ext}`;
    const dest = path.join(trash.files, name);
    if (!trash.info) {
      // macOS ~/.Trash has no info files; just avoid overwriting.
      if (await exists(dest)) continue;
      await fs.promises.rename(abs, dest);
      return dest;
    }
    // The spec: create the info file first with O_EXCL; its name reserves the slot in files/.
    const info = path.join(trash.info, `${name}.trashinfo`);
    const recorded = trash.relativeTo ? path.relative(trash.relativeTo, abs) : abs;
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(info, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    try {
      await fh.writeFile(`[Trash Info]\nPath=${encodeTrashPath(recorded)}\nDeletionDate=${deletionDate(new Date())}\n`);
    } finally {
      await fh.close();
    }
    if (await exists(dest)) {
      await fs.promises.rm(info, { force: true });
      continue;
    }
    try {
      await fs.promises.rename(abs, dest);
      return dest;
    } catch (e) {
      await fs.promises.rm(info, { force: true });
      throw e;
    }
  }
  throw new Error('too many files with this name in the trash');
}

async function exists(p: string): Promise<boolean> {
  return (await fs.promises.lstat(p).catch(() => undefined)) !== undefined;
}

/**
 * Deletes files permanently (after the user agreed, when no trash exists), refusing any path
 * outside `within`. Symlinks are removed themselves, never their targets.
 */
export async function deletePermanently(paths: readonly string[], within: string): Promise<TrashOutcome> {
  const out: TrashOutcome = { trashed: [], failed: [], noTrash: [] };
  const root = path.resolve(within);
  for (const p of paths) {
    const abs = path.resolve(p);
    if (abs === root || !isInside(root, abs)) {
      out.failed.push({ path: abs, message: `outside ${root}; not deleted` });
      continue;
    }
    // The folder holding the file must really be inside `within` (no symlinked parent leading out).
    const realParent = await fs.promises.realpath(path.dirname(abs)).catch(() => undefined);
    const realRoot = await fs.promises.realpath(root).catch(() => root);
    if (realParent === undefined || !isInside(realRoot, realParent)) {
      out.failed.push({ path: abs, message: `resolves outside ${root}; not deleted` });
      continue;
    }
    try {
      await fs.promises.rm(abs, { recursive: true, force: false });
      out.trashed.push({ path: abs, trashPath: '' });
    } catch (e) {
      out.failed.push({ path: abs, message: (e as Error).message });
    }
  }
  return out;
}
