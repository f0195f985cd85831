/*
 * Ranked search for a process (the extension host, an MCP server): queries go to one worker thread
 * (searchWorkerEntry.ts, dist/search-worker.js, on core/requestWorker.ts), which keeps each folder's
 * index, watches its folders and indexes what changes between queries, so neither the indexing nor
 * the index's reads ever run on the caller's thread. The worker starts at the first search, never
 * at activation. When it cannot run (no script, it failed) the search runs here instead, with the
 * same code (the worker's bundle, loaded then) and the same index files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onProcessReset, processCache, tuning } from '../../processState';
import { RequestWorker } from '../../requestWorker';
import { relativeInside } from '../../workspace/relativePaths';
import type { MaskerRuleSources } from '../../secrets/gitleaks';
import type { SearchAnswer, SearchRequest } from './rankedSearch';
import type { SearchWorkerAnswer, SearchWorkerRequest } from './searchMessages';

/** A query waits this long for the worker at most (a first build of a large folder answers from what it indexed within REFRESH_MS). */
export const SEARCH_WAIT_MS = 60_000;

function workerScript(): string | undefined {
  const chosen = tuning.searchWorkerScript;
  if (chosen !== undefined) return chosen || undefined;
  for (const name of ['search-worker.js', 'searchWorkerEntry.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

let worker: RequestWorker<SearchAnswer> | undefined;
/** Files this process wrote since its last search of each folder (processState: forgotten with the worker). */
const hints = processCache<string, Set<string>>();
onProcessReset(() => void stopSearchWorker());

/** A file under `agentDir` that this process wrote (a tool's output): the next search looks at it first. */
export function noteSearchChange(agentDir: string, abs: string): void {
  const rel = relativeInside(agentDir, abs);
  if (!rel) return;
  let s = hints.get(agentDir);
  if (!s) hints.set(agentDir, (s = new Set()));
  if (s.size < 1000) s.add(rel.split(path.sep).join('/'));
}

/** Why searches run on the caller's thread, if they do. */
export function searchWorkerFailure(): string | undefined {
  return worker?.failure;
}

/** Searches `agentDir` on the worker thread, or here when the worker cannot answer. */
export async function searchFolder(agentDir: string, request: SearchRequest, rules: MaskerRuleSources): Promise<SearchAnswer> {
  const pending = hints.get(agentDir);
  hints.delete(agentDir);
  const req: SearchRequest = { ...request, hints: [...(request.hints ?? []), ...(pending ?? [])] };
  worker ??= new RequestWorker<SearchAnswer>({
    script: workerScript,
    workerData: { agentContextSearch: true },
    read: (m) => {
      const a = m as Partial<SearchWorkerAnswer> | undefined;
      if (a?.agentContextSearch !== 'answer' || typeof a.seq !== 'number') return undefined;
      return a.answer && Array.isArray(a.answer.windows) ? { id: a.seq, answer: a.answer } : { id: a.seq, error: a.error ?? 'an answer that is not a search answer' };
    },
    waitMs: SEARCH_WAIT_MS,
  });
  const answer = await worker.request((seq) => ({ agentContextSearch: 'search', seq, agentDir, request: req, rules }) satisfies SearchWorkerRequest);
  if (answer) return answer;
  return searchCore().searchHere(agentDir, req, rules, false);
}

type SearchCore = Pick<typeof import('./searchHere'), 'searchHere'>;
let core: SearchCore | undefined;

/** The search code itself, for this thread: dist/search-worker.js beside the bundle, or the compiled module (tests). */
function searchCore(): SearchCore {
  if (!core) {
    try {
      core = require(path.join(__dirname, 'search-worker.js')) as SearchCore;
    } catch {
      core = require('./searchWorkerEntry') as SearchCore;
    }
  }
  return core;
}

/** Stops the worker (tests, the MCP server's exit). */
export async function stopSearchWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  await w?.dispose();
}
