import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ALWAYS_IGNORED, excludeGlobsFor } from '../search/ignoreRules';
import { gitignoreFs, gitignoreTester } from '../search/gitignoreWalk';
import { RIPGREP_TIMEOUT_MS } from '../search/grepEngine';
import { streamLines } from '../search/shellSpawner';
import { searchDeps } from '../search/searchDeps';
import { displayPath, resolveWorkspacePath } from '../workspace/workspacePaths';
import { toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { isInside } from '../workspace/relativePaths';
import { agentDirOf } from '../workspace/agentLayout';
import { formatBytes, groupDigits, plural } from '../output/humanize';
import { yieldNow } from '../eventLoop';

const INLINE_BYTES = 4096;

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}


/** agentContext_glob: files matching a glob under a workspace path, newest first, bounded. */
export async function globTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  let pattern = String(input.pattern ?? '').trim();
  if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
    return toolError(`pattern "${pattern}" must be relative (no leading / or ..); use path to pick the folder`);
  }
  // `*.ts` finds TypeScript files at any depth, as agents expect.
  if (!pattern.includes('/')) pattern = `**/${pattern}`;
  const r = await resolveWorkspacePath(ctx.folders, input.path as string | undefined);
  if (!r.ok) return toolError(`${r.error.file}: ${r.error.message}`);
  const where = r.value;
  if (!where.exists) return toolError(`${where.display}: no such folder`);
  const inAgent = isInside(agentDirOf(where.folder.path), where.abs);
  const ignore = [...ALWAYS_IGNORED];
  if (!inAgent) {
    ignore.push(...excludeGlobsFor(where.folder.path, where.abs, ctx.filesExclude ?? []));
    if (!pattern.includes('node_modules')) ignore.push('**/node_modules/**');
  }
  // Only the matches are stat'ed (newest first needs every match's mtime): with ripgrep as its
  // output arrives, overlapping its walk; after the built-in walk in batches that let other work run.
  let entries: Found[];
  try {
    entries = (ctx.ripgrep && !inAgent ? await rgFiles(ctx.ripgrep, where.abs, where.folder.path, pattern, ignore, ctx.signal, ctx.ripgrepTimeoutMs ?? RIPGREP_TIMEOUT_MS) : undefined) ?? (await statAll(where.abs, await fastGlobFiles(where.abs, where.folder.path, pattern, ignore, inAgent)));
  } catch (e) {
    return toolError(`invalid glob "${input.pattern}": ${(e as Error).message}`);
  }
  if (ctx.signal.aborted) return toolError('cancelled');
  if (entries.length === 0) return { text: `No files match "${input.pattern}" in ${where.display === '.' ? 'the workspace folder' : where.display}.` };
  // Ties (files written in the same instant) by path: ripgrep's threads print in no fixed order.
  entries.sort((a, b) => (b.stats?.mtimeMs ?? 0) - (a.stats?.mtimeMs ?? 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const maxResults = (input.maxResults as number | undefined) ?? ctx.config.grepMaxResults;
  const now = (ctx.now?.() ?? new Date()).getTime();
  const out: string[] = [];
  let used = 0;
  for (const e of entries) {
    if (out.length >= maxResults) break;
    const line = `${displayPath(ctx.folders, where.folder, path.join(where.abs, e.path))} · ${formatBytes(e.stats?.size ?? 0)} · ${ago(now - (e.stats?.mtimeMs ?? now))}`;
    const b = Buffer.byteLength(line, 'utf8') + 1;
    if (used + b > INLINE_BYTES) break;
    out.push(line);
    used += b;
  }
  const more = entries.length - out.length;
  const head = `${plural(entries.length, 'file')} match ${input.pattern} in ${where.display}, newest first${more ? `; ${out.length} shown, ${groupDigits(more)} more (narrow the pattern or path)` : ''}:`;
  return { text: [head, ...out].join('\n') };
}

interface Found {
  path: string;
  stats?: fs.Stats;
}

/** Stats `rels` (relative to `root`) into `out`, leaving out what vanished or is a folder. */
function statInto(root: string, rels: readonly string[], out: Found[]): void {
  // lstatSync costs a fifth of the CPU of fs.promises.lstat and throws nothing for a missing file.
  for (const rel of rels) {
    const st = fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false });
    if (st && !st.isDirectory()) out.push({ path: rel, stats: st });
  }
}

