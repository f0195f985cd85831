// The sidebar as a new user first sees it, in the walkthrough run's fresh profile (default view sizes
// and collapsed states): opening the collapsed Memory & Agents view and closing it again leaves the
// Plan showing every row it showed, and doing it again changes nothing. (With Memory and Agents as two
// views, opening both and closing them cut the Plan to its minimum for good: VS Code gives the room a
// closed view frees to the lowest open view, Terminals.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { paneSelector, waitForRow } from '../agentViewsHelpers';

const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const planFile = () => path.join(root(), '.agent/plan.yaml');
// The demo's shape: an objective and five steps, six rows.
const PLAN = `objective: "Add rate limiting to the public API"
status: in_progress
steps:
${['Find every public endpoint', 'Choose a limiter', 'Implement the middleware', 'Make the build pass', 'Load-test with 1,000 clients'].map((d, i) => `  - id: ${i + 1}\n    description: "${d}"\n    status: ${i < 2 ? 'completed' : 'pending'}`).join('\n')}
`;
const MEMORY_AGENTS = 'Memory & Agents';

interface Layout {
  /** The Plan pane's height in px. */
  plan: number;
  /** Plan rows drawn below the pane's bottom edge or not drawn at all. */
  cut: number;
  /** The Plan's rows in all. */
  rows: number;
}

/** The Plan pane's height and how many of its rows the user cannot see. */
function planLayout(): Promise<Layout> {
  return ui.evaluate<Layout>(`(() => {
    const plan = [...document.querySelectorAll('.part.sidebar .split-view-view')].find((v) => v.querySelector('.pane-header h3.title')?.textContent === 'Plan');
    if (!plan) return { plan: 0, cut: 0, rows: 0 };
    const box = plan.getBoundingClientRect();
    const drawn = [...plan.querySelectorAll('.monaco-list-row')];
    const rows = Number(plan.querySelector('.monaco-list')?.getAttribute('aria-rowcount') ?? drawn.length);
    const below = drawn.filter((r) => r.getBoundingClientRect().bottom > box.bottom + 1).length;
    return { plan: Math.round(box.height), cut: below + Math.max(0, rows - drawn.length), rows };
  })()`);
}

/** Clicks the Memory & Agents header and waits until it is `expanded` and the layout has settled. */
async function toggleMemoryAgents(expanded: boolean): Promise<Layout> {
  const header = `${paneSelector(MEMORY_AGENTS)} .pane-header`;
  await ui.click(header);
  await waitFor(async () => (await ui.attribute(header, 'aria-expanded')) === String(expanded), { message: `${MEMORY_AGENTS} is ${expanded ? 'expanded' : 'collapsed'}` });
  let last = await planLayout();
  return waitFor(async () => {
    const now = await planLayout();
    const same = now.plan === last.plan && now.cut === last.cut;
    last = now;
    return same ? now : undefined;
  }, { interval: 300, message: 'the sidebar layout settles' });
}

describe('walkthrough run: the sidebar at the default size', () => {
  let wrotePlan = false;
  before(() => {
    if (!fs.existsSync(planFile())) {
      fs.writeFileSync(planFile(), PLAN);
      wrotePlan = true;
    }
  });
  after(() => {
    if (wrotePlan) fs.rmSync(planFile(), { force: true });
  });

  it('opening and closing Memory & Agents leaves the Plan with every row it showed, and again changes nothing', async function () {
    this.timeout(90_000);
    await waitForRow('Plan', 'Load-test with 1,000 clients', 30_000);
    const header = `${paneSelector(MEMORY_AGENTS)} .pane-header`;
    if ((await ui.attribute(header, 'aria-expanded')) === 'true') await toggleMemoryAgents(false);
    const before = await planLayout();
    assert.equal(before.rows, 6, `the Plan lists the objective and five steps: ${JSON.stringify(before)}`);
    assert.equal(before.cut, 0, `the Plan shows all its rows at first: ${JSON.stringify(before)}`);
    await toggleMemoryAgents(true);
    const once = await toggleMemoryAgents(false);
    assert.equal(once.cut, 0, `after ${MEMORY_AGENTS} was opened and closed the Plan still shows all its rows (${JSON.stringify(before)} → ${JSON.stringify(once)})`);
    await toggleMemoryAgents(true);
    const twice = await toggleMemoryAgents(false);
    assert.deepEqual(twice, once, 'a second open and close leaves the Plan as the first did');
  });
});
