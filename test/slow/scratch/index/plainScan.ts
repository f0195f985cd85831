import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ScratchEntry } from '../../../../src/core/scratch/scratchEntry';

/*
 * What `.agent/scratch/` holds, found the plainest way there is: a recursive readdirSync + lstatSync
 * that shares no code with the scratch index, answering the index's queries (totals, folder, a page
 * of a folder's files newest first, every file newest first) by sorting everything each time.
 * The scratch index's tests compare against this, so a bug in the index's walk cannot hide.
 */
export interface PlainScan {
  totals(): { files: number; bytes: number };
  folder(rel: string): { rel: string; count: number; bytes: number; subdirs: string[]; files: number } | undefined;
  filesPage(rel: string, offset: number, count: number): { entries: ScratchEntry[]; total: number };
  newestFirst(): (readonly [string, { size: number; mtimeMs: number; symlink: boolean }])[];
  folders(): string[];
}

export function plainScan(agentDir: string): PlainScan {
  const scratch = path.join(agentDir, 'scratch');
  const files: ScratchEntry[] = [];
  const dirs: string[] = [];
  const visit = (rel: string): void => {
    dirs.push(rel);
    for (const name of fs.readdirSync(path.join(scratch, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(path.join(scratch, r));
      if (st.isDirectory()) visit(r);
      else files.push({ path: path.join(scratch, r), rel: r, size: st.size, mtimeMs: st.mtimeMs, symlink: st.isSymbolicLink() });
    }
  };
  if (fs.lstatSync(scratch, { throwIfNoEntry: false })?.isDirectory()) visit('');
  // Newest first; equal times by path (code-unit order), as the index documents.
  const order = (a: ScratchEntry, b: ScratchEntry): number => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);
  const sorted = [...files].sort(order);
  const parent = (r: string): string => (r.includes('/') ? r.slice(0, r.lastIndexOf('/')) : '');
  const under = (rel: string, r: string): boolean => rel === '' || r.startsWith(`${rel}/`);
  return {
    totals: () => ({ files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) }),
    folder(rel) {
      if (!dirs.includes(rel)) return undefined;
      const inside = files.filter((f) => under(rel, f.rel));
      return {
        rel,
        count: inside.length,
        bytes: inside.reduce((n, f) => n + f.size, 0),
        subdirs: dirs.filter((d) => d !== '' && parent(d) === rel).sort(),
        files: files.filter((f) => parent(f.rel) === rel).length,
      };
    },
    filesPage(rel, offset, count) {
      const own = sorted.filter((f) => parent(f.rel) === rel);
      return { entries: own.slice(offset, offset + count), total: own.length };
    },
    newestFirst: () => sorted.map((f) => [f.rel, { size: f.size, mtimeMs: f.mtimeMs, symlink: f.symlink }] as const),
    folders: () => [...dirs],
  };
}
