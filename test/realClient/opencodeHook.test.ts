/*
 * opencode's own shell tool with the Agent Context hook (mcp.js --setup opencode): the plugin in
 * .opencode/plugins/ whose tool.execute.after replaces a large bash result by our reference, the
 * user's permission.bash rules both ways (deny in the shared scenarios, ask here), secrets, the added
 * time; the MCP server from the project's opencode.json; the undo; and opencode's plans, which stay
 * in .opencode/plans/ (no setting moves them) and are read there, read-only.
 * Run: node scripts/test.mjs --integration-only --run opencode
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyFixture, MCP_JS, resultOf, tempDir, writeNoisyBuild, type AgentRun } from './agentProcess';
import { describeShellHook, setUpWith } from './agentScenarios';
import type { ScriptTurn } from './fakeModel';
import { recordMeasure } from './measure';
import { OPENCODE_SHELL, opencodeDriver, opencodeMcpTool, runOpencodeSetUp } from './opencodeCli';

describeShellHook(opencodeDriver);

describe('opencode after mcp.js --setup opencode: rules that ask, and the undo', function () {
  let ws: string;
  let asking: AgentRun & { asked?: string[] };
  let undone: AgentRun;
  let undo: ReturnType<typeof spawnSync>;
  const shell = (command: string): ScriptTurn => ({ tool: OPENCODE_SHELL, input: { command, description: 'Run the command' } });

  before(async function () {
    this.timeout(480_000);
    ws = copyFixture('workspace');
    writeNoisyBuild(ws);
    const home = tempDir('home-');
    setUpWith('opencode', ws, home);
    // "*": "ask" for everything but echo: opencode run rejects what it would ask about, and ends there.
    asking = await runOpencodeSetUp({ workspace: ws, home, allow: ['echo'], otherwise: 'ask', script: [shell('echo allowed-unasked'), shell('touch not-allowed.txt'), { text: 'Done.' }] });
    undo = spawnSync(process.execPath, [MCP_JS, '--root', ws, '--undo', 'opencode'], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    undone = await runOpencodeSetUp({ workspace: ws, home, allow: ['bash build.sh'], script: [shell('bash build.sh'), { text: 'Done.' }] });
  });

  it('an allowed command runs unasked; one the rules ask about is asked about as the user\'s own command (no wrapper) and, refused, does not run', () => {
    assert.equal(opencodeDriver.outputOf(resultOf(asking, OPENCODE_SHELL, 0).text), 'allowed-unasked');
    assert.deepEqual(asking.asked, ['touch not-allowed.txt']);
    assert.equal(fs.existsSync(path.join(ws, 'not-allowed.txt')), false);
    recordMeasure('opencode', 'permissionsAsk', { allowedRan: true, asked: asking.asked });
  });

  it('--undo opencode removes the MCP server and the plugin: the next session gets opencode\'s own output and no agent-context tools', () => {
    assert.equal(undo.status, 0, `${String(undo.stderr)}${String(undo.stdout)}`);
    assert.equal(fs.existsSync(path.join(ws, 'opencode.json')), false);
    assert.equal(fs.existsSync(path.join(ws, '.opencode/plugins/agent-context.js')), false);
    const r = resultOf(undone, OPENCODE_SHELL, 0);
    assert.doesNotMatch(r.text, /Output saved: \.agent/);
    assert.match(r.text, /output truncated/);
    const offered = undone.requests.flatMap((q) => q.toolNames);
    assert.equal(offered.includes(opencodeMcpTool('agentContext_briefing')), false);
  });
});

describe('opencode\'s plan agent: its plans in .opencode/plans/ reach agentContext_plan and the briefing, read-only', function () {
  let ws: string;
  let planned: AgentRun;
  let listed: AgentRun;
  const plan = '# Rate limiting\n\n- [ ] Add a token bucket to the public API\n- [ ] Return 429 with Retry-After\n';

  before(async function () {
    this.timeout(480_000);
    ws = copyFixture('workspace');
    // opencode keeps plans in <worktree>/.opencode/plans/ in a git project (elsewhere in its data folder).
    spawnSync('git', ['init', '-q', ws]);
    const home = tempDir('home-');
    setUpWith('opencode', ws, home);
    // The plan agent may write only .opencode/plans/*.md: as a model in plan mode writes its plan.
    planned = await runOpencodeSetUp({ workspace: ws, home, args: ['--agent', 'plan'], script: [{ tool: 'write', input: { filePath: path.join(ws, '.opencode/plans/rate-limiting.md'), content: plan } }, { text: 'Plan written.' }] });
    listed = await runOpencodeSetUp({
      workspace: ws,
      home,
      script: [
        { tool: opencodeMcpTool('agentContext_plan'), input: {} },
        { tool: opencodeMcpTool('agentContext_plan'), input: { plan: 'rate-limiting', action: 'setStatus', stepId: '1', status: 'completed' } },
        { tool: opencodeMcpTool('agentContext_briefing'), input: {} },
        { text: 'Done.' },
      ],
    });
  });

  it('opencode names .opencode/plans/ to its plan agent, and the plan lands there', () => {
    assert.match(JSON.stringify(planned.requests.map((r) => r.body)), /\.opencode\/plans\//);
    assert.equal(fs.readFileSync(path.join(ws, '.opencode/plans/rate-limiting.md'), 'utf8'), plan);
  });

  it('agentContext_plan in the next session lists it under the current plan, read-only, and refuses to edit it; the briefing names its open step', () => {
    const list = resultOf(listed, opencodeMcpTool('agentContext_plan'), 0).text;
    assert.match(list, /\.opencode\/plans\/rate-limiting\.md: Rate limiting \(0\/2 done\) \(opencode's plan, read-only\)/);
    assert.match(resultOf(listed, opencodeMcpTool('agentContext_plan'), 1).text, /opencode's own plan: read-only/);
    assert.equal(fs.readFileSync(path.join(ws, '.opencode/plans/rate-limiting.md'), 'utf8'), plan);
    const briefing = resultOf(listed, opencodeMcpTool('agentContext_briefing')).text;
    assert.match(briefing, /\.opencode\/plans\/rate-limiting\.md/);
    assert.match(briefing, /Add a token bucket to the public API/);
    recordMeasure('opencode', 'plans', { listed: true, readOnly: true });
  });
});
