import * as fs from 'node:fs';
import { folderKnown, itemOf, parentOf, BAD_REL } from './scratchTree';
import { scanAll, walk, type IndexState } from './scratchWalk';
import { leavesFolder } from '../../workspace/relativePaths';
import { stampOf, type FolderStamp } from '../../fs/stamps';

/*
 * What the index is told rather than finds out: file events from an editor's watcher, and files
 * this process created itself. Each is applied path by path, and afterwards the folder's stamp is
 * recorded (`followed`), so revalidation need not list a folder whose changes are all accounted
 * for (folderKnown in scratchTree.ts).
 */

/**
 * Applies file events (absolute paths) to a wholly loaded tree: a folder that appeared is walked; a
 * path that is gone is removed with everything under it. Paths outside the scratch folder are
 * ignored; the scratch folder itself triggers a full scan.
 */
export async function applyEvents(s: IndexState, absPaths: Iterable<string>): Promise<void> {
  const { tree } = s;
  const parents = new Set<string>();
  for (const abs of absPaths) {
    const rel = tree.relOf(abs);
    if (leavesFolder(rel)) continue;
    if (rel === '') {
      await scanAll(s);
      return;
    }
    parents.add(parentOf(rel));
    let st: fs.Stats | undefined;
    try {
      st = await fs.promises.lstat(abs);
    } catch {
      st = undefined;
    }
    if (!st) {
      tree.removeFile(rel);
      tree.removeDir(rel);
    } else if (st.isDirectory()) {
      // Re-walk it: a folder moved in brings files that may fire no events of their own.
      tree.removeDir(rel);
      tree.removeFile(rel);
      tree.ensureDir(rel);
      await walk(s, rel);
    } else {
      tree.removeDir(rel);
      tree.setFile(rel, itemOf(st));
    }
  }
  stampFollowed(s, parents);
}

/** The folders (relative) that hold the given absolute paths, inside the scratch folder. */
export function foldersOf(s: IndexState, absPaths: Iterable<string>): Set<string> {
  const folders = new Set<string>();
  for (const p of absPaths) {
    const rel = s.tree.relOf(p);
    if (rel && !leavesFolder(rel)) folders.add(parentOf(rel));
  }
  return folders;
}

/** After events were applied: each folder's stamp now (a later change has an event still to come). */
export function stampFollowed(s: IndexState, folders: Iterable<string>): void {
  if (!s.followsEvents) return;
  for (const rel of folders) {
    const d = s.tree.dirs.get(rel);
    if (!d?.listed) continue;
    const st = fs.lstatSync(s.tree.absOf(rel), { throwIfNoEntry: false });
    d.followed = st?.isDirectory() ? stampOf(st) : undefined;
  }
}

/** The relative path of a file this process created, or undefined when it is not a plain path inside the scratch folder. */
export function createdRel(s: IndexState, abs: string): string | undefined {
  const rel = s.tree.relOf(abs);
  return !rel || leavesFolder(rel) || BAD_REL.test(rel) ? undefined : rel;
}

/**
 * After a file this process created is in the tree: when the index knew its folder as it was right
 * before the creation, the creation accounts for the stamp right after it (see folderKnown).
 */
export function noteOwnCreation(s: IndexState, rel: string, before: FolderStamp | undefined, after: FolderStamp | undefined): void {
  const d = s.tree.dirs.get(parentOf(rel));
  if (!d || !d.listed || !before || !after) return;
  if (folderKnown(d, before, Date.now(), true)) d.followed = { ...stampOf(after), own: !s.followsEvents };
}
