import * as path from 'node:path';
import { ScratchEntry } from './inventory';

/** Limits for scratch; a limit of 0 or less is switched off. */
export interface RetentionPolicy {
  maxAgeHours: number;
  maxFiles: number;
  maxTotalMB: number;
}

/** The defaults of the `agentContext.scratch.*` settings. */
export const DEFAULT_RETENTION: RetentionPolicy = { maxAgeHours: 24, maxFiles: 500, maxTotalMB: 200 };

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

function protects(prot: readonly string[], prefixes: readonly string[], file: string): boolean {
  for (let i = 0; i < prot.length; i++) if (file === prot[i] || file.startsWith(prefixes[i])) return true;
  return false;
}

/**
 * Decides what cleanup removes, oldest first, until scratch is within every limit: first files
 * older than maxAgeHours, then more until at most maxFiles files and maxTotalMB remain.
 * Pinned and protected files are never removed (they still count toward the limits). Pure.
 */
export function planRetention(input: RetentionInput): RetentionDecision {
  const pinned = new Set([...input.pinned].map((p) => path.resolve(p)));
  const prot = [...input.protectedPaths].map((p) => path.resolve(p));
  const prefixes = prot.map((p) => (p.endsWith(path.sep) ? p : p + path.sep));
  const { maxAgeHours, maxFiles, maxTotalMB } = input.policy;
  // Inventories come newest first: reversed, they are (nearly) sorted already and the sort is linear.
  const oldestFirst = [...input.files].reverse().sort((a, b) => a.mtimeMs - b.mtimeMs || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  // Entry paths are absolute; resolving 100,000 of them would dominate the pass, so only odd ones are.
  const odd = /\/\.\.?(?:\/|$)|\/\/|\/$/;
  const abs = (p: string): string => (path.sep !== '/' || !p.startsWith('/') || odd.test(p) ? path.resolve(p) : p);
  let keptPinned = 0;
  let keptProtected = 0;
  const removable = new Uint8Array(oldestFirst.length);
  for (let i = 0; i < oldestFirst.length; i++) {
    const p = abs(oldestFirst[i].path);
    if (pinned.has(p)) keptPinned++;
    else if (prot.length && protects(prot, prefixes, p)) keptProtected++;
    else removable[i] = 1;
  }
  const remove: RetentionDecision['remove'] = [];
  let count = input.files.length;
  let bytes = 0;
  for (const f of input.files) bytes += f.size;
  let removeBytes = 0;
  const take = (i: number, reason: RemovalReason) => {
    const f = oldestFirst[i];
    remove.push({ entry: f, reason });
    removable[i] = 0;
    count--;
    bytes -= f.size;
    removeBytes += f.size;
  };
  let stableUntil = Infinity;
  if (maxAgeHours > 0) {
    const cutoff = input.now - maxAgeHours * 3_600_000;
    let i = 0;
    for (; i < oldestFirst.length && oldestFirst[i].mtimeMs < cutoff; i++) if (removable[i]) take(i, 'age');
    if (i < oldestFirst.length) stableUntil = oldestFirst[i].mtimeMs + maxAgeHours * 3_600_000;
  }
  const maxBytes = maxTotalMB > 0 ? maxTotalMB * 1024 * 1024 : Infinity;
  const maxCount = maxFiles > 0 ? maxFiles : Infinity;
  for (let i = 0; i < oldestFirst.length; i++) {
    if (count <= maxCount && bytes <= maxBytes) break;
    if (removable[i]) take(i, count > maxCount ? 'count' : 'size');
  }
  const keep: ScratchEntry[] = [];
  // Kept files in the input's order (newest first for an inventory).
  const removedSet = remove.length ? new Set(remove.map((r) => r.entry)) : undefined;
  for (const f of input.files) if (!removedSet?.has(f)) keep.push(f);
  return { remove, keep, keptPinned, keptProtected, removeBytes, stableUntil };
}
