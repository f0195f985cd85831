// Run "multiroot" (alpha and beta have .agent/, gamma has not): tool paths may start with a folder's
// name; otherwise they are relative to the first folder with .agent/ — the same over MCP with one
// --root per folder.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { waitFor } from '../bridge';
import { startMcp } from '../mcpClient';
import { ledgerPath } from '../../../src/core/history/ledger';

const textOf = (r: vscode.LanguageModelToolResult): string =>
  r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
const invoke = async (name: string, input: Record<string, unknown>): Promise<string> =>
  textOf(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));

describe('tools in a multi-root workspace', function () {
  this.timeout(120_000);
  const folder = (name: string): string => vscode.workspace.workspaceFolders!.find((f) => f.name === name)!.uri.fsPath;

  before(async () => {
    await waitFor(() => vscode.lm.tools.some((t) => t.name === 'agentContext_read'), { timeout: 30_000, message: 'tools registered' });
  });

  it('reads from a named folder, and from the first folder with .agent/ otherwise', async () => {
    assert.match(await invoke('agentContext_read', { path: 'beta/.agent/plan.yaml', limit: 2 }), /^beta\/\.agent\/plan\.yaml: lines 1–2/);
    assert.match(await invoke('agentContext_read', { path: 'gamma/README.md', limit: 1 }), /^gamma\/README\.md: lines 1–1/);
    const alphaPlan = fs.readFileSync(path.join(folder('alpha'), '.agent/plan.yaml'), 'utf8').split('\n')[0];
    assert.ok((await invoke('agentContext_read', { path: '.agent/plan.yaml', limit: 1 })).includes(`1: ${alphaPlan}`));
    assert.match(await invoke('agentContext_read', { path: 'beta/../../x' }), /"\.\." are refused/);
  });

  it('the MCP server given every folder resolves paths the same way', async () => {
    const ext = vscode.extensions.getExtension('agent-context.agent-context')!;
    const roots = ['alpha', 'beta', 'gamma'].map(folder);
    const mcp = await startMcp(path.join(ext.extensionPath, 'dist/mcp.js'), roots[0], ['--root', roots[1], '--root', roots[2]]);
    try {
      assert.match((await mcp.call('agentContext_read', { path: 'gamma/README.md', limit: 1 })).text, /^gamma\/README\.md: lines 1–1/);
      assert.match((await mcp.call('agentContext_glob', { pattern: 'plan.yaml', path: 'beta' })).text, /beta\/\.agent\/plan\.yaml/);
    } finally {
      await mcp.close();
    }
  });

  it('offloaded output and the ledger go to the first folder with .agent/', async () => {
    const text = await invoke('agentContext_offload', { content: 'multiroot offload check\n', name: 'mr-check' });
    const rel = /Saved: (\.agent\/scratch\/mr-check-\S+\.txt)/.exec(text)?.[1];
    assert.ok(rel, text);
    assert.equal(fs.readFileSync(path.join(folder('alpha'), rel!), 'utf8'), 'multiroot offload check\n');
    const ledger = fs.readFileSync(ledgerPath(path.join(folder('alpha'), '.agent')), 'utf8');
    assert.match(ledger, /"tool":"agentContext_offload"/);
    fs.rmSync(path.join(folder('alpha'), rel!));
  });
});
