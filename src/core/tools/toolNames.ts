/*
 * Every tool's name, in the order tools are listed. `ToolName` is the closed set: definitions
 * (toolDefinitions.ts) and implementations (invokeTool.ts) are records keyed by it, so the compiler
 * refuses a tool without either, and a unit test checks package.json and docs/tools.md against it.
 */
export const TOOL_NAMES = [
  'agentContext_run',
  'agentContext_offload',
  'agentContext_read',
  'agentContext_grep',
  'agentContext_search',
  'agentContext_glob',
  'agentContext_terminal',
  'agentContext_plan',
  'agentContext_skill',
  'agentContext_memory',
  'agentContext_agentWorkspace',
  'agentContext_briefing',
  'agentContext_cleanup',
] as const;

export type ToolName = (typeof TOOL_NAMES)[number];
