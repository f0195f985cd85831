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
import type { Ignore } from 'ignore';
import { searchDeps } from './searchDeps';
import { isInside } from '../workspace/relativePaths';

interface Rules {
  /** Folder the .gitignore is in. */
  dir: string;
  ig: Ignore;
}

type ReaddirCb = (err: NodeJS.ErrnoException | null, entries?: (fs.Dirent | string)[]) => void;

function readRules(dir: string): Rules | undefined {
  const file = path.join(dir, '.gitignore');
  // Most folders have none: a stat that returns undefined costs far less than a read that throws.
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return { dir, ig: searchDeps().ignore().add(text) };
}

/** True when `abs` (a file, or a folder when `isDir`) is ignored by the chain of rules (outermost first). */
function ignoredBy(chain: readonly Rules[], abs: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of chain) {
    // abs lies below r.dir (the chain is built from abs's own ancestors): a slice, not path.relative.
    if (abs.length <= r.dir.length + 1 || !abs.startsWith(r.dir)) continue;
    let rel = abs.slice(r.dir.length + 1);
    if (path.sep !== '/') rel = rel.split(path.sep).join('/');
    const t = r.ig.test(isDir ? `${rel}/` : rel);
    if (t.ignored) ignored = true;
    else if (t.unignored) ignored = false;
  }
  return ignored;
}

function chains(folderRoot: string): (dir: string, hasOwn?: boolean) => Rules[] {
  const cache = new Map<string, Rules[]>();
  const chainFor = (dir: string, hasOwn?: boolean): Rules[] => {
    const hit = cache.get(dir);
    if (hit) return hit;
    const parent = path.dirname(dir);
    const inside = dir !== folderRoot && isInside(folderRoot, dir) && parent !== dir;
    const base = inside ? chainFor(parent) : [];
    // hasOwn: the caller listed the folder and knows whether it holds a .gitignore (no failed read per folder).
    const own = hasOwn === false ? undefined : readRules(dir);
    const chain = own ? [...base, own] : base;
    cache.set(dir, chain);
    return chain;
  };
  return chainFor;
}

/**
 * A test for paths under `folderRoot` against every .gitignore from it down to the path's folder
 * (rules are read once per folder per tester).
 */
export function gitignoreTester(folderRoot: string): (abs: string, isDir: boolean) => boolean {
  const chainFor = chains(folderRoot);
  return (abs, isDir) => {
    const chain = chainFor(path.dirname(abs));
    return chain.length > 0 && ignoredBy(chain, abs, isDir);
  };
}

/**
 * An `fs` adapter for fast-glob (its `fs` option) that hides what `.gitignore` files ignore,
 * starting from `folderRoot` (the workspace folder: .gitignore files between it and the walk's
 * root apply too).
 */
export function gitignoreFs(folderRoot: string): Partial<typeof fs> & { readdir: typeof fs.readdir } {
  const chainFor = chains(folderRoot);
  const filter = (dir: string, entries: (fs.Dirent | string)[]): (fs.Dirent | string)[] => {
    const chain = chainFor(dir, entries.some((e) => (typeof e === 'string' ? e : e.name) === '.gitignore'));
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
