// Notes from the user to the agent, in the real editor: a note attached from the Terminals view's
// context menu reaches agentContext_terminal's reference for that command and the briefing; a
// noted scratch file carries a decoration; deleting the target leaves the note, marked orphaned.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NOTES_DIR, type Note } from '../../../src/core/notes/noteFile';
import { listNotes } from '../../../src/core/notes/notes';
import { agentApi, flatten, paneSelector, waitForRow, waitForTree } from '../agentViewsHelpers';
import { ui, waitFor } from '../bridge';
import { closeTerminal, openTerminal, run, type OpenTerminal } from '../terminalHelpers';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('notes: from the user to the agent', function () {
  this.timeout(120_000);
  let t: OpenTerminal | undefined;
  const noteFiles: string[] = [];

  before(async () => {
    await agentApi();
    await waitFor(() => vscode.lm.tools.some((x) => x.name === 'agentContext_terminal'), { message: 'tools registered' });
  });

  after(async () => {
    if (t) await closeTerminal(t);
    for (const f of noteFiles) fs.rmSync(path.join(ws(), f), { force: true });
  });

  it('a note added from the Terminals view on a failed command reaches agentContext_terminal and the briefing', async () => {
    t = await openTerminal('notes');
    const { cmd } = await run(t, 'echo notes-flaky-network; false');
    assert.equal(cmd.exitCode, 1);

    // The user's way: expand the terminal in the sidebar, right-click the command, add the note.
    await waitForRow('Terminals', t.name);
    const pane = paneSelector('Terminals');
    // The terminal's row shows its last command too; the command itself is the row one level down.
    const commandRow = `${pane} .monaco-list-row[aria-level="2"]:has-text("echo notes-flaky-network")`;
    const terminalRow = `${pane} .monaco-list-row[aria-level="1"]:has-text("${t.name}")`;
    if ((await ui.attribute(terminalRow, 'aria-expanded')) !== 'true') await ui.click(terminalRow);
    await ui.waitForSelector(commandRow);
    await ui.contextMenu(commandRow, 'Add Note for the Agent…');
    await ui.waitForSelector('.quick-input-widget .quick-input-box input');
    await ui.type('this failure is a flaky network, ignore it');
    await ui.press('Enter');

    const note = await waitFor(async () => (await listNotes(ws())).notes.find((n) => n.text === 'this failure is a flaky network, ignore it'), {
      message: 'the note was written under .agent/human/notes/',
    });
    noteFiles.push(note.file);
    assert.ok(note.file.startsWith(`${NOTES_DIR}/`));
    assert.equal(note.terminal, t.n);
    assert.equal(note.command, cmd.command);
    assert.equal(note.path, `.agent/${cmd.file}`);
    assert.equal(note.orphaned, undefined);

    // The sidebar shows it on the command's row.
    await waitFor(async () => ((await ui.texts(commandRow)).join(' ').includes('✎ note') ? true : undefined), { message: 'the command row says ✎ note' });

    const ref = await invoke('agentContext_terminal', { terminal: t.n, command: String(cmd.command) });
    assert.match(ref, /Notes from the user \(follow them\):\n- .* on terminal \d+ command \d+: "this failure is a flaky network, ignore it"/);
    assert.match(await invoke('agentContext_terminal', { terminal: t.n, command: 'lastFailed' }), /flaky network, ignore it/);

    const briefing = await invoke('agentContext_briefing', {});
    assert.match(briefing, /Notes from the user \(\d+; follow them\):[\s\S]*"this failure is a flaky network, ignore it"/);

    // A later command of the same terminal does not carry it.
    const next = await run(t, 'echo notes-after');
    assert.doesNotMatch(await invoke('agentContext_terminal', { terminal: t.n, command: String(next.cmd.command) }), /flaky network/);
  });

  it('a note added on a plan step from the Plan view is shown on the step and in the briefing', async () => {
    await waitForRow('Plan', 'Load-test with 1,000 clients');
    const stepRow = `${paneSelector('Plan')} .monaco-list-row:has-text("Load-test with 1,000 clients")`;
    await ui.contextMenu(stepRow, 'Add Note for the Agent…');
    await ui.waitForSelector('.quick-input-widget .quick-input-box input');
    await ui.type('use 500 clients on this laptop');
    await ui.press('Enter');
    const note = await waitFor(async () => (await listNotes(ws())).notes.find((n) => n.text === 'use 500 clients on this laptop'), { message: 'the step note was written' });
    noteFiles.push(note.file);
    assert.equal(note.path, '.agent/plan.yaml');
    assert.ok(note.step, 'the note names the step id');
    await waitFor(async () => ((await ui.texts(stepRow)).join(' ').includes('✎ note') ? true : undefined), { message: 'the step row says ✎ note' });
    assert.match(await invoke('agentContext_briefing', {}), new RegExp(`on step "${note.step}" of \\.agent/plan\\.yaml: "use 500 clients on this laptop"`));
  });

  it('Show Notes for the Agent names what each note is on: the terminal command with its command line, the plan step', async () => {
    await ui.runCommand('Agent Context: Show Notes for the Agent');
    const rows = '.quick-input-widget .monaco-list-row';
    await ui.waitForSelector(`${rows}:has-text("use 500 clients on this laptop")`, { timeout: 20_000 });
    const shown = await ui.texts(rows);
    await ui.press('Escape');
    const step = shown.find((r) => r.includes('use 500 clients on this laptop'));
    assert.match(step ?? '', /on step "[^"]+" of \.agent\/plan\.yaml/, shown.join(' | '));
    const command = shown.find((r) => r.includes('this failure is a flaky network'));
    assert.match(command ?? '', /on terminal \d+ command \d+ `echo notes-flaky-network; false`/, shown.join(' | '));
    assert.ok(!shown.some((r) => /\.txt:\d+|plan\.yaml:\d+/.test(r)), `no file:line: ${shown.join(' | ')}`);
  });

  it('a note on lines selected in an editor records that line range', async () => {
    const rel = '.agent/scratch/notes-selection.txt';
    fs.writeFileSync(path.join(ws(), rel), 'one\ntwo\nthree\nfour\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(path.join(ws(), rel)));
    editor.selection = new vscode.Selection(1, 0, 2, 3); // lines 2-3
    await ui.runCommand('Agent Context: Add Note for the Agent…');
    await ui.waitForSelector('.quick-input-widget .quick-input-box input');
    await ui.type('two and three are placeholders');
    await ui.press('Enter');
    const note = await waitFor(async () => (await listNotes(ws())).notes.find((n) => n.text === 'two and three are placeholders'), { message: 'the selection note was written' });
    noteFiles.push(note.file);
    assert.deepEqual([note.path, note.startLine, note.endLine], [rel, 2, 3]);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    fs.rmSync(path.join(ws(), rel));
  });

  it('a noted scratch file shows the note badge; deleting it leaves the note, marked orphaned', async () => {
    const rel = '.agent/scratch/notes-decorated.md';
    const abs = path.join(ws(), rel);
    fs.writeFileSync(abs, '# findings\n');
    const note = (await vscode.commands.executeCommand('agentContext.notes.add', { path: rel, text: 'keep this one, it took an hour' })) as Note | undefined;
    assert.ok(note, 'the command returned the note');
    noteFiles.push(note.file);

    await waitForRow('Scratch', 'notes-decorated.md');
    const row = `${paneSelector('Scratch')} .monaco-list-row:has-text("notes-decorated.md")`;
    const badge = await waitFor(async () => {
      const b = await ui.evaluate(`(() => {
        const row = [...document.querySelectorAll('${paneSelector('Scratch').replace(/'/g, "\\'")} .monaco-list-row')].find((r) => r.innerText.includes('notes-decorated.md'));
        const label = row && row.querySelector('.monaco-icon-label');
        return label ? getComputedStyle(label, '::after').content : '';
      })()`);
      return typeof b === 'string' && b.includes('✎') ? b : undefined;
    }, { message: 'the Scratch row of the noted file carries the ✎ badge' });
    assert.ok(badge);
    assert.ok(await ui.count(row) > 0);

    fs.rmSync(abs);
    const orphan = await waitFor(async () => (await listNotes(ws())).notes.find((n) => n.id === note.id), { message: 'the note is still listed' });
    assert.match(orphan.orphaned ?? '', /notes-decorated\.md no longer exists/);
    assert.ok(fs.existsSync(path.join(ws(), note.file)), 'the note file is kept');
    assert.match(await invoke('agentContext_briefing', {}), /"keep this one, it took an hour" .*\[orphaned: /);
  });

  it('a note file written, edited and deleted by another process shows, changes and goes in the Scratch view tooltip', async () => {
    const rel = '.agent/scratch/notes-by-hand.md';
    fs.writeFileSync(path.join(ws(), rel), '# by hand\n');
    const id = '01KZHANDWRITTEN00000000000';
    const file = path.join(ws(), NOTES_DIR, `${id}.md`);
    noteFiles.push(`${NOTES_DIR}/${id}.md`);
    const tooltip = (text: string | undefined) => waitForTree(
      'agentContext.scratch',
      (n) => {
        const row = flatten(n).find((x) => x.label === 'notes-by-hand.md');
        if (!row) return undefined;
        const t = row.tooltip ?? '';
        return (text === undefined ? !t.includes('Note from') : t.includes(text)) ? t : undefined;
      },
      text === undefined ? 'the tooltip no longer carries the note' : `the tooltip says "${text}"`,
    );
    fs.mkdirSync(path.dirname(file), { recursive: true }); // when run alone (--grep), no earlier test made the folder
    const write = (text: string) => fs.writeFileSync(file, `---\nid: ${id}\ntarget: ${rel}\nauthor: other\ncreated: 2026-12-02T00:00:00.000Z\n---\n${text}\n`);
    try {
      write('written by another process');
      assert.match(await tooltip('written by another process'), /Note from other/);
      write('edited in place by another process');
      await tooltip('edited in place by another process');
      fs.rmSync(file);
      await tooltip(undefined);
      // The tooltips came from the decorations' listing on its worker thread (dist/notes-worker.js).
      assert.equal((await agentApi()).notesListedOn(), 'worker');
    } finally {
      // Whatever failed, the Scratch tests after this one count the folder's files.
      fs.rmSync(file, { force: true });
      fs.rmSync(path.join(ws(), rel), { force: true });
    }
  });
});
