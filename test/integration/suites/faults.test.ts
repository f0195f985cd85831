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

const WARNING = 'the disk is full, so terminal output is not being saved';

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
});
