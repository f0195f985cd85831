import * as fs from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../workspace/agentLayout';
import { Result } from '../result';
import { isMarkdownPlanName, parseMarkdownPlan, readPlanBytes } from './markdownPlan';
import { parsePlan, Plan } from './planDocument';
import type { PlanFileVersion } from './planEdit';
import { toPosixRelative } from '../workspace/relativePaths';
import { sameStamp, settledStamp, stampOf } from '../fs/stamps';
import { mirrorOwner } from './mirroredPlans';

/** The Markdown plan next to plan.yaml (agents and Claude Code keep plans as Markdown checklists). */
export const MARKDOWN_PLAN = LAYOUT.planMarkdown;

/** Plan locations inside `.agent/`, in display order: files, then folders of `*.yaml` (and `*.md` in plans/). */
export const PLAN_FILES = [LAYOUT.plan, MARKDOWN_PLAN, 'scratch/current_plan.yaml'] as const;
export const PLAN_FOLDERS = [LAYOUT.plans, 'scratch/plans'] as const;

const isYaml = (name: string) => name.endsWith('.yaml') || name.endsWith('.yml');
/** Markdown is read in `.agent/plans/` only: `scratch/plans/` stays YAML (scratch holds any kind of notes). */
const isPlanName = (dir: string, name: string) => isYaml(name) || (dir === LAYOUT.plans && isMarkdownPlanName(name));

/**
 * Folders where agents keep Markdown plans of their own outside `.agent/`, in the workspace, and
 * have no setting to move them: shown beside ours, read-only (the agent owns them). opencode writes
 * `<worktree>/.opencode/plans/<time>-<slug>.md`.
 */
export const AGENT_PLAN_FOLDERS = [{ dir: '.opencode/plans', agent: 'opencode' }] as const;

/**
 * The agent whose own plan `file` is: an AGENT_PLAN_FOLDERS Markdown file next to `agentDir`, or,
 * given the file's `text`, a mirror of an agent's plan (mirroredPlans.ts); undefined for ours.
 */
export function readOnlyPlanOwner(agentDir: string, file: string, text?: string): string | undefined {
  const rel = toPosixRelative(path.dirname(agentDir), file);
  const own = AGENT_PLAN_FOLDERS.find((f) => path.posix.dirname(rel) === f.dir && isMarkdownPlanName(rel))?.agent;
  return own ?? (text !== undefined && isMarkdownPlanName(rel) ? mirrorOwner(text) : undefined);
}

/**
 * Finds plan files: `.agent/plan.yaml`, `.agent/plan.md`, `.agent/plans/*.{yaml,md}`,
 * `.agent/scratch/plans/*.yaml`, `.agent/scratch/current_plan.yaml`, then the agents' own
 * (AGENT_PLAN_FOLDERS, read-only).
 */
export async function findPlanFiles(agentDir: string): Promise<string[]> {
  const [plan, markdown, current] = await fixedPlanFiles(agentDir, true);
  return [...[plan, markdown].filter(isStr), ...(await folderPlanFiles(agentDir, PLAN_FOLDERS_OURS)), ...[current].filter(isStr), ...(await folderPlanFiles(agentDir, PLAN_FOLDERS_AGENTS))];
}

const isStr = (s: string | undefined): s is string => s !== undefined;
const PLAN_FOLDERS_OURS: PlanFolder[] = PLAN_FOLDERS.map((dir) => ({ dir, inside: true, md: dir === LAYOUT.plans, yaml: true }));
const PLAN_FOLDERS_AGENTS: PlanFolder[] = AGENT_PLAN_FOLDERS.map(({ dir }) => ({ dir, inside: false, md: true, yaml: false }));

/**
 * The single plan files (PLAN_FILES) that exist, in PLAN_FILES order; with `keepSlots`, one entry per
 * PLAN_FILES name, undefined where it does not exist.
 */
export async function fixedPlanFiles(agentDir: string, keepSlots = false): Promise<(string | undefined)[]> {
  const isFile = async (f: string) => (await fs.promises.lstat(f).catch(() => undefined))?.isFile() ?? false;
  const found = await Promise.all(PLAN_FILES.map(async (name) => ((await isFile(path.join(agentDir, name))) ? path.join(agentDir, name) : undefined)));
  return keepSlots ? found : found.filter(isStr);
}

