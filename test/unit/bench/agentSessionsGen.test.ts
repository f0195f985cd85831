// The agent-command history the bench generates (bench/agentSessionsGen.ts, rows 20–21) is what the
// product reads: every session a capture with its agent and session, as many commands as promised,
// the open ones open, and the failures the rows check named as agentContext_terminal names them.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failureRef, generateAgentFolder } from '../../../bench/scaleGen';
import { touchOpenSessions } from '../../../bench/agentSessionsGen';
import { listTerminals, readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import { terminalTool } from '../../../src/core/tools/terminal';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import type { TerminalInfo } from '../../../src/core/terminal/terminalFormat';

test('generated agent sessions parse with the readers, and the terminal tool finds the failures the rows expect', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scalegen-a-'));
  try {
    const g = await generateAgentFolder(root, 0.1, 7, new Date(), { terminals: { terminals: 30, longLived: 50 }, agentSessions: { sessions: 12, commands: 300 } });
    const s = g.agentSessions!;
    assert.equal(s.sessions.length, 12);
    assert.equal(s.commands, 300);
    assert.equal(s.sessions.reduce((a, x) => a + x.commands, 0), 300);
    const terms = await listTerminals(g.agentDir);
    assert.ok(terms.ok);
    assert.equal(terms.value.length, 30 + 12);
    assert.equal(g.counts.terminals, 42);
    for (const x of s.sessions) {
      const t: TerminalInfo | undefined = terms.value.find((i) => i.n === x.n);
      assert.ok(t, `capture ${x.n} of session ${x.session}`);
      assert.equal(t.agent, x.agent);
      assert.equal(t.session, x.session);
      assert.equal(t.closed, !x.open, `session ${x.n} open: ${x.open}`);
      const idx = await readTerminalIndex(g.agentDir, x.n);
      assert.ok(idx.ok);
      assert.deepEqual(idx.value.problems, []);
      assert.equal(idx.value.commands.length, x.commands);
      const failed = idx.value.commands.filter((c) => c.exitCode !== 0).pop();
      assert.equal(failed?.command, x.failure?.command);
      assert.equal(idx.value.commands[idx.value.commands.length - 1].exitCode !== 0, x.lastFailed);
    }
    assert.equal(s.sessions.filter((x) => x.open).length, 3);
    const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode', trusted: true, allowRun: false };
    const lastFailed = (await terminalTool({ command: 'lastFailed' }, ctx)).text;
    assert.ok(lastFailed.includes(failureRef(g.lastFailure)), `${failureRef(g.lastFailure)} in: ${lastFailed.slice(0, 300)}`);
    const list = (await terminalTool({}, ctx)).text.replace(/(\d),(?=\d{3}\b)/g, '$1');
    assert.ok(list.startsWith('30 captured terminals and 12 agent sessions'), list.slice(0, 200));
    // An open session's agent runs one more command: it is recorded in the same capture.
    const open = s.sessions.find((x) => x.open)!;
    await touchOpenSessions(root, s);
    const after = await readTerminalIndex(g.agentDir, open.n);
    assert.ok(after.ok);
    assert.equal(after.value.commands.length, open.commands);
    assert.equal(after.value.commands[after.value.commands.length - 1].exitCode, 0);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
