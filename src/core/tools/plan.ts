import * as fs from 'node:fs';
import * as path from 'node:path';
import { planProgress, type Plan, type StepStatus } from '../plan/planDocument';
import { updatePlanFile, type PlanEdit } from '../plan/planEdit';
import { findPlanFiles, isMarkdownPlan, loadPlanFile, readOnlyPlanOwner } from '../plan/planFiles';
import { planDigest, planDigests, type PlanDigest } from '../plan/planDigests';
import { cutToBytes } from '../output/reference';
import { formatFileError } from '../result';
import { defaultFolder } from '../workspace/workspacePaths';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { PLAN_EXTRA_ACTIONS, planExtraAction } from './planProgress';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentDirOf } from '../workspace/agentLayout';
import { agentPath } from '../workspace/layout';

/** The plan's answer: room left for the line naming where to read the rest. */
const PLAN_MAX_BYTES = TOOL_ANSWER_MAX_BYTES - 100;

/** The plan as an agent reads it: objective, progress, one line per step (Markdown items indented by nesting). */
export function formatPlanCompact(plan: Plan, shown: string, readOnlyOwner?: string): string {
  const p = planProgress(plan);
  const md = plan.format === 'markdown';
  const kind = md ? (plan.steps.length ? ' (Markdown checklist)' : ' (Markdown, no checklist)') : '';
  // One line per step: a YAML block scalar's line breaks would split a step over several lines.
  const oneLine = (t: string) => t.replace(/\s+/g, ' ').trim();
  const out = [`Plan ${shown}${kind}: ${oneLine(plan.objective)}`];
  if (md && plan.steps.length === 0) {
    const secs = plan.sections ?? [];
    if (secs.length) out.push(`Sections: ${secs.map((x) => `${x.title} (line ${x.line})`).join('; ')}`);
    out.push('No "- [ ]" items, so no step to mark; read the file for the details.');
    return cutToBytes(out.join('\n'), PLAN_MAX_BYTES);
  }
  out.push(`${p.done}/${p.total} done${plan.status ? ` · status ${plan.status}` : ''}`);
  for (const s of plan.steps) {
    out.push(`${'  '.repeat(s.depth ?? 0)}[${s.id}] ${s.status}: ${oneLine(s.description)}${s.notes ? ` (notes: ${oneLine(s.notes)})` : ''}`);
  }
  if (readOnlyOwner) out.push(`Read-only here: ${readOnlyOwner} rewrites this plan; change it in ${readOnlyOwner}.`);
  else if (md) out.push('stepId = item number; setStatus writes [x] completed, [ ] pending, [/] in_progress, [!] blocked, [-] cancelled.');
  return cutToBytes(out.join('\n'), PLAN_MAX_BYTES);
}

/** How many other plans are named with title and progress; the rest are counted. */
const OTHER_PLANS_SHOWN = 8;

/**
 * One line per plan, most recently changed first: `- path: title (done/total done)`, a plan that
 * cannot be read with its reason. Only the first OTHER_PLANS_SHOWN are parsed, so a folder of a
 * thousand plans costs their stats, not their parsing.
 */
