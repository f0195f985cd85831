/** Gathers the briefing's input from a `.agent/` folder (each source read defensively: one broken file never hides the rest). */
import * as path from 'node:path';
import { MAX_FAILED_TERMINALS_SHOWN, MAX_NOTES_SHOWN, type BriefingInput, type BriefingPlan, type BriefingTerminal } from './composeBriefing';
import { findPlanFiles, PLAN_FILES } from '../plan/planFiles';
import { planDigest, planDigests, type PlanDigest } from '../plan/planDigests';
import { currentScratchIndex } from '../scratch/index/sharedIndex';
import { readProgressTail, progressPath } from '../plan/progress';
import { featuresPath, sharedFeatureState, type FeatureState } from '../plan/featureList';
import { listMemory, listMemoryFiles, preferencesPath } from '../memory';
import { recentAgents } from '../agents';
import { listHistory, historyDir } from '../history/archive';
import { formatFileError } from '../result';
import { sharedSkills, type Skill } from '../skills/skillsIndex';
import { sharedNotes, withCurrentOrphans } from '../notes/notes';
import { terminalSummary } from '../terminal/terminalSummary';
import { terminalCatalog, type CatalogTerminal } from '../terminal/catalog/terminalCatalog';
import { agentName } from '../hooks/agentNames';
import { EXIT_UNKNOWN, shownCommandLine } from '../terminal/commandExit';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentPath as inAgent } from '../workspace/layout';

/** Optional sources owned by other features, injected so the briefing does not depend on their internals. */
export interface BriefingProviders {
  /** Terminals whose last command failed, and how many terminals there are (default: the terminal index files). */
  terminals?: (agentDir: string) => Promise<{ failed: BriefingTerminal[]; total: number; failedTotal?: number; failedUnknown?: boolean }>;
  /** The skill index (default: loadSkills over .agent/.github/.claude skill folders). */
  skills?: (workspaceRoot: string) => Promise<{ name: string; description: string; path: string }[]>;
}

type BriefingSkill = BriefingInput['skills'][number];
/** The usable skills as the briefing lists them, per skill listing (the same array while no skill changed: 500 skills are not mapped at every call). */
const skillsMemo = new WeakMap<readonly Skill[], BriefingSkill[]>();

async function defaultSkills(root: string): Promise<BriefingSkill[]> {
  const all = await sharedSkills(root);
  let shown = skillsMemo.get(all);
  if (!shown) {
    shown = all.filter((s) => !s.error).map((s) => ({ name: s.name, description: s.description, path: s.rel }));
    skillsMemo.set(all, shown);
  }
  return [...shown];
}

/** A finished command that counts as a failure in the briefing: a non-zero exit, or no exit status although it ran to its end. */
function isFailure(c: { exitCode: number | null; exitUnknown: string | null }): boolean {
  if (c.exitCode !== null) return c.exitCode !== 0;
  return c.exitUnknown === EXIT_UNKNOWN.noStatus || c.exitUnknown === EXIT_UNKNOWN.noEndEvent;
}

/** The catalog gives the same array while nothing changed: its failing terminals are sorted once. */
const failingMemo = new WeakMap<readonly CatalogTerminal[], { failing: CatalogTerminal[]; unknown: boolean }>();

/** The failing terminals, newest failure first, and whether any of them has no exit status. */
function failingOf(items: readonly CatalogTerminal[]): { failing: CatalogTerminal[]; unknown: boolean } {
  let memo = failingMemo.get(items);
  if (!memo) {
    // Newest terminal first on equal times (the sort below is stable).
    const failing = [...items].reverse().filter((x) => x.brief.lastDone && isFailure(x.brief.lastDone));
    failing.sort((a, b) => b.brief.lastDone!.endMs - a.brief.lastDone!.endMs);
    memo = { failing, unknown: failing.some((x) => x.brief.lastDone!.exitCode === null) };
    failingMemo.set(items, memo);
  }
  return memo;
}

/**
 * Terminals whose last finished command exited non-zero, or ran to its end without an exit status
 * (the shell reported none: in bash a line that starts with a subshell), with its line range; most
 * recent failure first. Which terminals and how many come from the terminal catalog (no terminal's
 * files are read unless they changed); only the few the briefing lists are read in detail.
 */
