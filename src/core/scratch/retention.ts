import * as path from 'node:path';
import type { ScratchEntry } from './scratchEntry';
import { SETTINGS } from '../settingsTable';
import { foldCase } from '../workspace/relativePaths';

/** Limits for scratch; a limit of 0 or less is switched off. */
export interface RetentionPolicy {
  maxAgeHours: number;
  maxFiles: number;
  maxTotalMB: number;
}

/** The defaults of the `agentContext.scratch.*` settings. */
export const DEFAULT_RETENTION: RetentionPolicy = {
  maxAgeHours: SETTINGS['scratch.maxAgeHours'].default,
  maxFiles: SETTINGS['scratch.maxFiles'].default,
  maxTotalMB: SETTINGS['scratch.maxTotalMB'].default,
};

/** Why a file is to be removed. */
export type RemovalReason = 'age' | 'count' | 'size';

export interface RetentionInput {
  files: readonly ScratchEntry[];
  /** Absolute paths never removed; a folder protects everything below it (plan files, evidence, open terminals' files). */
  protectedPaths: Iterable<string>;
  /** Absolute paths of pinned files. */
  pinned: Iterable<string>;
  policy: RetentionPolicy;
  /** Milliseconds since the epoch. */
  now: number;
}

export interface RetentionDecision {
  remove: { entry: ScratchEntry; reason: RemovalReason }[];
  keep: ScratchEntry[];
  keptPinned: number;
  keptProtected: number;
  removeBytes: number;
  /** The decision holds until this time (ms since epoch): then the next file passes the age limit. */
  stableUntil: number;
}

/** Files oldest first, by position (0 is the oldest): an array, or a sorted index read backwards, without copying. */
export interface OldestFirst {
  readonly length: number;
  size(i: number): number;
  mtimeMs(i: number): number;
}

/**
 * How far retention has got through files oldest first: everything before `stop` is decided
 * (removed, or kept as pinned or protected). Continued by advanceRetention when files were only
 * added as the newest or time passed, it gives what a fresh pass would: the removals are always a
 * prefix of the order (minus kept files), and that prefix only grows as files are added or age.
 */
export interface RetentionProgress {
  /** Files looked at by the age limit (all older than the cutoff of the last pass). */
  from: number;
  /** Files decided: [0, stop). */
  stop: number;
  removeCount: number;
  removeBytes: number;
  /** Positions of the first removals (at most the list limit), oldest first. */
  listed: number[];
  /** The time of the pass (ms since epoch): a later pass may only continue at this time or later. */
  now: number;
  /** The decision holds until this time (ms since epoch): then the next file passes the age limit. */
  stableUntil: number;
}

/**
 * Decides (or, given the progress of an earlier pass over the same files in the same order plus
 * files added as the newest, continues deciding) what cleanup removes, oldest first, until scratch
 * is within every limit: first files older than maxAgeHours, then more until at most maxFiles files
 * and maxTotalMB remain. Kept files (pinned, protected) are never removed; they still count toward
 * the limits. Costs the files it newly decides, not all files: a dry run after an offload into a
 * folder of 100,000 files looks at the new file.
 */
export function advanceRetention(prev: RetentionProgress | undefined, files: OldestFirst, totalBytes: number, isKept: (i: number) => boolean, policy: RetentionPolicy, now: number, listLimit = Infinity): RetentionProgress {
  const { maxAgeHours, maxFiles, maxTotalMB } = policy;
  const n = files.length;
  const p: RetentionProgress = prev ? { ...prev, listed: [...prev.listed], now, stableUntil: Infinity } : { from: 0, stop: 0, removeCount: 0, removeBytes: 0, listed: [], now, stableUntil: Infinity };
  const take = (i: number): void => {
    if (p.listed.length < listLimit) p.listed.push(i);
    p.removeCount++;
    p.removeBytes += files.size(i);
  };
  if (maxAgeHours > 0) {
    const cutoff = now - maxAgeHours * 3_600_000;
    let i = p.from;
    for (; i < n && files.mtimeMs(i) < cutoff; i++) if (i >= p.stop && !isKept(i)) take(i);
    p.from = i;
    if (i < n) p.stableUntil = files.mtimeMs(i) + maxAgeHours * 3_600_000;
  }
  p.stop = Math.max(p.stop, p.from);
  const maxBytes = maxTotalMB > 0 ? maxTotalMB * 1024 * 1024 : Infinity;
  const maxCount = maxFiles > 0 ? maxFiles : Infinity;
  let i = p.stop;
  for (; i < n && (n - p.removeCount > maxCount || totalBytes - p.removeBytes > maxBytes); i++) if (!isKept(i)) take(i);
  p.stop = i;
  return p;
}

