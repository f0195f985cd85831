/*
 * VS Code's agent in its Copilot harness (VS Code 1.140+: the agent runs in an agent-host process on
 * the Copilot SDK, whose shell commands are plain child processes, outside any integrated terminal).
 * What that runtime reads, and why these files (copilotRuntime.ts has the evidence):
 *   - $COPILOT_HOME/hooks/agent-context.json: postToolUse replaces a large `bash` result by our
 *     reference, masks secrets, and records every command in the agent-command history (under
 *     `vscode-copilot`: VS Code marks its agent host's processes with AI_AGENT); sessionStart hands
 *     the model the briefing;
 *   - $COPILOT_HOME/mcp-config.json: our MCP server, serving the folder the agent works in. In an
 *     editor window the harness also offers extensions' language-model tools (ours among them) while
 *     that window is connected; in the Agents window, and for Copilot CLI, the MCP server is the way.
 * Both are user-scope, the same files the Copilot CLI set-up writes, so the two never run twice. The
 * Local harness keeps its own hook file (vscodeAgent.ts); the editor's "Set Up Agent…" entry for VS
 * Code's agent does both, since a user may be on either harness.
 */
import { ok, type Result } from '../../result';
import { agentName } from '../../hooks/agentNames';
import type { AgentSetup, SetupPlan, SetupRecord } from './agentSetup';
import { copilotHooksFile, planCopilotHooks, planCopilotUserMcp } from './copilotRuntime';
import type { SetupPaths } from './configFiles';

async function plan(_root: string, home: string, paths: SetupPaths | undefined, record: SetupRecord | undefined): Promise<Result<SetupPlan>> {
  const h = await planCopilotHooks(home, paths, record);
  if (!h.ok) return h;
  const m = await planCopilotUserMcp(home, paths, record);
  if (!m.ok) return m;
  const notes = [...h.value.notes];
  if (paths) notes.push(`VS Code's Copilot harness runs the hooks in ${copilotHooksFile(home)} and the MCP server "agent-context" for every folder it works in that has an .agent/ folder (user scope: nothing to commit).`);
  return ok({ edits: [h.value.edit, m.value.edit], keys: [...h.value.keys, ...m.value.keys], notes });
}

export const vscodeCopilotSetup: AgentSetup = { id: 'vscode-copilot', label: agentName('vscode-copilot'), binary: 'code', homeFolder: '.copilot', userScopeOnly: true, plan };
