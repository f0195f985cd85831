import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterDirCreated } from '../workspace/agentGitignore';

let counter = 0;

/** `mkdir -p` that writes `.agent/.gitignore` when it creates `.agent/` or one of its ignored folders. */
export async function mkdirp(dir: string): Promise<void> {
  afterDirCreated(await fs.promises.mkdir(dir, { recursive: true }));
}

/** Synchronous twin of mkdirp. */
export function mkdirpSync(dir: string): void {
  afterDirCreated(fs.mkdirSync(dir, { recursive: true }));
}

/**
 * Writes a file atomically: a temp file in the same folder, fsync, then rename over the target,
 * so a reader (or a crash) never sees half a file.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  await mkdirp(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.${counter++}.tmp`);
  const fh = await fs.promises.open(tmp, 'wx');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.promises.rename(tmp, file);
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
}

/**
 * writeFileAtomic for a text produced in pieces (a generator that may yield to the event loop
 * between pieces), so a large file is never built as one string.
 */
export async function writeFileAtomicParts(file: string, parts: AsyncIterable<string> | Iterable<string>): Promise<void> {
  const dir = path.dirname(file);
  await mkdirp(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.${counter++}.tmp`);
  const fh = await fs.promises.open(tmp, 'wx');
  try {
    try {
      for await (const part of parts) if (part) await fh.write(part);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Appends one record with a single O_APPEND write. POSIX makes each such write atomic with
 * respect to other appenders (for regular files on local disks), so lines from two processes
 * never interleave within a line.
 */
export async function appendLineAtomic(file: string, line: string): Promise<void> {
  await mkdirp(path.dirname(file));
  const text = line.endsWith('\n') ? line : line + '\n';
  const fh = await fs.promises.open(file, 'a');
  try {
    await fh.write(text);
  } finally {
    await fh.close();
  }
}

/** Creates a file only if it does not exist yet (O_EXCL); returns false when it already exists. */
export async function createExclusive(file: string, data: string): Promise<boolean> {
  await mkdirp(path.dirname(file));
  try {
    const fh = await fs.promises.open(file, 'wx');
    try {
      await fh.writeFile(data);
    } finally {
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}
