import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CLAUDE_PLANS_DIR, MCP_SERVER_NAME, setUpClaudeCode } from '../../core/setup/agents/claudeCode';
import { formatFileError } from '../../core/result';
import { installServerCopy } from './mcpSetup';

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length <= 1) return folders[0];
  const pick = await vscode.window.showQuickPick(folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })), {
    title: 'Set Up Claude Code',
    placeHolder: 'Which workspace folder does Claude Code work in?',
  });
  return pick?.folder;
}

/**
 * "Agent Context: Set Up Claude Code": the Bash hook, plansDirectory and our MCP server in Claude
 * Code's local settings for one folder (core/claudeCode/claudeSetup.ts). The scripts run from a
 * copy in global storage, so the paths written survive extension updates.
 */
export function registerClaudeCodeSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.setupClaudeCode', async () => {
      if (!vscode.workspace.isTrusted) {
        void vscode.window.showWarningMessage('Agent Context: this workspace is in Restricted Mode; trust it to set up Claude Code (the setup adds a hook that runs with every Bash command).');
        return undefined;
      }
      const folder = await pickFolder();
      if (!folder) {
        if (!vscode.workspace.workspaceFolders?.length) void vscode.window.showErrorMessage('Agent Context: open a folder first, then run "Set Up Claude Code".');
        return undefined;
      }
      let mcpJs: string;
      try {
        mcpJs = await installServerCopy(context);
      } catch (e) {
        void vscode.window.showErrorMessage(`Agent Context: could not copy the hook and MCP server to ${context.globalStorageUri.fsPath}: ${(e as Error).message}`);
        return undefined;
      }
      // `node` from PATH: Claude Code runs hooks and MCP servers in the user's shell environment,
      // and the editor's own executable is not a plain Node.
      const paths = { node: 'node', mcpJs, hookJs: path.join(path.dirname(mcpJs), 'claude-hook.js') };
      const r = await setUpClaudeCode(folder.uri.fsPath, os.homedir(), paths);
      if (!r.ok) {
        log.error(`Set Up Claude Code: ${formatFileError(r.error)}`);
        void vscode.window.showErrorMessage(`Agent Context: Claude Code was not set up: ${formatFileError(r.error)}`);
        return undefined;
      }
      log.info(`Set Up Claude Code in ${folder.uri.fsPath}: changed ${r.value.changed.join(', ') || 'nothing'}; unchanged ${r.value.unchanged.join(', ') || 'nothing'}`);
      void vscode.window.showInformationMessage(
        r.value.changed.length === 0
          ? `Agent Context: Claude Code was already set up for ${folder.name}.`
          : `Agent Context: Claude Code set up for ${folder.name}: large Bash output goes to .agent/scratch/tool_outputs/, plans to ${CLAUDE_PLANS_DIR}/, and the "${MCP_SERVER_NAME}" MCP server is added (local scope). Restart Claude Code to pick it up.`,
      );
      return r.value;
    }),
  );
}