async function planLines(agentDir: string, files: string[], relOf: (f: string) => string, readOnly: (f: string) => string | undefined): Promise<string[]> {
  // Sync stats: a thousand plans cost ~2 ms this way, ~15 ms through the thread pool.
  const stamp = (f: string): number => {
    try {
      return fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    } catch {
      return 0;
    }
  };
  const dated = files.map((f) => ({ f, t: stamp(f) }));
  dated.sort((a, b) => b.t - a.t || a.f.localeCompare(b.f));
  const lines: string[] = [];
  const shownFiles = dated.slice(0, OTHER_PLANS_SHOWN).map(({ f }) => f);
  // Their digests (the briefing's too): a plan unchanged since it was last listed is not parsed again.
  const digests = await planDigests(agentDir, shownFiles, relOf, { only: true }).catch(() => new Map<string, PlanDigest>());
  for (const f of shownFiles) {
    const shown = relOf(f);
    const d = digests.get(f) ?? (await planDigest(f, shown));
    if (d.plan.error !== undefined) {
      lines.push(`- ${shown}: cannot be read (${d.plan.error})`);
      continue;
    }
    const p = d.plan;
    const progress = p.total ? ` (${p.done}/${p.total} done)` : d.outline ? ' (no checklist)' : '';
    const owner = readOnly(f);
    lines.push(`- ${shown}: ${p.objective || '(no title)'}${progress}${owner ? ` (${owner}'s plan, read-only)` : ''}`);
  }
  if (dated.length > OTHER_PLANS_SHOWN) lines.push(`- … and ${dated.length - OTHER_PLANS_SHOWN} more in ${[...new Set(dated.slice(OTHER_PLANS_SHOWN).map(({ f }) => path.posix.dirname(relOf(f))))].join(', ')}`);
  return lines;
}

/** agentContext_plan: reads the plan compactly or edits it (byte-preserving, atomic). */
export async function planTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  // progress.md and features.json live beside the plan: no plan file is needed for them.
  if ((PLAN_EXTRA_ACTIONS as readonly unknown[]).includes(input.action)) return planExtraAction(String(input.action), input, agentDir, ctx);
  const files = await findPlanFiles(agentDir);
  const relOf = (f: string): string => toPosixRelative(folder.path, f);
  const readOnlyOf = (f: string): string | undefined => readOnlyPlanOwner(agentDir, f);
  let file: string | undefined;
  const want = typeof input.plan === 'string' ? input.plan.trim().replace(/^\.agent\//, '') : '';
  if (want) {
    file = files.find((f) => {
      const r = toPosixRelative(agentDir, f);
      return r === want || path.basename(f) === want || path.basename(f).replace(/\.(ya?ml|md|markdown)$/i, '') === want;
    });
    if (!file) return toolError(`no plan "${input.plan}". Plans: ${files.map(relOf).join(', ') || 'none'}`);
  } else if (files.length === 0) {
    return toolError('no plan file: create .agent/plan.yaml (command "Agent Context: Initialize .agent Folder" writes an example)');
  } else {
    // plan.yaml first, then plan.md: the agent's own plan wins over the ones kept in plans/.
    file = files.find((f) => f === agentPath(agentDir, 'plan')) ?? files.find((f) => f === agentPath(agentDir, 'planMarkdown')) ?? (files.length === 1 ? files[0] : undefined);
    if (!file) return { text: `Several plans; pass plan to choose one:\n${(await planLines(agentDir, files, relOf, readOnlyOf)).join('\n')}` };
  }
  const shown = relOf(file);
  const action = (input.action as string | undefined) ?? 'get';
  if (ctx.signal.aborted) return toolError('cancelled; nothing changed');
  let edit: PlanEdit | undefined;
  const stepId = input.stepId === undefined ? undefined : String(input.stepId);
  switch (action) {
    case 'get':
      break;
    case 'setStatus':
      if (!stepId || !input.status) return toolError('setStatus needs stepId and status');
      edit = { kind: 'setStatus', stepId, status: input.status as StepStatus };
      break;
    case 'setNotes':
      if (!stepId || typeof input.notes !== 'string') return toolError('setNotes needs stepId and notes');
      edit = { kind: 'setNotes', stepId, notes: input.notes };
      break;
    case 'addStep':
      if (typeof input.description !== 'string' || !input.description.trim()) return toolError('addStep needs a description');
      edit = {
        kind: 'addStep', description: input.description,
        ...(input.status ? { status: input.status as StepStatus } : {}),
        ...(typeof input.notes === 'string' ? { notes: input.notes } : {}),
        ...(stepId ? { id: stepId } : {}),
      };
      break;
    default:
      return toolError(`unknown action "${action}"; use get, setStatus, setNotes or addStep`);
  }
  if (!edit) {
    const loaded = await loadPlanFile(file, shown);
    if (!loaded.ok) return toolError(`${formatFileError(loaded.error)}. Fix the file; nothing was changed.`);
    const owner = readOnlyPlanOwner(agentDir, file, loaded.value.version.text);
    const current = formatPlanCompact(loaded.value.plan, owner ? `${shown} (${owner}'s plan, read-only)` : shown, owner);
    // Without a plan named, the agent must learn that the others exist: each with title, progress, path.
    const others = want ? [] : files.filter((f) => f !== file);
    if (!others.length) return { text: current };
    const list = `Other plans (pass plan to read one):\n${(await planLines(agentDir, others, relOf, readOnlyOf)).join('\n')}`;
    return { text: cutToBytes(`${current}\n\n${list}`, PLAN_MAX_BYTES) };
  }
  // A mirror of an agent's plan says so on its first line: read before an edit.
  const text = isMarkdownPlan(file) ? await fs.promises.readFile(file, 'utf8').catch(() => undefined) : undefined;
  const owner = readOnlyPlanOwner(agentDir, file, text);
  if (owner) return toolError(`${shown} is ${owner}'s own plan: read-only here (${owner} rewrites it). Change it in ${owner}, or copy it under a name of your own in .agent/plans/ to track it here.`);
  const r = await updatePlanFile(file, edit);
  if (!r.ok) return toolError(formatFileError({ ...r.error, file: shown }));
  const unchanged = 'changed' in r.value && r.value.changed === false;
  return { text: `${unchanged ? `No change: step ${stepId} is already ${String(input.status)}.` : 'Updated.'}\n${formatPlanCompact({ ...r.value.plan, file: shown }, shown)}` };
}
