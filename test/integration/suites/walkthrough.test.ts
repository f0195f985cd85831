// The "Get started with Agent Context" walkthrough in the real editor: each step is unchecked until
// the real thing happens (a command ran, a file appeared), then the walkthrough page checks it.
// Runs in its own `walkthrough` run on a fresh copy of the minimal fixture (just an empty .agent/),
// so no other suite has already completed a step.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { paneSelector, waitForRow } from '../agentViewsHelpers';

const WALKTHROUGH = 'agent-context.agent-context#agentContext.getStarted';
const step = (id: string) => `button.getting-started-step[data-step-id$="#${id}"]`;
const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

async function checked(id: string): Promise<boolean> {
  return (await ui.attribute(step(id), 'aria-checked')) === 'true';
}

async function waitChecked(id: string, message: string): Promise<void> {
  await waitFor(() => checked(id), { timeout: 30_000, message: `walkthrough step "${id}" is checked after ${message}` });
}

describe('walkthrough: Get started with Agent Context', () => {
  before(async () => {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await ui.waitForSelector(step('initialize'), { timeout: 20_000 });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('lists every step, with only "Create the .agent folder" done in a folder that has .agent/', async () => {
    const titles = await ui.texts('button.getting-started-step .step-title');
    for (const t of ['Create the .agent folder', 'Tell your agent about it', 'Watch a terminal being captured', 'Try a tool in chat', 'Pin a scratch file', 'Leave a note for the agent', 'Clean up scratch']) {
      assert.ok(titles.some((x) => x.includes(t)), `step "${t}" is listed (saw ${titles.join(' | ')})`);
    }
    await waitChecked('initialize', 'the extension saw .agent/');
    await ui.screenshot('walkthrough-get-started');
    for (const id of ['instructions', 'terminal', 'note']) assert.equal(await checked(id), false, `${id} not done yet`);
  });

  it('checks "Tell your agent about it" when its button runs Add Agent Instructions', async () => {
    await ui.click(step('instructions'));
    await ui.click(`${step('instructions')} .button-container .monaco-button:has-text("Add Agent Instructions")`);
    await waitFor(() => fs.existsSync(path.join(root(), 'AGENTS.md')), { message: 'AGENTS.md was created' });
    await waitChecked('instructions', 'the command ran');
  });

  it('checks "Leave a note for the agent" when a note is added', async () => {
    fs.writeFileSync(path.join(root(), 'README.md'), 'hello\n');
    const note = await vscode.commands.executeCommand('agentContext.notes.add', { path: 'README.md', text: 'walkthrough note' });
    assert.ok(note, 'the note was saved');
    await waitChecked('note', 'the note was added');
  });

  it('checks "Watch a terminal being captured" when a terminal\'s capture file appears', async () => {
    assert.equal(await checked('terminal'), false);
    await ui.runCommand('Terminal: Create New Terminal');
    const terminal = await waitFor(() => vscode.window.activeTerminal, { message: 'a terminal opened' });
    await waitFor(() => terminal.shellIntegration, { timeout: 20_000, message: 'shell integration activated' });
    await ui.terminalType('echo walkthrough-capture');
    await waitFor(() => fs.existsSync(path.join(root(), '.agent/terminals')) && fs.readdirSync(path.join(root(), '.agent/terminals')).some((f) => /^\d+\.txt$/.test(f)), {
      timeout: 20_000,
      message: '.agent/terminals/N.txt appeared',
    });
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('terminal', 'the capture file appeared');
    terminal.dispose();
  });

  it('checks "Try a tool in chat" when a tool is invoked (its ledger line appears)', async () => {
    assert.equal(await checked('tool'), false);
    // No chat model here; the same tool call a #-mention makes, through the language-model API.
    await waitFor(() => vscode.lm.tools.some((x) => x.name === 'agentContext_glob'), { message: 'tools registered' });
    await vscode.lm.invokeTool('agentContext_glob', { input: { pattern: '**/*.md' }, toolInvocationToken: undefined });
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('tool', 'a tool call was logged in the ledger (.agent/history/tools-YYYY-MM.jsonl)');
  });

  it('checks "Pin a scratch file" when a file is pinned from the Scratch view', async () => {
    assert.equal(await checked('pin'), false);
    fs.mkdirSync(path.join(root(), '.agent/scratch'), { recursive: true });
    fs.writeFileSync(path.join(root(), '.agent/scratch/walkthrough-pin.md'), 'keep\n');
    await waitForRow('Scratch', 'walkthrough-pin.md');
    await ui.contextMenu(`${paneSelector('Scratch')} .monaco-list-row:has-text("walkthrough-pin.md")`, 'Pin (Keep During Cleanup)');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    await waitChecked('pin', 'the file was pinned');
  });

  it('checks "Clean up scratch" when its button runs the cleanup', async () => {
    assert.equal(await checked('cleanup'), false);
    await ui.click(step('cleanup'));
    await ui.click(`${step('cleanup')} .button-container .monaco-button:has-text("Clean Up Scratch")`);
    await waitChecked('cleanup', 'the cleanup ran');
    assert.ok(fs.existsSync(path.join(root(), '.agent/scratch/walkthrough-pin.md')), 'the pinned file survived the cleanup');
  });
});
