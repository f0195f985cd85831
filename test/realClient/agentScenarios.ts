/*
 * The scenarios every agent CLI goes through, whatever its wire protocol: one driver per CLI
 * (test/realClient/<agent>Cli.ts) says how to start it and how it names tools; the assertions are
 * on what the CLI sent back to the fake model, i.e. what a real model would have read.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ledgerPath } from '../../src/core/history/ledger';
import { TOOL_NAMES } from '../../src/core/tools/toolNames';
import { copyFixture, errorLinesSeen, errorLinesWithNumbers, MCP_JS, MEDIUM_FAILURES, resultOf, SMALL_FAILURE, tempDir, writeNoisyBuild, type AgentRun } from './agentProcess';
import { agentName } from '../../src/core/hooks/agentNames';
import { listTerminals, readTerminalIndex } from '../../src/core/terminal/terminalIndex';
import type { TerminalCommand, TerminalInfo } from '../../src/core/terminal/terminalFormat';
import type { ScriptTurn } from './fakeModel';
import { hookAddedFigure, hookCostRounds, median, ROUND_CALLS, ROUNDS } from './hookCost';
import { recordMeasure } from './measure';

/** How one agent CLI is driven. */
export interface AgentDriver {
  /** The set-up name (`--setup <id>`), also the ledger's `source`. */
  id: string;
  /** The key of its measurements (default: id; the run of Claude Code's current release differs). */
  key?: string;
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

    it('offers every one of our tools to the model', () => {
      const offered = run.requests.find((r) => r.toolNames.some((n) => n.includes('agentContext_')))?.toolNames ?? [];
      const missing = TOOL_NAMES.filter((t) => !offered.includes(d.mcpTool(t)));
      assert.deepEqual(missing, [], `offered: ${offered.join(', ')}`);
      recordMeasure(d.key ?? d.id, 'toolsOffered', TOOL_NAMES.length - missing.length);
    });

    it('agentContext_run on a 60,000-line failing build: ≤ 2 KB reaches the model with every error line and its number', () => {
      const r = resultOf(run, d.mcpTool('agentContext_run'));
      const text = d.unwrap ? d.unwrap(r.text) : r.text;
      const errors = errorLinesWithNumbers(text, noisy.errorLines);
      recordMeasure(d.key ?? d.id, 'mcpRun', { bytes: r.bytes, errors, isError: r.isError });
      assert.ok(r.bytes <= 2048, `${r.bytes} bytes reached the model:\n${r.text}`);
      // A client that had not listed the tool yet when the model called it answers "unsupported call" (Codex).
      assert.equal(errors, 3, `${text}\n(the request the call answered ${r.offered ? 'offered' : 'did NOT offer'} ${d.mcpTool('agentContext_run')}; tools offered in each request: ${run.requests.map((q) => q.toolNames.filter((n) => n.includes('agentContext_')).length).join(', ')})`);
      assert.match(text, /exit 1/);
      const saved = /Output saved: (\S+)/.exec(text)![1];
      assert.equal(fs.readFileSync(path.join(ws, saved), 'utf8').split('\n').length - 1, 60_000, 'the full output is on disk');
    });

    it(`its own shell tool (${d.shellTool}) on the same build, without our hook: none of the three error lines reach the model`, () => {
      const r = resultOf(run, d.shellTool);
      const seen = errorLinesSeen(r.text, noisy.errorLines);
      recordMeasure(d.key ?? d.id, 'shellWithoutHook', { bytes: r.bytes, errors: seen, isError: r.isError });
      assert.equal(seen, 0, r.text.slice(0, 500));
      assert.ok(r.bytes > 0);
    });
  });
}

/** How an agent runs with what `mcp.js --setup <id>` wrote, and with permission rules that allow only some commands. */
export interface HookDriver extends AgentDriver {
  /**
   * One conversation with the set-up's configuration (no MCP server of the test's own). `allow`:
   * the user's permission rules allow only these commands (prefixes) in the shell tool and ask
   * about, or refuse, every other one; undefined: everything is allowed.
   */
  runSetUp(o: { workspace: string; home: string; script: readonly ScriptTurn[]; allow?: readonly string[] }): Promise<AgentRun & { asked?: string[]; shown?: string[] }>;
  /** The output text of a shell result without the agent's own framing (exit code lines, chunk ids…). */
  outputOf(text: string): string;
  /** How many of the three secrets the agent masks by itself, without our hook (default 0). */
  ownMasking?: number;
}