async function defaultTerminals(agentDir: string, recheck?: number[]): Promise<{ failed: BriefingTerminal[]; total: number; failedTotal: number; failedUnknown: boolean }> {
  // Each terminal's last finished command only, and the info of the few named (a first build reads the end of each index, and no N.txt but theirs).
  const cat = await terminalCatalog(agentDir, { need: 'last', lazyInfo: true, ...(recheck ? { check: recheck } : {}) });
  if (!cat.ok) return { failed: [], total: 0, failedTotal: 0, failedUnknown: false };
  const { failing, unknown } = failingOf(cat.value);
  const failed: BriefingTerminal[] = [];
  const stale: number[] = [];
  for (const { info: t } of failing.slice(0, MAX_FAILED_TERMINALS_SHOWN)) {
    const summary = await terminalSummary(agentDir, t.n);
    // The last finished command: a running one after it does not hide the failure.
    const last = [...summary.recent].reverse().find((c) => c.status === 'done');
    if (!last || !isFailure(last)) {
      stale.push(t.n); // changed since the catalog checked it
      continue;
    }
    const part = last.parts[last.parts.length - 1] ?? { file: last.file, firstLine: last.firstLine, lastLine: last.lastLine };
    // The output's lines, as agentContext_terminal names them (the `>>>` header line is not output).
    const empty = part.lastLine !== null && part.lastLine < part.firstLine;
    failed.push({
      path: toPosixRelative(path.dirname(agentDir), path.join(agentDir, part.file)),
      name: t.name,
      ...(t.agent ? { agent: agentName(t.agent) } : {}),
      command: shownCommandLine(last.commandLine),
      exitCode: last.exitCode,
      ...(last.exitCode === null && last.exitUnknown ? { exitUnknown: last.exitUnknown } : {}),
      startLine: empty ? last.headerLine : part.firstLine,
      endLine: empty ? last.headerLine : part.lastLine ?? part.firstLine,
    });
  }
  // Once: those terminals checked now, so the counts agree with what is listed.
  if (stale.length && !recheck) return defaultTerminals(agentDir, stale);
  return { failed, total: cat.value.length, failedTotal: failing.length, failedUnknown: unknown };
}

/** The features' part of a briefing, made once per feature state (the same object while neither file changed: 5,000 features are not mapped at every call). */
const featuresMemo = new WeakMap<Readonly<FeatureState>, NonNullable<BriefingInput['features']>>();

function featuresOf(v: Readonly<FeatureState>, shown: string): NonNullable<BriefingInput['features']> {
  const had = featuresMemo.get(v);
  if (had?.path === shown) return had;
  const failing: { index: number; description: string }[] = [];
  v.features.forEach((f, index) => {
    if (!f.passes) failing.push({ index, description: f.description });
  });
  const made = { path: shown, passing: v.passing, total: v.total, tampered: v.tampered, diff: v.diffText ? v.diffText.split('\n') : [], failing };
  featuresMemo.set(v, made);
  return made;
}

async function safe<T>(f: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await f();
  } catch {
    return fallback;
  }
}

/** The plans in the briefing's order, per digests map (the same map while no plan file changed: fs/fileDigests.ts) and `.agent/` folder. */
const plansInOrder = new WeakMap<Map<string, PlanDigest>, Map<string, BriefingPlan[]>>();

/**
 * The plan files (plan.yaml, plan.md...) first; then the plan folders' checklists, newest first:
 * with a thousand plans in plans/, the ones shown are those worked on last, not the first by name.
 * Markdown plans without a checklist (Claude Code writes one per planning session) go last, newest
 * first, so they never push a plan with open steps out of the briefing.
 */
async function orderPlans(agentDir: string, files: string[], values: Map<string, PlanDigest>, rel: (abs: string) => string): Promise<BriefingPlan[]> {
  const plans: BriefingPlan[] = [];
  const outlines: { plan: BriefingPlan; mtimeMs: number }[] = [];
  const inFolders: { plan: BriefingPlan; mtimeMs: number }[] = [];
  const fixed = new Set(PLAN_FILES.map((f) => path.join(agentDir, f)));
  let whole = true;
  for (const file of files) {
    let s = values.get(file);
    if (!s) {
      s = await planDigest(file, rel(file)); // not remembered (unreadable, a link): read each time
      whole = false;
    }
    if (s.outline) outlines.push({ plan: s.plan, mtimeMs: s.mtimeMs });
    else if (!fixed.has(file)) inFolders.push({ plan: s.plan, mtimeMs: s.mtimeMs });
    else plans.push(s.plan);
  }
  const newest = (a: { mtimeMs: number }, b: { mtimeMs: number }): number => b.mtimeMs - a.mtimeMs;
  plans.push(...inFolders.sort(newest).map((o) => o.plan), ...outlines.sort(newest).map((o) => o.plan));
  if (whole) {
    const byDir = plansInOrder.get(values) ?? new Map<string, BriefingPlan[]>();
    byDir.set(agentDir, plans);
    plansInOrder.set(values, byDir);
  }
  return plans;
}

