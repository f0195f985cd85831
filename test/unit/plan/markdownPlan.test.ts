import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyMarkdownStatus, markdownChildren, parseMarkdownPlan, PLAN_MAX_BYTES, updateMarkdownPlanFile } from '../../../src/core/plan/markdownPlan';
import { planProgress, type Plan } from '../../../src/core/plan/planDocument';
import { updatePlanFile } from '../../../src/core/plan/planEdit';
import { findPlanFiles, isPlanPath, loadPlanFile } from '../../../src/core/plan/planFiles';
import { classifyAgentPath } from '../../../src/core/workspace/agentLayout';
import { planProtectedPaths } from '../../../src/core/scratch/scratchCleanup';
import { gatherBriefing } from '../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../src/core/briefing/composeBriefing';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { planTool } from '../../../src/core/tools/plan';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { repoRoot } from '../../repoRoot';

const fixtures = path.join(repoRoot, 'test/fixtures/plans');
const readBytes = (name: string) => fs.readFileSync(path.join(fixtures, name));
const parsed = (text: string, file = 'plan.md'): Plan => {
  const r = parseMarkdownPlan(text, file);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
};

/** Asserts two buffers are the same length and differ in exactly one byte, at `at`; returns [old, new]. */
function oneByteChanged(before: Buffer, after: Buffer): [number, string, string] {
  assert.equal(after.length, before.length, 'same length');
  const diffs: number[] = [];
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) diffs.push(i);
  assert.equal(diffs.length, 1, `exactly one byte differs (saw ${diffs.length})`);
  return [diffs[0], String.fromCharCode(before[diffs[0]]), String.fromCharCode(after[diffs[0]])];
}

test('checklist with CRLF, BOM, setext title, [X], tabs, nesting, fences, comments, links and other bullets', () => {
  const plan = parsed(readBytes('checklist-crlf.md').toString('utf8'), 'checklist-crlf.md');
  assert.equal(plan.format, 'markdown');
  assert.equal(plan.objective, 'Release checklist');
  assert.equal(plan.objectiveLine, 1);
  assert.deepEqual(
    plan.steps.map((s) => [s.id, s.status, s.description, s.line, s.depth, s.parentId, s.section]),
    [
      ['1', 'completed', 'Bump the version', 6, 0, undefined, 0],
      ['2', 'pending', 'Update the changelog', 7, 0, undefined, 0],
      ['3', 'completed', 'Credit contributors', 8, 1, '2', 0],
      ['4', 'pending', 'Link the migration guide', 9, 1, '2', 0],
      ['5', 'pending', 'Tag the release v2.0', 21, 0, undefined, 1],
      ['6', 'in_progress', 'Publish to the registry', 22, 0, undefined, 1],
      ['7', 'blocked', 'Announce it', 23, 0, undefined, 1],
      ['8', 'cancelled', 'Tweet', 24, 0, undefined, 1],
      ['9', 'pending', '', 25, 0, undefined, 1],
    ],
  );
  assert.deepEqual(plan.sections!.map((s) => [s.title, s.line, s.level]), [['Before', 4], ['After', 19]].map(([t, l]) => [t, l, 2]));
  assert.deepEqual(planProgress(plan), { done: 2, total: 8 }); // the cancelled item is left out of the total
  // Items sit under two headings: the view groups them; nested items hang under their item.
  assert.deepEqual(markdownChildren(plan, { kind: 'plan' }), [{ kind: 'section', index: 0 }, { kind: 'section', index: 1 }]);
  assert.deepEqual(markdownChildren(plan, { kind: 'section', index: 0 }).map((c) => c.kind === 'step' && c.step.id), ['1', '2']);
  assert.deepEqual(markdownChildren(plan, { kind: 'step', id: '2' }).map((c) => c.kind === 'step' && c.step.id), ['3', '4']);
});

