/**
 * "Which terminals' files differ from what the catalog read?", asked of many terminals at once by a
 * stat of each file, where the catalog's own check (terminalCatalog.ts `check`) would take them one
 * by one on its thread. Two askers: the catalog's sweep of every closed terminal (at 12,000
 * terminals, 24,000 stats and ~250 ms of the extension host's thread at every start, bench row 21a),
 * which runs it on the check worker (fs/digestCheck.ts); and a first build's worker answering which
 * terminals changed since it read them (catalogWorkerEntry.ts).
 *
 * The entries go over as one Float64Array (STAMP_FIELDS numbers each, no object per terminal) and the
 * answer comes back as the terminals to check; the caller then checks those as it checks any, so a
 * terminal named here that did not change costs a stat, never a wrong answer. A terminal is named
 * when its N.txt's key (device, inode, size, mtime, ctime) or its index's (device, inode, size, mtime,
 * as a fold's checkpoint keeps it) differs from the entry's, when a file cannot be stat'ed, when an
 * index appeared where the entry had none, or when it is no longer a regular file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCheckWorker } from '../../fs/digestCheck';
import { sameFileKey, type FileKey } from '../../fs/stamps';
import type { Entry } from './catalogFile';

/** Numbers per entry: n; N.txt's dev, ino, size, mtime, ctime (NaN: not read, so not compared); the index's dev, ino, size, mtime (NaN: no index). */
export const STAMP_FIELDS = 10;

/** The entries' stamps as staleTerminals() reads them. */
export function entryStamps(entries: readonly Entry[]): Float64Array {
  const s = new Float64Array(entries.length * STAMP_FIELDS).fill(NaN);
  entries.forEach((e, i) => {
    const o = i * STAMP_FIELDS;
    s[o] = e.n;
    if (e.txt) for (let k = 0; k < 5; k++) s[o + 1 + k] = e.txt[k];
    if (e.idx) {
      s[o + 6] = e.idx.dev;
      s[o + 7] = e.idx.ino;
      s[o + 8] = e.idx.size;
      s[o + 9] = e.idx.mtimeMs;
    }
  });
  return s;
}

/** Whether an index still has the device, inode, size and mtime its fold's checkpoint kept (the catalog's one rule for "this index changed"). */
export function sameFoldKey(dev: number, ino: number, size: number, mtimeMs: number, st: fs.Stats): boolean {
  return dev === st.dev && ino === st.ino && size === st.size && mtimeMs === st.mtimeMs;
}

/** The terminals of `stamps` (entryStamps) whose files in `dir` differ from their stamps, by a stat of each. */
export function staleTerminals(dir: string, stamps: Float64Array): number[] {
  const stale: number[] = [];
  for (let o = 0; o + STAMP_FIELDS <= stamps.length; o += STAMP_FIELDS) {
    const base = `${dir}${path.sep}${stamps[o]}`;
    try {
      if (!Number.isNaN(stamps[o + 1])) {
        const t = fs.statSync(`${base}.txt`, { throwIfNoEntry: false });
        if (!t || !sameFileKey(stamps.subarray(o + 1, o + 6) as unknown as FileKey, t)) {
          stale.push(stamps[o]);
          continue;
        }
      }
      const x = fs.statSync(`${base}.index.jsonl`, { throwIfNoEntry: false });
      const isIndex = !!x && x.isFile();
      const had = !Number.isNaN(stamps[o + 6]);
      if (had ? !isIndex || !sameFoldKey(stamps[o + 6], stamps[o + 7], stamps[o + 8], stamps[o + 9], x) : isIndex) stale.push(stamps[o]);
    } catch {
      stale.push(stamps[o]); // cannot even stat it: the caller's check decides
    }
  }
  return stale;
}

/** What the check worker posts for a catalog sweep (fs/digestCheckEntry.ts): the terminals to check. */
export interface CatalogStampsDone {
  agentContextCatalogStamps: 'done';
  stale?: number[];
}

/** The data the check worker is started with for it. */
export interface CatalogStampsData {
  agentContextCatalogStamps: string;
  stamps: Float64Array;
}

/** On the check worker: answers a CatalogStampsData. */
export function catalogStampsOnWorker(d: CatalogStampsData): CatalogStampsDone {
  return { agentContextCatalogStamps: 'done', stale: staleTerminals(d.agentContextCatalogStamps, d.stamps) };
}

/** staleTerminals on the check worker; undefined when no worker can answer (the caller checks every terminal itself). */
export async function staleTerminalsOffThread(dir: string, stamps: Float64Array): Promise<number[] | undefined> {
  const m = await runCheckWorker<CatalogStampsDone>({ agentContextCatalogStamps: dir, stamps } satisfies CatalogStampsData, (m) => (m as Partial<CatalogStampsDone> | undefined)?.agentContextCatalogStamps === 'done');
  return Array.isArray(m?.stale) && m.stale.every((n) => Number.isInteger(n)) ? m.stale : undefined;
}
