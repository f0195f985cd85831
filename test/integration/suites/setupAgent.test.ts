// "Set Up Agent…" and "Undo Agent Set-Up…" as a user meets them: one pair of commands for every agent
// (VS Code's own one of them), each set-up and undo naming every file and setting it changed, the
// undo offering only what is set up in this folder and leaving no empty folder it created.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const ROWS = '.quick-input-widget .monaco-list-row';

/** The command palette's entries for a query, as the user sees them (the palette is closed again). */
async function palette(query: string): Promise<string[]> {
  await ui.press('F1');
  await ui.waitForSelector('.quick-input-widget .quick-input-box input');
  await ui.type(`${query}`);
  // The list settles once it shows the query's matches (or nothing).
  let last = '';
  const rows = await waitFor(async () => {
    const now = await ui.texts(`${ROWS} .label-name`);
    const same = now.join('|') === last;
    last = now.join('|');
    return same ? now : undefined;
  }, { interval: 300, message: 'the palette list settles' });
  await ui.press('Escape');
  return rows;
}

/** Runs a command from the palette and picks the agent row labelled `agent`; returns the rows it offered. */
async function pickAgent(command: string, agent: string): Promise<string[]> {
  await ui.runCommand(command);
  await ui.waitForSelector(`${ROWS}:has-text("${agent}")`, { timeout: 20_000 });
  const rows = await ui.texts(ROWS);
  await ui.click(`${ROWS}:has-text("${agent}")`);
  return rows;
}

/** The newest notification that starts with `start` (the test editor keeps them in the centre). */
async function notification(match: RegExp): Promise<string> {
  await vscode.commands.executeCommand('notifications.showList');
  const text = await waitFor(async () => (await ui.texts('.notification-list-item-message')).find((t) => match.test(t)), { timeout: 20_000, message: `a notification matching ${match}` });
  await vscode.commands.executeCommand('notifications.clearAll');
  await vscode.commands.executeCommand('notifications.hideList');
  return text;
}

/** The Copilot runtime's user folder (VS Code's Copilot harness reads it), as the set-up names it. */
const copilotHome = () => process.env.COPILOT_HOME || path.join(os.homedir(), '.copilot');
const shown = (f: string) => (f.startsWith(`${os.homedir()}${path.sep}`) ? `~/${path.relative(os.homedir(), f)}` : f);
const skillsEntry = () => vscode.workspace.getConfiguration('chat').inspect<Record<string, boolean>>('agentSkillsLocations')?.globalValue?.['.agent/skills'];

