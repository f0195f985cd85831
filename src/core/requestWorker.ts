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
 * The lifecycle itself (start, reference, give up, deadline) is workerThread.ts's, shared by every worker.
 */
import type { TransferListItem } from 'node:worker_threads';
import { WorkerThread, type Owed } from './workerThread';

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
  private worker: WorkerThread | undefined;
  private failed: string | undefined;
  private nextId = 0;
  private readonly owed = new Map<number, { resolve: (a: A | undefined) => void; owed: Owed }>();

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
      const owed = w.owe(this.opts.waitMs);
      this.owed.set(id, { resolve, owed });
      // A request that cannot be sent (not cloneable): this one is answered undefined; the worker stays.
      if (!w.post(message(id), transfer)) this.answer(id, undefined);
    });
  }

  /** Gives the worker up ('disposed'): what is owed answers undefined, and so does every later request. Resolves once the thread has stopped. */
  async dispose(): Promise<void> {
    this.failed ??= 'disposed';
    await this.worker?.stop('disposed');
    this.gone();
  }

  private answer(id: number, a: A | undefined): void {
    const waiter = this.owed.get(id);
    if (!waiter) return;
    this.owed.delete(id);
    waiter.owed.settle();
    waiter.resolve(a);
  }

  private running(): WorkerThread | undefined {
    if (this.worker || this.failed) return this.worker;
    const script = this.opts.script();
    if (!script) {
      this.failed = 'no worker script';
      return undefined;
    }
    const t = WorkerThread.start({
      script,
      workerData: this.opts.workerData,
      refWhileOwed: true,
      onMessage: (m) => {
        const reply = this.opts.read(m);
        if (!reply || !this.owed.has(reply.id)) return;
        if ('error' in reply) void this.worker?.stop(reply.error);
        else this.answer(reply.id, reply.answer);
      },
      onGone: (why) => {
        this.failed ??= why;
        this.gone();
      },
    });
    if (!(t instanceof WorkerThread)) {
      this.failed = t.failure;
      return undefined;
    }
    this.worker = t;
    return t;
  }

  /** The worker is given up: every answer owed is undefined. */
  private gone(): void {
    this.worker = undefined;
    for (const id of [...this.owed.keys()]) this.answer(id, undefined);
  }
}
