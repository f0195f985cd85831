/**
 * A terminal catalog's first build on a worker thread (catalogWorkerEntry.ts), for a process that
 * starts with no catalog file and will ask for the catalog soon: the MCP server starts one 300 ms
 * after its tools are loaded (unless a call came first), so that at 10,000 terminals the ~250 ms of reads and
 * folds are done while the agent decides on its first call (bench row 14i).
 *
 * The worker builds what a briefing's first call would (terminalCatalog.ts: need 'last', lazyInfo)
 * and hands the catalog's entries and listing over; the first call takes them as it takes a catalog
 * file left by another process, and checks them against the files before it answers (every entry
 * whose N.txt was not read counts as an open terminal, so its index is stat'ed), so the answer is
 * as exact as without the worker. A worker that has not read half the terminals when the first
 * call comes (WAIT_FROM), fails, exits without a build or takes longer than WORKER_WAIT_MS is
 * stopped: the first call then builds on its own thread, as without it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { catalogPath, type CatalogSnapshot } from './catalogFile';
import { TERMINALS_DIR } from './terminalIndex';

/** A caller waits this long for the worker at most (a first build at 10,000 terminals takes ~0.3 s); then it builds itself. */
export const WORKER_WAIT_MS = 20_000;
/**
 * A caller waits for the worker only once it has read this share of the terminals: its rest, the
 * hand-over (~60 ms at 10,000 terminals) and a stat per terminal (~50 ms) then take less than a
 * build on the caller's thread (~250 ms). A call that comes right after the server starts finds
 * the worker barely begun, and builds itself as it would without one.
 */
export const WAIT_FROM = 0.5;

/** What the worker posts when it is done: its build (none when it failed). */
export interface CatalogWorkerDone {
  agentContextCatalog: 'done';
  snapshot?: CatalogSnapshot;
}

/** A started worker: `done` resolves to its build, or undefined when it failed or exited without one; `progress`, the share of the terminals it has read (0 until it has listed them); `stop` ends it. */
export interface CatalogWorkerRun {
  done: Promise<CatalogSnapshot | undefined>;
  progress(): number;
  stop(): void;
}

/** Workers started and not handed over yet, by resolved agentDir. */
const started = new Map<string, CatalogWorkerRun>();
/** Workers due to start (prebuildTerminalCatalog's delay), by resolved agentDir. */
const due = new Map<string, NodeJS.Timeout>();

/** The worker's script: dist/catalog-worker.js beside the bundle, or the compiled entry (tsc output). */
function workerScript(): string | undefined {
  for (const name of ['catalog-worker.js', 'catalogWorkerEntry.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/**
 * Starts the first build of agentDir's terminal catalog on a worker thread, `delayMs` from now,
 * when there is no catalog file yet and there is a terminals folder; the catalog's first call in
 * this thread takes it over (takeCatalogWorker), and one that comes before the delay is over stops
 * it from starting (it builds at once, with no worker competing for the CPU). True when a worker
 * was started or is due. `script` replaces the worker's script (tests: one that fails).
 */
export function prebuildTerminalCatalog(agentDir: string, opts: { delayMs?: number; script?: string } = {}): boolean {
  const key = path.resolve(agentDir);
  const script = opts.script ?? workerScript();
  if (started.has(key) || due.has(key) || !script) return false;
  // A catalog file is cheaper to load than a worker is to start; without a terminals folder there is nothing to build.
  if (fs.existsSync(catalogPath(key)) || !fs.existsSync(path.join(key, TERMINALS_DIR))) return false;
  if (!opts.delayMs) return startWorker(key, script);
  const t = setTimeout(() => {
    due.delete(key);
    startWorker(key, script);
  }, opts.delayMs);
  t.unref();
  due.set(key, t);
  return true;
}

function startWorker(key: string, script: string): boolean {
  let w: Worker;
  // [terminals read, terminals to read], written by the worker (catalogWorkerEntry.ts).
  const progress = new Int32Array(new SharedArrayBuffer(8));
  try {
    w = new Worker(script, { workerData: { agentContextCatalog: key, progress: progress.buffer } });
  } catch {
    return false; // no worker threads here: the first call builds
  }
  w.unref(); // never keeps the process alive
  const done = new Promise<CatalogSnapshot | undefined>((resolve) => {
    w.on('message', (m: Partial<CatalogWorkerDone> | undefined) => {
      if (m?.agentContextCatalog === 'done') resolve(wellFormed(m.snapshot) ? m.snapshot : undefined);
    });
    w.on('error', () => resolve(undefined));
    w.on('exit', () => resolve(undefined)); // after a 'done' this changes nothing
  });
  let finished = false;
  void done.then((b) => (finished = b !== undefined));
  const share = (): number => {
    if (finished) return 1;
    const total = Atomics.load(progress, 1);
    return total > 0 ? Atomics.load(progress, 0) / total : 0;
  };
  started.set(key, { done, progress: share, stop: () => void w.terminate() });
  return true;
}

/** The worker started for agentDir, handed over once (to the catalog's first load in this thread); one not started yet never starts. */
export function takeCatalogWorker(agentDir: string): CatalogWorkerRun | undefined {
  const key = path.resolve(agentDir);
  clearTimeout(due.get(key));
  due.delete(key);
  const run = started.get(key);
  started.delete(key);
  return run;
}

/** Resolves when the worker started for agentDir is done, if one is started and not handed over yet (tests). */
export function catalogWorkerSettled(agentDir: string): Promise<void> | undefined {
  return started.get(path.resolve(agentDir))?.done.then(() => undefined);
}

/** Stops every worker not handed over (tests: a new process). */
export function stopCatalogWorkers(): void {
  for (const t of due.values()) clearTimeout(t);
  due.clear();
  for (const run of started.values()) run.stop();
  started.clear();
}

/** The snapshot's shape (its entries are this code's own, made by the worker): anything else counts as no build. */
function wellFormed(s: CatalogSnapshot | undefined): s is CatalogSnapshot {
  return typeof s === 'object' && s !== null && s.listed === true && Array.isArray(s.numbers) && Array.isArray(s.previous) && Array.isArray(s.indexed) && Array.isArray(s.entries);
}
