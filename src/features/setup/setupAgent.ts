import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_SETUPS, agentsFound, setUpAgent, undoAgent, type AgentSetup } from '../../core/setup/agents';
import { formatFileError } from '../../core/result';
import { installServerCopy } from './mcpSetup';
import { vscodeCopilotSetup } from '../../core/setup/agents/vscodeCopilot';
import { notify } from '../../editor/notify';

async function pickFolder(title: string): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length <= 1) return folders[0];
  const pick = await vscode.window.showQuickPick(folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })), {
    title,
    placeHolder: 'Which workspace folder does the agent work in?',
  });
  return pick?.folder;
}

/** The id of VS Code's own agent in the pick (its set-up is setupVscodeAgent.ts: a hook file, no MCP server). */
export const VSCODE_AGENT_ID = 'vscode';

type AgentItem = vscode.QuickPickItem & { id: string; agent?: AgentSetup };

/**
 * The agents to offer: VS Code's own agent (always there), then the CLIs found on this machine, then
 * the rest (marked), so none is out of reach.
 */
function agentItems(): AgentItem[] {
  const found = new Set(agentsFound(AGENT_SETUPS, os.homedir()).map((a) => a.id));
  const vscodeAgent: AgentItem = { id: VSCODE_AGENT_ID, label: 'VS Code\'s agent (Copilot Chat)', description: 'this editor, both harnesses: Local (.github/hooks/agent-context-vscode.json) and Copilot (~/.copilot/hooks, mcp-config.json)' };
  // VS Code's Copilot harness is set up by VS Code's entry (both harnesses at once).
  return [vscodeAgent, ...AGENT_SETUPS.filter((a) => a.id !== vscodeCopilotSetup.id)
    .sort((a, b) => Number(found.has(b.id)) - Number(found.has(a.id)))
    .map((a) => ({ id: a.id, label: a.label, description: found.has(a.id) ? 'found on this machine' : `not found (no ${a.binary} on PATH, no ~/${a.homeFolder})`, agent: a }))];
}

/**
 * "Agent Context: Set Up Agent…" and "Undo Agent Set-Up…": our MCP server, the shell hook and the
 * plan folder in the chosen agent's own (local, uncommitted) configuration for one folder
 * (core/setup/agents/). The scripts run from a copy in global storage, so the paths written survive
 * extension updates.
 */
export function registerAgentSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const run = async (undo: boolean, preset?: string): Promise<unknown> => {
    const title = undo ? 'Undo Agent Set-Up' : 'Set Up Agent';
    if (!undo && !vscode.workspace.isTrusted) {
      void notify.warn('this workspace is in Restricted Mode; trust it to set up an agent (the set-up adds a hook that runs with the agent\'s shell commands).');
      return undefined;
    }
    const id = preset ?? (await vscode.window.showQuickPick(agentItems(), { title, placeHolder: 'Which agent?' }))?.id;
    if (id === VSCODE_AGENT_ID) return vscode.commands.executeCommand(undo ? 'agentContext.undoVscodeAgent' : 'agentContext.setupVscodeAgent');
    const agent = AGENT_SETUPS.find((a) => a.id === id);
    if (!agent) return undefined;
    const folder = await pickFolder(title);
    if (!folder) {
      if (!vscode.workspace.workspaceFolders?.length) void notify.error(`open a folder first, then run "${title}".`);
      return undefined;
    }
    let dist: string;
    try {
      dist = path.dirname(await installServerCopy(context));
    } catch (e) {
      void notify.error(`could not copy the hook and MCP server to ${context.globalStorageUri.fsPath}: ${(e as Error).message}`);
      return undefined;
    }
    // `node` from PATH: agents run hooks and MCP servers in the user's shell environment, and the
    // editor's own executable is not a plain Node.
    const r = undo ? await undoAgent(agent, folder.uri.fsPath, os.homedir()) : await setUpAgent(agent, folder.uri.fsPath, os.homedir(), { node: 'node', dist });
    if (!r.ok) {
      log.error(`${title} (${agent.label}): ${formatFileError(r.error)}`);
      void notify.error(`${agent.label} was not ${undo ? 'restored' : 'set up'}: ${formatFileError(r.error)}`);
      return undefined;
    }
    log.info(`${title} (${agent.label}) in ${folder.uri.fsPath}: changed ${r.value.changed.join(', ') || 'nothing'}; unchanged ${r.value.unchanged.join(', ') || 'nothing'}${r.value.notes.length ? `; ${r.value.notes.join(' ')}` : ''}`);
    const notes = r.value.notes.length ? ` ${r.value.notes.join(' ')}` : '';
    void notify.info(
      undo
        ? `Agent Context: removed what the set-up added for ${agent.label} in ${folder.name}.${notes}`
        : r.value.changed.length === 0
          ? `Agent Context: ${agent.label} was already set up for ${folder.name}.${notes}`
          : `Agent Context: ${agent.label} set up for ${folder.name}: the "agent-context" MCP server, and large shell output goes to .agent/scratch/tool_outputs/. Restart ${agent.label} to pick it up.${notes}`,
    );
    return r.value;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.setupAgent', (preset?: string) => run(false, preset)),
    vscode.commands.registerCommand('agentContext.undoAgentSetup', (preset?: string) => run(true, preset)),
  );
}
