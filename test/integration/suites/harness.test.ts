// Proves the harness itself: the tests run inside a real extension host with the run's fixture
// open, and the bridge drives the real workbench (palette, terminal, modal dialog, Activity Bar).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';

describe('harness', () => {
  it('runs inside the extension host with a fresh copy of the fixture open', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1, 'one workspace folder is open');
    const ws = process.env.AGENT_CONTEXT_WORKSPACE;
    if (ws) assert.equal(folders[0].uri.fsPath, ws, 'the run copied the fixture to a temp folder');
    assert.equal(vscode.workspace.isTrusted, true);
  });

  it('runs a palette command and types into the bash terminal it opened', async () => {
    await ui.runCommand('Terminal: Create New Terminal');
    const terminal = await waitFor(() => vscode.window.activeTerminal, { message: 'a terminal opened' });
    await waitFor(() => terminal.shellIntegration, { timeout: 45_000, message: 'bash shell integration activated' });
    const ended = new Promise<vscode.TerminalShellExecutionEndEvent>((resolve) => {
      const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.terminal === terminal && e.execution.commandLine.value.includes('harness-marker')) {
          sub.dispose();
          resolve(e);
        }
      });
    });
    await ui.terminalType('echo harness-marker; exit_code_check=$?');
    const end = await ended;
    assert.equal(end.execution.commandLine.value, 'echo harness-marker; exit_code_check=$?');
    assert.equal(end.exitCode, 0);
    terminal.dispose();
  });

  it('answers a modal dialog by its button label', async () => {
    const answer = vscode.window.showWarningMessage('Harness asks: keep going?', { modal: true, detail: 'from the harness suite' }, 'Keep', 'Stop');
    const shown = await ui.dialog('Stop');
    assert.equal(shown.message, 'Harness asks: keep going?');
    assert.equal(await answer, 'Stop');
  });

  it('opens a view container from the Activity Bar', async () => {
    await ui.openViewContainer('Explorer');
    const rows = await waitFor(async () => {
      const texts = await ui.texts('.explorer-folders-view .monaco-list-row');
      return texts.includes('.agent') ? texts : undefined;
    }, { message: 'the Explorer lists .agent' });
    assert.ok(rows.includes('.agent'));
  });

  it('opens a context-menu item on an Explorer row', async () => {
    await ui.openViewContainer('Explorer');
    const before = vscode.window.terminals.length;
    await ui.contextMenu('.explorer-folders-view .monaco-list-row[aria-label^=".agent"]', 'Open in Integrated Terminal');
    const terminal = await waitFor(() => (vscode.window.terminals.length > before ? vscode.window.activeTerminal : undefined), {
      message: 'the context-menu item opened a terminal',
    });
    const cwd = (terminal.creationOptions as vscode.TerminalOptions).cwd;
    assert.match(String(cwd instanceof vscode.Uri ? cwd.fsPath : cwd), /\.agent$/);
    terminal.dispose();
  });

  it('reports a palette command that does not exist with what the palette listed', async () => {
    await assert.rejects(ui.runCommand('No Such Command 4711', { timeout: 3000 }), /no command titled "No Such Command 4711"/);
    await ui.waitForSelector('.quick-input-widget', { state: 'hidden' });
  });
});
