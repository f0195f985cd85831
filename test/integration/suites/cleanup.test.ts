import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, paneRows, paneSelector, waitForRow, wsRoot } from '../agentViewsHelpers';
import { closeTerminal, openTerminal, run, terminalsDir, type OpenTerminal } from '../terminalHelpers';

interface CleanupResult {
  summary: string;
  reports: { removed: { rel: string }[]; keptPinned: number }[];
  terminals: { removed: { n: number; files: string[] }[]; keptOpen: number }[];
  errors: string[];
}

const scratch = () => path.join(wsRoot(), '.agent/scratch');
const HOUR = 3600;

function put(rel: string, bytes: number, ageHours: number): string {
  const f = path.join(scratch(), rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, 'x'.repeat(bytes));
  const t = Date.now() / 1000 - ageHours * HOUR;
  fs.utimesSync(f, t, t);
  return f;
}

describe('Clean Up Scratch', () => {
  let trash = '';
  before(async () => {
    await agentApi();
    trash = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-it-cleanup-trash-'));
    process.env.XDG_DATA_HOME = trash;
    // The fixture's own scratch files stay: make them fresh, whatever the checkout's mtimes are.
    const now = Date.now() / 1000;
    for (const rel of ['endpoints.md', 'limiter-notes.md', 'tool_outputs/search-endpoints.txt']) fs.utimesSync(path.join(scratch(), rel), now, now);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('agentContext.scratch').update('maxFiles', undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(path.join(wsRoot(), '.vscode'), { recursive: true, force: true });
    fs.rmSync(path.join(wsRoot(), '.agent/pins.json'), { force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    delete process.env.XDG_DATA_HOME;
    fs.rmSync(trash, { recursive: true, force: true });
  });

  it('dry run lists what would go and removes nothing', async () => {
    const old = put('old-dry.txt', 10, 30);
    const res = await vscode.commands.executeCommand<CleanupResult>('agentContext.scratch.cleanupDryRun');
    assert.deepEqual(res.reports[0].removed.map((r) => r.rel), ['old-dry.txt']);
    assert.match(res.summary, /^Would remove 1 file \(10 B\), keep 0 pinned/);
    assert.ok(fs.existsSync(old));
    fs.rmSync(old);
  });

  it('title bar trash can lists what would go and why, moves nothing when declined, and only the listed files after "Move N Files to Trash"', async () => {
    // endpoints.md is evidence of step 1 in plan.yaml: old, but kept.
    const t = Date.now() / 1000 - 100 * HOUR;
    fs.utimesSync(path.join(scratch(), 'endpoints.md'), t, t);
    put('old-a.log', 1024 * 1024, 48);
    put('logs/old-b.log', 512 * 1024, 30);
    const pinned = put('keep-me.md', 10, 100);
    fs.writeFileSync(path.join(wsRoot(), '.agent/pins.json'), JSON.stringify({ pinned: ['scratch/keep-me.md'] }));
    await waitForRow('Scratch', 'old-a.log');
    const trashCan = `${paneSelector('Scratch')} .pane-header .actions-container a.action-label[aria-label="Clean Up Scratch…"]`;
    // Title bar actions show when the view has focus (or on hover): select a row first.
    await ui.click(`${paneSelector('Scratch')} .monaco-list-row:has-text("limiter-notes.md")`);
    await ui.click(trashCan);
    const declined = await ui.dialog('Cancel');
    assert.equal(declined.message, 'Move 2 scratch files (1.5 MB) to the trash?');
    assert.ok(declined.buttons.includes('Move 2 Files to Trash'), `buttons: ${declined.buttons.join(', ')}`);
    assert.match(declined.detail, /old-a\.log \(1\.0 MB, older than 24 hours\)/);
    assert.match(declined.detail, /logs\/old-b\.log \(512\.0 KB, older than 24 hours\)/);
    assert.match(declined.detail, /Kept: 1 pinned, 1 protected \(plans, evidence, open terminals\); the limits remove files older than 24 hours, beyond 500 files, beyond 200 MB/);
    assert.ok(!declined.detail.includes('keep-me.md') && !declined.detail.includes('endpoints.md'), 'pinned and evidence files are not listed');
    assert.ok(fs.existsSync(path.join(scratch(), 'old-a.log')) && fs.existsSync(path.join(scratch(), 'logs/old-b.log')), 'nothing moved after Cancel');

    await ui.click(`${paneSelector('Scratch')} .monaco-list-row:has-text("limiter-notes.md")`);
    await ui.click(trashCan);
    const confirmed = await ui.dialog('Move 2 Files to Trash');
    assert.equal(confirmed.message, 'Move 2 scratch files (1.5 MB) to the trash?');
    await waitFor(() => !fs.existsSync(path.join(scratch(), 'old-a.log')), { timeout: 20_000, message: 'old-a.log moved out of scratch' });
    // The test editor sends extension notifications to the notification centre without a toast.
    await vscode.commands.executeCommand('notifications.showList');
    const toast = await waitFor(async () => (await ui.texts('.notification-list-item-message')).find((m) => m.startsWith('Agent Context: Moved')), {
      timeout: 20_000,
      message: 'a notification reports the cleanup',
    });
    // One prefix rule for toasts (noticeText): 'Agent Context: ' once, then what happened.
    // Where the files went: the trash, from which they can be restored.
    assert.match(toast, /^Agent Context: Moved 2 files \(1\.5 MB\) to the trash, kept 1 pinned and 1 protected \(plans, evidence\)$/);
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('notifications.hideList');
    assert.ok(!fs.existsSync(path.join(scratch(), 'old-a.log')));
    assert.ok(!fs.existsSync(path.join(scratch(), 'logs/old-b.log')));
    assert.ok(fs.existsSync(pinned));
    assert.ok(fs.existsSync(path.join(scratch(), 'endpoints.md')));
    assert.deepEqual(fs.readdirSync(path.join(trash, 'Trash/files')).sort(), ['old-a.log', 'old-b.log']);
    await waitFor(async () => !(await ui.texts(`${paneSelector('Scratch')} .monaco-list-row`)).some((r) => r.includes('old-a.log')), {
      timeout: 20_000,
      message: 'the Scratch view no longer lists old-a.log',
    });
    fs.rmSync(pinned);
    fs.rmSync(path.join(scratch(), 'logs'), { recursive: true });
    await ui.press('Escape');
  });

  it('with nothing over the limits, the trash can says so in a notification (no modal: nothing to decide) and names the limits', async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
    const trashCan = `${paneSelector('Scratch')} .pane-header .actions-container a.action-label[aria-label="Clean Up Scratch…"]`;
    await ui.click(`${paneSelector('Scratch')} .monaco-list-row:has-text("limiter-notes.md")`);
    await ui.click(trashCan);
    await vscode.commands.executeCommand('notifications.showList');
    const shown = await waitFor(async () => (await ui.texts('.notification-list-item-message')).find((m) => m.includes('Nothing to clean up in scratch.')), {
      timeout: 20_000,
      message: 'a notification says there is nothing to clean up',
    });
    assert.match(shown, /^Agent Context: Nothing to clean up in scratch\. /);
    assert.match(shown, /the limits remove files older than 24 hours, beyond 500 files, beyond 200 MB \(agentContext\.scratch\.\* settings\), and every other file is within them/i);
    assert.equal(await ui.count('.monaco-dialog-box'), 0, 'no modal dialog for a message with no decision in it');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  it('Clean Up Scratch Now also moves a closed terminal\'s capture older than agentContext.terminals.maxAgeDays to the trash (file and index), never an open terminal\'s; the Terminals view drops it', async () => {
    const live: OpenTerminal[] = [];
    try {
      const open = await openTerminal('retention-open');
      live.push(open);
      await run(open, 'echo retention-open-output');
      const closed = await openTerminal('retention-closed');
      await run(closed, 'echo retention-closed-output');
      await closeTerminal(closed);
      // The newest number stays whatever its age (numbers are never handed out twice): a third terminal holds it.
      live.push(await openTerminal('retention-newest'));
      const filesOf = (n: number) => [`${n}.txt`, `${n}.index.jsonl`].map((f) => path.join(terminalsDir(), f));
      // Both last written 40 days ago (the default limit is 30 days).
      const t = Date.now() / 1000 - 40 * 24 * HOUR;
      for (const f of [...filesOf(closed.n), ...filesOf(open.n)]) fs.utimesSync(f, t, t);
      await waitForRow('Terminals', closed.name);

      const res = await vscode.commands.executeCommand<CleanupResult>('agentContext.scratch.cleanup');
      assert.deepEqual(res.errors, []);
      assert.deepEqual(res.terminals[0].removed.map((r) => r.n), [closed.n], 'only the closed terminal');
      assert.equal(res.terminals[0].keptOpen, 1, 'the open terminal was old enough, and kept');
      assert.match(res.summary, /moved 1 closed terminal capture \([\d.]+ (?:B|KB)\) older than 30 days to the trash/);
      assert.deepEqual(filesOf(closed.n).map((f) => fs.existsSync(f)), [false, false], 'the closed terminal\'s file and index are gone');
      assert.deepEqual(filesOf(open.n).map((f) => fs.existsSync(f)), [true, true], 'the open terminal\'s files stay');
      const trashed = fs.readdirSync(path.join(trash, 'Trash/files'));
      for (const f of filesOf(closed.n)) assert.ok(trashed.includes(path.basename(f)), `${path.basename(f)} is in the trash`);
      // The user sees it leave the Terminals view; the open one stays, and still records.
      await waitFor(async () => ((await paneRows('Terminals')).some((r) => r.includes(closed.name)) ? undefined : true), { message: 'the Terminals view no longer lists the removed terminal' });
      await waitForRow('Terminals', open.name);
      const again = await run(open, 'echo retention-open-again');
      assert.equal(again.cmd.exitCode, 0);
    } finally {
      for (const t of live) await closeTerminal(t);
    }
  });

  it('follows agentContext.scratch.maxFiles: removes the oldest until within the limit', async () => {
    await vscode.workspace.getConfiguration('agentContext.scratch').update('maxFiles', 5, vscode.ConfigurationTarget.Workspace);
    // 3 fixture files + 4 new ones = 7; limit 5 removes the two oldest new ones (fixture files are newer).
    put('n1.txt', 1, 4);
    put('n2.txt', 1, 3);
    put('n3.txt', 1, 2);
    put('n4.txt', 1, 1);
    const res = await vscode.commands.executeCommand<CleanupResult>('agentContext.scratch.cleanup');
    assert.deepEqual(res.reports[0].removed.map((r) => r.rel), ['n1.txt', 'n2.txt']);
    assert.deepEqual(['n1.txt', 'n2.txt', 'n3.txt', 'n4.txt'].map((f) => fs.existsSync(path.join(scratch(), f))), [false, false, true, true]);
    fs.rmSync(path.join(scratch(), 'n3.txt'));
    fs.rmSync(path.join(scratch(), 'n4.txt'));
  });
});
