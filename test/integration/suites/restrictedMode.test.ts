// Run "restricted": the fixture opens with workspace trust enabled and the folder untrusted.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';

describe('restricted mode', () => {
  it('opens the workspace untrusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('still activates Agent Context and shows its container', async () => {
    const ext = await waitFor(() => vscode.extensions.getExtension('agent-context.agent-context'), { message: 'extension present' });
    await waitFor(() => ext.isActive, { timeout: 30_000, message: 'Agent Context activated in restricted mode (untrustedWorkspaces: limited)' });
    await ui.openViewContainer('Agent Context');
    await ui.waitForSelector('.part.sidebar .pane-header h3.title:text-is("Plan")', { timeout: 20_000 });
  });
});
