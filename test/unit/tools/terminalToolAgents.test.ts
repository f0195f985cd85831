// agentContext_terminal and the briefing over the agent-command history: agents' own shell commands
// (recorded by their hooks, core/terminal/agentCommands/) beside the integrated terminals. What a
// user asks: what did Codex run, what failed last (anywhere, or of one agent), and where is it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { writeSpoolRecord, type SpoolRecord } from '../../../src/core/terminal/agentCommands/commandSpool';
import { recordAgentCommand } from '../../../src/core/terminal/agentCommands/recordCommand';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { gatherBriefing } from '../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../src/core/briefing/composeBriefing';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import fsModule = require('node:fs');
import { folder } from '../terminal/catalog/catalogFixtures';
import { resetProcessState } from '../../../src/core/processState';
import { terminalCatalog } from '../../../src/core/terminal/catalog/terminalCatalog';

const T0 = Date.parse('2026-12-06T09:00:00Z');

/** A workspace with one integrated terminal (a passing and a failing command) and nothing of the agents yet. */
async function workspace(): Promise<{ root: string; agentDir: string; ctx: ToolContext }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-termagents-'));
  const agentDir = path.join(root, '.agent');
  fs.mkdirSync(agentDir);
  const cap = await openTerminalCapture(path.join(agentDir, 'terminals'), { name: 'bash', shell: '/bin/bash', cwd: root, started: new Date(T0), shellIntegration: true }, { settleMs: 0 });
  const c = cap.beginCommand({ commandLine: 'npm run lint', cwd: root, started: new Date(T0) });
  c.write('\x1b]633;C\x07src/x.ts: error: no-unused-vars\r\n');
  c.end(1, new Date(T0 + 1000));
  await cap.close(new Date(T0 + 2000));
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  return { root, agentDir, ctx };
}

const rec = (over: Partial<SpoolRecord>): SpoolRecord => ({ agent: 'codex', session: 'cx-1', startedMs: T0 + 10_000, endedMs: T0 + 11_000, exitCode: 0, cwd: '/w', command: 'ls', enc: 'raw', output: 'a\nb\n', ...over });

