import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileError } from '../result';
import { scratchDirOf, type ScratchEntry } from './inventory';

/*
 * An in-memory index of `.agent/scratch/` for the Scratch view, kept up to date from file events
 * instead of re-scanning: one offload into a folder of 100,000 files costs one lstat, not 100,000.
 * Pages of a folder's files come newest first without sorting the folder (a bounded selection of
 * the newest offset+count), and every folder knows its subtree's file count and bytes.
 * The first scan lstat()s with bounded concurrency and yields to the event loop between batches,
 * so it never blocks the extension host for long. Symlinks are listed, never followed.
 */

interface Item {
  size: number;
  mtimeMs: number;
  symlink: boolean;
}

interface Dir {
  subdirs: Set<string>;
  /** Relative paths of the files directly inside. */
  files: Set<string>;
  /** Files and bytes in the whole subtree. */
  count: number;
  bytes: number;
}

const CONCURRENCY = 64;
/** Entries handled between two yields to the event loop during a scan. */
const YIELD_EVERY = 2000;

const parentOf = (rel: string): string => {
  const i = rel.lastIndexOf('/');
  return i === -1 ? '' : rel.slice(0, i);
};

const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

/** `.agent/scratch/` as an index that follows changes (see the comment at the top of the file). */
export class ScratchIndex {
  readonly scratchDir: string;
  private readonly files = new Map<string, Item>();
  private readonly dirs = new Map<string, Dir>();
  /** Problems that did not stop the scan (unreadable folders, a symlinked scratch folder). */
  errors: FileError[] = [];
  private sinceYield = 0;

  private constructor(readonly agentDir: string) {
    this.scratchDir = scratchDirOf(agentDir);
  }

  /** Scans the scratch folder of an `.agent/` folder. */
  static async build(agentDir: string): Promise<ScratchIndex> {
    const ix = new ScratchIndex(agentDir);
    await ix.scanAll();
    return ix;
  }

  private async scanAll(): Promise<void> {
    this.files.clear();
    this.dirs.clear();
    this.errors = [];
    const top = await fs.promises.lstat(this.scratchDir).catch(() => undefined);
    if (!top) return;
    if (!top.isDirectory()) {
      this.errors.push({ file: this.scratchDir, message: top.isSymbolicLink() ? 'is a symbolic link; it is not followed out of .agent/' : 'is not a folder' });
      return;
    }
    this.ensureDir('');
    await this.walk('');
  }

  private ensureDir(rel: string): Dir {
    let d = this.dirs.get(rel);
    if (!d) {
      d = { subdirs: new Set(), files: new Set(), count: 0, bytes: 0 };
      this.dirs.set(rel, d);
      if (rel !== '') this.ensureDir(parentOf(rel)).subdirs.add(rel);
    }
    return d;
  }

  /** Adds `delta` files and `bytes` to a folder and every folder above it. */
  private bubble(dirRel: string, delta: number, bytes: number): void {
    for (let p = dirRel; ; p = parentOf(p)) {
      const d = this.dirs.get(p);
      if (d) {
        d.count += delta;
        d.bytes += bytes;
      }
      if (p === '') break;
    }
  }

  private setFile(rel: string, item: Item): void {
    const old = this.files.get(rel);
    const dir = parentOf(rel);
    this.ensureDir(dir).files.add(rel);
    this.files.set(rel, item);
    this.bubble(dir, old ? 0 : 1, item.size - (old?.size ?? 0));
  }

  private removeFile(rel: string): void {
    const old = this.files.get(rel);
    if (!old) return;
    this.files.delete(rel);
    const dir = parentOf(rel);
    this.dirs.get(dir)?.files.delete(rel);
    this.bubble(dir, -1, -old.size);
  }

  private removeDir(rel: string): void {
    const d = this.dirs.get(rel);
    if (!d) return;
    for (const s of [...d.subdirs]) this.removeDir(s);
    for (const f of [...d.files]) this.removeFile(f);
    this.dirs.delete(rel);
    if (rel !== '') this.dirs.get(parentOf(rel))?.subdirs.delete(rel);
  }

