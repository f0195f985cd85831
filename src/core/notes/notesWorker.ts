/**
 * The editor's listing of the notes on a worker thread (notesWorkerEntry.ts). The note decorations
 * and the views' tooltips need every folder's notes by target; at a heavy user's size (10,000
 * notes) the first listing on the extension host's thread, which every extension shares, cost ~120
 * ms of it at each start (reading the notes cache, building 10,000 notes and their garbage: bench
 * row 19a). The worker keeps its own listing (notes.ts, as any process does) and posts what changed
 * since its last answer (noteIndex.ts NotesDiff): the first answer every note, as columns and JSON
 * that the index parses only for the items that show them; later ones the notes the change feed
 * named. A worker that cannot start, fails, exits or takes longer than LIST_WAIT_MS answers
 * undefined, for good (requestWorker.ts): the caller then lists on its own thread, as without it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RequestWorker } from '../requestWorker';
import type { NotesDiff } from './noteIndex';
import { tuning } from '../processState';

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

/** The worker's script: dist/notes-worker.js beside the bundle, or the compiled entry (tsc output). */
function workerScript(): string | undefined {
  if (tuning.notesWorkerScript) return tuning.notesWorkerScript;
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
  private readonly worker = new RequestWorker<NotesDiff>({
    script: workerScript,
    workerData: { agentContextNotes: true },
    read: (m) => {
      const a = m as Partial<NotesListed> | undefined;
      if (a?.agentContextNotes !== 'listed' || typeof a.seq !== 'number') return undefined;
      return isDiff(a.diff) ? { id: a.seq, answer: a.diff } : { id: a.seq, error: a.error ?? 'an answer that is not a diff' };
    },
    waitMs: LIST_WAIT_MS,
  });

  /** Why listings on the worker stopped, if they did. */
  get failure(): string | undefined {
    return this.worker.failure;
  }

  /**
   * What changed in `root`'s notes since the worker's last answer for it (every note with `fresh`),
   * having re-checked the note files in `recheck` (all of them with 'all'). Undefined when the
   * worker cannot answer (see `failure`).
   */
  list(root: string, opts: { recheck?: readonly string[] | 'all'; reported: boolean; fresh: boolean }): Promise<NotesDiff | undefined> {
    const recheck = opts.recheck === undefined || opts.recheck === 'all' ? opts.recheck : [...opts.recheck];
    return this.worker.request((seq) => ({ agentContextNotes: 'list', seq, root, recheck, reported: opts.reported, fresh: opts.fresh }) satisfies NotesListRequest);
  }

  dispose(): void {
    void this.worker.dispose();
  }
}