async function statAll(root: string, rels: string[]): Promise<Found[]> {
  const out: Found[] = [];
  for (let i = 0; i < rels.length; i += 256) {
    // 256 at a time never blocks long.
    statInto(root, rels.slice(i, i + 256), out);
    if (i + 256 < rels.length) await yieldNow();
  }
  return out;
}

/**
 * Outside .agent/, every .gitignore on the way is honoured (nested ones too, such as
 * .agent/.gitignore), so ignored folders are never walked. Inside .agent/ everything is listed:
 * its .gitignore is for git.
 */
async function fastGlobFiles(root: string, folderRoot: string, pattern: string, ignore: string[], inAgent: boolean): Promise<string[]> {
  return searchDeps().fastGlob(pattern, {
    cwd: root, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true, ignore,
    ...(inAgent ? {} : { fs: gitignoreFs(folderRoot) }),
  });
}

/**
 * ripgrep's walker threads: one core is left to this process, which stats the matches as they
 * arrive. With ripgrep on every core the stats wait for CPU (on 2 cores, 517 matches at the L scale
 * of the bench: 28 ms against 21 ms with one thread, load average 3.5; ripgrep alone is no slower
 * with one thread there).
 */
const RG_THREADS = Math.max(1, Math.min(12, (os.availableParallelism?.() ?? os.cpus().length) - 1));

/**
 * ripgrep lists the files (it walks in parallel and prunes ignored folders itself). A pattern on
 * the file name alone (`*.md` at any depth, the common case) becomes a file type, which ripgrep applies
 * after its ignore rules; an include -g glob instead overrides .gitignore for the files it matches,
 * so those matches are checked against the .gitignore files once more (a read and a test per
 * match's folder). undefined: ripgrep could not do it (the built-in walk is used).
 */
async function rgFiles(rg: string, root: string, folderRoot: string, pattern: string, ignore: string[], signal: AbortSignal, timeoutMs: number): Promise<Found[] | undefined> {
  const args = ['--files', '--no-config', '--hidden', '--no-require-git', '--no-ignore-dot', '-g', '!.git', '-j', String(RG_THREADS)];
  // A type's globs are matched on the file name and cannot contain ':' (type:glob).
  const nameGlob = /^\*\*\/([^/:]+)$/.exec(pattern)?.[1];
  if (nameGlob) args.push('--type-add', `agentcontextglob:${nameGlob}`, '-t', 'agentcontextglob');
  else args.push('-g', pattern);
  for (const g of ignore) if (g !== '**/.git/**') args.push('-g', `!${g}`);
  const isIgnored = nameGlob ? undefined : gitignoreTester(folderRoot);
  const found: Found[] = [];
  // Each block of output (at most a pipe's 64 KB) is stat'ed as it arrives, while ripgrep walks on.
  const take = (lines: string[]): void => {
    const rels = lines.filter(Boolean).map((l) => (l.startsWith('./') ? l.slice(2) : l));
    statInto(root, isIgnored ? rels.filter((rel) => !isIgnored(path.join(root, rel), false)) : rels, found);
  };
  const run = streamLines(rg, args, root, take);
  const onAbort = (): void => run.kill();
  signal.addEventListener('abort', onAbort, { once: true });
  // A hung ripgrep is stopped (code null) and the built-in walk answers instead, as for one that failed.
  const timer = setTimeout(() => run.kill(), timeoutMs);
  const code = await run.done;
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
  if (code !== 0 && code !== 1) return undefined;
  return found;
}
