import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentDirOf, isInside } from '../agentLayout';
import { findPlanFiles, isMarkdownPlan, parsePlanText } from '../plan/planFiles';
import { err, formatFileError, ok, Result } from '../result';
import { moveToTrash, TrashOptions } from '../trash';
import { scanScratch, type ScratchInventory } from './inventory';
import { loadPins } from './pins';
import { planRetention, RemovalReason, RetentionPolicy } from './retention';

/**
 * Paths cleanup must keep for this workspace root: every plan file and every evidence path the
 * plans list (resolved inside the workspace). A plan that cannot be read is an error, because
 * its evidence would be unknown.
 */
export async function planProtectedPaths(workspaceRoot: string): Promise<Result<string[]>> {
  const agentDir = agentDirOf(workspaceRoot);
  const files = await findPlanFiles(agentDir);
  const out: string[] = [...files];
  for (const file of files) {
    if (isMarkdownPlan(file)) continue; // Markdown plans list no evidence; the file itself is kept above
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch {
      continue; // removed meanwhile
    }
    const plan = parsePlanText(text, file);
    if (!plan.ok) return plan;
    for (const step of plan.value.steps) {
      for (const ev of step.evidence ?? []) {
        const abs = path.resolve(workspaceRoot, ev);
        if (isInside(workspaceRoot, abs)) out.push(abs);
      }
    }
  }
  return ok(out);
}

const dryRuns = new Map<string, { inv: ScratchInventory; key: string; stableUntil: number; at: number; report: CleanupReport }>();

export interface CleanupOptions {
  workspaceRoot: string;
  policy: RetentionPolicy;
  /** Defaults to Date.now(). */
  now?: number;
  /** More paths to keep (open terminals' files, history...). */
  extraProtected?: readonly string[];
  /** Only report what would go. */
  dryRun?: boolean;
  trash?: TrashOptions;
}

/** A file cleanup removed (or would remove); `rel` is relative to `.agent/scratch/`. */
export interface CleanupItem {
  rel: string;
  path: string;
  size: number;
  reason: RemovalReason;
}

/** What a cleanup did (or, for a dry run, would do). */
export interface CleanupReport {
  dryRun: boolean;
  /** Trashed files, or for a dry run the files that would go. */
  removed: CleanupItem[];
  removedBytes: number;
  keptPinned: number;
  keptProtected: number;
  /** Files that would have gone but have no usable trash: nothing was done; ask, then deletePermanently. */
  noTrash: CleanupItem[];
  failed: { path: string; message: string }[];
  /** "Removed N files (X MB), kept K pinned". */
  summary: string;
}

/** Formats bytes as MB with one decimal, the unit the settings use. */
export function formatMB(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Runs the retention policy on `.agent/scratch/` of a workspace root and moves what it selects
 * to the OS trash. Shared by the command, the agentContext_cleanup tool and the MCP server.
 */
export async function cleanupScratch(opts: CleanupOptions): Promise<Result<CleanupReport>> {
  const agentDir = agentDirOf(opts.workspaceRoot);
  const pins = await loadPins(agentDir);
  if (!pins.ok) return err({ ...pins.error, message: `cleanup skipped: ${pins.error.message}` });
  const prot = await planProtectedPaths(opts.workspaceRoot);
  if (!prot.ok) {
    return err({ ...prot.error, message: `cleanup skipped because a plan cannot be read, so its evidence files are unknown (${formatFileError(prot.error)}); fix the plan and try again` });
  }
  // Before removing anything, every file is stat'ed afresh (the incremental inventory may not have
  // seen a big folder's old file rewritten in place).
  const inv = await scanScratch(agentDir, { fresh: !opts.dryRun });
  const now = opts.now ?? Date.now();
  const protectedPaths = [...prot.value, ...(opts.extraProtected ?? [])];
  // A dry run over an unchanged inventory (scanScratch hands out the same object) with the same
  // pins, plans and policy has the same answer until the next file passes the age limit.
  const key = JSON.stringify([[...pins.value].sort(), protectedPaths, opts.policy]);
  const hit = opts.dryRun ? dryRuns.get(agentDir) : undefined;
  if (hit && hit.inv === inv && hit.key === key && now < hit.stableUntil && now >= hit.at) {
    return ok({ ...hit.report, removed: [...hit.report.removed], noTrash: [], failed: [] });
  }
  const decision = planRetention({ files: inv.files, pinned: pins.value, protectedPaths, policy: opts.policy, now });
  const report: CleanupReport = {
    dryRun: opts.dryRun ?? false,
    removed: [],
    removedBytes: 0,
    keptPinned: decision.keptPinned,
    keptProtected: decision.keptProtected,
    noTrash: [],
    failed: [],
    summary: '',
  };
  if (report.dryRun) {
    for (const r of decision.remove) report.removed.push({ rel: r.entry.rel, path: r.entry.path, size: r.entry.size, reason: r.reason });
    summarizeCleanup(report);
    dryRuns.set(agentDir, { inv, key, stableUntil: decision.stableUntil, at: now, report: { ...report, removed: [...report.removed] } });
    return ok(report);
  } else {
    // Re-check right before moving: each file's folder must still resolve inside scratch.
    const realScratch = await fs.promises.realpath(inv.scratchDir).catch(() => inv.scratchDir);
    const safe: string[] = [];
    for (const r of decision.remove) {
      const parent = await fs.promises.realpath(path.dirname(r.entry.path)).catch(() => undefined);
      if (parent && isInside(realScratch, parent)) safe.push(r.entry.path);
      else report.failed.push({ path: r.entry.path, message: 'its folder no longer resolves inside .agent/scratch/; left alone' });
    }
    const moved = await moveToTrash(safe, opts.trash);
    const byPath = new Map(decision.remove.map((r) => [r.entry.path, r]));
    const item = (p: string): CleanupItem[] => {
      const r = byPath.get(p);
      return r ? [{ rel: r.entry.rel, path: r.entry.path, size: r.entry.size, reason: r.reason }] : [];
    };
    report.removed = moved.trashed.flatMap((t) => item(t.path));
    report.noTrash = moved.noTrash.flatMap(item);
    report.failed.push(...moved.failed.filter((f) => f.message !== 'already gone'));
  }
  return ok(summarizeCleanup(report));
}

/** Recomputes `removedBytes` and `summary` after `removed`/`noTrash` changed (e.g. after a permanent delete). */
export function summarizeCleanup(r: CleanupReport): CleanupReport {
  r.removedBytes = r.removed.reduce((s, x) => s + x.size, 0);
  r.summary = summaryText(r);
  return r;
}

function summaryText(r: CleanupReport): string {
  const n = r.removed.length;
  const files = `${n} file${n === 1 ? '' : 's'} (${formatMB(r.removedBytes)})`;
  let s = r.dryRun ? `Would remove ${files}, keep ${r.keptPinned} pinned` : `Removed ${files}, kept ${r.keptPinned} pinned`;
  if (r.keptProtected > 0) s += ` and ${r.keptProtected} protected (plans, evidence)`;
  if (r.noTrash.length > 0) s += `; ${r.noTrash.length} not removed because no trash is available`;
  if (r.failed.length > 0) s += `; ${r.failed.length} could not be removed`;
  return s;
}
