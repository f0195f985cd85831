// MCP as clients speak it (issue 45): a client of revision 2026-07-28 (stateless: no initialize,
// the version and capabilities in each request's _meta; server/discover) and clients of the
// revisions before it (initialize), against the tsc build of the server. The modern client is the
// v2 SDK's own (@modelcontextprotocol/client, pinned to 2026-07-28 over stdio); the older ones speak
// raw JSON-RPC lines (the v1 SDK client is test/unit/mcp/server.test.ts). The folder served comes
// from the working folder when no --root is given, never from the client's roots.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { TOOL_DEFINITIONS } from '../../../src/core/tools/toolDefinitions';
import { repoRoot } from '../../repoRoot';
import { MODERN_META, resultText, serverJs, startRaw, toolCall, type Message } from './rawServer';

const fixture = path.join(repoRoot, 'test/fixtures/workspace');

/** A copy of the fixture workspace (the tests write its ledger). */
function workspace(): string {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-protocol-')));
  fs.cpSync(fixture, ws, { recursive: true });
  return ws;
}

describe('a client of MCP 2026-07-28 (the v2 SDK client, pinned), no --root, no roots', () => {
  let ws: string;
  let client: Client;
  let transport: StdioClientTransport;
  /** Every message the server sent on the session's pipe. */
  const fromServer: Record<string, unknown>[] = [];
  before(async () => {
    ws = workspace();
    // The served folder is the working folder: the server is started in the workspace without --root.
    transport = new StdioClientTransport({ command: process.execPath, args: [serverJs], cwd: ws, stderr: 'pipe' });
    client = new Client({ name: 'modern-test-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (m) => {
      fromServer.push(m as Record<string, unknown>);
      deliver?.(m);
    };
  });
  after(async () => {
    await client.close();
  });

  test('the connection is of the 2026-07-28 era (no initialize)', () => {
    assert.equal(client.getProtocolEra(), 'modern');
  });

  test('server/discover names 2026-07-28, the tools capability and the server', async () => {
    const d = await client.discover();
    assert.ok(d.supportedVersions.includes('2026-07-28'), JSON.stringify(d));
    assert.deepEqual(d.capabilities.tools, {});
    assert.equal(client.getServerVersion()?.name, 'agent-context');
  });

  test('tools/list lists exactly the tools of toolDefinitions', async () => {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), TOOL_DEFINITIONS.map((d) => d.name));
  });

  test('agentContext_read reads a file of the working folder', async () => {
    const r = await client.callTool({ name: 'agentContext_read', arguments: { path: 'src/items.ts', limit: 5 } });
    const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
    assert.equal(r.isError, false, text);
    const first = fs.readFileSync(path.join(ws, 'src/items.ts'), 'utf8').split('\n')[0];
    assert.ok(text.includes(first), `the file's first line "${first}" in: ${text.slice(0, 300)}`);
  });

  test('agentContext_briefing answers from the working folder\'s .agent/ (its plan)', async () => {
    const r = await client.callTool({ name: 'agentContext_briefing', arguments: {} });
    const text = (r.content as { text?: string }[]).map((c) => c.text ?? '').join('');
    assert.equal(r.isError, false, text);
    const objective = /objective:\s*"?([^"\n]+)/.exec(fs.readFileSync(path.join(ws, '.agent/plan.yaml'), 'utf8'))?.[1];
    assert.ok(objective && text.includes(objective.trim()), `the plan's objective "${objective}" in: ${text.slice(0, 400)}`);
  });

  test('the server sent the client no request (no roots/list, no sampling, no elicitation)', () => {
    assert.ok(fromServer.length >= 4, `answers seen: ${fromServer.length}`);
    const requests = fromServer.filter((m) => typeof m.method === 'string' && m.id !== undefined);
    assert.deepEqual(requests, []);
  });

  test('every result carries resultType "complete" and the server\'s identity in _meta', () => {
    const results = fromServer.filter((m) => m.result !== undefined).map((m) => m.result as Record<string, unknown>);
    assert.ok(results.length >= 4);
    for (const r of results) {
      assert.equal(r.resultType, 'complete', JSON.stringify(r).slice(0, 200));
      assert.deepEqual((r._meta as Record<string, { name?: string }>)['io.modelcontextprotocol/serverInfo']?.name, 'agent-context');
    }
  });
});

describe('raw 2026-07-28 requests', () => {
  /** Starts a server, sends `params` of `method` as its first request, ends its input and returns the answer. */
  async function opening(method: string, params: Record<string, unknown>, then?: (s: ReturnType<typeof startRaw>) => Promise<void>): Promise<Message> {
    const s = startRaw(['--root', workspace()]);
    try {
      const answer = await s.request(method, params);
      await then?.(s);
      return answer;
    } finally {
      s.proc.stdin!.end();
      await s.exited;
    }
  }

  test('a tool call with no server/discover before it is served', async () => {
    assert.match(resultText(await opening('tools/call', toolCall('agentContext_glob', { pattern: '*.ts', path: 'src' }, MODERN_META))), /items\.ts/);
  });

  test('a request of a revision the server does not know gets UnsupportedProtocolVersionError naming 2026-07-28', async () => {
    const future = await opening('tools/list', { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } });
    assert.equal(future.error?.code, -32022, JSON.stringify(future));
    assert.deepEqual(future.error?.data, { supported: ['2026-07-28'], requested: '2099-01-01' });
  });

  test('a request without clientCapabilities is invalid params; an initialize after a 2026-07-28 request is refused naming the version', async () => {
    const bare = await opening('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    assert.equal(bare.error?.code, -32602, JSON.stringify(bare));
    let late: Message | undefined;
    await opening('tools/list', { _meta: MODERN_META }, async (s) => {
      late = await s.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    });
    assert.equal(late?.error?.code, -32022, JSON.stringify(late));
    assert.deepEqual((late?.error?.data as { supported: string[] }).supported, ['2026-07-28']);
  });
});

describe('clients of the revisions before 2026-07-28 (initialize)', () => {
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
    test(`${version}: initialize answers that version; tools/list and tools/call work`, async () => {
      const ws = workspace();
      const s = startRaw(['--root', ws]);
      try {
        const init: Message = await s.initialize(version);
        assert.equal(init.result?.protocolVersion, version, JSON.stringify(init));
        assert.deepEqual((init.result?.capabilities as Record<string, unknown>).tools, {});
        const list = await s.request('tools/list', {});
        assert.equal((list.result?.tools as unknown[]).length, TOOL_DEFINITIONS.length);
        const call = await s.request('tools/call', toolCall('agentContext_read', { path: 'src/items.ts', limit: 3 }));
        assert.equal(call.result?.isError, false, resultText(call));
        assert.ok(!s.received.some((m) => typeof m.method === 'string' && m.id !== undefined), 'no request to the client');
      } finally {
        s.proc.stdin!.end();
        await s.exited;
      }
    });
  }
});
