import * as fs from 'node:fs';
import * as path from 'node:path';
import { fenceData } from '../output/fence';
import { formatBytes, groupDigits } from '../output/humanize';
import { displayLine, issueLevel } from '../output/reference';
import { countTokensAsync } from '../output/tokens';
import { TOOL_ANSWER_MAX_BYTES } from '../output/inline';
import type { SearchWindow } from '../search/ranked/lineRanking';
import type { WindowRest } from '../search/ranked/windowRest';
import { searchFolder } from '../search/ranked/searchService';
import { SEARCH_SCOPES, type SearchScope } from '../search/ranked/sources';
import { searchedByPrefix, termsOf, termWords } from '../search/ranked/terms';
import { agentDirOf } from '../workspace/agentLayout';
import { defaultFolder, displayPath } from '../workspace/workspacePaths';
import { newScratchFile, writeScratchText } from './scratchOutput';
import { toolError, type ToolContext, type ToolOutcome } from './toolContext';

/** Tokens of windows returned when the call names no budget; also the most (the answer stays under TOOL_ANSWER_MAX_BYTES). */
export const DEFAULT_SEARCH_TOKENS = 1500;
const MIN_SEARCH_TOKENS = 100;
/**
 * Windows shown besides the best one: no more than MAX_SHOWN in all, only of the best window's file
 * (a question is about one output: its failure report beside the summary line that names it), and
 * only those scoring at least SAME_FILE_RATIO of the best; the rest, other files' windows among them,
 * are counted and listed. Every line an agent loads and does not need costs it (bench row 23,
 * retrieval precision: another file's window, shown from 90% of the best's score, answered none of its
 * 46 questions, and cost two of them most of their precision).
 */
export const SAME_FILE_RATIO = 0.4;
export const MAX_SHOWN = 2;
/** A question asking for a cause: a list line naming the failed item does not answer it, the item's own report does. */
const WHY_RE = /\b(?:why|cause[sd]?|reason|wrong)\b/i;
/** A question naming which of repeated events it means: the first one, or the latest (`again`, `still`). */
const FIRST_RE = /\b(?:first|earliest|initially|originally)\b/i;
const LAST_RE = /\b(?:last|latest|again|still|finally)\b/i;
/** Why an answer proposes a read (windowRest.ts decides whether and which lines). */
const REST_WHY: Record<WindowRest['side'], string> = {
  after: 'it goes on past the window',
  before: 'its header is above the window',
  both: 'its header is above the window, and it goes on past it',
  report: 'the window names an item whose own report is there',
};

/** Longest line shown (bytes); the file has the rest. */
const LINE_BYTES = 300;
/** Room kept under TOOL_ANSWER_MAX_BYTES for the header, the fence and the lines after the windows. */
const FRAME_BYTES = 1200;
/** The overflow list of all windows: the ending grep's lists have too, so neither search nor grep finds its own earlier answers. */
export const SEARCH_LIST_EXT = '.search.txt';

/** One window as the answer shows it. */
function windowText(w: SearchWindow, show: (rel: string) => string, word: (term: string) => string): string {
  const why = [w.terms.map(word).join(', '), w.level === 2 ? 'error line' : w.level === 1 ? 'warning line' : ''].filter(Boolean).join(' · ');
  const head = `${show(w.rel)}:${w.first}-${w.last}${why ? ` (${why})` : ''}`;
  return [head, ...w.lines.map((l) => displayLine(l, LINE_BYTES))].join('\n');
}

/** A window as windowsToShow weighs it (tests give only what a rule needs). */
type ShowableWindow = Pick<SearchWindow, 'rel' | 'score'> & Partial<Pick<SearchWindow, 'first' | 'last' | 'report' | 'named' | 'lines' | 'terms' | 'level'>>;

const overlaps = (w: ShowableWindow, r: WindowRest): boolean => w.first !== undefined && w.last !== undefined && w.first <= r.last && w.last >= r.first;

