/**
 * The terminal catalog's first reads of a terminal it does not know (terminalCatalog.ts): N.txt's
 * header facts through one open, and the fold of the end of N.index.jsonl only (what settles its
 * last and last finished command: indexBrief.ts settledStart), so a first build at 10,000 terminals
 * opens each file once and decodes the last lines of each index instead of all of them. The bytes
 * before those lines are read, to be scanned without decoding for a higher command number
 * (earlierCommandsBelow: at bench row 14i's L that is 72 MB, scanned at about 1 GB/s), unless the
 * last line's tally holds (talliedWhole, indexTally.ts): then the end alone says what the whole
 * index says, its count and last failure included.
 */
import * as fs from 'node:fs';
import type { FoldCheckpoint } from '../../fs/appendFold';
import type { Entry } from './catalogFile';
import { fileKeyOf } from '../../fs/stamps';
import { BRIEF_SPEC, lineBrief, settled, settledStart, type BriefCommand, type CompactState, type TerminalBrief } from './indexBrief';
import { claimedTally } from '../indexTally';
import { previousFileOf, withClosing, type TerminalInfo } from '../terminalFormat';
import { notRegularFile, OPEN_FLAGS, readTerminalHeaderInfoFdSync, unreadableTerminal } from '../terminalIndex';

/** Bytes read of an index's end when only its end is folded (a record is about 300 bytes). */
export const TAIL_BYTES = 4096;
/** Of which this much is decoded first (a record is about 300 bytes; the last one usually settles it). */
const WINDOW_BYTES = 768;
const tailBuf = Buffer.allocUnsafe(TAIL_BYTES);
const FINGERPRINT = 64;

/**
 * The fold of the end of an index (open as `fd`, stat `st`): from settledStart, or from byte 0
 * when the lines read are the whole file. 'whole' when the end read does not settle it (fold the
 * whole index instead). An index of up to SCAN_BLOCK bytes is read whole in one read (its earlier
 * bytes are scanned anyway) and, when its end does not settle it, folded whole here.
 */
export function foldIndexEnd(fd: number, st: fs.Stats): { cp: FoldCheckpoint<CompactState>; from: number } | 'whole' {
  const pos = Math.max(0, st.size - TAIL_BYTES);
  // What was read: buf[k] is byte base + k of the file.
  const inOne = st.size <= SCAN_BLOCK;
  const buf = inOne ? scanBuf : tailBuf;
  const base = inOne ? 0 : pos;
  const got = st.size > base ? fs.readSync(fd, buf, 0, st.size - base, base) : 0;
  // Whole lines only: after the first newline from pos (unless this is the file's start), up to the last one.
  const first = pos > 0 ? buf.indexOf(10, pos - base) : -1;
  const start = first + 1;
  const end = got > 0 ? buf.lastIndexOf(10, got - 1) + 1 : 0;
  const state = BRIEF_SPEC.init();
  let whole: ReturnType<typeof talliedWhole>;
  let lines = 0;
  let from = -1;
  if ((pos === 0 || (first >= 0 && first < got)) && end > start) {
    // The last lines first (usually the last one settles it): only they are decoded.
    // The last line, then the last WINDOW_BYTES, then all of the end that was read.
    const lastLine = end >= 2 ? buf.lastIndexOf(10, end - 2) + 1 : 0;
    for (const window of [end - lastLine, WINDOW_BYTES, end - start]) {
      const w = window >= end - start ? start : buf.indexOf(10, end - window - 1) + 1;
      const text = buf.toString('utf8', w, end);
      const i = settledStart(text);
      if (i >= 0) {
        from = base + w + (i > 0 ? Buffer.byteLength(text.slice(0, i)) : 0);
        lines = BRIEF_SPEC.lines!(state, i > 0 ? text.slice(i) : text);
        if (settled(state)) break;
        from = -1;
        Object.assign(state, BRIEF_SPEC.init());
      }
      if (w === start) break;
    }
    // The last line's tally, when it holds, says what the lines before `from` add (the writer's
    // order among them); else they are scanned for a higher command.
    if (from > 0) whole = talliedWhole(fd, buf, base, start, end);
    if (from > 0 && !whole && !earlierCommandsBelow(fd, buf, from, base, end)) {
      // A command as high as those of the end before it (not capture's order: another writer, a
      // concatenation): the end alone cannot say what the whole index says.
      from = -1;
      Object.assign(state, BRIEF_SPEC.init());
    }
  }
  if (from < 0) {
    if (base > 0) return 'whole';
    // The whole file was read: folded whole.
    lines = end > 0 ? BRIEF_SPEC.lines!(state, buf.toString('utf8', 0, end)) : 0;
    from = 0;
  }
  if (from > 0 && whole) {
    // The fold is then the whole one's.
    state.count = whole.count;
    state.lastFailed = whole.lastFailed;
    from = 0;
  }
  return {
    cp: { v: 1, spec: BRIEF_SPEC.version, dev: st.dev, ino: st.ino, offset: base + end, lines, size: st.size, mtimeMs: st.mtimeMs, tail: buf.toString('base64', Math.max(0, end - FINGERPRINT), end), state },
    from,
  };
}

