import * as fs from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../agentLayout';
import { FileError } from '../result';

/** One file (or symlink, never followed) under `.agent/scratch/`. */
export interface ScratchEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the scratch folder, with forward slashes. */
  rel: string;
  size: number;
  mtimeMs: number;
  symlink: boolean;
}

/** Everything under `.agent/scratch/`: files, folders (relative, forward slashes) and totals. */
export interface ScratchInventory {
  agentDir: string;
  scratchDir: string;
  files: ScratchEntry[];
  dirs: string[];
  totalBytes: number;
  /** Problems that did not stop the scan (unreadable folders, a symlinked scratch folder). */
  errors: FileError[];
}

/** The scratch folder of an `.agent/` folder. */
export function scratchDirOf(agentDir: string): string {
  return path.join(agentDir, LAYOUT.scratch);
}

/** One folder as last listed: its identity and mtime when listed, and its entries. */
interface DirState {
  ino: number;
  mtimeMs: number;
  /** When it was listed (ms since epoch). */
  listedAt: number;
  files: Map<string, { size: number; mtimeMs: number; symlink: boolean; statAt: number }>;
  subdirs: string[];
}

interface ScratchCache {
  dirs: Map<string, DirState>;
  /** The last inventory handed out; reused while nothing changed. */
  last?: ScratchInventory;
}

const caches = new Map<string, ScratchCache>();

/** A folder whose mtime is this close to when it was listed may have changed again within the same timestamp: list it again. */
const RACY_MS = 1000;
/** Files modified this recently (when last looked at) are stat'ed again on every scan: something may still be appending to them. */
const HOT_MS = 10 * 60_000;
/**
 * Folders with at most this many entries are stat'ed whole on every scan (a file rewritten in place
 * changes no folder mtime). Bigger ones (tool_outputs/: files written once) re-stat only new and
 * recently written files; cleanup re-scans from scratch before it removes anything.
 */
const RESTAT_ALL_MAX = 500;

/**
 * Lists everything under `.agent/scratch/` with lstat only: symlinks are listed but never
 * followed, files that vanish during the scan are skipped. Files come newest first.
 *
 * Incremental within a process: a folder whose mtime and inode are unchanged since it was listed
 * (files added, removed or renamed always change them) is not listed again; in a big folder only new
 * names and recently modified files are stat'ed, so a scan costs what changed, not the number of
 * files. `fresh` forgets the cache (cleanup does, before removing anything).
 * The returned inventory may be shared with other callers: do not modify it.
 */
export async function scanScratch(agentDir: string, opts: { fresh?: boolean } = {}): Promise<ScratchInventory> {
  const scratchDir = scratchDirOf(agentDir);
  const empty: ScratchInventory = { agentDir, scratchDir, files: [], dirs: [], totalBytes: 0, errors: [] };
  const top = await fs.promises.lstat(scratchDir).catch(() => undefined);
  if (!top) {
    caches.delete(scratchDir);
    return empty;
  }
  if (!top.isDirectory()) {
    caches.delete(scratchDir);
    empty.errors.push({ file: scratchDir, message: top.isSymbolicLink() ? 'is a symbolic link; it is not followed out of .agent/' : 'is not a folder' });
    return empty;
  }
  if (opts.fresh) caches.delete(scratchDir);
  let cache = caches.get(scratchDir);
  if (!cache) caches.set(scratchDir, (cache = { dirs: new Map() }));
  const c = cache;
  const errors: FileError[] = [];
  const seen = new Set<string>();
  let changed = false;
  const now = Date.now();
  const visit = async (dir: string, rel: string, st: fs.Stats): Promise<void> => {
    seen.add(rel);
    let d = c.dirs.get(rel);
    const fresh = d && d.ino === st.ino && d.mtimeMs === st.mtimeMs && d.listedAt - st.mtimeMs > RACY_MS;
    if (!d || !fresh) {
      let names: fs.Dirent[];
      try {
        names = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') errors.push({ file: dir, message: (e as Error).message });
        c.dirs.delete(rel);
        changed = true;
        return;
      }
      const old = d?.files;
      const next: DirState = { ino: st.ino, mtimeMs: st.mtimeMs, listedAt: now, files: new Map(), subdirs: [] };
      await Promise.all(
        names.map(async (e) => {
          const r = rel ? `${rel}/${e.name}` : e.name;
          if (e.isDirectory()) {
            next.subdirs.push(r);
            return;
          }
          const prev = old?.get(e.name);
          // A name seen before keeps its old stat only in a big folder (tool_outputs: files written
          // once); in a small one, a file replaced by rename (a plan saved atomically) is stat'ed again.
          if (prev && names.length > RESTAT_ALL_MAX && now - prev.mtimeMs > HOT_MS) {
            next.files.set(e.name, prev);
            return;
          }
          try {
            const fst = await fs.promises.lstat(path.join(dir, e.name));
            if (fst.isDirectory()) next.subdirs.push(r);
            else next.files.set(e.name, { size: fst.size, mtimeMs: fst.mtimeMs, symlink: fst.isSymbolicLink(), statAt: now });
          } catch {
            // deleted while scanning
          }
        }),
      );
      next.subdirs.sort();
      c.dirs.set(rel, next);
      d = next;
      changed = true;
    } else {
      // Unchanged folder: files rewritten in place are found by a stat (all of a small folder, the recently written ones of a big one).
      const all = d.files.size <= RESTAT_ALL_MAX;
      for (const [name, f] of d.files) {
        if (!all && f.statAt - f.mtimeMs > HOT_MS) continue;
        try {
          const fst = await fs.promises.lstat(path.join(dir, name));
          if (fst.size !== f.size || fst.mtimeMs !== f.mtimeMs) changed = true;
          d.files.set(name, { size: fst.size, mtimeMs: fst.mtimeMs, symlink: fst.isSymbolicLink(), statAt: now });
        } catch {
          d.files.delete(name);
          changed = true;
        }
      }
    }
    await Promise.all(
      d.subdirs.map(async (r) => {
        const abs = path.join(scratchDir, ...r.split('/'));
        const sst = await fs.promises.lstat(abs).catch(() => undefined);
        if (sst?.isDirectory()) await visit(abs, r, sst);
        else changed = true;
      }),
    );
  };
  await visit(scratchDir, '', top);
  for (const rel of [...c.dirs.keys()]) {
    if (!seen.has(rel)) {
      c.dirs.delete(rel);
      changed = true;
    }
  }
  if (!changed && c.last && errors.length === 0) return c.last;
  const inv: ScratchInventory = { agentDir, scratchDir, files: [], dirs: [], totalBytes: 0, errors };
  for (const [rel, d] of c.dirs) {
    if (rel) inv.dirs.push(rel);
    const base = rel ? path.join(scratchDir, ...rel.split('/')) : scratchDir;
    for (const [name, f] of d.files) {
      inv.files.push({ path: path.join(base, name), rel: rel ? `${rel}/${name}` : name, size: f.size, mtimeMs: f.mtimeMs, symlink: f.symlink });
      inv.totalBytes += f.size;
    }
  }
  inv.files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  inv.dirs.sort();
  c.last = inv;
  return inv;
}
