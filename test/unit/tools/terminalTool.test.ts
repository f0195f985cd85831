// agentContext_terminal on a command of VS Code's own agent (its run_in_terminal): what the real
// Copilot agent run of issue 20 showed — the agent's leading space, the line range the briefing names,
// and the ledger's saving for the referenced output.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { gatherBriefing } from '../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../src/core/briefing/composeBriefing';
import { readLedger, savedBy } from '../../../src/core/history/ledger';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';

/** A failing 2,000-line build run the way Copilot's run_in_terminal sends it: with a leading space. */
async function agentRanBuild(): Promise<{ root: string; ctx: ToolContext }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-termtool-'));
  fs.mkdirSync(path.join(root, '.agent'));
  const cap = await openTerminalCapture(path.join(root, '.agent/terminals'), { name: 'Copilot', shell: '/bin/bash', cwd: root, started: new Date(), shellIntegration: true }, { settleMs: 0 });
  const t0 = new Date();
  const ok = cap.beginCommand({ commandLine: 'ls', cwd: root, started: t0 });
  ok.write('\x1b]633;C\x07a\r\nb\r\n');
  ok.end(0, t0);
  const c = cap.beginCommand({ commandLine: ' bash build.sh', cwd: root, started: t0 });
  c.write('\x1b]633;C\x07');
  for (let i = 1; i <= 2000; i++) c.write(i === 1000 ? 'src/a.ts(3,1): error TS2345: bad argument\r\n' : `[${i}/2000] compiling module_${i}.c ... ok\r\n`);
  c.end(1, t0);
  await cap.close(t0);
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode', trusted: true, allowRun: false };
  return { root, ctx };
}

test('agentContext_terminal shows the agent\'s command without its leading space', async () => {
  const { ctx } = await agentRanBuild();
  const r = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
  assert.match(r.text, /\nCommand: bash build\.sh \(cwd: /);
  assert.doesNotMatch(r.text, / {2}bash build\.sh/);
  const list = await invokeTool('agentContext_terminal', {}, ctx);
  assert.match(list.text, /exit 1 · bash build\.sh ·/);
});

test('the briefing names the same line range of the failed command as agentContext_terminal', async () => {
  const { root, ctx } = await agentRanBuild();
  const r = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
  const [, a, b] = /\.agent\/terminals\/1\.txt lines (\d+)–(\d+)/.exec(r.text) ?? [];
  assert.ok(a && b, r.text);
  const briefing = composeBriefing(await gatherBriefing(path.join(root, '.agent'))).text;
  assert.match(briefing, new RegExp(`\\.agent/terminals/1\\.txt lines ${a}-${b}: exit 1 \`bash build\\.sh\``), briefing);
  // Line a is the command's first output line, not its `>>>` header.
  const lines = fs.readFileSync(path.join(root, '.agent/terminals/1.txt'), 'utf8').split('\n');
  assert.equal(lines[Number(a) - 1], '[1/2000] compiling module_1.c ... ok');
});

test('the ledger records the referenced output as the raw size of agentContext_terminal and agentContext_read', async () => {
  const { root, ctx } = await agentRanBuild();
  await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
  await invokeTool('agentContext_read', { path: '.agent/terminals/1.txt', offset: 995, limit: 10 }, ctx);
  const { entries } = await readLedger(path.join(root, '.agent'));
  const term = entries.find((e) => e.tool === 'agentContext_terminal');
  const read = entries.find((e) => e.tool === 'agentContext_read');
  assert.ok(term && read);
  // 2,000 lines of ~40 bytes: about 20,000 tokens referenced, about 1 KB returned.
  assert.ok(term.rawTokens > 10 * term.returnedTokens, `terminal: raw ${term.rawTokens}, returned ${term.returnedTokens}`);
  assert.ok(savedBy(term) > 10_000, `saved ${savedBy(term)}`);
  assert.ok(read.rawTokens > 10 * read.returnedTokens, `read: raw ${read.rawTokens}, returned ${read.returnedTokens}`);
});

test('the ledger records the full match list as the raw size of an agentContext_grep answered with a reference', async () => {
  const { root, ctx } = await agentRanBuild();
  const r = await invokeTool('agentContext_grep', { pattern: 'compiling', path: '.agent/terminals' }, ctx);
  assert.match(r.text, /Full list: \.agent\/scratch\/tool_outputs\//);
  const { entries } = await readLedger(path.join(root, '.agent'));
  const grep = entries.find((e) => e.tool === 'agentContext_grep');
  assert.ok(grep);
  assert.ok(grep.rawTokens > 10 * grep.returnedTokens, `grep: raw ${grep.rawTokens}, returned ${grep.returnedTokens}`);
});
