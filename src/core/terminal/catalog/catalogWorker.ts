/**
 * A terminal catalog's first build on a worker thread (catalogWorkerEntry.ts), for a process that
 * starts with no catalog file and will ask for the catalog soon: the MCP server starts one before
 * the rest of it loads (src/mcp/startEarly.ts), so that at 10,000 terminals the ~250 ms of reads
 * and folds run on the other core while this thread loads, and while the agent decides on its
 * first call (bench row 14i).
 *
 * The worker builds what a briefing's first call would (terminalCatalog.ts: need 'last', lazyInfo)
 * and hands the catalog's entries and listing over; the first call takes them as it takes a catalog
 * file left by another process, and checks them against the files before it answers, so the answer
 * is as exact as without the worker. That check is the worker's too: when the call takes the build,
 * it asks the worker which terminals' files changed since the build read them, and checks only
 * those. The worker answers from its watch of the terminals folder (catalogChanges.ts, set up
 * before the build read anything) or, where a watch cannot tell, by a stat of every file taken
 * after the call came. A worker that does not answer (it exited, it is slow) leaves the call to
 * stat every terminal itself (every entry whose N.txt was not read counts as an open terminal, so
 * its index is stat'ed). A worker that has read less than WAIT_FROM of the terminals when the first
 * call comes, fails, exits without a build or takes longer than WORKER_WAIT_MS is stopped: the
 * first call then builds on its own thread, as without it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkerThread } from '../../workerThread';
import { catalogPath, decodeHandover, isNumList, type CatalogSnapshot, type Handover } from './catalogFile';
import { TERMINALS_DIR } from '../terminalFormat';

/** A caller waits this long for the worker at most (a first build at 10,000 terminals takes ~0.3 s); then it builds itself. */
export const WORKER_WAIT_MS = 20_000;
/**
 * A caller waits for the worker only once it has read this share of the terminals: its rest and the
 * hand-over (~35 ms at 10,000 terminals) then take less than a build on the caller's thread (~250
 * ms, competing with the worker until it is stopped). The MCP server starts the worker before it
 * loads: a call that comes as soon as the server is up finds it ~60 ms in with the bundle (below
 * this share at 10,000 terminals: the call builds here) and ~250 ms in with the tsc build. With
 * half, a fifth of those tsc-build first calls built here, in 500–1,000 ms, behind a worker that
 * would have been done in 200.
 */
export const WAIT_FROM = 0.2;

/** After the build is taken, the worker's answer on what changed is waited for this long at most (a watch answers at once, 10,000 stats take 50–90 ms); then the caller stats the files itself. */
export const VERIFY_WAIT_MS = 5_000;

/** What the worker posts when it is done: its build, as catalogFile.ts encodeHandover writes it (none when it failed). */
export interface CatalogWorkerDone {
  agentContextCatalog: 'done';
  handover?: Handover;
}

/** What the thread that takes the build posts to the worker: say which terminals' files changed since the build read them. */
export interface CatalogWorkerVerify {
  agentContextCatalog: 'verify';
}

/** The worker's answer to CatalogWorkerVerify: the terminals whose files changed since the build read them (none when it has no build). */
export interface CatalogWorkerVerified {
  agentContextCatalog: 'verified';
  changed?: number[];
}

/**
 * A started worker: `done` resolves to its build, or undefined when it failed or exited without
 * one; `verify` asks it which terminals' files changed since its build read them and resolves to
 * those, or undefined when it did not answer; `progress`, the share of the terminals it has read
 * (0 until it has listed them); `stop` ends it.
 */
export interface CatalogWorkerRun {
  done: Promise<CatalogSnapshot | undefined>;
  verify(): Promise<ReadonlySet<number> | undefined>;
  progress(): number;
  stop(): void;
}

/** Workers started and not handed over yet, by resolved agentDir; `hold` is their build, the worker referenced until it comes. */
const started = new Map<string, CatalogWorkerRun & { hold(): Promise<CatalogSnapshot | undefined> }>();

