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
}

function protects(prot: readonly string[], file: string): boolean {
  return prot.some((p) => file === p || file.startsWith(p.endsWith(path.sep) ? p : p + path.sep));
}

/**
 * Decides what cleanup removes, oldest first, until scratch is within every limit: first files
 * older than maxAgeHours, then more until at most maxFiles files and maxTotalMB remain.
 * Pinned and protected files are never removed (they still count toward the limits). Pure.
 */
export function planRetention(input: RetentionInput): RetentionDecision {
  const pinned = new Set([...input.pinned].map((p) => path.resolve(p)));
  const prot = [...input.protectedPaths].map((p) => path.resolve(p));
  const { maxAgeHours, maxFiles, maxTotalMB } = input.policy;
  const oldestFirst = [...input.files].sort((a, b) => a.mtimeMs - b.mtimeMs || a.rel.localeCompare(b.rel));
  let keptPinned = 0;
  let keptProtected = 0;
  const removable = new Set<ScratchEntry>();
  for (const f of oldestFirst) {
    if (pinned.has(path.resolve(f.path))) keptPinned++;
    else if (protects(prot, path.resolve(f.path))) keptProtected++;
    else removable.add(f);
  }
  const remove: RetentionDecision['remove'] = [];
  let count = input.files.length;
  let bytes = input.files.reduce((s, f) => s + f.size, 0);
  const take = (f: ScratchEntry, reason: RemovalReason) => {
    remove.push({ entry: f, reason });
    removable.delete(f);
    count--;
    bytes -= f.size;
  };
  if (maxAgeHours > 0) {
    const cutoff = input.now - maxAgeHours * 3_600_000;
    for (const f of oldestFirst) if (removable.has(f) && f.mtimeMs < cutoff) take(f, 'age');
  }
  const maxBytes = maxTotalMB > 0 ? maxTotalMB * 1024 * 1024 : Infinity;
  const maxCount = maxFiles > 0 ? maxFiles : Infinity;
  for (const f of oldestFirst) {
    if (count <= maxCount && bytes <= maxBytes) break;
    if (removable.has(f)) take(f, count > maxCount ? 'count' : 'size');
  }
  const removed = new Set(remove.map((r) => r.entry));
  return {
    remove,
    keep: input.files.filter((f) => !removed.has(f)),
    keptPinned,
    keptProtected,
    removeBytes: remove.reduce((s, r) => s + r.entry.size, 0),
  };
}
