import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { flatten, invoke, paneRows, paneSelector, SnapshotNode, waitForTree, wsRoot } from '../agentViewsHelpers';

// A checklist the way agents keep one (CRLF, as on Windows), and a plan in the shape Claude Code's
// plan mode writes (title, sections, numbered steps, no checkboxes) under a random slug.
const CHECKLIST = [
  '# Ship the rate limiter',
  '',
  '## Build',
  '',
  '- [x] Write the middleware',
  '- [ ] Register it for /api/public',
  '  - [ ] Add the Retry-After header',
  '',
  '```md',
  '- [ ] not an item: inside a fence',
  '```',
  '',
  '## Release',
  '',
  '1. [ ] Tag v2.0 ([notes](docs/release.md))',
  '',
].join('\r\n');
const CLAUDE_PLAN = `# Plan: Cache the user lookups

## Context

Every request reads the user row twice.

## Approach

1. Add an LRU cache in \`src/users/cache.ts\`
2. Invalidate it on profile updates

## Verification

- \`npm test\` passes
`;

const plansDir = () => path.join(wsRoot(), '.agent', 'plans');
const checklistFile = () => path.join(plansDir(), 'release-checklist.md');
const claudeFile = () => path.join(plansDir(), 'zany-lightning-otter.md');
const mdPlan = (nodes: SnapshotNode[], title: string) => nodes.find((n) => n.contextValue === 'planFile' && n.label === title);

/**
 * Scrolls the Plan view until a row containing `text` is rendered (the tree renders only the rows
 * in view, and the Markdown plans come after plan.yaml's steps), the way a user would scroll.
 */
async function showRow(text: string): Promise<string[]> {
  await ui.openViewContainer('Agent Context');
  const list = `${paneSelector('Plan')} .monaco-list`;
  await ui.press('Home', { selector: list }).catch(() => undefined);
  let presses = 0;
  return waitFor(async () => {
    const rows = await paneRows('Plan');
    if (rows.some((r) => r.includes(text))) return rows;
    // Down one row at a time: the list keeps the focused row in view.
    await ui.press(presses++ < 40 ? 'ArrowDown' : 'Home', { selector: list });
    if (presses > 40) presses = 0;
    return undefined;
  }, { timeout: 20_000, message: `the Plan view shows a row with "${text}"` });
}

