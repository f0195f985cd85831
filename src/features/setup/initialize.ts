import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeInitialize, hasAgentFolder, initializeAgentFolder, InitializeOutcome, LAYOUT } from '../../core/workspace/agentLayout';
import { formatFileError } from '../../core/result';
import { offerAgentInstructions } from './addInstructions';
import { notify } from '../../editor/notify';
import { diskFolders } from '../../editor/settings';

async function pickFolder(arg: unknown): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = diskFolders();
  if (arg instanceof vscode.Uri) return vscode.workspace.getWorkspaceFolder(arg);
  if (folders.length <= 1) return folders[0];
  const missing: vscode.WorkspaceFolder[] = [];
  for (const f of folders) if (!(await hasAgentFolder(f.uri.fsPath))) missing.push(f);
  const choices = missing.length > 0 ? missing : folders;
  const pick = await vscode.window.showQuickPick(
    choices.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
    { title: 'Initialize .agent Folder', placeHolder: 'Which workspace folder gets the .agent/ folder?' },
  );
  return pick?.folder;
}

/** "Agent Context: Initialize .agent Folder": creates the layout in a workspace folder and opens the example plan. */
export function registerInitializeCommand(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.initialize', async (arg?: unknown): Promise<InitializeOutcome | undefined> => {
      if (!vscode.workspace.workspaceFolders?.length) {
        void notify.error('open a folder first, then run "Initialize .agent Folder".');
        return undefined;
      }
      if (!vscode.workspace.isTrusted) {
        void notify.warn('this workspace is in Restricted Mode; trust it to create the .agent folder.');
        return undefined;
      }
      const folder = await pickFolder(arg);
      if (!folder) return undefined;
      const r = await initializeAgentFolder(folder.uri.fsPath);
      if (!r.ok) {
        log.error(formatFileError(r.error));
        void notify.error(`could not initialize .agent/: ${formatFileError(r.error)}`);
        return undefined;
      }
      log.info(`initialized ${r.value.agentDir}: created ${r.value.created.length}, kept ${r.value.kept.length}`);
      void notify.info(`${describeInitialize(r.value, folder.name)}`);
      const plan = path.join(r.value.agentDir, LAYOUT.plan);
      if (r.value.created.includes(plan)) await vscode.window.showTextDocument(vscode.Uri.file(plan), { preview: true });
      offerAgentInstructions(context, folder.uri, log); // once per workspace, non-modal
      return r.value;
    }),
  );
}
