import * as fs from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { countTokens, countTokensAsync, formatTokens, tokenizerWorkerActive, type TokenCount } from './tokens';
import { groupDigits } from './humanize';
import { plural } from './humanize';
import { termsOf } from '../search/ranked/terms';

/*
 * The reference: what every offloading tool returns instead of raw output.
 *
 *   Saved: .agent/scratch/tool_outputs/npm-test-01J9….txt
 *   Command: npm test (cwd: .) · exit 1 · 12.3 s
 *   Size: 1,234,567 bytes · 20,000 lines · ≈300,000 tokens · 2 secrets masked
 *   First lines:
 *   L1: > proj@1.0.0 test
 *   Errors/warnings (137 lines; 12 shown):
 *   L455: Error: expected 3 to equal 4
 *   All 137: grep -n -E '<ISSUE_PATTERN>' .agent/scratch/tool_outputs/npm-test-01J9….txt
 *   Last lines:
 *   L20000: 137 failing
 *   Next: read lines 450–490 of .agent/scratch/tool_outputs/npm-test-01J9….txt
 *
 * At most REFERENCE_MAX_BYTES UTF-8 bytes. The issue lines come from one pattern that is both a
 * JavaScript regex and a POSIX ERE, so the grep the reference prints lists exactly the lines it
 * counted (byte-wise literals only: it also holds in grep's C locale).
 */

/** Default upper bound of a reference, in UTF-8 bytes. */
export const REFERENCE_MAX_BYTES = 2048;

/**
 * `ERR` after a character that cannot sit inside a base64 or hex run (a line start, a blank, `!`, `_`,
 * `[`…): three capitals turn up by chance in encoded data (10 lines of a 4 MB base64 dump were listed
 * as errors), and `npm ERR!`, `ERR_INVALID_ARG`, `[ERROR]` all have one. The JS scan uses the
 * lookbehind form (it tests a window of the line, where `^` would be wrong); grep the ERE form.
 */
const ERR_ERE = '(^|[^A-Za-z0-9+/])ERR';
const ERR_JS = '(?<![A-Za-z0-9+/])ERR';
/** The warning words among ISSUE_WORDS: a line with only these is a warning, not an error or failure. */
const WARN = { en: '[Ww]arn', EN: 'WARN', de: 'Warnung', zh: '警告' };
/** Literals that mark a line as an error, failure or warning, in several languages (ERE and JS regex alike). */
const ISSUE_WORDS = [
  '[Ee]rro', ERR_ERE, '[Ff]ail', 'FAIL', WARN.en, WARN.EN, '[Pp]anic', 'PANIC', 'Traceback',
  '[Ee]xception', '[Ff]atal', 'FATAL', 'Segmentation fault', 'core dumped', 'Killed', 'Aborted',
  'undefined reference', 'not ok ', 'CONFLICT', '[Cc]onflict', 'UNMET', 'extraneous', '[Ii]nvalid',
  'Fehler', 'fehlgeschlagen', WARN.de, '[Ee]rreur', 'échec', 'échoué', 'CONFLIT', 'Conflit',
  '错误', '失败', WARN.zh, 'エラー', '失敗', 'Ошибка', 'ошибка', 'ОШИБКА', 'Сбой', 'сбой', 'КОНФЛИКТ', 'Конфликт',
  '✗', '✘', '✖', '✕', '❌',
];
/** Shapes that only count at the start of a line: apt/dpkg `E: …`, mocha's numbered failures `  1) name`. */
const ISSUE_LINE_STARTS = ['^E: ', '^ {0,12}[0-9]{1,4}\\) '];

/** Lines that look like an error, failure or warning: the pattern the printed grep uses. */
export const ISSUE_PATTERN = [...ISSUE_WORDS, ...ISSUE_LINE_STARTS].join('|');

