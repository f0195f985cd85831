import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirp } from '../fsAtomic';
import { cutToBytes } from '../reference';
import { countTokens } from '../tokens';
import { compileQuery, grep, type GrepQuery } from '../search/grepEngine';
import { excludeGlobsFor, gitignoreGlobsFor } from '../search/ignoreRules';
import { displayPath, isInsidePath, resolveWorkspacePath } from '../workspacePaths';
import { newScratchFile } from './scratchOutput';
import { toolError, type ToolContext, type ToolOutcome } from './toolContext';

/** Bytes of result lines returned inline before the rest goes to a scratch file. */
const INLINE_RESULT_BYTES = 4096;
const LINE_TEXT_MAX = 240;
/** Hard stop: a search matching more than this is cut (and says so). */
const MAX_COLLECT = 200_000;

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
  const inAgent = isInsidePath(path.join(where.folder.path, '.agent'), where.abs);
  const excludes = inAgent ? [] : excludeGlobsFor(where.folder.path, where.abs, ctx.filesExclude ?? []);
  // The ledger repeats every earlier tool result: searching it would echo old answers back.
  excludes.push(...ledgerExclude(where.folder.path, where.abs));
  const q: GrepQuery = {
    pattern, literal, caseSensitive, regex, root: where.abs,
    include: typeof input.glob === 'string' && input.glob ? input.glob : undefined,
    exclude: excludes,
    useIgnoreFiles: !inAgent,
    ignoreGlobs: inAgent ? [] : await gitignoreGlobsFor(where.folder.path, where.abs),
    context: (input.context as number | undefined) ?? 0,
    signal: ctx.signal,
  };
  const maxResults = (input.maxResults as number | undefined) ?? ctx.config.grepMaxResults;
  const lines: string[] = [];
  const files = new Set<string>();
  let matches = 0;
  let cut = false;
  const show = (abs: string): string => displayPath(ctx.folders, where.folder, abs);
  try {
    for await (const h of grep(q, ctx.ripgrep)) {
      if (!h.context) matches++;
      files.add(h.file);
      const text = h.text.length > LINE_TEXT_MAX ? h.text.slice(0, LINE_TEXT_MAX) + '…' : h.text;
      lines.push(`${show(h.file)}${h.context ? '-' : ':'}${h.line}${h.context ? '-' : ':'} ${text}`);
      if (lines.length >= MAX_COLLECT) {
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
  if (matches === 0) return { text: `No matches for ${what}.` };
  const summary = `${matches.toLocaleString('en-US')} match${matches === 1 ? '' : 'es'} in ${files.size} file${files.size === 1 ? '' : 's'} for ${what}${cut ? ` (stopped after ${MAX_COLLECT.toLocaleString('en-US')} lines; narrow the search)` : ''}`;
  const all = lines.join('\n');
  const shown: string[] = [];
  let used = 0;
  let shownMatches = 0;
  for (const l of lines) {
    const b = Buffer.byteLength(l, 'utf8') + 1;
    if (used + b > INLINE_RESULT_BYTES || shownMatches >= maxResults) break;
    shown.push(l);
    used += b;
    if (/^.*?:\d+: /.test(l)) shownMatches++;
  }
  if (shown.length === lines.length) return { text: `${summary}:\n${all}` };
  // Over the budget: the full list goes to scratch, a bounded head and a reference come back.
  const target = newScratchFile(ctx.folders, 'scratch/tool_outputs', `grep ${pattern}`, '.txt');
  await mkdirp(path.dirname(target.abs));
  await fs.promises.writeFile(target.abs, all + '\n', { flag: 'wx' });
  const rawTokens = countTokens(all).tokens;
  const text = [
    `${summary}; first ${shown.length} lines shown:`,
    ...shown,
    `Full list: ${target.display} (${lines.length.toLocaleString('en-US')} lines, ${Buffer.byteLength(all, 'utf8').toLocaleString('en-US')} bytes)`,
    `Next: read lines ${shown.length + 1}–${Math.min(lines.length, shown.length + 100)} of ${target.display}, or narrow with path/glob.`,
  ].join('\n');
  return { text: cutToBytes(text, 6 * 1024), outputPath: target.display, rawTokens };
}

function ledgerExclude(folderRoot: string, root: string): string[] {
  const ledger = path.join(folderRoot, '.agent', 'history', 'tools.jsonl');
  return isInsidePath(root, ledger) && ledger !== root ? [path.relative(root, ledger).split(path.sep).join('/')] : [];
}
