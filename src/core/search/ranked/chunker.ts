/*
 * Cuts a file's bytes into chunks (whole lines, at most CHUNK_LINES lines or CHUNK_BYTES bytes) and
 * counts each chunk's terms, with the issue level of the line each stood on (issueLevel, the
 * reference's own rule: an error line outranks the same words in ordinary output). Secrets are
 * masked in each chunk before its terms are taken (the files under .agent/ are masked by their
 * writers already; a file a user put in scratch may not be), so no secret ever enters the index.
 */
import { createHash } from 'node:crypto';
import { issueLevel } from '../../output/reference';
import { forEachTermId, termName } from './terms';
import { TermTally } from './batchPostings';

export const CHUNK_LINES = 64;
/**
 * Numbers of one or two digits are counted (a chunk's length) but not posted: they are the pieces of
 * every time, date, version and `file:line:col` of a log, in nearly every chunk, so they rank nothing
 * (BM25 weighs a term in most chunks near zero) while their postings were 12% of the index (1.3% of
 * the bytes indexed, row 24 at 0.02). A query naming one (`exit code 2`) finds its chunk by its other
 * words; the line ranking, which reads the lines, still prefers the lines holding the number.
 */
function posted(term: string): boolean {
  return term.length > 2 || !isDigit(term.charCodeAt(0)) || (term.length === 2 && !isDigit(term.charCodeAt(1)));
}
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const CHUNK_BYTES = 8192;
/** Of a longer line (minified JSON, base64), only the start is indexed, hashed and shown. */
export const LINE_INDEX_BYTES = 16 * 1024;
/** What the hash of a chunk covers (its start): a chunk of one 50 MB line is never read whole. */
const HASH_BYTES = 64 * 1024;

/** One chunk: where it lies, what it held (hash), and its terms. */
export interface Chunk {
  byteStart: number;
  byteEnd: number;
  /** 1-based number of its first line. */
  lineStart: number;
  lines: number;
  hash: number;
  /** Terms counted (BM25's document length). */
  tokens: number;
  /** Highest issue level of its lines. */
  level: number;
  /** In a terminal capture, the line of the `>>> command` header its first line belongs to (0: none); elsewhere 0. */
  block: number;
}

/** The hash a chunk is checked by when it is read back: its first HASH_BYTES bytes and its length. */
export function chunkHash(bytes: Buffer, length: number): number {
  const h = createHash('md5');
  h.update(bytes.subarray(0, Math.min(bytes.length, HASH_BYTES)));
  h.update(String(length));
  return h.digest().readUInt32LE(0);
}

/** The text of lines [from, to) of `buf` with each line cut to LINE_INDEX_BYTES. */
export function chunkTextOf(buf: Buffer, from: number, to: number): string {
  let out = '';
  let at = from;
  while (at < to) {
    let nl = buf.indexOf(10, at);
    if (nl < 0 || nl >= to) nl = to;
    const end = Math.min(nl, at + LINE_INDEX_BYTES);
    out += buf.toString('utf8', at, end);
    if (nl < to) out += '\n';
    at = nl + 1;
  }
  return out;
}

/** The header of a command's block in a terminal capture (terminalFormat.ts). */
const COMMAND_HEADER = Buffer.from('>>> command ');
/** A command header starts a new chunk unless the chunk so far has fewer lines than this (tiny commands share one). */
const BLOCK_MIN_LINES = 8;

/** Whether `buf` holds `what` at byte `at`. */
function startsWithAt(buf: Buffer, what: Buffer, at: number): boolean {
  return at + what.length <= buf.length && buf.compare(what, 0, what.length, at, at + what.length) === 0;
}

/**
 * Chunks `buf`, the bytes of a file from byte `base` (a line start, line number `lineBase`) to its
 * end. `mask` masks secrets in a chunk's text (lines kept). In a terminal capture (`terminal`), a
 * command's header starts a chunk (so most chunks hold one command's output) and each chunk names
 * its command's header line; `block` is the header in force at `lineBase`. `each` is given every
 * chunk as it is made, with its terms (emptied once `each` returns); when it answers true the
 * chunking ends there (a batch that is full): the chunks returned cover `buf` up to the last one's
 * `byteEnd`.
 */
export function chunkFile(buf: Buffer, base: number, lineBase: number, mask: (text: string) => string, terminal = false, block = 0, each?: (c: Chunk, terms: TermTally) => boolean): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  let lineStart = lineBase;
  while (start < buf.length) {
    let end = start;
    let lines = 0;
    let first = block;
    while (end < buf.length && lines < CHUNK_LINES) {
      // Compared in place: an indexOf from here would scan the rest of the buffer for every line (a long command's output made chunking quadratic).
      const header = terminal && startsWithAt(buf, COMMAND_HEADER, end);
      if (header && lines >= BLOCK_MIN_LINES) break;
      let nl = buf.indexOf(10, end);
      const lineEnd = nl < 0 ? buf.length : nl + 1;
      // A chunk always takes its first line, however long; later lines only while it stays small.
      if (lines > 0 && lineEnd - start > CHUNK_BYTES) break;
      if (header) {
        block = lineStart + lines;
        if (lines === 0) first = block;
      }
      end = lineEnd;
      lines++;
      if (nl < 0) nl = buf.length;
    }
    const bytes = buf.subarray(start, end);
    const c: Chunk = { byteStart: base + start, byteEnd: base + end, lineStart, lines, hash: chunkHash(bytes, bytes.length), tokens: 0, level: 0, block: first };
    countTerms(mask(chunkTextOf(buf, start, end)), c, tally);
    chunks.push(c);
    lineStart += lines;
    start = end;
    const stop = each?.(c, tally);
    tally.drain();
    if (stop) break;
  }
  return chunks;
}

/** The tally of the chunk being counted: one for all (chunkFile runs to its end before another starts). */
const tally = new TermTally();

function countTerms(text: string, c: Chunk, terms: TermTally): void {
  let at = 0;
  while (at <= text.length) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = text.length;
    const line = text.slice(at, nl);
    if (line) {
      const level = issueLevel(line.length > 2048 ? line.slice(0, 2048) : line);
      if (level > c.level) c.level = level;
      forEachTermId(line, (id) => {
        c.tokens++;
        if (posted(termName(id))) terms.add(id, level);
      });
    }
    at = nl + 1;
  }
}