/** The longest index line whose tally is followed to it (a record is about 300 bytes; a command line is one line). */
const TALLIED_LINE_BYTES = 64 * 1024;
let lineBuf: Buffer | undefined;

/**
 * What the whole index's fold says of its count and last failure, from the tally of the last line
 * of buf[start, end) (bytes base + k of the file): undefined unless that line's `at` is where it is,
 * and the line at its `failedAt` is a failure whose own `at` is `failedAt` (indexTally.ts).
 */
function talliedWhole(fd: number, buf: Buffer, base: number, start: number, end: number): { count: number; lastFailed: BriefCommand | null } | undefined {
  const last = end >= 2 ? buf.lastIndexOf(10, end - 2) + 1 : 0;
  if (last < start) return undefined;
  const t = claimedTally(buf.toString('utf8', last, end - 1));
  if (!t || t[0] !== base + last) return undefined;
  const [, count, failedAt] = t;
  if (failedAt < 0) return { count, lastFailed: null };
  if (failedAt > base + last) return undefined; // beyond the last line: not the writer's
  let line: string | undefined;
  if (failedAt >= base) {
    // In what was read (the whole file, for an index of up to SCAN_BLOCK bytes): no read.
    const k = failedAt - base;
    line = buf.toString('utf8', k, buf.indexOf(10, k));
  } else {
    lineBuf ??= Buffer.allocUnsafe(TALLIED_LINE_BYTES);
    const got = fs.readSync(fd, lineBuf, 0, TALLIED_LINE_BYTES, failedAt);
    const nl = lineBuf.subarray(0, got).indexOf(10);
    if (nl < 0) return undefined;
    line = lineBuf.toString('utf8', 0, nl);
  }
  const b = lineBrief(line.endsWith('\r') ? line.slice(0, -1) : line);
  if (!b?.failed || claimedTally(line)?.[0] !== failedAt) return undefined;
  return { count, lastFailed: b.brief };
}

const COMMAND_KEY = Buffer.from('"command"');
/** The scan of an index's earlier bytes reads blocks of this size (exported for tests: keys cut by a block's end). */
export const SCAN_BLOCK = 256 * 1024;
/** Blocks overlap by this much, so a key and its number cut by a block's end are read whole in the next. */
const SCAN_OVERLAP = 64;
const scanBuf = Buffer.allocUnsafe(SCAN_BLOCK);

/**
 * Skips of a Boyer-Moore-Horspool search for COMMAND_KEY: for the byte under the key's last
 * position, how far the key can move on. Index text is about one `"` in seven bytes, which makes
 * Buffer.indexOf (it looks for the key's first byte, `"`) stop every few bytes; these skips move
 * by 9 bytes over most of a line.
 */
const KEY_SKIP = (() => {
  const t = new Uint8Array(256).fill(COMMAND_KEY.length);
  for (let k = 0; k < COMMAND_KEY.length - 1; k++) t[COMMAND_KEY[k]] = COMMAND_KEY.length - 1 - k;
  return t;
})();

/** Whether COMMAND_KEY ends at byte `e` (inclusive) of buf. */
function keyEndsAt(buf: Buffer, e: number): boolean {
  const s = e - COMMAND_KEY.length + 1;
  for (let k = COMMAND_KEY.length - 1; k >= 0; k--) if (buf[s + k] !== COMMAND_KEY[k]) return false;
  return true;
}

/**
 * Widens `acc` to the numbers after every "command" key in buf[a, b), any line, record or not;
 * false when one is not a plain integer. A key whose number (or the key itself) reaches b is left
 * to another read when it starts at `reread` or later (a read that starts there sees it whole), and
 * makes the answer false otherwise. The caller looks for \u escapes (a key could hide in one).
 */
function commandBounds(buf: Buffer, a: number, b: number, acc: { min: number; max: number }, reread: number): boolean {
  const last = COMMAND_KEY.length - 1;
  for (let e = a + last; e < b; e += KEY_SKIP[buf[e]]) {
    if (buf[e] !== 34 /* " */ || !keyEndsAt(buf, e)) continue;
    const i = e - last;
    let j = e + 1;
    while (j < b && (buf[j] === 32 || buf[j] === 9 || buf[j] === 13)) j++;
    if (j < b && buf[j] !== 58 /* : */) continue; // the string "command" as a value, not a key
    if (j < b) j++;
    while (j < b && (buf[j] === 32 || buf[j] === 9 || buf[j] === 13)) j++;
    let v = 0;
    let digits = 0;
    while (j < b && buf[j] >= 48 && buf[j] <= 57 && digits < 16) {
      v = v * 10 + buf[j] - 48;
      j++;
      digits++;
    }
    if (j >= b) {
      if (i >= reread) continue; // read whole by another read
      return false;
    }
    // Anything but a plain integer (a sign, a fraction, an exponent, a string): the worst is assumed.
    if (digits === 0 || digits >= 16 || buf[j] === 46 || buf[j] === 101 || buf[j] === 69) return false;
    if (v < acc.min) acc.min = v;
    if (v > acc.max) acc.max = v;
  }
  // A key cut by b (not found above): read by another read, or not readable here.
  for (let i = Math.max(a, b - last); i < reread && i < b; i++) if (buf[i] === 34 && keyPrefixAt(buf, i, b)) return false;
  return true;
}