test('what Codex ran and failed, Claude Code finds with lastFailed: the newest failure across terminals and agent sessions', async () => {
  const { agentDir, ctx } = await workspace();
  await writeSpoolRecord(agentDir, rec({}));
  await writeSpoolRecord(agentDir, rec({ command: 'cargo build', exitCode: 101, output: 'error[E0308]: mismatched types\n --> src/main.rs:4:5\n', startedMs: T0 + 20_000, endedMs: T0 + 25_000 }));
  const r = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
  assert.match(r.text, /Codex CLI · session cx-1 \(terminal 2\) command #2/);
  assert.match(r.text, /Command: cargo build/);
  assert.match(r.text, /exit 101/);
  assert.match(r.text, /error\[E0308\]: mismatched types/);
  // One agent's, or the integrated terminals' only.
  const terms = await invokeTool('agentContext_terminal', { command: 'lastFailed', agent: 'terminals' }, ctx);
  assert.match(terms.text, /Terminal 1 command #1/);
  assert.match(terms.text, /npm run lint/);
  const claude = await invokeTool('agentContext_terminal', { command: 'lastFailed', agent: 'claude-code' }, ctx);
  assert.match(claude.text, /^No failed command in any of the 0 sessions of Claude Code\.$/);
  const bad = await invokeTool('agentContext_terminal', { command: 'lastFailed', agent: 'cursor' }, ctx);
  assert.equal(bad.isError, true);
  assert.match(bad.text, /agent must be an agent's id \(claude-code, codex, .*\) or "terminals"/);
});

test('the listing names integrated terminals and agent sessions apart, and filters by agent', async () => {
  const { agentDir, ctx } = await workspace();
  await writeSpoolRecord(agentDir, rec({}));
  await writeSpoolRecord(agentDir, rec({ agent: 'gemini', session: 'g-9', command: 'pytest -q', exitCode: 1, output: 'FAILED test_x.py::test_y\n' }));
  const all = await invokeTool('agentContext_terminal', {}, ctx);
  assert.match(all.text, /^1 captured terminal and 2 agent sessions \(their own shell commands\), 2 open, 1 closed with a failed last command/);
  assert.match(all.text, /Terminal \d "Gemini CLI · session g-9" \(.*, open, gemini's own commands\): 1 command/);
  assert.match(all.text, /#1 exit 1 · pytest -q ·/);
  const codex = await invokeTool('agentContext_terminal', { agent: 'codex' }, ctx);
  assert.match(codex.text, /^1 agent session \(their own shell commands\)/);
  assert.doesNotMatch(codex.text, /Gemini|npm run lint/);
});

test('an agent command whose output was offloaded: lastFailed refers to the whole saved output, with its error lines, and names the block the agent read', async () => {
  const { root, agentDir, ctx } = await workspace();
  const saved = path.join(agentDir, 'scratch/tool_outputs/build-x.txt');
  fs.mkdirSync(path.dirname(saved), { recursive: true });
  fs.writeFileSync(saved, Array.from({ length: 3000 }, (_, i) => (i === 1499 ? 'gcc: error: linker failed' : `compiling unit ${i + 1}`)).join('\n') + '\n');
  const err = await recordAgentCommand(root, { agent: 'claude-code', session: 'cc-1', command: 'make all', exitCode: 2, startedMs: T0 + 30_000, endedMs: T0 + 40_000 }, { text: 'Output saved: .agent/scratch/tool_outputs/build-x.txt (3,000 lines)\nexit 2\n', masked: 0, savedAbs: saved });
  assert.equal(err, undefined);
  const r = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
  assert.match(r.text, /Claude Code · session cc-1/);
  assert.match(r.text, /\.agent\/scratch\/tool_outputs\/build-x\.txt/);
  assert.match(r.text, /L1500: gcc: error: linker failed/);
  assert.match(r.text, /The agent read a reference to this output: \.agent\/terminals\/\d+\.txt lines \d+–\d+/);
});

test('the briefing lists a failed agent command beside failed terminals', async () => {
  const { agentDir } = await workspace();
  await writeSpoolRecord(agentDir, rec({ command: 'go test ./...', exitCode: 1, output: '--- FAIL: TestParse (0.00s)\n' }));
  const text = composeBriefing(await gatherBriefing(agentDir)).text;
  assert.match(text, /: exit 1 `go test \.\/\.\.\.` \(Codex CLI\)/, text);
  assert.match(text, /npm run lint/, text);
});

test('an agent command with no output is named by its session, as every other answer names it', async () => {
  const { agentDir, ctx } = await workspace();
  await writeSpoolRecord(agentDir, rec({ command: 'git status --short', output: '' }));
  const r = await invokeTool('agentContext_terminal', { terminal: 2, command: 'last' }, ctx);
  assert.match(r.text, /^Codex CLI · session cx-1 \(terminal 2\) command #1: git status --short\nexit 0 .* no output \(\.agent\/terminals\/2\.txt line \d+\)\.$/);
});

/** agentContext_terminal in `root` as the MCP server calls it, with how many distinct N.txt the call opened (synchronous opens: the catalog's reads). */
function askCountingTxt(root: string): (input: Record<string, unknown>) => Promise<{ text: string; txt: number }> {
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const real = fsModule.openSync;
  return async (input) => {
    const opened = new Set<string>();
    (fsModule as { openSync: typeof real }).openSync = ((...a: Parameters<typeof real>) => {
      if (/[/\\]\d+\.txt$/.test(String(a[0]))) opened.add(String(a[0]));
      return real(...a);
    }) as typeof real;
    try {
      return { text: (await invokeTool('agentContext_terminal', input, ctx)).text, txt: opened.size };
    } finally {
      (fsModule as { openSync: typeof real }).openSync = real;
    }
  };
}

test('lastFailed and last, a first call with no .agent/.cache/ at 250 terminals and two agent sessions: only the N.txt of terminals newer than the pick are read, and the answer is a whole read\'s', async () => {
  const { root, agentDir } = await folder(250);
  // Codex failed after every integrated terminal's command, Gemini after Codex: a filter on Codex must look past Gemini's session.
  const after = Date.parse('2026-06-02T12:00:00Z');
  await writeSpoolRecord(agentDir, rec({ session: 'cx-7', command: 'cargo test', exitCode: 101, output: 'test result: FAILED\n', startedMs: after, endedMs: after + 1000 }));
  await writeSpoolRecord(agentDir, rec({ agent: 'gemini', session: 'g-7', command: 'pytest -q', exitCode: 1, output: 'FAILED test_x.py::test_y\n', startedMs: after + 60_000, endedMs: after + 61_000 }));
  const asked = askCountingTxt(root);
  // [input, what the answer names, N.txt read at most: the pick and the terminals newer than it that are out of scope]
  const cases: [Record<string, unknown>, RegExp, number][] = [
    [{ command: 'lastFailed' }, /Gemini CLI · session g-7 .*command #1/, 1],
    [{ command: 'last' }, /Gemini CLI · session g-7 .*command #1/, 1],
    [{ command: 'lastFailed', agent: 'codex' }, /Codex CLI · session cx-7 .*command #1/, 2],
    [{ command: 'last', agent: 'codex' }, /Codex CLI · session cx-7 .*command #1/, 2],
    [{ command: 'lastFailed', agent: 'terminals' }, /^Terminal \d+ command #\d+/, 3],
  ];
  for (const [input, names, most] of cases) {
    resetProcessState();
    fs.rmSync(path.join(agentDir, '.cache'), { recursive: true, force: true });
    const first = await asked(input);
    resetProcessState();
    assert.ok((await terminalCatalog(agentDir)).ok); // every N.txt and index read whole first
    const whole = await asked(input);
    assert.equal(first.text, whole.text, JSON.stringify(input));
    assert.match(first.text, names, JSON.stringify(input));
    assert.ok(first.txt <= most, `${JSON.stringify(input)}: ${first.txt} N.txt read in the call (at most ${most})`);
  }
  resetProcessState();
  fs.rmSync(root, { recursive: true, force: true });
});

test('the listing, a first call with no .agent/.cache/ at 250 terminals: N.txt is read for the terminals shown and those whose index has no closing record; the answer is a whole read\'s', async () => {
  const { root, agentDir } = await folder(250);
  // A session still open (its command a minute ago: idle sessions close after 30 minutes).
  await writeSpoolRecord(agentDir, rec({ session: 'cx-8', command: 'cargo test', exitCode: 101, output: 'test result: FAILED\n', startedMs: Date.now() - 61_000, endedMs: Date.now() - 60_000 }));
  const asked = askCountingTxt(root);
  const dir = path.join(agentDir, 'terminals');
  const closings = (): number => fs.readdirSync(dir).filter((f) => f.endsWith('.index.jsonl') && /"closed":/.test(fs.readFileSync(path.join(dir, f), 'utf8'))).length;
  const noCache = (): void => {
    resetProcessState();
    fs.rmSync(path.join(agentDir, '.cache'), { recursive: true, force: true });
  };
  let open = 0; // open terminals and sessions in the folder (their index has no closing record yet), from the unfiltered listing
  for (const input of [{}, { agent: 'codex' }, { agent: 'terminals' }]) {
    noCache();
    const first = await asked(input);
    resetProcessState();
    assert.ok((await terminalCatalog(agentDir)).ok); // every N.txt and index read whole first
    const whole = await asked(input);
    assert.equal(first.text, whole.text, JSON.stringify(input));
    // Read: the terminals shown, and the open ones (in scope or not: whose they are is in N.txt alone).
    const shown = (first.text.match(/^Terminal \d+ "/gm) ?? []).length;
    if (!input.agent) open = Number(/, (\d+) open,/.exec(first.text)?.[1]);
    assert.ok(shown > 0 && open > 0, first.text.slice(0, 200));
    assert.ok(first.txt <= shown + open, `${JSON.stringify(input)}: ${first.txt} N.txt read for ${shown} shown and ${open} open`);
  }
  // Written before closing records (an older Agent Context): every N.txt is read, and the answer is the same.
  noCache();
  const withClosing = await asked({});
  assert.ok(closings() > 200, `${closings()} indexes with a closing record`);
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.index.jsonl'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    fs.writeFileSync(path.join(dir, f), text.split('\n').filter((l) => !l.includes('"closed":')).join('\n'));
  }
  assert.equal(closings(), 0);
  noCache();
  const without = await asked({});
  assert.equal(without.text, withClosing.text);
  assert.ok(without.txt >= 250, `${without.txt} N.txt read without closing records`);
  resetProcessState();
  fs.rmSync(root, { recursive: true, force: true });
});
