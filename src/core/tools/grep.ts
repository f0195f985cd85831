import * as path from 'node:path';
import { cutToBytes } from '../output/reference';
import { countTokensAsync } from '../output/tokens';
import { compileQuery, grep, MAX_GREP_HITS, newGrepReport, type GrepHit, type GrepQuery, type GrepReport } from '../search/grepEngine';
import { CACHE_DIR } from '../workspace/cacheFiles';
import { excludeGlobsFor, gitignoreGlobsFor } from '../search/ignoreRules';
import { displayPath, resolveWorkspacePath } from '../workspace/workspacePaths';
import { newScratchFile, writeScratchText } from './scratchOutput';
import { secretRulesOf, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { maskSecrets } from '../secrets';
import { isInside, toPosixRelative } from '../workspace/relativePaths';
import { agentDirOf } from '../workspace/agentLayout';
import { groupDigits } from '../output/humanize';
import { agentPath } from '../workspace/layout';

/** Bytes of result lines returned inline before the rest goes to a scratch file. */
const INLINE_RESULT_BYTES = 4096;
const LINE_TEXT_MAX = 240;
/** Hard stop: a search matching more than this is cut (and says so). */
const MAX_COLLECT = MAX_GREP_HITS;

/** agentContext_grep: bounded `path:line: text` results; beyond the budget the full list goes to scratch. */
export async function grepTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const pattern = String(input.pattern ?? '');
  const literal = input.literal === true;
  const caseSensitive = input.caseSensitive === true;
  const regex = compileQuery(pattern, literal, caseSensitive);
  if (typeof regex === 'string') {
    return toolError(`invalid regular expression /${pattern}/: ${regex}. The pattern uses JavaScript regex syntax; escape special characters or pass literal: true.`);
  }
  const r = await resolveWorkspacePath(ctx.folders, input.path as string | undefined, { defaultTo: '.agent' });
  if (!r.ok) return toolError(`${r.error.file}: ${r.error.message}`);
  const where = r.value;
  if (!where.exists) {
    return toolError(input.path === undefined ? 'this workspace has no .agent/ folder yet; pass a path to search the workspace' : `${where.display}: no such file or folder`);
  }
  // .agent/ is searched whole: its .gitignore hides scratch and terminals from git, not from us.
  const inAgent = isInside(agentDirOf(where.folder.path), where.abs);
  const excludes = inAgent ? [] : excludeGlobsFor(where.folder.path, where.abs, ctx.filesExclude ?? []);
  // The ledger repeats every earlier tool result and grep's own overflow lists repeat earlier
  // matches: searching them would echo old answers back (and double the count on every call).
  excludes.push(...ownOutputExcludes(where.folder.path, where.abs));
  const q: GrepQuery = {
    pattern, literal, caseSensitive, regex, root: where.abs,
    include: typeof input.glob === 'string' && input.glob ? input.glob : undefined,
    exclude: excludes,
    useIgnoreFiles: !inAgent,
    ignoreGlobs: inAgent ? [] : await gitignoreGlobsFor(where.folder.path, where.abs),
    context: (input.context as number | undefined) ?? 0,
    signal: ctx.signal,
    timeoutMs: ctx.ripgrepTimeoutMs,
    report: newGrepReport(),
  };
  const report = q.report!;
  const maxResults = (input.maxResults as number | undefined) ?? ctx.config.grepMaxResults;
  const hits: GrepHit[] = [];
  let cut = false;
  try {
    for await (const h of grep(q, ctx.ripgrep)) {
      hits.push(h);
      if (hits.length >= MAX_COLLECT) {
        cut = true;
        break;
      }
    }
  } catch (e) {
    if (ctx.signal.aborted) return toolError('cancelled');
    return toolError(`search failed: ${(e as Error).message}`);
  }
  if (ctx.signal.aborted) return toolError('cancelled');
  const what = `/${pattern}/${caseSensitive ? '' : 'i'}${literal ? ' (literal)' : ''} in ${where.display}${q.include ? ` (${q.include})` : ''}`;
  const caveats = reportLines(report, (abs) => displayPath(ctx.folders, where.folder, abs));
  const withCaveats = (t: string): string => (caveats.length ? `${t}\n${caveats.join('\n')}` : t);
  if (hits.every((h) => h.context)) {
    // "No matches" only after a search that looked everywhere; otherwise say what was not searched.
    const none = report.incomplete ? `No matches found for ${what}, but the search did not complete.` : report.unreadableCount ? `No matches for ${what} in the files that could be read.` : `No matches for ${what}.`;
    return { text: withCaveats(none) };
  }
  // ripgrep searches in parallel and reports files in no fixed order: sort what is returned.
  hits.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const show = (abs: string): string => displayPath(ctx.folders, where.folder, abs);
  const files = new Set<string>();
  let matches = 0;
  const lines: string[] = [];
  const shown: string[] = [];
  let used = 0;
  let shownMatches = 0;
  let full = false;
  for (const h of hits) {
    if (!h.context) matches++;
    files.add(h.file);
    const text = h.text.length > LINE_TEXT_MAX ? h.text.slice(0, LINE_TEXT_MAX) + '…' : h.text;
    const l = `${show(h.file)}${h.context ? '-' : ':'}${h.line}${h.context ? '-' : ':'} ${text}`;
    lines.push(l);
    if (full) continue;
    const b = Buffer.byteLength(l, 'utf8') + 1;
    if (used + b > INLINE_RESULT_BYTES || shownMatches >= maxResults) {
      full = true;
      continue;
    }
    shown.push(l);
    used += b;
    if (!h.context) shownMatches++;
  }
  const summary = `${groupDigits(matches)} match${matches === 1 ? '' : 'es'} in ${files.size} file${files.size === 1 ? '' : 's'} for ${what}${cut ? ` (stopped after ${groupDigits(MAX_COLLECT)} lines; narrow the search)` : ''}`;
  if (shown.length === lines.length) return { text: withCaveats(`${summary}:\n${lines.join('\n')}`) };
  // The list is on disk and its lines go to the model: secrets of the files searched masked (a marker per secret, lines kept).
  const all = maskSecrets(lines.join('\n'), secretRulesOf(ctx)).text;
  // Over the budget: the full list goes to scratch, a bounded head and a reference come back.
  // The `.grep.txt` ending marks the tool's own lists, which later searches of a folder skip.
  const target = newScratchFile(ctx.folders, 'scratch/tool_outputs', `grep ${pattern}`, GREP_LIST_EXT);
  try {
    await writeScratchText(target, all + '\n');
  } catch (e) {
    // The matches are right; only the full list could not be kept (a full disk): say so, show the head.
    const text = [`${summary}; first ${shown.length} lines shown:`, ...shown, `The full list could not be saved: ${(e as Error).message}.`, ...caveats].join('\n');
    return { text: cutToBytes(text, 6 * 1024) };
  }
  const rawTokens = (await countTokensAsync(all)).tokens;
  const text = [
    `${summary}; first ${shown.length} lines shown:`,
    ...shown,
    `Full list: ${target.display} (${groupDigits(all.split('\n').length)} lines, ${groupDigits(Buffer.byteLength(all, 'utf8'))} bytes)`,
    `Next: read lines ${shown.length + 1}–${Math.min(lines.length, shown.length + 100)} of ${target.display}, or narrow with path/glob.`,
    ...caveats,
  ].join('\n');
  return { text: cutToBytes(text, 6 * 1024), outputPath: target.display, rawTokens };
}

