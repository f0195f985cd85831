import * as fs from 'node:fs';
import * as path from 'node:path';
import { RequestWorker } from '../requestWorker';
import { groupDigits } from './humanize';

/** A token count; `approximate` is true when it was extrapolated from a sample. */
export interface TokenCount {
  tokens: number;
  approximate: boolean;
}

type CountFn = (text: string) => number;
let counter: CountFn | undefined;

/** Above this many characters, count a sample and extrapolate (marked ≈). */
const EXACT_LIMIT = 1_000_000;
const SAMPLE_CHARS = 64 * 1024;

function loadCounter(): CountFn {
  if (counter) return counter;
  // In the bundles, dist/tokenizer.js sits beside extension.js / mcp.js; in tests and benchmarks
  // (tsc output) the package is required directly.
  try {
    counter = (require(path.join(__dirname, 'tokenizer.js')) as { countTokens: CountFn }).countTokens;
  } catch {
    counter = (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountFn }).countTokens;
  }
  return counter;
}

/**
 * A run the tokenizer takes as one word (letters, blanks or punctuation: its pre-split keeps such a
 * run together) costs it time in the square of the run's length: 64 K of `a` took 4 s, a 5 MB
 * minified line or base64 blob 12 s. Runs longer than LONG_RUN are counted in pieces of that
 * length (marked ≈); ordinary text never has one.
 */
const LONG_RUN = 256;

/**
 * A character's class in the tokenizer's pre-split, as the Unicode regex `[\p{L}\p{M}]` / `\s` /
 * `\p{N}` / anything else tells: 0 letter or mark, 1 blank, 2 other (punctuation, symbols), 3 digit
 * (digits are split in threes, so never a long run).
 */
function classOf(ch: string): number {
  return /[\p{L}\p{M}]/u.test(ch) ? 0 : /\s/u.test(ch) ? 1 : /\p{N}/u.test(ch) ? 3 : 2;
}
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, c) => classOf(String.fromCharCode(c)));
/** Classes of the non-ASCII code points met so far (a text uses few; capped so a foreign text cannot grow it without end). */
const wideClasses = new Map<number, number>();
const MAX_WIDE_CLASSES = 65_536;

function wideClass(cp: number): number {
  let c = wideClasses.get(cp);
  if (c === undefined) {
    c = classOf(String.fromCodePoint(cp));
    if (wideClasses.size < MAX_WIDE_CLASSES) wideClasses.set(cp, c);
  }
  return c;
}

/**
 * `text` cut so no piece holds a run longer than LONG_RUN code points; undefined when it has none.
 * One pass over the text: the regex it replaces (`[\p{L}\p{M}]{257,}|…`, tried at every position)
 * took ~24 ms per 100 KB of ordinary text, on the calling thread (the extension host's).
 */
export function cutLongRuns(text: string): string[] | undefined {
  let out: string[] | undefined;
  let last = 0;
  let runClass = -1;
  let runStart = 0;
  let runLength = 0;
  const close = (end: number): void => {
    if (runLength <= LONG_RUN || runClass === 3) return;
    out ??= [];
    if (runStart > last) out.push(text.slice(last, runStart));
    for (let i = runStart; i < end; i += LONG_RUN) out.push(text.slice(i, Math.min(i + LONG_RUN, end)));
    last = end;
  };
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let cls: number;
    let width = 1;
    if (c < 128) cls = ASCII_CLASS[c];
    else {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) width = 2;
      cls = wideClass(cp);
    }
    if (cls !== runClass) {
      close(i);
      runClass = cls;
      runStart = i;
      runLength = 0;
    }
    runLength++;
    i += width;
  }
  close(text.length);
  if (!out) return undefined;
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The texts to count for `text`, and how their sum becomes its count: itself; three samples (start, middle, end) of a large one; long runs in pieces. */
function pieces(text: string): { parts: string[]; sampled: boolean; cut: boolean } {
  // Three samples so a log whose language or density changes is still fair.
  const sampled = text.length > EXACT_LIMIT;
  const whole = sampled ? [0, Math.floor(text.length / 2 - SAMPLE_CHARS / 2), text.length - SAMPLE_CHARS].map((s) => text.slice(s, s + SAMPLE_CHARS)) : [text];
  const parts: string[] = [];
  let cut = false;
  for (const w of whole) {
    const c = cutLongRuns(w);
    if (c) cut = true;
    parts.push(...(c ?? [w]));
  }
  return { parts, sampled, cut };
}

function fromPieces(text: string, p: { sampled: boolean; cut: boolean }, counts: number[]): TokenCount {
  const sum = counts.reduce((a, b) => a + b, 0);
  if (!p.sampled) return { tokens: sum, approximate: p.cut };
  return { tokens: Math.round((sum / (3 * SAMPLE_CHARS)) * text.length), approximate: true };
}

