/**
 * The terminal catalog's file, `.agent/.cache/terminal-catalog.json`: what one process learnt of
 * every terminal, for the next process. Every new process parses it once, so it is compact (one
 * array per terminal instead of objects with repeated keys: a third of the size, and of the parse
 * time, at 10,000 terminals), and it is JSON Lines: a header line (the listing, and how many rows
 * follow), then one line per terminal, so a process parses a slice of rows at a time and no parse
 * tree of every row lives across the slices. Nothing in it is believed as read: a file that is not
 * whole (fewer or more lines than its header says) is not used, an entry whose shape is not the one
 * this code writes is dropped (that terminal is read again), and a process checks every kept entry
 * against its files' stat before it answers (terminalCatalog.ts).
 */
import type { FileKey } from '../../fs/stamps';
import type { FoldCheckpoint } from '../../fs/appendFold';
import { cacheFile } from '../../workspace/cacheFiles';
import { tuning } from '../../processState';
import { yieldNow } from '../../eventLoop';
import { previousFileOf, TERMINALS_DIR, type TerminalInfo } from '../terminalFormat';
import { BRIEF_SPEC, type BriefCommand, type ClosingFacts, type CompactState, type TerminalBrief } from './indexBrief';

/** `<agentDir>/.cache/terminal-catalog.json`. */
export function catalogPath(agentDir: string): string {
  return cacheFile(agentDir, 'terminalCatalog');
}


/** One terminal as the catalog keeps it in memory. */
export interface Entry {
  n: number;
  /** N.txt's key (fs/stamps.ts) when `info` was read; null: not read yet (`info` is a stand-in, the terminal is checked every call until it is read). */
  txt: FileKey | null;
  /** Its header facts (previousFile as the folder was last listed). */
  info: TerminalInfo;
  /** Where the compact fold of N.index.jsonl stands; null when there is no index file. */
  idx: FoldCheckpoint<CompactState> | null;
  /**
   * The byte offset of the index where that fold started: 0, the whole index; more, only its end
   * (the lines that settle `last` and `lastDone`: indexBrief.ts settledStart), until it is folded whole.
   */
  from: number;
  /** What answers show of it, made when first needed (in memory only). */
  view?: { n: number; info: TerminalInfo; brief: TerminalBrief };
}

/** What an entry whose N.txt was not read yet shows (open, so it is checked every call until read). */
export function standInInfo(n: number, previous: ReadonlySet<number>): TerminalInfo {
  return { n, name: `terminal ${n}`, shell: null, cwd: null, started: null, shellIntegration: false, file: `${TERMINALS_DIR}/${n}.txt`, previousFile: previousFileOf(n, previous), closed: false, sizeBytes: 0 };
}

/** The terminals folder's stat when it was listed: a folder whose entries change gets another mtime or ctime. */
export type DirSig = [dev: number, ino: number, mtimeMs: number, ctimeMs: number];

/** What the file holds. */
export interface CatalogSnapshot {
  /** The folder's stat when `numbers` were listed; null when that listing is not to be trusted by the stat alone. */
  dir: DirSig | null;
  /** False when the file held no whole listing (then `numbers`, `previous`, `indexed` are empty). */
  listed: boolean;
  /** Every N with an `N.txt`, ascending, and those of them with an `N.1.txt` and an `N.index.jsonl`. */
  numbers: number[];
  previous: number[];
  indexed: number[];
  entries: Entry[];
}

const FORMAT = 'agent-context/terminal-catalog';
// 5: an entry's row keeps N.txt's ctime (an mtime set back no longer hides a rewrite of the header).
// 6: an index row keeps what its closing record says (terminalFormat.ts ClosingRecord).
// 7: JSON Lines, a header and a line per row. One JSON.parse of the whole file was one step of ~50 ms
//    in the extension host at start-up with 10,000 terminals (bench row 21x), and its tree of every
//    row (V8 puts the tree of a text over 100 KB straight in the old generation) lived until the
//    last slice of entries was made. A row is now parsed in its slice, and its tree dies young.
const VERSION = 7;

