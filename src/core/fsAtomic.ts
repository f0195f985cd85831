import * as fs from 'node:fs';
import * as path from 'node:path';

let counter = 0;

/**
 * Writes a file atomically: a temp file in the same folder, fsync, then rename over the target,
 * so a reader (or a crash) never sees half a file.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  await fs.promises.mkdir(dir, { recursive: true });
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

/** Synchronous twin of writeFileAtomic, for the few callers that cannot await. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.${counter++}.tmp`);
  const fd = fs.openSync(tmp, 'wx');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Appends one record with a single O_APPEND write. POSIX makes each such write atomic with
 * respect to other appenders (for regular files on local disks), so lines from two processes
 * never interleave within a line.
 */
export async function appendLineAtomic(file: string, line: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
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
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
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
