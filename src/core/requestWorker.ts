/**
 * A worker thread that answers requests (the tokenizer's counts: output/tokens.ts; the editor's notes
 * listings: notes/notesWorker.ts), so the work and the tables it loads stay off the caller's thread.
 *
 * - Started at the first request (or by `start`, to load early), and given up for good the first
 *   time it fails: it cannot start, throws, exits, answers with an error, or is silent past `waitMs`.
 *   Every request owed then answers undefined, and so does every later one: the caller does the work
 *   itself, and `failure` says why.
 * - Referenced only while an answer is owed. Without that, a process with nothing else to do would
 *   exit before its answer came; with it always, an idle worker would keep the process alive.
 */
import type { TransferListItem, Worker } from 'node:worker_threads';
import { startBackgroundWorker } from './backgroundWorker';

/** What a message from the worker is: the answer to request `id`, or why the worker cannot answer it (then it is given up). */
export type WorkerReply<A> = { id: number; answer: A } | { id: number; error: string };

export interface RequestWorkerOptions<A> {
  /** The script to run; undefined when there is none (every request then answers undefined). */
  script(): string | undefined;
  workerData: unknown;
  /** Reads a message from the worker; undefined for one that answers no request (ignored). */
  read(message: unknown): WorkerReply<A> | undefined;
  /** An answer that takes longer gives the worker up (none: no deadline). */
  waitMs?: number;
}

export class RequestWorker<A> {
  private worker: Worker | undefined;
  private failed: string | undefined;
  private nextId = 0;
  private readonly owed = new Map<number, { resolve: (a: A | undefined) => void; timer?: NodeJS.Timeout }>();

  constructor(private readonly opts: RequestWorkerOptions<A>) {}

  /** Why the worker was given up, if it was. */
  get failure(): string | undefined {
    return this.failed;
  }

  /** Starts the worker now, if it is not running and was not given up; false when it cannot run. */
  start(): boolean {
    return this.running() !== undefined;
  }

  /**
   * Posts the request `message(id)` makes and resolves to the worker's answer to it, or to
   * undefined when the worker cannot answer (see `failure`).
   */
  request(message: (id: number) => unknown, transfer?: readonly TransferListItem[]): Promise<A | undefined> {
    const w = this.running();
    if (!w) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const waitMs = this.opts.waitMs;
      const timer = waitMs === undefined ? undefined : setTimeout(() => void this.fail(`no answer within ${waitMs / 1000} s`), waitMs);
      timer?.unref();
      this.owed.set(id, { resolve, timer });
      w.ref();
      try {
        w.postMessage(message(id), transfer);
      } catch {
        // A request that cannot be sent (not cloneable): this one is answered undefined; the worker stays.
        this.owed.delete(id);
        if (this.owed.size === 0) w.unref();
        clearTimeout(timer);
        resolve(undefined);
      }
    });
  }

  /** Gives the worker up ('disposed'): what is owed answers undefined, and so does every later request. Resolves once the thread has stopped. */
  dispose(): Promise<void> {
    return this.fail('disposed');
  }

  private running(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    const script = this.opts.script();
    if (!script) {
      this.failed = 'no worker script';
      return undefined;
    }
    let w: Worker;
    const onMessage = (m: unknown): void => {
      const reply = this.opts.read(m);
      const waiter = reply && this.owed.get(reply.id);
      if (!reply || !waiter) return;
      if ('error' in reply) {
        void this.fail(reply.error);
        return;
      }
      this.owed.delete(reply.id);
      if (this.owed.size === 0) w.unref();
      clearTimeout(waiter.timer);
      waiter.resolve(reply.answer);
    };
    try {
      w = startBackgroundWorker(script, this.opts.workerData, onMessage);
    } catch (e) {
      this.failed = `the worker could not start: ${(e as Error).message}`;
      return undefined;
    }
    w.on('error', (e) => void this.fail(`the worker failed: ${e.message}`));
    w.on('exit', (code) => void this.fail(`the worker exited (code ${code})`));
    this.worker = w;
    return w;
  }

  private async fail(why: string): Promise<void> {
    this.failed ??= why;
    const owed = [...this.owed.values()];
    this.owed.clear();
    const w = this.worker;
    this.worker = undefined;
    for (const { resolve, timer } of owed) {
      clearTimeout(timer);
      resolve(undefined);
    }
    if (w) await w.terminate();
  }
}