/**
 * Why each listed removal goes: older than the age limit, or else over the file count when it was
 * taken (the k-th removal leaves n-k files before it), or else over the size limit.
 */
export function removalReasons(p: RetentionProgress, files: OldestFirst, policy: RetentionPolicy): RemovalReason[] {
  const cutoff = policy.maxAgeHours > 0 ? p.now - policy.maxAgeHours * 3_600_000 : -Infinity;
  const maxCount = policy.maxFiles > 0 ? policy.maxFiles : Infinity;
  return p.listed.map((pos, k) => (files.mtimeMs(pos) < cutoff ? 'age' : files.length - k > maxCount ? 'count' : 'size'));
}

/** True when `k` is one of `keys` or below one (`prefixes`: each key with a separator after it). */
export function isProtected(keys: readonly string[], prefixes: readonly string[], k: string): boolean {
  for (let i = 0; i < keys.length; i++) if (k === keys[i] || k.startsWith(prefixes[i])) return true;
  return false;
}

/**
 * planRetentionOrdered over a list of entries in any order (sorted here) with absolute pinned and
 * protected paths. Pure.
 */
export function planRetention(input: RetentionInput): RetentionDecision {
  // Entry paths are absolute; resolving 100,000 of them would dominate the pass, so only odd ones are.
  const odd = /\/\.\.?(?:\/|$)|\/\/|\/$/;
  const abs = (p: string): string => (path.sep !== '/' || !p.startsWith('/') || odd.test(p) ? path.resolve(p) : p);
  // The scratch order read backwards (newest first, ties by path: see ScratchIndex). Inventories come
  // newest first: reversed, they are sorted already and the sort is linear.
  const oldestFirst = [...input.files].reverse().sort((a, b) => a.mtimeMs - b.mtimeMs || (a.rel < b.rel ? 1 : a.rel > b.rel ? -1 : 0));
  let bytes = 0;
  for (const f of input.files) bytes += f.size;
  // Compared as the platform compares paths (case ignored on Windows and macOS).
  const pinned = new Set([...input.pinned].map((p) => foldCase(path.resolve(p))));
  const prot = [...input.protectedPaths].map((p) => foldCase(path.resolve(p)));
  const prefixes = prot.map((p) => (p.endsWith(path.sep) ? p : p + path.sep));
  const kept = new Uint8Array(oldestFirst.length);
  let keptPinned = 0;
  let keptProtected = 0;
  for (let i = 0; i < oldestFirst.length; i++) {
    const k = foldCase(abs(oldestFirst[i].path));
    if (pinned.has(k)) {
      kept[i] = 1;
      keptPinned++;
    } else if (prot.length && isProtected(prot, prefixes, k)) {
      kept[i] = 1;
      keptProtected++;
    }
  }
  const files: OldestFirst = { length: oldestFirst.length, size: (i) => oldestFirst[i].size, mtimeMs: (i) => oldestFirst[i].mtimeMs };
  const p = advanceRetention(undefined, files, bytes, (i) => kept[i] === 1, input.policy, input.now);
  const why = removalReasons(p, files, input.policy);
  const remove = p.listed.map((i, k) => ({ entry: oldestFirst[i], reason: why[k] }));
  const removedSet = remove.length ? new Set(remove.map((r) => r.entry)) : undefined;
  // Kept files in the input's order (newest first for an inventory).
  const keepList = input.files.filter((f) => !removedSet?.has(f));
  return { remove, keep: keepList, keptPinned, keptProtected, removeBytes: p.removeBytes, stableUntil: p.stableUntil };
}