/** Whether a line holds one of `terms` (or, for a term searched by prefix, a word it starts), as the ranking matches them. */
function holdsTerm(text: string, terms: readonly string[]): boolean {
  return termsOf(text).some((t) => terms.some((q) => t === q || (searchedByPrefix(q) && t.startsWith(q))));
}

/**
 * Whether window `w` only repeats lines already shown: every line of it that is not the same text as a
 * shown line (trimmed) holds neither an error nor a query term. A test runner's closing summary repeats
 * its failures word for word (node:test's `✖ failing tests:` list under the run: the same `✖ name`,
 * message and frames), and would be shown for the very lines that ranked the first window.
 */
function repeatsShown(w: ShowableWindow, shownText: ReadonlySet<string>): boolean {
  if (!w.lines) return false;
  return w.lines.every((l) => {
    const t = l.text.trim();
    return t === '' || shownText.has(t) || (issueLevel(l.text) < 2 && !holdsTerm(l.text, w.terms ?? []));
  });
}

/**
 * A share of the best window's score from which a window with the same query terms in the same file is
 * the same event repeated (a command run again): the first of migration 0009's three failures in row
 * 23's session scored 0.97 of the best of them among all of row 23's outputs, 0.89 in the session alone.
 */
const REPEAT_SHARE = 0.8;

/**
 * The windows with the one that answers a question naming an order (`the first time`, `again`,
 * `still`) first: among the best window and its repeats (the same file, the same query terms, at least
 * REPEAT_SHARE of its score), the earliest or the latest in the file. The others keep their order.
 */
export function leadByOrder<W extends ShowableWindow>(windows: readonly W[], order: 'first' | 'last'): W[] {
  const top = windows[0];
  if (!top || top.first === undefined || top.terms === undefined) return [...windows];
  const topTerms = top.terms;
  const same = (w: W): boolean => w.rel === top.rel && w.score >= REPEAT_SHARE * top.score && w.first !== undefined && w.terms !== undefined && w.terms.length === topTerms.length && w.terms.every((t) => topTerms.includes(t));
  let lead = 0;
  windows.forEach((w, i) => {
    if (i > 0 && same(w) && (order === 'first' ? w.first! < windows[lead].first! : w.first! > windows[lead].first!)) lead = i;
  });
  return [windows[lead], ...windows.filter((_, i) => i !== lead)];
}

/**
 * Which of the ranked windows an answer shows (their indexes): the best one, then up to MAX_SHOWN in
 * all of the best window's file within `budget` tokens and the answer's bytes, each scoring at least
 * SAME_FILE_RATIO of the best. For a question asking why (`asksWhy`), when the best window's list line
 * names an item (`✕ name`) and another of those windows quotes that item's own report, the report is
 * shown alone: it says what the list line says, and why; and when the best window quotes a report, a
 * window whose list line names that item is not shown beside it. Not asked why, a window inside the
 * report of an item the best window's list names is not shown: the list answers which, the report adds
 * a cause not asked for. A window beside the best one is a second candidate answer, and is not shown
 * when it is a weaker one: without an error line when the best window has one; holding half the best
 * window's query terms or fewer, unless it brings the error line the best window lacks while the best
 * window lacks some of the query's `queryTerms` terms; or only repeating lines shown (repeatsShown).
 * `sizes` covers the windows considered.
 */
