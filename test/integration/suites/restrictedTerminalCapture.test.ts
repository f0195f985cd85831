// Run "restricted": terminal capture must stay off while the workspace is untrusted.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { INTEGRATION_WAIT_MS } from '../../../src/features/terminals/captureManager';
import { infoOf, terminalsDir, uniqueName } from '../terminalHelpers';

describe('restricted mode: terminal capture', function () {
  this.timeout(90_000);

  it('writes no capture file for a terminal opened in an untrusted workspace', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const ext = await waitFor(() => vscode.extensions.getExtension('agent-context.agent-context'), { message: 'extension present' });
    await waitFor(() => ext.isActive, { timeout: 30_000, message: 'Agent Context activated' });
    const before = fs.existsSync(terminalsDir()) ? fs.readdirSync(terminalsDir()).sort() : [];
    const name = uniqueName('untrusted');
    const terminal = vscode.window.createTerminal({ name, cwd: vscode.workspace.workspaceFolders![0].uri });
    terminal.show();
    try {
      // VS Code asks for trust before starting a shell here; the user declines, the workspace stays untrusted.
      const d = await ui.dialog('Cancel', { timeout: 20_000 });
      assert.match(d.message, /trust/i);
      assert.equal(vscode.workspace.isTrusted, false);
      // The terminal object exists (onDidOpenTerminal fired). Were capture on, it would write a
      // "no shell integration" file once INTEGRATION_WAIT_MS passed: wait past that.
      await new Promise((r) => setTimeout(r, INTEGRATION_WAIT_MS + 2000));
      assert.equal(await infoOf(name), undefined);
      const after = fs.existsSync(terminalsDir()) ? fs.readdirSync(terminalsDir()).sort() : [];
      assert.deepEqual(after, before);
    } finally {
      terminal.dispose();
    }
  });
});
