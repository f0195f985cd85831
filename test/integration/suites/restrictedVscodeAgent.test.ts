import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HOOK_ENV, VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';

describe('VS Code agent set-up in Restricted Mode', () => {
  it('writes no hook file and exports no hook program to the agent', async () => {
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, VSCODE_HOOK_FILE);
    assert.equal(await vscode.commands.executeCommand('agentContext.setupAgent', 'vscode'), undefined);
    assert.equal(fs.existsSync(file), false);
    // The agent's hooks inherit this extension host's environment: nothing to run in an untrusted window.
    assert.equal(process.env[HOOK_ENV.js], undefined);
  });
});
