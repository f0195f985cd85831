import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterDirCreated } from '../workspace/agentGitignore';
import { withPath } from './fsErrors';
import { cacheFile } from '../workspace/cacheFiles';

let counter = 0;

/**
 * Node's recursive mkdir reports ENOENT when a folder on the way cannot be created (a read-only
 * file system, no permission): "ENOENT … mkdir" hid the real cause from users. This finds the
 * first missing folder and creates it alone, which fails with the true code (EROFS, EACCES,
 * ENOSPC, ENOTDIR).
 */
function trueMkdirError(dir: string, e: unknown): unknown {
  // `mkdir -p` of a folder whose name a file already has (`.agent` made as a file): EEXIST, which
  // reads as if all were well. Told as what it is: a path component that is not a folder.
  if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
    return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}' (a file has its name)`), { code: 'ENOTDIR', path: dir, syscall: 'mkdir' });
  }
  if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return e;
  let first = path.resolve(dir);
  while (path.dirname(first) !== first && !fs.existsSync(path.dirname(first))) first = path.dirname(first);
  try {
    fs.mkdirSync(first);
    fs.rmdirSync(first);
  } catch (real) {
    if ((real as NodeJS.ErrnoException).code && (real as NodeJS.ErrnoException).code !== 'EEXIST') return real;
  }
  return e;
}

/** `mkdir -p` that writes `.agent/.gitignore` when it creates `.agent/` or one of its ignored folders. */
export async function mkdirp(dir: string): Promise<void> {
  try {
    afterDirCreated(await fs.promises.mkdir(dir, { recursive: true }));
  } catch (e) {
    throw trueMkdirError(dir, e);
  }
}

/** Synchronous twin of mkdirp. */
export function mkdirpSync(dir: string): void {
  try {
    afterDirCreated(fs.mkdirSync(dir, { recursive: true }));
  } catch (e) {
    throw trueMkdirError(dir, e);
  }
}

/**
 * Temp files of this process: `<base>.<pid>-<host>.<time>.<n>.tmp` (with a leading dot beside
 * their target, so listings that skip dot files skip them). Pid and a tag of the host name let a
 * later process tell the leftovers of a killed writer from a write in progress; a process of
 * another machine or container (another tag: its pids mean nothing here) is left alone.
 */
const TEMP_NAME = /^\.?(.+)\.(\d+)(?:-([0-9a-f]{6}))?\.(\d+)\.\d+\.tmp$/;
const HOST_TAG = createHash('sha1').update(os.hostname()).digest('hex').slice(0, 6);

/** Whether `name` (a file name) is a temp file of ours, of any process (tempName). */
export const isTempName = (name: string): boolean => TEMP_NAME.test(name);

/** A temp name for `base` (a file name) in this process. */
export function tempName(base: string, hidden = true): string {
  return `${hidden ? '.' : ''}${base}.${process.pid}-${HOST_TAG}.${Date.now()}.${counter++}.tmp`;
}

/** True when a process with that pid exists on this machine (EPERM: it does, owned by another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Any temp file older than this is a leftover, whoever wrote it (a process of another machine on a shared folder). */
const OLD_TEMP_MS = 6 * 3600_000;
const swept = new Set<string>();

/**
 * Removes the temp files of writers that were killed mid-write from `dir` (once per folder per
 * process): those of this machine whose process is gone, and any older than OLD_TEMP_MS.
 * `only` limits it to temps of one target name. Never throws; returns how many were removed.
 */
export function sweepStaleTemps(dir: string, only?: string, now = Date.now()): number {
  const key = `${dir}\0${only ?? ''}`;
  if (swept.has(key)) return 0;
  swept.add(key);
  if (swept.size > 10_000) swept.clear();
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m || (only !== undefined && m[1] !== only)) continue;
    const pid = Number(m[2]);
    const age = now - Number(m[4]);
    if (age > OLD_TEMP_MS || (m[3] === HOST_TAG && !alive(pid))) {
      try {
        fs.rmSync(path.join(dir, name), { force: true });
        removed++;
      } catch {
        // read-only or gone: nothing to do
      }
    }
  }
  return removed;
}