type BriefRow = [command: number, done: 0 | 1, exitCode: number | null, exitUnknown: string | null, endMs: number];
/** `closing`: the index ends with a closing record: 0 an integrated terminal's, [agent, session] an agent session's; null when it does not. */
type IdxRow = [ino: number, offset: number, lines: number, size: number, mtimeMs: number, tail: string, count: number, maxCommand: number, last: BriefRow | null, prevDone: BriefRow | null, lastFailed: BriefRow | null, from: number, closing: 0 | [string, string] | null];
/** `agent`: an agent session's capture, [agent id, session id]; null for an integrated terminal. */
type EntryRow = [n: number, ino: number, size: number, mtimeMs: number, ctimeMs: number, name: string, shell: string | null, cwd: string | null, started: string | null, flags: number, idx: IdxRow | null, agent: [string, string] | null];

/** What the file's and a hand-over's bodies say before their rows. */
interface BodyHead {
  format: string;
  v: number;
  spec: number;
  /** The device of every file described (an entry on another device is not written). */
  dev: number;
  dir: DirSig | null;
  numbers: number[];
  previous: number[];
  indexed: number[];
}

/** The file's first line: `rows` lines follow it, one EntryRow each. */
interface FileHeader extends BodyHead {
  rows: number;
}

/** A hand-over's body (one JSON text). */
interface FileBody extends BodyHead {
  terminals: EntryRow[];
}

const SHELL_INTEGRATION = 1;
const CLOSED = 2;

const briefRow = (b: BriefCommand | null): BriefRow | null => (b ? [b.command, b.status === 'done' ? 1 : 0, b.exitCode, b.exitUnknown, b.endMs] : null);
const closingRow = (c: ClosingFacts | null | undefined): IdxRow[12] => (!c ? null : c.agent === null ? 0 : [c.agent, c.session ?? 'unknown']);

function closingFromRow(r: unknown): ClosingFacts | null | undefined {
  if (r === null) return null;
  if (r === 0) return { agent: null, session: null };
  return Array.isArray(r) && r.length === 2 && typeof r[0] === 'string' && typeof r[1] === 'string' ? { agent: r[0], session: r[1] } : undefined;
}

/**
 * The file's text for a snapshot (entries on another device than the folder's are left out: read
 * again next time), made in slices of catalogRowsPerSlice entries (processState.ts) between turns of
 * the event loop, each row stringified in its slice: the extension host saves a catalog of 12,000
 * terminals (bench row 21) without one long block (one JSON.stringify of every row took ~60 ms).
 */
export async function encodeCatalogSliced(s: Omit<CatalogSnapshot, 'listed'>, dev: number): Promise<string> {
  const lines: string[] = [];
  let i = 0;
  for (const e of s.entries) {
    if (++i % tuning.catalogRowsPerSlice === 0) await yieldNow();
    const r = rowOf(e, dev);
    if (r) lines.push(JSON.stringify(r));
  }
  const header: FileHeader = { ...headOf(s, dev, FORMAT), rows: lines.length };
  lines.unshift(JSON.stringify(header));
  return `${lines.join('\n')}\n`;
}

function bodyOf(s: Omit<CatalogSnapshot, 'listed'>, dev: number, format: string): FileBody {
  const rows: EntryRow[] = [];
  for (const e of s.entries) {
    const r = rowOf(e, dev);
    if (r) rows.push(r);
  }
  return { ...headOf(s, dev, format), terminals: rows };
}

function headOf(s: Omit<CatalogSnapshot, 'listed'>, dev: number, format: string): BodyHead {
  return { format, v: VERSION, spec: BRIEF_SPEC.version, dev, dir: s.dir, numbers: s.numbers, previous: s.previous, indexed: s.indexed };
}