/** The lines that tell the agent what the search could not do: engine fallback, unreadable files, an incomplete search. */
function reportLines(r: GrepReport, show: (abs: string) => string): string[] {
  const out: string[] = [];
  if (r.incomplete) out.push(`Incomplete: ${r.incomplete}.`);
  if (r.fallback) out.push(`Note: ${r.fallback}.`);
  if (r.unreadableCount) {
    const named = r.unreadable.slice(0, 5).map((u) => `${show(u.path)} (${u.reason})`).join(', ');
    const more = r.unreadableCount - Math.min(5, r.unreadable.length);
    out.push(`Not searched: ${r.unreadableCount} file${r.unreadableCount === 1 ? '' : 's'} or folder${r.unreadableCount === 1 ? '' : 's'} could not be read: ${named}${more > 0 ? `, and ${more} more` : ''}.`);
  }
  return out;
}

/** Ending of grep's own overflow lists in scratch/tool_outputs/ (never produced by slugs of other tools). */
export const GREP_LIST_EXT = '.grep.txt';

/** Globs (relative to the search root) of what the tools wrote themselves: the ledger, grep's lists, summaries. */
function ownOutputExcludes(folderRoot: string, root: string): string[] {
  const agentDir = agentDirOf(folderRoot);
  const under = (dir: string, glob: string): string[] => {
    if (dir === root) return [glob];
    return isInside(root, dir) ? [`${toPosixRelative(root, dir)}/${glob}`] : [];
  };
  const history = agentPath(agentDir, 'history');
  return [
    ...under(history, 'tools.jsonl'),
    ...under(history, 'tools-*.jsonl'),
    ...under(agentPath(agentDir, 'toolOutputs'), `*${GREP_LIST_EXT}`),
    ...under(path.join(agentDir, CACHE_DIR), '**'),
  ];
}
