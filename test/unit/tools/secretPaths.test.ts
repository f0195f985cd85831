// The same masker (built-in shapes, context rules and the workspace's .gitleaks.toml) on every path
// that writes to disk: terminal capture, agentContext_run, agentContext_offload (scratch and
// history), the tool ledger, in-process (the extension's tools) and over the MCP server.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import { userRulesFor } from '../../../src/core/secrets/gitleaks';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { startMcp, type McpSession } from '../../integration/mcpClient';
import { ledgerPath } from '../../../src/core/history/ledger';

// Fake secrets assembled at run time: one gitleaks rule of the workspace, one provider shape, one name context.
const ACME = 'acme_dk_' + '7f3a9c2e5b1d8f4a';
const STRIPE = 'sk_' + 'live_' + 'FAKE51HqLyjWDarjtT1zdp7dcFAKE';
const PW = 'Fk9' + '!pq2Lm7x';
const GITLEAKS = '[[rules]]\nid = "acme-deploy-key"\nregex = \'\'\'acme_dk_[0-9a-f]{16}\'\'\'\nkeywords = ["acme_dk_"]\n';
const SECRETS = [ACME, STRIPE, PW];

function workspace(): string {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-secretpaths-')));
  fs.mkdirSync(path.join(ws, '.agent'));
  fs.writeFileSync(path.join(ws, '.gitleaks.toml'), GITLEAKS);
  return ws;
}

function assertClean(where: string, text: string): void {
  for (const s of SECRETS) assert.ok(!text.includes(s), `${where} contains ${s.slice(0, 10)}…:\n${text}`);
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

const line = `deploy ${ACME} charge ${STRIPE} export DB_PASSWORD=${PW}`;

function checkAgentDir(ws: string, expectMarkers: boolean): void {
  for (const f of filesUnder(path.join(ws, '.agent'))) assertClean(path.relative(ws, f), fs.readFileSync(f, 'utf8'));
  if (expectMarkers) {
    const all = filesUnder(path.join(ws, '.agent')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    assert.match(all, /\[MASKED:acme-deploy-key\]/);
    assert.match(all, /\[MASKED:stripe-key\]/);
    assert.match(all, /DB_PASSWORD=\[MASKED:password\]/);
  }
}

test('in-process tools: run output, its file, the command line, offload to scratch and history, and the ledger', async () => {
  const ws = workspace();
  const ctx: ToolContext = {
    folders: [{ name: 'w', path: ws }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: nullLogger, source: 'vscode', trusted: true, allowRun: true,
  };
  const run = await invokeTool('agentContext_run', { command: `echo '${line}'` }, ctx);
  assert.equal(run.isError ?? false, false, run.text);
  assertClean('run result', run.text);
  const off = await invokeTool('agentContext_offload', { content: `${line}\n`.repeat(400), name: 'log' }, ctx);
  assert.equal(off.isError ?? false, false, off.text);
  assertClean('offload result', off.text);
  const hist = await invokeTool('agentContext_offload', { content: line, to: 'history' }, ctx);
  assert.equal(hist.isError ?? false, false, hist.text);
  const ledger = fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8');
  assert.equal(ledger.trim().split('\n').length, 3);
  checkAgentDir(ws, true);
});

test('terminal capture: output and command line, with the rules the extension loads for the workspace', async () => {
  const ws = workspace();
  const { rules, errors } = userRulesFor({ roots: [ws] });
  assert.deepEqual(errors, []);
  const dir = path.join(ws, '.agent/terminals');
  const cap = await openTerminalCapture(dir, { name: 'bash', shell: '/bin/bash', cwd: ws, started: new Date(), shellIntegration: true }, { settleMs: 0, userPatterns: rules });
  const c = cap.beginCommand({ commandLine: `echo '${line}'`, started: new Date() });
  // split inside every secret
  const out = `${line}\r\n`;
  for (let i = 0; i < out.length; i += 7) c.write(out.slice(i, i + 7));
  c.end(0);
  await cap.close();
  checkAgentDir(ws, true);
});

describe('MCP server over stdio: the same masking for run, offload and the ledger', () => {
  let ws: string;
  let mcp: McpSession;
  before(async () => {
    ws = workspace();
    mcp = await startMcp(require.resolve('../../../src/mcp/server'), ws, ['--allow-run']);
  });
  after(async () => {
    await mcp.close();
  });
  test('run, offload and history files, results and ledger hold no secret', async () => {
    const run = await mcp.call('agentContext_run', { command: `echo '${line}'` });
    assert.equal(run.isError, false, run.text);
    assertClean('MCP run result', run.text);
    const off = await mcp.call('agentContext_offload', { content: `${line}\n`.repeat(400), name: 'log' });
    assert.equal(off.isError, false, off.text);
    await mcp.call('agentContext_offload', { content: line, to: 'history' });
    const ledger = fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8');
    assert.equal(ledger.trim().split('\n').length, 3);
    assert.match(ledger, /"source":"mcp"/);
    checkAgentDir(ws, true);
  });
});

describe('MCP server: the user pattern from .agent/config.yaml, under the key the docs give', () => {
  let ws: string;
  let mcp: McpSession;
  const ZEBRA = 'zebra-' + '4242-7777';
  before(async () => {
    ws = workspace();
    // The documented key (agentContext.terminals.secretPatterns without its prefix); the server once read terminal.secretPatterns.
    fs.writeFileSync(path.join(ws, '.agent/config.yaml'), "terminals:\n  secretPatterns:\n    - 'zebra-[0-9]{4}-[0-9]{4}'\n");
    mcp = await startMcp(require.resolve('../../../src/mcp/server'), ws, ['--allow-run']);
  });
  after(async () => {
    await mcp.close();
  });
  test('masks it in the run result and the saved output', async () => {
    const run = await mcp.call('agentContext_run', { command: `echo 'token ${ZEBRA} end'` });
    assert.equal(run.isError, false, run.text);
    assert.ok(!run.text.includes(ZEBRA), run.text);
    assert.match(run.text, /\[MASKED:custom/);
    for (const f of filesUnder(path.join(ws, '.agent'))) assert.ok(!fs.readFileSync(f, 'utf8').includes(ZEBRA), f);
  });
});