/** The scan's form of ISSUE_WORDS (global: a window is searched from its second character, see addPiece). */
const jsForm = (w: string): string => (w === ERR_ERE ? ERR_JS : w);
const ISSUE_RE = new RegExp(ISSUE_WORDS.map(jsForm).join('|'), 'g');
const LINE_START_RE = new RegExp(ISSUE_LINE_STARTS.join('|'));
const warnings: readonly string[] = Object.values(WARN);
/** An issue word that is not only a warning: the line reports an error or failure. */
const ERROR_WORD_RE = new RegExp(ISSUE_WORDS.filter((w) => !warnings.includes(w)).map(jsForm).join('|'));
const WARNING_WORD_RE = new RegExp(warnings.join('|'));

/**
 * How a whole line reads by the reference's own rule (ISSUE_PATTERN): 2 an error or failure, 1 a
 * warning only, 0 neither. Ranked search and the reference's preview put errors first by it.
 */
export function issueLevel(line: string): 0 | 1 | 2 {
  if (ERROR_WORD_RE.test(line) || LINE_START_RE.test(line)) return 2;
  return WARNING_WORD_RE.test(line) ? 1 : 0;
}
/** Longest literal in ISSUE_PATTERN, rounded up: a match never spans more characters than this. */
const MATCH_SPAN = 32;
/** Characters kept of each line for display; the rest is only scanned. */
const KEEP_CHARS = 400;
const FIRST_KEEP = 5;
const LAST_KEEP = 8;
const ISSUE_HEAD_KEEP = 60;
const ISSUE_TAIL_KEEP = 10;
const TOKEN_BLOCK = 64 * 1024;
const EXACT_TOKEN_CHARS = 1_000_000;
/** Past the exact prefix, count one block in this many (the rest is extrapolated, marked ≈). */
const SAMPLE_EVERY = 16;

/** One kept line: its 1-based number and (possibly cut) text. */
export interface NumberedLine {
  n: number;
  text: string;
  cut?: boolean;
}

/** A kept error or warning line, with its level by issueLevel (1 for a line whose issue word lies past the kept text). */
export interface IssueLine extends NumberedLine {
  level: 1 | 2;
}

/** What one pass over an output yields: sizes and the lines a reference may show. */
export interface OutputScan {
  bytes: number;
  lines: number;
  tokens: TokenCount;
  first: NumberedLine[];
  last: NumberedLine[];
  /** The first ISSUE_HEAD_KEEP issue lines, errors kept before warnings once it is full (in line order). */
  issues: IssueLine[];
  issuesTail: IssueLine[];
  issueCount: number;
}

/** Single-pass, bounded-memory scanner over streamed text (chunks may split lines anywhere). */
export class OutputScanner {
  private bytes = 0;
  private lineNo = 0; // completed lines
  private cur = '';
  private curCut = false;
  private curMatched = false;
  private window = '';
  private curLen = 0;
  private readonly first: NumberedLine[] = [];
  private last: NumberedLine[] = [];
  private readonly issues: IssueLine[] = [];
  private issuesTail: IssueLine[] = [];
  private issueCount = 0;
  private tokenBuf = '';
  private tokenChars = 0;
  private countedChars = 0;
  private countedTokens = 0;
  private blockIndex = 0;
  /** Counts still running on the tokenizer's worker (endAsync sums them). */
  private owed: Promise<number>[] | undefined;

  /** `offThread`: count tokens on the tokenizer's worker when one is in use (then call endAsync, not end). */
  constructor(private readonly lineBase = 1, offThread = false) {
    if (offThread && tokenizerWorkerActive()) this.owed = [];
  }

