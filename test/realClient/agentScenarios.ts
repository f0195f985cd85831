/*
 * The scenarios every agent CLI goes through, whatever its wire protocol: one driver per CLI
 * (test/realClient/<agent>Cli.ts) says how to start it and how it names tools; the assertions are
 * on what the CLI sent back to the fake model, i.e. what a real model would have read.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOL_NAMES } from '../../src/core/tools/toolNames';
import { copyFixture, errorLinesSeen, errorLinesWithNumbers, resultOf, writeNoisyBuild, type AgentRun } from './agentProcess';
import type { ScriptTurn } from './fakeModel';
import { recordMeasure } from './measure';

/** How one agent CLI is driven. */
export interface AgentDriver {
  /** The set-up name (`--setup <id>`), also the key of its measurements. */
  id: string;
  /** Shown in test titles. */
  label: string;
  /** The name under which the CLI offers one of our MCP tools to the model. */
  mcpTool(tool: string): string;
  /** The CLI's own shell tool, and its input for a command. */
  shellTool: string;
  shellInput(command: string): Record<string, unknown>;
  /** One conversation with our MCP server configured (the test's own way, not the set-up's). */
  run(o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun>;
  /** The text of a tool result as the model reads it, undoing a client's wrapping (e.g. escaped JSON). */
  unwrap?(text: string): string;
}

/** Unescapes a JSON string body embedded in a text (Gemini wraps an error result in escaped JSON). */
export function unescapeJsonText(text: string): string {
  return text.replace(/\\(["\\/bfnrt]|u[0-9a-fA-F]{4})/g, (_m, c: string) => {
    if (c.startsWith('u')) return String.fromCharCode(parseInt(c.slice(1), 16));
    return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[c] ?? c;
  });
}

/** Our MCP tools are offered; agentContext_run on the noisy failing build; the agent's own shell tool on it. */
export function describeAgentBasics(d: AgentDriver): void {
  describe(`${d.label} → Agent Context MCP server and its own shell tool`, function () {
    let ws: string;
    let run: AgentRun;
    let noisy: ReturnType<typeof writeNoisyBuild>;

    before(async function () {
      this.timeout(240_000);
      ws = copyFixture('workspace');
      noisy = writeNoisyBuild(ws);
      run = await d.run({
        workspace: ws,
        script: [
          { tool: d.mcpTool('agentContext_run'), input: { command: noisy.script } },
          { tool: d.shellTool, input: d.shellInput(noisy.script) },
          { text: 'Done.' },
        ],
      });
    });

    it('offers all twelve tools to the model', () => {
      const offered = run.requests.find((r) => r.toolNames.some((n) => n.includes('agentContext_')))?.toolNames ?? [];
      const missing = TOOL_NAMES.filter((t) => !offered.includes(d.mcpTool(t)));
      assert.deepEqual(missing, [], `offered: ${offered.join(', ')}`);
      recordMeasure(d.id, 'toolsOffered', TOOL_NAMES.length - missing.length);
    });

    it('agentContext_run on a 60,000-line failing build: ≤ 2 KB reaches the model with every error line and its number', () => {
      const r = resultOf(run, d.mcpTool('agentContext_run'));
      const text = d.unwrap ? d.unwrap(r.text) : r.text;
      const errors = errorLinesWithNumbers(text, noisy.errorLines);
      recordMeasure(d.id, 'mcpRun', { bytes: r.bytes, errors, isError: r.isError });
      assert.ok(r.bytes <= 2048, `${r.bytes} bytes reached the model:\n${r.text}`);
      assert.equal(errors, 3, text);
      assert.match(text, /exit 1/);
      const saved = /Output saved: (\S+)/.exec(text)![1];
      assert.equal(fs.readFileSync(path.join(ws, saved), 'utf8').split('\n').length - 1, 60_000, 'the full output is on disk');
    });

    it(`its own shell tool (${d.shellTool}) on the same build, without our hook: none of the three error lines reach the model`, () => {
      const r = resultOf(run, d.shellTool);
      const seen = errorLinesSeen(r.text, noisy.errorLines);
      recordMeasure(d.id, 'shellWithoutHook', { bytes: r.bytes, errors: seen, isError: r.isError });
      assert.equal(seen, 0, r.text.slice(0, 500));
      assert.ok(r.bytes > 0);
    });
  });
}
