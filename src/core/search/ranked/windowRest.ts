/*
 * Is a window of an answer complete, and if not, which lines does it lack? Decided from the output's
 * own structure around the window, never from what the question wanted: a window is complete when
 * it runs from its block's first line to the block's natural end (a blank line before a line at the
 * block's indentation, the next block's header, the end of a terminal command, the end of the file).
 * It lacks lines when its last line opens a block (a test's failure header, a traceback's first
 * line, a diff's file header) or its lines go on past its last line (an indented stack, a compiler's
 * detail lines), or it starts inside an indented block whose header is above it. The read an answer
 * proposes covers exactly that missing part, at most REST_MAX_LINES on each side.
 */
import { issueLevel } from '../../output/reference';

/** Lines a proposed read adds on each side of a window at most. */
export const REST_MAX_LINES = 30;

/** The part of a file a window lacks: lines `first`–`last`, and why. */
export interface WindowRest {
  first: number;
  last: number;
  /** Which side: the block goes on below the window, starts above it, or both; or elsewhere: the report of the item the window's list line names (reportOf). */
  side: 'after' | 'before' | 'both' | 'report';
}

interface Line {
  n: number;
  text: string;
}

const indent = (s: string): number => s.length - s.trimStart().length;
const blank = (s: string): boolean => s.trim() === '';
/** A terminal capture's command start or end (core/terminal/terminalFormat.ts formatCommandHeader/Footer): no block crosses it. */
const COMMAND_MARK_RE = /^(?:>>>|<<<) command \d+/;
/**
 * A line that opens a block whose body follows it: a test runner's failure header (jest's `●`,
 * pytest's `____ test ____`, go's `--- FAIL`, mocha's `1) name:`), a traceback's first line (and
 * Python's line joining two), a diff's file or hunk header, a line ending in a colon.
 */
const OPENER_RE = /^\s*(?:● |_{3,} .* _{3,}$|--- FAIL|\d{1,4}\) .*:$|Traceback \(most recent call last\):|The above exception was|During handling of the above exception|diff --git |@@ )|:\s*$/;
/**
 * A line that carries on the diagnostic above it: indented deeper, or a compiler's, test runner's or
 * runtime's detail line (a code frame's numbered line: rustc's and jest's `12 |`, tsc --pretty's `6   return …`).
 */
export const DETAIL_RE = /^\s*(?:\||-->|::: |= |\^|~|at |\.\.\. \d+ more|Caused by|E {2,}|[+-] |\d+ +\||\d+ {2,}\S|> +\d+ \||help:|note:|symbol:|location:|Expected|Received|left:|right:)/;

/** A step announced before its detail lines, indented under it (`  Applying 0009_orders_owner...`, `Compiling foo …`): the header of the indented block below it. */
const STEP_RE = /(?:\.\.\.|…)\s*$/;

/** A section rule alone on its line or around a title (pytest's `==== FAILURES ====`): a block ends before it. */
const RULE_RE = /^\s*([=_*-])\1{2,}(?:.*\1{3})?\s*$/;

/** Whether line `t` belongs to the body of a block opened by a header indented `opened` (its first line always does). */
const bodyOf = (t: string, opened: number, first: boolean): boolean => !RULE_RE.test(t) && (first || indent(t) > opened || (indent(t) === opened && !OPENER_RE.test(t)));
/** A line joining two blocks (Python's chained tracebacks): the block above it ends on the line before. */
const JOINER_RE = /^\s*(?:The above exception was|During handling of the above exception)/;
/** A summary that counts errors reported before it (`could not compile … due to 1 previous error`, clang's `2 errors generated.`). */
const SUMMARY_RE = /\bprevious errors?\b|\b\d+ errors? generated\b/;

/** A stack frame (`at …`, a Rust backtrace's `  3: name`): the frames below the first ones shown are its callers, not missing. */
const FRAME_RE = /^\s*(?:at |\d+: \S)/;

/**
 * The last line of the block that goes on from line `from` (the window's last matching line, or its
 * opening header): up to the block's end, at most REST_MAX_LINES past `k1`; undefined when the block
 * ends inside the window (at or before `k1`). `goesOn` tells a line of the block's body.
 */
