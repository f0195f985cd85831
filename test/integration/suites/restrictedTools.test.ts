// Run "restricted" (untrusted workspace): read-only tools work, run refuses and says why, without
// asking first (there is nothing to confirm).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { waitFor } from '../bridge';

const textOf = (r: vscode.LanguageModelToolResult): string =>
  r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

describe('tools in an untrusted workspace', () => {
  before(async () => {
    await waitFor(() => vscode.lm.tools.some((t) => t.name === 'agentContext_run'), { timeout: 30_000, message: 'tools registered' });
  });

  it('agentContext_run refuses with the reason and runs nothing', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const r = await vscode.lm.invokeTool('agentContext_run', { input: { command: 'touch tc-untrusted-ran' }, toolInvocationToken: undefined });
    assert.match(textOf(r), /not trusted.*does not run commands.*Manage Workspace Trust/);
    assert.equal(fs.existsSync(path.join(ws, 'tc-untrusted-ran')), false);
  });

  it('read-only tools still answer', async () => {
    const r = await vscode.lm.invokeTool('agentContext_glob', { input: { pattern: '*.yaml', path: '.agent' }, toolInvocationToken: undefined });
    assert.match(textOf(r), /\.agent\/plan\.yaml/);
  });
});
