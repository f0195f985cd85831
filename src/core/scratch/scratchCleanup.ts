import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentDirOf } from '../workspace/agentLayout';
import { findPlanFiles, isMarkdownPlan, parsePlanText } from '../plan/planFiles';
import { err, formatFileError, ok, Result } from '../result';
import { moveToTrash, TrashOptions } from '../fs/trash';
import { scratchDirOf } from './scratchEntry';
import { loadPins } from './pins';
import { advanceRetention, isProtected, type OldestFirst, removalReasons, RemovalReason, type RetentionPolicy, type RetentionProgress } from './retention';
import { ScratchIndex } from './index/scratchIndex';
import { currentScratchIndex } from './index/sharedIndex';
import { readDryRun, writeDryRun, type CachedDryRun } from './cleanupCache';
import { isInside, relativeInside } from '../workspace/relativePaths';
import { FileDigests } from '../fs/fileDigests';
import { formatAge, formatBytes, groupDigits, plural } from '../output/humanize';
import { agentRel } from '../workspace/layout';

/**
 * Paths cleanup must keep for this workspace root: every plan file and every evidence path the
 * plans list (resolved inside the workspace). A plan that cannot be read is an error, because
 * its evidence would be unknown.
 */
export async function planProtectedPaths(workspaceRoot: string): Promise<Result<string[]>> {
  const agentDir = agentDirOf(workspaceRoot);
  const files = await findPlanFiles(agentDir);
  const out: string[] = [...files];
  // Markdown plans list no evidence; the file itself is kept above.
  const yaml = files.filter((f) => !isMarkdownPlan(f));
  // Each plan's evidence is kept under its file's stat (fs/fileDigests.ts): a cleanup with a thousand
  // plans in plans/ costs a stat per plan, not a read and a YAML parse of each.
  const { values } = await FileDigests.of(agentDir, EVIDENCE_DIGESTS).get(yaml, async (file) => planEvidence(file, await fs.promises.readFile(file, 'utf8')));
  for (const file of yaml) {
    const ev = values.get(file); // absent: removed meanwhile (or unreadable, as before: skipped)
    if (!ev) continue;
    if (!ev.ok) return ev;
    for (const e of ev.value) {
      const abs = path.resolve(workspaceRoot, e);
      if (isInside(workspaceRoot, abs)) out.push(abs);
    }
  }
  return ok(out);
}

/** The evidence paths a YAML plan's steps list, as written; or why the plan cannot be parsed. */
function planEvidence(file: string, text: string): Result<string[]> {
  const plan = parsePlanText(text, file);
  if (!plan.ok) return plan;
  return ok(plan.value.steps.flatMap((s) => s.evidence ?? []));
}

const isFileErrorShape = (e: unknown): boolean => {
  const o = e as { file?: unknown; message?: unknown; line?: unknown };
  return typeof o === 'object' && o !== null && typeof o.file === 'string' && typeof o.message === 'string' && (o.line === undefined || typeof o.line === 'number');
};

/** Each YAML plan's evidence paths, kept in `.agent/.cache/plan-evidence.json`. */
const EVIDENCE_DIGESTS = {
  cache: 'evidenceDigests' as const,
  version: 1,
  valid: (v: unknown): v is Result<string[]> => {
    const o = v as Result<string[]>;
    if (typeof o !== 'object' || o === null) return false;
    return o.ok === true ? Array.isArray(o.value) && o.value.every((x) => typeof x === 'string') : o.ok === false && isFileErrorShape(o.error);
  },
};

/** The last dry run per `.agent/` folder, which the next one continues when it can (see advanceRetention). */
const dryRuns = new Map<string, { index: ScratchIndex; epoch: number; key: string; progress: RetentionProgress }>();

