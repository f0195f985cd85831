import { composeBriefingAsync } from '../briefing/composeBriefing';
import { gatherBriefing } from '../briefing/briefingSources';
import { defaultFolder } from '../workspace/workspacePaths';
import { toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { agentDirOf } from '../workspace/agentLayout';

/** agentContext_briefing: one compact orientation (≤ 1,500 tokens) of the default folder's .agent/. */
export async function briefingTool(_input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  if (ctx.signal.aborted) return toolError('cancelled');
  const input = await gatherBriefing(agentDir);
  return { text: (await composeBriefingAsync(input, undefined, { exact: false })).text };
}
