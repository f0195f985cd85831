import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirp } from './fsAtomic';

/** A lock older than this is taken to be left over from a crashed process and is broken. */
const STALE_MS = 10_000;
const WAIT_MS = 15_000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Runs `fn` while holding `<file>.lock` (created with O_EXCL), so read-modify-write cycles on
 * one file from the extension and the MCP server at the same moment never lose an update.
 * A lock older than 10 s is considered stale and removed.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(path.dirname(file), `.${path.basename(file)}.lock`);
  await mkdirp(path.dirname(lock));
  const deadline = Date.now() + WAIT_MS;
  let delay = 5;
  for (;;) {
    try {
      const fh = await fs.promises.open(lock, 'wx');
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        const st = await fs.promises.stat(lock);
        if (Date.now() - st.mtimeMs > STALE_MS) {
          await fs.promises.rm(lock, { force: true });
          continue;
        }
      } catch {
        continue; // the holder just released it
      }
      if (Date.now() > deadline) throw new Error(`${lock} is held by another process; delete it if no Agent Context process is running`);
      await sleep(delay);
      delay = Math.min(delay * 2, 100);
    }
  }
  try {
    return await fn();
  } finally {
    await fs.promises.rm(lock, { force: true });
  }
}