  /** Feeds the next piece of text. */
  push(chunk: string): void {
    if (!chunk) return;
    this.bytes += Buffer.byteLength(chunk, 'utf8');
    this.feedTokens(chunk);
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) {
        this.addPiece(chunk.slice(start));
        return;
      }
      this.addPiece(chunk.slice(start, nl));
      this.endLine();
      start = nl + 1;
    }
  }

  /** Finishes the scan and returns what was found (with counts owed by the worker: endAsync). */
  end(): OutputScan {
    if (this.owed?.length) throw new Error('OutputScanner: tokens are still being counted off the thread; use endAsync()');
    return this.finish();
  }

  /** end(), after the counts running on the tokenizer's worker are in. */
  async endAsync(): Promise<OutputScan> {
    if (this.tokenBuf) this.countBlock();
    if (this.owed) for (const n of await Promise.all(this.owed.splice(0))) this.countedTokens += n;
    return this.finish();
  }

  private finish(): OutputScan {
    if (this.curLen > 0) this.endLine();
    if (this.tokenBuf) this.countBlock();
    const approximate = this.tokenChars > EXACT_TOKEN_CHARS;
    const tokens = approximate && this.countedChars > 0
      ? Math.round((this.countedTokens / this.countedChars) * this.tokenChars)
      : this.countedTokens;
    return {
      bytes: this.bytes,
      lines: this.lineNo,
      tokens: { tokens, approximate },
      first: this.first,
      last: this.last,
      issues: this.issues,
      issuesTail: this.issuesTail.filter((l) => !this.issues.some((h) => h.n === l.n)),
      issueCount: this.issueCount,
    };
  }

  private addPiece(piece: string): void {
    if (!piece) return;
    this.curLen += piece.length;
    if (!this.curCut) {
      const room = KEEP_CHARS - this.cur.length;
      if (piece.length <= room) this.cur += piece;
      else {
        this.cur += piece.slice(0, room);
        this.curCut = true;
      }
    }
    if (!this.curMatched) {
      const w = this.window + piece;
      // A window that is not the line's start is searched from its second character: a match at
      // its first was wholly in the last test, where the character before it (which ERR's
      // lookbehind needs) was still there; the window keeps that one character more.
      ISSUE_RE.lastIndex = this.curLen - piece.length > this.window.length ? 1 : 0;
      if (ISSUE_RE.test(w)) this.curMatched = true;
      else this.window = w.slice(-(MATCH_SPAN + 1));
    }
  }

  private endLine(): void {
    // Anchored shapes are short: the kept head of the line (its first KEEP_CHARS) decides them.
    if (!this.curMatched && LINE_START_RE.test(this.cur)) this.curMatched = true;
    const line: NumberedLine = { n: this.lineBase + this.lineNo, text: this.cur, cut: this.curCut || undefined };
    this.lineNo++;
    if (this.first.length < FIRST_KEEP) this.first.push(line);
    this.last.push(line);
    if (this.last.length > LAST_KEEP * 4) this.last = this.last.slice(-LAST_KEEP);
    if (this.curMatched) {
      this.issueCount++;
      const issue: IssueLine = { ...line, level: issueLevel(this.cur) === 2 ? 2 : 1 };
      // A full head gives up its latest warning for an error: a build's warnings come before the
      // error that failed it (46 lines of rustc warnings above the E0502 that stopped it).
      if (issue.level === 2 && this.issues.length >= ISSUE_HEAD_KEEP) {
        let warning = this.issues.length - 1;
        while (warning >= 0 && this.issues[warning].level === 2) warning--;
        if (warning >= 0) this.issues.splice(warning, 1);
      }
      if (this.issues.length < ISSUE_HEAD_KEEP) this.issues.push(issue);
      else {
        this.issuesTail.push(issue);
        if (this.issuesTail.length > ISSUE_TAIL_KEEP * 4) this.issuesTail = this.issuesTail.slice(-ISSUE_TAIL_KEEP);
      }
    }
    this.cur = '';
    this.curCut = false;
    this.curMatched = false;
    this.window = '';
    this.curLen = 0;
  }

  private feedTokens(chunk: string): void {
    this.tokenChars += chunk.length;
    this.tokenBuf += chunk;
    while (this.tokenBuf.length >= TOKEN_BLOCK) {
      // Cut at a line end when there is one, so tokens are not split mid-word more than needed.
      let cut = this.tokenBuf.lastIndexOf('\n', TOKEN_BLOCK);
      if (cut < TOKEN_BLOCK / 2) cut = TOKEN_BLOCK;
      const block = this.tokenBuf.slice(0, cut);
      this.tokenBuf = this.tokenBuf.slice(cut);
      this.countText(block);
    }
  }

  private countBlock(): void {
    this.countText(this.tokenBuf);
    this.tokenBuf = '';
  }

  private countText(block: string): void {
    const exact = this.countedChars < EXACT_TOKEN_CHARS && this.blockIndex * TOKEN_BLOCK < EXACT_TOKEN_CHARS;
    if (exact || this.blockIndex % SAMPLE_EVERY === 0) {
      if (this.owed) this.owed.push(countTokensAsync(block).then((t) => t.tokens));
      else this.countedTokens += countTokens(block).tokens;
      this.countedChars += block.length;
    }
    this.blockIndex++;
  }
}

