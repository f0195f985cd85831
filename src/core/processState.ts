/**
 * What a process keeps between calls, in one place: the per-process caches (the terminal catalog,
 * the agent ranking, the terminal listings, the notes snapshots…), each registered here with how it
 * is forgotten, and the tunables of those caches and of the off-thread checks. Tests start "a new
 * process" with one call, resetProcessState(), and change a tunable with tune() — instead of a
 * setter and a reset per module.
 */

/** The tunables (defaults; production never changes them, except a worker thread that must not start workers itself). */
const DEFAULTS = {
  /** Terminal catalog: closed terminals checked per call, in turn (the bound in terminalCatalog.ts counts on it). */
  catalogClosedChecksPerCall: 96,
  /** Terminal catalog: a lazyInfo call leaves N.txt unread only when it meets at least this many terminals it does not know. */
  catalogLazyInfoMin: 200,
  /** Terminal catalog: a sweep of at least this many terminals stats them on the check worker (fewer cost less than starting one). */
  catalogSweepOffThreadMin: 1000,
  /** Terminal catalog: entries made or written between turns of the event loop when its file is loaded or saved (catalogFile.ts). */
  catalogRowsPerSlice: 1000,
  /** Agent ranking: the most recently active agents, checked on every call (a listing shows about this many). */
  agentTopChecks: 40,
  /** Agent ranking: other agents checked per call, in turn. */
  agentChecksPerCall: 96,
  /** Agents from which their first ranking is stat'ed off the thread (fs/digestCheck.ts). */
  activityOffThreadMinIds: 1000,
  /** A digest cache file at least this large has its first check done off the thread (smaller ones cost less than starting a worker). */
  digestOffThreadMinBytes: 1024 * 1024,
  /** Scratch folders with at least this many names (files and subfolders) are listed on the check worker. */
  listingOffThreadMinNames: 2000,
  /** Whether FileDigests specs that ask for it are watched (Linux). */
  digestWatching: process.platform === 'linux',
  /** A watched FileDigests kind's safety-net round of stats at most this often. */
  digestWatchedRefreshMs: 30_000,
  /** Whether the notes listing watches notes folders itself (Linux; tests turn it off to try the rounds alone). */
  ownNotesWatch: process.platform === 'linux',
  /** The check worker's script (tests: a failing one); undefined: the real one. */
  digestCheckScript: undefined as string | undefined,
  /** The notes worker's script (tests: a failing one); undefined: the real one. */
  notesWorkerScript: undefined as string | undefined,
  /** Ranked search: bytes indexed per batch (tests: small batches); undefined: BATCH_BYTES (search/ranked/indexWriter.ts). */
  searchBatchBytes: undefined as number | undefined,
  /** The search worker's script (tests: a failing one, '' for none); undefined: the real one. */
  searchWorkerScript: undefined as string | undefined,
};

export type Tuning = typeof DEFAULTS;

/** The tunables in effect (read them at the time of use: tune() changes them). */
export const tuning: Readonly<Tuning> = { ...DEFAULTS };

/**
 * Changes tunables (tests: small numbers show a turn at work, a failing worker script…); returns a
 * function that puts back the values they had. Numbers below 0 count as 0.
 */
export function tune(change: Partial<Tuning>): () => void {
  const t = tuning as Tuning;
  const before: Partial<Tuning> = {};
  for (const key of Object.keys(change) as (keyof Tuning)[]) {
    (before as Record<string, unknown>)[key] = t[key];
    const v = change[key];
    (t as Record<string, unknown>)[key] = typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.floor(v)) : v;
  }
  return () => Object.assign(t, before);
}

const forgetters: (() => void)[] = [];

/**
 * A cache this process keeps (keyed by folder, say), forgotten by resetProcessState(); `forget`
 * is called on each value first (stop its timers and watches).
 */
export function processCache<K, V>(forget?: (value: V) => void): Map<K, V> {
  const map = new Map<K, V>();
  forgetters.push(() => {
    if (forget) for (const v of map.values()) forget(v);
    map.clear();
  });
  return map;
}

/** A set this process keeps, emptied by resetProcessState(). */
export function processSet<T>(): Set<T> {
  const set = new Set<T>();
  forgetters.push(() => set.clear());
  return set;
}

/** Something else to do when this process's state is forgotten (stopping workers not handed over, say). */
export function onProcessReset(forget: () => void): void {
  forgetters.push(forget);
}

/**
 * Forgets every per-process cache, as a new process would start (tests). Timers and sweeps under
 * way stop; the tunables stay as tune() left them.
 */
export function resetProcessState(): void {
  for (const forget of forgetters) forget();
}
