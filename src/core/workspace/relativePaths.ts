import * as path from 'node:path';

/** True when `child` is `parent` or lies inside it (both absolute, compared lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
}

/** A path relative to `root` with forward slashes, as shown to users and agents and written in our files. */
export function toPosixRelative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}
