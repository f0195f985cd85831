import * as path from 'node:path';

/*
 * The one answer to "is this path inside that folder?" and "what is its path relative to it?", for
 * every check in the code (tools' workspace guard, cleanup, history, the scratch index, search,
 * watches). Each platform's rules are chosen by an injectable platform, so Windows' and macOS' rules
 * are unit-tested on Linux: separators (`\` and `/` on Windows), and case (Windows and macOS file
 * systems ignore it by default, as VS Code does there). A name that merely starts with two dots
 * (`..x`) is inside; only `..` itself as the first segment leaves.
 */

/** The path rules of one platform. */
export interface PathRules {
  /** True when `child` is `parent` or lies inside it (both absolute, compared lexically). */
  isInside(parent: string, child: string): boolean;
  /** The path of `child` relative to `parent` in the platform's separators ('' for the folder itself), or undefined when it is not inside. */
  relativeInside(parent: string, child: string): string | undefined;
  /** True when a relative path (either separator) leaves the folder it is relative to: `..`, `../x`, or an absolute path. */
  leavesFolder(rel: string): boolean;
  /** A path relative to `root` with forward slashes, as shown to users and agents and written in our files (`../x` when outside). */
  toPosixRelative(root: string, file: string): string;
  /** A path as compared on this platform (lower case where case is ignored), for keys and prefix tests of many paths. */
  foldCase(p: string): string;
}

/** The rules for `platform` (process.platform by default; tests pass 'win32' or 'darwin'). */
export function pathRulesFor(platform: NodeJS.Platform = process.platform): PathRules {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const sep = p.sep;
  const ignoreCase = platform === 'win32' || platform === 'darwin';
  /** Same text, ignoring case where the platform does (compared slice by slice, so lengths agree). */
  const same = ignoreCase ? (a: string, b: string): boolean => a.length === b.length && a.toLowerCase() === b.toLowerCase() : (a: string, b: string): boolean => a === b;
  const startsWith = ignoreCase ? (s: string, prefix: string): boolean => same(s.slice(0, prefix.length), prefix) : (s: string, prefix: string): boolean => s.startsWith(prefix);
  const leavesFolder = (rel: string): boolean =>
    rel === '..' || rel.startsWith('../') || (sep === '\\' && rel.startsWith('..\\')) || p.isAbsolute(rel);
  // A segment p.relative would rewrite: empty (`a//b`, a trailing separator), `.` or `..`.
  const oddSegment = sep === '/' ? /(^|\/)\.{0,2}(\/|$)/ : /(^|[\\/])\.{0,2}([\\/]|$)|\//;
  let lastRoot = '';
  let lastRootNormal = false;
  const isNormalRoot = (root: string): boolean => {
    if (root !== lastRoot) {
      lastRoot = root;
      lastRootNormal = p.isAbsolute(root) && p.normalize(root) === root && !root.endsWith(sep);
    }
    return lastRootNormal;
  };
  /** The rest of `file` below a normalized `root` without resolving either (the common case), else undefined. */
  const fastRest = (root: string, file: string): string | undefined => {
    if (file.length <= root.length + 1 || file[root.length] !== sep || !startsWith(file, root) || !isNormalRoot(root)) return undefined;
    const rest = file.slice(root.length + 1);
    return oddSegment.test(rest) ? undefined : rest;
  };
  const relativeInside = (parent: string, child: string): string | undefined => {
    // Fast path for a normalized child below a normalized parent: p.relative resolves both paths
    // first, which cost the sidebar hundreds of ms per refresh of a large tree.
    const fast = fastRest(parent, child);
    if (fast !== undefined) return fast;
    const a = p.resolve(parent);
    const b = p.resolve(child);
    if (same(a, b)) return '';
    const prefix = a.endsWith(sep) ? a : a + sep;
    return b.length > prefix.length && startsWith(b, prefix) ? b.slice(prefix.length) : undefined;
  };
  return {
    isInside: (parent, child) => relativeInside(parent, child) !== undefined,
    relativeInside,
    leavesFolder,
    toPosixRelative(root, file) {
      const rel = relativeInside(root, file) ?? p.relative(root, file);
      return sep === '/' ? rel : rel.split(sep).join('/');
    },
    foldCase: ignoreCase ? (x) => x.toLowerCase() : (x) => x,
  };
}

const here = pathRulesFor();

/** True when `child` is `parent` or lies inside it (both absolute, compared lexically; `..x` is inside). */
export const isInside = here.isInside;
/** The path of `child` relative to `parent` (native separators; '' for the folder itself), or undefined when it is not inside. */
export const relativeInside = here.relativeInside;
/** True when a relative path leaves its folder: `..`, `../x` (or `..\x` on Windows), or absolute; `..x` does not. */
export const leavesFolder = here.leavesFolder;
/** A path relative to `root` with forward slashes, as shown to users and agents and written in our files. */
export const toPosixRelative = here.toPosixRelative;
/** A path as this platform compares it (lower case on Windows and macOS), for keys and prefix tests of many paths. */
export const foldCase = here.foldCase;
