/*
 * The newest Claude Code (2.1.337, run claude-code-newest) lists MCP tools to the model by name only,
 * behind its ToolSearch tool (also against a base URL of our own: checked). The scripted model does
 * what a model must do there: search in its own words, then call the tool it found. After
 * `mcp.js --setup claude-code` (nothing more: the set-up declares nothing for ToolSearch), our tools
 * must be found that way, and the set-up's hook must still offload Claude Code's own Bash.
 * Run: node scripts/test.mjs --integration-only --run claude-code-newest
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SMALL_FAILURE } from './agentProcess';
import { setUpWith } from './agentScenarios';
import { claudeDriver, copyFixture, errorLinesWithNumbers, mcpTool, resultOf, tempDir, writeNoisyBuild, type ClaudeRun } from './claudeCli';
import { recordMeasure } from './measure';
import { TOOL_NAMES } from '../../src/core/tools/toolNames';

const AGENT = process.env.AGENT_CONTEXT_CLIENT ?? 'claude-code-newest';

type Block = { type?: string; tool_name?: string; tool_use_id?: string; content?: unknown; name?: string; defer_loading?: boolean };
type Body = { tools?: Block[]; messages?: { role: string; content: unknown }[] };

/** The tool names each ToolSearch result handed the model (tool_reference blocks, best first), in call order. */
function searchResults(run: ClaudeRun): string[][] {
  const seen = new Map<string, string[]>();
  for (const r of run.requests) {
    for (const m of (r.body as Body).messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content as Block[]) {
        if (b.type !== 'tool_result' || !b.tool_use_id || seen.has(b.tool_use_id) || !Array.isArray(b.content)) continue;
        const refs = (b.content as Block[]).filter((c) => c.type === 'tool_reference').map((c) => String(c.tool_name));
        if (refs.length) seen.set(b.tool_use_id, refs);
      }
    }
  }
  return [...seen.values()];
}

describe('Claude Code with ToolSearch (tools listed by name only): our tools found by a search, our hook still offloading', function () {
  let ws: string;
  let run: ClaudeRun;
  let noisy: ReturnType<typeof writeNoisyBuild>;
  // What a model types into ToolSearch, in its own words (not our tool names).
  const RUN_QUERY = 'run a noisy build command and keep its full output';
  const FAILED_QUERY = 'last failed terminal command';

  before(async function () {
    this.timeout(400_000);
    ws = copyFixture('workspace');
    noisy = writeNoisyBuild(ws);
    const home = tempDir('home-');
    setUpWith('claude-code', ws, home);
    run = await claudeDriver.runSetUp({
      workspace: ws,
      home,
      allow: ['bash build.sh'],
      script: [
        { tool: 'ToolSearch', input: { query: RUN_QUERY } },
        { tool: mcpTool('agentContext_run'), input: { command: noisy.script } },
        { tool: 'Bash', input: { command: 'bash build.sh', description: 'Run the build' } },
        { tool: 'Bash', input: { command: 'bash build.sh fail', description: 'Run the failing step' } },
        { tool: 'ToolSearch', input: { query: FAILED_QUERY } },
        { tool: mcpTool('agentContext_terminal'), input: { command: 'lastFailed' } },
        { text: 'Done.' },
      ],
    });
  });

  it('the first request names every one of our tools but sends none of their schemas: they wait behind ToolSearch', () => {
    const first = run.requests[0].body as Body;
    const tools = first.tools ?? [];
    assert.ok(tools.some((t) => t.name === 'ToolSearch'), `no ToolSearch tool: ${tools.map((t) => t.name).join(', ')}`);
    const ours = tools.filter((t) => t.name?.startsWith('mcp__agent-context__'));
    assert.deepEqual(ours.filter((t) => !t.defer_loading).map((t) => t.name), [], 'a tool of ours was sent with its schema up front');
    const said = JSON.stringify(first.messages ?? []);
    const unnamed = TOOL_NAMES.filter((t) => !said.includes(mcpTool(t)));
    assert.deepEqual(unnamed, [], 'tools of ours the model is not told exist');
    recordMeasure(AGENT, 'toolSearch', { deferredByName: TOOL_NAMES.length - unnamed.length, sentWithSchema: ours.filter((t) => !t.defer_loading).length });
  });

  it('a search in a model\'s words finds agentContext_run, and then agentContext_terminal, among its five answers; each is loaded for the next request', () => {
    const [forRun, forFailed] = searchResults(run);
    assert.ok(forRun?.includes(mcpTool('agentContext_run')), `"${RUN_QUERY}" → ${forRun?.join(', ')}`);
    assert.ok(forFailed?.includes(mcpTool('agentContext_terminal')), `"${FAILED_QUERY}" → ${forFailed?.join(', ')}`);
    const later = (run.requests[run.requests.length - 1].body as Body).tools ?? [];
    for (const t of ['agentContext_run', 'agentContext_terminal']) assert.ok(later.some((x) => x.name === mcpTool(t)), `${t} not loaded after the search`);
    recordMeasure(AGENT, 'toolSearchRank', { run: forRun.indexOf(mcpTool('agentContext_run')) + 1, terminal: forFailed.indexOf(mcpTool('agentContext_terminal')) + 1, of: [forRun.length, forFailed.length] });
  });

  it('agentContext_run, called after the search, hands the model ≤ 2 KB with every error line and its number', () => {
    const r = resultOf(run, mcpTool('agentContext_run'));
    const errors = errorLinesWithNumbers(r.text, noisy.errorLines);
    recordMeasure(AGENT, 'toolSearchRun', { bytes: r.bytes, errors });
    assert.ok(r.bytes <= 2048, `${r.bytes} bytes:\n${r.text}`);
    assert.equal(errors, 3, r.text);
  });

  it('its own Bash with the set-up\'s hook: the noisy build reaches the model as our reference (≤ 2 KB, 3/3 error lines, the full output saved)', () => {
    const r = resultOf(run, 'Bash', 0);
    const errors = errorLinesWithNumbers(r.text, noisy.errorLines);
    recordMeasure(AGENT, 'toolSearchShellWithHook', { bytes: r.bytes, errors });
    assert.ok(r.bytes <= 2048, `${r.bytes} bytes:\n${r.text}`);
    assert.equal(errors, 3, r.text);
    const saved = /Output saved: (\S+)/.exec(r.text)?.[1];
    assert.ok(saved, r.text);
    assert.equal(fs.readFileSync(path.join(ws, saved), 'utf8').split('\n').length - 1, 60_000);
  });

  it('agentContext_terminal lastFailed, found by the search, answers with its own Bash\'s failure (exit 7) from the agent-command history', () => {
    const r = resultOf(run, mcpTool('agentContext_terminal'));
    assert.match(r.text, /Command: bash build\.sh fail\b/, r.text);
    assert.match(r.text, /exit 7/, r.text);
    assert.match(r.text, /Claude Code · session /, r.text);
    assert.ok(r.text.includes(SMALL_FAILURE), r.text);
  });
});
