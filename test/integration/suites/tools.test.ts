// The language-model tools in the real editor: the shared case table over vscode.lm.invokeTool and
// over MCP (the SDK client spawning the extension's dist/mcp.js), plus what only the editor has:
// the run confirmation (declined; asked for a compound command despite the allow-list), cancellation
// through a CancellationToken, and the extension and the MCP server appending to the ledger at once.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { startMcp, type McpSession } from '../mcpClient';
import { closeTerminal, openTerminal, run } from '../terminalHelpers';
import { CASE_ALLOW_LIST, checkCase, TOOL_CASES } from '../toolCases';
import { ledgerPath } from '../../../src/core/history/ledger';

const ID = 'agent-context.agent-context';

function textOf(r: vscode.LanguageModelToolResult): string {
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function invoke(name: string, input: Record<string, unknown>, token?: vscode.CancellationToken): Promise<string> {
  return textOf(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token));
}

function ledger(ws: string): { tool: string; source: string; input: string; text: string }[] {
  const f = ledgerPath(path.join(ws, '.agent'));
  if (!fs.existsSync(f)) return [];
  return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('language-model tools', function () {
  this.timeout(180_000);
  const ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const settings = () => vscode.workspace.getConfiguration('agentContext');
  let mcp: McpSession;

  before(async () => {
    const ext = await waitFor(() => vscode.extensions.getExtension(ID), { message: 'extension present' });
    await waitFor(() => ext.isActive, { timeout: 30_000, message: 'Agent Context activated' });
    await waitFor(() => vscode.lm.tools.some((t) => t.name === 'agentContext_run'), { message: 'tools registered' });
    await settings().update('run.allowList', CASE_ALLOW_LIST, vscode.ConfigurationTarget.Global);
    mcp = await startMcp(path.join(ext.extensionPath, 'dist/mcp.js'), ws, ['--allow-run']);
  });

  after(async () => {
    await mcp?.close();
    await settings().update('run.allowList', undefined, vscode.ConfigurationTarget.Global);
    for (const name of fs.readdirSync(ws)) if (name.startsWith('tc-')) fs.rmSync(path.join(ws, name), { recursive: true, force: true });
  });

  // First, while the machine is quiet: a new shell must start and activate shell integration.
  it('terminal: the last failed command of a captured terminal comes back as a line-range reference (both transports)', async () => {
    const t = await openTerminal('tools');
    try {
      await run(t, 'for i in 1 2 3 4 5; do echo "step $i"; done; echo "fatal: tc-broken thing" >&2; false');
      await run(t, 'echo all good');
      const lineOf = (text: string): string => /^L\d+: fatal: tc-broken thing$/m.exec(text)?.[0] ?? '';
      const viaLm = await invoke('agentContext_terminal', { terminal: t.n, command: 'lastFailed' });
      assert.match(viaLm, new RegExp(`^Terminal ${t.n} command #\\d+: \\.agent/terminals/${t.n}\\.txt lines \\d+–\\d+`));
      assert.match(viaLm, /exit 1/);
      assert.ok(lineOf(viaLm), viaLm);
      // The L<n> names the very line of the terminal file.
      const n = Number(/^L(\d+):/.exec(lineOf(viaLm))![1]);
      assert.equal(fs.readFileSync(path.join(ws, `.agent/terminals/${t.n}.txt`), 'utf8').split('\n')[n - 1], 'fatal: tc-broken thing');
      const viaMcp = (await mcp.call('agentContext_terminal', { terminal: t.n, command: 'lastFailed' })).text;
      assert.equal(lineOf(viaMcp), lineOf(viaLm));
      const listing = await invoke('agentContext_terminal', {});
      assert.match(listing, new RegExp(`Terminal ${t.n} "${t.name}"[^\\n]*\\n(  #\\d+ .*\\n)*  #\\d+ exit 0 · echo all good`));
    } finally {
      await closeTerminal(t);
    }
  });

  for (const c of TOOL_CASES) {
    it(`${c.title} (vscode.lm)`, async () => {
      await c.setup?.(ws);
      await checkCase(c, await invoke(c.tool, c.input), ws);
    });
    it(`${c.title} (MCP stdio)`, async () => {
      await c.setup?.(ws);
      await checkCase(c, (await mcp.call(c.tool, c.input)).text, ws);
    });
  }

  it('the MCP server lists the same tools the editor registered', async () => {
    const contributed = vscode.lm.tools.filter((t) => t.name.startsWith('agentContext_')).map((t) => t.name).sort();
    assert.deepEqual((await mcp.listTools()).sort(), contributed);
  });

  it('a declined confirmation runs nothing', async () => {
    const marker = path.join(ws, 'tc-declined');
    const pending = invoke('agentContext_run', { command: 'echo hi && touch tc-declined' });
    pending.catch(() => undefined);
    // A compound command: our own modal (VS Code's per-tool approvals cannot skip it).
    const dialog = await ui.dialog('Cancel');
    assert.match(`${dialog.message} ${dialog.detail ?? ''}`, /Run this command\?[^]*touch tc-declined[^]*always asks because it contains &&/);
    assert.match(await pending, /^Not run: the user declined/);
    assert.equal(fs.existsSync(marker), false, 'the command did not run');
    // A plain command not on the allow-list: VS Code's confirmation, declined.
    const plain = invoke('agentContext_run', { command: 'touch tc-declined' });
    plain.catch(() => undefined);
    const asked = await ui.dialog('Cancel');
    assert.match(`${asked.message} ${asked.detail ?? ''}`, /Run this command\?/);
    await assert.rejects(plain);
    assert.equal(fs.existsSync(marker), false, 'the command did not run');
  });

  it('an && compound command asks although "echo *" is on the allow-list, and runs once accepted', async () => {
    await settings().update('run.allowList', [...CASE_ALLOW_LIST, 'echo *'], vscode.ConfigurationTarget.Global);
    try {
      const pending = invoke('agentContext_run', { command: 'echo first && echo second' });
      const dialog = await ui.dialog('Run');
      assert.match(`${dialog.message} ${dialog.detail ?? ''}`, /contains &&/);
      const text = await pending;
      assert.match(text, /```text\nfirst\nsecond\n```/);
      // The plain form of the same command is allow-listed: no dialog, straight result.
      assert.match(await invoke('agentContext_run', { command: 'echo alone' }), /```text\nalone\n```/);
    } finally {
      await settings().update('run.allowList', CASE_ALLOW_LIST, vscode.ConfigurationTarget.Global);
    }
  });

  it('masks the user secret patterns (agentContext.terminals.secretPatterns) in run output and in its saved file', async () => {
    await settings().update('terminals.secretPatterns', ['ACME-[0-9]{6}'], vscode.ConfigurationTarget.Global);
    try {
      const text = await invoke('agentContext_run', { command: 'printf "deploy key ACME-123456 accepted\\n"' });
      assert.doesNotMatch(text, /ACME-123456/);
      assert.match(text, /deploy key \[MASKED:custom\] accepted/);
      const saved = text.match(/\.agent\/scratch\/tool_outputs\/[^\s`)]+\.txt/)?.[0];
      assert.ok(saved, `the result names the saved output file: ${text}`);
      const onDisk = fs.readFileSync(path.join(ws, saved), 'utf8');
      assert.match(onDisk, /\[MASKED:custom\]/);
      assert.doesNotMatch(onDisk, /ACME-123456/);
    } finally {
      await settings().update('terminals.secretPatterns', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('a cancelled invocation kills the command and is recorded as cancelled', async () => {
    const marker = `tc-cancel-${Date.now()}`;
    const cts = new vscode.CancellationTokenSource();
    const pending = invoke('agentContext_run', { command: `sleep 38.321 # ${marker}` }, cts.token);
    pending.catch(() => undefined);
    await waitFor(() => execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes('sleep 38.321'), { message: 'the command started' });
    cts.cancel();
    await pending.catch(() => undefined);
    const entry = await waitFor(() => ledger(ws).find((e) => e.input.includes(marker)), { message: 'the cancelled call in the ledger' });
    assert.match(entry.text, /cancelled \(process group killed\)/);
    assert.equal(entry.source, 'vscode');
    await waitFor(() => !execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes('sleep 38.321'), { message: 'the sleep is gone' });
  });

  it('the extension and the MCP server append to the ledger at the same moment without interleaving', async () => {
    fs.writeFileSync(path.join(ws, 'tc-ledger.txt'), 'ledger line\n'.repeat(300));
    const before = ledger(ws).length;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      calls.push(invoke('agentContext_read', { path: 'tc-ledger.txt', offset: 1 + i }));
      calls.push(mcp.call('agentContext_read', { path: 'tc-ledger.txt', offset: 1 + i }));
    }
    await Promise.all(calls);
    const raw = fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8');
    const lines = raw.split('\n').filter(Boolean);
    const parsed = lines.map((l, i) => {
      try {
        return JSON.parse(l) as { tool: string; source: string };
      } catch {
        assert.fail(`ledger line ${i + 1} is not one JSON record: ${l.slice(0, 200)}`);
      }
    });
    const fresh = parsed.slice(before);
    assert.equal(fresh.filter((e) => e.source === 'vscode' && e.tool === 'agentContext_read').length, 20);
    assert.equal(fresh.filter((e) => e.source === 'mcp' && e.tool === 'agentContext_read').length, 20);
  });

  it('Copy MCP Server Configuration puts a working configuration on the clipboard', async () => {
    await vscode.commands.executeCommand('agentContext.copyMcpConfig', 'claude');
    const text = await vscode.env.clipboard.readText();
    // Pasted into .mcp.json as the message says, the whole clipboard must be valid JSON.
    const cfg = JSON.parse(text) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const server = cfg.mcpServers['agent-context'];
    assert.deepEqual(server.args.slice(1), ['--root', ws]);
    const copied = server.args[0];
    assert.ok(!copied.startsWith(vscode.extensions.getExtension(ID)!.extensionPath), 'the server is a copy outside the extension folder');
    assert.ok(fs.existsSync(path.join(path.dirname(copied), 'tokenizer.js')), 'tokenizer.js is copied beside it');
    const other = await startMcp(copied, ws);
    try {
      const r = await other.call('agentContext_read', { path: '.agent/plan.yaml', limit: 3 });
      assert.match(r.text, /\.agent\/plan\.yaml: lines 1–3/);
    } finally {
      await other.close();
    }
  });

  it('the user watches agentContext_run live in a terminal named after the tool', async () => {
    await invoke('agentContext_run', { command: 'printf "live-view-check\\n"' });
    const t = await waitFor(() => vscode.window.terminals.find((x) => x.name === 'agentContext_run'), { message: 'the agentContext_run terminal exists' });
    t.show();
    const rows = await waitFor(async () => {
      const text = await ui.text('.terminal-wrapper.active .xterm-rows');
      return /\$ printf "live-view-check\\n"[\s\S]*live-view-check[\s\S]*\[exit 0 · /.test(text) ? text : undefined;
    }, { timeout: 15_000, message: 'the terminal shows the command, its output and its exit' });
    assert.ok(rows.length > 0);
  });

  it('the status bar shows tokens kept out of context; a click opens the report rendered, its counts in words', async () => {
    await waitFor(async () => (await ui.texts('.statusbar-item')).some((t) => /tokens kept out/.test(t)), { timeout: 15_000, message: 'the savings item is shown' });
    await ui.click('.statusbar-item:has-text("tokens kept out")');
    // A Markdown preview (a webview), not the Markdown source in a text editor.
    const tab = await waitFor(() => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t?.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(t.input.viewType) ? t : undefined;
    }, { timeout: 15_000, message: 'the report opened as a Markdown preview' });
    assert.match(tab.label, /Tool Report/);
    assert.equal(vscode.window.activeTextEditor?.document.uri.scheme === 'agent-context-report', false, 'no source editor is in front');
    // What the user reads in the preview: the table rendered (no pipes), counts that agree with their nouns.
    const text = await waitFor(async () => (await ui.frameTexts('body')).find((t) => t.includes('tokens kept out of context')), { timeout: 15_000, message: 'the preview shows the report' });
    assert.match(text, /Per tool/);
    assert.doesNotMatch(text, /\|---/, 'the tables are rendered, not shown as Markdown source');
    assert.doesNotMatch(text, /\b1 calls\b|\b1 tokens\b/, `no "1 calls" (saw: ${text.slice(0, 300)})`);
    assert.match(text, /\(\d[\d,]* calls?\)/);
    // Read-only: nothing asks to be saved on close.
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'agent-context-report');
    assert.ok(doc && !doc.isDirty);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('savings status: after the terminal tool answers a large build log with a reference, the status bar counts the log as kept out', async () => {
    // What a screen reader announces: the full number, not "fold-down" or Markdown.
    const label = async (): Promise<string> => (await ui.attribute('[aria-label^="Agent Context kept "]', 'aria-label', { timeout: 15_000 })) ?? '';
    const kept = (l: string): number => Number(/^Agent Context kept ([\d,]+) tokens out of the agent's context today/.exec(l)?.[1]?.replace(/,/g, '') ?? NaN);
    const before = kept(await label());
    assert.ok(Number.isFinite(before), await label());
    const t = await openTerminal('savings');
    try {
      await run(t, 'for i in $(seq 1 3000); do echo "[$i/3000] compiling src/module_$i.c with -O2 ... ok"; done; echo "error: tc-savings link failed" >&2; false', { timeout: 60_000 });
      const answer = await invoke('agentContext_terminal', { terminal: t.n, command: 'lastFailed' });
      assert.ok(Buffer.byteLength(answer) < 8 * 1024, `a reference, not the log (${Buffer.byteLength(answer)} bytes)`);
      const entry = ledger(ws).reverse().find((e) => e.tool === 'agentContext_terminal') as unknown as { rawTokens: number; returnedTokens: number };
      assert.ok(entry.rawTokens > 30_000, `raw ${entry.rawTokens}: the referenced 3,000-line log`);
      const after = await waitFor(async () => {
        const n = kept(await label());
        return n >= before + entry.rawTokens - entry.returnedTokens ? n : undefined;
      }, { timeout: 20_000, message: 'the status bar adds the saving of the terminal answer' });
      assert.ok(after > 0);
      assert.ok((await ui.texts('.statusbar-item')).some((x) => /[1-9][\d.]*[kMG]? tokens kept out/.test(x)), 'the visible text shows a non-zero count');
    } finally {
      await closeTerminal(t);
    }
  });
});
