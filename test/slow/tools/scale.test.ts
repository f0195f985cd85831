// Results that the scale study exposed (issue 15), checked on generated `.agent/` folders
// (bench/scaleGen.ts): lists lead with what matters now and say what they left out, summaries
// follow the files when other writers append, truncate or rotate them, and no tool feeds on its
// own output.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateAgentFolder, type GeneratedFolder } from '../../../bench/scaleGen';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { formatCommandFooter, formatCommandHeader, type IndexRecord } from '../../../src/core/terminal/terminalFormat';
import { terminalSummary } from '../../../src/core/terminal/terminalSummary';
import { findRipgrep } from '../../../src/core/search/findRipgrep';
import { groupDigits } from '../../../src/core/output/humanize';

async function folder(scale = 0.1): Promise<{ g: GeneratedFolder; ctx: (rg?: string) => ToolContext }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scale-')));
  const g = await generateAgentFolder(root, scale, 3);
  const ctx = (rg?: string): ToolContext => ({ folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false, ripgrep: rg });
  return { g, ctx };
}

/** Appends one finished command to terminal n the way the capture writer does (text, then index records). */
function appendCommand(agentDir: string, n: number, k: number, cmd: string, exit: number, started: Date): void {
  const txt = path.join(agentDir, 'terminals', `${n}.txt`);
  const lines = fs.readFileSync(txt, 'utf8').split('\n').length - 1;
  fs.appendFileSync(txt, `${formatCommandHeader(k, started, '/w', cmd)}\nboom\n${formatCommandFooter(k, exit, 1000, 0)}\n`);
  const base: IndexRecord = { v: 1, command: k, status: 'running', file: `${n}.txt`, commandLine: cmd, cwd: '/w', started: started.toISOString(), headerLine: lines + 1, firstLine: lines + 2, lastLine: null, exitCode: null, durationMs: null, secretsMasked: 0 };
  const idx = path.join(agentDir, 'terminals', `${n}.index.jsonl`);
  fs.appendFileSync(idx, JSON.stringify(base) + '\n');
  fs.appendFileSync(idx, JSON.stringify({ ...base, status: 'done', lastLine: lines + 2, exitCode: exit, durationMs: 1000 }) + '\n');
}

test('the terminal listing leads with open terminals, says how many it left out, and lastFailed without a terminal finds the newest failure', async () => {
  const { g, ctx } = await folder();
  const list = (await invokeTool('agentContext_terminal', {}, ctx())).text;
  const shown = [...list.matchAll(/^Terminal (\d+) "/gm)].map((m) => Number(m[1]));
  // The open terminals (the highest numbers) come first.
  assert.deepEqual(shown.slice(0, 3).sort(), [18, 19, 20]);
  assert.ok(shown.length < 20, 'twenty terminals do not fit in one result');
  const more = /^… (\d+) more terminals not shown \(([\d, …]+)\)/m.exec(list);
  assert.ok(more, list);
  assert.equal(Number(more[1]), 20 - shown.length);
  assert.match(list, /^20 captured terminals, 3 open, \d+ closed with a failed last command;/);

  let r = (await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx())).text;
  assert.match(r, new RegExp(`^Terminal ${g.lastFailure.terminal} command #${g.lastFailure.command}: `));

  // Another writer (the editor's capture) appends a newer failure to a closed terminal.
  const count = (await terminalSummary(g.agentDir, 5)).commands;
  appendCommand(g.agentDir, 5, count + 1, 'make deploy', 2, new Date());
  r = (await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx())).text;
  assert.match(r, new RegExp(`^Terminal 5 command #${count + 1}: `));
  assert.match(r, /L\d+: boom|exit 2/);
  assert.equal((await terminalSummary(g.agentDir, 5)).commands, count + 1);

  // Rotation rewrites the index under a new inode with fewer records: the summary follows.
  const idx = path.join(g.agentDir, 'terminals', '5.index.jsonl');
  const keep = fs.readFileSync(idx, 'utf8').trimEnd().split('\n').slice(-4);
  fs.writeFileSync(idx + '.tmp', keep.join('\n') + '\n');
  fs.renameSync(idx + '.tmp', idx);
  const s = await terminalSummary(g.agentDir, 5);
  assert.equal(s.commands, 2);
  assert.equal(s.lastFailed?.command, count + 1);
  // Truncated to nothing: no commands, no failure.
  fs.truncateSync(idx, 0);
  const empty = await terminalSummary(g.agentDir, 5);
  assert.equal(empty.commands, 0);
  assert.equal(empty.lastFailed, undefined);
});

for (const engine of ['ripgrep', 'built-in'] as const) {
  test(`grep (${engine}) never counts its own earlier result lists`, async (t) => {
    const rg = engine === 'ripgrep' ? findRipgrep(undefined) : undefined;
    if (engine === 'ripgrep' && !rg) return t.skip('ripgrep is not installed here');
    const { g, ctx } = await folder();
    assert.ok(g.plantedLines > 2);
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      // maxResults 1: every call overflows and writes its full list to scratch/tool_outputs/.
      const r = (await invokeTool('agentContext_grep', { pattern: g.plantedWord, caseSensitive: true, maxResults: 1 }, ctx(rg))).text;
      counts.push(Number(/^(\d+) match/.exec(r)?.[1]));
      assert.match(r, /Full list: \.agent\/scratch\/tool_outputs\/grep-[a-z0-9-]+-[0-9A-Z]{26}\.grep\.txt/);
    }
    assert.deepEqual(counts, [g.plantedLines, g.plantedLines, g.plantedLines, g.plantedLines]);
    const lists = fs.readdirSync(path.join(g.agentDir, 'scratch', 'tool_outputs')).filter((f) => f.endsWith('.grep.txt'));
    assert.equal(lists.length, 4);
  });
}