  /** Scans one folder's subtree into the index. */
  private async walk(rel: string): Promise<void> {
    const abs = rel ? path.join(this.scratchDir, rel) : this.scratchDir;
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(abs, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.errors.push({ file: abs, message: (e as Error).message });
      return;
    }
    this.ensureDir(rel);
    const subdirs: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) {
        const d = names[next++];
        const r = rel ? `${rel}/${d.name}` : d.name;
        if (d.isDirectory()) {
          subdirs.push(r);
          continue;
        }
        await this.statInto(r);
        if (++this.sinceYield >= YIELD_EVERY) {
          this.sinceYield = 0;
          await yieldNow();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, names.length) }, worker));
    for (const s of subdirs) {
      this.ensureDir(s);
      await this.walk(s);
    }
  }

  /** lstat()s one path and records it (a folder found here is walked); false when it is gone. */
  private async statInto(rel: string): Promise<boolean> {
    let st: fs.Stats;
    try {
      st = await fs.promises.lstat(path.join(this.scratchDir, rel));
    } catch {
      return false; // deleted while scanning
    }
    if (st.isDirectory()) {
      this.ensureDir(rel);
      await this.walk(rel);
    } else this.setFile(rel, { size: st.size, mtimeMs: st.mtimeMs, symlink: st.isSymbolicLink() });
    return true;
  }

  /**
   * Brings the index up to date for paths a file watcher reported (absolute). A folder that appeared
   * is walked; a path that is gone is removed with everything under it. Paths outside the scratch
   * folder are ignored; the scratch folder itself triggers a full scan.
   */
  async update(absPaths: Iterable<string>): Promise<void> {
    for (const abs of absPaths) {
      const rel = path.relative(this.scratchDir, abs).split(path.sep).join('/');
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      if (rel === '') {
        await this.scanAll();
        return;
      }
      let st: fs.Stats | undefined;
      try {
        st = await fs.promises.lstat(abs);
      } catch {
        st = undefined;
      }
      if (!st) {
        this.removeFile(rel);
        this.removeDir(rel);
      } else if (st.isDirectory()) {
        // Re-walk it: a folder moved in brings files that may fire no events of their own.
        this.removeDir(rel);
        this.removeFile(rel);
        this.ensureDir(rel);
        await this.walk(rel);
      } else {
        this.removeDir(rel);
        this.setFile(rel, { size: st.size, mtimeMs: st.mtimeMs, symlink: st.isSymbolicLink() });
      }
    }
  }

  /** Files and bytes under the scratch folder. */
  totals(): { files: number; bytes: number } {
    const d = this.dirs.get('');
    return { files: d?.count ?? 0, bytes: d?.bytes ?? 0 };
  }

  /** A folder's subtree totals and its subfolders (sorted by name), or undefined when unknown. */
  folder(rel: string): { rel: string; count: number; bytes: number; subdirs: string[]; files: number } | undefined {
    const d = this.dirs.get(rel);
    return d ? { rel, count: d.count, bytes: d.bytes, subdirs: [...d.subdirs].sort(), files: d.files.size } : undefined;
  }

  /** A page of a folder's own files, newest first (ties by path): entries offset .. offset+count-1. */
  filesPage(rel: string, offset: number, count: number): { entries: ScratchEntry[]; total: number } {
    const d = this.dirs.get(rel);
    if (!d) return { entries: [], total: 0 };
    const k = offset + count;
    // The newest k without sorting the folder: a sorted buffer of at most k (binary insertion).
    const best: [string, Item][] = [];
    const newer = (a: [string, Item], b: [string, Item]): boolean => a[1].mtimeMs > b[1].mtimeMs || (a[1].mtimeMs === b[1].mtimeMs && a[0] < b[0]);
    for (const r of d.files) {
      const it = this.files.get(r);
      if (!it) continue;
      const e: [string, Item] = [r, it];
      if (best.length === k && !newer(e, best[k - 1])) continue;
      let lo = 0;
      let hi = best.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (newer(best[mid], e)) lo = mid + 1;
        else hi = mid;
      }
      best.splice(lo, 0, e);
      if (best.length > k) best.pop();
    }
    const entries = best.slice(offset).map(([r, it]) => ({ path: path.join(this.scratchDir, r), rel: r, size: it.size, mtimeMs: it.mtimeMs, symlink: it.symlink }));
    return { entries, total: d.files.size };
  }
}