test('a real Claude Code plan-mode file (no checkboxes): title, headings as groups, list items under them', () => {
  const plan = parsed(readBytes('claude-plan-mode.md').toString('utf8'), 'plans/zany-lightning.md');
  assert.equal(plan.objective, 'Plan: Add rate limiting to the public API');
  assert.equal(plan.steps.length, 0);
  const top = markdownChildren(plan, { kind: 'plan' });
  assert.deepEqual(top.map((c) => c.kind === 'section' && plan.sections![c.index].title), ['Context', 'Approach', 'Files to modify', 'Verification']);
  const approach = markdownChildren(plan, { kind: 'section', index: 1 });
  assert.equal(approach.length, 4);
  assert.deepEqual(approach[0], { kind: 'text', text: 'Add a `RateLimiter` middleware in `src/middleware/rateLimit.ts` (token bucket, 100 req/min per API key)', line: 10 });
});

test('edge cases: front matter, ATX closing hashes, tilde fences, indented code, no heading, thematic breaks', () => {
  const text = [
    '---', 'title: x', '- [ ] not an item: front matter', '---',
    '## Title ##', '',
    '~~~', '- [ ] in a tilde fence', '~~~~', '',
    '    - [ ] indented code, not in a list', '',
    '* * *',
    '- [x] real one',
    '- [ ]no space after the box: not an item',
    '- [a] unknown box: not an item',
    '> - [ ] quoted: not an item',
    '````', '```', '- [ ] still fenced (the closing fence must be as long)', '````',
    '- [ ] last',
  ].join('\n');
  const plan = parsed(text);
  assert.equal(plan.objective, 'Title');
  assert.equal(plan.objectiveLine, 5);
  assert.deepEqual(plan.steps.map((s) => [s.description, s.line]), [['real one', 14], ['last', 22]]);
  // All items under the title alone: a flat list, no groups.
  assert.deepEqual(markdownChildren(plan, { kind: 'plan' }).map((c) => c.kind), ['step', 'step']);
  assert.equal(parsed('just text, no heading\n', 'plans/notes.md').objective, 'notes');
  assert.deepEqual(parsed('').steps, []);
});

test('setStatus changes exactly the box character; [X] stays; ids by number or text', () => {
  const text = readBytes('checklist-crlf.md').toString('utf8');
  const set = (id: string, status: Parameters<typeof applyMarkdownStatus>[2]) => {
    const r = applyMarkdownStatus(text, id, status, 'c.md');
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    return r.value;
  };
  const done = set('2', 'completed');
  assert.equal(done, text.replace('- [ ] Update the changelog', '- [x] Update the changelog'));
  assert.equal(set('update the CHANGELOG', 'completed'), done, 'exact text, case-insensitive');
  assert.equal(set('Update the', 'completed'), done, 'unique prefix');
  assert.equal(set('3', 'completed'), text, '[X] is already completed: nothing changes');
  assert.equal(set('3', 'pending'), text.replace('[X] Credit', '[ ] Credit'));
  assert.equal(set('5', 'in_progress'), text.replace('* [ ] Tag', '* [/] Tag'));
  assert.equal(set('5', 'blocked'), text.replace('* [ ] Tag', '* [!] Tag'));
  assert.equal(set('5', 'cancelled'), text.replace('* [ ] Tag', '* [-] Tag'));
  const missing = applyMarkdownStatus(text, '42', 'completed', 'c.md');
  assert.ok(!missing.ok);
  assert.match(missing.error.message, /no checklist item 42; items are numbered 1 to 9/);
  const ambiguous = applyMarkdownStatus(text, 'T', 'completed', 'c.md');
  assert.ok(!ambiguous.ok);
  assert.match(ambiguous.error.message, /matches items 5, 8; give the item number/);
  const bad = applyMarkdownStatus(text, '1', 'done' as never, 'c.md');
  assert.ok(!bad.ok);
  const none = applyMarkdownStatus('# Plan\n\n1. step one\n', '1', 'completed', 'p.md');
  assert.ok(!none.ok);
  assert.match(none.error.message, /has no checklist items/);
});

async function tmpAgent(): Promise<string> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-mdplan-'));
  fs.mkdirSync(path.join(ws, '.agent', 'plans'), { recursive: true });
  return path.join(ws, '.agent');
}

