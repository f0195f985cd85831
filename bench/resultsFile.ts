// Reads back bench/results.md so a partial run (BENCH_ONLY=… BENCH_MERGE=1) can replace some rows
// of the last full run's table and keep the others, saying which rows were re-measured when.
import type { Row } from './harness';

/** The parts of a results.md that a merge keeps or replaces. */
export interface ResultsFile {
  /** The `- Date: …` style lines above the table. */
  header: string[];
  rows: Row[];
  /** The per-output section of rows 4–5, if any (from its heading to the end). */
  details?: string;
}

function cells(line: string): string[] {
  // Split on pipes not escaped as \|, then drop the empty first and last pieces.
  const parts = line.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
  return parts.slice(1, -1);
}

/** Parses a results.md written by main.ts. */
export function parseResults(md: string): ResultsFile {
  const lines = md.split('\n');
  const header = lines.filter((l) => /^- (Date|Commit|Machine|Node|Whole run|Re-measured)/.test(l));
  const rows: Row[] = [];
  const notes = new Map<string, string>();
  for (const l of lines) {
    const n = /^- \*\*([0-9a-z]+)\*\*: (.*)$/.exec(l);
    if (n) notes.set(n[1], n[2]);
  }
  for (const l of lines) {
    if (!/^\| [0-9][0-9a-z]* \|/.test(l)) continue;
    // Tables before the load column had 7 cells.
    const c = cells(l);
    const [id, what, ours, reference, ratio, goal] = c;
    const verdict = c[c.length - 1];
    const row: Row = { id, what, ours, reference, ratio, goal, note: notes.get(id) };
    if (c.length >= 8 && c[6] !== '—') row.load = c[6];
    if (verdict === 'met') row.met = true;
    else if (verdict === '**missed**') row.met = false;
    else if (verdict !== '—') row.state = verdict;
    rows.push(row);
  }
  const d = md.indexOf('## Rows 4 and 5 per recorded output');
  return { header, rows, details: d === -1 ? undefined : md.slice(d).trim() };
}

/** The row number a row id belongs to ('3b' → '3'). */
export const rowNumber = (id: string): string => /^\d+/.exec(id)?.[0] ?? id;

/** An id's segments: '17b1' → ['17', 'b', '1'], '17b' → ['17', 'b']. */
const segments = (id: string): string[] => id.match(/\d+|[^\d]+/g) ?? [id];

/** Natural order of ids: '17b3' < '17b10' < '17c1'. */
function compareIds(a: string, b: string): number {
  const x = segments(a);
  const y = segments(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    const numeric = /^\d/.test(x[i]) && /^\d/.test(y[i]);
    return numeric ? Number(x[i]) - Number(y[i]) : x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Whether a fresh row replaces an old one in a partial re-run: the same id, or one names a group
 * the other belongs to (a failed dimension's row '17b' stands for '17b1', '17b2'…, and '17b1' for a
 * failed '17b' of an earlier run). '17b1' does not cover '17b10'.
 */
export function covers(a: string, b: string): boolean {
  const x = segments(a);
  const y = segments(b);
  const k = Math.min(x.length, y.length);
  for (let i = 0; i < k; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Merges a partial run into the old table, keeping the table's order. A row number present in
 * `fresh` replaces all of that number's old rows, unless it is in `partial` (the run measured only
 * some of its ids, e.g. row 17 with BENCH_DIMS): then only the old rows those ids cover are replaced
 * and the others are kept as they were.
 */
export function mergeRows(old: Row[], fresh: Row[], partial: ReadonlySet<string> = new Set()): Row[] {
  const redone = new Set(fresh.map((r) => rowNumber(r.id)));
  const replaced = (r: Row): boolean => {
    const n = rowNumber(r.id);
    if (!redone.has(n)) return false;
    if (!partial.has(n)) return true;
    return fresh.some((f) => rowNumber(f.id) === n && covers(f.id, r.id));
  };
  const out: Row[] = [];
  const placed = new Set<Row>();
  for (const r of old) {
    if (!replaced(r)) {
      out.push(r);
      continue;
    }
    // The fresh rows go where the first old row they replace was.
    for (const f of fresh) {
      if (placed.has(f) || rowNumber(f.id) !== rowNumber(r.id)) continue;
      if (partial.has(rowNumber(r.id)) && !covers(f.id, r.id)) continue;
      out.push(f);
      placed.add(f);
    }
  }
  // A new id goes before the first row of its number that sorts after it ('17b3' before '17c1'),
  // else after the last row of its number (the final sort keeps the order within a number).
  for (const f of fresh.filter((x) => !placed.has(x))) {
    const n = rowNumber(f.id);
    const next = out.findIndex((r) => rowNumber(r.id) === n && compareIds(r.id, f.id) > 0);
    const last = out.map((r) => rowNumber(r.id)).lastIndexOf(n);
    if (next !== -1) out.splice(next, 0, f);
    else if (last !== -1) out.splice(last + 1, 0, f);
    else out.push(f);
  }
  return out.sort((a, b) => Number(rowNumber(a.id)) - Number(rowNumber(b.id)));
}

/**
 * The header line of a merged partial run: which rows (or, for a row in `partial`, which ids) were
 * re-measured, so the commit and date beside it are not read as those of the rows kept.
 */
export function remeasuredLine(fresh: Row[], partial: ReadonlySet<string>, when: string, commit: string, why?: string): string {
  const numbers = [...new Set(fresh.map((r) => rowNumber(r.id)))];
  const parts = numbers.map((n) => (partial.has(n) ? `${n} (only ${fresh.filter((r) => rowNumber(r.id) === n).map((r) => r.id).join(', ')}; its other rows are kept from the lines above)` : n));
  return `- Re-measured rows ${parts.join(', ')}: ${when}; ${commit}${why ? `; ${why}` : ''}`;
}

/**
 * The header lines of bench/README.md's table block after a merged partial run: the block's own lines
 * as they stand (people annotate its "Re-measured rows" lines there: what the build was, the load,
 * why a row missed), then this run's line. Taking results.md's un-annotated lines instead stripped
 * every earlier note at each merge. `block` is the README's text between the table markers.
 */
export function readmeHeaderAfterMerge(block: string, line: string): string[] {
  return [...parseResults(block).header, line];
}

/**
 * Rows the bench does not measure itself: the test runs do (13: the copilot editor run; 15: the
 * real-client runs, their `measured` lines), and they are written into results.md by hand. A full
 * run keeps them from the previous file instead of dropping them.
 */
export const ROWS_FROM_TEST_RUNS = ['13', '15'];

/** A full run's rows plus the rows of the test runs kept from the previous file (`old`). */
export function withTestRunRows(old: Row[], fresh: Row[]): Row[] {
  return mergeRows(old.filter((r) => ROWS_FROM_TEST_RUNS.includes(rowNumber(r.id))), fresh);
}
