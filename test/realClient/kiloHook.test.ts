/*
 * Kilo Code's own shell tool with the Agent Context hook (mcp.js --setup kilo): opencode's plugin,
 * loaded from .kilo/plugins/, whose tool.execute.after replaces a large bash result by our
 * reference; the user's permission.bash rules both ways (deny in the shared scenarios, ask here),
 * secrets, the history, the added time; the MCP server from the project's kilo.json; the undo.
 * Run: node scripts/test.mjs --integration-only --run kilo
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyFixture, MCP_JS, resultOf, tempDir, writeNoisyBuild, type AgentRun } from './agentProcess';
import { describeShellHook, setUpWith } from './agentScenarios';
import type { ScriptTurn } from './fakeModel';
import { KILO_SHELL, kiloDriver, kiloMcpTool, runKiloSetUp } from './kiloCli';
import { recordMeasure } from './measure';

describeShellHook(kiloDriver);

describe('Kilo Code after mcp.js --setup kilo: rules that ask, and the undo', function () {
  let ws: string;
  let asking: AgentRun & { asked?: string[] };
  let undone: AgentRun;
  let undo: ReturnType<typeof spawnSync>;
  const shell = (command: string): ScriptTurn => ({ tool: KILO_SHELL, input: { command, description: 'Run the command' } });

  before(async function () {
    this.timeout(480_000);
    ws = copyFixture('workspace');
    writeNoisyBuild(ws);
    const home = tempDir('home-');
    setUpWith('kilo', ws, home);
    // "*": "ask" for everything but echo: kilo run rejects what it would ask about.
    asking = await runKiloSetUp({ workspace: ws, home, allow: ['echo'], otherwise: 'ask', script: [shell('echo allowed-unasked'), shell('touch not-allowed.txt'), { text: 'Done.' }] });
    undo = spawnSync(process.execPath, [MCP_JS, '--root', ws, '--undo', 'kilo'], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    undone = await runKiloSetUp({ workspace: ws, home, allow: ['bash build.sh'], script: [shell('bash build.sh'), { text: 'Done.' }] });
  });

  it('an allowed command runs unasked; one the rules ask about is asked about as the user\'s own command (no wrapper) and, refused, does not run', () => {
    assert.equal(kiloDriver.outputOf(resultOf(asking, KILO_SHELL, 0).text), 'allowed-unasked');
    assert.deepEqual(asking.asked, ['touch not-allowed.txt']);
    assert.equal(fs.existsSync(path.join(ws, 'not-allowed.txt')), false);
    recordMeasure('kilo', 'permissionsAsk', { allowedRan: true, asked: asking.asked });
  });

  it('--undo kilo removes the MCP server and the plugin: the next session gets Kilo\'s own output and no agent-context tools', () => {
    assert.equal(undo.status, 0, `${String(undo.stderr)}${String(undo.stdout)}`);
    assert.equal(fs.existsSync(path.join(ws, 'kilo.json')), false);
    assert.equal(fs.existsSync(path.join(ws, '.kilo/plugins/agent-context.js')), false);
    const r = resultOf(undone, KILO_SHELL, 0);
    assert.doesNotMatch(r.text, /Output saved: \.agent/);
    assert.match(r.text, /output truncated/);
    const offered = undone.requests.flatMap((q) => q.toolNames);
    assert.equal(offered.includes(kiloMcpTool('agentContext_briefing')), false);
  });
});
