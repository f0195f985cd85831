/*
 * GitHub Copilot CLI's own shell tool with the Agent Context hook (mcp.js --setup copilot-cli): the
 * postToolUse hook in $COPILOT_HOME/settings.json that replaces a large bash result by our reference,
 * the user's --allow-tool rules both ways, secrets, the added time; the MCP server from .github/mcp.json;
 * the briefing from the sessionStart hook in the first request; the plan that plan mode keeps in
 * $COPILOT_HOME/session-state/<id>/plan.md, mirrored into .agent/plans/ by the same postToolUse hook.
 * Run: node scripts/test.mjs --integration-only --run copilot-cli
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyFixture, tempDir, type AgentRun } from './agentProcess';
import { describeShellHook, setUpWith } from './agentScenarios';
import { copilotDriver, copilotMcpTool, runCopilotSetUp } from './copilotCli';
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

describe('GitHub Copilot CLI\'s plan (plan mode, session-state/<id>/plan.md) is mirrored into .agent/plans/ (postToolUse hook of mcp.js --setup copilot-cli)', function () {
  const PLAN = '# Rate limiter\n\n- [ ] Read the middleware\n- [ ] Add a token bucket\n- [ ] Test it\n';
  const UPDATED = '# Rate limiter\n\n- [x] Read the middleware\n- [ ] Add a token bucket\n- [ ] Test it\n';
  let run: AgentRun;
  let ws: string;
  let planFile = '';
  let session = '';

  before(async function () {
    this.timeout(240_000);
    ws = copyFixture('workspace');
    const home = tempDir('home-');
    setUpWith('copilot-cli', ws, home);
    const states = path.join(home, '.copilot', 'session-state');
    // The session's folder exists once the CLI started; its plan file is where plan mode's prompt says.
    const plan = (): string => {
      if (!planFile) {
        session = fs.readdirSync(states).filter((n) => !n.startsWith('.'))[0] ?? '';
        planFile = path.join(states, session, 'plan.md');
      }
      return planFile;
    };
    run = await runCopilotSetUp({
      workspace: ws,
      home,
      plan: true,
      script: [
        () => ({ tool: 'create', input: { path: plan(), file_text: PLAN } }),
        { tool: copilotMcpTool('agentContext_plan'), input: {} },
        () => ({ tool: 'edit', input: { path: plan(), old_str: '- [ ] Read the middleware', new_str: '- [x] Read the middleware' } }),
        () => ({ tool: copilotMcpTool('agentContext_plan'), input: { plan: `copilot-cli-${session}` } }),
        { text: 'Plan saved.' },
      ],
    });
  });

  it('plan mode asked for the plan in the session state, and Copilot CLI wrote it there (create, then edit)', () => {
    const first = JSON.stringify(run.requests.find((r) => r.toolNames.length > 0)?.body ?? '');
    assert.ok(first.includes(`Save the plan to: ${planFile}`), `plan mode's prompt names another file than ${planFile}`);
    assert.deepEqual(run.results.filter((r) => r.tool === 'create' || r.tool === 'edit').map((r) => [r.tool, r.isError]), [['create', false], ['edit', false]], run.results.map((r) => r.text).join('\n'));
    assert.equal(fs.readFileSync(planFile, 'utf8'), UPDATED);
  });

  it('the mirror holds the updated plan under a header naming its source', () => {
    const mirror = path.join(ws, '.agent', 'plans', `copilot-cli-${session}.md`);
    const text = fs.readFileSync(mirror, 'utf8');
    assert.match(text, new RegExp(`^<!-- Mirrored by Agent Context from GitHub Copilot CLI's plan \\(session-state/${session}/plan\\.md`));
    assert.ok(text.endsWith(UPDATED), text);
    recordMeasure('copilot-cli', 'planMirrored', true);
  });

  it('agentContext_plan listed the mirror after the create, and read the edited plan after the edit', () => {
    const calls = run.results.filter((r) => r.tool === copilotMcpTool('agentContext_plan'));
    assert.equal(calls.length, 2, run.results.map((r) => `${r.tool}: ${r.text}`).join('\n'));
    assert.match(calls[0].text, new RegExp(`- \\.agent/plans/copilot-cli-${session}\\.md: Rate limiter \\(0/3 done\\)`));
    // A mirror: read-only (Copilot rewrites it; an edit of the copy would be undone by the next copy).
    assert.match(calls[1].text, new RegExp(`^Plan \\.agent/plans/copilot-cli-${session}\\.md \\(GitHub Copilot CLI's plan, read-only\\) \\(Markdown checklist\\): Rate limiter\\n1/3 done\\n\\[1\\] completed: Read the middleware\\n\\[2\\] pending: Add a token bucket`), calls[1].text);
    assert.match(calls[1].text, /Read-only here: GitHub Copilot CLI rewrites this plan; change it in GitHub Copilot CLI\./);
  });
});