/** Whether buf[i, b) is the start of COMMAND_KEY. */
function keyPrefixAt(buf: Buffer, i: number, b: number): boolean {
  for (let k = 0; i + k < b; k++) if (buf[i + k] !== COMMAND_KEY[k]) return false;
  return true;
}

/** Whether buf[a, b) holds a \u escape (a key could hide in one: JSON reads "comm\u0061nd" as "command"). */
function hasEscape(buf: Buffer, a: number, b: number): boolean {
  // Only [a, b): the buffer may hold older bytes after b.
  const v = buf.subarray(a, b);
  for (let u = v.indexOf(92 /* \\ */); u >= 0 && u < v.length - 1; u = v.indexOf(92, u + 1)) if (v[u + 1] === 117 /* u */) return true;
  return false;
}

/**
 * True when no command number before byte `from` of the index (open as `fd`; `buf` holds its
 * bytes from `pos` to `pos + end`, `from` among them) is above any command number from `from` on:
 * then the fold from `from` has the whole fold's last and lastDone (after the first line from
 * `from`, both folds hold the same last command, and every later change of the last finished one
 * happens in both), whatever order the earlier lines are in. Reads the index before `pos`
 * without decoding it.
 */
function earlierCommandsBelow(fd: number, buf: Buffer, from: number, pos: number, end: number): boolean {
  if (hasEscape(buf, 0, end)) return false;
  const after = { min: Infinity, max: -Infinity };
  if (!commandBounds(buf, from - pos, end, after, end) || after.min === Infinity) return false;
  const before = { min: Infinity, max: -Infinity };
  // The bytes read before `from`: from pos (mid-line: a key cut there is read by the last block below).
  if (!commandBounds(buf, 0, from - pos, before, from - pos)) return false;
  // The rest, in blocks that overlap; the last one reaches SCAN_OVERLAP past pos (or `from`), so a
  // key that starts before pos is read whole there (and one that starts at pos or later, above).
  for (let at = 0; at < pos;) {
    const stop = Math.min(from, pos + SCAN_OVERLAP);
    const got = fs.readSync(fd, scanBuf, 0, Math.min(SCAN_BLOCK, stop - at), at);
    if (got <= 0) return false;
    const lastBlock = at + got >= stop;
    if (hasEscape(scanBuf, 0, got)) return false;
    if (!commandBounds(scanBuf, 0, got, before, lastBlock ? pos - at : got - SCAN_OVERLAP)) return false;
    if (before.max > after.min) return false;
    if (lastBlock) break;
    at += got - SCAN_OVERLAP;
  }
  return before.max <= after.min;
}

/** N.txt's header facts and stat key, read through one open (O_NONBLOCK: a FIFO in its place must not hang the catalog); throws what the read met. */
export function readInfoCold(file: string, n: number, previous: ReadonlySet<number>): Pick<Entry, 'txt' | 'info'> {
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw notRegularFile(st);
    const info = readTerminalHeaderInfoFdSync(fd, file, n, st);
    return { txt: fileKeyOf(st), info: { ...info, previousFile: previousFileOf(n, previous) } };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The view of an entry whose N.txt (`file`) was not read yet (a first build for a caller that
 * looks at the info of a few terminals only): its `info` is read when first looked at, kept, and
 * given to the entry (`onRead` then runs).
 */
export function lazyView(file: string, e: Entry, brief: TerminalBrief, previous: ReadonlySet<number>, onRead: () => void): { n: number; info: TerminalInfo; brief: TerminalBrief } {
  // A getter in the literal (one per terminal at a first build: defineProperty on each took longer).
  const view = {
    n: e.n,
    brief,
    get info(): TerminalInfo {
      let info: TerminalInfo;
      if (e.txt) info = e.info; // read meanwhile
      else {
        try {
          const r = readInfoCold(file, e.n, previous);
          e.txt = r.txt;
          e.info = info = r.info;
          onRead();
        } catch (err) {
          // The next check of this terminal (it is checked every call until read) says the same with the file's stat.
          info = unreadableTerminal(e.n, previousFileOf(e.n, previous), err);
        }
      }
      info = withClosing(info, brief.closed);
      Object.defineProperty(view, 'info', { value: info, enumerable: true, writable: false, configurable: false });
      return info;
    },
  };
  return view;
}
