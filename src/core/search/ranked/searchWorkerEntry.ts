// Bundled on its own as dist/search-worker.js: ranked search on a worker thread (searchService.ts).
// Started with workerData { agentContextSearch: true }; answers each SearchWorkerRequest with a
// SearchWorkerAnswer, one at a time, in order. Between queries it keeps each folder's index up to
// date (what its watch saw change, a backlog a query left, merges of runs), in small steps that a
// query waits for at most one of.
// Required as a module (not as a worker), it is the search code for the caller's own thread.
import { parentPort, workerData } from 'node:worker_threads';
import { searchHere, threadIndexes } from './searchHere';
import type { SearchWorkerAnswer, SearchWorkerRequest } from './searchMessages';

export { searchHere } from './searchHere';

/** Between two steps of upkeep while there is a backlog; when there was nothing to do, IDLE_MS. */
const UPKEEP_MS = 500;
const IDLE_MS = 2000;
/** Indexing time of one step of upkeep (a query waits for at most this). */
const STEP_MS = 300;

let queue: Promise<unknown> = Promise.resolve();
let timer: NodeJS.Timeout | undefined;

function run<T>(fn: () => Promise<T>): Promise<T> {
  const p = queue.then(fn);
  queue = p.catch(() => undefined);
  return p;
}

function upkeepSoon(busy = true): void {
  if (timer) return;
  timer = setTimeout(() => {
    timer = undefined;
    void run(async () => {
      let more = false;
      for (const index of threadIndexes()) {
        try {
          // Between queries: a watched folder whose time changed may be listed again (searchIndex.ts, the safety net).
          const r = await index.refresh(Date.now() + STEP_MS, { relistWatched: true });
          more ||= r.pendingFiles > 0;
          if (r.pendingFiles === 0 && ((await index.mergeOnce()) || (await index.compactOnce()))) more = true;
        } catch {
          // a full disk, a lock held too long: the next query or step tries again
        }
      }
      return more;
    }).then((more) => upkeepSoon(more), () => upkeepSoon(false));
  }, busy ? UPKEEP_MS : IDLE_MS);
  // An idle worker never keeps its thread alive for this.
  timer.unref();
}

const port = parentPort;
if (port && (workerData as { agentContextSearch?: unknown } | undefined)?.agentContextSearch === true) {
  port.on('message', (m: SearchWorkerRequest) => {
    if (m?.agentContextSearch !== 'search' || typeof m.agentDir !== 'string') return;
    void run(async () => {
      let a: SearchWorkerAnswer;
      try {
        a = { agentContextSearch: 'answer', seq: m.seq, answer: await searchHere(m.agentDir, m.request, m.rules, process.platform === 'linux') };
      } catch (e) {
        // The search failed, the worker did not: the caller shows why, and the next query comes here again.
        const error = (e as Error).message;
        a = { agentContextSearch: 'answer', seq: m.seq, answer: { terms: [], windows: [], indexed: { files: 0, bytes: 0 }, pending: { files: 0, bytes: 0 }, unreadable: [], error } };
      }
      port.postMessage(a);
      upkeepSoon();
    });
  });
}
