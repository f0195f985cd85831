/*
 * From the best chunks to the best lines: the candidate chunks are read back from their files (and
 * checked against what was indexed: a chunk whose bytes changed is never quoted), their lines
 * ranked by BM25+ as MiniSearch scores them (lineScore.ts: over the lines' term ids, with prefix
 * matching; each query term weighted by its weight in the whole index, each line boosted
 * for an error or warning and for the rank of its chunk and file), and the best lines grown into
 * windows: a little context before, and after an error the lines that explain it (an indented
 * stack, a compiler's `-->` and `|` lines), merged where they touch.
 */
import * as fs from 'node:fs';
import { issueLevel } from '../../output/reference';
import { chunkHash, chunkTextOf } from './chunker';
import { chunkAt, chunkCount, type FileEntry } from './manifest';
import { LEVEL_BOOST, type ChunkRanking } from './chunkRanking';
import { scoreLines } from './lineScore';
import { DETAIL_RE, REPORT_HEADER_RE, reportOf, windowRest, type WindowRest } from './windowRest';
import { readAt } from '../../fs/readAt';

/** Lines of context shown on each side of a matching line. */
export const CONTEXT_LINES = 1;
/** Lines beyond a window's edge that still join it rather than start one of their own. */
const JOIN_GAP = CONTEXT_LINES + 1;
/** A window grows by joining lines up to this many lines; a matching line past it starts a window of its own. */
export const MAX_WINDOW_LINES = 12;
/** A line joins a window only if it scores at least this share of the window's best line. */
const JOIN_SHARE = 0.4;
/** A window's score grows by this share for each query term beyond the first that its lines hold. */
const EXTRA_TERM_BONUS = 0.25;
/** A line's boost for the rank of its chunk and of its document: the best ones' lines get up to this much more. */
const CHUNK_PRIOR = 0.5;
const DOC_PRIOR = 1;
/** In a question about a failure, an error line scores this share of the best line times (its document's share of the best document)², whatever its words. */
const ERROR_LINE_BASE = 0.6;
/** A line of a list (inList) scores this share: the item's own report outranks the line naming it. */
const LIST_SHARE = 0.7;
/** Lines after an error that explain it, shown with it at most. */
const DETAIL_LINES = 8;

/** One window of an answer: consecutive lines of one file around lines that match. */
export interface SearchWindow {
  /** The file, relative to `.agent/`. */
  rel: string;
  first: number;
  last: number;
  lines: { n: number; text: string }[];
  score: number;
  /** Query terms found in the window's matching lines. */
  terms: string[];
  /** Highest issue level of its matching lines (2 error, 1 warning). */
  level: 0 | 1 | 2;
  /** What the window lacks of its block (windowRest.ts); absent when it is complete. */
  rest?: WindowRest;
  /** The own report of an item a list line of the window names (`✕ name` → `● suite › name`; windowRest.ts reportOf); absent when none is found. */
  report?: WindowRest;
  /** The own reports of every item its list lines name (the first is `report`); absent when none is found. */
  named?: WindowRest[];
}

interface ReadLine {
  n: number;
  text: string;
  candidate: boolean;
  prior: number;
  /** The share of the best document's score its document has (0 for a neighbour's line). */
  docShare: number;
}

/** What a wanted chunk brings: its rank's share of the best chunk's, and its document's share of the best document's. */
interface Wanted {
  prior: number;
  docShare: number;
}

/** Reads `len` bytes at `at` of an open file (fewer at its end). */
/**
 * The lines of a file's wanted chunks (each with its neighbours, for context), read now and
 * checked against the entry; undefined when the file is no longer what was indexed.
 */
function readChunks(abs: string, e: FileEntry, wanted: Map<number, Wanted>, mask: (t: string) => string): ReadLine[] | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    // Replaced or cut short since it was indexed: its chunks may lie anywhere now.
    if (!st.isFile() || st.ino !== e.ino || st.size < e.size) return undefined;
    const idx = new Set<number>();
    for (const i of wanted.keys()) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < chunkCount(e)) idx.add(j);
    const out: ReadLine[] = [];
    for (const i of [...idx].sort((a, b) => a - b)) {
      const c = chunkAt(e, i);
      const len = c.byteEnd - c.byteStart;
      const b = readAt(fd, c.byteStart, Math.min(len, 64 * 1024));
      if (b.length !== Math.min(len, 64 * 1024) || chunkHash(b, len) !== c.hash) {
        if (wanted.has(i)) return undefined;
        continue; // a neighbour changed: no context from it
      }
      const text = mask(chunkTextOf(b, 0, b.length));
      const lines = text.split('\n');
      if (lines.length > 0 && lines[lines.length - 1] === '' && text.endsWith('\n')) lines.pop();
      const w = wanted.get(i);
      lines.forEach((t, k) => out.push({ n: c.lineStart + k, text: t, candidate: w !== undefined, prior: w?.prior ?? 0, docShare: w?.docShare ?? 0 }));
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}

