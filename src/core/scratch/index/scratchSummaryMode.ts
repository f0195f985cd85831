import * as fs from 'node:fs';
import * as path from 'node:path';
import { NameBloom, type Summary } from './scratchSummary';
import { differs, filesToRestat, folderKnown, itemOf, markHot, newer, parentOf, BAD_REL, RESTAT_ALL_MAX, selectNewest, type Dir, type Item } from './scratchTree';
import { listDir, maybeYield, trustsFollowed, type IndexState } from './scratchWalk';
import { yieldNow } from '../../eventLoop';
import { SNAPSHOT_MAX_AGE_MS } from './scratchSnapshot';
import { checkListing, checkListingOffThread } from './listingCheck';
import { leavesFolder } from '../../workspace/relativePaths';
import { settledStamp, stampOf } from '../../fs/stamps';

/*
 * Summary mode: an index started from the summary (scratchSummary.ts) holds all files of small
 * folders but only the newest files of big ones, with a filter of all their names. Everything here
 * either keeps that state right (a folder unchanged since listed, a listing or file events the
 * summary and new files explain) or answers false, and the facade then loads everything.
 */

/**
 * Fills an empty tree from a parsed summary: false (tree emptied) when it is too old, names other
 * folders than the disk has, or holds a bad filter or totals.
 */
export function loadSummaryInto(s: IndexState, sum: Summary, now = Date.now()): boolean {
  const { tree } = s;
  if (!(sum.fullScanAt <= now && now - sum.fullScanAt < SNAPSHOT_MAX_AGE_MS)) return false;
  for (const sd of sum.dirs) {
    const st = fs.lstatSync(tree.absOf(sd.rel), { throwIfNoEntry: false });
    // The same folders (a folder changed since is listed by recheckSummary).
    if (!st?.isDirectory() || st.ino !== sd.ino) return forget(s);
  }
  for (const sd of sum.dirs) {
    const d = tree.ensureDir(sd.rel);
    d.listed = { ...stampOf(sd), at: sd.at };
    for (const sub of sd.subdirs) tree.ensureDir(sub);
    let ownBytes = 0;
    for (const [rel, size, mtimeMs, sym, statAt] of sd.files) {
      const it: Item = { size, mtimeMs, symlink: sym === 1, statAt, seen: 0 };
      d.files.set(rel, it);
      markHot(d, rel, it);
      ownBytes += size;
    }
    if (sd.bloom !== undefined) {
      const bloom = NameBloom.fromBase64(sd.bloom);
      if (!bloom) return forget(s);
      d.partial = { own: sd.own, bloom };
      d.newest = selectNewest(d.files, d.files.size);
    }
    // Subtree totals as written (the loaded files are part of them).
    d.count = sd.count;
    d.bytes = sd.bytes;
    if (ownBytes > sd.bytes) return forget(s);
  }
  s.fullScanAt = sum.fullScanAt;
  return true;
}

function forget(s: IndexState): false {
  s.tree.clear();
  return false;
}

/**
 * Revalidation in summary mode: true when every folder is as the index knows it (or its listing is
 * explained by the summary and new files), after stat'ing the loaded files that may have been
 * rewritten in place; false when a folder changed otherwise (everything must then be loaded).
 */
export async function recheckSummary(s: IndexState): Promise<boolean> {
  const { tree } = s;
  const now = Date.now();
  for (const [rel, d] of tree.dirs) {
    const st = fs.lstatSync(tree.absOf(rel), { throwIfNoEntry: false });
    if (!st?.isDirectory() || !d.listed) return false;
    if (!folderKnown(d, st, now, trustsFollowed(s, d.followed?.own)) && !(await absorbListing(s, rel, d, st))) return false;
    for (const [r, old] of filesToRestat(d)) {
      const fst = fs.lstatSync(path.join(tree.scratchDir, r), { throwIfNoEntry: false });
      await maybeYield(s);
      if (!fst || fst.isDirectory()) return false;
      if (differs(fst, old)) {
        if (d.partial) return false; // the loaded newest may no longer be the newest
        tree.setFile(r, itemOf(fst, now));
      } else {
        old.statAt = now;
        markHot(d, r, old);
      }
    }
  }
  return true;
}

/**
 * Upkeep in summary mode: lists every folder not as it was listed, taking the listing in without
 * loading the rest. 'load' when a folder cannot be told apart (everything must be loaded), 'later'
 * when one is still changing, else whether anything was listed (a new summary is then worth writing).
 */
export async function relistSummary(s: IndexState): Promise<'load' | 'later' | boolean> {
  const { tree } = s;
  const now = Date.now();
  let listed = false;
  for (const [rel, d] of tree.dirs) {
    const st = fs.lstatSync(tree.absOf(rel), { throwIfNoEntry: false });
    if (!st?.isDirectory() || !d.listed) return 'load';
    if (folderKnown(d, st, now, false) === 'listed') continue;
    if (!settledStamp(st, now)) return 'later';
    if (!(await absorbListing(s, rel, d, st))) return 'load';
    listed = true;
  }
  return listed;
}