/** What a reference says besides the scan: where the output is and, for commands, how they ended. */
export interface ReferenceMeta {
  /** Workspace-relative path of the saved output, as the read tool accepts it. */
  path: string;
  /** Path to use in the printed grep (defaults to `path`), relative to the folder commands run in. */
  grepPath?: string;
  title?: string;
  command?: string;
  cwd?: string;
  exitCode?: number | null;
  signal?: string | null;
  durationMs?: number;
  timedOut?: boolean;
  cancelled?: boolean;
  masked?: number;
  /** When the scan covers only lines a–b of a larger file (a terminal command): numbering and grep use them. */
  range?: { start: number; end: number };
  note?: string;
  maxBytes?: number;
  /** The output could not be saved (why): the reference says so, and points to no file (no grep, no "Next"). */
  unsaved?: string;
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Quotes a string for a POSIX shell. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character, adding … when cut. */
export function cutToBytes(s: string, maxBytes: number): string {
  if (utf8(s) <= maxBytes) return s;
  let out = '';
  let used = 0;
  for (const ch of s) {
    const b = utf8(ch);
    if (used + b > maxBytes - 3) break;
    out += ch;
    used += b;
  }
  return out + '…';
}

/** A kept line as references and search answers show it: `L<n>: text`, control characters dropped, cut to `maxBytes`. */
export function displayLine(l: NumberedLine, maxBytes: number): string {
  const clean = stripVTControlCharacters(l.text).replace(/\r/g, '').replace(/\t/g, '  ').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return cutToBytes(`L${l.n}: ${clean}${l.cut ? '…' : ''}`, maxBytes);
}

/** Formats a duration for people: `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The exact command that lists every line the reference counted as an error or warning. */
export function issueGrepCommand(grepPath: string, range?: { start: number; end: number }): string {
  // awk's ERE (mawk) lacks intervals: grep finds, awk only keeps the range.
  if (range) return `grep -n -E '${ISSUE_PATTERN}' ${shellQuote(grepPath)} | awk -F: '$1>=${range.start} && $1<=${range.end}'`;
  return `grep -n -E '${ISSUE_PATTERN}' ${shellQuote(grepPath)}`;
}

/**
 * The issue lines a preview shows when it cannot show them all, in line order: errors before
 * warnings; among the same level, the lines holding more of the command's own words (each weighed by
 * how few of the candidates hold it: `cargo test -p orders` prefers the lines naming `orders`), then
 * a line of a new shape before one repeating an earlier line but for its numbers (fourteen `unused
 * variable` warnings say little more than one), then the earliest (a build's first error is usually
 * its cause). A quarter of the places go to the last lines of the highest level, where runners and
 * builds sum up ("3 failed", "not remade because of errors").
 */
/**
 * The terms of what a command names: its arguments, not the programs it runs (`make`, `npx jest`'s
 * `npx`), their flags or the environment it sets; those turn up in the tool's own banner lines.
 */
function commandWords(command: string): string[] {
  const out: string[] = [];
  for (const part of command.split(/&&|\|\||[|;]/)) {
    const words = part.trim().split(/\s+/).filter((w) => w && !w.startsWith('-') && !/^\w+=/.test(w));
    for (const w of words.slice(1)) out.push(...termsOf(w));
  }
  return out;
}

export function issuePicker(candidates: readonly IssueLine[], command: string | undefined): (count: number) => IssueLine[] {
  const words = new Set(command ? commandWords(command) : []);
  const held = candidates.map((l) => (words.size ? new Set(termsOf(l.text).filter((t) => words.has(t))) : new Set<string>()));
  const df = new Map<string, number>();
  for (const h of held) for (const t of h) df.set(t, (df.get(t) ?? 0) + 1);
  const n = candidates.length;
  // BM25's idf: a word every candidate holds tells none of them apart.
  const score = held.map((h) => [...h].reduce((sum, t) => sum + Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5)), 0));
  const seen = new Set<string>();
  const repeat = candidates.map((l) => {
    const shape = l.text.replace(/\d+/g, '0');
    return seen.has(shape) ? 1 : (seen.add(shape), 0);
  });
  const order = candidates.map((_, i) => i)
    .sort((a, b) => candidates[b].level - candidates[a].level || score[b] - score[a] || repeat[a] - repeat[b] || a - b);
  const top = n ? candidates[order[0]].level : 0;
  const topLast = candidates.map((_, i) => i).filter((i) => candidates[i].level === top);
  return (count) => {
    if (count >= n) return [...candidates];
    const chosen = new Set(topLast.slice(topLast.length - Math.floor(count / 4)));
    for (const i of order) {
      if (chosen.size >= count) break;
      chosen.add(i);
    }
    return [...chosen].sort((a, b) => a - b).map((i) => candidates[i]);
  };
}

