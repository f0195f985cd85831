// Faults that cross the editor (issue 22), in the real extension host: terminal capture on a full
// disk (a tmpfs the test mounts over .agent/terminals/), and tools over a read-only .agent/.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { commandsOf, openTerminal, run, terminalsDir } from '../terminalHelpers';
import { fillDisk } from '../../faultKit';
import { agentApi, flatten, waitForRow, waitForTree } from '../agentViewsHelpers';

const WARNING = 'Agent Context: The disk is full, so terminal output is not being saved';

/** The disk-full warnings in the notification centre (the test editor shows extension notifications there without a toast). */
async function toasts(): Promise<string[]> {
  await vscode.commands.executeCommand('notifications.showList');
  return (await ui.texts('.notification-list-item-message')).filter((t) => t.includes(WARNING));
}

describe('Faults in the editor', () => {
  it('terminal capture on a full disk: one warning, the gap marked, capture resumes when space returns, the extension host keeps running', async function () {
    this.timeout(120_000);
    const dir = terminalsDir();
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    const terminals: vscode.Terminal[] = [];
    try {
      const a = await openTerminal('diskfull-a');
      const b = await openTerminal('diskfull-b');
      terminals.push(a.terminal, b.terminal);
      await run(a, 'seq 1 200');
      const filler = fillDisk(dir, 0);
      // Output in both terminals, in many chunks, while the disk is full.
      a.terminal.sendText('seq 1 60000');
      b.terminal.sendText('seq 1 30000; echo second-done');
      const shown = await waitFor(async () => ((await toasts()).length ? toasts() : undefined), { timeout: 30_000, message: 'a disk-full warning' });
      await new Promise((r) => setTimeout(r, 3000)); // more chunks arrive: still one warning
      assert.equal((await toasts()).length, 1, `warnings: ${JSON.stringify(shown)}`);
      fs.rmSync(filler);
      // Capture resumes by itself: the command that ran in the pause is indexed, its gap marked.
      await waitFor(async () => (await commandsOf(a.n))[1]?.status === 'done' || undefined, { timeout: 30_000, message: 'capture resumed in terminal a' });
      const after = await run(a, 'echo after-the-pause', { timeout: 30_000 });
      assert.deepEqual(after.output, ['after-the-pause']);
      const cmds = await commandsOf(a.n);
      assert.deepEqual(cmds.map((c) => c.commandLine), ['seq 1 200', 'seq 1 60000', 'echo after-the-pause']);
      assert.equal(cmds[1].diskFull, true);
      const text = fs.readFileSync(path.join(dir, `${a.n}.txt`), 'utf8');
      assert.match(text, /^\[capture paused: disk full\] [\d,]+ lines? of output lost from .* to .*; capture resumed$/m);
      await waitFor(async () => (await commandsOf(b.n)).length === 1 || undefined, { timeout: 30_000, message: 'terminal b indexed its command after the pause' });
      // The extension host is alive and its tools answer.
      const r = await vscode.lm.invokeTool('agentContext_terminal', { input: { terminal: a.n, command: 2 }, toolInvocationToken: undefined });
      const out = r.content.map((p) => (p as vscode.LanguageModelTextPart).value).join('');
      assert.match(out, /Part of its output was lost while the disk was full/);
    } finally {
      for (const t of terminals) t.dispose();
      await new Promise((r) => setTimeout(r, 500));
      spawnSync('umount', ['-l', dir]);
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
      await ui.resetUi();
    }
  });
  it('the views mark what cannot be read: a terminal file replaced by a folder, a scratch folder that is a symbolic link', async function () {
    this.timeout(90_000);
    const bad = path.join(terminalsDir(), '9001.txt');
    const scratch = path.join(path.dirname(terminalsDir()), 'scratch');
    const moved = `${scratch}.faults-test`;
    const elsewhere = fs.mkdtempSync(path.join(path.dirname(path.dirname(terminalsDir())), '..', 'outside-scratch-'));
    fs.mkdirSync(bad, { recursive: true });
    try {
      // Terminals: the unreadable terminal is listed with the reason, not as a terminal without shell integration.
      const node = await waitForTree('agentContext.terminals', (nodes) => flatten(nodes).find((n) => n.label === 'terminal 9001 (9001)'), 'terminal 9001 in the Terminals view');
      assert.match(node.description ?? '', /^cannot be read: .*\(EISDIR\)$/, JSON.stringify(node));
      assert.equal(node.icon, 'error');
      assert.ok(!/shell integration/.test(`${node.description} ${node.tooltip}`), JSON.stringify(node));
      await waitForRow('Terminals', 'cannot be read');
      // Scratch: a symlinked scratch folder is not followed, and the view says so instead of looking empty.
      fs.writeFileSync(path.join(elsewhere, 'secret-elsewhere.txt'), 'outside the workspace\n');
      if (fs.existsSync(scratch)) fs.renameSync(scratch, moved);
      fs.symlinkSync(elsewhere, scratch);
      await vscode.commands.executeCommand('agentContext.scratch.refresh');
      const problem = await waitForTree('agentContext.scratch', (nodes) => flatten(nodes).find((n) => /cannot be listed/.test(n.description ?? '')), 'a problem row in the Scratch view');
      assert.match(problem.description ?? '', /symbolic link; it is not followed/);
      const listed = flatten(await (await agentApi()).treeSnapshot('agentContext.scratch'));
      assert.ok(!listed.some((n) => n.label.includes('secret-elsewhere')), 'nothing outside the workspace is listed');
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
      if (fs.lstatSync(scratch, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(scratch);
      if (fs.existsSync(moved)) fs.renameSync(moved, scratch);
      fs.rmSync(elsewhere, { recursive: true, force: true });
      await vscode.commands.executeCommand('agentContext.scratch.refresh');
    }
  });
});