export interface CleanupOptions {
  workspaceRoot: string;
  policy: RetentionPolicy;
  /** Defaults to Date.now(). */
  now?: number;
  /** More paths to keep (open terminals' files, history...). */
  extraProtected?: readonly string[];
  /** Only report what would go. */
  dryRun?: boolean;
  /** A dry run lists at most this many of the files that would go (all are counted). */
  listLimit?: number;
  /** Remove only these (absolute paths, e.g. the ones a confirmed dry run listed); files the policy no longer selects stay. */
  only?: ReadonlySet<string>;
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
  /** Trashed files, or for a dry run the files that would go (oldest first; at most listLimit of them). */
  removed: CleanupItem[];
  /** How many files were removed (would be, for a dry run): more than `removed` lists when a listLimit cut it. */
  removedCount: number;
  removedBytes: number;
  keptPinned: number;
  keptProtected: number;
  /** Files that would have gone but have no usable trash: nothing was done; ask, then deletePermanently. */
  noTrash: CleanupItem[];
  failed: { path: string; message: string }[];
  /** How many of `removed` were deleted permanently (no trash; the user agreed) rather than trashed. */
  deletedPermanently?: number;
  /** What the policy looked at: every file, its limits, and the oldest file it could remove (pinned and protected ones aside). */
  scope?: { files: number; bytes: number; oldestRemovableMs?: number; now: number; policy: RetentionPolicy };
  /** "Moved N files (X MB) to the trash, kept K pinned"; with nothing to remove, which limits keep the files. */
  summary: string;
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
  const scratchDir = scratchDirOf(agentDir);
  const now = opts.now ?? Date.now();
  const protectedPaths = [...prot.value, ...(opts.extraProtected ?? [])];
  // A dry run reads the index this process keeps (shared with the Scratch view, up to date at the
  // cost of what changed); before removing anything, every file is stat'ed afresh (the index may
  // not have seen a big folder's old file rewritten in place).
  const index = opts.dryRun ? await currentScratchIndex(agentDir) : await ScratchIndex.build(agentDir, { snapshot: false });
  const keep = keepFor(scratchDir, pins.value, protectedPaths);
  const key = JSON.stringify([[...keep.pinned].sort(), keep.protectedKeys, opts.policy, opts.listLimit ?? null]);
  // A dry run whose answer a process stored for this very state and key (cleanupCache.ts): read
  // from the summary's state, without loading every file (a new MCP server's first dry run).
  if (opts.dryRun) {
    const hit = await readDryRun(agentDir, scratchDir, index.stateDigest(), key, now);
    if (hit) return ok(reportOf(hit, scratchDir, now, opts.policy));
  }
  await index.loadEverything(); // an index started from the summary holds only the newest files of big folders
  // A dry run after files were only added as the newest (an offload) or time passed, with the same
  // pins, plans and policy, continues the previous one: it looks at the new files, not all of them.
  const prev = opts.dryRun ? dryRuns.get(agentDir) : undefined;
  const resume = prev && prev.index === index && prev.epoch === index.orderEpoch && prev.key === key && now >= prev.progress.now ? prev.progress : undefined;
  const all = index.newestFirst();
  const n = all.length;
  const files: OldestFirst = { length: n, size: (i) => all[n - 1 - i][1].size, mtimeMs: (i) => all[n - 1 - i][1].mtimeMs };
  const isKept = (i: number): boolean => {
    const rel = all[n - 1 - i][0];
    return keep.pinned.has(rel) || (keep.protectedKeys.length > 0 && isProtected(keep.protectedKeys, keep.prefixes, rel));
  };
  const progress = advanceRetention(resume, files, index.totals().bytes, isKept, opts.policy, now, opts.dryRun ? opts.listLimit : undefined);
  if (opts.dryRun) dryRuns.set(agentDir, { index, epoch: index.orderEpoch, key, progress });
  const why = removalReasons(progress, files, opts.policy);
  const items: CleanupItem[] = progress.listed.map((pos, k) => {
    const [rel, f] = all[n - 1 - pos];
    return { rel, path: path.join(scratchDir, ...rel.split('/')), size: f.size, reason: why[k] };
  });
  const kept = keptCounts(index, keep);
  let oldest = 0;
  while (oldest < n && isKept(oldest)) oldest++;
  const scope = { files: index.totals().files, bytes: index.totals().bytes, oldestRemovableMs: oldest < n ? files.mtimeMs(oldest) : undefined, now, policy: opts.policy };
  const report: CleanupReport = {
    dryRun: opts.dryRun ?? false,
    removed: [],
    removedCount: 0,
    removedBytes: 0,
    keptPinned: kept.pinned,
    keptProtected: kept.protected,
    noTrash: [],
    failed: [],
    scope,
    summary: '',
  };
  if (report.dryRun) {
    report.removed = items;
    report.removedCount = progress.removeCount;
    report.removedBytes = progress.removeBytes;
    report.summary = summaryText(report);
    await writeDryRun(agentDir, scratchDir, index.stateDigest(), key, now, answerStableUntil(progress, files, opts.policy), {
      listed: progress.listed.map((pos, k) => ({ rel: items[k].rel, size: items[k].size, mtimeMs: files.mtimeMs(pos), otherwise: nonAgeReason(files.length, k, opts.policy) })),
      removeCount: report.removedCount,
      removeBytes: report.removedBytes,
      keptPinned: report.keptPinned,
      keptProtected: report.keptProtected,
      files: scope.files,
      bytes: scope.bytes,
      oldestRemovableMs: scope.oldestRemovableMs,
    });
    return ok(report);
  } else {
    // Re-check right before moving: each file's folder must still resolve inside scratch.
    const realScratch = await fs.promises.realpath(scratchDir).catch(() => scratchDir);
    const safe: string[] = [];
    // Each folder resolved once, not once per file (99,000 files in one folder at a time).
    const parents = new Map<string, Promise<string | undefined>>();
    for (const r of items) {
      if (opts.only && !opts.only.has(r.path)) continue;
      const dir = path.dirname(r.path);
      let parent = parents.get(dir);
      if (!parent) parents.set(dir, (parent = fs.promises.realpath(dir).catch(() => undefined)));
      const real = await parent;
      if (real && isInside(realScratch, real)) safe.push(r.path);
      else report.failed.push({ path: r.path, message: 'its folder no longer resolves inside .agent/scratch/; left alone' });
    }
    const moved = await moveToTrash(safe, opts.trash);
    const byPath = new Map(items.map((r) => [r.path, r]));
    const item = (p: string): CleanupItem[] => {
      const r = byPath.get(p);
      return r ? [r] : [];
    };
    report.removed = moved.trashed.flatMap((t) => item(t.path));
    report.noTrash = moved.noTrash.flatMap(item);
    report.failed.push(...moved.failed.filter((f) => f.message !== 'already gone'));
  }
  return ok(summarizeCleanup(report));
}

