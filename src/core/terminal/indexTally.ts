/**
 * The tally an index record carries (`"tally": [at, count, failedAt]`, last key of the line), so
 * that a reader of an index's end alone knows what only a fold of the whole index knew: how many
 * commands it holds and which line holds its latest failure. A first build of the terminal catalog
 * (no `.agent/.cache/`) then reads a few KB of each index instead of all of it (bench row 20).
 *
 * - `at`: the byte offset where the line starts in `N.index.jsonl`;
 * - `count`: the commands counted up to this line, as the catalog's fold counts them (countAfter);
 * - `failedAt`: the byte offset of the latest line up to this one (itself included) that is a
 *   failure (isFailure), or -1 when there is none.
 *
 * Writers that know every byte of the index (the capture writer, which created it; the fold of
 * agent sessions, which continues from the tally of the last line when that line is where it says)
 * write it; a reader trusts it only when the last line's `at` is where the line is and the line at
 * `failedAt` is a failure whose own `at` is `failedAt` (catalogColdRead.ts): an index another writer
 * changed (a line added, removed or cut) fails that check and is folded whole, as one without tallies.
 */
import * as fs from 'node:fs';
import { closingRecordOf, type ClosingRecord, type IndexRecord } from './terminalFormat';

export interface Tally {
  /** Bytes of the index before the next line. */
  at: number;
  count: number;
  /** The highest command number so far (what countAfter needs). */
  maxCommand: number;
  failedAt: number;
}

export const EMPTY_TALLY: Tally = { at: 0, count: 0, maxCommand: 0, failedAt: -1 };

/** Whether a record is a failure: a finished command with a known, non-zero exit code (the catalog's lastFailed). */
export function isFailure(status: unknown, exitCode: unknown): boolean {
  return status === 'done' && exitCode !== null && exitCode !== undefined && exitCode !== 0;
}

/** The command count after a record of `command`: a command above every earlier one counts (the first record always does). */
export function countAfter(count: number, maxCommand: number, command: number): number {
  return command > maxCommand || count === 0 ? count + 1 : count;
}

/** Record r's index line (with its tally) appended after `t`, and the tally after it. */
export function talliedLine(t: Tally, r: IndexRecord): { line: string; next: Tally } {
  const count = countAfter(t.count, t.maxCommand, r.command);
  const failedAt = isFailure(r.status, r.exitCode) ? t.at : t.failedAt;
  const line = `${JSON.stringify({ ...r, tally: [t.at, count, failedAt] })}\n`;
  return { line, next: { at: t.at + Buffer.byteLength(line), count, maxCommand: Math.max(t.maxCommand, r.command), failedAt } };
}

/** The closing record's line (terminalFormat.ts ClosingRecord) appended after `t` (no tally without one), and the tally after it: it adds no command and no failure. */
export function talliedClosing(t: Tally | undefined, c: ClosingRecord): { line: string; next: Tally | undefined } {
  if (!t) return { line: `${JSON.stringify(c)}\n`, next: undefined };
  const line = `${JSON.stringify({ ...c, tally: [t.at, t.count, t.failedAt] })}\n`;
  return { line, next: { ...t, at: t.at + Buffer.byteLength(line) } };
}

/** The lines of `records` appended after `t` (one text), and the tally after them. */
export function talliedLines(t: Tally, records: readonly IndexRecord[]): { text: string; next: Tally };
/** Without a tally to continue from (undefined: the index's end is not as its writer left it), the lines carry none. */
export function talliedLines(t: Tally | undefined, records: readonly IndexRecord[]): { text: string; next: Tally | undefined };
export function talliedLines(t: Tally | undefined, records: readonly IndexRecord[]): { text: string; next: Tally | undefined } {
  if (!t) return { text: records.map((r) => `${JSON.stringify(r)}\n`).join(''), next: undefined };
  let text = '';
  for (const r of records) {
    const x = talliedLine(t, r);
    text += x.line;
    t = x.next;
  }
  return { text, next: t };
}

const KEY = ',"tally":[';

/**
 * The tally a line claims ([at, count, failedAt]), or undefined when it has none or not in the
 * writer's form. The key is found as a key: inside a JSON string every quote is escaped.
 */
export function claimedTally(line: string): [number, number, number] | undefined {
  const i = line.lastIndexOf(KEY);
  if (i < 0) return undefined;
  const m = /^(\d{1,15}),(\d{1,15}),(-1|\d{1,15})\]\}\r?$/.exec(line.slice(i + KEY.length));
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** The end of an index read to find its last line's tally (a record is about 300 bytes). */
const END_BYTES = 64 * 1024;

/** An index's last END_BYTES (`buf`, the bytes from `base` to `size`), read once for its last line. */
export interface IndexEnd {
  size: number;
  base: number;
  buf: Buffer;
}

/** The end of an index; 'missing' when there is no file; undefined when it cannot be read whole. */
export async function readIndexEnd(file: string): Promise<IndexEnd | 'missing' | undefined> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : undefined;
  }
  try {
    const { size } = await fh.stat();
    const len = Math.min(size, END_BYTES);
    const buf = Buffer.allocUnsafe(len);
    const { bytesRead } = len > 0 ? await fh.read(buf, 0, len, size - len) : { bytesRead: 0 };
    return bytesRead === len ? { size, base: size - len, buf } : undefined;
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * The tally to continue an index with (its `end`, whose highest command is `maxCommand`): the empty one
 * when the index is missing or empty, the one after its last line when that line's tally says where
 * it is, else undefined (another writer changed it, or it was written before tallies: append lines
 * without one, and readers fold it whole).
 */
export function tallyAfterEnd(end: IndexEnd | 'missing' | undefined, maxCommand: number): Tally | undefined {
  if (end === 'missing' || end?.size === 0) return { ...EMPTY_TALLY };
  if (!end) return undefined;
  const { size, base, buf } = end;
  const len = buf.length;
  if (buf[len - 1] !== 10) return undefined;
  const start = buf.lastIndexOf(10, len - 2) + 1;
  if (start === 0 && len < size) return undefined;
  const t = claimedTally(buf.toString('utf8', start, len - 1));
  if (!t || t[0] !== base + start) return undefined;
  return { at: size, count: t[1], maxCommand, failedAt: t[2] };
}

/** tallyAfterEnd of the index `file`. */
export async function endTally(file: string, maxCommand: number): Promise<Tally | undefined> {
  return tallyAfterEnd(await readIndexEnd(file), maxCommand);
}

/**
 * The closing record (terminalFormat.ts ClosingRecord) an index's last line is; undefined when it ends
 * otherwise, is missing or could not be read (then N.txt alone says, as for an index written before
 * closing records).
 */
export function closingAtEnd(end: IndexEnd | 'missing' | undefined): ClosingRecord | undefined {
  if (!end || end === 'missing') return undefined;
  const text = end.buf.toString('utf8').trimEnd();
  try {
    return closingRecordOf(JSON.parse(text.slice(text.lastIndexOf('\n') + 1)));
  } catch {
    return undefined;
  }
}
