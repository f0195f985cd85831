import * as path from 'node:path';
import { composeBriefing } from '../briefing/briefing';
import { gatherBriefing, type BriefingProviders } from '../briefing/briefingSources';
import { defaultFolder } from '../workspace/workspacePaths';
import { toolError, type ToolContext, type ToolOutcome } from './toolContext';

let providers: BriefingProviders = {};

/** Lets a host plug in sources owned by other features (e.g. the terminal index) without a core dependency cycle. */
export function setBriefingProviders(p: BriefingProviders): void {
  providers = p;
}

/** agentContext_briefing: one compact orientation (≤ 1,500 tokens) of the default folder's .agent/. */
export async function briefingTool(_input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = path.join(folder.path, '.agent');
  if (ctx.signal.aborted) return toolError('cancelled');
  const input = await gatherBriefing(agentDir, { providers });
  return { text: composeBriefing(input).text };
}