describe('Set Up Agent… and Undo Agent Set-Up…', () => {
  before(async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('one pair in the palette with matching verbs; the undo shows only once something is set up', async () => {
    const setup = await palette('>Agent Context: Set Up');
    assert.ok(setup.some((l) => /Set Up Agent…/.test(l)), `Set Up Agent… is listed: ${setup.join(' | ')}`);
    assert.ok(!setup.some((l) => /VS Code Agent/.test(l)), `no separate VS Code agent command: ${setup.join(' | ')}`);
    const undo = await palette('>Agent Context: Undo Agent');
    assert.deepEqual(undo.filter((l) => /Undo Agent Set-Up/.test(l)), [], 'nothing is set up: no undo');
    const remove = await palette('>Agent Context: Remove');
    assert.ok(!remove.some((l) => /Hook/.test(l)), `no "Remove VS Code Agent Hook": ${remove.join(' | ')}`);
  });

  it('VS Code\'s agent: the set-up names every file (both harnesses) and the user setting it added; the undo lists only it, names them, and leaves no empty folder', async () => {
    const file = path.join(ws(), VSCODE_HOOK_FILE);
    const hooks = path.join(copilotHome(), 'hooks/agent-context.json');
    const mcp = path.join(copilotHome(), 'mcp-config.json');
    assert.equal(fs.existsSync(path.join(ws(), '.github/hooks')), false);
    assert.equal(fs.existsSync(copilotHome()), false, `${copilotHome()} exists before the set-up`);
    const offered = await pickAgent('Agent Context: Set Up Agent…', 'VS Code\'s agent');
    assert.match(offered[0], /^VS Code's agent \(Copilot Chat\)/, `VS Code's agent first: ${offered.join(' | ')}`);
    assert.ok(offered.some((r) => /Claude Code/.test(r)) && offered.some((r) => /Codex/.test(r)), 'the CLIs are offered too');
    assert.ok(!offered.some((r) => /Copilot harness/.test(r.split('\n')[0])), 'the Copilot harness is part of VS Code\'s entry, not one of its own');
    const said = await notification(/^Agent Context: Set up VS Code's agent/);
    assert.equal(said, `Agent Context: Set up VS Code's agent (Copilot Chat) in workspace: created .github/hooks/agent-context-vscode.json, ${shown(hooks)} and ${shown(mcp)}; added .agent/skills to your user setting chat.agentSkillsLocations.`);
    assert.ok(fs.existsSync(file) && fs.existsSync(hooks) && fs.existsSync(mcp));
    assert.equal(skillsEntry(), true);
    // The Copilot harness runs our scripts from their copy in global storage with the editor's own Node.
    const bash = (JSON.parse(fs.readFileSync(hooks, 'utf8')) as { hooks: Record<string, { bash: string }[]> }).hooks.postToolUse[0].bash;
    assert.ok(bash.includes(`AGENT_CONTEXT_NODE=${process.execPath}`), bash);
    // (The editor's Node may itself live under the clone, as in CI where the cache is inside it: only the scripts count.)
    assert.ok(!bash.replace(process.execPath, '').includes(vscode.extensions.getExtension('agent-context.agent-context')!.extensionPath), `the scripts are not in the extension folder, which an update replaces: ${bash}`);

    // The undo now shows, and offers only what is set up here.
    const undoCmd = await palette('>Agent Context: Undo Agent');
    assert.ok(undoCmd.some((l) => /Undo Agent Set-Up…/.test(l)), `the undo shows: ${undoCmd.join(' | ')}`);
    await ui.runCommand('Agent Context: Undo Agent Set-Up…');
    await ui.waitForSelector(`${ROWS}:has-text("VS Code's agent")`, { timeout: 20_000 });
    const undoRows = await ui.texts(ROWS);
    assert.equal(undoRows.length, 1, `only VS Code's agent is set up here: ${undoRows.join(' | ')}`);
    await ui.click(`${ROWS}:has-text("VS Code's agent")`);
    const undone = await notification(/^Agent Context: Undid the set-up of VS Code's agent/);
    assert.equal(undone, `Agent Context: Undid the set-up of VS Code's agent (Copilot Chat) in workspace: removed .github/hooks/agent-context-vscode.json, ${shown(hooks)} and ${shown(mcp)}; removed the empty folders .github/hooks/, ${shown(path.dirname(hooks))}/ and ${shown(copilotHome())}/; removed .agent/skills from your user setting chat.agentSkillsLocations.`);
    assert.equal(fs.existsSync(file), false);
    assert.equal(fs.existsSync(path.join(ws(), '.github/hooks')), false, 'the empty .github/hooks/ the set-up created is gone');
    assert.ok(fs.existsSync(path.join(ws(), '.github/skills')), '.github/ itself, which holds the user\'s skills, stays');
    assert.equal(fs.existsSync(copilotHome()), false, 'no empty Copilot folder left in the home folder');
    assert.equal(skillsEntry(), undefined);
    await waitFor(async () => !(await palette('>Agent Context: Undo Agent')).some((l) => /Undo Agent Set-Up…/.test(l)), { message: 'the undo leaves the palette again' });
  });

  it('with chat.useHooks off: the set-up is written and a warning says the agent will not run it', async () => {
    const chat = vscode.workspace.getConfiguration('chat');
    await chat.update('useHooks', false, vscode.ConfigurationTarget.Global);
    try {
      const r = await vscode.commands.executeCommand<{ warning: boolean; message: string }>('agentContext.setupAgent', 'vscode');
      assert.equal(r?.warning, true);
      assert.match(r!.message, /; added \.agent\/skills to your user setting chat\.agentSkillsLocations\. It will not be used yet: VS Code's agent runs no hooks while chat\.useHooks is off\.$/);
    } finally {
      await chat.update('useHooks', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentContext.undoAgentSetup', 'vscode');
      await vscode.commands.executeCommand('notifications.clearAll');
    }
    assert.equal(fs.existsSync(path.join(ws(), VSCODE_HOOK_FILE)), false);
  });

  it('an agent CLI not installed here: said plainly with what was written anyway; its undo removes the folder it created', async () => {
    const codex = path.join(ws(), '.codex');
    assert.equal(fs.existsSync(codex), false);
    const offered = await pickAgent('Agent Context: Set Up Agent…', 'Codex');
    assert.ok(offered.some((r) => /Codex.*not found \(no codex on PATH/.test(r)), `marked not found in the list: ${offered.join(' | ')}`);
    const said = await notification(/^Agent Context: Codex/);
    assert.match(said, /^Agent Context: Codex CLI was not found on this machine \(no codex on PATH, no ~\/\.codex\), so its set-up for workspace was written anyway: created \.codex\/config\.toml\. It takes effect once Codex CLI is installed\.$/);
    assert.ok(!said.includes(ws()), 'no absolute path of the workspace in the notification');
    assert.ok(fs.existsSync(path.join(codex, 'config.toml')));

    // Set Up Agent… now marks it as set up here.
    await ui.runCommand('Agent Context: Set Up Agent…');
    await ui.waitForSelector(`${ROWS}:has-text("Codex")`, { timeout: 20_000 });
    assert.ok((await ui.texts(ROWS)).some((r) => /Codex.*· set up/.test(r)), 'Codex is marked as set up');
    await ui.press('Escape');

    await pickAgent('Agent Context: Undo Agent Set-Up…', 'Codex');
    const undone = await notification(/^Agent Context: Undid the set-up of Codex/);
    assert.match(undone, /removed \.codex\/config\.toml; removed the empty folder \.codex\/\.$/);
    assert.equal(fs.existsSync(codex), false, 'no empty .codex/ left');
  });
});
