// The built-in grep engine's file scanner. A file is read in large blocks that end on a line
// boundary (the partial last line is carried into the next block); each block is searched as a
// whole (Buffer.indexOf for a case-sensitive literal, the regex with the g and m flags otherwise)
// and only the lines around a candidate are split out, numbered and tested one by one with the
// query's own regex, so the results are exactly those of a line-by-line search. Lines end at \n
// (a \r before it is dropped), like GNU grep and ripgrep.
import type { GrepHit, GrepQuery } from './grepTypes';

const BLOCK_BYTES = 4 * 1024 * 1024;
const BINARY_PROBE_BYTES = 8192;
/** Longest line the built-in engine searches; a file with a longer one is named as not searched. */
const MAX_LINE_BYTES = 256 * 1024 * 1024;
const CONTEXT_TEXT_MAX = 1000;

interface NumberedLine { n: number; text: string }

/** Per-file state carried from one block to the next. */
interface FileState {
  file: string;
  /** Number of the first line of the current block. */
  lineNo: number;
  /** Context lines still to print after the last match. */
  after: number;
  lastEmitted: number;
  /** The last `context` lines of the previous blocks (for before-context). */
  tail: NumberedLine[];
}

/** The reusable read buffer and the block-level matchers of one query. */
export class BlockScanner {
  buf = Buffer.alloc(BLOCK_BYTES);
  /** Bytes a block must contain to have a match (case-sensitive literal or regex prefix), else undefined. */
  readonly needle: Buffer | undefined;
  /** The query's regex with g and m for searching a whole block; undefined when every line must be tested. */
  readonly blockRegex: RegExp | undefined;

