// The tool cases over the real MCP transport: the SDK client talks stdio to the server process
// (the tsc build of src/mcp/server.ts, the same code esbuild bundles into dist/mcp.js).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { checkCase, TOOL_CASES } from '../../integration/toolCases';
import { startMcp, type McpSession } from '../../integration/mcpClient';
import { TOOL_DEFINITIONS } from '../../../src/core/tools/toolDefinitions';
import { ledgerPath } from '../../../src/core/history/ledger';

const serverJs = require.resolve('../../../src/mcp/server');

function workspace(): string {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-ws-')));
  fs.mkdirSync(path.join(ws, '.agent'), { recursive: true });
  return ws;
}

async function waitFor<T>(fn: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ledgerLines = (ws: string): Record<string, unknown>[] => {
  const f = ledgerPath(path.join(ws, '.agent'));
  if (!fs.existsSync(f)) return [];
  return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
};

describe('MCP server over stdio, with --allow-run', () => {
  let ws: string;
  let mcp: McpSession;
  before(async () => {
    ws = workspace();
    mcp = await startMcp(serverJs, ws, ['--allow-run']);
  });
  after(async () => {
    await mcp.close();
  });

  test('lists exactly the tools of toolDefinitions', async () => {
    assert.deepEqual(await mcp.listTools(), TOOL_DEFINITIONS.map((d) => d.name));
  });

  for (const c of TOOL_CASES.filter((x) => !x.heavy)) {
    test(c.title, async () => {
      await c.setup?.(ws);
      const r = await mcp.call(c.tool, c.input);
      await checkCase(c, r.text, ws);
    });
  }

  test('a cancelled call kills the command and the ledger records it as cancelled', async () => {
    const ac = new AbortController();
    const marker = `tc-cancel-${Date.now()}`;
    const p = mcp.call('agentContext_run', { command: `sleep 37.123 # ${marker}` }, ac.signal);
    setTimeout(() => ac.abort(), 500);
    await assert.rejects(p);
    const entry = await waitFor(() => ledgerLines(ws).find((e) => String(e.input).includes(marker)), 'the cancelled call in the ledger');
    assert.match(String(entry.text), /cancelled \(process group killed\)/i);
    assert.equal(entry.source, 'mcp');
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    assert.doesNotMatch(ps, /sleep 37\.123/, 'the sleep was killed with its process group');
  });

  test('every call so far is one valid JSON line in the ledger', () => {
    const lines = ledgerLines(ws);
    assert.ok(lines.length >= TOOL_CASES.filter((x) => !x.heavy).length);
    for (const e of lines) {
      assert.equal(typeof e.tool, 'string');
      assert.equal(typeof e.rawTokens, 'number');
      assert.equal(typeof e.returnedTokens, 'number');
      assert.ok(Buffer.byteLength(String(e.text)) <= 6 * 1024);
    }
  });
});

describe('MCP server without --allow-run', () => {
  test('runs only whole commands on run.allowList in .agent/config.yaml; compound ones never', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, '.agent/config.yaml'), 'run:\n  allowList: ["echo ok*"]\n');
    const mcp = await startMcp(serverJs, ws);
    try {
      assert.match((await mcp.call('agentContext_run', { command: 'echo ok' })).text, /exit 0[\s\S]*```text\nok\n```/);
      const compound = await mcp.call('agentContext_run', { command: 'echo ok && touch pwned' });
      assert.equal(compound.isError, true);
      assert.match(compound.text, /contains &&, which the allow-list never covers/);
      assert.equal(fs.existsSync(path.join(ws, 'pwned')), false);
      assert.match((await mcp.call('agentContext_run', { command: 'ls' })).text, /without --allow-run/);
    } finally {
      await mcp.close();
    }
  });

  test('a broken config.yaml falls back to defaults instead of failing the tools', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, '.agent/config.yaml'), 'run: [unclosed\n');
    const mcp = await startMcp(serverJs, ws);
    try {
      const r = await mcp.call('agentContext_glob', { pattern: '*.yaml', path: '.agent' });
      assert.match(r.text, /\.agent\/config\.yaml/);
    } finally {
      await mcp.close();
    }
  });
});

describe('two server processes appending to the ledger at once', () => {
  test('no line is interleaved: every line parses and every call is there', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'a.txt'), 'x\n'.repeat(500));
    const [a, b] = await Promise.all([startMcp(serverJs, ws), startMcp(serverJs, ws)]);
    try {
      const calls = [];
      for (let i = 0; i < 25; i++) {
        calls.push(a.call('agentContext_read', { path: 'a.txt', limit: 400 }));
        calls.push(b.call('agentContext_read', { path: 'a.txt', offset: 2, limit: 400 }));
      }
      await Promise.all(calls);
      const raw = fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8');
      const lines = raw.split('\n').filter(Boolean);
      assert.equal(lines.length, 50);
      for (const l of lines) assert.equal((JSON.parse(l) as { tool: string }).tool, 'agentContext_read');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
