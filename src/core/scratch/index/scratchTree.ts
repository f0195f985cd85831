import { createHash } from 'node:crypto';
import type * as fs from 'node:fs';
import * as path from 'node:path';
import type { ScratchEntry } from '../scratchEntry';
import { toPosixRelative } from '../../workspace/relativePaths';
import { sameStamp, settledStamp, type FolderStamp } from '../../fs/stamps';

/*
 * The scratch index's in-memory tree: folders with their files, subtree totals, each folder's
 * newest files and the global newest-first order, all kept up to date change by change. Nothing
 * here touches the disk; the walk (scratchWalk.ts), file events (scratchEvents.ts), the snapshot
 * codec (scratchSnapshot.ts) and summary mode (scratchSummaryMode.ts) change the tree through
 * setFile / removeFile / removeDir, and the facade (scratchIndex.ts) answers queries from it.
 */

/** One file as the index knows it. */
export interface Item {
  size: number;
  mtimeMs: number;
  symlink: boolean;
  /** When it was stat'ed (ms since epoch). */
  statAt: number;
  /** The listing of its folder that last saw it (revalidation marks instead of collecting a set of 100,000 names). */
  seen: number;
}

export type Ranked = [rel: string, item: Item];


export interface Dir {
  subdirs: Set<string>;
  /** The files directly inside, by relative path. */
  files: Map<string, Item>;
  /**
   * The newest files, newest first (a prefix of the folder's files in that order), kept up to date
   * on changes while it stays long enough; undefined until a page is asked for, or after a change
   * that left it too short.
   */
  newest?: Ranked[];
  /**
   * The files that were modified less than HOT_MS before they were last stat'ed (something may still
   * be writing them): the only ones a check of an unchanged big folder stats again, found without
   * going through the folder's 75,000 others.
   */
  hot: Set<string>;
  /** Files and bytes in the whole subtree. */
  count: number;
  bytes: number;
  /** The folder's stamp when it was last listed, and when (undefined: never listed whole). */
  listed?: FolderStamp & { at: number };
  /**
   * The folder's stamp right after the last file events for it were applied (or after
   * a file this process created): while the folder still has that stamp, every change since it was
   * listed is known, and it need not be listed again (see folderKnown).
   */
  followed?: FolderStamp & { own?: boolean };
  /**
   * Set while only the newest files of a big folder are loaded (from the summary): how many files
   * it has directly inside, and a filter of all their names. `files` and `newest` then hold the
   * loaded ones, which are the newest: a page within them is right; anything else loads the rest.
   */
  partial?: { own: number; bloom: NameFilter };
}

/** A filter of a folder's file names (scratchSummary.ts's NameBloom): "certainly not" or "maybe". */
export interface NameFilter {
  /** Its bits (copied to another thread: scratch/listingCheck.ts). */
  readonly bits: Uint8Array;
  has(rel: string): boolean;
  add(rel: string): void;
  toBase64(): string;
}

/** A big folder's newest files in the tree's digest (the summary keeps at least this many). */
export const DIGEST_NEWEST = 256;
/** The smallest kept "newest" list (one page) and the extra kept so a few deletions need no new pass. */
const PAGE_MIN = 200;
const SLACK = 64;
/** Files modified this recently (when last stat'ed) are stat'ed again by revalidation: something may still be writing them. */
export const HOT_MS = 10 * 60_000;
/** Folders with at most this many files are stat'ed whole by revalidation (a file rewritten in place changes no folder mtime). */
export const RESTAT_ALL_MAX = 500;
/**
 * A folder changed since its listing is not listed again while file events (or this process's own
 * creations) account for its current mtime, for at most this long after its last real listing: a
 * lost event is corrected within this time.
 */
export const TRUST_LISTING_MS = 10 * 60_000;
/** A relative path that could leave the scratch folder or is not how the index spells one. */
export const BAD_REL = /^\/|\/$|\/\/|(^|\/)\.\.?(\/|$)|\r/;

export const parentOf = (rel: string): string => {
  const i = rel.lastIndexOf('/');
  return i === -1 ? '' : rel.slice(0, i);
};

