// The same masker (built-in shapes, context rules and the workspace's .gitleaks.toml) on every path
// that writes to disk: terminal capture, agentContext_run, agentContext_offload (scratch and
// history), what the plan, memory and sub-agent tools keep, the tool ledger, in-process (the
// extension's tools) and over the MCP server; and on every answer a tool gives the model.
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

/** Every tool call that keeps text the agent gives it, each text holding the three secrets. */
const KEEPING_CALLS: [string, Record<string, unknown>][] = [
  ['agentContext_plan', { action: 'setNotes', stepId: 'a', notes: line }],
  ['agentContext_plan', { action: 'addStep', description: line }],
  ['agentContext_plan', { action: 'logProgress', description: line, notes: line, next: line }],
  ['agentContext_memory', { action: 'remember', key: 'deploy', value: line }],
  ['agentContext_agentWorkspace', { agentId: 'scout', action: 'writeFinding', content: line }],
  ['agentContext_agentWorkspace', { agentId: 'scout', action: 'setStatus', status: 'working', content: line }],
];

/** Every tool call that answers with text read from a file the user wrote with the secrets in it. */
const READING_CALLS: [string, Record<string, unknown>][] = [
  ['agentContext_read', { path: 'deploy.env' }],
  ['agentContext_grep', { pattern: 'deploy', path: 'deploy.env' }],
  ['agentContext_plan', { action: 'get' }],
  ['agentContext_memory', { action: 'recall', key: 'handwritten' }],
  ['agentContext_briefing', {}],
];

/** A workspace whose plan the tools can edit, and files the user wrote with the secrets. */
function keepingWorkspace(): string {
  const ws = workspace();
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: Ship\nsteps:\n  - id: a\n    description: first\n    status: in_progress\n');
  fs.writeFileSync(path.join(ws, 'deploy.env'), `${line}\n`);
  return ws;
}

/** After the reading calls: the user's secrets stay in the user's file (untouched) and nowhere else. */
function handwritten(ws: string): void {
  // A plan step and a memory entry written by hand, secrets and all: the answers must not repeat them.
  fs.appendFileSync(path.join(ws, '.agent/plan.yaml'), `  - id: b\n    description: "by hand ${STRIPE}"\n    status: pending\n`);
  fs.appendFileSync(path.join(ws, '.agent/memory/preferences.yaml'), `handwritten:\n  value: "${ACME}"\n`);
}

async function checkKeepingAndReading(ws: string, call: (tool: string, input: Record<string, unknown>) => Promise<{ text: string; isError?: boolean }>): Promise<void> {
  for (const [tool, input] of KEEPING_CALLS) {
    const r = await call(tool, input);
    assert.ok(!r.isError, `${tool} ${JSON.stringify(input).slice(0, 60)}: ${r.text}`);
    assertClean(`${tool} answer`, r.text);
    assert.match(r.text, /Note: \d+ secrets? in your input (was|were) masked before the tool used it/, r.text);
  }
  // Nothing the tools kept holds a secret; each kept text has its markers where the secrets were.
  checkAgentDir(ws, true);
  for (const f of ['plan.yaml', 'progress.md', 'memory/preferences.yaml', 'agents/scout/findings.md', 'agents/scout/status.json']) {
    assert.match(fs.readFileSync(path.join(ws, '.agent', f), 'utf8'), /\[MASKED:stripe-key\]/, f);
  }
  handwritten(ws);
  for (const [tool, input] of READING_CALLS) {
    const r = await call(tool, input);
    assert.ok(!r.isError, `${tool}: ${r.text}`);
    assertClean(`${tool} answer`, r.text);
    assert.match(r.text, /Note: \d+ secrets? in this answer (was|were) masked/, `${tool}: ${r.text}`);
  }
  // The ledger keeps the answers as the model got them; the user's own file is as the user wrote it.
  assertClean('ledger', fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8'));
  assert.equal(fs.readFileSync(path.join(ws, 'deploy.env'), 'utf8'), `${line}\n`);
}

test('in-process tools: what the plan, memory and sub-agent tools keep, and every answer from a file with secrets', async () => {
  const ws = keepingWorkspace();
  const ctx: ToolContext = {
    folders: [{ name: 'w', path: ws }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: nullLogger, source: 'vscode', trusted: true, allowRun: false,
  };
  await checkKeepingAndReading(ws, (tool, input) => invokeTool(tool, input, ctx));
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

describe('MCP server over stdio: the same masking for what the tools keep and for every answer', () => {
  let ws: string;
  let mcp: McpSession;
  before(async () => {
    ws = keepingWorkspace();
    mcp = await startMcp(require.resolve('../../../src/mcp/server'), ws);
  });
  after(async () => {
    await mcp.close();
  });
  test('plan, progress, memory and findings files, answers and ledger hold no secret', async () => {
    await checkKeepingAndReading(ws, (tool, input) => mcp.call(tool, input));
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
