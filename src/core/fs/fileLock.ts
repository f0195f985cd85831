import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createExclusive, isTempName, mkdirp } from './fsAtomic';
import { withPath } from './fsErrors';

/** A lock older than this is taken to be left over from a crashed process and is broken. */
const STALE_MS = 10_000;
/** An unreadable lock (not one this module writes) younger than this may still be someone's: wait for it. */
const UNREADABLE_GRACE_MS = 1_000;
const WAIT_MS = 15_000;
const HOST = os.hostname();

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** True when the lock's holder is known to be gone: a process of this machine that no longer exists. */
function holderGone(text: string): boolean {
  const [pidText, host] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || host !== HOST) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Creates the lock file whole (createExclusive: written under a temp name, then linked into
 * place), so a lock that cannot be written (a full disk) is never left behind empty for the next
 * caller to wait on. False when another holder has it.
 */
function tryCreate(lock: string): Promise<boolean> {
  return createExclusive(lock, `${process.pid} ${HOST}\n`);
}

/** The lock withFileLock holds for `file`: `.<name>.lock` beside it. */
const lockPathOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.lock`);
const LOCK_NAME = /^\..+\.lock$/;

/**
 * Whether `name` (a file name) is one of our work files: a lock (withFileLock) or a temp file
 * (fsAtomic's tempName, the lock's own included). Never content: what they guard or become reports
 * its own change.
 */
export const isOwnWorkFile = (name: string): boolean => LOCK_NAME.test(name) || isTempName(name);

/**
 * Runs `fn` while holding `<file>.lock`, so read-modify-write cycles on one file from the extension
 * and the MCP server at the same moment never lose an update. The lock holds `<pid> <host>`: a
 * lock whose process of this machine is gone (killed mid-write) is broken at once; one older than
 * 10 s is taken to be stale whoever wrote it; one that cannot be read is given a second.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = lockPathOf(file);
  await mkdirp(path.dirname(lock));
  const deadline = Date.now() + WAIT_MS;
  let delay = 5;
  for (;;) {
    // A lock that cannot be written (a full disk) fails the call, naming the file it guards.
    if (await tryCreate(lock).catch((e: unknown) => Promise.reject(withPath(e, file)))) break;
    try {
      const st = await fs.promises.stat(lock);
      const text = await fs.promises.readFile(lock, 'utf8').catch(() => '');
      const age = Date.now() - st.mtimeMs;
      const unreadable = !/^\d+ \S+\s*$/.test(text);
      if (age > STALE_MS || holderGone(text) || (unreadable && age > UNREADABLE_GRACE_MS)) {
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
  try {
    return await fn();
  } finally {
    await fs.promises.rm(lock, { force: true }).catch(() => undefined);
  }
}