/**
 * The one definition of "this folder is as the index knows it" for a stamp taken now:
 *   - 'listed': it has the stamp it was listed with, and was listed long enough after its last
 *     change that no change within the same timestamp can hide (adding, removing or renaming an
 *     entry always changes the stamp);
 *   - 'followed': it changed since listed, but to the stamp taken right after the changes the index
 *     was told of (file events, or a file this process created), within TRUST_LISTING_MS of the
 *     listing, and `trustFollowed` allows that (the index follows events, or the stamp came from its
 *     own creation; never while a relist wants real listings);
 *   - undefined: it must be listed again.
 */
export function folderKnown(d: Dir, st: FolderStamp, now: number, trustFollowed: boolean): 'listed' | 'followed' | undefined {
  const l = d.listed;
  if (!l) return undefined;
  if (sameStamp(l, st) && settledStamp(l, l.at)) return 'listed';
  if (trustFollowed && sameStamp(d.followed, st) && now - l.at < TRUST_LISTING_MS) return 'followed';
  return undefined;
}

/** A file's item from its lstat. */
export function itemOf(st: fs.Stats, at = Date.now()): Item {
  return { size: st.size, mtimeMs: st.mtimeMs, symlink: st.isSymbolicLink(), statAt: at, seen: 0 };
}

/** True when the lstat differs from what the index knows of the file (size, mtime or kind). */
export function differs(st: fs.Stats, it: Item): boolean {
  return st.size !== it.size || st.mtimeMs !== it.mtimeMs || st.isSymbolicLink() !== it.symlink;
}

/** Keeps a folder's hot set right for a file just (re)stat'ed. */
export function markHot(d: Dir, rel: string, it: Item): void {
  if (it.statAt - it.mtimeMs <= HOT_MS) d.hot.add(rel);
  else d.hot.delete(rel);
}

/** The files of a folder a check of its unchanged entries stats again: all of a small folder, the hot ones of a big one. */
export function filesToRestat(d: Dir): [string, Item][] {
  const out: [string, Item][] = [];
  if (!d.partial && d.files.size <= RESTAT_ALL_MAX) for (const e of d.files) out.push(e);
  else for (const r of d.hot) out.push([r, d.files.get(r)!]);
  return out;
}

/** The order of a folder's files: newest first, ties by path. */
export function newer(a: Ranked, b: Ranked): boolean {
  return a[1].mtimeMs > b[1].mtimeMs || (a[1].mtimeMs === b[1].mtimeMs && a[0] < b[0]);
}

