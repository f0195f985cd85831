import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileError } from '../../result';
import { differs, filesToRestat, folderKnown, HOT_MS, itemOf, markHot, RESTAT_ALL_MAX, type Item, type ScratchTree } from './scratchTree';
import { stampOf } from '../../fs/stamps';
import { yieldNow } from '../../eventLoop';

/*
 * The scratch index's disk side: the first full walk and revalidation, which costs what changed,
 * not the folder's size. A folder that is as the index knows it (folderKnown) is not listed again,
 * and in a big folder only recently written files (its hot set) are stat'ed again (files there are
 * written once: tool_outputs/); small folders are stat'ed whole, so a file rewritten in place is
 * seen. Everything is lstat'ed in small synchronous batches with yields to the event loop between
 * them, so a walk never blocks the extension host for long. Symlinks are listed, never followed.
 */

/** What the index's parts share: the tree, counters that decide when a snapshot is worth writing, and its trust settings. */
export interface IndexState {
  readonly agentDir: string;
  readonly tree: ScratchTree;
  /** Problems that did not stop the scan (unreadable folders, a symlinked scratch folder). */
  errors: FileError[];
  /** Files lstat()ed so far (decides whether a snapshot is worth writing). */
  statted: number;
  /** Names read by listings of folders that had changed (a big one listed again is worth a new snapshot too). */
  listedNames: number;
  sinceYield: number;
  /** When the last full scan this index descends from started (kept through snapshots). */
  fullScanAt: number;
  /** True when every file event for the scratch folder reaches the index (an editor's watcher feeds it). */
  followsEvents: boolean;
  /** Set by relist(): folders are listed even when events or own creations account for their changes. */
  noTrust: boolean;
}

/** Files lstat()ed between two yields to the event loop during a scan. */
const BATCH = 256;
/** A folder walked with more files than this drops the global order (rebuilt once when next asked for) instead of inserting each file. */
const ORDER_BULK = 1000;


export async function maybeYield(s: IndexState): Promise<void> {
  if (++s.sinceYield >= BATCH) {
    s.sinceYield = 0;
    await yieldNow();
  }
}

/**
 * A folder's entries, read 1,024 at a time with a yield between two reads: readdir() of a folder of
 * 100,000 names builds all their entries in one stretch on the event loop (30-40 ms). Each read is
 * synchronous (one getdents call for 1,024 names): awaiting an entry at a time costs a promise per
 * name, four times the CPU.
 */
export async function listDir(abs: string): Promise<fs.Dirent[]> {
  const dir = fs.opendirSync(abs, { bufferSize: 1024 });
  const out: fs.Dirent[] = [];
  try {
    for (;;) {
      let e: fs.Dirent | null = null;
      for (let i = 0; i < 1024 && (e = dir.readSync()); i++) out.push(e);
      if (!e) break;
      await yieldNow();
    }
  } finally {
    dir.closeSync();
  }
  return out;
}

/** Empties the tree and walks the whole scratch folder. */
export async function scanAll(s: IndexState): Promise<void> {
  s.tree.clear();
  s.fullScanAt = Date.now();
  s.errors = [];
  const top = await fs.promises.lstat(s.tree.scratchDir).catch(() => undefined);
  if (!top) return;
  if (!top.isDirectory()) {
    s.errors.push({ file: s.tree.scratchDir, message: top.isSymbolicLink() ? 'is a symbolic link; it is not followed out of .agent/' : 'is not a folder' });
    return;
  }
  s.tree.ensureDir('');
  await walk(s, '');
}

/** Scans one folder's subtree into the tree. */
export async function walk(s: IndexState, rel: string, walked?: Set<string>): Promise<void> {
  walked?.add(rel);
  const { tree } = s;
  const abs = tree.absOf(rel);
  // The folder's stamp is taken before listing: a change during the listing makes it differ next time.
  const dst = fs.lstatSync(abs, { throwIfNoEntry: false });
  const at = Date.now();
  let names: fs.Dirent[];
  try {
    names = await listDir(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') s.errors.push({ file: abs, message: (e as Error).message });
    return;
  }
  const dir = tree.ensureDir(rel);
  dir.listed = dst ? { ...stampOf(dst), at } : undefined;
  dir.followed = undefined;
  if (names.length > ORDER_BULK) tree.dropOrder(); // sorted once when next asked for, not inserted file by file
  const subdirs: string[] = [];
  // lstatSync in small batches with a yield between them: on a local disk this costs about a
  // fifth of the CPU of fs.promises.lstat (no thread-pool hand-off and promise per file), and no
  // batch holds the event loop for more than a few milliseconds.
  for (let i = 0; i < names.length; i++) {
    const d = names[i];
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) {
      subdirs.push(r);
      continue;
    }
    let st: fs.Stats | undefined;
    try {
      s.statted++;
      st = fs.lstatSync(path.join(tree.scratchDir, r));
    } catch {
      st = undefined; // deleted while scanning
    }
    if (st?.isDirectory()) subdirs.push(r);
    else if (st) tree.setFile(r, itemOf(st));
    await maybeYield(s);
  }
  for (const sub of subdirs) {
    tree.ensureDir(sub);
    await walk(s, sub, walked);
  }
}

