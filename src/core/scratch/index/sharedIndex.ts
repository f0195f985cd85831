import { KeyedState } from '../../keyedState';
import * as fs from 'node:fs';
import { ScratchIndex } from './scratchIndex';
import { firstScanOnWorker } from './firstScan';
import { stampOf, type FolderStamp } from '../../fs/stamps';

/*
 * One scratch index per `.agent/` folder per process, shared by the Scratch view and the tools
 * (briefing, cleanup's dry run): one copy of 100,000 entries in memory, built once, then kept up to
 * date at the cost of what changed. In the editor the Scratch view feeds it file events
 * (followScratchEvents), so a folder those events account for is not listed again; the MCP server
 * has no watcher and lists a folder again whenever its mtime changed. Both start from the summary
 * when they can (a new MCP server's briefing reads its totals, not 100,000 entries).
 */

let following = false;
let firstScanOffThread = false;

const indexes = new KeyedState<ScratchIndex>(async (agentDir) => {
  // Every index starts from the summary (the newest files of big folders, the totals) when it is
  // whole and the disk agrees with it, and loads the rest only when something needs every file
  // (cleanup's dry run without a stored answer, a page past the newest). Without events (the MCP
  // server) a folder changed since is listed and checked against the summary at each revalidation
  // (scratchSummaryMode.ts), as the editor does after a lost event.
  const ix = await ScratchIndex.build(agentDir, { summary: true, firstScan: firstScanOffThread ? firstScanOnWorker : undefined });
  ix.followsEvents = following;
  return ix;
});

/**
 * Declares that every file event under the scratch folders is passed to scratchIndexChanged from
 * now on (the editor's glue does, from its watcher).
 */
export function followScratchEvents(): void {
  following = true;
}

/**
 * Declares that a first start's full scan (no snapshot, no summary) runs on the check worker: the
 * editor's, so 100,000 stats stay off the extension host's thread (scratch/index/firstScan.ts). The
 * MCP server scans on its own thread, where its call waits for the scan either way.
 */
export function scanFirstOffThread(): void {
  firstScanOffThread = true;
}

/** The shared index of an `.agent/` folder as it is (built on first use), without re-checking the disk. */
export function sharedScratchIndex(agentDir: string): Promise<ScratchIndex> {
  return indexes.get(agentDir);
}

/** The shared index brought up to date with the disk first (costs what changed: see ScratchIndex.revalidate). */
export async function currentScratchIndex(agentDir: string): Promise<ScratchIndex> {
  // A failed revalidation forgets the index: get() then builds it afresh, as it does the first time.
  if (indexes.has(agentDir)) await indexes.update(agentDir, (s) => s.revalidate());
  return indexes.get(agentDir);
}

/** Quiet time after the last scratch change before the index's listings are made real again (ScratchIndex.relist). */
const RELIST_QUIET_MS = 60_000;
const relistTimers = new Map<string, NodeJS.Timeout>();

/**
 * Schedules the index's upkeep for when scratch has been quiet a while: folders whose changes
 * events or own creations accounted for are listed for real and the snapshot and summary written,
 * so the next start needs neither a listing nor the whole snapshot. Never keeps a process alive.
 */
function relistLater(agentDir: string): void {
  clearTimeout(relistTimers.get(agentDir));
  const t = setTimeout(() => {
    relistTimers.delete(agentDir);
    void indexes.update(agentDir, (s) => s.relist());
  }, RELIST_QUIET_MS);
  t.unref();
  relistTimers.set(agentDir, t);
}

/**
 * Applies file events (absolute paths; undefined: unknown or too many to apply, revalidate
 * everything without trusting earlier events: see ScratchIndex.revalidate) to the index of an
 * `.agent/` folder, if one was built. Resolves false when there is none or the update failed
 * (the index is then forgotten and the next use builds it afresh).
 */
export function scratchIndexChanged(agentDir: string, paths: Iterable<string> | undefined): Promise<boolean> {
  if (indexes.has(agentDir)) relistLater(agentDir);
  return indexes.update(agentDir, (s) => (paths ? s.update(paths) : s.revalidate({ trustEvents: false })));
}

/** A folder's stamp now (before or after creating a file in it), for noteScratchCreated. */
export function folderStamp(dir: string): FolderStamp | undefined {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return st?.isDirectory() ? stampOf(st) : undefined;
}

/**
 * Tells the index of an `.agent/` folder (if this process built one) about a scratch file this
 * process created, with its folder's stamps from right before and right after the creation: the
 * next reader then need not list that folder again (ScratchIndex.noteCreated).
 */
export async function noteScratchCreated(agentDir: string, abs: string, before: FolderStamp | undefined, after: FolderStamp | undefined): Promise<void> {
  if (indexes.has(agentDir)) relistLater(agentDir);
  await indexes.update(agentDir, (s) => s.noteCreated(abs, before, after));
}