export function windowsToShow(windows: readonly ShowableWindow[], sizes: readonly { tokens: number; bytes: number }[], budget: number, asksWhy = false, queryTerms = Infinity): number[] {
  const shown: number[] = [];
  if (windows.length === 0) return shown;
  const best = windows[0].score;
  const near = (i: number): boolean => windows[i].rel === windows[0].rel && windows[i].score >= SAME_FILE_RATIO * best;
  const report = asksWhy ? windows[0].report : undefined;
  const stand = report ? windows.findIndex((w, i) => i > 0 && i < sizes.length && near(i) && overlaps(w, report)) : -1;
  if (stand > 0) return [stand];
  const top = windows[0];
  // Asked why, a list line naming the item whose report the best window quotes adds nothing to it.
  const namesTop = (i: number): boolean => {
    const r = windows[i].report;
    return asksWhy && r !== undefined && overlaps(top, r);
  };
  // Asked which, not why: the best window's list names the items; their reports' lines are a cause not asked for.
  const inNamedReport = (i: number): boolean => !asksWhy && (top.named ?? []).some((r) => overlaps(windows[i], r));
  // A window beside the best one is a second candidate answer (weaker): shown only if it is as much of one.
  const weaker = (i: number): boolean => {
    const w = windows[i];
    const level = w.level ?? 0;
    const topLevel = top.level ?? 0;
    // The best window holds an error line: one without any ranks below it for its words alone.
    if (topLevel === 2 && level < 2) return true;
    if (w.terms === undefined || top.terms === undefined || 2 * w.terms.length > top.terms.length) return false;
    // Half the best window's terms or fewer: shown only for the error line the best window lacks, when the best window lacks some of the query's terms too.
    return !(level > topLevel && top.terms.length < queryTerms);
  };
  const shownText = new Set<string>();
  let tokens = 0;
  let bytes = 0;
  for (let i = 0; i < sizes.length && i < windows.length; i++) {
    if (i > 0 && shown.length >= MAX_SHOWN) break;
    if (i > 0 && (!near(i) || namesTop(i) || inNamedReport(i) || repeatsShown(windows[i], shownText) || weaker(i))) continue;
    if (i > 0 && (tokens + sizes[i].tokens > budget || bytes + sizes[i].bytes > TOOL_ANSWER_MAX_BYTES - FRAME_BYTES)) break;
    shown.push(i);
    for (const l of windows[i].lines ?? []) if (l.text.trim()) shownText.add(l.text.trim());
    tokens += sizes[i].tokens;
    bytes += sizes[i].bytes;
  }
  return shown;
}