test('the file on disk: one byte changes (UTF-8 and BOM untouched), atomic, refused when it changed since read', async () => {
  const agent = await tmpAgent();
  const file = path.join(agent, 'plans', 'release.md');
  const original = Buffer.concat([readBytes('checklist-crlf.md'), Buffer.from('- [ ] Übersetzung prüfen — ✓ 日本語\r\n', 'utf8')]);
  fs.writeFileSync(file, original);
  const loaded = await loadPlanFile(file, '.agent/plans/release.md');
  assert.ok(loaded.ok);
  const r = await updatePlanFile(file, { kind: 'setStatus', stepId: '10', status: 'completed' }, loaded.value.version);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  assert.equal(r.value.plan.steps[9].status, 'completed');
  const after = fs.readFileSync(file);
  const [, from, to] = oneByteChanged(original, after);
  assert.deepEqual([from, to], [' ', 'x']);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['release.md'], 'no temp file left');
  // Stale version (what the view had shown): refused, nothing written.
  fs.appendFileSync(file, '- [ ] added by the agent\r\n');
  const edited = fs.readFileSync(file);
  const stale = await updatePlanFile(file, { kind: 'setStatus', stepId: '2', status: 'completed' }, loaded.value.version);
  assert.ok(!stale.ok);
  assert.match(stale.error.message, /changed on disk since it was read; nothing was written/);
  assert.ok(fs.readFileSync(file).equals(edited));
  // Notes and new steps are not Markdown edits.
  const notes = await updatePlanFile(file, { kind: 'setNotes', stepId: '2', notes: 'x' });
  assert.ok(!notes.ok);
  assert.match(notes.error.message, /Markdown plans take setStatus only/);
});

test('binary, invalid UTF-8, huge and symlinked files are refused with the reason; nothing is written', async () => {
  const agent = await tmpAgent();
  const bin = path.join(agent, 'plan.md');
  fs.writeFileSync(bin, Buffer.from([0x2d, 0x20, 0x5b, 0x20, 0x5d, 0x20, 0x61, 0x0a, 0x00, 0x01]));
  const b = await loadPlanFile(bin, '.agent/plan.md');
  assert.ok(!b.ok);
  assert.match(b.error.message, /not a text file/);
  assert.equal(b.error.line, 2);
  const w = await updateMarkdownPlanFile(bin, '1', 'completed');
  assert.ok(!w.ok);
  fs.writeFileSync(bin, Buffer.from('- [ ] caf\xe9\n', 'latin1'));
  const latin = await loadPlanFile(bin, '.agent/plan.md');
  assert.ok(!latin.ok);
  assert.match(latin.error.message, /not valid UTF-8/);
  assert.ok(!(await updatePlanFile(bin, { kind: 'setStatus', stepId: '1', status: 'completed' })).ok);
  assert.ok(fs.readFileSync(bin).equals(Buffer.from('- [ ] caf\xe9\n', 'latin1')));
  const huge = path.join(agent, 'plans', 'huge.md');
  fs.writeFileSync(huge, '# Huge\n' + '- [ ] item\n'.repeat(Math.ceil(PLAN_MAX_BYTES / 11) + 10));
  const h = await loadPlanFile(huge, '.agent/plans/huge.md');
  assert.ok(!h.ok);
  assert.match(h.error.message, /plans over 1 MB are not read/);
  const link = path.join(agent, 'plans', 'link.md');
  fs.writeFileSync(path.join(agent, 'elsewhere.md'), '- [ ] a\n');
  fs.symlinkSync(path.join(agent, 'elsewhere.md'), link);
  const s = await updatePlanFile(link, { kind: 'setStatus', stepId: '1', status: 'completed' });
  assert.ok(!s.ok);
  assert.match(s.error.message, /symbolic link/);
});