/**
 * Until when the same files give this dry run's removals. They are a prefix of the files oldest
 * first, decided up to `stop`; a file before `stop` passing the age limit later changes nothing (it
 * is removed already, for the count or the size), so they hold until the file at `stop` passes it.
 */
function answerStableUntil(p: RetentionProgress, files: OldestFirst, policy: RetentionPolicy): number {
  if (!(policy.maxAgeHours > 0)) return Infinity;
  return p.stop < files.length ? files.mtimeMs(p.stop) + policy.maxAgeHours * 3_600_000 : Infinity;
}

/** The reason of the k-th removal when it is not older than the age limit (as removalReasons tells it). */
function nonAgeReason(n: number, k: number, policy: RetentionPolicy): 'count' | 'size' {
  return n - k > (policy.maxFiles > 0 ? policy.maxFiles : Infinity) ? 'count' : 'size';
}

/** A dry run's report from its stored answer (the same files, key and limits; `now` within its bounds). */
function reportOf(c: CachedDryRun, scratchDir: string, now: number, policy: RetentionPolicy): CleanupReport {
  const cutoff = policy.maxAgeHours > 0 ? now - policy.maxAgeHours * 3_600_000 : -Infinity;
  const report: CleanupReport = {
    dryRun: true,
    removed: c.listed.map((i) => ({ rel: i.rel, path: path.join(scratchDir, ...i.rel.split('/')), size: i.size, reason: i.mtimeMs < cutoff ? 'age' : i.otherwise })),
    removedCount: c.removeCount,
    removedBytes: c.removeBytes,
    keptPinned: c.keptPinned,
    keptProtected: c.keptProtected,
    noTrash: [],
    failed: [],
    scope: { files: c.files, bytes: c.bytes, oldestRemovableMs: c.oldestRemovableMs, now, policy },
    summary: '',
  };
  report.summary = summaryText(report);
  return report;
}

/** Recomputes the counts and `summary` of a cleanup that ran (not a dry run) after `removed`/`noTrash` changed (e.g. after a permanent delete). */
export function summarizeCleanup(r: CleanupReport): CleanupReport {
  r.removedCount = r.removed.length;
  r.removedBytes = r.removed.reduce((s, x) => s + x.size, 0);
  r.summary = summaryText(r);
  return r;
}

/** Why nothing goes: each limit beside what the folder holds ("the oldest changed 2 h ago (limit 24 h), 3 files (limit 500), 420 B (limit 200 MB)"). */
function withinLimits(sc: NonNullable<CleanupReport['scope']>): string {
  if (sc.files === 0) return `${agentRel('scratch')}/ is empty`;
  const p = sc.policy;
  const age = sc.oldestRemovableMs === undefined ? 'no file that is not pinned or protected' : `the oldest unpinned file changed ${formatAge(sc.now - sc.oldestRemovableMs)} (limit ${p.maxAgeHours} h)`;
  return `every limit is met: ${age}, ${plural(sc.files, 'file')} (limit ${groupDigits(p.maxFiles)}), ${formatBytes(sc.bytes)} (limit ${p.maxTotalMB} MB)`;
}

