/*
 * The real Claude Code CLI drives our MCP server and our Bash hook. The model is a script (the
 * fake Messages API); every assertion is on a tool_result block Claude Code sent back to it,
 * i.e. what a real model would have read. Run: node scripts/test.mjs --integration-only --run claude-code
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openTerminalCapture } from '../../src/core/terminal/terminalCapture';
import { TOOL_NAMES } from '../../src/core/tools/toolNames';
import { copyFixture, errorLinesWithNumbers, mcpTool, resultOf, runClaude, writeNoisyBuild, type ClaudeRun } from './claudeCli';
import { recordMeasure } from './measure';

/** The run's client: the pinned (claude-code) or the current release (claude-code-current). */
const AGENT = process.env.AGENT_CONTEXT_CLIENT ?? 'claude-code';

/** A failed `npm test` in terminal 1, as the extension's capture writes it. */
async function captureFailedTerminalCommand(ws: string): Promise<void> {
  const cap = await openTerminalCapture(path.join(ws, '.agent/terminals'), { name: 'bash', shell: '/bin/bash', cwd: ws, started: new Date(), shellIntegration: true }, { settleMs: 0 });
  const ok = cap.beginCommand({ commandLine: 'git status --short', cwd: ws, started: new Date() });
  ok.write('\x1b]633;C\x07 M src/items.ts\r\n');
  ok.end(0, new Date());
  const bad = cap.beginCommand({ commandLine: 'npm test', cwd: ws, started: new Date() });
  bad.write('\x1b]633;C\x07> test\r\n');
  for (let i = 1; i <= 40; i++) bad.write(`  ✔ items case ${i}\r\n`);
  bad.write('  ✖ rate limiter rejects the 101st request\r\n    AssertionError: expected 429, got 200\r\n');
  bad.end(1, new Date());
  await cap.close();
}

