/*
 * Gemini CLI's own shell tool with the Agent Context hook (mcp.js --setup gemini): an AfterTool hook
 * that replaces a large result by our reference, the user's policy both ways, secrets, the added
 * time; and its Plan Mode writing into .agent/plans (general.plan.directory and the set-up's Plan
 * Mode rule). Run: node scripts/test.mjs --integration-only --run gemini
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyFixture, resultOf, tempDir, type AgentRun } from './agentProcess';
import { describeShellHook, setUpWith } from './agentScenarios';
import { geminiDriver, geminiMcpTool, runGemini } from './geminiCli';
import { recordMeasure } from './measure';

describeShellHook(geminiDriver);

describe('Gemini CLI Plan Mode after mcp.js --setup gemini', function () {
  let ws: string;
  let planned: AgentRun;
  let listed: AgentRun;
  const plan = '# Rate limiting\n\n- [ ] Add a token bucket to the public API\n';

  before(async function () {
    this.timeout(480_000);
    ws = copyFixture('workspace');
    const home = tempDir('home-');
    setUpWith('gemini', ws, home);
    const write = (file_path: string, content: string): { tool: string; input: Record<string, unknown> } => ({ tool: 'write_file', input: { file_path, content } });
    // As a model in Plan Mode writes: to the absolute plans folder Gemini names in its prompt, by
    // a bare file name, and (refused) into the sources.
    planned = await runGemini({
      workspace: ws,
      home,
      mcp: false,
      args: ['--approval-mode', 'plan'],
      script: [write(path.join(ws, '.agent/plans/rate-limiting.md'), plan), write('cache-warmup.md', '# Cache warm-up\n'), write(path.join(ws, 'src/limiter.md'), 'not a plan'), { text: 'Done.' }],
    });
    // The next session (any mode) reads the plans through our MCP server.
    listed = await runGemini({ workspace: ws, home, mcp: false, script: [{ tool: geminiMcpTool('agentContext_plan'), input: {} }, { text: 'Done.' }] });
  });

  it('Gemini tells the model its plans folder is .agent/plans, and a plan written there by absolute path or by name lands in it', () => {
    const prompt = JSON.stringify(planned.requests[0]?.body ?? '');
    assert.match(prompt, new RegExp(`${path.join(ws, '.agent/plans').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
    const abs = resultOf(planned, 'write_file', 0);
    assert.equal(fs.existsSync(path.join(ws, '.agent/plans/rate-limiting.md')) ? fs.readFileSync(path.join(ws, '.agent/plans/rate-limiting.md'), 'utf8') : abs.text, plan);
    assert.equal(fs.readFileSync(path.join(ws, '.agent/plans/cache-warmup.md'), 'utf8'), '# Cache warm-up\n');
    recordMeasure('gemini', 'planDirectory', { absolute: abs.text.slice(0, 120), byName: resultOf(planned, 'write_file', 1).text.slice(0, 120) });
  });

  it('Plan Mode still writes nothing outside the plans folder', () => {
    assert.equal(fs.existsSync(path.join(ws, 'src/limiter.md')), false);
    assert.match(resultOf(planned, 'write_file', 2).text, /plans directory|Plan Mode/);
  });

  it('agentContext_plan in the next session lists the plans Gemini wrote', () => {
    const r = resultOf(listed, geminiMcpTool('agentContext_plan'));
    const text = geminiDriver.unwrap ? geminiDriver.unwrap(r.text) : r.text;
    assert.match(text, /rate-limiting\.md/);
    assert.match(text, /cache-warmup\.md/);
  });
});

describe('Gemini CLI gets the briefing at session start (SessionStart hook of mcp.js --setup gemini)', function () {
  let ws: string;
  let run: AgentRun;

  before(async function () {
    this.timeout(240_000);
    ws = copyFixture('workspace');
    const home = tempDir('home-');
    setUpWith('gemini', ws, home);
    run = await runGemini({ workspace: ws, home, mcp: false, script: [{ text: 'Done.' }] });
  });

  it('the first request carries the briefing with the plan\'s current step and its path, in front of the prompt', () => {
    const first = run.requests.find((r) => r.toolNames.length > 0);
    const sent = JSON.stringify((first?.body as { contents?: unknown })?.contents ?? '');
    assert.match(sent, /Agent Context put this briefing here at the start of this session/, `${run.stderr.slice(-1500)}\n${sent.slice(0, 2000)}`);
    assert.match(sent, /Now: step 2 \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
    const at = sent.indexOf('Agent Context put this briefing');
    assert.ok(at < sent.indexOf('Work on the task in this workspace.'), 'before the prompt');
    recordMeasure('gemini', 'sessionStartBriefing', true);
  });
});
