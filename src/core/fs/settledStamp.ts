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
