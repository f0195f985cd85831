/**
 * Whether a folder's stat can stand for its listing: its mtime and ctime were already RACY_MS old
 * when it was read, so a later change cannot hide in the same clock tick (coarse kernel clocks tick
 * every few ms; 2 s covers FAT-like ones too). Shared by the caches that trust a folder's stat
 * instead of listing it again (skills, terminal catalog, agents ranking, plan folders).
 */
import type * as fs from 'node:fs';

export const RACY_MS = 2000;

/** True when `st` (read at `now`) is old enough to be trusted for the folder's listing. */
export function settledStamp(st: fs.Stats, now: number): boolean {
  return now - st.mtimeMs > RACY_MS && now - st.ctimeMs > RACY_MS;
}

/** A folder's stamp as the caches that trust it keep it (inode, mtime, ctime). */
export interface FolderStamp {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** The stamp of `st`, to keep with a listing. */
export function stampOf(st: fs.Stats): FolderStamp {
  return { ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

/** True when a kept stamp is the folder's stamp now (a file added, removed or renamed there changes it). */
export function sameStamp(kept: FolderStamp | undefined, st: fs.Stats): boolean {
  return kept !== undefined && kept.ino === st.ino && kept.mtimeMs === st.mtimeMs && kept.ctimeMs === st.ctimeMs;
}
