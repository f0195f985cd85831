import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentApi, flatten, waitForTree, type SnapshotNode } from '../agentViewsHelpers';
import { agentDir, terminalsDir } from '../terminalHelpers';

/**
 * Agents' own shell commands (the agent-command history) in the Terminals view: commands run through
 * the shipped hook (dist/agent-context-shell.sh, as Codex's BASH_ENV and Claude Code's env file start
 * it), outside any integrated terminal, show grouped by agent and session, the last failure visible
 * without expanding, and a click opens the capture at the command.
 */
describe('Terminals view: agents\' own commands', function () {
  this.timeout(120_000);
  const made: string[] = [];

  /** Runs `command` as an agent's own shell tool does, through the shipped shell capture. */
  function agentRuns(agent: string, session: string, command: string): { stdout: string; status: number | null } {
    const ext = vscode.extensions.getExtension('agent-context.agent-context')!;
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const r = spawnSync('bash', ['-c', command], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, BASH_ENV: path.join(ext.extensionPath, 'dist/agent-context-shell.sh'), AGENT_CONTEXT_AGENT: agent, AGENT_CONTEXT_SESSION: session, AGENT_CONTEXT_ROOT: root, AGENT_CONTEXT_NODE: process.execPath },
    });
    return { stdout: r.stdout, status: r.status };
  }

  before(async () => {
    await agentApi();
  });

  after(async () => {
    // Leave the workspace as it was: the sessions' captures and the spool go (the view is the plain terminal list again).
    for (const f of made) fs.rmSync(f, { force: true });
    fs.rmSync(path.join(agentDir(), 'terminals/spool'), { recursive: true, force: true });
    await vscode.commands.executeCommand('agentContext.terminals.refresh');
  });

  it('shows each agent with its sessions, command counts and the last failure, newest first; a click opens the command\'s lines', async () => {
    const ok = agentRuns('codex', 'cx-view-1', 'echo compiled 12 files');
    assert.equal(ok.stdout, 'compiled 12 files\n');
    const failed = agentRuns('codex', 'cx-view-1', 'echo "error: linker failed" >&2; exit 2');
    assert.equal(failed.status, 2);
    agentRuns('claude-code', 'cc-view-1', 'echo fine');
    const roots = await waitForTree(
      'agentContext.terminals',
      (nodes) => {
        const codex = nodes.find((n) => n.label === 'Codex CLI');
        return codex && /last failed/.test(codex.description ?? '') && nodes.some((n) => n.label === 'Claude Code') ? nodes : undefined;
      },
      'the Terminals view shows Codex CLI with its last failure, and Claude Code',
    );
    const codex = roots.find((n) => n.label === 'Codex CLI')!;
    // Long command lines are cut to fit the row (with …).
    assert.match(codex.description!, /^1 session · active (just now|\d+ min ago) · last failed (just now|\d+ min ago): echo "error: linker failed" >/);
    assert.equal(codex.expanded, false, 'an agent starts collapsed');
    const session = codex.children[0];
    assert.match(session.label, /^session cx-view-1 \(\d+\)$/);
    assert.match(session.description!, /^2 commands · (just now|\d+ min ago) · last failed: #2 echo "error: linker failed" >\S* \(exit 2\) · open$/);
    assert.equal(session.expanded, false, 'a session starts collapsed');
    const cmds = session.children;
    assert.deepEqual(cmds.map((c) => [c.label, c.description?.split(' · ')[0]]), [
      ['echo "error: linker failed" >&2; exit 2', 'exit 2'],
      ['echo compiled 12 files', 'exit 0'],
    ]);
    const n = Number(/\((\d+)\)$/.exec(session.label)![1]);
    made.push(path.join(terminalsDir(), `${n}.txt`), path.join(terminalsDir(), `${n}.index.jsonl`));
    const claude = roots.find((n2) => n2.label === 'Claude Code')!;
    const cn = Number(/\((\d+)\)$/.exec(claude.children[0].label)![1]);
    made.push(path.join(terminalsDir(), `${cn}.txt`), path.join(terminalsDir(), `${cn}.index.jsonl`));
    // The integrated terminals stay, as their own group, open.
    const group = roots.find((x) => x.label === 'Integrated terminals');
    if (group) assert.equal(group.expanded, true);
    // A click on the failed command opens the capture at its `>>>` line.
    assert.equal(cmds[0].command, 'agentContext.terminals.openAtLine');
    const tree = await (await agentApi()).treeSnapshot('agentContext.terminals');
    const row = flatten(tree).find((x: SnapshotNode) => x.label === 'echo "error: linker failed" >&2; exit 2');
    assert.ok(row);
    const text = fs.readFileSync(path.join(terminalsDir(), `${n}.txt`), 'utf8').split('\n');
    const header = text.findIndex((l) => /^>>> command 2 \| .*\$ echo "error: linker failed" >&2; exit 2$/.test(l)) + 1;
    assert.ok(header > 0, text.join('\n'));
    await vscode.commands.executeCommand('agentContext.terminals.openAtLine', path.join(terminalsDir(), `${n}.txt`), header);
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, path.join(terminalsDir(), `${n}.txt`));
    assert.equal(editor?.selection.active.line, header - 1);
    assert.equal(text[header], 'error: linker failed');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('stays still once shown: an open agent session (spool/sessions.json) does not make the Terminals view refresh itself', async () => {
    // The view folds the spool on each refresh; that fold's lock file in .agent/terminals/spool/ was
    // taken for a change of the folder, so the view refreshed, folded and refreshed again, every half
    // second, for as long as the editor ran (seen in bench row 21's profiles).
    agentRuns('gemini', 'gm-idle-1', 'echo idle');
    await vscode.commands.executeCommand('agentContext.terminals.focus');
    const gemini = await waitForTree('agentContext.terminals', (nodes) => nodes.find((n) => n.label === 'Gemini CLI'), 'the Terminals view shows Gemini CLI');
    const gn = Number(/\((\d+)\)$/.exec(gemini.children[0].label)![1]);
    made.push(path.join(terminalsDir(), `${gn}.txt`), path.join(terminalsDir(), `${gn}.index.jsonl`));
    assert.ok(fs.existsSync(path.join(agentDir(), 'terminals/spool/sessions.json')), 'the session is open');
    await new Promise((r) => setTimeout(r, 1500)); // what showing it started has settled
    const api = await agentApi();
    const before = api.viewChanges('agentContext.terminals');
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(api.viewChanges('agentContext.terminals') - before, 0, 'the Terminals view refreshed while nothing changed');
  });
});