/** Where `e` goes in a list kept in that order (binary search). */
function rankOf(list: Ranked[], e: Ranked): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (newer(list[mid], e)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertRanked(list: Ranked[], e: Ranked): void {
  list.splice(rankOf(list, e), 0, e);
}

function dropRanked(list: Ranked[], rel: string, item: Item): void {
  const i = rankOf(list, [rel, item]);
  if (list[i]?.[0] === rel) list.splice(i, 1);
}

/** The newest `k` files without sorting the folder: one pass keeping a sorted buffer of at most k. */
export function selectNewest(files: Map<string, Item>, k: number): Ranked[] {
  const best: Ranked[] = [];
  for (const [r, it] of files) {
    if (best.length === k) {
      const last = best[k - 1][1];
      if (it.mtimeMs < last.mtimeMs || (it.mtimeMs === last.mtimeMs && r > best[k - 1][0])) continue;
    }
    insertRanked(best, [r, it]);
    if (best.length > k) best.pop();
  }
  return best;
}

/** The folders and files of `.agent/scratch/` in memory, with totals and orders kept change by change. */
export class ScratchTree {
  readonly dirs = new Map<string, Dir>();
  /** Listings made so far (each marks the files it found with its number). */
  listings = 0;
  /** Every file, newest first (ties by path), kept up to date on changes once asked for (retention). */
  private all?: Ranked[];
  /**
   * Counts changes to the order other than a file added as the newest of all (the common case: an
   * offload): while it stays the same, every file in the order keeps its position counted from the
   * oldest, and what was decided about the oldest files still holds (cleanup's dry run).
   */
  private orderEpochCounter = 0;
  /** Counts changes to what the tree holds (folders, files, their sizes and dates): a digest of it holds while this stays the same. */
  mutations = 0;

  constructor(readonly scratchDir: string) {}

  /** A folder's or file's absolute path ('' is the scratch folder itself). */
  absOf(rel: string): string {
    return rel ? path.join(this.scratchDir, rel) : this.scratchDir;
  }

  /** The path relative to the scratch folder, with forward slashes ('..' first or absolute when outside). */
  relOf(abs: string): string {
    return toPosixRelative(this.scratchDir, abs);
  }

  /** Empties the tree. */
  clear(): void {
    this.mutations++;
    this.dirs.clear();
    this.dropOrder();
  }

  ensureDir(rel: string): Dir {
    let d = this.dirs.get(rel);
    if (!d) {
      d = { subdirs: new Set(), files: new Map(), hot: new Set(), count: 0, bytes: 0 };
      this.mutations++;
      this.dirs.set(rel, d);
      if (rel !== '') this.ensureDir(parentOf(rel)).subdirs.add(rel);
    }
    return d;
  }

  /** Adds `delta` files and `bytes` to a folder and every folder above it. */
  bubble(dirRel: string, delta: number, bytes: number): void {
    this.mutations++;
    for (let p = dirRel; ; p = parentOf(p)) {
      const d = this.dirs.get(p);
      if (d) {
        d.count += delta;
        d.bytes += bytes;
      }
      if (p === '') break;
    }
  }

  setFile(rel: string, item: Item): void {
    const dir = parentOf(rel);
    const d = this.ensureDir(dir);
    const old = d.files.get(rel);
    if (old && old.size === item.size && old.mtimeMs === item.mtimeMs && old.symlink === item.symlink) {
      // Seen again as it was (a file this process created, then its event): nothing changed, the order stays.
      old.statAt = item.statAt;
      markHot(d, rel, old);
      return;
    }
    this.mutations++;
    // Counts as found by a listing in progress (revalidation removes the files a listing did not mark).
    item.seen = old ? old.seen : this.listings;
    d.files.set(rel, item);
    markHot(d, rel, item);
    this.bubble(dir, old ? 0 : 1, item.size - (old?.size ?? 0));
    if (this.all) {
      if (old) {
        dropRanked(this.all, rel, old);
        this.orderEpochCounter++;
      }
      const at = rankOf(this.all, [rel, item]);
      if (at !== 0) this.orderEpochCounter++;
      this.all.splice(at, 0, [rel, item]);
    }
    if (d.newest) {
      if (old) dropRanked(d.newest, rel, old);
      const last = d.newest[d.newest.length - 1];
      // A new file is usually the newest: it goes to the front of the kept order.
      if (!last || newer([rel, item], last) || d.newest.length >= d.files.size - 1) insertRanked(d.newest, [rel, item]);
      if (d.newest.length < Math.min(PAGE_MIN, d.files.size)) d.newest = undefined;
    }
  }

  removeFile(rel: string): void {
    const dir = parentOf(rel);
    const d = this.dirs.get(dir);
    const old = d?.files.get(rel);
    if (!d || !old) return;
    this.mutations++;
    d.files.delete(rel);
    d.hot.delete(rel);
    this.bubble(dir, -1, -old.size);
    if (this.all) {
      dropRanked(this.all, rel, old);
      this.orderEpochCounter++;
    }
    if (d.newest) {
      dropRanked(d.newest, rel, old);
      if (d.newest.length < Math.min(PAGE_MIN, d.files.size)) d.newest = undefined;
    }
  }

  removeDir(rel: string): void {
    const d = this.dirs.get(rel);
    if (!d) return;
    for (const s of [...d.subdirs]) this.removeDir(s);
    for (const f of [...d.files.keys()]) this.removeFile(f);
    this.mutations++;
    this.dirs.delete(rel);
    if (rel !== '') this.dirs.get(parentOf(rel))?.subdirs.delete(rel);
  }

  /** Forgets the global order (rebuilt once when next asked for) instead of inserting many files one by one. */
  dropOrder(): void {
    this.all = undefined;
    this.orderEpochCounter++;
  }

  /** Changes whenever the order of newestFirst() changes other than by a file added as the newest. */
  get orderEpoch(): number {
    return this.orderEpochCounter;
  }

  /** Every file, newest first (ties by path): sorted once, then kept in order on each change. Do not modify. */
  newestFirst(): readonly Ranked[] {
    if (!this.all) {
      const all: Ranked[] = [];
      for (const d of this.dirs.values()) for (const e of d.files) all.push(e);
      all.sort((a, b) => (newer(a, b) ? -1 : newer(b, a) ? 1 : 0));
      this.all = all;
    }
    return this.all;
  }

  /**
   * A digest of what the tree holds, the same whether big folders are loaded whole or only their
   * newest files (summary mode): per folder its totals and file count, and its files (all of a
   * folder of at most RESTAT_ALL_MAX loaded whole, else its newest DIGEST_NEWEST). Kept until the
   * tree changes.
   */
  digest(): string {
    if (this.digestMemo?.mutations === this.mutations) return this.digestMemo.value;
    const whole = (d: Dir): boolean => !d.partial && d.files.size <= RESTAT_ALL_MAX;
    // Each big folder's newest: its kept list when long enough, else from the global order when it
    // is kept (one pass over its front, not a selection over 75,000 files), else a selection.
    const newest = new Map<string, Ranked[]>();
    const short = new Map<string, Ranked[]>();
    for (const [rel, d] of this.dirs) {
      if (whole(d)) continue;
      const want = Math.min(DIGEST_NEWEST, d.files.size);
      if (d.newest && d.newest.length >= want) newest.set(rel, d.newest.slice(0, DIGEST_NEWEST));
      else if (this.all) short.set(rel, []);
      else newest.set(rel, selectNewest(d.files, DIGEST_NEWEST));
    }
    if (this.all && short.size) {
      let open = short.size;
      for (const e of this.all) {
        const p = parentOf(e[0]);
        const list = short.get(p);
        if (!list || list.length >= Math.min(DIGEST_NEWEST, this.dirs.get(p)!.files.size)) continue;
        list.push(e);
        if (list.length === Math.min(DIGEST_NEWEST, this.dirs.get(p)!.files.size) && --open === 0) break;
      }
      for (const [rel, list] of short) newest.set(rel, list);
    }
    const h = createHash('sha1');
    for (const rel of [...this.dirs.keys()].sort()) {
      const d = this.dirs.get(rel)!;
      h.update(`${rel}\0${d.count}\0${d.bytes}\0${d.partial ? d.partial.own : d.files.size}\n`);
      const files = whole(d) ? [...d.files].sort((a, b) => (a[0] < b[0] ? -1 : 1)) : newest.get(rel)!;
      h.update(whole(d) ? 'all\n' : 'newest\n');
      for (const [r, it] of files) h.update(`${r}\0${it.size}\0${it.mtimeMs}\0${it.symlink ? 1 : 0}\n`);
    }
    const value = h.digest('base64');
    this.digestMemo = { mutations: this.mutations, value };
    return value;
  }

  private digestMemo?: { mutations: number; value: string };

  /** Files and bytes under the scratch folder. */
  totals(): { files: number; bytes: number } {
    const d = this.dirs.get('');
    return { files: d?.count ?? 0, bytes: d?.bytes ?? 0 };
  }

  /** A folder's subtree totals and its subfolders (sorted by name), or undefined when unknown. */
  folder(rel: string): { rel: string; count: number; bytes: number; subdirs: string[]; files: number } | undefined {
    const d = this.dirs.get(rel);
    return d ? { rel, count: d.count, bytes: d.bytes, subdirs: [...d.subdirs].sort(), files: d.partial ? d.partial.own : d.files.size } : undefined;
  }

  /** A page of a folder's own files, newest first (ties by path): entries offset .. offset+count-1. */
  filesPage(rel: string, offset: number, count: number): { entries: ScratchEntry[]; total: number } {
    const d = this.dirs.get(rel);
    if (!d) return { entries: [], total: 0 };
    const entry = ([r, it]: Ranked): ScratchEntry => ({ path: path.join(this.scratchDir, r), rel: r, size: it.size, mtimeMs: it.mtimeMs, symlink: it.symlink });
    if (d.partial) {
      // The loaded files are the newest: a page within them is right (the facade loads the rest first when asked past them).
      const newest = (d.newest ??= selectNewest(d.files, d.files.size));
      return { entries: newest.slice(offset, offset + count).map(entry), total: d.partial.own };
    }
    const k = Math.min(offset + count, d.files.size);
    if (!d.newest || d.newest.length < k) d.newest = selectNewest(d.files, Math.max(k, PAGE_MIN) + SLACK);
    return { entries: d.newest.slice(offset, offset + count).map(entry), total: d.files.size };
  }
}