/** Brings the whole tree up to date at the cost of what changed; a tree that has nothing yet is scanned whole. */
export async function revalidateTree(s: IndexState): Promise<void> {
  const top = fs.lstatSync(s.tree.scratchDir, { throwIfNoEntry: false });
  if (!top || !top.isDirectory() || !s.tree.dirs.get('')?.listed) {
    await scanAll(s);
    return;
  }
  s.errors = [];
  await recheck(s, '', top, new Set());
}

/** Whether a folder's changes since its listing are accounted for by what the index was told (see folderKnown). */
export function trustsFollowed(s: IndexState, own: boolean | undefined): boolean {
  return !s.noTrust && (s.followsEvents || own === true);
}

/** Revalidation of one folder (its stat given) and its subfolders. */
async function recheck(s: IndexState, rel: string, st: fs.Stats, walked: Set<string>): Promise<void> {
  const { tree } = s;
  const d = tree.ensureDir(rel);
  const now = Date.now();
  const restatAll = d.files.size <= RESTAT_ALL_MAX;
  const restat = async (r: string, old: Item): Promise<void> => {
    s.statted++;
    const fst = fs.lstatSync(path.join(tree.scratchDir, r), { throwIfNoEntry: false });
    await maybeYield(s);
    if (!fst) tree.removeFile(r);
    else if (fst.isDirectory()) {
      tree.removeFile(r);
      tree.ensureDir(r);
      await walk(s, r, walked);
    } else if (differs(fst, old)) tree.setFile(r, itemOf(fst, now));
    else {
      old.statAt = now;
      markHot(d, r, old);
    }
  };
  if (folderKnown(d, st, now, trustsFollowed(s, d.followed?.own))) {
    // Same entries as when listed: only files that may have been rewritten in place are stat'ed.
    for (const [r, it] of filesToRestat(d)) await restat(r, it);
  } else {
    const abs = tree.absOf(rel);
    let names: fs.Dirent[];
    try {
      names = await listDir(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') s.errors.push({ file: abs, message: (e as Error).message });
      tree.removeDir(rel);
      return;
    }
    d.listed = { ...stampOf(st), at: now };
    d.followed = undefined;
    s.listedNames += names.length;
    // Files found are marked with this listing's number, folders collected: what is left unmarked is gone.
    const mark = ++tree.listings;
    const presentDirs = new Set<string>();
    for (let i = 0; i < names.length; i++) {
      const e = names[i];
      // A folder of 100,000 names is gone through in slices, not in one stretch.
      if ((i & 4095) === 4095) await yieldNow();
      const r = rel ? `${rel}/${e.name}` : e.name;
      const old = d.files.get(r);
      if (old) old.seen = mark;
      if (e.isDirectory()) {
        presentDirs.add(r);
        if (old) tree.removeFile(r);
        if (!tree.dirs.has(r)) {
          tree.ensureDir(r);
          await walk(s, r, walked);
        }
      } else if (!old) {
        s.statted++;
        const fst = fs.lstatSync(path.join(tree.scratchDir, r), { throwIfNoEntry: false });
        await maybeYield(s);
        if (fst?.isDirectory()) {
          presentDirs.add(r);
          tree.ensureDir(r);
          await walk(s, r, walked);
        } else if (fst) {
          tree.removeDir(r);
          tree.setFile(r, itemOf(fst, now));
        }
      } else if (restatAll || old.statAt - old.mtimeMs <= HOT_MS) {
        await restat(r, old);
        if (tree.dirs.has(r)) presentDirs.add(r); // became a folder since listed
      }
    }
    const gone: string[] = [];
    for (const [r, it] of d.files) if (it.seen !== mark) gone.push(r);
    for (const r of gone) tree.removeFile(r);
    for (const sub of [...d.subdirs]) if (!presentDirs.has(sub)) tree.removeDir(sub);
  }
  for (const sub of [...d.subdirs]) {
    if (walked.has(sub)) continue;
    const sst = fs.lstatSync(path.join(tree.scratchDir, sub), { throwIfNoEntry: false });
    if (sst?.isDirectory()) await recheck(s, sub, sst, walked);
    else {
      tree.removeDir(sub);
      if (sst) tree.setFile(sub, itemOf(sst, now));
    }
  }
}