/** Reads everything the briefing shows, with paths relative to the workspace folder. `providers` replace sources in tests. */
export async function gatherBriefing(agentDir: string, opts: { providers?: BriefingProviders } = {}): Promise<BriefingInput> {
  const root = path.dirname(agentDir);
  const rel = (abs: string) => toPosixRelative(root, abs);
  const agentPath = rel(agentDir);
  // Asked first, awaited in its place: a server's first call may wait here for the terminal
  // catalog's worker (core/terminal/catalog/catalogWorker.ts), and the sources below are read meanwhile.
  const terminalsRead = safe(() => (opts.providers?.terminals ?? defaultTerminals)(agentDir), { failed: [], total: 0 });

  const files = await safe(() => findPlanFiles(agentDir), [] as string[]);
  // Each plan's summary is kept with its file's stat (fs/fileDigests.ts): a thousand plans in plans/ cost a stat each, not a parse.
  const values = await safe(() => planDigests(agentDir, files, rel), new Map<string, PlanDigest>());
  const known = plansInOrder.get(values)?.get(agentDir);
  const plans = known ? [...known] : await orderPlans(agentDir, files, values, rel);

  const tail = await safe(() => readProgressTail(agentDir, 5), { total: 0, entries: [] });
  const progress = {
    path: rel(progressPath(agentDir)),
    total: tail.total,
    entries: tail.entries.map((e) => ({ date: e.date, title: e.title, next: e.next, line: e.line })),
  };

  let features: BriefingInput['features'];
  const fs0 = await safe(() => sharedFeatureState(agentDir), undefined);
  if (fs0 && !fs0.ok) features = { path: rel(featuresPath(agentDir)), passing: 0, total: 0, tampered: false, diff: [], failing: [], error: formatFileError(fs0.error) };
  else if (fs0?.value) features = featuresOf(fs0.value, rel(featuresPath(agentDir)));

  // Totals from the index this process keeps (shared with the Scratch view): costs what changed since the last call.
  const totals = await safe(async () => (await currentScratchIndex(agentDir)).totals(), undefined);
  const scratch = { path: rel(inAgent(agentDir, 'scratch')), files: totals?.files ?? 0, bytes: totals?.bytes ?? 0 };

  const skillsOf = opts.providers?.skills ?? defaultSkills;
  const skills = await safe(() => skillsOf(root), []);

  const mem = await safe(() => listMemory(agentDir), undefined);
  const notes = await safe(() => listMemoryFiles(agentDir), []);
  const memory = {
    path: rel(preferencesPath(agentDir)),
    keys: mem?.ok ? mem.value.map((e) => e.key) : [],
    review: mem?.ok ? mem.value.filter((e) => e.review).map((e) => e.key) : [],
    notes: notes.map((n) => ({ path: n.path, title: n.title })),
    error: mem && !mem.ok ? formatFileError(mem.error) : undefined,
  };

  // The briefing shows at most 8 agents: the most recently active, and how many there are.
  const recent = await safe(() => recentAgents(agentDir, 8), { total: 0, agents: [] });
  const agents = {
    path: rel(inAgent(agentDir, 'agents')),
    total: recent.total,
    list: recent.agents.map((a) => ({ id: a.id, status: a.status?.status, progress: a.status?.progress, findings: a.findings, path: a.folder })),
  };

  const hist = await safe(() => listHistory(agentDir), []);
  const history = { path: rel(historyDir(agentDir)), sessions: hist.length, latest: hist[0]?.path };

  const human = await safe(() => sharedNotes(root, { marks: false }), { notes: [], errors: [] });
  // The notes the briefing can show (the newest) get their orphan marks checked as the targets are now.
  const shownFrom = Math.max(0, human.notes.length - MAX_NOTES_SHOWN);
  const humanNotes = [...human.notes.slice(0, shownFrom), ...(await safe(() => withCurrentOrphans(root, human.notes.slice(shownFrom)), human.notes.slice(shownFrom)))];

  const terminals = { folder: rel(inAgent(agentDir, 'terminals')), ...(await terminalsRead) };
  return { agentPath, plans, progress, features, terminals, scratch, skills, memory, agents, history, humanNotes };
}
