/*
 * Keeping the number of runs small: every batch of changes adds a run, and a query reads each
 * run's dictionary for each term, so runs are merged in tiers (MERGE_FAN runs of one tier make one
 * of the next, by size: each byte is rewritten about log4(index / 256 KB) times), dropping the
 * postings of chunks no longer live (files rewritten, deleted, or re-indexed from their last chunk).
 * A merge reads immutable runs and writes a new one outside the manifest's lock; only the swap in
 * the manifest is done under it, and only if those runs are still there.
 */
import * as path from 'node:path';
import type { RunEntry } from './manifest';
import { decodePostings, encodePostings, RunReader, writeRun, type Postings } from './runFile';

export const MERGE_FAN = 4;
const TIER_BASE = 256 * 1024;
/** Runs above this many are merged whatever their tiers. */
const MAX_RUNS = 12;

function tier(bytes: number): number {
  return Math.max(0, Math.floor(Math.log(Math.max(1, bytes / TIER_BASE)) / Math.log(MERGE_FAN)));
}

/**
 * The runs to merge next (adjacent, in chunk-id order), or undefined when none need it: MERGE_FAN
 * adjacent runs of one tier (a large old run is not rewritten for every few small new ones), else, past MAX_RUNS, the smallest adjacent MERGE_FAN; a single
 * run more than half dead is rewritten alone.
 */
export function pickMerge(runs: readonly RunEntry[], liveIn: (r: RunEntry) => number): RunEntry[] | undefined {
  const sorted = [...runs].sort((a, b) => a.lo - b.lo);
  for (let i = 0; i + MERGE_FAN <= sorted.length; i++) {
    const group = sorted.slice(i, i + MERGE_FAN);
    const t = tier(group[0].bytes);
    if (group.every((r) => tier(r.bytes) === t)) return group;
  }
  if (sorted.length > MAX_RUNS) {
    let best = 0;
    let bestBytes = Infinity;
    for (let i = 0; i + MERGE_FAN <= sorted.length; i++) {
      const b = sorted.slice(i, i + MERGE_FAN).reduce((s, r) => s + r.bytes, 0);
      if (b < bestBytes) {
        bestBytes = b;
        best = i;
      }
    }
    return sorted.slice(best, best + MERGE_FAN);
  }
  for (const r of sorted) {
    const ids = r.hi - r.lo + 1;
    if (r.bytes > TIER_BASE && liveIn(r) < ids / 2) return [r];
  }
  return undefined;
}

/** Merges `runs` (adjacent, sorted by lo) into one run named after its first chunk id, keeping only live chunks. */
export function mergeRuns(dir: string, runs: readonly RunEntry[], live: (id: number) => boolean): RunEntry {
  const readers = runs.map((r) => RunReader.open(path.join(dir, r.name)));
  try {
    const lo = runs[0].lo;
    const hi = runs[runs.length - 1].hi;
    // A name of its own: the first input (r-<lo>.run) stays readable until it is retired.
    const name = `r-${lo}-${hi}-${process.pid.toString(36)}${Date.now().toString(36)}.run`;
    const iters = readers.map((r) => r.entries());
    const heads = iters.map((it) => it.next());
    const size = writeRun(path.join(dir, name), lo, hi, (w) => {
      for (;;) {
        let min: string | undefined;
        for (const h of heads) if (!h.done && (min === undefined || h.value.term < min)) min = h.value.term;
        if (min === undefined) break;
        const merged: Postings = { ids: [], values: [] };
        // Runs are in id order and their ranges do not overlap: appending keeps ids ascending.
        for (let k = 0; k < heads.length; k++) {
          const h = heads[k];
          if (h.done || h.value.term !== min) continue;
          const p = decodePostings(h.value.raw());
          for (let j = 0; j < p.ids.length; j++) {
            if (!live(p.ids[j])) continue;
            merged.ids.push(p.ids[j]);
            merged.values.push(p.values[j]);
          }
          heads[k] = iters[k].next();
        }
        if (merged.ids.length > 0) w.add(min, encodePostings(merged.ids, merged.values), merged.ids.length);
      }
    });
    return { name, lo, hi, bytes: size };
  } finally {
    for (const r of readers) r.close();
  }
}