/** The worker's script: dist/catalog-worker.js beside the bundle, or the compiled entry (tsc output). */
function workerScript(): string | undefined {
  for (const name of ['catalog-worker.js', 'catalogWorkerEntry.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/**
 * Starts the first build of agentDir's terminal catalog on a worker thread, when there is no
 * catalog file yet and there is a terminals folder; the catalog's first call in this thread takes
 * it over (takeCatalogWorker). True when a worker was started. `script` replaces the worker's
 * script (tests: one that fails).
 */
export function prebuildTerminalCatalog(agentDir: string, opts: { script?: string } = {}): boolean {
  const key = path.resolve(agentDir);
  const script = opts.script ?? workerScript();
  if (started.has(key) || !script) return false;
  // A catalog file is cheaper to load than a worker is to start; without a terminals folder there is nothing to build.
  if (fs.existsSync(catalogPath(key)) || !fs.existsSync(path.join(key, TERMINALS_DIR))) return false;
  return startWorker(key, script);
}

function startWorker(key: string, script: string): boolean {
  // [terminals read, terminals to read], written by the worker (catalogWorkerEntry.ts).
  const progress = new Int32Array(new SharedArrayBuffer(8));
  let verified: (changed: ReadonlySet<number> | undefined) => void = () => undefined;
  const verifiedOnce = new Promise<ReadonlySet<number> | undefined>((resolve) => (verified = resolve));
  let built: (b: CatalogSnapshot | undefined) => void = () => undefined;
  const done = new Promise<CatalogSnapshot | undefined>((resolve) => (built = resolve));
  // Never keeps the process alive, except while a caller awaits its build or its answer (hold).
  const t = WorkerThread.start({
    script,
    workerData: { agentContextCatalog: key, progress: progress.buffer },
    onMessage: (message) => {
      const m = message as Partial<CatalogWorkerDone | CatalogWorkerVerified> | undefined;
      if (m?.agentContextCatalog === 'done') built(decodeHandover(m.handover));
      else if (m?.agentContextCatalog === 'verified') verified(isNumList(m.changed) ? new Set(m.changed) : undefined);
    },
    // After a 'done' (or a 'verified') these change nothing.
    onGone: () => {
      built(undefined);
      verified(undefined);
    },
    refWhileOwed: true,
  });
  if (!(t instanceof WorkerThread)) return false; // no worker threads here: the first call builds
  let finished = false;
  void done.then((b) => (finished = b !== undefined));
  const share = (): number => {
    if (finished) return 1;
    const total = Atomics.load(progress, 1);
    return total > 0 ? Atomics.load(progress, 0) / total : 0;
  };
  /** The worker referenced while `answer` is awaited. */
  const hold = <T>(answer: Promise<T>): Promise<T> => {
    const owed = t.owe();
    const settle = (): void => owed.settle();
    answer.then(settle, settle);
    return answer;
  };
  let asked = false;
  const verify = (): Promise<ReadonlySet<number> | undefined> => {
    if (!asked) {
      asked = true;
      if (!t.post({ agentContextCatalog: 'verify' } satisfies CatalogWorkerVerify)) verified(undefined);
    }
    return verifiedOnce;
  };
  started.set(key, { done, verify: () => hold(verify()), progress: share, stop: () => void t.stop(), hold: () => hold(done) });
  return true;
}

/** The worker started for agentDir, handed over once (to the catalog's first load in this thread). */
export function takeCatalogWorker(agentDir: string): CatalogWorkerRun | undefined {
  const key = path.resolve(agentDir);
  const run = started.get(key);
  started.delete(key);
  // The taker awaits the build: the worker is referenced until it comes.
  return run && { done: run.hold(), verify: run.verify, progress: run.progress, stop: run.stop };
}

/** Resolves when the worker started for agentDir is done, if one is started and not handed over yet (tests). */
export function catalogWorkerSettled(agentDir: string): Promise<void> | undefined {
  return started.get(path.resolve(agentDir))?.hold().then(() => undefined);
}

/** Stops every worker not handed over (tests: a new process). */
export function stopCatalogWorkers(): void {
  for (const run of started.values()) run.stop();
  started.clear();
}
