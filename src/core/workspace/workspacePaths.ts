import * as fs from 'node:fs';
import * as path from 'node:path';
import { err, ok, type Result } from '../result';
import { isInside, toPosixRelative } from './relativePaths';
import { agentDirOf } from './agentLayout';

/*
 * Tool path arguments are workspace-relative. With several folders open, a path may start with a
 * folder's name to pick that folder (`api/src/x.ts`); otherwise it is relative to the first folder
 * that has `.agent/` (or the first folder when none has). `..` segments, absolute paths outside
 * every folder and symlinks that lead outside are refused.
 */

/** A workspace folder as the core sees it: its display name and absolute file-system path. */
export interface WorkspaceFolderRef {
  name: string;
  path: string;
}

/** A path argument resolved inside a workspace folder. */
export interface ResolvedPath {
  /** Absolute path (not symlink-resolved; it is what the user named). */
  abs: string;
  folder: WorkspaceFolderRef;
  /** Relative to the folder root, forward slashes; '' for the root itself. */
  rel: string;
  /** How tools print it: `rel`, prefixed with the folder's name when it is not the default folder. */
  display: string;
  exists: boolean;
}

/** Error type of resolveWorkspacePath: the offending argument and what to do. */
export interface PathError {
  file: string;
  message: string;
}

/** The folder tools use when a path does not name one: the first with `.agent/`, else the first. */
export function defaultFolder(folders: readonly WorkspaceFolderRef[]): WorkspaceFolderRef | undefined {
  for (const f of folders) {
    try {
      if (fs.statSync(agentDirOf(f.path)).isDirectory()) return f;
    } catch {
      // no .agent here
    }
  }
  return folders[0];
}

/** Display form of an absolute path inside `folder` (prefixed with the folder name unless it is the default). */
export function displayPath(folders: readonly WorkspaceFolderRef[], folder: WorkspaceFolderRef, abs: string): string {
  const rel = toPosixRelative(folder.path, abs);
  const def = defaultFolder(folders);
  if (folders.length > 1 && def && def.path !== folder.path) return rel ? `${folder.name}/${rel}` : folder.name;
  return rel || '.';
}

/** The deepest existing ancestor of `p`, symlinks resolved, plus the not-yet-existing rest. */
async function realpathOfExisting(p: string): Promise<{ real: string; exists: boolean }> {
  let cur = p;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await fs.promises.realpath(cur);
      return { real: path.join(real, ...[...rest].reverse()), exists: rest.length === 0 };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      // A dangling symlink also lands here: lstat tells it apart so it is judged by its target.
      const lst = await fs.promises.lstat(cur).catch(() => undefined);
      if (lst?.isSymbolicLink()) {
        const target = path.resolve(path.dirname(cur), await fs.promises.readlink(cur));
        return { real: path.join(target, ...[...rest].reverse()), exists: false };
      }
      const parent = path.dirname(cur);
      if (parent === cur) return { real: p, exists: false };
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

/** Resolves a tool's path argument inside the workspace, refusing anything that leads outside. */
export async function resolveWorkspacePath(
  folders: readonly WorkspaceFolderRef[],
  input: string | undefined,
  opts: { defaultTo?: string } = {},
): Promise<Result<ResolvedPath, PathError>> {
  const raw = (input ?? '').trim() || opts.defaultTo || '.';
  if (folders.length === 0) return err({ file: raw, message: 'no workspace folder is open; open a folder first' });
  if (raw.includes('\0')) return err({ file: raw, message: 'the path contains a NUL character' });
  const segments = raw.split(/[\\/]+/);
  if (segments.includes('..')) {
    return err({ file: raw, message: 'paths with ".." are refused; give a path inside the workspace, relative to its root' });
  }
  let folder: WorkspaceFolderRef | undefined;
  let abs: string;
  if (path.isAbsolute(raw) || /^~(\/|$)/.test(raw)) {
    abs = path.normalize(raw);
    folder = folders.filter((f) => isInside(f.path, abs)).sort((a, b) => b.path.length - a.path.length)[0];
    if (!folder) {
      return err({ file: raw, message: `absolute path outside the workspace is refused; use a path relative to ${folders.map((f) => f.name).join(' or ')}` });
    }
  } else {
    if (folders.length > 1) folder = folders.find((f) => f.name === segments[0]);
    if (folder) abs = path.resolve(folder.path, ...segments.slice(1));
    else {
      folder = defaultFolder(folders)!;
      abs = path.resolve(folder.path, raw);
    }
  }
  if (!isInside(folder.path, abs)) return err({ file: raw, message: 'the path leads outside the workspace folder; refused' });
  let rootReal: string;
  let target: { real: string; exists: boolean };
  try {
    rootReal = await fs.promises.realpath(folder.path);
    target = await realpathOfExisting(abs);
  } catch (e) {
    return err({ file: raw, message: `cannot resolve: ${(e as Error).message}` });
  }
  if (!isInside(rootReal, target.real)) {
    return err({ file: raw, message: `it is a symbolic link (or inside one) leading outside the workspace, to ${target.real}; refused` });
  }
  const display = displayPath(folders, folder, abs);
  return ok({ abs, folder, rel: toPosixRelative(folder.path, abs), display, exists: target.exists });
}

/** The `.agent/` folder tools write to: the default folder's. */
export function agentDirFor(folders: readonly WorkspaceFolderRef[]): string | undefined {
  const f = defaultFolder(folders);
  return f ? agentDirOf(f.path) : undefined;
}