/** Counts tokens with the o200k_base encoding (loaded lazily, in this thread); large texts are estimated from samples. */
export function countTokens(text: string): TokenCount {
  const count = loadCounter();
  const p = pieces(text);
  return fromPieces(text, p, p.parts.map((x) => recalled(x) ?? remember(x, count(x))));
}

/**
 * Counts of the texts counted last (up to RECENT_MAX characters each, RECENT_CHARS in all, least
 * recently used dropped first): a listing that did not change since the last call (a skill index, an
 * agent list) and the briefing's lines are counted once, not per call.
 */
const recent = new Map<string, number>();
const RECENT_MAX = 64 * 1024;
const RECENT_CHARS = 2 * 1024 * 1024;
let recentChars = 0;

function recalled(text: string): number | undefined {
  if (text.length > RECENT_MAX) return undefined;
  const n = recent.get(text);
  if (n !== undefined) {
    recent.delete(text);
    recent.set(text, n);
  }
  return n;
}

function remember(text: string, tokens: number): number {
  if (text.length > RECENT_MAX) return tokens;
  if (!recent.has(text)) recentChars += text.length;
  recent.delete(text);
  recent.set(text, tokens);
  for (const old of recent.keys()) {
    if (recentChars <= RECENT_CHARS) break;
    recent.delete(old);
    recentChars -= old.length;
  }
  return tokens;
}

// ── The tokenizer's worker thread (long-lived processes: the extension host, the MCP server) ──

let workerWanted = false;
/** The worker, while wanted; a failed one stays, failed, so later counts run here. */
let worker: RequestWorker<number | undefined> | undefined;

/** The worker's script: dist/tokenizer.js beside the bundle, or the compiled entry (tsc output). */
function workerScript(): string | undefined {
  for (const name of ['tokenizer.js', 'tokenizerEntry.js']) {
    const p = path.join(__dirname, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

function tokenizerWorker(): RequestWorker<number | undefined> {
  worker ??= new RequestWorker<number | undefined>({
    script: workerScript,
    workerData: { agentContextTokenizer: true },
    // { ready: true } answers nothing; { id, tokens: undefined }: that text is counted here.
    read: (m) => {
      const a = m as { id?: unknown; tokens?: unknown } | undefined;
      return typeof a?.id === 'number' ? { id: a.id, answer: typeof a.tokens === 'number' ? a.tokens : undefined } : undefined;
    },
  });
  return worker;
}

/**
 * Lets countTokensAsync count on a worker thread until the tokenizer is loaded here, so loading its
 * tables (~280 ms of CPU) never blocks this thread. For long-lived processes; `warm` starts loading
 * now (the MCP server at start, while its client connects), otherwise at the first count (the
 * extension host: a window that calls no tool never loads it).
 */
export function useTokenizerWorker(warm = false): void {
  workerWanted = true;
  if (warm && !counter) tokenizerWorker().start();
}

/** Stops the worker (tests; a process that is done counting): what it owed is counted here. */
export async function stopTokenizerWorker(): Promise<void> {
  workerWanted = false;
  const w = worker;
  worker = undefined;
  await w?.dispose();
}

/** The worker's count of `text`, or this thread's when the worker cannot give one (it failed, or cannot count that text). */
async function countOnWorker(text: string): Promise<number> {
  return (await tokenizerWorker().request((id) => ({ id, text }))) ?? loadCounter()(text);
}

/** True when countTokensAsync would count on the worker (useTokenizerWorker called; not loaded in this thread; the worker not failed). */
export function tokenizerWorkerActive(): boolean {
  return workerWanted && !counter && worker?.failure === undefined;
}

/**
 * countTokens without blocking this thread on the tokenizer's first load: on the worker when
 * useTokenizerWorker was called (and the worker runs), else in this thread. The same counts either way.
 */
export async function countTokensAsync(text: string): Promise<TokenCount> {
  if (!tokenizerWorkerActive()) return countTokens(text);
  const p = pieces(text);
  return fromPieces(text, p, await Promise.all(p.parts.map(async (x) => recalled(x) ?? remember(x, await countOnWorker(x)))));
}

/** A cheap estimate from a byte size alone (for listings of many files): about 4 bytes per token. */
export function estimateTokensFromBytes(bytes: number): TokenCount {
  return { tokens: Math.ceil(bytes / 4), approximate: true };
}

/** Formats a count for people and models: `1,234 tokens` or `≈1,234 tokens`. */
export function formatTokens(t: TokenCount): string {
  return `${t.approximate ? '≈' : ''}${groupDigits(t.tokens)} tokens`;
}