/** Runs `node dist/mcp.js --root <ws> --setup <agent>` with HOME=home, as a user would. */
export function setUpWith(agent: string, workspace: string, home: string, env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [MCP_JS, '--root', workspace, '--setup', agent], { encoding: 'utf8', env: { ...process.env, HOME: home, ...env } });
  assert.equal(r.status, 0, `--setup ${agent}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** What `--setup` says of the agent's own shell: offloaded for an agent whose hooks can replace its output, not for one whose hooks cannot. */
export function assertSetupSaysOffload(said: string, offloaded: boolean): void {
  if (offloaded) assert.match(said, /large shell output to \.agent\/scratch\/tool_outputs\//, said);
  else {
    assert.match(said, /its own shell's output not offloaded/, said);
    assert.doesNotMatch(said, /large shell output to/, said);
  }
}

const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const STRIPE = 'sk' + '_live_' + '4eC39HqLyjWDarjtT1zdp7dc';
/** The three secrets of the small-output scenario, and the command that prints them. */
export const SECRETS = { values: [GH, AWS_SECRET, STRIPE], command: `echo "GITHUB_TOKEN=${GH}"; echo "aws_secret_access_key = ${AWS_SECRET}"; echo "STRIPE_KEY=${STRIPE}"` };

/** Files under `dir` (recursively) holding any of `needles`. */
function filesHolding(dir: string, needles: readonly string[]): string[] {
  const out: string[] = [];
  if (!fs.existsSync(dir)) return out;
  for (const f of fs.readdirSync(dir, { recursive: true }).map(String)) {
    const p = path.join(dir, f);
    if (fs.statSync(p).isFile() && needles.some((n) => fs.readFileSync(p, 'latin1').includes(n))) out.push(p);
  }
  return out;
}

/**
 * The workspace lies under a folder holding a keyword of the masking rules (copyFixture: .../Desktop/):
 * the hook's Node side left its verdict on that path in shell-hook.conf, so the shell's fast path
 * checks only what is below it (else every small command would start Node).
 */
function assertPathCleared(ws: string): void {
  const conf = path.join(ws, '.agent/.cache/shell-hook.conf');
  const line = fs.existsSync(conf) ? fs.readFileSync(conf, 'utf8').split('\n')[1] : '(no shell-hook.conf)';
  assert.match(line ?? '', /^1 \/.*\/Desktop\/workspace$/, `the verdict on the workspace's path: ${line}`);
}

/** How many trivial calls each scenario session times (its round of the hook's cost: hookCost.ts). */
const TIMED_CALLS = ROUND_CALLS;

/**
 * The agent's own shell tool with our hook, set up by `mcp.js --setup`: the noisy failing build,
 * a small output, secrets, the user's permission rules in both directions, the added time.
 */
