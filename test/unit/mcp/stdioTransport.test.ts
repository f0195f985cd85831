// The server's stdio transport (issue 22): a request over the limit gets an error naming the limit
// and the transport keeps serving; requests are split on newlines across any chunking.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { LimitedStdioServerTransport } from '../../../src/mcp/stdioTransport';

function rig(max: number): { t: LimitedStdioServerTransport; input: PassThrough; got: unknown[]; sent: () => Record<string, unknown>[]; warnings: string[] } {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (d: Buffer) => (out += d.toString()));
  const warnings: string[] = [];
  const t = new LimitedStdioServerTransport(input, output, max, (m) => warnings.push(m));
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  return { t, input, got, warnings, sent: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('messages split across chunks and several in one chunk all arrive', async () => {
  const r = rig(1000);
  await r.t.start();
  const a = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const b = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  r.input.write(a.slice(0, 5));
  r.input.write(a.slice(5) + '\n' + b + '\r\n');
  await tick();
  assert.deepEqual(r.got, [JSON.parse(a), JSON.parse(b)]);
});

test('an oversized tool call gets a tool error naming its size and the limit; the next request is served', async () => {
  const r = rig(10_000);
  await r.t.start();
  const big = JSON.stringify({ method: 'tools/call', params: { name: 'agentContext_offload', arguments: { content: 'x"id":9,'.repeat(5000) } }, jsonrpc: '2.0', id: 7 });
  for (let i = 0; i < big.length; i += 777) r.input.write(big.slice(i, i + 777));
  r.input.write('\n' + JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }) + '\n');
  await tick();
  const [reply] = r.sent();
  assert.equal(reply.id, 7);
  const result = reply.result as { content: { text: string }[]; isError: boolean };
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /^Error: the request is 0\.0 MB; this server takes requests of up to 0\.0 MB/);
  assert.deepEqual(r.got, [{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
  assert.match(r.warnings[0], /refused a tools\/call of/);
});

test('an oversized request of another kind gets a JSON-RPC error; an oversized notification only a warning', async () => {
  const r = rig(1000);
  await r.t.start();
  r.input.write(JSON.stringify({ jsonrpc: '2.0', id: 'abc', method: 'resources/read', params: { pad: 'y'.repeat(5000) } }) + '\n');
  r.input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: 'y'.repeat(5000) } }) + '\n');
  await tick();
  const sent = r.sent();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].id, 'abc');
  assert.equal((sent[0].error as { code: number }).code, -32600);
  assert.equal(r.warnings.length, 2);
  assert.match(r.warnings[1], /without an id: no answer sent/);
});

test('end of input is reported once as a hang-up, and the messages before it still arrive', async () => {
  const r = rig(1000);
  const hangups: string[] = [];
  r.t.onhangup = (why) => hangups.push(why);
  await r.t.start();
  r.input.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) + '\n');
  await new Promise((res) => r.input.once('close', res));
  assert.deepEqual(r.got, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
  assert.deepEqual(hangups, ['end of input']);
});

test('an output that fails (EPIPE: the client is gone) is a hang-up, not an uncaught error; later answers are dropped', async () => {
  const input = new PassThrough();
  const output = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) });
  const t = new LimitedStdioServerTransport(input, output, 1000);
  const hangups: string[] = [];
  t.onhangup = (why) => hangups.push(why);
  await t.start();
  await t.send({ jsonrpc: '2.0', id: 1, result: {} });
  await new Promise((res) => setImmediate(res));
  assert.deepEqual(hangups, ['output closed']);
  await t.send({ jsonrpc: '2.0', id: 2, result: {} }); // resolves: nobody reads any more
  assert.deepEqual(hangups, ['output closed']);
});
