import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, paneSelector, waitForRow, waitForTree, wsRoot } from '../agentViewsHelpers';

const HIDDEN_UNTIL_AGENT = ['Scratch', 'Skills', 'Terminals', 'Memory & Agents'];

/**
 * Makes `dest` hold exactly what `src` holds without removing and re-creating any folder both have:
 * entries missing from `src` are removed, files copied over, missing folders created.
 */
function restoreInPlace(src: string, dest: string): void {
  fs.mkdirSync(dest, { recursive: true });
  const kind = (e: fs.Dirent) => (e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'dir' : 'file');
  const want = new Map(fs.readdirSync(src, { withFileTypes: true }).map((e) => [e.name, e]));
  for (const e of fs.readdirSync(dest, { withFileTypes: true })) {
    const w = want.get(e.name);
    if (!w || kind(w) !== kind(e) || kind(e) === 'link') fs.rmSync(path.join(dest, e.name), { recursive: true, force: true });
  }
  for (const [name, e] of want) {
    const from = path.join(src, name);
    const to = path.join(dest, name);
    if (kind(e) === 'dir') restoreInPlace(from, to);
    else if (kind(e) === 'link') fs.symlinkSync(fs.readlinkSync(from), to);
    else fs.copyFileSync(from, to);
  }
}

