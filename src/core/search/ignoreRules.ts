import * as fs from 'node:fs';
import * as path from 'node:path';
import { toPosixRelative } from '../workspace/relativePaths';

/*
 * Ignore rules for the built-in engines (ripgrep reads .gitignore itself). A root `.gitignore`
 * becomes fast-glob ignore globs; negations (`!x`) are not supported by this fallback and are
 * skipped, so it may search a little more than ripgrep would, never less.
 */

/** Always skipped: VCS metadata. */
export const ALWAYS_IGNORED = ['**/.git/**'];

/** Converts .gitignore lines to fast-glob ignore globs (relative to the folder holding the file). */
export function gitignoreToGlobs(text: string): string[] {
  const out: string[] = [];
  for (let line of text.split(/\r?\n/)) {
    line = line.replace(/(?<!\\)\s+$/, '');
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const dirOnly = line.endsWith('/');
    let p = line.replace(/\/+$/, '');
    const anchored = p.startsWith('/') || p.includes('/');
    p = p.replace(/^\/+/, '');
    if (!p) continue;
    const g = anchored ? p : `**/${p}`;
    out.push(`${g}/**`);
    if (!dirOnly) out.push(g);
  }
  return out;
}

/** Ignore globs for searching under `root`: .gitignore files from the folder root down to `root`, made relative to `root`. */
export async function gitignoreGlobsFor(folderRoot: string, root: string): Promise<string[]> {
  const out: string[] = [];
  let dir = folderRoot;
  const rel = path.relative(folderRoot, root);
  const parts = rel ? rel.split(path.sep) : [];
  for (let i = 0; i <= parts.length; i++) {
    const text = await fs.promises.readFile(path.join(dir, '.gitignore'), 'utf8').catch(() => '');
    // A glob written for `dir` applies under `root` once the part of the path between them is removed.
    const below = parts.slice(i).join('/');
    for (const g of gitignoreToGlobs(text)) {
      if (!below) out.push(g);
      else if (g.startsWith('**/')) out.push(g);
      else if (g === below || g.startsWith(below + '/')) out.push(g.slice(below.length + 1) || '**');
    }
    if (i < parts.length) dir = path.join(dir, parts[i]);
  }
  return out;
}

/** `files.exclude` keys (VS Code globs, folder-relative) made relative to `root` for fast-glob and ripgrep. */
export function excludeGlobsFor(folderRoot: string, root: string, excludes: readonly string[]): string[] {
  const below = toPosixRelative(folderRoot, root);
  const out: string[] = [];
  for (const e of excludes) {
    if (e.startsWith('**/') || !below) out.push(e);
    else if (e.startsWith(below + '/')) out.push(e.slice(below.length + 1));
  }
  return out;
}