const indent = (s: string): number => s.length - s.trimStart().length;

/**
 * A stack frame of the runtime or of a library (`at … (node:internal/…)`, `at java.base/…`, `at …
 * node_modules/…`): the frames above it, in the program's own code, say where; the window ends there.
 */
const RUNTIME_FRAME_RE = /^\s*at (?:.*\()?(?:node:|internal\/|java\.|jdk\.|sun\.|.*node_modules\/)/;
/** A passing test's line (`✓ name`, `ok`, go's `--- PASS`): it never explains a failure above it, so an error's window ends before it. */
const PASSED_RE = /^\s*(?:[✓✔√] |ok\b|PASS\b|--- PASS)/;

/**
 * The line a runtime prints where it takes over from a crashing program (Node's `node:internal/…:391`
 * site of an unhandled rejection, Python's `Traceback (most recent call last):`): it says nothing of
 * what the program was doing, the program's own last line above it does.
 */
const CRASH_START_RE = /^(?:node:internal\/\S+:\d+|Traceback \(most recent call last\):)\s*$/;

/** Index of the first line of the window around line k (CONTEXT_LINES before it, where they are consecutive; one more above a crash's start). */
function lowerK(lines: readonly ReadLine[], k: number): number {
  let j = k;
  while (j > 0 && k - j < CONTEXT_LINES && lines[j - 1].n === lines[j].n - 1) j--;
  if (j > 0 && j < k && CRASH_START_RE.test(lines[j].text) && lines[j - 1].n === lines[j].n - 1) j--;
  return j;
}

/** Index of the last line of the window around line k: CONTEXT_LINES after it, and after an error the lines that explain it. */
function upperK(lines: readonly ReadLine[], k: number, level: number): number {
  let j = k;
  // Context stops before another report's header: it belongs to the next test.
  while (j + 1 < lines.length && j - k < CONTEXT_LINES && lines[j + 1].n === lines[j].n + 1 && !REPORT_HEADER_RE.test(lines[j + 1].text)) j++;
  if (level < 2) return j;
  const base = indent(lines[k].text);
  const detail = (t: string): boolean => !!t.trim() && (indent(t) > base || DETAIL_RE.test(t));
  while (j + 1 < lines.length && j + 1 - k <= DETAIL_LINES && lines[j + 1].n === lines[j].n + 1) {
    const t = lines[j + 1].text;
    if (!detail(t) || RUNTIME_FRAME_RE.test(t) || PASSED_RE.test(t)) break;
    j++;
  }
  return j;
}

/** Consecutive lines sharing a prefix from which it is a logger's label (`npm error `, `npm error gyp ERR! `), not the line's own words. */
const LABEL_RUN = 8;

/** The words (up to and with a space) two lines start with alike. */
function sharedWords(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const cut = a.lastIndexOf(' ', i - 1);
  return cut < 0 ? '' : a.slice(0, cut + 1);
}

/**
 * How line k reads (issueLevel) without a label it shares with a run of at least LABEL_RUN lines
 * around it, when that label holds the error word: npm prefixes `npm error ` to every line of a failed
 * install's log (48 of 48 lines of bench/corpus/npm-install-build-failure.log), its own notes and
 * node-gyp's verbose trace (`npm error gyp verb cli …`) alike, so the word says nothing of any one
 * line; the rest of the line does (`npm error gyp ERR! configure error`). The longest label shared with
 * a neighbour is tried first, then shorter ones, word by word. Indented lines keep their level (a list
 * of failing tests `    ✕ name` is not a label's run).
 */
function levelOf(lines: readonly ReadLine[], k: number): 0 | 1 | 2 {
  const text = lines[k].text;
  const level = issueLevel(text);
  if (level === 0 || !/^\S/.test(text)) return level;
  const consecutive = (j: number): boolean => j >= 0 && j + 1 < lines.length && lines[j + 1].n === lines[j].n + 1;
  let label = '';
  if (consecutive(k)) label = sharedWords(text, lines[k + 1].text);
  if (consecutive(k - 1)) {
    const up = sharedWords(text, lines[k - 1].text);
    if (up.length > label.length) label = up;
  }
  while (label) {
    if (issueLevel(label) < 2) return level;
    // The run is only walked as far as LABEL_RUN lines: a long log's every line has the label.
    let a = k;
    let b = k;
    while (b - a + 1 < LABEL_RUN && consecutive(a - 1) && lines[a - 1].text.startsWith(label)) a--;
    while (b - a + 1 < LABEL_RUN && consecutive(b) && lines[b + 1].text.startsWith(label)) b++;
    if (b - a + 1 >= LABEL_RUN) return issueLevel(text.slice(label.length));
    label = label.slice(0, label.lastIndexOf(' ', label.length - 2) + 1);
  }
  return level;
}

/** A list item's marker: a test runner's `✓`/`✕`/`×`, a bullet, mocha's `3)`, a numbered `3.`. */
const ITEM_MARK_RE = /^\s*(?:[✓✔√✕✗✘✖×•*-]|\d{1,4}[.)])\s/;

