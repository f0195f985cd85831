/*
 * "Has this file or folder changed?" — the one answer every cache that trusts a stat instead of a
 * read uses (the terminal catalog, the scratch index, notes, the per-file digests, the feature list,
 * the plan folders, the agents' ranking).
 *
 * A file is known by its key: device, inode, size, mtime and ctime. An edit changes size or mtime; a
 * replacement by rename (every atomic write) changes the inode; an mtime set back (`touch -d`,
 * `git checkout`, a restore) or a change of permissions still changes the ctime.
 *
 * A folder is known by its stamp: inode, mtime and ctime; a file added, removed or renamed in it
 * changes them. Its stamp can stand for its listing only once it was settled when read: its mtime
 * and ctime already RACY_MS old, so a later change cannot hide in the same clock tick (coarse kernel
 * clocks tick every few ms; 2 s covers FAT-like ones too). This is git's "racily clean" rule.
 */
import type * as fs from 'node:fs';

/** How old a folder's mtime and ctime must be before its stamp can stand for its listing. */
export const RACY_MS = 2000;

/** The times of a stat (an fs.Stats, or a stamp kept from one). */
interface Times {
  mtimeMs: number;
  ctimeMs: number;
}

/** True when a stamp or stat read at `now` was settled: no later change can hide in its clock tick. */
export function settledStamp(st: Times, now: number): boolean {
  return now - st.mtimeMs > RACY_MS && now - st.ctimeMs > RACY_MS;
}

/** A folder's stamp as the caches that trust it keep it. */
export interface FolderStamp {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** The stamp of a folder's stat, to keep with a listing. */
export function stampOf(st: FolderStamp): FolderStamp {
  return { ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

/** True when a kept stamp is the folder's stamp now (a file added, removed or renamed there changes it). */
export function sameStamp(kept: FolderStamp | undefined, st: FolderStamp): boolean {
  return kept !== undefined && kept.ino === st.ino && kept.mtimeMs === st.mtimeMs && kept.ctimeMs === st.ctimeMs;
}

/** A file's key: device, inode, size, mtime, ctime (kept in caches as this array). */
export type FileKey = [dev: number, ino: number, size: number, mtimeMs: number, ctimeMs: number];

/** The key of a file's stat. */
export const fileKeyOf = (st: fs.Stats): FileKey => [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];

/** True when the file still has the key it was read under. */
export function sameFileKey(k: FileKey | null | undefined, st: fs.Stats): boolean {
  return !!k && k[0] === st.dev && k[1] === st.ino && k[2] === st.size && k[3] === st.mtimeMs && k[4] === st.ctimeMs;
}

/** True when two keys name the same version of a file. */
export function equalFileKeys(a: FileKey | null | undefined, b: FileKey | null | undefined): boolean {
  return !!a && !!b && a.every((x, i) => x === b[i]);
}

/** True for a FileKey read back from a cache file (anything else is not trusted). */
export function isFileKey(k: unknown): k is FileKey {
  return Array.isArray(k) && k.length === 5 && k.every((x) => typeof x === 'number' && Number.isFinite(x));
}
