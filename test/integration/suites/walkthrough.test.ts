// The "Get started with Agent Context" walkthrough in the real editor: a step is checked when, and
// only when, its action succeeded (a command ran successfully, a file appeared), and state already
// on disk when the walkthrough opens shows as done. Runs in its own `walkthrough` run on a fresh copy
// of test/fixtures/walkthrough (.agent/ with one pinned scratch file), so no other suite has already
// completed a step.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, waitForRow } from '../agentViewsHelpers';

const WALKTHROUGH = 'agent-context.agent-context#agentContext.getStarted';
const STEPS = ['initialize', 'instructions', 'terminal', 'tool', 'pin', 'note', 'cleanup'];
const step = (id: string) => `button.getting-started-step[data-step-id$="#${id}"]`;
const button = (id: string, label: string) => `${step(id)} .button-container .monaco-button:has-text("${label}")`;
const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const notesDir = () => path.join(root(), '.agent/human/notes');
const noteCount = () => (fs.existsSync(notesDir()) ? fs.readdirSync(notesDir()).filter((f) => f.endsWith('.md')).length : 0);

async function checked(id: string): Promise<boolean> {
  return (await ui.attribute(step(id), 'aria-checked')) === 'true';
}

async function waitChecked(id: string, message: string): Promise<void> {
  await waitFor(() => checked(id), { timeout: 30_000, message: `walkthrough step "${id}" is checked after ${message}` });
}

/**
 * Opens the walkthrough and selects a step as a user does, who then reads it before clicking its
 * button: the page focuses a step it selects a quarter-second after the click (a page-side timer),
 * so the wait is a page-side timer due after that one (a user clicking a button within that
 * quarter-second would see the same focus move).
 */
async function openStep(id: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
  await ui.waitForSelector(step(id), { timeout: 20_000 });
  await ui.click(step(id));
  await ui.evaluate('new Promise((resolve) => setTimeout(() => resolve(true), 400))');
}