describe('Claude Code → Agent Context MCP server', function () {
  let ws: string;
  let run: ClaudeRun;
  let noisy: ReturnType<typeof writeNoisyBuild>;

  before(async function () {
    this.timeout(240_000);
    ws = copyFixture('workspace');
    // A repository, so the test can ask git what `git add -A` would commit afterwards.
    assert.equal(spawnSync('git', ['init', '-q', ws]).status, 0);
    noisy = writeNoisyBuild(ws);
    fs.writeFileSync(path.join(ws, 'src/limiter.ts'), Array.from({ length: 300 }, (_, i) => (i + 1 === 187 ? '  // TODO(rate-limit): refill the bucket per client' : `  const line${i + 1} = ${i + 1};`)).join('\n') + '\n');
    await captureFailedTerminalCommand(ws);
    run = await runClaude({
      workspace: ws,
      script: [
        { tool: mcpTool('agentContext_run'), input: { command: noisy.script } },
        { tool: mcpTool('agentContext_grep'), input: { pattern: 'TODO\\(rate-limit\\)', path: 'src' } },
        (results) => {
          const hit = /src\/limiter\.ts:(\d+):/.exec(results[results.length - 1]?.text ?? '');
          const line = hit ? Number(hit[1]) : 1;
          return { tool: mcpTool('agentContext_read'), input: { path: 'src/limiter.ts', offset: Math.max(1, line - 3), limit: 7 } };
        },
        { tool: mcpTool('agentContext_terminal'), input: {} },
        { tool: mcpTool('agentContext_terminal'), input: { terminal: 1, command: 'lastFailed' } },
        // A model reads `id: 3` in plan.yaml and sends a number.
        { tool: mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 3, status: 'in_progress' } },
        { tool: mcpTool('agentContext_briefing'), input: {} },
        { text: 'Done.' },
      ],
    });
  });

  it('offers every one of our tools to the model as mcp__agent-context__* (2.1.332: as deferred tools, listed by name)', () => {
    const first = run.requests.find((r) => r.toolNames.length > 0);
    const offered = first?.toolNames ?? [];
    // 2.1.332 sends MCP tools as "deferred" (2.1.197 did not): only their names, in a message
    // naming them for ToolSearch; the schema is loaded when the model asks for it.
    const body = JSON.stringify(first?.body ?? {});
    const at = body.search(/deferred tools are (now )?available/);
    const deferred: string[] = at < 0 ? [] : body.slice(at).match(/mcp__agent-context__\w+/g) ?? [];
    for (const t of TOOL_NAMES) assert.ok(offered.includes(mcpTool(t)) || deferred.includes(mcpTool(t)), `${t} offered (got ${offered.filter((n) => n.startsWith('mcp__')).join(', ')}; deferred: ${deferred.filter((n) => n.startsWith('mcp__')).join(', ')})`);
  });

  it('agentContext_run on a noisy failing build: ≤ 2 KB reaches the model with every error line and its number, a result with its exit code, not a tool error', () => {
    const r = resultOf(run, mcpTool('agentContext_run'));
    recordMeasure(AGENT, 'mcpRun', { bytes: r.bytes, errors: errorLinesWithNumbers(r.text, noisy.errorLines), isError: r.isError });
    assert.ok(r.bytes <= 2048, `${r.bytes} bytes reached the model:\n${r.text}`);
    assert.equal(errorLinesWithNumbers(r.text, noisy.errorLines), 3, r.text);
    assert.match(r.text, /exit 1/);
    assert.equal(r.isError, false, 'a command that ran and failed is a result (its exit code leads the text), not a tool error');
    const saved = /Output saved: (\S+)/.exec(r.text)![1];
    assert.equal(fs.readFileSync(path.join(ws, saved), 'utf8').split('\n').length - 1, 60_000, 'the full output is on disk');
  });

  it('agentContext_grep finds the line, agentContext_read shows the lines around it with their numbers', () => {
    const g = resultOf(run, mcpTool('agentContext_grep'));
    assert.match(g.text, /src\/limiter\.ts:187: .*TODO\(rate-limit\)/);
    const r = resultOf(run, mcpTool('agentContext_read'));
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /lines 184–190/);
    assert.match(r.text, /\n187: {3}\/\/ TODO\(rate-limit\): refill the bucket per client\n/);
    assert.match(r.text, /\n184: {3}const line184 = 184;\n/);
  });

  it('agentContext_terminal lists the captured terminal, then gives the failed command with exit code and error lines', () => {
    const list = resultOf(run, mcpTool('agentContext_terminal'), 0);
    assert.match(list.text, /npm test/);
    const failed = resultOf(run, mcpTool('agentContext_terminal'), 1);
    assert.match(failed.text, /exit 1/);
    assert.match(failed.text, /AssertionError: expected 429, got 200/);
    assert.match(failed.text, /\.agent\/terminals\/1\.txt/);
  });

  it('agentContext_plan accepts a numeric stepId and the plan file changes, comments kept', () => {
    const r = resultOf(run, mcpTool('agentContext_plan'));
    assert.equal(r.isError, false, r.text);
    const plan = fs.readFileSync(path.join(ws, '.agent/plan.yaml'), 'utf8');
    assert.match(plan, /- id: 3\n {4}description: "Implement the middleware"\n {4}status: in_progress/);
    assert.match(plan, /# step 3 waits for step 2/);
  });

  it('agentContext_briefing gives the objective and the current step', () => {
    const r = resultOf(run, mcpTool('agentContext_briefing'));
    assert.match(r.text, /Add rate limiting to the public API/);
    assert.match(r.text, /Choose a limiter|Implement the middleware/);
  });

  it('the conversation ended normally, and git add -A would commit none of the outputs and records the server wrote', () => {
    assert.equal(run.exitCode, 0, run.stderr);
    const added = spawnSync('git', ['add', '-A', '--dry-run'], { cwd: ws, encoding: 'utf8' });
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, /\.agent\/plan\.yaml/);
    assert.doesNotMatch(added.stdout, /\.agent\/(scratch|history|terminals)\//);
  });
});

describe('Claude Code → a command that runs 65 s', function () {
  it('agentContext_run returns its output; the client does not time out', async function () {
    this.timeout(240_000);
    const ws = copyFixture('workspace');
    const run = await runClaude({
      workspace: ws,
      script: [{ tool: mcpTool('agentContext_run'), input: { command: 'sleep 65; echo slept-65-seconds', timeoutSec: 120 } }, { text: 'Done.' }],
      timeoutMs: 200_000,
    });
    const r = resultOf(run, mcpTool('agentContext_run'));
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /exit 0/);
    assert.match(r.text, /slept-65-seconds/);
  });
});
