/*
 * Keeping the number of runs small: every batch of changes adds a run, and a query reads each
 * run's dictionary for each term, so runs are merged in tiers (MERGE_FAN runs of one tier make one
 * of the next, by size: each byte is rewritten about log4(index / 256 KB) times), dropping the
 * postings of chunks no longer live (files rewritten, deleted, or re-indexed from their last chunk).
 * A merge reads immutable runs and writes a new one outside the manifest's lock; only the swap in
 * the manifest is done under it, and only if those runs are still there.
 *
 * A merge is one step of the search worker's upkeep, and a query waits behind it, so no merge
 * reads more than MAX_MERGE_BYTES of runs (Lucene's TieredMergePolicy caps merged segments the same
 * way): runs stop growing there, and an index of ~120 MB (1 GB of output) keeps about twenty of them.
 */
import * as path from 'node:path';
import type { RunEntry } from './manifest';
import { ByteReader, ByteWriter, readPosting, RunReader, writePosting, writeRun, type PostingRead } from './runFile';

export const MERGE_FAN = 4;
const TIER_BASE = 256 * 1024;
/** Runs above this many are merged whatever their tiers (within MAX_MERGE_BYTES). */
const MAX_RUNS = 12;
/** The most bytes of runs one merge reads (merging reads ~2.3 MB/s of ACSRUN2 runs at load 8.6 on 2 cores: ~7 s). */
export const MAX_MERGE_BYTES = 16 * 1024 * 1024;

const bytesOf = (group: readonly RunEntry[]): number => group.reduce((s, r) => s + r.bytes, 0);

function tier(bytes: number): number {
  return Math.max(0, Math.floor(Math.log(Math.max(1, bytes / TIER_BASE)) / Math.log(MERGE_FAN)));
}

/**
 * The runs to merge next (adjacent, in chunk-id order), or undefined when none need it: MERGE_FAN
 * adjacent runs of one tier (a large old run is not rewritten for every few small new ones), else,
 * past MAX_RUNS, the smallest adjacent MERGE_FAN; a single run more than half dead is rewritten
 * alone. Never a group of more than MAX_MERGE_BYTES.
 */
export function pickMerge(runs: readonly RunEntry[], liveIn: (r: RunEntry) => number): RunEntry[] | undefined {
  const sorted = [...runs].sort((a, b) => a.lo - b.lo);
  for (let i = 0; i + MERGE_FAN <= sorted.length; i++) {
    const group = sorted.slice(i, i + MERGE_FAN);
    const t = tier(group[0].bytes);
    if (group.every((r) => tier(r.bytes) === t) && bytesOf(group) <= MAX_MERGE_BYTES) return group;
  }
  if (sorted.length > MAX_RUNS) {
    let best = -1;
    let bestBytes = MAX_MERGE_BYTES + 1;
    for (let i = 0; i + MERGE_FAN <= sorted.length; i++) {
      const b = bytesOf(sorted.slice(i, i + MERGE_FAN));
      if (b < bestBytes) {
        bestBytes = b;
        best = i;
      }
    }
    if (best >= 0) return sorted.slice(best, best + MERGE_FAN);
  }
  for (const r of sorted) {
    const ids = r.hi - r.lo + 1;
    if (r.bytes > TIER_BASE && r.bytes <= MAX_MERGE_BYTES && liveIn(r) < ids / 2) return [r];
  }
  return undefined;
}

/**
 * Appends one run's postings of a term to `out`, ids re-based on `last` (the last id written; runs
 * are in id order and their ranges do not overlap, so appending keeps ids ascending). A run none of
 * whose chunks died is copied as it is, only its first id re-encoded; else each posting is checked.
 * Returns the last id written and the postings kept.
 */
function appendPostings(out: ByteWriter, raw: Buffer, last: number, whole: boolean, live: (id: number) => boolean): { last: number; n: number } {
  const r = new ByteReader(raw);
  const p: PostingRead = { delta: 0, value: 0 };
  let id = 0;
  let n = 0;
  if (whole) {
    id = readPosting(r, p).delta;
    writePosting(out, id - last, p.value);
    const rest = r.pos;
    n = 1;
    while (!r.done) {
      id += readPosting(r, p).delta;
      n++;
    }
    out.bytes(raw.subarray(rest));
    return { last: id, n };
  }
  while (!r.done) {
    id += readPosting(r, p).delta;
    if (!live(id)) continue;
    writePosting(out, id - last, p.value);
    last = id;
    n++;
  }
  return { last, n };
}

/** Merges `runs` (adjacent, sorted by lo) into one run named after its first chunk id, keeping only live chunks. */
export function mergeRuns(dir: string, runs: readonly RunEntry[], live: (id: number) => boolean): RunEntry {
  const readers = runs.map((r) => RunReader.open(path.join(dir, r.name)));
  try {
    const lo = runs[0].lo;
    const hi = runs[runs.length - 1].hi;
    // A name of its own: the first input (r-<lo>.run) stays readable until it is retired.
    const name = `r-${lo}-${hi}-${process.pid.toString(36)}${Date.now().toString(36)}.run`;
    const whole = runs.map((r) => {
      for (let id = r.lo; id <= r.hi; id++) if (!live(id)) return false;
      return true;
    });
    const iters = readers.map((r) => r.entries());
    const heads = iters.map((it) => it.next());
    const out = new ByteWriter(1 << 12);
    const size = writeRun(path.join(dir, name), lo, hi, (w) => {
      for (;;) {
        let min: string | undefined;
        for (const h of heads) if (!h.done && (min === undefined || h.value.term < min)) min = h.value.term;
        if (min === undefined) break;
        out.len = 0;
        let last = 0;
        let df = 0;
        for (let k = 0; k < heads.length; k++) {
          const h = heads[k];
          if (h.done || h.value.term !== min) continue;
          const a = appendPostings(out, h.value.raw(), last, whole[k], live);
          last = a.last;
          df += a.n;
          heads[k] = iters[k].next();
        }
        if (df > 0) w.add(min, out.take(), df);
      }
    });
    return { name, lo, hi, bytes: size };
  } finally {
    for (const r of readers) r.close();
  }
}
