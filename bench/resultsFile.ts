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

/** Replaces the old rows of every row number present in `fresh`, keeping the table's order. */
export function mergeRows(old: Row[], fresh: Row[]): Row[] {
  const redone = new Set(fresh.map((r) => rowNumber(r.id)));
  const out: Row[] = [];
  let inserted = new Set<string>();
  for (const r of old) {
    const n = rowNumber(r.id);
    if (!redone.has(n)) out.push(r);
    else if (!inserted.has(n)) {
      out.push(...fresh.filter((f) => rowNumber(f.id) === n));
      inserted = new Set([...inserted, n]);
    }
  }
  for (const f of fresh) if (!inserted.has(rowNumber(f.id))) out.push(f);
  return out.sort((a, b) => Number(rowNumber(a.id)) - Number(rowNumber(b.id)));
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