/** Renders a scan and its metadata as a reference of at most `meta.maxBytes` (2,048) UTF-8 bytes. */
export function formatReference(scan: OutputScan, meta: ReferenceMeta): string {
  const max = meta.maxBytes ?? REFERENCE_MAX_BYTES;
  // The scanned range as it turned out (a running command's range has no known end yet).
  const range = meta.range ? { start: meta.range.start, end: meta.range.start + Math.max(scan.lines, 1) - 1 } : undefined;
  const head: string[] = [];
  head.push(meta.unsaved !== undefined ? `Output NOT saved: ${meta.unsaved}. What the scan of it kept:` : `${meta.title ?? 'Saved'}: ${meta.path}${range ? ` lines ${range.start}–${range.end}` : ''}`);
  if (meta.command !== undefined) {
    const parts = [`Command: ${cutToBytes(meta.command, 300)}${meta.cwd ? ` (cwd: ${meta.cwd})` : ''}`];
    if (meta.timedOut) parts.push('TIMED OUT (process group killed)');
    else if (meta.cancelled) parts.push('CANCELLED (process group killed)');
    if (meta.exitCode !== undefined && meta.exitCode !== null) parts.push(`exit ${meta.exitCode}`);
    else if (meta.signal) parts.push(`killed by ${meta.signal}`);
    if (meta.durationMs !== undefined) parts.push(formatDuration(meta.durationMs));
    head.push(parts.join(' · '));
  }
  const size = [`${groupDigits(scan.bytes)} bytes`, `${plural(scan.lines, 'line')}`, formatTokens(scan.tokens)];
  if (meta.masked) size.push(`${plural(meta.masked, 'secret')} masked`);
  head.push(`Size: ${size.join(' · ')}`);
  if (meta.note) head.push(meta.note);

  const grepPath = meta.grepPath ?? meta.path;
  const candidates = [...scan.issues, ...scan.issuesTail];
  const pick = issuePicker(candidates, meta.command);
  const firstIssue = (candidates.find((l) => l.level === 2) ?? candidates[0])?.n;
  const lastLine = (range?.start ?? 1) + scan.lines - 1;
  let next: string;
  if (scan.lines === 0) next = 'Next: the output is empty.';
  else if (firstIssue !== undefined) {
    const a = Math.max(range?.start ?? 1, firstIssue - 5);
    next = `Next: read lines ${a}–${Math.min(lastLine, a + 39)} of ${meta.path}`;
  } else {
    const a = Math.max(range?.start ?? 1, lastLine - 39);
    next = `Next: read lines ${a}–${lastLine} of ${meta.path}`;
  }

  // Lay out first lines, then issues, then last lines; shrink until the whole fits.
  const render = (nFirst: number, nIssue: number, nLast: number, width: number): string => {
    const out = [...head];
    const issues = pick(nIssue);
    const shown = new Set(issues.map((l) => l.n));
    const last = (nLast > 0 ? scan.last.slice(-LAST_KEEP).slice(-nLast) : []).filter((l) => !shown.has(l.n));
    last.forEach((l) => shown.add(l.n));
    const first = scan.first.slice(0, nFirst).filter((l) => !shown.has(l.n));
    if (first.length) out.push('First lines:', ...first.map((l) => displayLine(l, width)));
    if (scan.issueCount > 0) {
      const partial = issues.length < scan.issueCount;
      out.push(`Errors/warnings (${plural(scan.issueCount, 'line')}${partial ? `; ${issues.length} shown` : ''}):`);
      out.push(...issues.map((l) => displayLine(l, width)));
      if (partial && meta.unsaved === undefined) out.push(`All ${scan.issueCount}: ${issueGrepCommand(grepPath, range)}`);
    } else if (scan.lines > 0) out.push('No error or warning lines.');
    if (last.length) out.push('Last lines:', ...last.map((l) => displayLine(l, width)));
    if (meta.unsaved === undefined) out.push(next);
    return out.join('\n');
  };

  let nFirst = 3;
  let nIssue = Math.min(scan.issueCount, candidates.length);
  let nLast = 5;
  let width = 200;
  for (let guard = 0; guard < 400; guard++) {
    const text = render(nFirst, nIssue, nLast, width);
    if (utf8(text) <= max) return text;
    if (nIssue > 4) nIssue--;
    else if (nFirst > 1) nFirst--;
    else if (nLast > 2) nLast--;
    else if (width > 80) width -= 20;
    else if (nIssue > 0) nIssue--;
    else if (nLast > 0) nLast--;
    else if (nFirst > 0) nFirst--;
    else break;
  }
  // Even the bare header is too long (a huge command line or tiny budget): cut the whole text.
  return cutToBytes(render(0, 0, 0, 80), max);
}

