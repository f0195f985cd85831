import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, flatten, paneSelector, paneRows, SnapshotNode, waitForRow, waitForTree, wsRoot } from '../agentViewsHelpers';

const scratch = () => path.join(wsRoot(), '.agent/scratch');
const files = (n: SnapshotNode[]) => flatten(n).filter((x) => x.contextValue?.startsWith('scratchFile') || x.contextValue === 'scratchSymlink');

/** The Scratch pane header text (title + the view description with count and size). */
async function scratchHeader(): Promise<string> {
  return ui.text(`${paneSelector('Scratch')} .pane-header`);
}

describe('Scratch view', () => {
  let trash = '';
  before(async () => {
    await agentApi();
    // Trash goes to a temp folder, not the machine's real trash (the extension host is this process).
    trash = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-it-trash-'));
    process.env.XDG_DATA_HOME = trash;
  });
  after(() => {
    delete process.env.XDG_DATA_HOME;
    fs.rmSync(trash, { recursive: true, force: true });
  });
  afterEach(async () => {
    await ui.press('Escape');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('lists the scratch files newest first with size, age and tokens, folders collapsible, totals in the header', async () => {
    const now = Date.now() / 1000;
    fs.utimesSync(path.join(scratch(), 'endpoints.md'), now - 7200, now - 7200);
    fs.utimesSync(path.join(scratch(), 'limiter-notes.md'), now - 60, now - 60);
    await vscode.commands.executeCommand('agentContext.scratch.refresh');
    const nodes = await waitForTree('agentContext.scratch', (n) => (n.length === 3 && n[2]?.label === 'endpoints.md' ? n : undefined), 'scratch root lists the folder then files newest first');
    assert.deepEqual(nodes.map((n) => [n.label, n.collapsible]), [['tool_outputs', true], ['limiter-notes.md', false], ['endpoints.md', false]]);
    assert.equal(nodes[0].description, '1 file · 107 B');
    assert.equal(nodes[2].description, '75 B · 2 h ago · ≈19 tokens');
    assert.equal(nodes[2].resourceUri, path.join(scratch(), 'endpoints.md'));
    // Its hover tooltip (made on hover by resolveTreeItem): the path, the same facts, the local date.
    assert.match(nodes[2].tooltip ?? '', /^\.agent\/scratch\/endpoints\.md\n75 B\n2 h ago\n≈19 tokens\nmodified \S/);
    assert.equal(nodes[0].children[0].label, 'search-endpoints.txt');
    await waitForRow('Scratch', 'endpoints.md');
    await waitFor(async () => (await scratchHeader()).includes('3 files · 244 B'), { timeout: 20_000, message: 'the Scratch header shows 3 files · 244 B' });
    // The file icon theme applies: rows of files carry the theme's file icon classes.
    const cls = await ui.attribute(`${paneSelector('Scratch')} .monaco-list-row:has-text("endpoints.md") .monaco-icon-label`, 'class');
    assert.match(cls ?? '', /md-ext-file-icon|file-icon/);
  });

  it('shows a new file promptly and drops a deleted one', async () => {
    const f = path.join(scratch(), 'fresh-output.log');
    fs.writeFileSync(f, 'x'.repeat(4000));
    await waitForTree('agentContext.scratch', (n) => files(n).find((x) => x.label === 'fresh-output.log' && x.description?.includes('≈1,000 tokens')), 'new file listed');
    await waitForRow('Scratch', 'fresh-output.log');
    fs.rmSync(f);
    await waitForTree('agentContext.scratch', (n) => !files(n).some((x) => x.label === 'fresh-output.log'), 'deleted file gone');
  });

  it('pins and unpins from the context menu; pins persist in .agent/pins.json', async () => {
    const pins = path.join(wsRoot(), '.agent/pins.json');
    const row = `${paneSelector('Scratch')} .monaco-list-row:has-text("limiter-notes.md")`;
    try {
      await waitForRow('Scratch', 'limiter-notes.md');
      await ui.contextMenu(row, 'Pin (Keep During Cleanup)');
      await waitFor(() => fs.existsSync(pins) && JSON.parse(fs.readFileSync(pins, 'utf8')).pinned.includes('scratch/limiter-notes.md'), { message: 'pins.json lists the file' });
      await waitForTree('agentContext.scratch', (n) => files(n).find((x) => x.label === 'limiter-notes.md' && x.contextValue === 'scratchFile.pinned' && x.description?.startsWith('pinned')), 'shown pinned');
      await waitFor(async () => (await paneRows('Scratch')).some((r) => r.includes('limiter-notes.md') && r.includes('pinned')), { timeout: 20_000, message: 'the row shows pinned' });
      await ui.contextMenu(row, 'Unpin');
      await waitFor(() => JSON.parse(fs.readFileSync(pins, 'utf8')).pinned.length === 0, { message: 'unpinned in pins.json' });
    } finally {
      // Later tests count the files and expect nothing pinned.
      fs.rmSync(pins, { force: true });
    }
  });

  it('copies the relative path and deletes to the trash from the context menu', async () => {
    const f = path.join(scratch(), 'to-delete.txt');
    const row = `${paneSelector('Scratch')} .monaco-list-row:has-text("to-delete.txt")`;
    fs.writeFileSync(f, 'bye');
    try {
      await waitForRow('Scratch', 'to-delete.txt');
      const nodes = await agentApi().then((a) => a.treeSnapshot('agentContext.scratch'));
      assert.ok(files(nodes).some((x) => x.label === 'to-delete.txt'));
      await ui.contextMenu(row, 'Copy Relative Path');
      await waitFor(async () => (await vscode.env.clipboard.readText()) === '.agent/scratch/to-delete.txt', { message: 'clipboard has the relative path' });
      // As the Explorer does (explorer.confirmDelete, on by default): asked first; Cancel keeps it.
      await vscode.commands.executeCommand('notifications.clearAll');
      await ui.contextMenu(row, 'Delete (Move to Trash)');
      const asked = await ui.dialog('Cancel');
      assert.equal(asked.message, "Move 'to-delete.txt' to the trash?");
      assert.ok(asked.buttons.includes('Move to Trash'), `buttons: ${asked.buttons.join(', ')}`);
      assert.ok(fs.existsSync(f), 'nothing deleted after Cancel');
      await ui.contextMenu(row, 'Delete (Move to Trash)');
      await ui.dialog('Move to Trash');
      await waitFor(() => !fs.existsSync(f), { message: 'file removed from scratch' });
      await vscode.commands.executeCommand('notifications.showList');
      await waitFor(async () => (await ui.texts('.notification-list-item-message')).includes('Agent Context: Moved to-delete.txt to the trash.'), { message: 'a notification says where the file went' });
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
      assert.equal(fs.readFileSync(path.join(trash, 'Trash/files/to-delete.txt'), 'utf8'), 'bye');
      assert.match(fs.readFileSync(path.join(trash, 'Trash/info/to-delete.txt.trashinfo'), 'utf8'), new RegExp(`Path=${f.replace(/[.]/g, '\\.')}`));
      await waitFor(async () => !(await paneRows('Scratch')).some((r) => r.includes('to-delete.txt')), { timeout: 20_000, message: 'row gone' });
    } finally {
      // A failure above must not leave the file behind for the file-count test below.
      fs.rmSync(f, { force: true });
    }
  });

  it('deletes without asking when the user turned explorer.confirmDelete off, and says so', async () => {
    const f = path.join(scratch(), 'no-question.txt');
    const row = `${paneSelector('Scratch')} .monaco-list-row:has-text("no-question.txt")`;
    fs.writeFileSync(f, 'bye');
    await vscode.workspace.getConfiguration('explorer').update('confirmDelete', false, vscode.ConfigurationTarget.Global);
    try {
      await waitForRow('Scratch', 'no-question.txt');
      await vscode.commands.executeCommand('notifications.clearAll');
      await ui.contextMenu(row, 'Delete (Move to Trash)');
      await waitFor(() => !fs.existsSync(f), { message: 'file moved to the trash without a question' });
      assert.equal(await ui.count('.monaco-dialog-box'), 0, 'no dialog');
      assert.equal(fs.readFileSync(path.join(trash, 'Trash/files/no-question.txt'), 'utf8'), 'bye');
      await vscode.commands.executeCommand('notifications.showList');
      await waitFor(async () => (await ui.texts('.notification-list-item-message')).includes('Agent Context: Moved no-question.txt to the trash.'), { message: 'a notification says where the file went' });
    } finally {
      await vscode.workspace.getConfiguration('explorer').update('confirmDelete', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
      fs.rmSync(f, { force: true });
    }
  });

  it('lists a symlink pointing outside the workspace without following it', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-it-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside');
    const link = path.join(scratch(), 'outside-link');
    fs.symlinkSync(outside, link);
    try {
      const node = await waitForTree('agentContext.scratch', (n) => files(n).find((x) => x.label === 'outside-link'), 'symlink listed');
      assert.equal(node.contextValue, 'scratchSymlink');
      assert.equal(node.collapsible, false);
      assert.match(node.description ?? '', /symlink, not followed/);
      const all = flatten(await (await agentApi()).treeSnapshot('agentContext.scratch'));
      assert.ok(!all.some((x) => x.label === 'secret.txt'), 'the target folder is not listed');
    } finally {
      fs.rmSync(link);
    }
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'outside');
    fs.rmSync(outside, { recursive: true });
  });

  it('handles 10,000 files and files deleted during a refresh', async function () {
    this.timeout(180_000);
    const bulk = path.join(scratch(), 'bulk');
    try {
      for (let d = 0; d < 10; d++) {
        fs.mkdirSync(path.join(bulk, `part${d}`), { recursive: true });
        for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(bulk, `part${d}`, `f${i}.txt`), 'data');
      }
      await waitFor(async () => (await scratchHeader()).includes('10,003 files'), {
        timeout: 60_000,
        message: 'the header counts 10,003 files',
      });
      const root = await (await agentApi()).treeSnapshot('agentContext.scratch');
      const bulkNode = root.find((n) => n.label === 'bulk');
      assert.equal(bulkNode?.description, '10,000 files · 39.1 KB');
      assert.equal(bulkNode?.children.length, 10);
      // Delete while a refresh scans: the view must settle on what is left, without errors.
      const refreshing = vscode.commands.executeCommand('agentContext.scratch.refresh');
      fs.rmSync(bulk, { recursive: true, force: true });
      await refreshing;
      await waitFor(async () => (await scratchHeader()).includes('3 files'), { timeout: 60_000, message: 'back to 3 files' });
      const after = await (await agentApi()).treeSnapshot('agentContext.scratch');
      assert.deepEqual(after.map((n) => n.label).sort(), ['endpoints.md', 'limiter-notes.md', 'tool_outputs']);
    } finally {
      fs.rmSync(bulk, { recursive: true, force: true });
    }
  });
});