for (const engine of ['ripgrep', 'built-in'] as const) test(`glob (${engine}) from the workspace root honours nested .gitignore files, .agent/.gitignore included`, async (t) => {
  const rg = engine === 'ripgrep' ? findRipgrep(undefined) : undefined;
  if (engine === 'ripgrep' && !rg) return t.skip('ripgrep is not installed here');
  const { g, ctx: mk } = await folder();
  const ctx = () => mk(rg);
  const sub = path.join(g.root, 'pkg');
  fs.mkdirSync(path.join(sub, 'build'), { recursive: true });
  fs.writeFileSync(path.join(sub, '.gitignore'), 'build/\n*.gen.md\n!keep.gen.md\n');
  for (const f of ['a.md', 'x.gen.md', 'keep.gen.md', 'build/out.md']) fs.writeFileSync(path.join(sub, f), 'x');
  const r = (await invokeTool('agentContext_glob', { pattern: '**/*.md', maxResults: 1000 }, ctx())).text;
  assert.doesNotMatch(r, /\.agent\/scratch\//);
  assert.doesNotMatch(r, /pkg\/build\/|x\.gen\.md/);
  assert.match(r, /pkg\/a\.md/);
  assert.match(r, /pkg\/keep\.gen\.md/);
  // Everything not ignored: README, progress, notes, skills, agents' findings and pkg's two files.
  const expected = 2 + g.counts.notes + g.counts.skills + g.counts.agents + 2;
  assert.match(r, new RegExp(`^${groupDigits(expected)} files match \\*\\*/\\*\\.md in \\.`));
  // A pattern with a folder in it takes the other path (an include glob, re-checked against .gitignore).
  const inPkg = (await invokeTool('agentContext_glob', { pattern: 'pkg/**/*.md', maxResults: 1000 }, ctx())).text;
  assert.match(inPkg, /^2 files match pkg\/\*\*\/\*\.md in \./);
  assert.doesNotMatch(inPkg, /pkg\/build\/|x\.gen\.md/);
  // A name pattern with braces and a character class.
  const braces = (await invokeTool('agentContext_glob', { pattern: '[ak]*.{md,txt}', path: 'pkg', maxResults: 1000 }, ctx())).text;
  assert.match(braces, /^2 files match \[ak\]\*\.\{md,txt\} in pkg/);
  // Inside .agent/ its .gitignore is for git only: scratch is listed.
  const inAgent = (await invokeTool('agentContext_glob', { pattern: '*.md', path: '.agent/scratch' }, ctx())).text;
  assert.match(inAgent, /files match \*\.md in \.agent\/scratch/);
});

test('glob gives the same answer through ripgrep (started by the long-lived shell) and the built-in walk: same files, newest first, equal times by path', async (t) => {
  const rg = findRipgrep(undefined);
  if (!rg) return t.skip('ripgrep is not installed here');
  const { g, ctx: mk } = await folder();
  const sub = path.join(g.root, 'pkg');
  fs.mkdirSync(sub, { recursive: true });
  const same = new Date(Date.now() + 60_000);
  // Written in an order unlike the path order, all with one time: the newest, so listed first.
  for (const f of ['m.md', 'b.md', 'z.md', 'a.md']) {
    fs.writeFileSync(path.join(sub, f), 'x');
    fs.utimesSync(path.join(sub, f), same, same);
  }
  const now = new Date(same.getTime() + 1000);
  const call = (engine?: string, maxResults?: number): Promise<{ text: string }> => invokeTool('agentContext_glob', { pattern: '**/*.md', ...(maxResults ? { maxResults } : {}) }, { ...mk(engine), now: () => now });
  for (const maxResults of [undefined, 1000]) {
    const viaRg: string = (await call(rg, maxResults)).text;
    assert.equal(viaRg, (await call(undefined, maxResults)).text);
    assert.deepEqual(viaRg.split('\n').slice(1, 5).map((l) => l.split(' · ')[0]), ['pkg/a.md', 'pkg/b.md', 'pkg/m.md', 'pkg/z.md']);
  }
  // Many calls in a row and at once, as an agent's parallel tool calls: each answer whole.
  const first = (await call(rg)).text;
  const again = await Promise.all(Array.from({ length: 6 }, () => call(rg)));
  for (const r of again) assert.equal(r.text, first);
});

test('agentWorkspace list shows the most recently active agents first and counts the rest', async () => {
  const { g, ctx } = await folder();
  const now = Date.now();
  for (let i = 0; i < 60; i++) {
    const dir = path.join(g.agentDir, 'agents', `w-${String(i).padStart(2, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'findings.md'), `\n## 2026-11-29T10:00:00.000Z\n\nfinding ${i}\n`);
    // w-07 is the most recently active; the rest get older with their number.
    const t = new Date(now - (i === 7 ? 0 : (i + 1) * 60_000));
    fs.utimesSync(path.join(dir, 'findings.md'), t, t);
    fs.utimesSync(dir, t, t);
  }
  const r = (await invokeTool('agentContext_agentWorkspace', { agentId: 'w-00', action: 'list' }, ctx())).text;
  const total = 60 + g.counts.agents;
  const lines = r.split('\n');
  assert.match(lines[0], new RegExp(`^${groupDigits(total)} agents, most recently active first \\((\\d+) shown\\):`));
  assert.match(lines[1], /^w-07: no status; 1 finding \(/);
  assert.match(lines[2], /^w-00 \(you\): /);
  const shown = Number(/\((\d+) shown\)/.exec(lines[0])![1]);
  assert.match(r, new RegExp(`… ${total - shown} more not shown \\(older activity\\)`));
});