test('plan.md and plans/*.md are plan files (next to plan.yaml); scratch/plans/*.md is not', async () => {
  const agent = await tmpAgent();
  for (const f of ['plan.yaml', 'plan.md', 'plans/a.md', 'plans/b.yaml', 'scratch/plans/c.md', 'README.md']) {
    fs.mkdirSync(path.dirname(path.join(agent, f)), { recursive: true });
    fs.writeFileSync(path.join(agent, f), f.endsWith('.md') ? '# x\n' : 'objective: x\n');
  }
  assert.deepEqual((await findPlanFiles(agent)).map((f) => path.relative(agent, f)), ['plan.yaml', 'plan.md', 'plans/a.md', 'plans/b.yaml']);
  assert.ok(isPlanPath(agent, path.join(agent, 'plan.md')));
  assert.ok(isPlanPath(agent, path.join(agent, 'plans/new.md')));
  assert.ok(!isPlanPath(agent, path.join(agent, 'scratch/plans/c.md')));
  assert.ok(!isPlanPath(agent, path.join(agent, 'README.md')));
  // File events on them refresh the Plan view (the watcher routes them to the "plan" area).
  const root = path.dirname(agent);
  assert.deepEqual(classifyAgentPath(root, path.join(agent, 'plans', 'zany-lightning.md'), isPlanPath), ['plan']);
  assert.deepEqual(classifyAgentPath(root, path.join(agent, 'plan.md'), isPlanPath), ['plan']);
  // Cleanup keeps them, and a Markdown plan it cannot parse does not block cleanup (it lists no evidence).
  fs.writeFileSync(path.join(agent, 'plans', 'a.md'), Buffer.from([0x23, 0x00]));
  const kept = await planProtectedPaths(root);
  assert.ok(kept.ok, kept.ok ? '' : kept.error.message);
  assert.ok(kept.value.includes(path.join(agent, 'plans', 'a.md')));
});

function ctxFor(root: string): ToolContext {
  return { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
}

test('agentContext_plan reads a Markdown plan and sets an item by number or text; the briefing names the first unchecked item', async () => {
  const agent = await tmpAgent();
  const root = path.dirname(agent);
  const file = path.join(agent, 'plans', 'release.md');
  const original = readBytes('checklist-crlf.md');
  fs.writeFileSync(file, original);
  fs.writeFileSync(path.join(agent, 'plans', 'zany-lightning.md'), readBytes('claude-plan-mode.md'));
  const ctx = ctxFor(root);
  fs.utimesSync(file, new Date('2026-01-02'), new Date('2026-01-02'));
  let r = await invokeTool('agentContext_plan', {}, ctx);
  // Newest first, each with its title and progress.
  assert.match(r.text, /^Several plans; pass plan to choose one:\n- \.agent\/plans\/zany-lightning\.md: Plan: Add rate limiting to the public API \(no checklist\)\n- \.agent\/plans\/release\.md: Release checklist \(2\/8 done\)$/);
  r = await invokeTool('agentContext_plan', { plan: 'release' }, ctx);
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /^Plan \.agent\/plans\/release\.md \(Markdown checklist\): Release checklist\n2\/8 done\n\[1\] completed: Bump the version\n\[2\] pending: Update the changelog\n {2}\[3\] completed: Credit contributors\n/);
  assert.match(r.text, /\[7\] blocked: Announce it/);
  r = await invokeTool('agentContext_plan', { plan: 'zany-lightning.md' }, ctx);
  assert.match(r.text, /\(Markdown, no checklist\): Plan: Add rate limiting to the public API\nSections: Context \(line 3\); Approach \(line 8\)/);
  r = await invokeTool('agentContext_plan', { plan: '.agent/plans/release.md', action: 'setStatus', stepId: '2', status: 'completed' }, ctx);
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /^Updated\.\n.*\n3\/8 done/);
  assert.deepEqual(oneByteChanged(original, fs.readFileSync(file)).slice(1), [' ', 'x']);
  // A number as models send it (the schema check in invokeTool is the transports' business).
  r = await planTool({ plan: 'release', action: 'setStatus', stepId: 7, status: 'pending' }, ctx);
  assert.match(r.text, /\[7\] pending: Announce it/);
  r = await planTool({ plan: 'release', action: 'setStatus', stepId: 7, status: 'blocked' }, ctx);
  assert.match(r.text, /\[7\] blocked: Announce it/);
  r = await invokeTool('agentContext_plan', { plan: 'release', action: 'setStatus', stepId: 'Update the changelog', status: 'completed' }, ctx);
  assert.match(r.text, /^No change: step Update the changelog is already completed\./);
  r = await invokeTool('agentContext_plan', { plan: 'release', action: 'addStep', description: 'x' }, ctx);
  assert.ok(r.isError);
  assert.match(r.text, /Markdown plans take setStatus only/);

  const b = composeBriefing(await gatherBriefing(agent)).text;
  assert.match(b, /Plan \.agent\/plans\/release\.md: 3\/8 done — Release checklist\n {2}Now: step 6 \[in_progress\] Publish to the registry \(\.agent\/plans\/release\.md:22\)/);
  // With nothing in progress, "Now" is the first unchecked item.
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('1. [/] Publish', '1. [x] Publish'));
  const b2 = composeBriefing(await gatherBriefing(agent)).text;
  assert.match(b2, /Now: step 4 \[pending\] Link the migration guide \(\.agent\/plans\/release\.md:9\)/);
  assert.match(b2, /Plan \.agent\/plans\/zany-lightning\.md \(Markdown, no checklist\): Plan: Add rate limiting/);
  // Outline-only plans go after the plans with steps, newest first.
  fs.writeFileSync(path.join(agent, 'plans', 'aaa-older.md'), '# Older plan\n\n## Context\n');
  fs.utimesSync(path.join(agent, 'plans', 'aaa-older.md'), new Date('2026-01-01'), new Date('2026-01-01'));
  const order = [...composeBriefing(await gatherBriefing(agent)).text.matchAll(/^Plan (\S+?):? /gm)].map((m) => m[1]);
  assert.deepEqual(order, ['.agent/plans/release.md', '.agent/plans/zany-lightning.md', '.agent/plans/aaa-older.md']);
});

