import * as fs from 'node:fs';
import { cacheFile } from '../workspace/cacheFiles';
import { writeCacheFile } from '../fs/fsAtomic';

/*
 * The last dry run of cleanup (`.agent/.cache/scratch-cleanup.json`), so a new process (each agent
 * session starts an MCP server) answers a dry run on 100,000 scratch files from the scratch
 * summary, without loading the index's 100,000 entries, when nothing changed since a dry run
 * computed it. It is stored under:
 * - the digest of the scratch index's state (ScratchTree.digest: every folder's totals and file
 *   count, all files of small folders and the newest 256 of big ones, sizes and dates), which a
 *   process started from the summary computes alike once the summary is checked against the disk;
 * - the dry run's key: pins, protected paths (plans, evidence, open terminals), policy, list limit;
 * - the time it was computed and `stableUntil`, when the first file it keeps passes the age limit:
 *   between the two, the same files give the same removals at any time (a file it removes for the
 *   count or the size that passes the age limit meanwhile is still removed; its reason is told
 *   from its date when read).
 * Anything else (another version or folder, a damaged file, a time outside those bounds) is not
 * used: the dry run loads everything and computes. Several processes may write it; each write is
 * atomic and whole, and a stale one only costs that computation.
 */

/** One file a dry run would remove, relative to `.agent/scratch/`. */
export interface CachedItem {
  rel: string;
  size: number;
  mtimeMs: number;
  /** Its reason when it is not (yet) older than the age limit: over the file count or the size. */
  otherwise: 'count' | 'size';
}

/** What a dry run found, as the report needs it. */
export interface CachedDryRun {
  listed: CachedItem[];
  removeCount: number;
  removeBytes: number;
  keptPinned: number;
  keptProtected: number;
  files: number;
  bytes: number;
  oldestRemovableMs?: number;
}

interface CacheFile extends CachedDryRun {
  v: number;
  scratchDir: string;
  digest: string;
  key: string;
  now: number;
  /** null: the answer holds at any later time. */
  stableUntil: number | null;
}

const VERSION = 2; // 2: listed files carry their date (reasons told when read)
const OTHERWISE: readonly string[] = ['count', 'size'];

/** Where the last dry run of an `.agent/` folder is kept. */
export function cleanupCachePath(agentDir: string): string {
  return cacheFile(agentDir, 'scratchCleanup');
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** The cached dry run for this state, key and time, or undefined (none, another state, stale, damaged). */
export async function readDryRun(agentDir: string, scratchDir: string, digest: string, key: string, now: number): Promise<CachedDryRun | undefined> {
  let c: CacheFile;
  try {
    c = JSON.parse(await fs.promises.readFile(cleanupCachePath(agentDir), 'utf8')) as CacheFile;
  } catch {
    return undefined;
  }
  if (!c || typeof c !== 'object' || c.v !== VERSION || c.scratchDir !== scratchDir || c.digest !== digest || c.key !== key) return undefined;
  if (!isNum(c.now) || now < c.now || (c.stableUntil !== null && !(isNum(c.stableUntil) && now < c.stableUntil))) return undefined;
  if (![c.removeCount, c.removeBytes, c.keptPinned, c.keptProtected, c.files, c.bytes].every(isNum) || (c.oldestRemovableMs !== undefined && !isNum(c.oldestRemovableMs))) return undefined;
  if (!Array.isArray(c.listed) || !c.listed.every((i) => i && typeof i.rel === 'string' && isNum(i.size) && isNum(i.mtimeMs) && OTHERWISE.includes(i.otherwise))) return undefined;
  return { listed: c.listed, removeCount: c.removeCount, removeBytes: c.removeBytes, keptPinned: c.keptPinned, keptProtected: c.keptProtected, files: c.files, bytes: c.bytes, oldestRemovableMs: c.oldestRemovableMs };
}

/** The last text written per folder by this process (not written again while the same). */
const written = new Map<string, string>();

/**
 * Stores a dry run computed at `now` for this state and key. Awaited by the dry run before it
 * answers (a few ms, next to the load it follows): an MCP server may be ended right after its
 * answer, and the next one should find it. A failed write only means computing next time.
 */
export async function writeDryRun(agentDir: string, scratchDir: string, digest: string, key: string, now: number, stableUntil: number, run: CachedDryRun): Promise<void> {
  const body: CacheFile = { v: VERSION, scratchDir, digest, key, now, stableUntil: Number.isFinite(stableUntil) ? stableUntil : null, ...run };
  // The same answer for the same state and key: written once (a later time narrows nothing).
  const same = JSON.stringify({ ...body, now: 0 });
  if (written.get(agentDir) === same) return;
  written.set(agentDir, same);
  const file = cleanupCachePath(agentDir);
  try {
    await writeCacheFile(file, JSON.stringify(body));
  } catch {
    written.delete(agentDir);
  }
}
