/**
 * A large digest cache's first check on a worker thread (fileDigests.ts). A process that loads a
 * cache of thousands of entries (10,000 notes: a 4 MB `.agent/.cache/notes.json`) must stat each
 * entry's file once before trusting it; on the extension host's main thread, which every extension
 * shares, those 10,000 stats and their garbage were ~60 ms of each editor start (bench row 19a).
 *
 * So while the main thread reads and parses the cache, a worker (digestCheckEntry.ts) reads the
 * same file, stats every entry's file and posts back those whose stat differs (changed in place,
 * replaced, deleted, no longer a regular file). The first `get` after the load then trusts every
 * other entry as the worker found it, exactly as if it had stat'ed it itself at that moment, and
 * stats only the files the worker named and those the cache does not hold. The worker's answer is
 * used only when it read the very file the main thread read (the same device, inode, size and
 * mtime: caches are replaced by rename, never written in place); a worker that fails, cannot
 * start or takes longer than CHECK_WAIT_MS leaves the first `get` to stat everything, as before.
 *
 * The same worker script also stats a first ranking of thousands of sub-agents (activitiesOffThread:
 * 5,000 agents are 10,000 stats), under the same rules: the caller waits for it, and stats on its
 * own thread when the worker gives no usable answer.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { leavesFolder } from '../workspace/relativePaths';
import { workerOnce } from '../workerThread';
import { equalFileKeys, fileKeyOf, isFileKey, sameFileKey, type FileKey } from './stamps';
import { tuning } from '../processState';

/** The first `get` waits this long for the worker at most, then stats on its own thread. */
const CHECK_WAIT_MS = 10_000;

/** The identity of a cache file as read: device, inode, size, mtime. */

/** What the worker posts: the cache it read, and the entries' files (absolute) whose stat differs from the entry's. */
export interface DigestCheckDone {
  agentContextDigestCheck: 'done';
  stamp?: FileKey;
  stale?: string[];
  entries?: number;
}

/** Where a cache line's path points: relative to `.agent/` (a prefix, not path.resolve: thousands of entries), or outside it. */
export function entryPath(agentDir: string, prefix: string, rel: string): string {
  return leavesFolder(rel) ? path.resolve(agentDir, rel) : prefix + rel;
}

/** Each entry line of a cache file's text (after its header line), as text. */
export function* cacheLines(text: string): Generator<string> {
  for (let pos = text.indexOf('\n') + 1; pos > 0 && pos < text.length; ) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    const line = text.slice(pos, end);
    pos = end + 1;
    yield line;
  }
}

/** Each entry line of a cache file's text (after its header line), parsed; undefined for a line that does not parse (one cut short). */
export function* cacheEntries(text: string): Generator<unknown> {
  for (const line of cacheLines(text)) {
    try {
      yield JSON.parse(line);
    } catch {
      yield undefined;
    }
  }
}

/**
 * The path (as stored: relative to `.agent/`) that opens an entry line `["<path>",[stat],digest]`,
 * without parsing the rest; undefined for a line that does not start so.
 */
export function entryLinePath(line: string): string | undefined {
  if (line.charCodeAt(0) !== 91 /* [ */ || line.charCodeAt(1) !== 34 /* " */) return undefined;
  let escaped = false;
  for (let i = 2; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 92 /* \\ */) {
      escaped = true;
      i++;
    } else if (c === 34) {
      if (!escaped) return line.slice(2, i);
      try {
        return JSON.parse(line.slice(1, i + 1)) as string;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * The check itself (run by the worker; a function of its own for the tests): reads `file`, and for
 * each well-formed entry line stats its file and compares device, inode, size, mtime and ctime.
 * Lines that do not parse are left to the loader (it reads those files again anyway).
 */
export function checkCacheFile(file: string, agentDir: string): DigestCheckDone {
  const fd = fs.openSync(file, 'r');
  let text: string;
  let stamp: FileKey;
  try {
    stamp = fileKeyOf(fs.fstatSync(fd));
    text = fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  const prefix = path.resolve(agentDir) + path.sep;
  const stale: string[] = [];
  let entries = 0;
  for (const e of cacheEntries(text)) {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !isFileKey(e[1])) continue;
    entries++;
    const f = entryPath(agentDir, prefix, e[0]);
    const k = e[1];
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(f, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st || !st.isFile() || !sameFileKey(k, st)) stale.push(f);
  }
  return { agentContextDigestCheck: 'done', stamp, stale, entries };
}

/** The worker's script: dist/digest-check.js beside the bundle, or the compiled entry (tsc output). */
function workerScript(): string | undefined {
  for (const name of ['digest-check.js', 'digestCheckEntry.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/** A check under way: `result(stamp)` gives the files to stat again, or undefined when the check cannot be used for the cache read with `stamp`. */
export interface DigestCheckRun {
  result(stamp: FileKey): Promise<Set<string> | undefined>;
}

/**
 * Starts the off-thread check of `file` when it is large enough and a worker can be started;
 * undefined otherwise (the caller stats on its own thread). `script` replaces the worker's script (tests).
 */
export function startDigestCheck(file: string, agentDir: string, opts: { script?: string } = {}): DigestCheckRun | undefined {
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const script = opts.script ?? tuning.digestCheckScript ?? workerScript();
  if (size < tuning.digestOffThreadMinBytes || !script) return undefined;
  // One answer (workerThread.ts's lifecycle: given up on a failure, an exit or CHECK_WAIT_MS; never keeps the process alive).
  const done = workerOnce<DigestCheckDone>(script, { agentContextDigestCheck: file, agentDir }, (m) => (m as Partial<DigestCheckDone> | undefined)?.agentContextDigestCheck === 'done', CHECK_WAIT_MS);
  if (!done) return undefined;
  return {
    result: async (stamp) => {
      const m = await done;
      if (!m?.stamp || !Array.isArray(m.stale) || !equalFileKeys(m.stamp, stamp)) return undefined;
      return new Set(m.stale);
    },
  };
}

/**
 * Runs the check worker once with `data` (another check its entry knows: the scratch listing,
 * scratch/index/listingCheck.ts); resolves to its first message that `isDone` accepts, or undefined when
 * no worker can run it, it fails, or it takes longer than CHECK_WAIT_MS.
 */
export async function runCheckWorker<T>(data: unknown, isDone: (m: unknown) => boolean): Promise<T | undefined> {
  const script = tuning.digestCheckScript ?? workerScript();
  return script ? workerOnce<T>(script, data, isDone, CHECK_WAIT_MS) : undefined;
}

/** What the worker posts for an activity check: each id's last activity, in the order asked (NaN: could not tell). */
export interface ActivityCheckDone {
  agentContextActivity: 'done';
  activity?: Float64Array;
}

/**
 * The last activity of each sub-agent folder `root + id` (agents/agentRanking.ts: the newer mtime of
 * status.json and findings.md, else the folder's), stat'ed on the check worker: 5,000 agents are
 * 10,000 stats, ~40 ms of the extension host's thread at every start otherwise (bench row 19a).
 * Undefined when no worker can do it (the caller stats on its own thread); at least `min` ids, else
 * undefined at once (a worker costs more than a few stats).
 */
export async function activitiesOffThread(root: string, ids: readonly string[], min = tuning.activityOffThreadMinIds): Promise<Float64Array | undefined> {
  if (ids.length < min) return undefined;
  const m = await runCheckWorker<ActivityCheckDone>({ agentContextActivity: root, ids }, (m) => (m as Partial<ActivityCheckDone> | undefined)?.agentContextActivity === 'done');
  return m?.activity instanceof Float64Array && m.activity.length === ids.length ? m.activity : undefined;
}