describe('Initialize and the welcome view', () => {
  const backup = path.join(os.tmpdir(), `ac-it-agent-backup-${process.pid}`);
  before(async () => {
    await agentApi();
    fs.cpSync(path.join(wsRoot(), '.agent'), backup, { recursive: true });
  });
  after(async () => {
    // Leave the workspace as we found it for the suites that follow, and the editor still watching
    // it: restored in place, never by removing `.agent/` and copying it back in one go. Removed and
    // re-created within the same moment, the folder could be left unwatched by the editor's file
    // watcher (its children reported deleted, then nothing from the restored scratch/, terminals/,
    // history/ for the rest of the run: the Scratch view tests failed one suite later).
    restoreInPlace(backup, path.join(wsRoot(), '.agent'));
    fs.rmSync(backup, { recursive: true, force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitForTree('agentContext.plan', (n) => n[0]?.label === 'Add rate limiting to the public API', 'fixture plan back');
    // The later suites rely on file events from .agent/scratch/: a file written there must reach the
    // Scratch view through the watcher alone (no Refresh), here rather than five tests later.
    const probe = path.join(wsRoot(), '.agent/scratch/initialize-watch-probe.txt');
    fs.writeFileSync(probe, 'probe');
    try {
      await waitForTree('agentContext.scratch', (n) => n.some((x) => x.label === 'initialize-watch-probe.txt'), 'after restoring .agent/, the Scratch view follows a new file (the editor still watches .agent/scratch/)');
    } finally {
      fs.rmSync(probe, { force: true });
    }
    await waitForTree('agentContext.scratch', (n) => !n.some((x) => x.label === 'initialize-watch-probe.txt'), 'the probe file leaves the Scratch view');
  });

  it('deleting .agent/ shows the welcome view, and its Initialize button creates the layout', async () => {
    await waitForRow('Plan', 'Add rate limiting to the public API');
    fs.rmSync(path.join(wsRoot(), '.agent'), { recursive: true });
    const welcome = `${paneSelector('Plan')} .welcome-view-content`;
    await ui.waitForSelector(welcome, { timeout: 20_000 });
    assert.match(await ui.text(welcome), /This folder has no \.agent folder yet/);
    // One welcome, one Initialize button; the other views wait for .agent/ (hidden by their `when`).
    await waitFor(async () => (await ui.count(HIDDEN_UNTIL_AGENT.map((t) => `.part.sidebar .pane-header[aria-label^="${t}"]`).join(', '))) === 0, {
      message: 'Scratch, Skills, Terminals and Memory & Agents are hidden without .agent/',
    });
    assert.equal(await ui.count('.part.sidebar .welcome-view-content .monaco-button:has-text("Initialize .agent Folder")'), 1, 'one Initialize button in the container');
    assert.deepEqual(await (await agentApi()).treeSnapshot('agentContext.plan'), []);
    assert.deepEqual(await (await agentApi()).treeSnapshot('agentContext.scratch'), []);
    const errors = await ui.texts('.notification-toast .notification-list-item-message');
    assert.ok(!errors.some((m) => /error|failed|cannot/i.test(m)), `no error notifications: ${errors.join(' | ')}`);

    await ui.click(`${welcome} .monaco-button:has-text("Initialize .agent Folder")`);
    const agent = path.join(wsRoot(), '.agent');
    await waitFor(() => fs.existsSync(path.join(agent, 'plan.yaml')), { timeout: 20_000, message: '.agent/plan.yaml created' });
    for (const d of ['scratch', 'terminals', 'skills', 'memory', 'agents', 'history']) assert.ok(fs.statSync(path.join(agent, d)).isDirectory(), d);
    assert.match(fs.readFileSync(path.join(agent, '.gitignore'), 'utf8'), /^scratch\/\nterminals\/\nhistory\//);
    assert.match(fs.readFileSync(path.join(agent, 'README.md'), 'utf8'), /overflow memory/);
    await waitForRow('Plan', 'Describe what this task should achieve');
    await ui.waitForSelector(welcome, { state: 'hidden', timeout: 20_000 });
    for (const t of HIDDEN_UNTIL_AGENT) await ui.waitForSelector(`.part.sidebar .pane-header[aria-label^="${t}"]`, { timeout: 20_000 });
    // An empty view explains itself with welcome content, not a fake, clipped tree row.
    const memory = paneSelector('Memory & Agents');
    const collapsed = (await ui.attribute(`${memory} .pane-header`, 'aria-expanded')) === 'false';
    if (collapsed) await ui.click(`${memory} .pane-header`);
    assert.match(await ui.text(`${memory} .welcome-view-content`), /^Nothing remembered yet, and no sub-agents\. What an agent remembers \(\.agent\/memory\/\)/);
    assert.equal(await ui.count(`${memory} .monaco-list-row`), 0, 'no tree rows in the empty Memory & Agents view');
    if (collapsed) await ui.click(`${memory} .pane-header`);
    // The new, empty scratch/tool_outputs/ folder is not content: Scratch explains itself too.
    const scratchPane = paneSelector('Scratch');
    assert.ok(fs.statSync(path.join(agent, 'scratch/tool_outputs')).isDirectory(), 'Initialize created scratch/tool_outputs/');
    await ui.waitForSelector(`${scratchPane} .welcome-view-content:has-text("Scratch is empty")`, { timeout: 20_000 });
    assert.equal(await ui.count(`${scratchPane} .monaco-list-row`), 0, 'no "tool_outputs 0 files" row in the empty Scratch view');
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === path.join(agent, 'plan.yaml'), { message: 'the example plan is opened' });
  });

  it('the offer to add agent instructions leaves the Notifications centre once they were added from the palette (answered elsewhere)', async () => {
    // Initialize (the test before) offered them: this folder's AGENTS.md has no block yet.
    const offer = '.notifications-center .notification-list-item:has-text("Tell agents how to use .agent/")';
    await vscode.commands.executeCommand('notifications.showList');
    await ui.waitForSelector(offer, { timeout: 20_000 });
    assert.equal(await ui.count(`${offer} a:has-text("Add Agent Instructions")`), 1, 'the offer links to Add Agent Instructions');
    await vscode.commands.executeCommand('notifications.hideList');
    const agentsMd = path.join(wsRoot(), 'AGENTS.md');
    try {
      await ui.runCommand('Agent Context: Add Agent Instructions');
      await waitFor(() => fs.existsSync(agentsMd), { message: 'AGENTS.md was written' });
      await vscode.commands.executeCommand('notifications.showList');
      await ui.waitForSelector(offer, { state: 'detached', timeout: 20_000 });
      // What stays is the report of what was done.
      await waitFor(async () => (await ui.texts('.notification-list-item-message')).some((t) => t.includes('AGENTS.md') && !t.includes('Tell agents how')), { message: 'the result is reported' });
    } finally {
      await vscode.commands.executeCommand('notifications.hideList');
      fs.rmSync(agentsMd, { force: true });
    }
  });

  it('running Initialize again overwrites nothing', async () => {
    const plan = path.join(wsRoot(), '.agent/plan.yaml');
    fs.writeFileSync(plan, 'objective: mine\n');
    const r = await vscode.commands.executeCommand<{ created: string[]; kept: string[] }>('agentContext.initialize');
    assert.deepEqual(r.created, []);
    assert.equal(fs.readFileSync(plan, 'utf8'), 'objective: mine\n');
  });
});