/** agentContext_terminal lastFailed as the model read it: the agent's failing `bash build.sh fail` (exit 7), filed under the agent's name and a session. */
function lastFailedOfAgent(d: AgentDriver, raw: string): string {
  const text = d.unwrap ? d.unwrap(raw) : raw;
  // The reference names the command ("Command: …"); a command recorded without output (an agent that
  // handed its hook none: Qwen Code loses some, see sameAsWithoutHook) is named on its title line.
  assert.match(text, /(?:Command: |command #\d+: )bash build\.sh fail\b/, text);
  assert.match(text, /exit 7/, text);
  assert.match(text, new RegExp(`${agentName(d.id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · session `), text);
  return text;
}

/** The agent's session captures in `ws`'s history (at least one) and every command they hold. */
async function recordedCommands(ws: string, agent: string): Promise<{ sessions: TerminalInfo[]; commands: TerminalCommand[] }> {
  const agentDir = path.join(ws, '.agent');
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  const sessions = list.value.filter((t) => t.agent === agent);
  assert.ok(sessions.length >= 1, `no session capture of ${agent}: ${list.value.map((t) => `${t.n} ${t.agent ?? 'terminal'}`).join(', ')}`);
  const commands: TerminalCommand[] = [];
  for (const t of sessions) {
    const idx = await readTerminalIndex(agentDir, t.n);
    assert.ok(idx.ok);
    commands.push(...idx.value.commands);
  }
  return { sessions, commands };
}

export function describeShellHook(d: HookDriver): void {
  describe(`${d.label}'s own shell tool with the Agent Context hook (mcp.js --setup ${d.id})`, function () {
    let ws: string;
    let noisy: ReturnType<typeof writeNoisyBuild>;
    let hooked: AgentRun & { asked?: string[]; shown?: string[] };
    let plain: AgentRun;
    let cost: { hook: number[]; none: number[] };
    const shell = (command: string): ScriptTurn => ({ tool: d.shellTool, input: d.shellInput(command) });
    const timed = Array.from({ length: TIMED_CALLS }, (_, i) => shell(`echo timed-${i}`));

    before(async function () {
      this.timeout(900_000);
      ws = copyFixture('workspace');
      noisy = writeNoisyBuild(ws);
      const home = tempDir('home-');
      setUpWith(d.id, ws, home);
      hooked = await d.runSetUp({
        workspace: ws,
        home,
        allow: ['bash build.sh', 'echo'],
        script: [
          shell('bash build.sh'),
          shell('echo small-output-stays'),
          shell(SECRETS.command),
          shell('touch not-allowed.txt'),
          { tool: d.mcpTool('agentContext_briefing'), input: {} },
          ...timed,
          shell('bash build.sh medium'),
          shell('bash build.sh fail'),
          { tool: d.mcpTool('agentContext_terminal'), input: { command: 'lastFailed' } },
          { text: 'Done.' },
        ],
      });
      // The same calls without the hook: the reference for the bytes and for the added time.
      const plainWs = copyFixture('workspace');
      writeNoisyBuild(plainWs);
      plain = await d.run({ workspace: plainWs, script: [shell('bash build.sh'), shell(SECRETS.command), ...timed, { text: 'Done.' }] });
      // The added time: these two sessions' timed calls are the first round; more rounds alternate.
      const timedOf = (run: AgentRun, off: number): number[] => run.results.filter((r) => r.tool === d.shellTool).slice(off, off + TIMED_CALLS).map((r) => r.ms);
      cost = await hookCostRounds({
        shellTool: d.shellTool,
        shellInput: d.shellInput,
        hook: (script) => d.runSetUp({ workspace: ws, home, allow: ['bash build.sh', 'echo'], script }),
        none: (script) => d.run({ workspace: plainWs, script }),
        first: { hook: timedOf(hooked, 4), none: timedOf(plain, 2) },
      });
    });

    it('the noisy failing build reaches the model as our reference: ≤ 2 KB, every error line with its number, the full output saved', () => {
      const r = resultOf(hooked, d.shellTool, 0);
      const base = resultOf(plain, d.shellTool, 0);
      const errors = errorLinesWithNumbers(r.text, noisy.errorLines);
      recordMeasure(d.key ?? d.id, 'shellWithHook', { bytes: r.bytes, errors, isError: r.isError });
      recordMeasure(d.key ?? d.id, 'shellWithoutHook', { bytes: base.bytes, errors: errorLinesSeen(base.text, noisy.errorLines), isError: base.isError });
      assert.ok(r.bytes <= 2048, `${r.bytes} bytes:\n${r.text}`);
      assert.equal(errors, 3, r.text);
      const saved = /Output saved: (\S+)/.exec(r.text)![1];
      assert.equal(fs.readFileSync(path.join(ws, saved), 'utf8').split('\n').length - 1, 60_000);
      assert.match(fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8'), new RegExp(`"source":"${d.id}"`));
    });

    it('a small output reaches the model unchanged', () => {
      const r = resultOf(hooked, d.shellTool, 1);
      assert.equal(d.outputOf(r.text), 'small-output-stays');
    });

    it(`secrets in a small output: 0 of 3 reach the model (${3 - (d.ownMasking ?? 0)} of 3 without the hook), and no file under .agent/ holds them`, () => {
      const r = resultOf(hooked, d.shellTool, 2);
      const base = resultOf(plain, d.shellTool, 1);
      const seen = SECRETS.values.filter((s) => r.text.includes(s)).length;
      const seenWithout = SECRETS.values.filter((s) => base.text.includes(s)).length;
      recordMeasure(d.key ?? d.id, 'secrets', { withHook: seen, withoutHook: seenWithout });
      assert.equal(seenWithout, 3 - (d.ownMasking ?? 0), base.text);
      assert.equal(seen, 0, r.text);
      assert.deepEqual(filesHolding(path.join(ws, '.agent'), SECRETS.values), []);
    });

    it('the user\'s permission rules decide, not the hook: `bash build.sh` (allowed) ran without a prompt; `touch` (not allowed) did not run', () => {
      assert.ok(!fs.existsSync(path.join(ws, 'not-allowed.txt')), 'touch ran although the rules do not allow it');
      const refused = resultOf(hooked, d.shellTool, 3);
      assert.doesNotMatch(refused.text, /Output saved/);
      if (hooked.asked) {
        // What the user was asked about: their own command, never a wrapper.
        assert.deepEqual(hooked.asked, ['touch not-allowed.txt']);
      }
      if (hooked.shown) {
        // What the agent showed the user for each call: their own command, never a wrapper.
        assert.ok(hooked.shown.some((c) => c.includes('bash build.sh')), hooked.shown.join('\n'));
        assert.deepEqual(hooked.shown.filter((c) => /agent-context|__ac_|AGENT_CONTEXT/.test(c)), []);
      }
      recordMeasure(d.key ?? d.id, 'permissions', { allowedRan: true, deniedRan: false, askedShows: hooked.asked ?? null, shown: hooked.shown?.slice(0, 2) ?? null, refused: refused.text.slice(0, 200) });
    });

    it('the MCP server the set-up configured serves the tools', () => {
      const r = resultOf(hooked, d.mcpTool('agentContext_briefing'));
      assert.match(d.unwrap ? d.unwrap(r.text) : r.text, /Add rate limiting to the public API/);
    });

    it('a clean medium output (a 20 KB test run, two failures) reaches the model as our reference: ≤ 4 KB, both failures with their numbers', () => {
      const r = resultOf(hooked, d.shellTool, 4 + TIMED_CALLS);
      const text = d.unwrap ? d.unwrap(r.text) : r.text;
      const errors = errorLinesWithNumbers(text, MEDIUM_FAILURES);
      recordMeasure(d.key ?? d.id, 'mediumWithHook', { bytes: r.bytes, errors, of: MEDIUM_FAILURES.length });
      assert.ok(r.bytes <= 4096, `${r.bytes} bytes:\n${r.text}`);
      assert.equal(errors, MEDIUM_FAILURES.length, r.text);
    });

    it('every command it ran through its own shell is in the agent-command history, under its name and session; lastFailed finds the failure it just had, with its exit code', async () => {
      const r = resultOf(hooked, d.mcpTool('agentContext_terminal'));
      const text = lastFailedOfAgent(d, r.text);
      assert.ok(text.includes(SMALL_FAILURE), text);
      const { sessions, commands } = await recordedCommands(ws, d.id);
      const lines = commands.map((c) => c.commandLine);
      for (const c of ['bash build.sh', 'echo small-output-stays', 'echo timed-0', 'bash build.sh medium', 'bash build.sh fail']) assert.ok(lines.some((l) => l.includes(c)), `${c} not recorded: ${lines.join(' | ')}`);
      assert.equal(commands.find((c) => c.commandLine.includes('bash build.sh fail'))?.exitCode, 7);
      recordMeasure(d.key ?? d.id, 'history', { sessions: sessions.length, commands: commands.length, lastFailedBytes: r.bytes });
    });

    it('the hook\'s added time per trivial call (median of sessions with and without it, interleaved; reported)', () => {
      assert.deepEqual([cost.hook.length, cost.none.length], [ROUNDS * TIMED_CALLS, ROUNDS * TIMED_CALLS]);
      recordMeasure(d.key ?? d.id, 'hookAddedMs', hookAddedFigure(cost.hook, cost.none));
      assertPathCleared(ws);
    });
  });
}

/** An agent whose own shell our set-up records but cannot offload (its hooks cannot replace a result). */
export interface RecordingDriver extends AgentDriver {
  /** One conversation with the set-up's configuration (no MCP server of the test's own). */
  runSetUp(o: { workspace: string; home: string; script: readonly ScriptTurn[] }): Promise<AgentRun>;
  /** A shell result's text with what differs between two runs of one command made equal (a process id). */
  sameRun?(text: string): string;
  /**
   * The agent's own result with its output lost by the agent itself, hook or no hook (Qwen Code in
   * -p mode, README "Use with Qwen Code"), and the text with its output part left out.
   */
  lostOutput?: { is(text: string): boolean; rest(text: string): string };
  /** Each hook event's duration as the agent itself measured it, where it says (Qwen's debug log). */
  hookMs?(run: AgentRun): number[];
}

/**
 * The agent's own shell after `mcp.js --setup`: every command it ran is in the agent-command history
 * under its name and session, lastFailed finds the failure with its exit code, and what the model
 * read of each command is exactly what it reads without our hook.
 */
export function describeRecordingHook(d: RecordingDriver): void {
  describe(`${d.label}'s own shell tool recorded in the agent-command history (mcp.js --setup ${d.id})`, function () {
    let ws: string;
    let hooked: AgentRun;
    let plain: AgentRun;
    let cost: { hook: number[]; none: number[] };
    const shell = (command: string): ScriptTurn => ({ tool: d.shellTool, input: d.shellInput(command) });
    const timed = Array.from({ length: TIMED_CALLS }, (_, i) => shell(`echo timed-${i}`));
    const same = (t: string): string => (d.sameRun ? d.sameRun(t) : t);

    before(async function () {
      this.timeout(900_000);
      ws = copyFixture('workspace');
      writeNoisyBuild(ws);
      const home = tempDir('home-');
      setUpWith(d.id, ws, home);
      hooked = await d.runSetUp({
        workspace: ws,
        home,
        script: [shell('echo small-output-stays'), ...timed, shell('bash build.sh'), shell('bash build.sh fail'), { tool: d.mcpTool('agentContext_terminal'), input: { command: 'lastFailed' } }, { text: 'Done.' }],
      });
      const plainWs = copyFixture('workspace');
      writeNoisyBuild(plainWs);
      plain = await d.run({ workspace: plainWs, script: [shell('echo small-output-stays'), ...timed, shell('bash build.sh fail'), { text: 'Done.' }] });
      // The added time: these two sessions' timed calls are the first round; more rounds alternate.
      const timedOf = (run: AgentRun): number[] => run.results.filter((r) => r.tool === d.shellTool).slice(1, 1 + TIMED_CALLS).map((r) => r.ms);
      cost = await hookCostRounds({
        shellTool: d.shellTool,
        shellInput: d.shellInput,
        hook: (script) => d.runSetUp({ workspace: ws, home, script }),
        none: (script) => d.run({ workspace: plainWs, script }),
        first: { hook: timedOf(hooked), none: timedOf(plain) },
      });
    });

    it('every command it ran through its own shell is in the agent-command history, under its name and session; lastFailed finds the failure it just had, with its exit code', async () => {
      const r = resultOf(hooked, d.mcpTool('agentContext_terminal'));
      const text = lastFailedOfAgent(d, r.text);
      // The output the model read of the failure, unless the agent lost it itself (then the history holds that).
      const failed = resultOf(hooked, d.shellTool, 2 + TIMED_CALLS).text;
      if (!d.lostOutput?.is(failed)) assert.ok(text.includes(SMALL_FAILURE), text);
      const { sessions, commands } = await recordedCommands(ws, d.id);
      const lines = commands.map((c) => c.commandLine);
      for (const c of ['echo small-output-stays', 'echo timed-0', `echo timed-${TIMED_CALLS - 1}`, 'bash build.sh', 'bash build.sh fail']) assert.ok(lines.some((l) => l.includes(c)), `${c} not recorded: ${lines.join(' | ')}`);
      assert.equal(commands.find((c) => c.commandLine.includes('bash build.sh fail'))?.exitCode, 7);
      assert.equal(commands.find((c) => c.commandLine === 'bash build.sh')?.exitCode, 1);
      recordMeasure(d.key ?? d.id, 'history', { sessions: sessions.length, commands: commands.length, lastFailedBytes: r.bytes });
    });

    it('what the model read of each of its shell commands is the agent\'s own result: nothing of ours added or replaced (compared with the same calls without our hook)', () => {
      const n = 1 + TIMED_CALLS;
      const pairs = Array.from({ length: n }, (_, i) => [resultOf(hooked, d.shellTool, i).text, resultOf(plain, d.shellTool, i).text]);
      pairs.push([resultOf(hooked, d.shellTool, n + 1).text, resultOf(plain, d.shellTool, n).text]);
      let identical = 0;
      let lostByAgent = 0;
      for (const [i, [h, p]] of pairs.entries()) {
        assert.doesNotMatch(h, /Agent Context|agentContext_|\.agent\/|agent-hook/, `call ${i}: ${h}`);
        const say = `call ${i}:\n${h}\n--- without the hook:\n${p}`;
        if (d.lostOutput && (d.lostOutput.is(h) || d.lostOutput.is(p))) {
          // The agent lost this output itself (with or without our hook): all the rest is the same.
          lostByAgent++;
          assert.equal(d.lostOutput.rest(same(h)), d.lostOutput.rest(same(p)), say);
          continue;
        }
        // Byte for byte what the model reads without our hook.
        assert.equal(same(h), same(p), say);
        identical++;
      }
      recordMeasure(d.key ?? d.id, 'sameAsWithoutHook', { identical, lostByAgent, of: pairs.length });
    });

    it('the hook\'s added time per trivial call (median of sessions with and without it, interleaved; reported)', () => {
      assert.deepEqual([cost.hook.length, cost.none.length], [ROUNDS * TIMED_CALLS, ROUNDS * TIMED_CALLS]);
      const figure = hookAddedFigure(cost.hook, cost.none);
      recordMeasure(d.key ?? d.id, 'hookAddedMs', figure);
      assertPathCleared(ws);
      if (d.hookMs) {
        // The hook itself as the agent timed it: no model round trip, no second run to compare with.
        const own = d.hookMs(hooked);
        assert.ok(own.length >= TIMED_CALLS, `the agent logged ${own.length} hook durations`);
        recordMeasure(d.key ?? d.id, 'hookOwnMs', { median: median(own), min: Math.min(...own), max: Math.max(...own), calls: own.length, load: figure.load });
      }
    });
  });
}

/**
 * Two agents on one workspace and its one `.agent/` (issue 21 §4, cross-agent): what `first` saved
 * with agentContext_run is found by `second`'s agentContext_grep, and a plan step set by either one
 * shows in the other's briefing. Three sessions: first, second, first again. Asserted on what each
 * CLI sent back to its fake model.
 */
export function describeCrossAgent(first: HookDriver, second: AgentDriver): void {
  describe(`${first.label} and ${second.label} on one .agent/`, function () {
    let ws: string;
    let noisy: ReturnType<typeof writeNoisyBuild>;
    let a: AgentRun;
    let b: AgentRun;
    let a2: AgentRun;
    let own: AgentRun;
    let b2: AgentRun;
    const text = (d: AgentDriver, run: AgentRun, tool: string, nth = 0): string => {
      const r = resultOf(run, d.mcpTool(tool), nth);
      return d.unwrap ? d.unwrap(r.text) : r.text;
    };

    before(async function () {
      this.timeout(400_000);
      ws = copyFixture('workspace');
      noisy = writeNoisyBuild(ws);
      // first: runs the failing build through our tool, finishes step 2 and starts step 3.
      a = await first.run({
        workspace: ws,
        script: [
          { tool: first.mcpTool('agentContext_run'), input: { command: noisy.script } },
          { tool: first.mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 2, status: 'completed' } },
          { tool: first.mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 3, status: 'in_progress' } },
          { text: 'Build fails; step 3 started.' },
        ],
      });
      // second, a new session of another agent: looks for the error in what is saved, reads the
      // briefing, finishes step 3 and starts step 4.
      b = await second.run({
        workspace: ws,
        script: [
          { tool: second.mcpTool('agentContext_grep'), input: { pattern: 'error TS2345|undefined reference|FATAL ERROR' } },
          { tool: second.mcpTool('agentContext_briefing'), input: {} },
          { tool: second.mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 3, status: 'completed' } },
          { tool: second.mcpTool('agentContext_plan'), input: { action: 'setStatus', stepId: 4, status: 'in_progress' } },
          { text: 'Step 4 started.' },
        ],
      });
      // first again, a new session: its briefing shows what the other agent did.
      a2 = await first.run({ workspace: ws, script: [{ tool: first.mcpTool('agentContext_briefing'), input: {} }, { text: 'Done.' }] });
      // first, set up with our hook, runs a failing command through its own shell; second, in a
      // session of its own, asks for the last failure.
      const home = tempDir('home-');
      setUpWith(first.id, ws, home);
      own = await first.runSetUp({ workspace: ws, home, script: [{ tool: first.shellTool, input: first.shellInput('bash build.sh fail') }, { text: 'It failed.' }] });
      b2 = await second.run({ workspace: ws, script: [{ tool: second.mcpTool('agentContext_terminal'), input: { command: 'lastFailed' } }, { text: 'Found it.' }] });
    });

    it(`${first.label}'s agentContext_run saved the build's output; ${second.label}'s agentContext_grep finds its three error lines there, with their line numbers`, () => {
      const run = text(first, a, 'agentContext_run');
      const saved = /Output saved: (\S+)/.exec(run)?.[1];
      assert.ok(saved, run);
      const grep = text(second, b, 'agentContext_grep');
      const found = noisy.errorLines.filter((e) => grep.includes(`${saved}:${e.n}: ${e.text}`)).length;
      recordMeasure('cross-agent', 'grepOfSavedOutput', { saved, errors: found, bytes: Buffer.byteLength(grep) });
      assert.equal(found, 3, `grep result:\n${grep}`);
    });

    it(`the plan step ${first.label} started shows in ${second.label}'s briefing`, () => {
      const briefing = text(second, b, 'agentContext_briefing');
      assert.match(briefing, /Plan \.agent\/plan\.yaml: 2\/4 done/);
      assert.match(briefing, /Now: step 3 \[in_progress\] Implement the middleware \(\.agent\/plan\.yaml:\d+\)/);
    });

    it(`and the step ${second.label} started shows in ${first.label}'s next session`, () => {
      assert.equal(resultOf(b, second.mcpTool('agentContext_plan'), 1).isError, false);
      const briefing = text(first, a2, 'agentContext_briefing');
      assert.match(briefing, /Plan \.agent\/plan\.yaml: 3\/4 done/);
      assert.match(briefing, /Now: step 4 \[in_progress\] Load-test with 1,000 clients/);
      recordMeasure('cross-agent', 'briefings', { second: Buffer.byteLength(text(second, b, 'agentContext_briefing')), firstAgain: Buffer.byteLength(briefing) });
    });

    it(`a command ${first.label} ran through its own shell and that failed is what ${second.label}'s agentContext_terminal lastFailed finds, with the agent's name and the exit code`, () => {
      assert.ok(own.results.some((r) => r.tool === first.shellTool), `${first.label} did not run its shell tool`);
      const last = text(second, b2, 'agentContext_terminal');
      assert.match(last, /Command: bash build\.sh fail\b/, last);
      assert.match(last, /exit 7/, last);
      assert.ok(last.includes(`${agentName(first.id)} · session `), last);
      assert.ok(last.includes(SMALL_FAILURE), last);
      recordMeasure('cross-agent', 'lastFailedAcrossAgents', { bytes: Buffer.byteLength(last) });
    });
  });
}