  constructor(readonly q: GrepQuery) {
    const required = q.literal ? q.pattern : requiredPrefix(q.regex);
    this.needle = q.caseSensitive && required ? Buffer.from(required, 'utf8') : undefined;
    // Lookarounds can see past the end of a line inside a block, so a block search could miss a
    // line that matches alone: such patterns test every line.
    const lookaround = /\(\?<?[=!]/.test(q.regex.source);
    this.blockRegex = lookaround ? undefined : new RegExp(q.regex.source, q.regex.flags.replace(/[gmy]/g, '') + 'gm');
  }

  /** Index (in `text`) of a place where a match may start at or after `from`, or -1. */
  candidate(text: string, from: number): number {
    if (this.q.literal && this.q.caseSensitive) return text.indexOf(this.q.pattern, from);
    if (!this.blockRegex) return from < text.length ? from : -1;
    this.blockRegex.lastIndex = from;
    const m = this.blockRegex.exec(text);
    return m ? m.index : -1;
  }
}

/**
 * Literal text every match of a regex starts with (its leading plain characters, when the pattern
 * has no alternation), or '' when there is none to rely on.
 */
function requiredPrefix(re: RegExp): string {
  if (re.flags.includes('i') || re.source.includes('|')) return '';
  const m = /^\^?([A-Za-z0-9 _,:;'"=<>@#%&~!/-]*)/.exec(re.source);
  let lit = m ? m[1] : '';
  // The last plain character may be made optional or repeated by a quantifier after it.
  if (/^[?*+{]/.test(re.source.slice((m ? m[0].length : 0)))) lit = lit.slice(0, -1);
  return lit;
}

function countNewlines(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = b.indexOf(10, from); i >= 0 && i < to; i = b.indexOf(10, i + 1)) n++;
  return n;
}

function lineText(text: string, s: number, e: number): string {
  return text.charCodeAt(e - 1) === 13 && e > s ? text.slice(s, e - 1) : text.slice(s, e);
}

/** Searches one block (whole lines; the last may lack its \\n only at end of file) and yields its hits. */
function* scanBlock(block: Buffer, newlines: number, sc: BlockScanner, st: FileState): Generator<GrepHit> {
  const q = sc.q;
  if (st.after === 0 && sc.needle && block.indexOf(sc.needle) < 0) {
    if (q.context > 0) st.tail = lastLines(block.toString('utf8'), st.lineNo, newlines, q.context, st.tail);
    return;
  }
  const text = block.toString('utf8');
  let countPos = 0;
  let countLine = st.lineNo;
  const lineAt = (start: number): number => {
    for (let i = text.indexOf('\n', countPos); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) countLine++;
    countPos = start;
    return countLine;
  };
  let pos = 0;
  while (pos < text.length) {
    const cand = st.after > 0 ? pos : sc.candidate(text, pos);
    if (cand < 0) break;
    let s = cand === 0 ? 0 : text.lastIndexOf('\n', cand - 1) + 1;
    if (s < pos) s = pos;
    // Test lines one by one from the candidate's line while after-context is pending.
    do {
      const nl = text.indexOf('\n', s);
      const e = nl < 0 ? text.length : nl;
      const line = lineText(text, s, e);
      const n = lineAt(s);
      q.regex.lastIndex = 0;
      if (q.regex.test(line)) {
        if (q.context > 0) {
          for (const b of beforeLines(text, s, n, q.context, st.tail)) if (b.n > st.lastEmitted) yield { file: st.file, line: b.n, text: b.text, context: true };
        }
        yield { file: st.file, line: n, text: line, context: false };
        st.lastEmitted = n;
        st.after = q.context;
      } else if (st.after > 0) {
        st.after--;
        yield { file: st.file, line: n, text: line, context: true };
        st.lastEmitted = n;
      }
      s = e + 1;
    } while (st.after > 0 && s < text.length);
    pos = s;
  }
  if (q.context > 0) st.tail = lastLines(text, st.lineNo, newlines, q.context, st.tail);
}

/** Up to `k` lines before the line starting at `s` (numbered `n`), reaching into earlier blocks' tail. */
function beforeLines(text: string, s: number, n: number, k: number, tail: NumberedLine[]): NumberedLine[] {
  const out: NumberedLine[] = [];
  let end = s - 1; // the \n ending the previous line
  while (out.length < k && end >= 0) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const t = lineText(text, start, end);
    out.unshift({ n: n - out.length - 1, text: t.length > CONTEXT_TEXT_MAX ? t.slice(0, CONTEXT_TEXT_MAX) : t });
    end = start - 1;
  }
  if (out.length < k) out.unshift(...tail.slice(Math.max(0, tail.length - (k - out.length))));
  return out;
}

/** The last `k` lines up to the end of a block whose first line is `lineNo` and that holds `newlines` \\n. */
function lastLines(text: string, lineNo: number, newlines: number, k: number, tail: NumberedLine[]): NumberedLine[] {
  const endsWithNl = text.endsWith('\n');
  const next = lineNo + newlines + (endsWithNl ? 0 : 1); // number after the block's last line
  const s = endsWithNl ? text.length : text.length + 1;
  return beforeLines(text, s, next, k, tail);
}

/** Reads up to `length` bytes of an open file into `buf` at `offset` (from the file's current position); the number read. */
export type BlockRead = (buf: Buffer, offset: number, length: number) => number | Promise<number>;

/** Yields the hits of one open file; a file with a NUL byte in its first 8 KB is skipped as binary. */
export async function* scanFile(read: BlockRead, file: string, sc: BlockScanner): AsyncGenerator<GrepHit> {
  const st: FileState = { file, lineNo: 1, after: 0, lastEmitted: 0, tail: [] };
  let carry = 0; // bytes of a partial line kept at the start of sc.buf
  let first = true;
  for (;;) {
    if (sc.q.signal.aborted) return;
    if (carry === sc.buf.length) {
      // A line longer than the buffer. NULs in it mean a binary file (GNU grep and ripgrep say the same
      // of NULs anywhere; only this case is checked, so ordinary files pay nothing for it); past
      // MAX_LINE_BYTES the file is given up and named, instead of growing the buffer without end.
      if (sc.buf.includes(0)) return;
      if (sc.buf.length * 2 > MAX_LINE_BYTES) throw Object.assign(new Error(`a line longer than ${MAX_LINE_BYTES / 1048576} MB`), { code: 'ELINE', reason: `a line longer than ${MAX_LINE_BYTES / 1048576} MB: not searched` });
      const bigger = Buffer.alloc(sc.buf.length * 2); // one line longer than the buffer
      sc.buf.copy(bigger, 0, 0, carry);
      sc.buf = bigger;
    }
    const want = sc.buf.length - carry;
    const bytesRead = await read(sc.buf, carry, want);
    const filled = carry + bytesRead;
    if (first) {
      first = false;
      if (sc.buf.subarray(0, Math.min(filled, BINARY_PROBE_BYTES)).includes(0)) return;
    }
    const eof = bytesRead < want; // a short read of a regular file is its end (as it is now)
    if (eof && filled === 0) return;
    const cut = eof ? filled : sc.buf.lastIndexOf(10, filled - 1) + 1;
    if (cut === 0) {
      carry = filled;
      continue;
    }
    const block = sc.buf.subarray(0, cut);
    const newlines = eof && sc.q.context === 0 ? 0 : countNewlines(block, 0, cut); // only needed for what follows
    yield* scanBlock(block, newlines, sc, st);
    if (eof) return;
    st.lineNo += newlines;
    sc.buf.copy(sc.buf, 0, cut, filled);
    carry = filled - cut;
  }
}
