import * as vscode from 'vscode';

/** Placeholder until the foundation lands: creates an empty .agent/ in the first folder. */
export function registerInitializeCommand(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.initialize', async () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showErrorMessage('Agent Context: open a folder first, then initialize .agent/.');
        return;
      }
      await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.agent'));
      log.info(`created .agent/ in ${folder.uri.fsPath}`);
    }),
  );
}
