/*
 * Codex CLI's own shell tool with the Agent Context hook (mcp.js --setup codex): the shell capture
 * through BASH_ENV in the project's .codex/config.toml, Codex's rules and sandbox both ways,
 * secrets, the added time; and the SessionStart hook that hands the model the briefing at the start
 * of a session and again right after Codex compacted the conversation.
 * Run: node scripts/test.mjs --integration-only --run codex
 */
import * as assert from 'node:assert/strict';
import { copyFixture, tempDir, type AgentRun } from './agentProcess';
import { assertSetupSaysOffload, describeShellHook, setUpWith } from './agentScenarios';
import { codexDriver, codexMcpTool, runCodex } from './codexCli';
import type { Protocol, RecordedRequest } from './fakeModel';
import { recordMeasure } from './measure';
import { openaiResponses } from './protocols';

describeShellHook(codexDriver);

/** The Responses adapter, reporting a huge context for its `nth` answer: Codex compacts after that turn. */
function bigContextAt(nth: number): Protocol {
  let answered = 0;
  return {
    ...openaiResponses,
    answer(turn, callId, req, body, url) {
      const a = openaiResponses.answer(turn, callId, req, body, url);
      if (req.side || ++answered !== nth) return a;
      return { ...a, body: a.body.replace(/"input_tokens":10,/g, '"input_tokens":50000,').replace(/"total_tokens":15/g, '"total_tokens":50005') };
    },
  };
}

const sent = (r: RecordedRequest): string => JSON.stringify((r.body as { input?: unknown }).input ?? '');

describe('Codex CLI keeps its plan across a compaction (SessionStart hook of mcp.js --setup codex)', function () {
  let run: AgentRun;
  let said: string;
  let turns: RecordedRequest[];

  before(async function () {
    this.timeout(240_000);
    const ws = copyFixture('workspace');
    const home = tempDir('home-');
    said = setUpWith('codex', ws, home);
    // What the user has: the project trusted, and the new hook reviewed and trusted (Codex's own
    // review; the flag stands for it here). Codex compacts automatically past 20,000 tokens; the
    // fake model reports 50,000 after its second answer.
    run = await runCodex({
      workspace: ws,
      home,
      mcp: false,
      top: ['model_auto_compact_token_limit = 20000'],
      config: `[projects.${JSON.stringify(ws)}]\ntrust_level = "trusted"\n`,
      args: ['--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust'],
      protocol: bigContextAt(2),
      script: [
        { tool: codexMcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 2, status: 'completed' } },
        { tool: codexMcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 3, status: 'in_progress' } },
        { text: 'Step 3 started.' },
      ],
    });
    turns = run.requests.filter((r) => r.toolNames.length > 0);
  });

  it('--setup codex says large shell output goes to .agent/scratch/tool_outputs/', () => {
    assertSetupSaysOffload(said, true);
  });

  it('the first request carries the briefing with the plan\'s current step and its path', () => {
    const first = sent(turns[0]);
    assert.match(first, /Agent Context put this briefing here at the start of this session/, `${run.stderr.slice(-1500)}\n${first.slice(0, 1500)}`);
    assert.match(first, /Now: step 2 \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
  });

  it('after Codex compacted the conversation: the next request holds a fresh briefing with the step started before, and no longer the first one', () => {
    const compaction = run.requests.findIndex((r, i) => i > 0 && r.toolNames.length === 0);
    assert.ok(compaction > 0, `no compaction request among ${run.requests.length}`);
    const after = run.requests.slice(compaction + 1).find((r) => r.toolNames.length > 0);
    assert.ok(after, 'a request after the compaction');
    const text = sent(after);
    assert.match(text, /Agent Context put this briefing here right after the conversation was compacted/);
    assert.match(text, /Plan \.agent\/plan\.yaml: 2\/4 done/);
    assert.match(text, /Now: step 3 \[in_progress\] Implement the middleware \(\.agent\/plan\.yaml:\d+\)/);
    assert.doesNotMatch(text, /at the start of this session/, 'the history before the compaction was replaced');
    recordMeasure('codex', 'compaction', { briefingAfterCompact: true, requests: run.requests.length });
  });
});
