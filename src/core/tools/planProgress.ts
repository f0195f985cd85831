import { appendProgress } from '../plan/progress';
import { setPasses } from '../plan/featureList';
import { formatFileError } from '../result';
import { toolError, type ToolContext, type ToolOutcome } from './toolContext';

/** The plan tool's actions that live outside plan.yaml. */
export const PLAN_EXTRA_ACTIONS = ['logProgress', 'setPasses'] as const;

/**
 * agentContext_plan `logProgress` (description = title, notes = what was done, next) and
 * `setPasses` (feature = 0-based index, passes) — the only way tools change features.json.
 */
export async function planExtraAction(action: string, input: Record<string, unknown>, agentDir: string, ctx: ToolContext): Promise<ToolOutcome> {
  const now = ctx.now?.();
  if (ctx.signal.aborted) return toolError('cancelled; nothing changed');
  if (action === 'logProgress') {
    const title = typeof input.description === 'string' ? input.description : typeof input.title === 'string' ? input.title : '';
    const r = await appendProgress(
      agentDir,
      { title, done: typeof input.notes === 'string' ? input.notes : undefined, next: typeof input.next === 'string' ? input.next : undefined },
      { now },
    );
    if (!r.ok) return toolError(`${formatFileError(r.error)} (logProgress: description = one-line title, notes = what was done, next = the next step)`);
    return { text: `Logged to ${r.value.path}:${r.value.entry.line} — ${r.value.entry.date} — ${r.value.entry.title}${r.value.entry.next ? `\nNext: ${r.value.entry.next}` : ''}` };
  }
  if (action === 'setPasses') {
    const index = typeof input.feature === 'number' ? input.feature : Number.NaN;
    if (!Number.isInteger(index)) return toolError('setPasses needs feature (the 0-based index in .agent/features.json) and passes (true or false)');
    if (typeof input.passes !== 'boolean') return toolError('setPasses needs passes: true or false');
    const r = await setPasses(agentDir, index, input.passes, { by: ctx.source === 'mcp' ? 'tool (mcp)' : 'tool', now });
    if (!r.ok) return toolError(formatFileError(r.error));
    const f = r.value.features[index];
    return { text: `Feature ${index} "${f.description}" passes: ${f.passes}. ${r.value.passing}/${r.value.total} passing (${r.value.path}).` };
  }
  return toolError(`unknown action "${action}"`);
}

