import { toolError, type ToolContext, type ToolOutcome } from './toolContext';

/** agentContext_terminal: wired to the terminal index once terminal capture lands (src/core/terminal/terminalIndex.ts). */
export async function terminalTool(_input: Record<string, unknown>, _ctx: ToolContext): Promise<ToolOutcome> {
  return toolError('terminal capture is not available in this build yet; use agentContext_grep on .agent/terminals/ instead');
}