function blockEnd(lines: readonly Line[], from: number, k1: number, goesOn: (t: string, first: boolean) => boolean): number | undefined {
  let end = from;
  for (let j = from + 1; j < lines.length && lines[j].n === lines[j - 1].n + 1 && lines[j].n - lines[k1].n <= REST_MAX_LINES; j++) {
    const t = lines[j].text;
    if (COMMAND_MARK_RE.test(t)) break;
    if (blank(t)) {
      // A blank line inside a block: the block goes on only if a line of its body follows.
      const next = lines[j + 1];
      if (next?.n === lines[j].n + 1 && !blank(next.text) && !COMMAND_MARK_RE.test(next.text) && goesOn(next.text, end === from)) continue;
      break;
    }
    if (!goesOn(t, end === from)) break;
    end = j;
  }
  return end > k1 ? end : undefined;
}

/**
 * The lines before a window that its block holds (indexes `from`–`to`): when the window's first line
 * is indented under a header that opens a block (OPENER_RE) above it, that header and what lies
 * between; when the window holds a summary of errors reported before it, the last of those errors
 * with its detail lines (not the warnings printed between it and the summary); none otherwise, or
 * when no such header or error is within REST_MAX_LINES.
 */
function restBefore(lines: readonly Line[], k0: number, k1: number): { from: number; to: number } | undefined {
  let f = k0;
  while (f < k1 && blank(lines[f].text)) f++;
  const own = indent(lines[f].text);
  const consecutive = (j: number): boolean => j >= 0 && lines[j].n === lines[j + 1].n - 1 && lines[k0].n - lines[j].n <= REST_MAX_LINES;
  if (JOINER_RE.test(lines[f].text)) {
    // The block above ends on its last line: that line (an exception's message) is what the window lacks.
    for (let j = k0 - 1; consecutive(j); j--) if (!blank(lines[j].text)) return { from: j, to: k0 - 1 };
    return undefined;
  }
  for (let k = f; k <= k1; k++) {
    if (!SUMMARY_RE.test(lines[k].text)) continue;
    // A summary of errors reported before it: the last error line above the window (under its own header, if any), and its detail.
    for (let j = k0 - 1; consecutive(j); j--) {
      if (issueLevel(lines[j].text) !== 2) continue;
      const at = indent(lines[j].text);
      const end = blockEnd(lines, j, j, (t) => indent(t) > at || DETAIL_RE.test(t)) ?? j;
      return { from: restBefore(lines, j, j)?.from ?? j, to: Math.min(end, k0 - 1) };
    }
  }
  if (OPENER_RE.test(lines[f].text)) return undefined;
  for (let j = k0 - 1; consecutive(j); j--) {
    const t = lines[j].text;
    if (COMMAND_MARK_RE.test(t) || RULE_RE.test(t)) return undefined;
    if (blank(t)) continue;
    if (indent(t) < own) return OPENER_RE.test(t) || STEP_RE.test(t) ? { from: j, to: k0 - 1 } : undefined;
  }
  return undefined;
}

/**
 * What the window `lines[k0..k1]` lacks of its block (see the file's comment), as file lines, or
 * undefined when it is complete. `km` is the window's last matching line (the lines after it are
 * context); `lines` are runs of a file's consecutive lines (a gap ends a block).
 */
export function windowRest(lines: readonly Line[], k0: number, k1: number, km = k1): WindowRest | undefined {
  let base = Infinity;
  let frames = false;
  for (let k = k0; k <= k1; k++) {
    if (blank(lines[k].text)) continue;
    base = Math.min(base, indent(lines[k].text));
    frames ||= FRAME_RE.test(lines[k].text);
  }
  if (base === Infinity) return undefined;
  // A header from the last matching line on whose body fills the rest of the window: the block it opens may go on.
  let opener: number | undefined;
  for (let k = k1; k >= km && opener === undefined; k--) if (OPENER_RE.test(lines[k].text)) opener = k;
  let after: number | undefined;
  if (opener !== undefined) {
    const at = indent(lines[opener].text);
    after = blockEnd(lines, opener, k1, (t, first) => bodyOf(t, at, first));
  } else {
    after = blockEnd(lines, km, k1, (t) => (indent(t) > base || DETAIL_RE.test(t)) && !(frames && FRAME_RE.test(t)));
  }
  const before = restBefore(lines, k0, k1);
  if (after === undefined && before === undefined) return undefined;
  const side = after !== undefined && before !== undefined ? 'both' : after !== undefined ? 'after' : 'before';
  return { first: lines[before?.from ?? k1 + 1].n, last: lines[after ?? before!.to].n, side };
}

