import * as path from 'node:path';
import { type ScratchInventory } from '../scratchEntry';
import { ScratchIndex } from './scratchIndex';

/**
 * Lists everything under `.agent/scratch/` afresh with lstat only: symlinks are listed but never
 * followed, files that vanish during the scan are skipped. Files come newest first. The product's
 * own readers use the index a process keeps (sharedIndex.ts); this is the whole list, for tests,
 * benchmarks and one-off reports.
 */
export async function scanScratch(agentDir: string): Promise<ScratchInventory> {
  const ix = await ScratchIndex.build(agentDir, { snapshot: false });
  const inv: ScratchInventory = { agentDir, scratchDir: ix.scratchDir, files: [], dirs: ix.folders().filter((d) => d !== ''), totalBytes: ix.totals().bytes, errors: ix.errors };
  for (const [rel, f] of ix.newestFirst()) inv.files.push({ path: path.join(ix.scratchDir, ...rel.split('/')), rel, size: f.size, mtimeMs: f.mtimeMs, symlink: f.symlink });
  inv.dirs.sort();
  return inv;
}
