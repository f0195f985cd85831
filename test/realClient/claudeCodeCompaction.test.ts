/*
 * Surviving compaction (issue 21 §1): with what `mcp.js --setup claude-code` wrote, Claude Code's
 * SessionStart hook hands the model the briefing in a new session and again right after the
 * conversation was compacted (`/compact` in a resumed headless session; SessionStart fires with
 * source "compact"). Asserted on the requests the real CLI sent to the fake model: what a model reads.
 * Run: node scripts/test.mjs --integration-only --run claude-code (and claude-code-current)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens } from '../../src/core/output/tokens';
import { setUpWith } from './agentScenarios';
import { copyFixture, mcpTool, resultOf, runClaude, sessionIdOf, tempDir, type ClaudeRun } from './claudeCli';
import type { RecordedRequest } from './fakeModel';
import { recordMeasure } from './measure';

const AGENT = process.env.AGENT_CONTEXT_CLIENT ?? 'claude-code';
const SUMMARY = 'SUMMARY-OF-THE-EARLIER-CONVERSATION: the limiter was chosen.';

/** The conversation a request carried (system prompt and messages), as one string. */
const sent = (r: RecordedRequest | undefined): string => JSON.stringify({ system: (r?.body as { system?: unknown })?.system, messages: (r?.body as { messages?: unknown })?.messages });
/** Every text block of a request's messages. */
function blocks(r: RecordedRequest | undefined): string[] {
  const out: string[] = [];
  for (const m of ((r?.body as { messages?: { content?: unknown }[] })?.messages ?? [])) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const b of m.content as { text?: unknown }[]) if (typeof b.text === 'string') out.push(b.text);
  }
  return out;
}

/** The first request that carried a conversation turn (not a token count, not a side request without tools). */
const firstTurn = (run: ClaudeRun): RecordedRequest | undefined => run.requests.find((r) => !r.url.startsWith('/v1/messages/count_tokens') && r.toolNames.length > 0);

describe('Claude Code keeps its plan across a compaction (SessionStart hook of mcp.js --setup claude-code)', function () {
  let ws: string;
  let home: string;
  let first: ClaudeRun;
  let compact: ClaudeRun;
  let after: ClaudeRun;

  before(async function () {
    this.timeout(300_000);
    ws = copyFixture('workspace');
    home = tempDir('home-');
    setUpWith('claude-code', ws, home);
    const base = { workspace: ws, home, mcpConfig: false, allowedTools: 'mcp__agent-context' };
    // A new session: the model finishes step 2 and starts step 3 through our plan tool.
    first = await runClaude({
      ...base,
      script: [
        { tool: mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 2, status: 'completed' } },
        { tool: mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 3, status: 'in_progress' } },
        { text: 'Step 3 started.' },
      ],
    });
    const session = sessionIdOf(first);
    // The user compacts the conversation; the model's summary is the fake's text.
    compact = await runClaude({ ...base, prompt: '/compact', args: ['--resume', session], script: Array.from({ length: 12 }, () => ({ text: SUMMARY })) });
    // And goes on in the compacted conversation.
    after = await runClaude({ ...base, prompt: 'Go on with the plan.', args: ['--resume', session], script: Array.from({ length: 12 }, () => ({ text: 'Done.' })) });
  });

  it('a new session: the first request carries the briefing with the plan\'s current step and its path', () => {
    assert.equal(first.exitCode, 0, first.stderr);
    const text = sent(firstTurn(first));
    assert.match(text, /Agent Context put this briefing here at the start of this session/);
    assert.match(text, /Now: step 2 \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
    assert.equal(resultOf(first, mcpTool('agentContext_plan'), 1).isError, false);
  });

  it('after /compact: the next request holds the summary instead of the old turns, and a fresh briefing with the step started before the compaction', () => {
    assert.equal(compact.exitCode, 0, compact.stderr);
    assert.equal(after.exitCode, 0, after.stderr);
    const req = firstTurn(after);
    const text = sent(req);
    assert.ok(text.includes(SUMMARY.slice(0, 40)), 'the compaction summary is in the conversation');
    // The old turns are gone: no tool call of the first session is left in the messages.
    assert.doesNotMatch(text, /"type":"tool_use"/);
    const at = text.indexOf('Agent Context put this briefing here right after the conversation was compacted');
    assert.ok(at >= 0, `no briefing from the compaction in: ${text.slice(0, 3000)}`);
    const briefing = text.slice(at, at + 4000);
    assert.match(briefing, /Plan \.agent\/plan\.yaml: 2\/4 done/);
    assert.match(briefing, /Now: step 3 \[in_progress\] Implement the middleware \(\.agent\/plan\.yaml:\d+\)/);
    // The injected text alone: the briefing has no blank line; Claude Code puts one after each
    // hook's context (2.1.332 puts the resume and the compact contexts in one block).
    const block = blocks(req).find((b) => b.includes('right after the conversation was compacted')) ?? '';
    const injected = block.slice(block.indexOf('Agent Context put this briefing here right after')).split(/\n\n|<\/system-reminder>/)[0];
    recordMeasure(AGENT, 'compaction', { briefingAfterCompact: true, injectedBytes: Buffer.byteLength(injected), injectedTokens: countTokens(injected).tokens });
    assert.ok(countTokens(injected).tokens <= 1500, injected);
    assert.ok(fs.existsSync(path.join(ws, '.claude/settings.local.json')));
  });
});
