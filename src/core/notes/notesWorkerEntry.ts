// Bundled on its own as dist/notes-worker.js: the editor's listing of the notes on a worker thread
// (notesWorker.ts). Started with workerData { agentContextNotes: true }; answers each NotesListRequest
// with a NotesListed, one at a time, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { notesReportedByCaller, recheckNotes, sharedNotes } from './notes';
import { jsonOf, ListingDiffer } from './noteIndex';
import { tune } from '../processState';
import type { NotesListed, NotesListRequest } from './notesWorker';

/** Per folder, the listing last sent. */
const sent = new Map<string, ListingDiffer>();

async function answer(m: NotesListRequest): Promise<NotesListed> {
  if (m.reported) notesReportedByCaller(m.root);
  if (m.recheck) recheckNotes(m.root, m.recheck === 'all' ? undefined : m.recheck);
  const { notes, errors } = await sharedNotes(m.root, { marks: false });
  let last = sent.get(m.root);
  if (!last || m.fresh) sent.set(m.root, (last = new ListingDiffer()));
  const { notes: changed = [], ...diff } = last.next(notes, errors);
  return { agentContextNotes: 'listed', seq: m.seq, diff: { ...diff, json: jsonOf(changed) } };
}

const port = parentPort;
if (port && (workerData as { agentContextNotes?: unknown } | undefined)?.agentContextNotes === true) {
  // This thread is off the editor's already: the notes cache is checked here, not on a worker of its own.
  tune({ digestOffThreadMinBytes: Number.POSITIVE_INFINITY });
  let queue = Promise.resolve();
  port.on('message', (m: NotesListRequest) => {
    if (m?.agentContextNotes !== 'list' || typeof m.root !== 'string') return;
    queue = queue.then(async () => {
      let a: NotesListed;
      try {
        a = await answer(m);
      } catch (e) {
        a = { agentContextNotes: 'listed', seq: m.seq, error: `listing the notes of ${m.root} failed: ${(e as Error).message}` };
      }
      port.postMessage(a, a.diff ? [a.diff.terminals.buffer as ArrayBuffer, a.diff.commands.buffer as ArrayBuffer, a.diff.json!.at.buffer as ArrayBuffer] : []);
    });
  });
}
