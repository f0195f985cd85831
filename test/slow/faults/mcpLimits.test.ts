// Oversized requests over the real stdio transport (issue 22): the SDK client sends an offload of
// 50 MB to the server process; the server answers with the limit and keeps serving. The limits the
// docs give (20 MB of offload content) work end to end.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startMcp, type McpSession } from '../../integration/mcpClient';
import { faultWorkspace } from '../../faultKit';

const serverJs = require.resolve('../../../src/mcp/server');
let mcp: McpSession;
let root: string;

before(async () => {
  root = faultWorkspace('ac-mcplimit-').root;
  mcp = await startMcp(serverJs, root);
});
after(() => mcp.close());

test('offloads of 50 MB and of 80 MB (past the transport limit): errors naming the limit, and the server keeps serving', async () => {
  const r = await mcp.call('agentContext_offload', { content: 'a line of a very large log\n'.repeat(2_000_000) });
  assert.equal(r.isError, true);
  assert.match(r.text, /^Error: content is 51\.5 MB, over the 20 MB one offload takes; nothing was saved/);
  const huge = await mcp.call('agentContext_offload', { content: 'a line of a very large log\n'.repeat(3_200_000) });
  assert.equal(huge.isError, true);
  assert.match(huge.text, /^Error: the request is 8\d\.\d MB; this server takes requests of up to 64\.0 MB \(as JSON text; agentContext_offload takes up to 20 MB of content\)/);
  const next = await mcp.call('agentContext_offload', { content: 'still here', name: 'alive' });
  assert.equal(next.isError, false, next.text);
  assert.match(next.text, /^Saved: \.agent\/scratch\/alive-/);
});

test('offload content of just under 20 MB (the documented limit) is saved; just over is refused with the limit', async () => {
  const line = 'build output line that goes on and on 0123456789\n';
  const content = line.repeat(Math.floor((20 * 1024 * 1024 - 1000) / line.length));
  const r = await mcp.call('agentContext_offload', { content, name: 'twenty' });
  assert.equal(r.isError, false, r.text);
  const saved = /Saved: (\S+)/.exec(r.text)![1];
  assert.equal(fs.statSync(path.join(root, saved)).size, Buffer.byteLength(content));
  const over = await mcp.call('agentContext_offload', { content: content + line.repeat(1000) });
  assert.equal(over.isError, true);
  assert.match(over.text, /content is 20\.0 MB, over the 20 MB one offload takes/);
});
