/**
 * One lifecycle for every worker thread of ours (the tokenizer's counts and the notes listings:
 * requestWorker.ts; the digest, scratch-listing and activity checks: fs/digestCheck.ts; the
 * terminal catalog's first build: terminal/catalog/catalogWorker.ts):
 *
 * - started from a script with its data; one that cannot start is reported, never thrown;
 * - unreferenced while idle (an idle worker never keeps the process alive), and, where the caller
 *   cannot do without the answer (`refWhileOwed`), referenced while an answer is owed;
 * - given up for good the first time it fails: an error, an exit, or an answer owed past its
 *   deadline; `onGone` hears why, once, and the thread is terminated.
 *
 * What differs between the workers (a stream of requests, one answer, a progress counter) is the
 * caller's, on top of `owe` and `post`.
 */
import type { TransferListItem, Worker } from 'node:worker_threads';
import { startBackgroundWorker } from './backgroundWorker';

export interface WorkerThreadOptions {
  script: string;
  workerData: unknown;
  /** Every message the worker posts. */
  onMessage(message: unknown): void;
  /** Once, when the worker is given up: it failed, exited, missed a deadline, or was stopped (`why`). */
  onGone(why: string): void;
  /** Keep the process alive while an answer is owed (the answer is needed, not just faster). */
  refWhileOwed?: boolean;
}

/** An answer owed by the worker: `settle` when it came (or is no longer wanted). */
export interface Owed {
  settle(): void;
}

export class WorkerThread {
  private owedCount = 0;
  private gone: string | undefined;

  private constructor(private readonly w: Worker, private readonly opts: WorkerThreadOptions) {}

  /** Starts a worker; `{ failure }` when it cannot start here (no worker threads, a bad script). */
  static start(opts: WorkerThreadOptions): WorkerThread | { failure: string } {
    let w: Worker;
    const box: { t?: WorkerThread } = {};
    try {
      // Started unreferenced, its 'message' listener first (backgroundWorker.ts: the Node 20 rule).
      w = startBackgroundWorker(opts.script, opts.workerData, (m) => {
        if (box.t?.gone === undefined) opts.onMessage(m);
      });
    } catch (e) {
      return { failure: `the worker could not start: ${(e as Error).message}` };
    }
    const t = (box.t = new WorkerThread(w, opts));
    w.on('error', (e) => void t.stop(`the worker failed: ${e.message}`));
    w.on('exit', (code) => void t.stop(`the worker exited (code ${code})`));
    return t;
  }

  /** Why it was given up (undefined while it runs). */
  get failure(): string | undefined {
    return this.gone;
  }

  /** An answer is owed from now; past `deadlineMs` without `settle`, the worker is given up. */
  owe(deadlineMs?: number): Owed {
    this.owedCount++;
    if (this.opts.refWhileOwed && this.gone === undefined) this.w.ref();
    const timer = deadlineMs === undefined ? undefined : setTimeout(() => void this.stop(`no answer within ${deadlineMs / 1000} s`), deadlineMs);
    timer?.unref();
    let settled = false;
    return {
      settle: () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (--this.owedCount === 0 && this.gone === undefined) this.w.unref();
      },
    };
  }

  /** Posts a message; false when it cannot be sent (not cloneable, or the worker is gone). */
  post(message: unknown, transfer?: readonly TransferListItem[]): boolean {
    if (this.gone !== undefined) return false;
    try {
      this.w.postMessage(message, transfer);
      return true;
    } catch {
      return false;
    }
  }

  /** Gives the worker up (`why`: 'stopped' unless told): onGone hears it once; resolves when the thread has ended. */
  async stop(why = 'stopped'): Promise<void> {
    if (this.gone !== undefined) return;
    this.gone = why;
    this.opts.onGone(why);
    await this.w.terminate();
  }
}

/**
 * Runs a worker for one answer: the first message `isDone` accepts (another message, a failure, an
 * exit or `waitMs` without one: undefined), then the worker is stopped. Undefined at once when no
 * worker can start here. The worker keeps the process alive while the answer is owed, at most
 * `waitMs`: a caller awaiting it with nothing else to do (a hook, a one-shot CLI) must not exit
 * in the middle of its work.
 */
export function workerOnce<T>(script: string, workerData: unknown, isDone: (m: unknown) => boolean, waitMs: number): Promise<T | undefined> | undefined {
  let resolve!: (v: T | undefined) => void;
  const answer = new Promise<T | undefined>((r) => (resolve = r));
  const held: { owed?: Owed } = {};
  const t = WorkerThread.start({
    script,
    workerData,
    onMessage: (m) => {
      held.owed?.settle();
      resolve(isDone(m) ? (m as T) : undefined);
      void (t as WorkerThread).stop('answered');
    },
    onGone: () => resolve(undefined),
    refWhileOwed: true,
  });
  if (!(t instanceof WorkerThread)) return undefined;
  held.owed = t.owe(waitMs);
  return answer;
}