test('agentContext_plan without a plan named reads the current plan and lists the others (title, progress, path), newest first, the rest counted', async () => {
  const agent = await tmpAgent();
  const root = path.dirname(agent);
  fs.writeFileSync(path.join(agent, 'plan.yaml'), 'objective: Ship the parser\nsteps:\n  - id: "1"\n    description: Write it\n    status: in_progress\n');
  fs.mkdirSync(path.join(agent, 'plans'), { recursive: true });
  fs.writeFileSync(path.join(agent, 'plans', 'refactor-auth.md'), '# Refactor auth\n\n- [x] Split the module\n- [ ] Move the tokens\n- [ ] Delete the old path\n');
  fs.writeFileSync(path.join(agent, 'plans', 'broken.yaml'), 'objective: [unclosed\n');
  fs.utimesSync(path.join(agent, 'plans', 'broken.yaml'), new Date('2026-01-01'), new Date('2026-01-01'));
  const ctx = ctxFor(root);
  let r = await invokeTool('agentContext_plan', {}, ctx);
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /^Plan \.agent\/plan\.yaml: Ship the parser\n0\/1 done\n\[1\] in_progress: Write it\n\nOther plans \(pass plan to read one\):\n- \.agent\/plans\/refactor-auth\.md: Refactor auth \(1\/3 done\)\n- \.agent\/plans\/broken\.yaml: cannot be read \(/);
  // Another process marks a step and repairs the broken plan (the same byte size: only the stat's times
  // tell): the list shows both as they are now, not as they were last listed.
  fs.writeFileSync(path.join(agent, 'plans', 'refactor-auth.md'), '# Refactor auth\n\n- [x] Split the module\n- [x] Move the tokens\n- [ ] Delete the old path\n');
  fs.writeFileSync(path.join(agent, 'plans', 'broken.yaml'), 'objective: "unclosed"\n');
  fs.utimesSync(path.join(agent, 'plans', 'broken.yaml'), new Date('2026-01-02'), new Date('2026-01-02'));
  r = await invokeTool('agentContext_plan', {}, ctx);
  assert.match(r.text, /\n- \.agent\/plans\/refactor-auth\.md: Refactor auth \(2\/3 done\)\n- \.agent\/plans\/broken\.yaml: unclosed$/, r.text);
  // Naming a plan reads that one alone.
  r = await invokeTool('agentContext_plan', { plan: 'refactor-auth' }, ctx);
  assert.doesNotMatch(r.text, /Other plans/);
  // A thousand-plan folder: eight named, the rest counted, the answer stays small.
  for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(agent, 'plans', `p${String(i).padStart(2, '0')}.md`), `# Plan ${i}\n\n- [ ] a\n`);
  r = await invokeTool('agentContext_plan', {}, ctx);
  assert.equal([...r.text.matchAll(/^- \.agent\/plans\//gm)].length, 8, r.text);
  assert.match(r.text, /^- … and 34 more in \.agent\/plans$/m);
});
