/**
 * The agents whose own shell commands Agent Context records, by the id their hooks and set-ups use
 * (`AGENT_CONTEXT_AGENT`, `mcp.js --setup <id>`), with the name a user reads. One list: the set-ups'
 * labels, the Terminals view's agent groups and the tools' answers take the names from here.
 */
export const AGENT_NAMES = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  'copilot-cli': 'GitHub Copilot CLI',
  opencode: 'opencode',
  cline: 'Cline',
  'qwen-code': 'Qwen Code',
  kilo: 'Kilo Code',
  'vscode-copilot': "VS Code's agent (Copilot harness)",
} as const;

export type KnownAgent = keyof typeof AGENT_NAMES;

/** The name a user reads for an agent id (the id itself for one this list does not know). */
export function agentName(id: string): string {
  return (AGENT_NAMES as Record<string, string>)[id] ?? id;
}