/**
 * Whether line k is an item of a list: a test runner's progress (`✓ keeps digits`), its summary
 * (`FAILED tests/test_cart.py::…`), a help page's table of commands; both its neighbours are lines at
 * its indentation, or, for the first or last item of a marked list (`✔ keeps order` above `1) never
 * goes below zero`), one neighbour at its indentation is marked as it is. A list names an item; the
 * same name heading the item's own report (its failure, set off by blank or deeper lines) is the
 * better answer, so a list line scores LIST_SHARE.
 */
function inList(lines: readonly ReadLine[], k: number): boolean {
  const at = indent(lines[k].text);
  const same = (j: number): boolean => j >= 0 && j < lines.length && Math.abs(lines[j].n - lines[k].n) === 1 && lines[j].text.trim() !== '' && indent(lines[j].text) === at;
  if (same(k - 1) && same(k + 1)) return true;
  const marked = (j: number): boolean => same(j) && ITEM_MARK_RE.test(lines[j].text);
  return ITEM_MARK_RE.test(lines[k].text) && (marked(k - 1) || marked(k + 1));
}

/**
 * Ranks the lines of the ranking's chunks for the query terms and returns windows, best first, and
 * the files that changed since they were indexed (none of their lines is in the windows).
 */
export function rankWindows(
  agentPath: (rel: string) => string,
  entryOf: (rel: string) => FileEntry | undefined,
  ranking: ChunkRanking,
  terms: readonly string[],
  mask: (text: string) => string,
  forFailure: boolean,
): { windows: SearchWindow[]; stale: string[] } {
  const stale: string[] = [];
  const chunks = ranking.chunks;
  const topChunk = chunks[0]?.score || 1;
  const topDoc = ranking.docs[0]?.score || 1;
  const docShare = new Map(ranking.docs.map((d) => [d.doc, d.score / topDoc]));
  const byFile = new Map<string, Map<number, Wanted>>();
  for (const c of chunks) {
    let m = byFile.get(c.rel);
    if (!m) byFile.set(c.rel, (m = new Map()));
    m.set(c.i, { prior: c.score / topChunk, docShare: docShare.get(c.doc) ?? 0 });
  }
  const fileLines = new Map<string, ReadLine[]>();
  const docs: { id: number; t: string }[] = [];
  const at: { rel: string; k: number }[] = [];
  for (const [rel, wanted] of byFile) {
    const e = entryOf(rel);
    const lines = e ? readChunks(agentPath(rel), e, wanted, mask) : undefined;
    if (!lines) {
      stale.push(rel);
      continue;
    }
    fileLines.set(rel, lines);
    lines.forEach((l, k) => {
      if (!l.candidate || !l.text.trim()) return;
      docs.push({ id: at.length, t: l.text.length > 4096 ? l.text.slice(0, 4096) : l.text });
      at.push({ rel, k });
    });
  }
  if (docs.length === 0) return { windows: [], stale };
  const levels = at.map(({ rel, k }) => levelOf(fileLines.get(rel)!, k));
  const results = scoreLines(
    docs.map((d) => d.t),
    terms,
    (id) => {
      const l = fileLines.get(at[id].rel)![at[id].k];
      return LEVEL_BOOST[levels[id]] * (1 + CHUNK_PRIOR * l.prior) * (1 + DOC_PRIOR * l.docShare);
    },
  );
  const scored = new Map<number, { score: number; terms: string[]; list?: boolean }>();
  for (const r of results) {
    const { rel, k } = at[r.id as number];
    const list = inList(fileLines.get(rel)!, k);
    scored.set(r.id as number, { score: r.score * (list ? LIST_SHARE : 1), terms: terms.filter((t) => r.queryTerms.includes(t)), list });
  }
  if (forFailure && results.length > 0) {
    // The error lines of the best documents answer a "why did it fail" even without the question's words.
    const top = results[0].score;
    at.forEach(({ rel, k }, id) => {
      if (levels[id] < 2) return;
      const base = ERROR_LINE_BASE * top * fileLines.get(rel)![k].docShare ** 2;
      const had = scored.get(id);
      if (!had) scored.set(id, { score: base, terms: [] });
      else had.score += base;
    });
  }
  const order = [...scored].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]);
  // Grow windows around the best lines: a line near a window joins it (up to MAX_WINDOW_LINES). A
  // window scores as its best line, and more for each query term its other lines add: a run of lines
  // that repeat one weak word must not outrank one line with every word.
  const windows: (SearchWindow & { k0: number; k1: number; best: number; km: number; listed: number[] })[] = [];
  for (const [id, r] of order) {
    const { rel, k } = at[id];
    const lines = fileLines.get(rel)!;
    const n = lines[k].n;
    const lvl = levels[id];
    const k0 = lowerK(lines, k);
    const k1 = upperK(lines, k, lvl);
    // Only a line that matters joins a window: a weak match beside a strong one would stretch it with lines that do not answer.
    // A report's header below a window starts another test's report: it never joins the window above it.
    const header = REPORT_HEADER_RE.test(lines[k].text);
    const near = windows.find((w) => w.rel === rel && n >= w.first - JOIN_GAP && n <= w.last + JOIN_GAP && (r.score >= JOIN_SHARE * w.best || (n >= w.first && n <= w.last)) && !(header && n > w.first));
    if (near) {
      const a = Math.min(near.k0, k0);
      const b = Math.max(near.k1, k1);
      if (lines[b].n - lines[a].n + 1 > MAX_WINDOW_LINES) {
        // Too long to grow: shown only if inside the window already; otherwise its own window below.
        if (n >= near.first && n <= near.last) continue;
      } else {
        for (const t of r.terms) if (!near.terms.includes(t)) near.terms.push(t);
        near.level = Math.max(near.level, lvl) as 0 | 1 | 2;
        near.k0 = a;
        near.k1 = b;
        near.km = Math.max(near.km, k);
        if (r.list) near.listed.push(k);
        near.first = lines[a].n;
        near.last = lines[b].n;
        continue;
      }
    }
    windows.push({ rel, first: lines[k0].n, last: lines[k1].n, lines: [], score: r.score, best: r.score, terms: [...r.terms], level: lvl, k0, k1, km: k, listed: r.list ? [k] : [] });
  }
  for (const w of windows) {
    const lines = fileLines.get(w.rel)!;
    w.lines = lines.slice(w.k0, w.k1 + 1).map((l) => ({ n: l.n, text: l.text }));
    const rest = windowRest(lines, w.k0, w.k1, w.km);
    if (rest) w.rest = rest;
    const named: WindowRest[] = [];
    for (const k of w.listed) {
      const r = reportOf(lines, k, w.k0, w.k1);
      if (r && !named.some((n) => n.first === r.first)) named.push(r);
    }
    if (named.length > 0) {
      w.report = named[0];
      w.named = named;
    }
    w.score = w.best * (1 + EXTRA_TERM_BONUS * Math.max(0, w.terms.length - 1));
  }
  windows.sort((a, b) => b.score - a.score);
  return { windows: windows.map(({ k0: _a, k1: _b, best: _c, km: _d, listed: _e, ...w }) => w), stale };
}