describe('walkthrough: Get started with Agent Context', () => {
  before(async () => {
    // The user opens the walkthrough a while after start-up, when the extension has long seen what
    // is on disk (the pinned file is in the Scratch view); the old detection ran 10 s after start-up
    // and its keys, already set when VS Code registered the walkthrough, never checked a step.
    await agentApi();
    await waitForRow('Scratch', 'kept.md');
    await new Promise((r) => setTimeout(r, 11_000));
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await ui.waitForSelector(step('initialize'), { timeout: 20_000 });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('shows what is already on disk as done when it opens (.agent/ exists, a file is pinned), and nothing else', async () => {
    const titles = await ui.texts('button.getting-started-step .step-title');
    for (const t of ['Create the .agent folder', 'Tell your agent about it', 'Watch a terminal being captured', 'Try a tool with your agent', 'Pin a scratch file', 'Leave a note for the agent', 'Clean up scratch']) {
      assert.ok(titles.some((x) => x.includes(t)), `step "${t}" is listed (saw ${titles.join(' | ')})`);
    }
    await waitChecked('initialize', 'the walkthrough opened in a folder with .agent/');
    await waitChecked('pin', 'the walkthrough opened with .agent/pins.json pinning a file');
    await ui.screenshot('walkthrough-get-started');
    for (const id of ['instructions', 'terminal', 'tool', 'note', 'cleanup']) assert.equal(await checked(id), false, `${id} not done yet`);
    const text = await ui.text('.gettingStartedContainer');
    assert.ok(!text.includes('`'), `no literal backticks on the walkthrough page (saw: ${text.slice(0, 300)}…)`);
  });

  it('checks "Tell your agent about it" when its button runs Add Agent Instructions', async () => {
    await openStep('instructions');
    await ui.click(button('instructions', 'Add Agent Instructions'));
    await waitFor(() => fs.existsSync(path.join(root(), 'AGENTS.md')), { message: 'AGENTS.md was created' });
    await waitChecked('instructions', 'the command ran');
  });

  it('does not check "Leave a note" when its button is dismissed, and offers a list of targets instead of failing', async () => {
    await openStep('note');
    await ui.click(button('note', 'Add Note for the Agent'));
    const rows = await waitFor(async () => {
      const t = await ui.texts('.quick-input-widget .monaco-list-row');
      return t.some((r) => r.includes('kept.md')) ? t : undefined;
    }, { message: 'a Quick Pick of note targets lists the scratch file' });
    assert.ok(rows.length >= 1);
    assert.equal(await ui.count('.notification-toast:has-text("select a plan step")'), 0, 'no error notification');
    await ui.press('Escape');
    await ui.waitForSelector('.quick-input-widget', { state: 'hidden' });
    // The command has returned (cancelled): no note was written, and the step stays unchecked.
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await ui.waitForSelector(step('note'));
    assert.equal(noteCount(), 0, 'no note was written');
    assert.equal(await checked('note'), false, 'the note step is not checked after a dismissed action');
  });

  /** Types into the quick input as a user does (it has the keyboard focus) and checks the box holds exactly that. */
  async function typeInto(input: string, text: string): Promise<void> {
    const sel = JSON.stringify(input);
    await waitFor(() => ui.evaluate<boolean>(`document.activeElement === document.querySelector(${sel})`), { message: 'the quick input has the keyboard focus' });
    await ui.type(text);
    assert.equal(await ui.evaluate<string>(`document.querySelector(${sel})?.value ?? ''`), text, 'what the user typed is in the box');
  }

  it('checks "Leave a note" once a target is picked and a note saved', async () => {
    await openStep('note');
    await ui.click(button('note', 'Add Note for the Agent'));
    const input = '.quick-input-widget .quick-input-box input';
    await ui.waitForSelector('.quick-input-widget .monaco-list-row:has-text("kept.md")');
    // Pick it as a user at the keyboard would: filter the list, then Enter, with no click to move
    // the focus (the box opened from the walkthrough's button has it).
    await typeInto(input, 'kept.md');
    // Enter accepts the focused row: wait until the filtered list has focused kept.md.
    await ui.waitForSelector('.quick-input-widget .monaco-list-row.focused:has-text("kept.md")');
    await ui.press('Enter');
    let seen: string[] = [];
    await waitFor(async () => {
      seen = [...(await ui.texts('.quick-input-widget .quick-input-title')), String(await ui.attribute(input, 'placeholder'))];
      return seen.some((t) => /Note for the agent on .*kept\.md/.test(t)) || seen.includes('e.g. this failure is a flaky network, ignore it');
    }, { message: 'the note input box for kept.md is shown' }).catch((e) => {
      throw new Error(`${(e as Error).message}; quick input title and placeholder: ${seen.join(' | ')}`);
    });
    // The note box that follows has the focus too: the typed note lands in it (it went nowhere when
    // the focus stayed on the walkthrough page).
    await typeInto(input, 'walkthrough note');
    await ui.press('Enter');
    await waitFor(() => noteCount() === 1, { message: 'the note was written under .agent/human/notes/' });
    const note = fs.readFileSync(path.join(notesDir(), fs.readdirSync(notesDir()).find((f) => f.endsWith('.md'))!), 'utf8');
    assert.ok(note.includes('walkthrough note') && note.includes('kept.md'), `the note is about kept.md (${note})`);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('note', 'the note was added');
  });

  it('checks "Watch a terminal being captured" when a command runs in the terminal its own button opened', async () => {
    assert.equal(await checked('terminal'), false);
    const before = vscode.window.terminals.length;
    await openStep('terminal');
    await ui.click(button('terminal', 'Open a Terminal'));
    const terminal = await waitFor(() => (vscode.window.terminals.length > before ? vscode.window.activeTerminal : undefined), { message: 'the button opened a terminal' });
    await waitFor(() => terminal.shellIntegration, { timeout: 20_000, message: 'shell integration activated' });
    await ui.terminalType('echo walkthrough-capture');
    await waitFor(() => fs.existsSync(path.join(root(), '.agent/terminals')) && fs.readdirSync(path.join(root(), '.agent/terminals')).some((f) => /^\d+\.index\.jsonl$/.test(f)), {
      timeout: 20_000,
      message: 'the command was captured (.agent/terminals/N.index.jsonl appeared)',
    });
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('terminal', 'the command was captured');
    terminal.dispose();
  });

  it('"Try a tool with your agent" offers the route for agents other than Copilot: its Set Up Agent… button lists them', async () => {
    await openStep('tool');
    await ui.click(button('tool', 'Set Up Agent…'));
    const rows = await waitFor(async () => {
      const t = await ui.texts('.quick-input-widget .monaco-list-row');
      return t.some((r) => r.includes('Claude Code')) ? t : undefined;
    }, { message: 'the agent list opens from the walkthrough' });
    for (const agent of ['Claude Code', 'Codex CLI', 'Gemini CLI', 'opencode']) assert.ok(rows.some((r) => r.includes(agent)), `${agent} is offered (saw ${rows.join(' | ')})`);
    await ui.press('Escape');
    assert.equal(await checked('tool'), false, 'opening the list checks nothing');
  });

  it('checks "Try a tool with your agent" when a tool is invoked (its ledger line appears)', async () => {
    assert.equal(await checked('tool'), false);
    // No chat model here; the same tool call a #-mention makes, through the language-model API.
    await waitFor(() => vscode.lm.tools.some((x) => x.name === 'agentContext_glob'), { message: 'tools registered' });
    await vscode.lm.invokeTool('agentContext_glob', { input: { pattern: '**/*.md' }, toolInvocationToken: undefined });
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('tool', 'a tool call was logged in the ledger (.agent/history/tools-YYYY-MM.jsonl)');
  });

  it('does not check "Clean up scratch" when its confirmation is declined, and checks it once the cleanup ran', async () => {
    assert.equal(await checked('cleanup'), false);
    const old = path.join(root(), '.agent/scratch/old.log');
    fs.writeFileSync(old, 'stale\n');
    const t = Date.now() / 1000 - 48 * 3600;
    fs.utimesSync(old, t, t);
    await openStep('cleanup');
    await ui.click(button('cleanup', 'Clean Up Scratch'));
    const declined = await ui.dialog('Cancel');
    assert.equal(declined.message, 'Move 1 scratch file (6 B) to the trash?');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await ui.waitForSelector(step('cleanup'));
    assert.ok(fs.existsSync(old), 'nothing moved after Cancel');
    assert.equal(await checked('cleanup'), false, 'a declined cleanup does not check the step');

    await openStep('cleanup');
    await ui.click(button('cleanup', 'Clean Up Scratch'));
    await ui.dialog('Move 1 File to Trash');
    await waitFor(() => !fs.existsSync(old), { message: 'old.log moved to the trash' });
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('cleanup', 'the cleanup ran');
    assert.ok(fs.existsSync(path.join(root(), '.agent/scratch/kept.md')), 'the pinned file survived the cleanup');
  });

  it('a second window on a folder without .agent/ shows that folder\'s state: no step checked; its Initialize checks only that step there, and this folder keeps all seven', async function () {
    this.timeout(240_000);
    for (const id of STEPS) await waitChecked(id, 'every step was done in this folder');
    const other = path.join(path.dirname(root()), 'other-project');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'README.md'), '# Another project\n');
    const n = await ui.openWindow(other);
    const win = ui.window(n);
    const checkedThere = async (id: string) => (await win.attribute(step(id), 'aria-checked')) === 'true';
    try {
      // Opened as a user would there, from the Help menu's Open Walkthrough… (no Agent Context command
      // has run in that window: the extension starts because the walkthrough opens).
      await win.runCommand('Welcome: Open Walkthrough...', { timeout: 30_000 });
      await win.click('.quick-input-widget .monaco-list-row:has-text("Get started with Agent Context")', { timeout: 30_000 });
      await win.waitForSelector(step('initialize'), { timeout: 30_000 });
      await waitFor(async () => {
        for (const id of STEPS) if (await checkedThere(id)) return false;
        return true;
      }, { timeout: 30_000, message: 'no step is checked in the folder without .agent/' });
      await win.screenshot('walkthrough-second-folder');
      await win.click(step('initialize'));
      await win.click(button('initialize', 'Initialize .agent Folder'));
      await waitFor(() => fs.existsSync(path.join(other, '.agent/plan.yaml')), { timeout: 20_000, message: 'Initialize created .agent/ in the other folder' });
      // Initialize opens the example plan, which takes the keyboard: the palette opens after it.
      await win.waitForSelector('.tabs-container .tab:has-text("plan.yaml")', { timeout: 20_000 });
      await win.runCommand('Agent Context: Get Started', { timeout: 30_000 });
      await win.waitForSelector(step('initialize'), { timeout: 30_000 });
      await waitFor(() => checkedThere('initialize'), { timeout: 30_000, message: '"Create the .agent folder" is checked there once it exists' });
      for (const id of STEPS.filter((x) => x !== 'initialize')) assert.equal(await checkedThere(id), false, `${id} is not done in the other folder`);
    } catch (e) {
      await win.screenshot('walkthrough-second-folder-failed').catch(() => undefined);
      throw e;
    } finally {
      await ui.closeWindow(n);
    }
    // Back in this window: this folder did every step, whatever the other window stored.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await ui.waitForSelector(step('initialize'), { timeout: 20_000 });
    for (const id of STEPS) await waitChecked(id, 'this folder did every step');
  });
});