/**
 * Lists a changed folder and takes the listing in without loading the rest, when it can be told
 * apart from what the index knows: the same subfolders; every loaded file still there; names not
 * loaded either in the folder's filter (one of its unloaded files) or new, and then, in a big
 * folder, newer than its loaded newest; and as many known names as the folder had. New files are
 * stat'ed and added, and the listing stamp is real again. False on anything else. Known limit: an
 * unloaded file removed while a new one whose name the filter wrongly claims (about 1 in 100) was
 * added balance out; the next full load corrects it.
 */
async function absorbListing(s: IndexState, rel: string, d: Dir, st: fs.Stats): Promise<boolean> {
  const { tree } = s;
  if (!settledStamp(st, Date.now())) return false; // still changing
  const abs = tree.absOf(rel);
  const known = { loaded: d.files, subdirs: d.subdirs, bloom: d.partial?.bloom };
  // A big folder (25,000 files) is listed on the check worker; a small one, or when no worker can, here.
  let check = await checkListingOffThread(abs, rel, (d.partial?.own ?? d.files.size) + d.subdirs.size, known);
  if (check === undefined) {
    let names: fs.Dirent[];
    try {
      names = await listDir(abs);
    } catch {
      return false;
    }
    check = await checkListing(names, rel, known, yieldNow);
  }
  if (check === 'apart' || check.subdirs !== d.subdirs.size) return false;
  const now = Date.now();
  const mark = ++tree.listings;
  for (const r of check.seen) {
    const it = d.files.get(r);
    if (it) it.seen = mark;
  }
  const fresh: [string, fs.Stats][] = [];
  for (const r of check.fresh) {
    const fst = fs.lstatSync(path.join(tree.scratchDir, r), { throwIfNoEntry: false });
    if (fst?.isDirectory()) return false;
    if (fst) fresh.push([r, fst]);
  }
  const gone: string[] = [];
  for (const [r, it] of d.files) if (it.seen !== mark) gone.push(r);
  if (d.partial) {
    if (gone.length > 0 || check.known !== d.partial.own) return false;
    const last = d.newest?.[d.newest.length - 1];
    for (const [r, fst] of fresh) if (!last || !newer([r, itemOf(fst, now)], last)) return false;
  }
  for (const r of gone) tree.removeFile(r);
  for (const [r, fst] of fresh) {
    tree.setFile(r, itemOf(fst, now));
    if (d.partial) {
      d.partial.own++;
      d.partial.bloom.add(r);
    }
  }
  d.listed = { ...stampOf(st), at: now };
  d.followed = undefined;
  s.listedNames += check.total;
  return true;
}

/**
 * Applies file events (absolute paths) in summary mode where that is safe: a new file newer than a
 * big folder's loaded newest (its name not in the folder's filter), a loaded file changed or
 * removed, a file of a small (wholly loaded) folder. False, with nothing applied, when anything
 * else happened: everything must be loaded.
 */
export function applyEventsInSummary(s: IndexState, paths: string[]): boolean {
  const { tree } = s;
  const plan: (() => void)[] = [];
  for (const abs of paths) {
    const rel = tree.relOf(abs);
    if (leavesFolder(rel)) continue;
    if (rel === '' || BAD_REL.test(rel) || tree.dirs.has(rel)) return false;
    const d = tree.dirs.get(parentOf(rel));
    if (!d) return false;
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (st?.isDirectory()) return false;
    const loaded = d.files.get(rel);
    if (!d.partial) {
      if (!d.listed || d.files.size + 1 > RESTAT_ALL_MAX) return false;
      plan.push(() => (st ? tree.setFile(rel, itemOf(st)) : tree.removeFile(rel)));
      continue;
    }
    const part = d.partial;
    const last = d.newest?.[d.newest.length - 1];
    if (loaded) {
      if (!st) {
        plan.push(() => {
          tree.removeFile(rel);
          part.own--;
        });
      } else {
        if (!last || !newer([rel, itemOf(st)], last)) return false; // would leave the loaded newest
        plan.push(() => tree.setFile(rel, itemOf(st)));
      }
      continue;
    }
    if (part.bloom.has(rel)) return false; // maybe one of the files not loaded
    if (!st) continue; // never there as far as the folder knows (a temporary file come and gone)
    if (!last || !newer([rel, itemOf(st)], last)) return false;
    plan.push(() => {
      tree.setFile(rel, itemOf(st));
      part.own++;
      part.bloom.add(rel);
    });
  }
  for (const step of plan) step();
  return true;
}
