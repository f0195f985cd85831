/**
 * A changed scratch folder's listing held against what a summary-mode index knows of it
 * (scratchSummaryMode.ts absorbListing): which loaded files are still there, how many names its
 * filter claims, which names are new. At a heavy user's size scratch/ holds 25,000 files: listing it
 * and hashing every name cost the extension host ~56 ms of CPU at the first start after an agent
 * added files (bench row 19a), so a big folder is listed on the check worker (fs/digestCheck.ts,
 * dist/digest-check.js). The same function decides on either thread.
 */
import * as fs from 'node:fs';
import { runCheckWorker } from '../../fs/digestCheck';
import { NameBloom } from './scratchSummary';
import type { NameFilter } from './scratchTree';
import { tuning } from '../../processState';

/** What a folder's listing says against what the index knows of it. */
export interface ListingCheck {
  /** Names listed. */
  total: number;
  /** Known subfolders listed (any other subfolder makes the listing 'apart'). */
  subdirs: number;
  /** Files listed that are loaded, or that the folder's filter claims. */
  known: number;
  /** The loaded files listed. */
  seen: string[];
  /** Files listed that are neither loaded nor claimed by the filter (their relative paths). */
  fresh: string[];
}

/**
 * What the index knows of a folder: its loaded files (relative paths), its subfolders, and for a big
 * folder the filter of every file's name.
 */
export interface KnownFolder {
  loaded: Pick<ReadonlySet<string>, 'has' | 'keys'>;
  subdirs: ReadonlySet<string>;
  bloom?: NameFilter;
}

/** An entry of a listing: a name, and whether it is a folder (from the listing itself). */
export interface ListedName {
  name: string;
  isDirectory(): boolean;
}

/**
 * Holds folder `rel`'s listing against the index: 'apart' when it cannot be told apart from what
 * the index knows (a subfolder the index does not know). `pause` lets the caller's thread breathe
 * every 4,096 names.
 */
export async function checkListing(
  names: readonly ListedName[],
  rel: string,
  known: Pick<KnownFolder, 'subdirs'> & { loaded: Pick<ReadonlySet<string>, 'has'>; bloom?: Pick<NameFilter, 'has'> },
  pause?: () => Promise<void>,
): Promise<ListingCheck | 'apart'> {
  const out: ListingCheck = { total: names.length, subdirs: 0, known: 0, seen: [], fresh: [] };
  for (let i = 0; i < names.length; i++) {
    if (pause && (i & 4095) === 4095) await pause();
    const e = names[i];
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!known.subdirs.has(r)) return 'apart';
      out.subdirs++;
    } else if (known.loaded.has(r)) {
      out.seen.push(r);
      out.known++;
    } else if (known.bloom?.has(r)) out.known++;
    else out.fresh.push(r);
  }
  return out;
}

/** What the check worker is started with to check a listing. */
export interface ListingCheckData {
  agentContextScratchListing: string;
  rel: string;
  loaded: string[];
  subdirs: string[];
  bloom?: Uint8Array;
}

/** What the check worker posts: the check, 'apart', or neither when it could not list the folder. */
export interface ListingCheckDone {
  agentContextScratchListing: 'done';
  check?: ListingCheck | 'apart';
}

/** On the check worker (fs/digestCheckEntry.ts): lists `data`'s folder and checks the listing. */
export async function listingCheckOnWorker(data: ListingCheckData): Promise<ListingCheckDone> {
  try {
    const bloom = data.bloom ? NameBloom.fromBits(data.bloom) : undefined;
    const loaded = new Set(data.loaded);
    const names = fs.readdirSync(data.agentContextScratchListing, { withFileTypes: true });
    return { agentContextScratchListing: 'done', check: await checkListing(names, data.rel, { loaded, subdirs: new Set(data.subdirs), bloom }) };
  } catch {
    return { agentContextScratchListing: 'done' };
  }
}

/**
 * Folder `abs` (`rel` in scratch/) listed and checked on the check worker, when it has at least
 * `names` names as far as the index knows; undefined when it is smaller or the worker cannot do it
 * (the caller lists on its own thread).
 */
export async function checkListingOffThread(
  abs: string,
  rel: string,
  names: number,
  known: KnownFolder,
): Promise<ListingCheck | 'apart' | undefined> {
  if (names < tuning.listingOffThreadMinNames) return undefined;
  const data: ListingCheckData = { agentContextScratchListing: abs, rel, loaded: [...known.loaded.keys()], subdirs: [...known.subdirs], bloom: known.bloom?.bits.slice() };
  const done = await runCheckWorker<ListingCheckDone>(data, (m) => (m as Partial<ListingCheckDone> | undefined)?.agentContextScratchListing === 'done');
  const check = done?.check;
  if (check === 'apart') return check;
  const valid = check && [check.total, check.subdirs, check.known].every((x) => Number.isInteger(x)) && Array.isArray(check.seen) && Array.isArray(check.fresh);
  return valid ? check : undefined;
}
