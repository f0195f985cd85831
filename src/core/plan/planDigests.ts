/**
 * What a listing shows of a plan file (objective, progress, the current and next steps), kept with
 * the file's stat in `.agent/.cache/briefing-plans.json` (fs/fileDigests.ts): the briefing and the
 * plan tool's list of other plans cost a stat per plan, not a read and a parse, once a plan was seen.
 */
import { FileDigests } from '../fs/fileDigests';
import { formatFileError } from '../result';
import { isMarkdownPlanName } from './markdownPlan';
import { mirrorOwner } from './mirroredPlans';
import { planProgress } from './planDocument';
import { loadPlanFile } from './planFiles';

/** A step as a plan digest names it. */
export interface DigestStep {
  id: string;
  description: string;
  line: number;
}

/** One plan file in short (a plan that cannot be read: its error, naming file and line). */
export interface PlanDigestPlan {
  path: string;
  objective?: string;
  status?: string;
  done: number;
  total: number;
  /** Every step in progress (in file order), else the first pending one; empty when none is left. */
  current: (DigestStep & { status: string })[];
  /** Up to 5 pending steps not in `current`, in file order. */
  upcoming: DigestStep[];
  /** Up to 5 blocked steps. */
  blocked: DigestStep[];
  error?: string;
  /** A Markdown plan without checklist items (e.g. Claude Code's plan mode): nothing to mark. */
  outline?: boolean;
  /** The objective's 1-based line (the Plan view opens the file there). */
  objectiveLine?: number;
  /** A Markdown plan whose first line is an agent's mirror header: that agent's name (mirroredPlans.ts). */
  mirror?: string;
}

/** A plan file's digest; `outline` for a Markdown plan without a checklist, `mtimeMs` 0 when it could not be read. */
export interface PlanDigest {
  plan: PlanDigestPlan;
  outline: boolean;
  mtimeMs: number;
}

/** Reads and parses one plan file (`shown`: its workspace-relative path) into its digest; never throws. */
export async function planDigest(file: string, shown: string): Promise<PlanDigest> {
  return digestOf(file, shown, await loadPlanFile(file, shown));
}

/** The digest of a plan file already read (loadPlanFile's answer). */
export function digestOf(file: string, shown: string, r: Awaited<ReturnType<typeof loadPlanFile>>): PlanDigest {
  if (!r.ok) return { plan: { path: shown, done: 0, total: 0, current: [], upcoming: [], blocked: [], error: formatFileError(r.error) }, outline: false, mtimeMs: 0 };
  const plan = r.value.plan;
  const mirror = isMarkdownPlanName(file) ? mirrorOwner(r.value.version.text) : undefined;
  const where = { objectiveLine: plan.objectiveLine, ...(mirror ? { mirror } : {}) };
  if (plan.format === 'markdown' && plan.steps.length === 0) {
    return { plan: { path: shown, objective: plan.objective, done: 0, total: 0, current: [], upcoming: [], blocked: [], outline: true, ...where }, outline: true, mtimeMs: r.value.version.mtimeMs };
  }
  const { done, total } = planProgress(plan);
  const inProgress = plan.steps.filter((s) => s.status === 'in_progress');
  const pending = plan.steps.filter((s) => s.status === 'pending');
  // Every step in progress, else the first pending one; the pending rest follow in file order.
  const now = inProgress.length ? inProgress : pending.slice(0, 1);
  return {
    plan: {
      path: shown,
      objective: plan.objective,
      status: plan.status,
      done,
      total,
      current: now.map((s) => ({ id: s.id, description: s.description, status: s.status, line: s.line })),
      upcoming: pending.filter((s) => !now.includes(s)).slice(0, 5).map((s) => ({ id: s.id, description: s.description, line: s.line })),
      blocked: plan.steps.filter((s) => s.status === 'blocked').slice(0, 5).map((s) => ({ id: s.id, description: s.description, line: s.line })),
      ...where,
    },
    outline: false,
    mtimeMs: r.value.version.mtimeMs,
  };
}

const isStr = (x: unknown): boolean => typeof x === 'string';
const isOptStr = (x: unknown): boolean => x === undefined || typeof x === 'string';
const isStep = (s: unknown): boolean => typeof s === 'object' && s !== null && isStr((s as { id: unknown }).id) && isStr((s as { description: unknown }).description) && Number.isInteger((s as { line: unknown }).line);

/** A PlanDigest as planDigest produces it. */
function validDigest(v: unknown): v is PlanDigest {
  const o = v as PlanDigest;
  if (typeof o !== 'object' || o === null || typeof o.outline !== 'boolean' || typeof o.mtimeMs !== 'number') return false;
  const p = o.plan;
  return typeof p === 'object' && p !== null && isStr(p.path) && isOptStr(p.objective) && isOptStr(p.status) && isOptStr(p.error) && Number.isInteger(p.done) && Number.isInteger(p.total)
    && [p.current, p.upcoming, p.blocked].every((xs) => Array.isArray(xs) && xs.every(isStep)) && (p.outline === undefined || typeof p.outline === 'boolean')
    && (p.error !== undefined || Number.isInteger(p.objectiveLine)) && isOptStr(p.mirror);
}

/**
 * The plan digests' cache, `.agent/.cache/briefing-plans.json` (its name from when only the briefing
 * used it; the Plan view's rows use it too). Plan folders are watched: a call stats the plans their
 * events and stamps name, not all of them (fs/fileDigests.ts).
 */
const PLAN_DIGESTS = { cache: 'planDigests', version: 2, valid: validDigest, watch: true } as const;

/**
 * The digests of `files` (absolute plan paths of `agentDir`; `rel` gives the path shown), read
 * again only where a file's stat changed. `only`: these files are a few of the plans (the plan
 * tool's newest others): the remembered rest is kept, not pruned.
 */
export async function planDigests(agentDir: string, files: string[], rel: (file: string) => string, opts: { only?: boolean } = {}): Promise<Map<string, PlanDigest>> {
  const d = FileDigests.of(agentDir, PLAN_DIGESTS);
  const read = (f: string) => planDigest(f, rel(f));
  return (await (opts.only ? d.refresh(files, read) : d.get(files, read))).values;
}
