import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

describe('Set Up VS Code Agent (Copilot)', () => {
  it('with chat.useHooks off: writes the hook file and says in one line that the agent will not run it; undo removes it', async () => {
    const chat = vscode.workspace.getConfiguration('chat');
    await chat.update('useHooks', false, vscode.ConfigurationTarget.Global);
    const file = path.join(ws(), VSCODE_HOOK_FILE);
    try {
      const r = await vscode.commands.executeCommand<{ file: string; changed: boolean; warning?: string }>('agentContext.setupVscodeAgent');
      assert.equal(r?.file, VSCODE_HOOK_FILE);
      assert.ok(fs.existsSync(file));
      assert.equal(r?.warning, `Agent Context: wrote ${VSCODE_HOOK_FILE}, but VS Code's agent runs no hooks while chat.useHooks is off.`);
    } finally {
      await chat.update('useHooks', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentContext.undoVscodeAgent');
      await vscode.commands.executeCommand('notifications.clearAll');
    }
    assert.equal(fs.existsSync(file), false);
    fs.rmSync(path.join(ws(), '.github/hooks'), { recursive: true, force: true });
  });
});