/** agentContext_search: the line windows of `.agent/` that best answer a question or keywords, ranked. */
export async function searchTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const query = String(input.query ?? '').trim();
  const scope = input.scope as SearchScope | undefined;
  if (scope !== undefined && !SEARCH_SCOPES.includes(scope)) return toolError(`scope must be one of ${SEARCH_SCOPES.join(', ')}`);
  const budget = Math.max(MIN_SEARCH_TOKENS, Math.min(DEFAULT_SEARCH_TOKENS, (input.maxTokens as number | undefined) ?? DEFAULT_SEARCH_TOKENS));
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  if (!fs.existsSync(agentDir)) return toolError('this workspace has no .agent/ folder yet: nothing has been saved to search');
  const a = await searchFolder(agentDir, { query }, { roots: ctx.folders.map((f) => f.path), secretPatterns: ctx.secretPatterns, gitleaksConfig: ctx.gitleaksConfig });
  if (ctx.signal.aborted) return toolError('cancelled');
  if (a.error) return toolError(`search failed: ${a.error}`);
  const show = (rel: string): string => displayPath(ctx.folders, folder, path.join(agentDir, rel));
  const where = `.agent/${scope ? ` (${scope})` : ''}`;
  const notes: string[] = [];
  if (a.pending.files > 0) notes.push(`Not indexed yet: ${groupDigits(a.pending.files)} file${a.pending.files === 1 ? '' : 's'} (${formatBytes(a.pending.bytes)}), the oldest; indexing goes on, so ask again shortly, or use agentContext_grep for an exact string.`);
  for (const n of a.notes ?? []) notes.push(`Note: ${n}.`);
  if (a.unreadable.length > 0) notes.push(`Not searched: ${a.unreadable.slice(0, 3).map((u) => `${show(u.rel)} (${u.why})`).join(', ')}${a.unreadable.length > 3 ? `, and ${a.unreadable.length - 3} more` : ''}.`);
  const words = termWords(query);
  const word = (t: string): string => words.get(t) ?? t;
  const termList = a.terms.map(word).join(', ');
  if (a.terms.length === 0) return toolError('the query has no words to search for; give words or keywords (for a pattern, use agentContext_grep)');
  if (a.windows.length === 0) {
    return { text: [`No lines match ${JSON.stringify(query)} (terms: ${termList}) in ${where}: ${groupDigits(a.indexed.files)} files indexed.`, ...notes].join('\n') };
  }
  // Asked for the first or the latest of an event repeated, its window leads.
  const order = FIRST_RE.test(query) ? 'first' : LAST_RE.test(query) ? 'last' : undefined;
  if (order) a.windows = leadByOrder(a.windows, order);
  // The best windows within the budget, none far below the best; the rest counted and listed in a file.
  const texts = a.windows.map((w) => windowText(w, show, word));
  const counts = await Promise.all(texts.slice(0, 30).map((t) => countTokensAsync(t)));
  const sizes = counts.map((c, i) => ({ tokens: c.tokens, bytes: Buffer.byteLength(texts[i], 'utf8') + 2 }));
  const asksWhy = WHY_RE.test(query);
  const shown = windowsToShow(a.windows, sizes, budget, asksWhy, a.terms.length);
  const tokens = shown.reduce((s, i) => s + sizes[i].tokens, 0);
  const total = a.windows.length;
  const lines = [`${groupDigits(total)} window${total === 1 ? '' : 's'} match ${JSON.stringify(query)} (terms: ${termList}) in ${where}; the best ${shown.length}, ≈${groupDigits(tokens)} tokens:`];
  lines.push(fenceData('Matches', shown.map((i) => texts[i]).join('\n\n')));
  // The first window shown leads (a report may stand in for the best window, windowsToShow). A question asking
  // why is answered by the report of the item the lead's list line names: that is the read proposed, unless a shown window quotes it.
  const top = a.windows[shown[0]];
  const report = asksWhy ? top.report : undefined;
  const quoted = report && shown.some((i) => a.windows[i].rel === top.rel && a.windows[i].first <= report.last && a.windows[i].last >= report.first);
  if (report && !quoted) lines.push(`Next: read lines ${report.first}–${report.last} of ${show(top.rel)} for the own report of the item the best window names (${REST_WHY.report}).`);
  else if (top.rest && !quoted) lines.push(`Next: read lines ${top.rest.first}–${top.rest.last} of ${show(top.rel)} for the rest of the best window's block (${REST_WHY[top.rest.side]}).`);
  else if (quoted) lines.push('The best window names an item whose own report is shown too.');
  else lines.push('The best window holds its whole block (it ends where the output\'s block ends): nothing around it is missing.');
  let outputPath: string | undefined;
  if (shown.length < total) {
    const rest = a.windows.filter((_, i) => !shown.includes(i));
    const files = new Set(rest.map((w) => w.rel)).size;
    const next = rest.slice(0, 3).map((w) => `${show(w.rel)}:${w.first}-${w.last}`).join(', ');
    try {
      const target = newScratchFile(ctx.folders, 'scratch/tool_outputs', `search ${query}`, SEARCH_LIST_EXT);
      await writeScratchText(target, a.windows.map((w) => windowText(w, show, word)).join('\n\n') + '\n');
      outputPath = target.display;
      lines.push(`${groupDigits(rest.length)} more window${rest.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'} (${next}${rest.length > 3 ? ', …' : ''}); all ${groupDigits(total)} in ${target.display}.`);
    } catch (e) {
      lines.push(`${groupDigits(rest.length)} more window${rest.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'} (${next}${rest.length > 3 ? ', …' : ''}); the full list could not be saved: ${(e as Error).message}.`);
    }
  }
  lines.push(...notes);
  return { text: lines.join('\n'), ...(outputPath ? { outputPath } : {}) };
}
