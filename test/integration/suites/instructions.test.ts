// "Agent Context: Add Agent Instructions" in the real editor: the block is written once, updated in
// place, leaves the rest of the file and its CRLF endings byte-identical, and removing the markers
// opts out for good.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { BEGIN_MARKER, END_MARKER, INSTRUCTIONS_RECORD, instructionBlock } from '../../../src/core/setup/instructions';

const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

describe('instructions: Add Agent Instructions', () => {
  const created: string[] = [];
  const backups = new Map<string, Buffer>();

  before(() => {
    // Leave the shared workspace as found: remember the files this suite may touch.
    for (const rel of ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md', INSTRUCTIONS_RECORD]) {
      const f = path.join(root(), rel);
      if (fs.existsSync(f)) backups.set(f, fs.readFileSync(f));
      else created.push(f);
    }
  });

  after(() => {
    for (const f of created) fs.rmSync(f, { force: true });
    for (const [f, data] of backups) fs.writeFileSync(f, data);
  });

  it('writes the block once from the palette and keeps CRLF and the surrounding text byte-identical', async () => {
    const agents = path.join(root(), 'AGENTS.md');
    const original = '# Project rules\r\n\r\nUse tabs.  \r\n';
    fs.writeFileSync(agents, original);
    fs.rmSync(path.join(root(), INSTRUCTIONS_RECORD), { force: true });

    await ui.runCommand('Agent Context: Add Agent Instructions');
    const expected = original + '\r\n' + instructionBlock('\r\n') + '\r\n';
    await waitFor(() => fs.readFileSync(agents, 'utf8') === expected, { message: 'AGENTS.md has the CRLF block after the original text' });
    // The test editor sends extension notifications to the notification centre without a toast.
    await vscode.commands.executeCommand('notifications.showList');
    const toast = await waitFor(async () => (await ui.texts('.notification-list-item-message')).find((t) => t.includes('AGENTS.md')), {
      message: 'a notification reports what was done',
    });
    await vscode.commands.executeCommand('notifications.hideList');
    assert.match(toast, /^Agent Context: Added the Agent Context section to AGENTS\.md/);

    // Again: nothing changes, nothing is duplicated.
    const again = (await vscode.commands.executeCommand('agentContext.addInstructions', vscode.Uri.file(root()))) as { file: string; action: string }[];
    assert.deepEqual(again.map((r) => [r.file, r.action]), [['AGENTS.md', 'unchanged']]);
    const bytes = fs.readFileSync(agents);
    assert.equal(bytes.toString('utf8'), expected);
    assert.equal(bytes.toString('utf8').split(BEGIN_MARKER).length - 1, 1);
  });

  it('updates an outdated block in place and leaves the text around it alone', async () => {
    const agents = path.join(root(), 'AGENTS.md');
    const before = '# Title\r\n\r\n';
    const after = '\r\n## Mine, after the block\r\nkeep me\r\n';
    fs.writeFileSync(agents, before + BEGIN_MARKER + '\r\nold advice from an earlier version\r\n' + END_MARKER + after);
    const r = (await vscode.commands.executeCommand('agentContext.addInstructions', vscode.Uri.file(root()))) as { file: string; action: string }[];
    assert.deepEqual(r.map((x) => [x.file, x.action]), [['AGENTS.md', 'updated']]);
    assert.equal(fs.readFileSync(agents, 'utf8'), before + instructionBlock('\r\n') + after);
  });

  it('leaves a file alone for good once the user removed the markers', async () => {
    const agents = path.join(root(), 'AGENTS.md');
    const mine = '# Title\r\n\r\nI do not want the block.\r\n';
    fs.writeFileSync(agents, mine);
    const r = (await vscode.commands.executeCommand('agentContext.addInstructions', vscode.Uri.file(root()))) as { file: string; action: string }[];
    assert.deepEqual(r.map((x) => [x.file, x.action]), [['AGENTS.md', 'optedOut']]);
    assert.equal(fs.readFileSync(agents, 'utf8'), mine);
  });
});
