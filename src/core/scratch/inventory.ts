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

/**
 * Lists everything under `.agent/scratch/` with lstat only: symlinks are listed but never
 * followed, files that vanish during the scan are skipped. Files come newest first.
 */
export async function scanScratch(agentDir: string): Promise<ScratchInventory> {
  const scratchDir = scratchDirOf(agentDir);
  const inv: ScratchInventory = { agentDir, scratchDir, files: [], dirs: [], totalBytes: 0, errors: [] };
  const top = await fs.promises.lstat(scratchDir).catch(() => undefined);
  if (!top) return inv;
  if (!top.isDirectory()) {
    inv.errors.push({ file: scratchDir, message: top.isSymbolicLink() ? 'is a symbolic link; it is not followed out of .agent/' : 'is not a folder' });
    return inv;
  }
  const walk = async (dir: string, rel: string): Promise<void> => {
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') inv.errors.push({ file: dir, message: (e as Error).message });
      return;
    }
    const subdirs: Promise<void>[] = [];
    await Promise.all(
      names.map(async (d) => {
        const abs = path.join(dir, d.name);
        const r = rel ? `${rel}/${d.name}` : d.name;
        if (d.isDirectory()) {
          inv.dirs.push(r);
          subdirs.push(walk(abs, r));
          return;
        }
        let st: fs.Stats;
        try {
          st = await fs.promises.lstat(abs);
        } catch {
          return; // deleted while scanning
        }
        if (st.isDirectory()) {
          inv.dirs.push(r);
          subdirs.push(walk(abs, r));
          return;
        }
        inv.files.push({ path: abs, rel: r, size: st.size, mtimeMs: st.mtimeMs, symlink: st.isSymbolicLink() });
        inv.totalBytes += st.size;
      }),
    );
    await Promise.all(subdirs);
  };
  await walk(scratchDir, '');
  inv.files.sort((a, b) => b.mtimeMs - a.mtimeMs || a.rel.localeCompare(b.rel));
  inv.dirs.sort();
  return inv;
}
