/*
 * GitHub Copilot CLI's own shell tool with the Agent Context hook (mcp.js --setup copilot-cli): the
 * postToolUse hook in $COPILOT_HOME/settings.json that replaces a large bash result by our reference,
 * the user's --allow-tool rules both ways, secrets, the added time; the MCP server from .github/mcp.json;
 * the briefing from the sessionStart hook in the first request.
 * Run: node scripts/test.mjs --integration-only --run copilot-cli
 */
import * as assert from 'node:assert/strict';
import { copyFixture, tempDir, type AgentRun } from './agentProcess';
import { describeShellHook, setUpWith } from './agentScenarios';
import { copilotDriver, runCopilotSetUp } from './copilotCli';
import { recordMeasure } from './measure';

describeShellHook(copilotDriver);

describe('GitHub Copilot CLI gets the briefing at session start (sessionStart hook of mcp.js --setup copilot-cli)', function () {
  let run: AgentRun;

  before(async function () {
    this.timeout(240_000);
    const ws = copyFixture('workspace');
    const home = tempDir('home-');
    setUpWith('copilot-cli', ws, home);
    run = await runCopilotSetUp({ workspace: ws, home, script: [{ text: 'Done.' }] });
  });

  it('the first request carries the briefing with the plan\'s current step and its path', () => {
    const first = run.requests.find((r) => r.toolNames.length > 0);
    const sent = JSON.stringify((first?.body as { messages?: unknown })?.messages ?? '');
    assert.match(sent, /Agent Context put this briefing here at the start of this session/, `${run.stderr.slice(-1500)}\n${sent.slice(0, 2000)}`);
    assert.match(sent, /Now: step 2 \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
    recordMeasure('copilot-cli', 'sessionStartBriefing', true);
  });
});