/**
 * The header of one test's own failure report: jest's `● suite › name`, pytest's `____ name ____`, go's
 * `--- FAIL: name`, mocha's `1) suite`, cargo's `---- name stdout ----`.
 */
export const REPORT_HEADER_RE = /^\s*(?:● |_{3,} .* _{3,}$|--- FAIL|\d{1,4}\) |-{4} .+ -{4}$)/;
/** pytest's line between two frames of a long traceback (`_ _ _ _ …`). */
const FRAME_SEPARATOR_RE = /^(?:_ ){5,}_?\s*$/;
/** Words that state an item's status or where its output went, not its name. */
const STATUS_WORDS = new Set(['fail', 'failed', 'failing', 'failure', 'error', 'errors', 'ok', 'pass', 'passed', 'stdout', 'stderr']);
/** A duration in parentheses (`(3 ms)`, `(0.41s)`): a run's time, not part of a name. */
const DURATION_RE = /\(\s*[\d.]+\s*(?:ms|s|sec)?\s*\)/g;
/** An item's name as words: lower-cased letters and digits, without status words, numbers and durations. */
function nameWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.replace(DURATION_RE, ' ').toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) if (!/^\p{N}/u.test(m[0]) && !STATUS_WORDS.has(m[0])) out.add(m[0]);
  return out;
}
const within = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size >= 2 && [...a].every((w) => b.has(w));
/** Snake-case names (`test_save_order`, `fee_at_threshold`): one such name in both lines names one item, whatever words surround it. */
const identsOf = (text: string): string[] => [...text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:_[\p{L}\p{N}]+)+/gu)].map((m) => m[0]);

/**
 * The report of the item that list line `k` names (a test's progress line `✕ drops accents`, a
 * summary's `FAILED tests/test_cart.py::test_total`), when a report header elsewhere in `lines`
 * (outside the window k0–k1) names the same item: its header's name and the line's are one within
 * the other (a header may name the suite and the test on two lines, mocha's `1) suite` then `name:`).
 * The report runs from its header to the next report header or section rule at its indentation or
 * less, or the first line indented less than the header after a blank line, at most REST_MAX_LINES
 * past the header; the nearest such report to the window; of a report of several frames, only the
 * last frame, where it raised. Undefined when there is none.
 */
export function reportOf(lines: readonly Line[], k: number, k0: number, k1: number): WindowRest | undefined {
  const item = nameWords(lines[k].text);
  const named = identsOf(lines[k].text);
  if (item.size < 2) return undefined;
  let best: { j: number; d: number } | undefined;
  for (let j = 0; j < lines.length; j++) {
    if (j >= k0 && j <= k1) continue;
    const t = lines[j].text;
    if (!REPORT_HEADER_RE.test(t)) continue;
    const head = nameWords(t);
    const next = lines[j + 1];
    const two = next && next.n === lines[j].n + 1 && indent(next.text) > indent(t) ? new Set([...head, ...nameWords(next.text)]) : head;
    if (!(within(head, item) || within(item, head) || within(item, two) || identsOf(t).some((id) => named.includes(id)))) continue;
    const d = Math.abs(j - k);
    if (!best || d < best.d) best = { j, d };
  }
  if (!best) return undefined;
  const j = best.j;
  const at = indent(lines[j].text);
  let end = j;
  for (let i = j + 1; i < lines.length && lines[i].n === lines[i - 1].n + 1 && lines[i].n - lines[j].n <= REST_MAX_LINES; i++) {
    const t = lines[i].text;
    if (COMMAND_MARK_RE.test(t) || (indent(t) <= at && (REPORT_HEADER_RE.test(t) || RULE_RE.test(t)))) break;
    if (!blank(t) && indent(t) < at && blank(lines[i - 1].text)) break;
    if (!blank(t)) end = i;
  }
  // A report of several frames (pytest's long traceback, frames apart by `_ _ _ …` lines) raised in its last one: the frames
  // above it are its callers, the test's own among them, and the header names the test as the list line does.
  let from = j;
  for (let i = j + 1; i < end; i++) if (FRAME_SEPARATOR_RE.test(lines[i].text)) from = i + 1;
  return { first: lines[from].n, last: lines[end].n, side: 'report' };
}