/** Where streamed outputs are written until complete: `<.agent>/.cache/tmp/` (ignored by git, grep and the scratch index). */
export function agentTempDir(agentDir: string): string {
  return cacheFile(agentDir, 'tmp');
}

/** Creates agentTempDir (and the .cache folder's own .gitignore) and sweeps it of killed writers' leftovers once. */
export function ensureAgentTempDir(agentDir: string): string {
  const dir = agentTempDir(agentDir);
  mkdirpSync(dir);
  const ignore = path.join(path.dirname(dir), '.gitignore');
  if (!fs.existsSync(ignore)) {
    try {
      fs.writeFileSync(ignore, '*\n', { flag: 'wx' });
    } catch {
      // another process wrote it, or there is no room for it: git then shows .cache/, nothing worse
    }
  }
  sweepStaleTemps(dir);
  return dir;
}

/**
 * Writes a file atomically: a temp file in the same folder, fsync, then rename over the target,
 * so a reader (or a crash) never sees half a file. Returns the written file's stats (taken after
 * the rename, from the written inode): a later stat with the same key (fs/stamps.ts) is still this content.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<fs.Stats> {
  return writeThroughTemp(file, (fh) => fh.writeFile(data));
}

/**
 * writeFileAtomic for a text produced in pieces (a generator that may yield to the event loop
 * between pieces), so a large file is never built as one string.
 */
export async function writeFileAtomicParts(file: string, parts: AsyncIterable<string> | Iterable<string>): Promise<void> {
  await writeThroughTemp(file, async (fh) => {
    for await (const part of parts) if (part) await fh.write(part);
  });
}

/** The one temp-fsync-rename sequence behind both atomic writers; `fill` writes the content. */
async function writeThroughTemp(file: string, fill: (fh: fs.promises.FileHandle) => Promise<unknown>): Promise<fs.Stats> {
  const dir = path.dirname(file);
  await mkdirp(dir);
  sweepStaleTemps(dir, path.basename(file));
  const tmp = path.join(dir, tempName(path.basename(file)));
  const fh = await fs.promises.open(tmp, 'wx');
  try {
    try {
      await fill(fh);
      await fh.sync();
      await fs.promises.rename(tmp, file);
      // Stat the handle after the rename: the rename itself changes the file's ctime (part of its
      // key, fs/stamps.ts), and the handle is our inode whatever replaced the path since.
      return await fh.stat();
    } finally {
      await fh.close();
    }
  } catch (e) {
    // A full disk or a failed rename: the target keeps its old content, and no half file stays behind.
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw withPath(e, file);
  }
}

/**
 * Appends one record with a single O_APPEND write. POSIX makes each such write atomic with
 * respect to other appenders (for regular files on local disks), so lines from two processes
 * never interleave within a line.
 *
 * A record cut short earlier (a writer killed mid-write, or a disk that filled up) leaves a last
 * line without its newline: this record then starts on a line of its own, so the torn line stays
 * one unreadable line that readers skip, and this one is whole (a text that starts with its own
 * newline is taken to know what it does). A write that comes up short
 * itself (the disk filled up during it) throws ENOSPC: the caller reports it.
 */
export async function appendLineAtomic(file: string, line: string): Promise<void> {
  await mkdirp(path.dirname(file));
  const text = line.endsWith('\n') ? line : line + '\n';
  const fh = await fs.promises.open(file, 'a+');
  try {
    let out = text;
    if (!text.startsWith('\n') && !(await endsWithNewline(fh))) out = '\n' + text;
    const bytes = Buffer.from(out, 'utf8');
    const { bytesWritten } = await fh.write(bytes, 0, bytes.length).catch((e: unknown) => {
      throw withPath(e, file);
    });
    if (bytesWritten < bytes.length) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${file}' (${bytesWritten} of ${bytes.length} bytes written)`), { code: 'ENOSPC', path: file });
  } finally {
    await fh.close();
  }
}