describe('Markdown plans in the Plan view', () => {
  let createdDir = false;
  before(() => {
    createdDir = !fs.existsSync(plansDir());
    fs.mkdirSync(plansDir(), { recursive: true });
    fs.writeFileSync(checklistFile(), CHECKLIST);
  });
  after(async () => {
    fs.rmSync(checklistFile(), { force: true });
    fs.rmSync(claudeFile(), { force: true });
    if (createdDir) fs.rmSync(plansDir(), { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await ui.press('Escape');
  });

  it('shows .agent/plans/*.md: the title, its headings as groups and each checklist item with its status icon', async () => {
    const plan = await waitForTree('agentContext.plan', (n) => mdPlan(n, 'Ship the rate limiter'), 'the Markdown plan is listed');
    assert.equal(plan.description, '1/4 done · .agent/plans/release-checklist.md');
    assert.equal(plan.icon, 'markdown');
    assert.deepEqual(plan.children.map((c) => [c.label, c.contextValue]), [['Build', 'planSection'], ['Release', 'planSection']]);
    const rows = flatten(plan.children).filter((n) => n.contextValue?.startsWith('planStep.'));
    assert.deepEqual(
      rows.map((s) => [s.label, /^Item \S+ · ([a-z ]+) · /m.exec(s.tooltip ?? '')?.[1], s.icon, s.contextValue]),
      [
        ['Write the middleware', 'completed', 'pass-filled', 'planStep.completed.markdown'],
        ['Register it for /api/public', 'pending', 'circle-large-outline', 'planStep.pending.markdown'],
        ['Add the Retry-After header', 'pending', 'circle-large-outline', 'planStep.pending.markdown'],
        ['Tag v2.0 (notes)', 'pending', 'circle-large-outline', 'planStep.pending.markdown'],
      ],
    );
    // The nested item hangs under its parent item; the fenced line is not an item.
    assert.deepEqual(plan.children[0].children[1].children.map((c) => c.label), ['Add the Retry-After header']);
    assert.ok(!flatten([plan]).some((n) => n.label.includes('inside a fence')));
    // The YAML plan next to it is still shown.
    await waitForTree('agentContext.plan', (n) => n.find((x) => x.label === 'Add rate limiting to the public API'), 'plan.yaml still shown');
    await showRow('Register it for /api/public');
  });

  it('toggles an item from its context menu: exactly one byte of the file changes', async () => {
    const before = fs.readFileSync(checklistFile());
    await showRow('Register it for /api/public');
    await ui.contextMenu(`${paneSelector('Plan')} .monaco-list-row:has-text("Register it for /api/public")`, 'Toggle Checkbox');
    const after = await waitFor(() => {
      const b = fs.readFileSync(checklistFile());
      return b.equals(before) ? undefined : b;
    }, { timeout: 20_000, message: 'the checklist file changed' });
    assert.equal(after.length, before.length);
    const diffs = [...before.keys()].filter((i) => before[i] !== after[i]);
    assert.equal(diffs.length, 1, `one byte differs, saw ${diffs.length}`);
    assert.equal(after.toString('utf8'), CHECKLIST.replace('- [ ] Register it', '- [x] Register it'));
    await waitForTree('agentContext.plan', (n) => mdPlan(n, 'Ship the rate limiter')?.description?.startsWith('2/4 done'), 'progress shows 2/4 done');
    await waitForTree('agentContext.plan', (n) => flatten(n).find((x) => x.label === 'Register it for /api/public' && x.icon === 'pass-filled'), 'the row shows the item completed (its icon)');
  });

  it('agentContext_plan reads the checklist and the briefing names the first unchecked item', async () => {
    const got = await invoke('agentContext_plan', { plan: 'release-checklist' });
    assert.match(got, /^Plan \.agent\/plans\/release-checklist\.md \(Markdown checklist\): Ship the rate limiter\n2\/4 done\n\[1\] completed: Write the middleware\n\[2\] completed: Register it for \/api\/public\n {2}\[3\] pending: Add the Retry-After header/);
    const brief = await invoke('agentContext_briefing', {});
    assert.match(brief, /Plan \.agent\/plans\/release-checklist\.md: 2\/4 done — Ship the rate limiter\n {2}Now: step 3 \[pending\] Add the Retry-After header \(\.agent\/plans\/release-checklist\.md:7\)/);
  });

  it('shows a Claude Code plan without checkboxes as its headings, the steps under them', async () => {
    fs.writeFileSync(claudeFile(), CLAUDE_PLAN);
    const plan = await waitForTree('agentContext.plan', (n) => mdPlan(n, 'Plan: Cache the user lookups'), 'the Claude Code plan is listed');
    assert.equal(plan.description, 'no checklist · .agent/plans/zany-lightning-otter.md');
    assert.deepEqual(plan.children.map((c) => c.label), ['Context', 'Approach', 'Verification']);
    assert.deepEqual(plan.children[1].children.map((c) => [c.label, c.contextValue]), [
      ['Add an LRU cache in `src/users/cache.ts`', 'planText'],
      ['Invalidate it on profile updates', 'planText'],
    ]);
    await showRow('Plan: Cache the user lookups');
  });

  it('shows opencode\'s own plan (.opencode/plans/, written after the view is up) read-only: no menu edits it', async () => {
    const dir = path.join(wsRoot(), '.opencode', 'plans');
    const file = path.join(dir, '1764633600000-rate-limiting.md');
    const created = !fs.existsSync(path.join(wsRoot(), '.opencode'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, '# Limit the public API\n\n- [ ] Add a token bucket\n- [x] Measure the load\n');
    try {
      const plan = await waitForTree('agentContext.plan', (n) => mdPlan(n, 'Limit the public API'), 'opencode\'s plan is listed');
      assert.equal(plan.description, '1/2 done · opencode · read-only · .opencode/plans/1764633600000-rate-limiting.md');
      assert.deepEqual(flatten(plan.children).map((s) => [s.label, s.contextValue]), [
        ['Add a token bucket', 'planStepReadOnly.pending'],
        ['Measure the load', 'planStepReadOnly.completed'],
      ]);
    } finally {
      fs.rmSync(created ? path.join(wsRoot(), '.opencode') : file, { recursive: true, force: true });
    }
  });
});