/**
 * The plan files in plan folders (`.agent/plans/`, `.agent/scratch/plans/`, then the agents' own
 * AGENT_PLAN_FOLDERS), each folder sorted by name; one readdir per folder.
 */
export async function folderPlanFiles(agentDir: string, folders: readonly PlanFolder[] = ALL_PLAN_FOLDERS): Promise<string[]> {
  const found: string[] = [];
  for (const f of folders) {
    const abs = planFolderPath(agentDir, f);
    const key = `${abs}\0${f.md}\0${f.yaml}`;
    const now = Date.now();
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(abs, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    const had = listings.get(key);
    // A thousand plans: the folder is listed again only when its stamp changed (a plan added, removed or renamed).
    if (st && had && sameStamp(had, st)) {
      found.push(...had.files);
      continue;
    }
    const names = st?.isDirectory() ? await fs.promises.readdir(abs, { withFileTypes: true }).catch(() => []) : [];
    // Symlinks are not followed: a plan is edited in place and must live inside .agent/.
    // Concatenation, not path.join (a readdir name has no separator).
    const files = names.filter((e) => e.isFile() && ((f.yaml && isYaml(e.name)) || (f.md && isMarkdownPlanName(e.name)))).map((e) => abs + path.sep + e.name).sort();
    if (st && settledStamp(st, now)) listings.set(key, { ...stampOf(st), files });
    else listings.delete(key);
    found.push(...files);
  }
  return found;
}

/** Plan folders' listings by folder (and which names count), each under the stamp it was read with (fs/settledStamp.ts). */
const listings = new Map<string, { ino: number; mtimeMs: number; ctimeMs: number; files: string[] }>();

/** A plan folder: where it is (inside `.agent/`, or beside it in the workspace) and which files in it are plans. */
export interface PlanFolder {
  dir: string;
  inside: boolean;
  md: boolean;
  yaml: boolean;
}

/** Every plan folder: ours inside `.agent/`, then the agents' own beside it. */
export const ALL_PLAN_FOLDERS: readonly PlanFolder[] = [...PLAN_FOLDERS_OURS, ...PLAN_FOLDERS_AGENTS];

/** The plan folders of `agentDir` (absolute), in ALL_PLAN_FOLDERS order. */
export function planFolderPaths(agentDir: string): string[] {
  return ALL_PLAN_FOLDERS.map((f) => planFolderPath(agentDir, f));
}

const planFolderPath = (agentDir: string, f: PlanFolder): string => (f.inside ? path.join(agentDir, f.dir) : path.join(path.dirname(agentDir), f.dir));

/** True when `file` (absolute) is a plan in one of the plan folders (not one of PLAN_FILES), whether or not it exists. */
export function isFolderPlanPath(agentDir: string, file: string): boolean {
  return isPlanPath(agentDir, file) && !(PLAN_FILES as readonly string[]).includes(toPosixRelative(agentDir, file));
}

/** True when `file` (absolute) is at one of the plan locations of `agentDir`, whether or not it exists. */
export function isPlanPath(agentDir: string, file: string): boolean {
  if (readOnlyPlanOwner(agentDir, file)) return true;
  const rel = toPosixRelative(agentDir, file);
  if ((PLAN_FILES as readonly string[]).includes(rel)) return true;
  const dir = path.posix.dirname(rel);
  return (PLAN_FOLDERS as readonly string[]).includes(dir) && isPlanName(dir, path.posix.basename(rel));
}

/** True when a plan file is Markdown (its steps are checklist items). */
export function isMarkdownPlan(file: string): boolean {
  return isMarkdownPlanName(file);
}

/** Parses a plan's text by its file name: Markdown for `.md`, else the YAML schema. */
export function parsePlanText(text: string, file: string): Result<Plan> {
  return isMarkdownPlanName(file) ? parseMarkdownPlan(text, file) : parsePlan(text, file);
}

/**
 * Reads and parses a plan file (`shown` is the name errors carry). Files over 1 MB, with NUL
 * bytes or not UTF-8 come back as errors; the version is what a later edit compares against.
 */
export async function loadPlanFile(file: string, shown: string): Promise<Result<{ plan: Plan; version: PlanFileVersion }>> {
  const read = await readPlanBytes(file, shown);
  if (!read.ok) return read;
  const version = { text: read.value.text, mtimeMs: read.value.mtimeMs };
  const plan = parsePlanText(version.text, shown);
  return plan.ok ? { ok: true, value: { plan: plan.value, version } } : plan;
}
