import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, flatten, paneSelector, paneRows, SnapshotNode, waitForRow, waitForTree, wsRoot } from '../agentViewsHelpers';

const planFile = () => path.join(wsRoot(), '.agent/plan.yaml');
/** A step's status in words, from its tooltip ("Step 2 · in progress · .agent/plan.yaml:9"): the row itself shows it by the icon only. */
const statusOf = (n: SnapshotNode) => /^(?:Step|Item) \S+ · ([a-z ]+) · /m.exec(n.tooltip ?? '')?.[1];
/** The plan-file nodes (other features add nodes such as Recent progress after them). */
const planNodes = (n: SnapshotNode[]) => n.filter((x) => ['planFile', 'planError', 'planEmpty'].includes(x.contextValue ?? ''));

describe('Plan view', () => {
  let original = '';
  before(async () => {
    await agentApi();
    original = fs.readFileSync(planFile(), 'utf8');
  });
  afterEach(async () => {
    if (fs.readFileSync(planFile(), 'utf8') !== original) fs.writeFileSync(planFile(), original);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await ui.press('Escape');
  });

  it('shows the objective, status, progress and each step with its status', async () => {
    const [top] = await waitForTree('agentContext.plan', (n) => (n[0]?.label === 'Add rate limiting to the public API' ? n : undefined), 'plan objective shown');
    assert.equal(top.description, 'in progress · 1/4 done');
    assert.deepEqual(
      top.children.map((s) => [s.label, statusOf(s), s.icon, s.contextValue]),
      [
        ['Find every public endpoint', 'completed', 'pass-filled', 'planStep.completed'],
        ['Choose a limiter (token bucket vs sliding window)', 'in progress', 'sync', 'planStep.in_progress'],
        ['Implement the middleware', 'pending', 'circle-large-outline', 'planStep.pending'],
        ['Load-test with 1,000 clients', 'pending', 'circle-large-outline', 'planStep.pending'],
      ],
    );
    assert.match(top.children[1].tooltip ?? '', /Token bucket is simpler\./);
    // The row does not repeat the status the icon shows (a note's ✎ may be there); the tooltip starts with the full description.
    assert.ok(top.children.every((s) => !/pending|completed|in progress|blocked|cancelled/.test(s.description ?? '')), top.children.map((s) => s.description).join(' | '));
    assert.match(top.children[1].tooltip ?? '', /^Choose a limiter \(token bucket vs sliding window\)\n\nStep \S+ · in progress · \.agent\/plan\.yaml:\d+/);
    const rows = await waitForRow('Plan', 'Implement the middleware');
    assert.ok(rows.some((r) => r.includes('Add rate limiting to the public API') && r.includes('1/4 done')), rows.join(' | '));
    // The row's description is cut at the sidebar's default width: the view's header says it too.
    await waitFor(async () => /in progress · 1\/4 done/.test(await ui.text(`${paneSelector('Plan')} .pane-header`)), { timeout: 20_000, message: 'the Plan header shows "in progress · 1/4 done"' });
  });

  it('marks a step completed from its context menu and keeps every other byte', async () => {
    await waitForRow('Plan', 'Implement the middleware');
    await ui.contextMenu(`${paneSelector('Plan')} .monaco-list-row:has-text("Implement the middleware")`, 'Mark Completed');
    const expected = original.replace('    description: "Implement the middleware"\n    status: pending', '    description: "Implement the middleware"\n    status: completed');
    assert.notEqual(expected, original);
    await waitFor(() => fs.readFileSync(planFile(), 'utf8') === expected, { timeout: 20_000, message: 'plan.yaml has step 3 completed and is otherwise byte-identical' });
    await waitForTree('agentContext.plan', (n) => n[0]?.description === 'in progress · 2/4 done', 'progress shows 2/4 done');
    await waitFor(async () => (await paneRows('Plan')).some((r) => r.includes('2/4 done')), { timeout: 20_000, message: 'the Plan view row shows 2/4 done' });
    await waitFor(async () => /in progress · 2\/4 done/.test(await ui.text(`${paneSelector('Plan')} .pane-header`)), { timeout: 20_000, message: 'the Plan header shows 2/4 done' });
  });

  it('shows an edit made on disk promptly', async () => {
    fs.writeFileSync(planFile(), original.replace('    description: "Load-test with 1,000 clients"\n    status: pending', '    description: "Load-test with 1,000 clients"\n    status: blocked'));
    await waitForTree('agentContext.plan', (n) => n[0]?.children.find((s) => s.label === 'Load-test with 1,000 clients' && statusOf(s) === 'blocked'), 'step 4 shows blocked');
    // The rendered row says it by its icon, and to a screen reader by its label.
    await waitForRow('Plan', 'Load-test with 1,000 clients');
    await waitFor(async () => /blocked/.test((await ui.attribute(`${paneSelector('Plan')} .monaco-list-row:has-text("Load-test with 1,000 clients")`, 'aria-label')) ?? ''), {
      timeout: 20_000,
      message: 'the Plan view row of step 4 reads "blocked" to a screen reader',
    });
  });

  it('shows one error node naming file, line and problem for invalid YAML, and rewrites nothing', async () => {
    const broken = 'objective: "x"\nsteps:\n  - id: 1\n    description: ok\n  - id: 2\n   description: bad indent\n    status: pending\n';
    fs.writeFileSync(planFile(), broken);
    const nodes = await waitForTree('agentContext.plan', (n) => (planNodes(n).length === 1 && n[0].contextValue === 'planError' ? planNodes(n) : undefined), 'one error node');
    assert.match(nodes[0].label, /^\.agent\/plan\.yaml line 6: invalid YAML/);
    await waitFor(async () => (await paneRows('Plan')).some((r) => r.includes('.agent/plan.yaml line 6')), { timeout: 20_000, message: 'the error row is visible' });
    assert.equal(fs.readFileSync(planFile(), 'utf8'), broken);
    fs.writeFileSync(planFile(), '- id: 1\n  description: a list, not a plan\n');
    const list = await waitForTree('agentContext.plan', (n) => (n[0]?.label.includes('is a list') ? planNodes(n) : undefined), 'list error shown');
    assert.equal(list.length, 1);
    assert.match(list[0].label, /^\.agent\/plan\.yaml line 1: the plan is a list/);
  });

  it('opens the plan at the step line when a step is clicked', async () => {
    const nodes = await waitForTree('agentContext.plan', (n) => (n[0]?.children.length === 4 ? n : undefined), 'four steps');
    assert.equal(flatten(planNodes(nodes)).filter((n) => n.command === 'vscode.open').length, 5);
    await waitForRow('Plan', 'Load-test with 1,000 clients');
    await ui.click(`${paneSelector('Plan')} .monaco-list-row:has-text("Load-test with 1,000 clients")`);
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath === planFile() ? vscode.window.activeTextEditor : undefined), {
      timeout: 20_000,
      message: 'plan.yaml opened',
    });
    const line = original.split('\n').findIndex((l) => l.includes('id: 4'));
    assert.equal(editor.selection.active.line, line);
  });
});