/** An entry's row; undefined for one left out (its N.txt not read yet, so the next process reads that terminal; or on another device). */
function rowOf(e: Entry, dev: number): EntryRow | undefined {
  if (!e.txt || e.txt[0] !== dev || (e.idx && e.idx.dev !== dev)) return undefined;
  const i = e.info;
  const x = e.idx;
  return [e.n, e.txt[1], e.txt[2], e.txt[3], e.txt[4], i.name, i.shell, i.cwd, i.started, (i.shellIntegration ? SHELL_INTEGRATION : 0) | (i.closed ? CLOSED : 0),
    // A closed terminal's index is final: its fingerprint (for folding on after an append) is left out, a third of the file.
    x ? [x.ino, x.offset, x.lines, x.size, x.mtimeMs, i.closed ? '' : x.tail, x.state.count, x.state.maxCommand, briefRow(x.state.last), briefRow(x.state.prevDone), briefRow(x.state.lastFailed), e.from, closingRow(x.state.closing)] : null,
    i.agent ? [i.agent, i.session ?? 'unknown'] : null];
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const strOrNull = (x: unknown): x is string | null => x === null || typeof x === 'string';
/** A list of terminal numbers (whole, not negative). */
export const isNumList = (x: unknown): x is number[] => Array.isArray(x) && x.every((n) => Number.isInteger(n) && n >= 0);

function briefFromRow(r: unknown): BriefCommand | null | undefined {
  if (r === null) return null;
  if (!Array.isArray(r) || r.length !== 5) return undefined;
  const command: unknown = r[0], done: unknown = r[1], exitCode: unknown = r[2], exitUnknown: unknown = r[3], endMs: unknown = r[4]; // indexed, as in idxFromRow
  if (!isNum(command) || (done !== 0 && done !== 1) || !(exitCode === null || isNum(exitCode)) || !strOrNull(exitUnknown) || !isNum(endMs)) return undefined;
  return { command, status: done ? 'done' : 'running', exitCode, exitUnknown, endMs };
}

function idxFromRow(r: unknown, dev: number): { idx: FoldCheckpoint<CompactState> | null; from: number } | undefined {
  if (r === null) return { idx: null, from: 0 };
  if (!Array.isArray(r) || r.length !== 13) return undefined;
  // Indexed reads, not destructuring: this runs once per row of a file of 12,000 terminals at every
  // start, mostly unoptimised, where a destructuring's iterator cost several times more (bench row 21a).
  const ino: unknown = r[0], offset: unknown = r[1], lines: unknown = r[2], size: unknown = r[3], mtimeMs: unknown = r[4], tail: unknown = r[5], count: unknown = r[6], maxCommand: unknown = r[7], from: unknown = r[11];
  if (!isNum(ino) || !isNum(offset) || !isNum(lines) || !isNum(size) || !isNum(mtimeMs) || typeof tail !== 'string' || !isNum(count) || !isNum(maxCommand) || !isNum(from)) return undefined;
  if (offset > size || from < 0 || from > offset) return undefined; // tail '': none kept (a closed terminal), folded from the start if the file changed
  const last = briefFromRow(r[8]);
  const prevDone = briefFromRow(r[9]);
  const lastFailed = briefFromRow(r[10]);
  const closing = closingFromRow(r[12]);
  if (last === undefined || prevDone === undefined || lastFailed === undefined || closing === undefined) return undefined;
  return { idx: { v: 1, spec: BRIEF_SPEC.version, dev, ino, offset, lines, size, mtimeMs, tail, state: { count, maxCommand, last, prevDone, lastFailed, closing } }, from };
}

function entryFromRow(r: unknown, dev: number, previous: ReadonlySet<number>): Entry | undefined {
  if (!Array.isArray(r) || r.length !== 12) return undefined;
  // Indexed reads, as in idxFromRow.
  const n: unknown = r[0], ino: unknown = r[1], size: unknown = r[2], mtimeMs: unknown = r[3], ctimeMs: unknown = r[4], name: unknown = r[5], shell: unknown = r[6], cwd: unknown = r[7], started: unknown = r[8], flags: unknown = r[9], agent: unknown = r[11];
  if (agent !== null && !(Array.isArray(agent) && agent.length === 2 && typeof agent[0] === 'string' && typeof agent[1] === 'string')) return undefined;
  if (!Number.isInteger(n) || (n as number) < 0 || !isNum(ino) || !isNum(size) || !isNum(mtimeMs) || !isNum(ctimeMs) || typeof name !== 'string' || !strOrNull(shell) || !strOrNull(cwd) || !strOrNull(started) || !Number.isInteger(flags)) return undefined;
  const x = idxFromRow(r[10], dev);
  if (x === undefined) return undefined;
  const k = n as number;
  const f = flags as number;
  const info: TerminalInfo = {
    n: k, name, shell, cwd, started, shellIntegration: (f & SHELL_INTEGRATION) !== 0, file: `${TERMINALS_DIR}/${k}.txt`,
    previousFile: previousFileOf(k, previous), closed: (f & CLOSED) !== 0, sizeBytes: size,
  };
  if (agent) {
    info.agent = agent[0] as string;
    info.session = agent[1] as string;
  }
  return { n: k, txt: [dev, ino, size, mtimeMs, ctimeMs], idx: x.idx, from: x.from, info };
}

/**
 * The snapshot in a file's text; undefined when it is not a catalog this code wrote (garbage, cut
 * short or longer than its header says, another format or version, a line that is not JSON).
 * Malformed entries are left out. Its rows are parsed and made entries in slices of
 * catalogRowsPerSlice (processState.ts) between turns of the event loop (the extension host's load
 * of 12,000 terminals).
 */
export async function decodeCatalogSliced(text: string): Promise<CatalogSnapshot | undefined> {
  const headEnd = text.indexOf('\n');
  if (headEnd < 0) return undefined;
  let h: FileHeader;
  try {
    h = JSON.parse(text.slice(0, headEnd)) as FileHeader;
  } catch {
    return undefined;
  }
  if (!isHead(h, FORMAT) || !Number.isInteger(h.rows) || h.rows < 0) return undefined;
  const entries: Entry[] = [];
  const previous = new Set(listedOf(h) ? h.previous : []);
  let at = headEnd + 1;
  for (let i = 0; i < h.rows; i++) {
    if (i > 0 && i % tuning.catalogRowsPerSlice === 0) await yieldNow();
    const end = text.indexOf('\n', at);
    if (end < 0) return undefined; // cut short
    let row: unknown;
    try {
      row = JSON.parse(text.slice(at, end));
    } catch {
      return undefined; // a torn or foreign line: not a file this code wrote
    }
    at = end + 1;
    const e = entryFromRow(row, h.dev, previous);
    if (e) entries.push(e);
  }
  if (at !== text.length) return undefined; // more lines than the header says
  return snapshotWith(h, entries);
}

/** Whether a checked body's listing is whole (numbers ascending, the lists all numbers). */
function listedOf(o: BodyHead): boolean {
  return isNumList(o.numbers) && o.numbers.every((n, i) => i === 0 || n > o.numbers[i - 1]) && isNumList(o.previous) && isNumList(o.indexed);
}

/** Whether a parsed header or body is of `format`, as this code writes it. */
function isHead(o: BodyHead, format: string): boolean {
  return typeof o === 'object' && o !== null && o.format === format && o.v === VERSION && o.spec === BRIEF_SPEC.version && isNum(o.dev);
}

/** The snapshot a parsed body holds, if it is one of `format` this code wrote. */
function snapshotOf(o: FileBody, format: string): CatalogSnapshot | undefined {
  if (!isHead(o, format) || !Array.isArray(o.terminals)) return undefined;
  const entries: Entry[] = [];
  const previous = new Set(listedOf(o) ? o.previous : []);
  for (const r of o.terminals) {
    const e = entryFromRow(r, o.dev, previous);
    if (e) entries.push(e);
  }
  return snapshotWith(o, entries);
}

/** The snapshot of a checked body and its entries; a listing that is not whole is not used (the folder is listed again). */
function snapshotWith(o: BodyHead, entries: Entry[]): CatalogSnapshot {
  const listed = listedOf(o);
  const dirOk = o.dir === null || (Array.isArray(o.dir) && o.dir.length === 4 && o.dir.every(isNum));
  return listed && dirOk ? { dir: o.dir, listed: true, numbers: o.numbers, previous: o.previous, indexed: o.indexed, entries } : { dir: null, listed: false, numbers: [], previous: [], indexed: [], entries };
}

// ── The hand-over of a first build from a worker (catalogWorker.ts) ──
// The listing and any entry whose N.txt was read as the file's rows, and the entries whose N.txt
// was not read (a worker's build at 10,000 terminals reads none) as a table of numbers, one row of
// UNREAD_STRIDE per entry, with their strings (fingerprints, exit reasons) beside it: the taking
// thread makes the entry objects from it in a tight loop. A structured clone of 10,000 entry
// objects cost the worker ~30 ms to make and the taker ~35 ms to take (in the first call's path);
// the same as JSON text, ~24 and ~25 ms.

const HANDOVER_FORMAT = 'agent-context/terminal-catalog-handover';

/** What a worker posts: `body` is JSON text (the file's shape, format HANDOVER_FORMAT); `unread`, UNREAD_STRIDE numbers per unread entry; `strings`, their strings in order. */
export interface Handover {
  body: string;
  unread: Float64Array;
  strings: (string | null)[];
}

// An unread entry's row: n, has an index (0/1), the index checkpoint's numbers, `from`, then
// last, prevDone, lastFailed as [present, command, done, exitCode (NaN: null)]; endMs after each;
// then the closing record's facts (CLOSING: 0 none, 1 an integrated terminal's, 2 an agent
// session's, its agent and session among the strings).
const BRIEF_WIDTH = 5;
const CLOSING = 10 + 3 * BRIEF_WIDTH;
const UNREAD_STRIDE = CLOSING + 1;

function putBrief(t: Float64Array, at: number, b: BriefCommand | null, strings: (string | null)[]): void {
  if (!b) return; // present stays 0
  t[at] = 1;
  t[at + 1] = b.command;
  t[at + 2] = b.status === 'done' ? 1 : 0;
  t[at + 3] = b.exitCode ?? NaN;
  t[at + 4] = b.endMs;
  strings.push(b.exitUnknown);
}

function takeBrief(t: Float64Array, at: number, strings: (string | null)[], k: { i: number }): BriefCommand | null | undefined {
  if (t[at] === 0) return null;
  const u = strings[k.i++];
  if (u === undefined || !Number.isFinite(t[at + 1]) || !Number.isFinite(t[at + 4])) return undefined;
  return { command: t[at + 1], status: t[at + 2] === 1 ? 'done' : 'running', exitCode: Number.isNaN(t[at + 3]) ? null : t[at + 3], exitUnknown: u, endMs: t[at + 4] };
}

/** A first build's snapshot for the thread that takes it (entries on another device than `dev` are left out: that thread reads them). */
export function encodeHandover(s: CatalogSnapshot, dev: number): Handover {
  const unread = s.entries.filter((e) => !e.txt && (!e.idx || e.idx.dev === dev));
  const t = new Float64Array(unread.length * UNREAD_STRIDE);
  const strings: (string | null)[] = [];
  unread.forEach((e, i) => {
    const at = i * UNREAD_STRIDE;
    t[at] = e.n;
    t[at + 9] = e.from;
    const x = e.idx;
    if (!x) return;
    t[at + 1] = 1;
    t[at + 2] = x.ino;
    t[at + 3] = x.offset;
    t[at + 4] = x.lines;
    t[at + 5] = x.size;
    t[at + 6] = x.mtimeMs;
    t[at + 7] = x.state.count;
    t[at + 8] = x.state.maxCommand;
    strings.push(x.tail);
    putBrief(t, at + 10, x.state.last, strings);
    putBrief(t, at + 10 + BRIEF_WIDTH, x.state.prevDone, strings);
    putBrief(t, at + 10 + 2 * BRIEF_WIDTH, x.state.lastFailed, strings);
    const c = x.state.closing;
    if (c) {
      t[at + CLOSING] = c.agent === null ? 1 : 2;
      if (c.agent !== null) strings.push(c.agent, c.session);
    }
  });
  return { body: JSON.stringify(bodyOf(s, dev, HANDOVER_FORMAT)), unread: t, strings };
}

/** The snapshot a worker handed over (encodeHandover); undefined when it is not one. Malformed entries are left out (the taker reads those terminals). */
export function decodeHandover(h: unknown): CatalogSnapshot | undefined {
  const o = h as Partial<Handover> | null;
  if (typeof o !== 'object' || o === null || typeof o.body !== 'string' || !(o.unread instanceof Float64Array) || o.unread.length % UNREAD_STRIDE !== 0 || !Array.isArray(o.strings)) return undefined;
  let body: FileBody;
  try {
    body = JSON.parse(o.body) as FileBody;
  } catch {
    return undefined;
  }
  const s = snapshotOf(body, HANDOVER_FORMAT);
  if (!s || !s.listed) return undefined;
  const previous = new Set(s.previous);
  const t = o.unread;
  const strings = o.strings;
  const k = { i: 0 };
  for (let at = 0; at < t.length; at += UNREAD_STRIDE) {
    const n = t[at];
    if (!Number.isInteger(n) || n < 0) return undefined; // the strings no longer line up: no build
    let idx: FoldCheckpoint<CompactState> | null = null;
    if (t[at + 1] === 1) {
      const tail = strings[k.i++];
      const last = takeBrief(t, at + 10, strings, k);
      const prevDone = takeBrief(t, at + 10 + BRIEF_WIDTH, strings, k);
      const lastFailed = takeBrief(t, at + 10 + 2 * BRIEF_WIDTH, strings, k);
      const closingKind = t[at + CLOSING];
      const closing = closingKind === 2 ? { agent: strings[k.i++], session: strings[k.i++] } : closingKind === 1 ? { agent: null, session: null } : null;
      if (typeof tail !== 'string' || last === undefined || prevDone === undefined || lastFailed === undefined) return undefined;
      if (closing && closingKind === 2 && (typeof closing.agent !== 'string' || typeof closing.session !== 'string')) return undefined;
      // Plain locals and checks (no arrays per row): this loop runs once per process, unoptimised.
      const ino = t[at + 2];
      const offset = t[at + 3];
      const lines = t[at + 4];
      const size = t[at + 5];
      const mtimeMs = t[at + 6];
      const count = t[at + 7];
      const maxCommand = t[at + 8];
      const from = t[at + 9];
      // As the file's rows are checked (idxFromRow): an entry that cannot be is left out.
      if (!(isFinite(ino + offset + lines + size + mtimeMs + count + maxCommand + from) && offset <= size && from >= 0 && from <= offset)) continue;
      idx = { v: 1, spec: BRIEF_SPEC.version, dev: body.dev, ino, offset, lines, size, mtimeMs, tail, state: { count, maxCommand, last, prevDone, lastFailed, closing: closing as ClosingFacts | null } };
    }
    s.entries.push({ n, txt: null, info: standInInfo(n, previous), idx, from: idx ? t[at + 9] : 0 });
  }
  return k.i === strings.length ? s : undefined;
}
