/*
 * Nested .gitignore files for the built-in walkers (ripgrep reads them itself). fast-glob only
 * knows ignore globs given up front, so a `.gitignore` deeper in the tree (such as `.agent/.gitignore`,
 * which keeps scratch/, terminals/ and history/ out of git) would not stop it from walking and
 * stat'ing everything below. Instead fast-glob gets a file-system adapter whose readdir reads the
 * folder's own `.gitignore` and leaves out what the rules above and in it ignore, so ignored
 * folders are never entered. Rules follow git (negations, anchoring, folder-only patterns) via the
 * `ignore` package, the implementation eslint and many others use.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';

interface Rules {
  /** Folder the .gitignore is in. */
  dir: string;
  ig: Ignore;
}

type ReaddirCb = (err: NodeJS.ErrnoException | null, entries?: (fs.Dirent | string)[]) => void;

function readRules(dir: string): Rules | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
  return { dir, ig: ignore().add(text) };
}

/** True when `abs` (a file, or a folder when `isDir`) is ignored by the chain of rules (outermost first). */
function ignoredBy(chain: readonly Rules[], abs: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of chain) {
    const rel = path.relative(r.dir, abs).split(path.sep).join('/');
    if (!rel || rel.startsWith('..')) continue;
    const t = r.ig.test(isDir ? `${rel}/` : rel);
    if (t.ignored) ignored = true;
    else if (t.unignored) ignored = false;
  }
  return ignored;
}

/**
 * An `fs` adapter for fast-glob (its `fs` option) that hides what `.gitignore` files ignore,
 * starting from `folderRoot` (the workspace folder: .gitignore files between it and the walk's
 * root apply too).
 */
export function gitignoreFs(folderRoot: string): Partial<typeof fs> & { readdir: typeof fs.readdir } {
  const chains = new Map<string, Rules[]>();
  const chainFor = (dir: string): Rules[] => {
    const hit = chains.get(dir);
    if (hit) return hit;
    const parent = path.dirname(dir);
    const inside = dir !== folderRoot && !path.relative(folderRoot, dir).startsWith('..') && parent !== dir;
    const base = inside ? chainFor(parent) : [];
    const own = readRules(dir);
    const chain = own ? [...base, own] : base;
    chains.set(dir, chain);
    return chain;
  };
  const filter = (dir: string, entries: (fs.Dirent | string)[]): (fs.Dirent | string)[] => {
    const chain = chainFor(dir);
    if (chain.length === 0) return entries;
    return entries.filter((e) => {
      const name = typeof e === 'string' ? e : e.name;
      const isDir = typeof e === 'string' ? false : e.isDirectory();
      return !ignoredBy(chain, path.join(dir, name), isDir);
    });
  };
  const readdir = ((dir: fs.PathLike, options: unknown, cb?: ReaddirCb) => {
    const callback = (typeof options === 'function' ? options : cb) as ReaddirCb;
    const opts = typeof options === 'function' ? undefined : options;
    const done = (err: NodeJS.ErrnoException | null, entries?: (fs.Dirent | string)[]): void => {
      if (err || !entries) return callback(err, entries);
      let kept: (fs.Dirent | string)[];
      try {
        kept = filter(String(dir), entries);
      } catch (e) {
        return callback(e as NodeJS.ErrnoException);
      }
      callback(null, kept);
    };
    if (opts === undefined) fs.readdir(dir, done as never);
    else fs.readdir(dir, opts as never, done as never);
  }) as unknown as typeof fs.readdir;
  const readdirSync = ((dir: fs.PathLike, options?: unknown) => filter(String(dir), fs.readdirSync(dir, options as never) as (fs.Dirent | string)[])) as unknown as typeof fs.readdirSync;
  return { lstat: fs.lstat, stat: fs.stat, lstatSync: fs.lstatSync, statSync: fs.statSync, readdir, readdirSync };
}
