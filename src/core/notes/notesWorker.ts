/**
 * The editor's listing of the notes on a worker thread (notesWorkerEntry.ts). The note decorations
 * and the views' tooltips need every folder's notes by target; at a heavy user's size (10,000
 * notes) the first listing on the extension host's thread, which every extension shares, cost ~120
 * ms of it at each start (reading the notes cache, building 10,000 notes and their garbage: bench
 * row 19a). The worker keeps its own listing (notes.ts, as any process does) and posts what changed
 * since its last answer (noteIndex.ts NotesDiff): the first answer every note, as columns and JSON
 * that the index parses only for the items that show them; later ones the notes the change feed
 * named. A worker that cannot start, fails, exits or takes longer than LIST_WAIT_MS answers
 * undefined, for good: the caller then lists on its own thread, as without it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { NotesDiff } from './noteIndex';

/** A listing waits this long for the worker at most (a first one of 10,000 notes takes ~0.2 s), then the caller lists itself. */
export const LIST_WAIT_MS = 30_000;

/** What the caller posts: list `root`'s notes; `recheck` what the change feed named; `fresh`: answer every note (a new index). */
export interface NotesListRequest {
  agentContextNotes: 'list';
  seq: number;
  root: string;
  recheck?: string[] | 'all';
  /** Whether the caller reports every change of the folder's note files (then the worker sets no watch of its own). */
  reported: boolean;
  fresh: boolean;
}

/** The worker's answer to request `seq`: the diff, or why it could not list. */
export interface NotesListed {
  agentContextNotes: 'listed';
  seq: number;
  diff?: NotesDiff;
  error?: string;
}

let scriptOverride: string | undefined;

/** Tests: the worker script to start (a failing one), or undefined for the real one. */
export function setNotesWorkerScript(script: string | undefined): void {
  scriptOverride = script;
}

/** The worker's script: dist/notes-worker.js beside the bundle, or the compiled entry (tsc output). */
function workerScript(): string | undefined {
  if (scriptOverride) return scriptOverride;
  for (const name of ['notes-worker.js', 'notesWorkerEntry.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

function isDiff(d: unknown): d is NotesDiff {
  const x = d as NotesDiff;
  const n = x?.files?.length;
  return (
    !!x && Array.isArray(x.files) && Array.isArray(x.paths) &&
    x.terminals instanceof Float64Array && x.commands instanceof Float64Array && Array.isArray(x.removed) && Array.isArray(x.errors) &&
    [x.paths, x.terminals, x.commands].every((c) => c.length === n) &&
    typeof x.json?.text === 'string' && x.json.at instanceof Int32Array && x.json.at.length === n + 1 && x.json.at[n] === x.json.text.length
  );
}

/** One worker thread listing notes for this process, started at the first `list`. */
export class NotesWorker {
  private worker: Worker | undefined;
  /** Why the worker is no longer used (it failed once: every later `list` answers undefined at once). */
  private failed: string | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (d: NotesDiff | undefined) => void; timer: NodeJS.Timeout }>();

  /** Why listings on the worker stopped, if they did. */
  get failure(): string | undefined {
    return this.failed;
  }

  /**
   * What changed in `root`'s notes since the worker's last answer for it (every note with `fresh`),
   * having re-checked the note files in `recheck` (all of them with 'all'). Undefined when the
   * worker cannot answer (see `failure`).
   */
  list(root: string, opts: { recheck?: readonly string[] | 'all'; reported: boolean; fresh: boolean }): Promise<NotesDiff | undefined> {
    const w = this.failed ? undefined : this.start();
    if (!w) return Promise.resolve(undefined);
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.fail(`no answer within ${LIST_WAIT_MS / 1000} s`), LIST_WAIT_MS);
      timer.unref();
      this.waiting.set(seq, { resolve, timer });
      w.ref(); // kept alive while an answer is owed (a process with nothing else to do would exit meanwhile)
      const recheck = opts.recheck === undefined || opts.recheck === 'all' ? opts.recheck : [...opts.recheck];
      w.postMessage({ agentContextNotes: 'list', seq, root, recheck, reported: opts.reported, fresh: opts.fresh } satisfies NotesListRequest);
    });
  }

  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    const script = workerScript();
    if (!script) {
      this.failed = 'no worker script';
      return undefined;
    }
    let w: Worker;
    try {
      w = new Worker(script, { workerData: { agentContextNotes: true } });
    } catch (e) {
      this.failed = `the worker could not start: ${(e as Error).message}`;
      return undefined;
    }
    w.unref(); // never keeps the process alive when no answer is owed
    w.on('message', (m: unknown) => {
      const a = m as Partial<NotesListed> | undefined;
      if (a?.agentContextNotes !== 'listed' || typeof a.seq !== 'number') return;
      const waiter = this.waiting.get(a.seq);
      if (!waiter) return;
      if (!isDiff(a.diff)) {
        this.fail(a.error ?? 'an answer that is not a diff');
        return;
      }
      this.waiting.delete(a.seq);
      if (this.waiting.size === 0) w.unref();
      clearTimeout(waiter.timer);
      waiter.resolve(a.diff);
    });
    w.on('error', (e) => this.fail(`the worker failed: ${e.message}`));
    w.on('exit', (code) => this.fail(`the worker exited (code ${code})`));
    this.worker = w;
    return w;
  }

  /** Gives up on the worker: every waiting listing answers undefined, and so does every later one. */
  private fail(why: string): void {
    this.failed ??= why;
    for (const { resolve, timer } of this.waiting.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.waiting.clear();
    const w = this.worker;
    this.worker = undefined;
    if (w) void w.terminate();
  }

  dispose(): void {
    this.fail('disposed');
  }
}
