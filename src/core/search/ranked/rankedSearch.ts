/*
 * A ranked search of one `.agent/` folder, start to end: the query's terms, the index brought up to
 * date, the best chunks, their lines ranked into windows; files found changed since they were
 * indexed are indexed again and the query asked once more, so no answer quotes a file as it was.
 */
import * as path from 'node:path';
import { rankWindows, type SearchWindow } from './lineRanking';
import { queuedEventsHeard } from '../../fs/folderWatch';
import { SearchIndex, type RefreshReport } from './searchIndex';
import { asksAboutFailure, queryTerms } from './terms';
import { rankChunks } from './chunkRanking';
import type { SearchScope } from './sources';

/** Chunks whose lines are ranked per query. */
export const TOP_CHUNKS = 24;
/** How long a query may spend indexing what changed before it answers from what is indexed. */
export const REFRESH_MS = 1500;

export interface SearchRequest {
  query: string;
  scope?: SearchScope;
  /** Paths relative to `.agent/` that changed (a tool wrote them): looked at first. */
  hints?: readonly string[];
  /** Indexing time allowed before answering (default REFRESH_MS). */
  refreshMs?: number;
}

export interface SearchAnswer {
  terms: string[];
  windows: SearchWindow[];
  /** What the index covers now. */
  indexed: { files: number; bytes: number };
  /** What was not indexed yet when the answer was made (a large backlog; it goes on in the background). */
  pending: { files: number; bytes: number };
  /** Files that could not be read for indexing. */
  unreadable: { rel: string; why: string }[];
  /** What the answer could not do (the index could not be updated: a full disk, its lock held by a stuck process). */
  notes?: string[];
  /** Why there is no answer at all. */
  error?: string;
}

/** Runs a search on `index` (one process's index of the folder). */
export async function searchIndex(index: SearchIndex, req: SearchRequest, mask: (t: string) => string, now = Date.now): Promise<SearchAnswer> {
  const terms = queryTerms(req.query);
  for (const h of req.hints ?? []) index.hint(h);
  // A file written a moment ago: its watch event is in before the index is brought up to date.
  await queuedEventsHeard();
  const deadline = now() + (req.refreshMs ?? REFRESH_MS);
  const reports: RefreshReport[] = [];
  const notes: string[] = [];
  // An index that cannot be updated (a full disk, its lock held by a stuck process) still answers from what it holds, and says so.
  const refresh = async (until: number): Promise<void> => {
    try {
      reports.push(await index.refresh(until));
    } catch (e) {
      notes.push(`the index could not be brought up to date (${(e as Error).message}); what changed since may be missing`);
      index.load();
    }
  };
  await refresh(deadline);
  const scopes = req.scope ? new Set<SearchScope>([req.scope]) : undefined;
  let windows: SearchWindow[] = [];
  const forFailure = asksAboutFailure(req.query);
  for (let attempt = 0; attempt < 3 && terms.length > 0; attempt++) {
    const ranking = rankChunks(index, terms, scopes, TOP_CHUNKS, forFailure);
    if (ranking.broken.length > 0) {
      await index.repair(ranking.broken).catch(() => undefined);
      await refresh(Math.max(deadline, now() + 200));
      continue;
    }
    const ranked = rankWindows((rel) => path.join(index.agentDir, rel), (rel) => index.manifest.files[rel], ranking, terms, mask, forFailure);
    windows = ranked.windows;
    if (ranked.stale.length === 0) break;
    // Changed since indexed: indexed again now, and the query asked again.
    for (const rel of ranked.stale) index.hint(rel);
    await refresh(Math.max(deadline, now() + 200));
  }
  const last = reports[reports.length - 1] ?? { pendingFiles: 0, pendingBytes: 0 };
  const t = index.totals;
  return {
    terms,
    windows,
    indexed: { files: t.files, bytes: t.bytes },
    pending: { files: last.pendingFiles, bytes: last.pendingBytes },
    unreadable: reports.flatMap((r) => r.failed),
    ...(notes.length ? { notes: [...new Set(notes)] } : {}),
  };
}