/** Builds a reference from text already in memory. */
export function buildReferenceFromText(text: string, meta: ReferenceMeta): string {
  const s = new OutputScanner(meta.range?.start ?? 1);
  s.push(text);
  return formatReference(s.end(), meta);
}

/** Scans a file in one streaming pass (optionally only lines a–b) and returns its reference. */
export async function buildReference(file: string, meta: ReferenceMeta, signal?: AbortSignal, from?: LineOffset): Promise<string> {
  return formatReference(await scanFile(file, meta.range, signal, from), meta);
}

/** A known line start: line number `line` begins at byte `byte` (lets a range scan skip the file's head). */
export interface LineOffset {
  line: number;
  byte: number;
}

/** Streams a file (or lines a–b of it) through an OutputScanner. */
export async function scanFile(file: string, range?: { start: number; end: number }, signal?: AbortSignal, from?: LineOffset): Promise<OutputScan> {
  const scanner = new OutputScanner(range?.start ?? 1, true);
  const skip = range && from && from.line <= range.start ? from : undefined;
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024, signal, start: skip?.byte ?? 0 });
  if (!range) {
    for await (const chunk of stream) scanner.push(chunk as string);
    return scanner.endAsync();
  }
  let line = skip?.line ?? 1;
  let done = false;
  for await (const raw of stream) {
    const chunk = raw as string;
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf('\n', pos);
      const stop = nl < 0 ? chunk.length : nl + 1;
      if (line >= range.start) scanner.push(chunk.slice(pos, stop));
      if (nl >= 0) line++;
      pos = stop;
      if (line > range.end) { done = true; break; }
    }
    if (done) break;
  }
  stream.destroy();
  return scanner.endAsync();
}
