/*
 * Qwen Code with what `mcp.js --setup qwen-code` wrote (the project's .qwen/settings.json): our MCP
 * server with every tool declared up front (alwaysLoadTools), the briefing at session start, the
 * noisy build through agentContext_run; then `--undo qwen-code`.
 * Run: node scripts/test.mjs --integration-only --run qwen-code
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOL_NAMES } from '../../src/core/tools/toolNames';
import { copyFixture, errorLinesWithNumbers, MCP_JS, resultOf, tempDir, writeNoisyBuild, type AgentRun } from './agentProcess';
import { setUpWith } from './agentScenarios';
import { recordMeasure } from './measure';
import { qwenMcpTool, runQwen } from './qwenCli';

describe('Qwen Code after mcp.js --setup qwen-code: every tool declared, the briefing at session start, and the undo', function () {
  let ws: string;
  let noisy: ReturnType<typeof writeNoisyBuild>;
  let run: AgentRun;
  let undone: AgentRun;
  let undo: ReturnType<typeof spawnSync>;

  before(async function () {
    this.timeout(480_000);
    ws = copyFixture('workspace');
    noisy = writeNoisyBuild(ws);
    const home = tempDir('home-');
    setUpWith('qwen-code', ws, home);
    run = await runQwen({ workspace: ws, home, mcp: false, script: [{ tool: qwenMcpTool('agentContext_run'), input: { command: noisy.script } }, { text: 'Done.' }] });
    undo = spawnSync(process.execPath, [MCP_JS, '--root', ws, '--undo', 'qwen-code'], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    undone = await runQwen({ workspace: ws, home, mcp: false, script: [{ text: 'Done.' }] });
  });

  it('the set-up\'s server has every tool declared at the first request (not behind tool_search), and agentContext_run gives the build in ≤ 2 KB with its three error lines and numbers', () => {
    const offered = run.requests[0]?.toolNames ?? [];
    assert.deepEqual(TOOL_NAMES.filter((t) => !offered.includes(qwenMcpTool(t))), [], `offered: ${offered.join(', ')}; stderr: ${run.stderr.slice(-1500)}`);
    const r = resultOf(run, qwenMcpTool('agentContext_run'));
    const errors = errorLinesWithNumbers(r.text, noisy.errorLines);
    recordMeasure('qwen-code', 'setUpMcpRun', { bytes: r.bytes, errors, isError: r.isError });
    assert.ok(r.bytes <= 2048, `${r.bytes} bytes:\n${r.text}`);
    assert.equal(errors, 3, r.text);
  });

  it('the first request carries the briefing (SessionStart hook) with the plan\'s current step and its path', () => {
    const sent = JSON.stringify((run.requests[0]?.body as { messages?: unknown })?.messages ?? '');
    assert.match(sent, /Agent Context put this briefing here at the start of this session/, `${run.stderr.slice(-1500)}\n${sent.slice(0, 2000)}`);
    assert.match(sent, /Now: step 2 \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
    recordMeasure('qwen-code', 'sessionStartBriefing', true);
  });

  it('--undo qwen-code removes the settings file it created: the next session has no agent-context tools and no briefing', () => {
    assert.equal(undo.status, 0, `${String(undo.stderr)}${String(undo.stdout)}`);
    assert.equal(fs.existsSync(path.join(ws, '.qwen/settings.json')), false);
    const offered = undone.requests.flatMap((q) => q.toolNames);
    assert.ok(offered.length > 0, undone.stderr.slice(-1500));
    assert.equal(offered.some((n) => n.includes('agentContext_')), false, offered.join(', '));
    assert.doesNotMatch(JSON.stringify(undone.requests[0]?.body ?? ''), /Agent Context put this briefing/);
  });
});