/**
 * Appends `text` to `file` whole or not at all, for a file one writer at a time appends to (under
 * its lock): a write cut short (a disk that filled up during it) is cut back off before the error
 * is thrown, so readers never meet a torn tail and a retry appends the text once. Returns the
 * file's size before the append (to cut it back to if what goes with it fails).
 */
export async function appendWhole(file: string, text: string): Promise<number> {
  const fh = await fs.promises.open(file, 'a');
  try {
    const { size } = await fh.stat();
    try {
      await fh.appendFile(text);
    } catch (e) {
      await fh.truncate(size).catch(() => undefined);
      throw withPath(e, file);
    }
    return size;
  } finally {
    await fh.close();
  }
}

/**
 * Whether an open file is empty or ends with a newline. Another process's append may be in flight
 * (its bytes visible in part for a moment): a last byte that is not a newline counts as a torn line
 * only when the file stays that way for a moment.
 */
async function endsWithNewline(fh: fs.promises.FileHandle): Promise<boolean> {
  const last = Buffer.alloc(1);
  let size = -1;
  for (let attempt = 0; attempt < 4; attempt++) {
    const now = (await fh.stat()).size;
    if (now === 0) return true;
    await fh.read(last, 0, 1, now - 1);
    if (last[0] === 10) return true;
    if (now === size) return false;
    size = now;
    await new Promise((r) => setTimeout(r, 5 * (attempt + 1)));
  }
  return false;
}

/**
 * True when the folder that holds a cache folder (`.agent/` for `.agent/.cache/<name>`) exists: a
 * cache never creates it. A `.agent/` the user deleted while a view was reading it came back as
 * `.agent/.cache/` when the view's cache was written a moment later (the folder's group stayed).
 */
export function cacheHomeExists(file: string): boolean {
  return fs.existsSync(cacheHome(file));
}

/** The folder that holds the cache folder (`.cache`) a cache file is in. */
function cacheHome(file: string): string {
  let dir = path.dirname(file);
  while (path.basename(dir) !== '.cache' && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.basename(dir) === '.cache' ? path.dirname(dir) : path.dirname(path.dirname(file));
}

/**
 * Writes a cache file (`.agent/.cache/<name>`) atomically, after giving its folder a `.gitignore`
 * of `*` (created once), so no cache ever shows up in git. Throws what the writes throw (a
 * read-only or full disk), and when `.agent/` is gone (cacheHomeExists): callers keep what they
 * have in memory.
 */
export async function writeCacheFile(file: string, data: string): Promise<fs.Stats> {
  if (!cacheHomeExists(file)) throw new Error(`${cacheHome(file)} is gone: a cache does not create it again`);
  await createExclusive(path.join(path.dirname(file), '.gitignore'), '*\n');
  return writeFileAtomic(file, data);
}

/**
 * Creates a file only if it does not exist yet; returns false when it already exists. The content
 * is written under a temp name first and linked into place, so the file never exists half written
 * (a full disk fails the call and leaves nothing).
 */
export async function createExclusive(file: string, data: string): Promise<boolean> {
  const dir = path.dirname(file);
  await mkdirp(dir);
  // A writer killed between its temp and the link leaves the temp (a lock's, every few hundred kills of a plan edit): swept here as writeThroughTemp sweeps its own.
  sweepStaleTemps(dir, path.basename(file));
  if (fs.existsSync(file)) return false;
  const tmp = path.join(dir, tempName(path.basename(file)));
  try {
    const fh = await fs.promises.open(tmp, 'wx');
    try {
      await fh.writeFile(data);
    } finally {
      await fh.close();
    }
    // link() fails with EEXIST when the name is taken, as O_EXCL would.
    try {
      await fs.promises.link(tmp, file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
      // No hard links on this file system: O_EXCL, and the partial file removed if the write fails.
      const fh = await fs.promises.open(file, 'wx');
      try {
        await fh.writeFile(data);
      } catch (w) {
        await fh.close();
        await fs.promises.rm(file, { force: true });
        throw w;
      }
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw withPath(e, file);
  } finally {
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
  }
}
