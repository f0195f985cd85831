/**
 * A first start's full scan of scratch/ on the check worker (fs/digestCheck.ts, dist/digest-check.js),
 * for the editor: with no snapshot or summary in `.agent/.cache/` (a first start in a workspace, or
 * a wiped cache), the index stats every file. At 100,000 files that was ~1 s of the extension host's
 * CPU (bench row 19a, the first of its starts at L: 505 ms of it lstat). The worker builds an index,
 * writes the snapshot and summary, and the editor's index starts from that summary
 * (ScratchIndex.build's `firstScan`), checked against the disk like any.
 */
import { runCheckWorker } from '../../fs/digestCheck';
import { ScratchIndex } from './scratchIndex';

/** What the check worker is started with, and what it posts: whether it wrote the snapshot and summary. */
export interface FirstScanData {
  agentContextScratchScan: string;
}
export interface FirstScanDone {
  agentContextScratchScan: 'done';
  saved?: boolean;
}

/** On the check worker (fs/digestCheckEntry.ts): scans `data`'s scratch folder and writes the snapshot and summary. */
export async function firstScanHere(data: FirstScanData): Promise<FirstScanDone> {
  try {
    const ix = await ScratchIndex.build(data.agentContextScratchScan, { snapshot: false });
    return { agentContextScratchScan: 'done', saved: await ix.saveSnapshot() };
  } catch {
    return { agentContextScratchScan: 'done', saved: false };
  }
}

/** The full scan of `agentDir`'s scratch folder done on the check worker; true when it wrote the snapshot and summary. */
export async function firstScanOnWorker(agentDir: string): Promise<boolean> {
  const done = await runCheckWorker<FirstScanDone>({ agentContextScratchScan: agentDir } satisfies FirstScanData, (m) => (m as Partial<FirstScanDone> | undefined)?.agentContextScratchScan === 'done');
  return done?.saved === true;
}
