import * as path from 'node:path';
import * as vscode from 'vscode';
import { HOOK_ENV, setUpVscodeAgent, undoVscodeAgent, VSCODE_HOOK_FILE } from '../../core/setup/agents/vscodeAgent';
import { formatFileError } from '../../core/result';

/**
 * VS Code's own agent (Copilot Chat): the hook file of core/setup/agents/vscodeAgent.ts, and the two
 * environment variables its hook reads. Hooks run as children of this extension host and inherit its
 * environment, so the committed hook file needs no path; in a Restricted Mode window they stay unset
 * and the hook does nothing.
 */
export function registerVscodeAgentSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const exportHookEnv = (): void => {
    if (!vscode.workspace.isTrusted) return;
    process.env[HOOK_ENV.js] = path.join(context.extensionPath, 'dist', 'agent-hook.js');
    process.env[HOOK_ENV.node] = process.execPath;
  };
  exportHookEnv();
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(exportHookEnv),
    vscode.commands.registerCommand('agentContext.setupVscodeAgent', async () => {
      const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
      if (!folder) return void vscode.window.showErrorMessage('Agent Context: open a folder first, then set up VS Code\'s agent.');
      if (!vscode.workspace.isTrusted) return void vscode.window.showWarningMessage('Agent Context: this workspace is in Restricted Mode; trust it to set up VS Code\'s agent (the set-up adds a hook).');
      const r = await setUpVscodeAgent(folder.uri.fsPath);
      if (!r.ok) {
        log.error(`Set Up VS Code Agent: ${formatFileError(r.error)}`);
        return void vscode.window.showErrorMessage(`Agent Context: VS Code's agent was not set up: ${formatFileError(r.error)}`);
      }
      log.info(`Set Up VS Code Agent in ${folder.uri.fsPath}: ${r.value.changed ? 'wrote' : 'unchanged'} ${r.value.file}`);
      // The file is written either way; say in one line why the agent will not use it yet.
      const off = hooksOff();
      if (off) {
        const warning = `Agent Context: wrote ${VSCODE_HOOK_FILE}, but ${off}.`;
        void vscode.window.showWarningMessage(warning);
        return { ...r.value, warning };
      }
      void vscode.window.showInformationMessage(r.value.changed
        ? `Agent Context: wrote ${VSCODE_HOOK_FILE}. A large run_in_terminal output now reaches the model with our reference (error lines with their numbers). Undo: "Agent Context: Remove VS Code Agent Hook".`
        : `Agent Context: VS Code's agent was already set up (${VSCODE_HOOK_FILE}).`);
      return r.value;
    }),
    vscode.commands.registerCommand('agentContext.undoVscodeAgent', async () => {
      const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
      if (!folder) return undefined;
      const r = await undoVscodeAgent(folder.uri.fsPath);
      if (!r.ok) return void vscode.window.showErrorMessage(`Agent Context: ${formatFileError(r.error)}`);
      void vscode.window.showInformationMessage(r.value.removed ? `Agent Context: removed ${VSCODE_HOOK_FILE}.` : `Agent Context: there was no ${VSCODE_HOOK_FILE}.`);
      return r.value;
    }),
  );
}

/** Why VS Code's agent would not run the hook now (chat turned off, hooks off), or undefined. */
function hooksOff(): string | undefined {
  const chat = vscode.workspace.getConfiguration('chat');
  if (chat.get<boolean>('disableAIFeatures') === true) return 'chat is turned off (chat.disableAIFeatures), so VS Code\'s agent does not run';
  if (chat.get<boolean>('useHooks') === false) return 'VS Code\'s agent runs no hooks while chat.useHooks is off';
  return undefined;
}
