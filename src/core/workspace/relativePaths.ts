import * as path from 'node:path';

/** True when `child` is `parent` or lies inside it (both absolute, compared lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
}

/** A path relative to `root` with forward slashes, as shown to users and agents and written in our files. */
export function toPosixRelative(root: string, file: string): string {
  // Fast path for the common case, a normalized file below a normalized root: path.relative
  // resolves both paths first, which cost the sidebar hundreds of ms per refresh of a large tree.
  if (file.length > root.length + 1 && file.startsWith(root) && file[root.length] === path.sep && isNormalRoot(root)) {
    const rest = file.slice(root.length + 1);
    if (!ODD_SEGMENT.test(rest)) return path.sep === '/' ? rest : rest.split(path.sep).join('/');
  }
  return path.relative(root, file).split(path.sep).join('/');
}

/** A segment path.relative would rewrite: empty (`a//b`, a trailing separator), `.` or `..`. */
const ODD_SEGMENT = path.sep === '/' ? /(^|\/)\.{0,2}(\/|$)/ : /(^|[\\/])\.{0,2}([\\/]|$)|\//;
let lastRoot = '';
let lastRootNormal = false;
function isNormalRoot(root: string): boolean {
  if (root !== lastRoot) {
    lastRoot = root;
    lastRootNormal = path.isAbsolute(root) && path.normalize(root) === root && !root.endsWith(path.sep);
  }
  return lastRootNormal;
}
