/*
 * VS Code's Copilot harness (VS Code 1.140+; code-server here is 1.139, without it), driven through
 * its engine as VS Code's agent host drives it (copilotHarnessHost.ts): our MCP tools, its own shell
 * tool without and with the set-up (`mcp.js --setup vscode-copilot`, exactly the files "Set Up
 * Agent…" writes for VS Code's agent: the Copilot runtime's user hooks and mcp-config.json), the
 * user's rules both ways, secrets, the added time, the briefing at session start, and every command
 * in the agent-command history.
 * Run: node scripts/test.mjs --integration-only --run copilot-harness
 */
import * as assert from 'node:assert/strict';
import { copyFixture, resultOf, tempDir, writeNoisyBuild, type AgentRun } from './agentProcess';
import { describeAgentBasics, describeShellHook, setUpWith } from './agentScenarios';
import { harnessDriver, harnessMcpTool, runHarness } from './copilotHarness';
import { recordMeasure } from './measure';

describeAgentBasics(harnessDriver);
describeShellHook(harnessDriver);

describe('VS Code\'s Copilot harness with the set-up: the briefing at session start, and our tools over MCP', function () {
  let run: AgentRun;

  before(async function () {
    this.timeout(240_000);
    const ws = copyFixture('workspace');
    writeNoisyBuild(ws);
    const home = tempDir('home-');
    setUpWith('vscode-copilot', ws, home);
    run = await runHarness({
      workspace: ws,
      home,
      script: [
        { tool: harnessMcpTool('agentContext_run'), input: { command: 'bash build.sh' } },
        { tool: harnessMcpTool('agentContext_grep'), input: { pattern: 'ld: error' } },
        { text: 'Done.' },
      ],
    });
  });

  it('the first request carries the briefing with the plan\'s current step and its path (sessionStart hook)', () => {
    const first = run.requests.find((r) => r.toolNames.length > 0);
    const sent = JSON.stringify((first?.body as { messages?: unknown })?.messages ?? '');
    assert.match(sent, /Agent Context put this briefing here at the start of this session/, `${run.stderr.slice(-1500)}\n${sent.slice(0, 2000)}`);
    assert.match(sent, /Now: step 2 \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
    recordMeasure('vscode-copilot', 'sessionStartBriefing', true);
  });

  it('the server the set-up put in mcp-config.json (no --root) serves the folder the agent works in: agentContext_run and agentContext_grep work', () => {
    const offered = run.requests.find((r) => r.toolNames.some((n) => n.startsWith('agent-context-')))?.toolNames ?? [];
    assert.ok(offered.includes(harnessMcpTool('agentContext_run')), offered.join(', '));
    const ran = resultOf(run, harnessMcpTool('agentContext_run'));
    assert.match(ran.text, /L30001: ld: error: undefined reference to 'bucket_refill'/);
    assert.ok(ran.bytes <= 2048, `${ran.bytes} bytes`);
    const grep = resultOf(run, harnessMcpTool('agentContext_grep'));
    assert.match(grep.text, /:30001: ld: error: undefined reference to 'bucket_refill'/, grep.text);
    recordMeasure('vscode-copilot', 'setUpMcp', { runBytes: ran.bytes, grepBytes: grep.bytes });
  });
});