function summaryText(r: CleanupReport): string {
  const n = r.removedCount;
  const files = `${plural(n, 'file')} (${formatBytes(r.removedBytes)})`;
  const kept = `${r.dryRun ? 'keep' : 'kept'} ${r.keptPinned} pinned`;
  let s: string;
  if (n === 0 && r.scope && r.noTrash.length === 0 && r.failed.length === 0) {
    s = `${r.dryRun ? 'Would remove' : 'Removed'} nothing${r.scope.files === 0 ? ': ' : '; '}${withinLimits(r.scope)}; ${kept}`;
  } else if (r.dryRun) s = `Would remove ${files}, ${kept}`;
  else if (n === 0) s = `Removed nothing, ${kept}`;
  else {
    // Say where the files went: the trash (they can be restored), or gone for good when the user
    // agreed to a permanent delete because no trash was available.
    const gone = Math.min(r.deletedPermanently ?? 0, n);
    if (gone === 0) s = `Moved ${files} to the trash, ${kept}`;
    else if (gone === n) s = `Deleted ${files} permanently, ${kept}`;
    else s = `Moved ${plural(n - gone, 'file')} to the trash and deleted ${gone} permanently (${formatBytes(r.removedBytes)} in all), ${kept}`;
  }
  if (r.keptProtected > 0) s += ` and ${r.keptProtected} protected (plans, evidence)`;
  if (r.noTrash.length > 0) s += `; ${r.noTrash.length} not removed because no trash is available`;
  if (r.failed.length > 0) s += `; ${r.failed.length} could not be removed`;
  return s;
}

/** Pinned and protected paths as the index's keys (see keepFor). */
interface Keep {
  pinned: Set<string>;
  /** Protected files and folders; '' protects the whole scratch folder. */
  protectedKeys: string[];
  /** protectedKeys each followed by '/' ('' stays ''), for the "below a folder" check. */
  prefixes: string[];
}

/**
 * The pinned and protected paths (absolute) as the index's keys: paths relative to the scratch
 * folder with forward slashes. A protected folder that holds the scratch folder protects all of it.
 */
function keepFor(scratchDir: string, pinned: Iterable<string>, protectedPaths: Iterable<string>): Keep {
  // Thousands of evidence paths at a heavy user's size: relativeInside compares a plain path as a
  // string, without resolving it (path.relative cost ~6 ms per call for 1,000 plans).
  const relOf = (p: string): string | undefined => {
    const r = relativeInside(scratchDir, p);
    return r === undefined || path.sep === '/' ? r : r.split(path.sep).join('/');
  };
  const pins = new Set<string>();
  for (const p of pinned) {
    const r = relOf(p);
    if (r) pins.add(r);
  }
  const prot = new Set<string>();
  for (const p of protectedPaths) {
    const r = relOf(p);
    if (r !== undefined) prot.add(r);
    else if (isInside(p, scratchDir)) prot.add('');
  }
  // Sorted, and without keys below another key: each protected file is then under exactly one key.
  // A key's ancestors are its prefixes at each '/': looked up, not compared with every key before it.
  const kept = new Set<string>();
  const below = (k: string): boolean => {
    if (kept.has('')) return true;
    for (let i = k.indexOf('/'); i !== -1; i = k.indexOf('/', i + 1)) if (kept.has(k.slice(0, i))) return true;
    return false;
  };
  const keys: string[] = [];
  for (const k of [...prot].sort()) {
    if (below(k)) continue;
    keys.push(k);
    kept.add(k);
  }
  return { pinned: pins, protectedKeys: keys, prefixes: keys.map((k) => (k === '' ? '' : k + '/')) };
}

/**
 * How many indexed files are pinned, and how many others are protected, from the index's folder
 * totals: costs the pins and protected paths, not the files.
 */
function keptCounts(index: ScratchIndex, keep: Keep): { pinned: number; protected: number } {
  let pinned = 0;
  let pinnedProtected = 0;
  for (const rel of keep.pinned) {
    if (!index.file(rel)) continue;
    pinned++;
    if (isProtected(keep.protectedKeys, keep.prefixes, rel)) pinnedProtected++;
  }
  let prot = 0;
  for (const k of keep.protectedKeys) prot += k === '' ? index.totals().files : (index.folder(k)?.count ?? (index.file(k) ? 1 : 0));
  return { pinned, protected: prot - pinnedProtected };
}
