// The MCP server's first briefing on a folder without .agent/.cache/ (bench rows 14i, 14j), over the
// real stdio transport against the tsc build: the terminal catalog's worker starts before the server
// loads (startEarly.ts) and its build is taken by the first call, which must still answer what the
// files say, also when a terminal changed after the worker read it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startMcp } from '../../integration/mcpClient';
import { readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import { appendCommand, folder, truth } from '../terminal/catalog/catalogFixtures';

const serverJs = require.resolve('../../../src/mcp/server');

test('first briefing without a cache: a command that failed after the worker\'s build is counted', async () => {
  const { root, agentDir } = await folder(250);
  fs.rmSync(path.join(agentDir, '.cache'), { recursive: true, force: true });
  // A terminal whose last finished command succeeded: a failure appended to it changes the count.
  let n = 0;
  for (let k = 2; k <= 250 && !n; k++) {
    const idx = await readTerminalIndex(agentDir, k);
    const last = idx.ok ? idx.value.commands.filter((c) => c.status === 'done').pop() : undefined;
    if (last && last.exitCode === 0) n = k;
  }
  assert.ok(n, 'a terminal whose last command succeeded');
  const before = await truth(agentDir);
  const mcp = await startMcp(serverJs, root);
  try {
    // The worker's build of 250 terminals is done well within this (and nobody has taken it).
    await new Promise((r) => setTimeout(r, 1500));
    appendCommand(agentDir, n, 9001, 3);
    const after = await truth(agentDir);
    assert.equal(after.failedLast, before.failedLast + 1);
    const r = await mcp.call('agentContext_briefing', {});
    assert.equal(r.isError, false, r.text);
    assert.ok(r.text.includes(`(${after.failedLast} of ${after.total}):`), `the briefing counts the new failure: ${r.text.slice(0, 400)}`);
    // The newest failure is listed first.
    const section = r.text.slice(r.text.indexOf(`(${after.failedLast} of ${after.total}):`));
    assert.match(section.split('\n')[1] ?? '', new RegExp(`\\b${n}\\b`), section.slice(0, 300));
  } finally {
    await mcp.close();
  }
});
