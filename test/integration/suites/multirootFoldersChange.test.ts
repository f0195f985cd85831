// Folders added to and removed from a multi-root workspace while the editor runs
// (vscode.workspace.updateWorkspaceFolders, as "Add Folder to Workspace…" / "Remove Folder from
// Workspace" do): every view (Plan, Scratch, Skills, Memory, Agents, Terminals) follows, and all of
// them give the same answer to "which folders have .agent/, and do I group by folder?" — one group
// per folder while more than one folder has .agent/, the only such folder's items directly otherwise.
// The first folder (alpha) is never touched: changing it restarts the extension host.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { waitFor } from '../bridge';
import { agentApi, flatten, waitForTree, type SnapshotNode } from '../agentViewsHelpers';
import { setAgentStatus } from '../../../src/core/agents/subAgentWorkspaces';

const folderOf = (name: string) => vscode.workspace.workspaceFolders?.find((f) => f.name === name);
const names = () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.name);

/** Changes the workspace folders and waits until VS Code reports the change (calls must not overlap). */
async function changeFolders(start: number, deleteCount: number, ...add: { uri: vscode.Uri; name?: string }[]): Promise<void> {
  const changed = new Promise<void>((resolve) => {
    const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      sub.dispose();
      resolve();
    });
  });
  assert.ok(vscode.workspace.updateWorkspaceFolders(start, deleteCount, ...add), `updateWorkspaceFolders(${start}, ${deleteCount}) was refused`);
  await changed;
}

const VIEWS = ['agentContext.plan', 'agentContext.scratch', 'agentContext.skills', 'agentContext.memory:memory', 'agentContext.memory:agents'] as const;

/** The top-level labels of each grouping view. */
async function topLevels(): Promise<Record<string, string[]>> {
  const api = await agentApi();
  const out: Record<string, string[]> = {};
  for (const v of VIEWS) out[v] = (await api.treeSnapshot(v)).map((n) => n.label);
  return out;
}

/** Waits until every grouping view's top level is `labels` (what a user sees first in each view). */
async function allViewsShow(labels: (view: string) => string[], message: string): Promise<void> {
  let last: Record<string, string[]> = {};
  await waitFor(
    async () => {
      last = await topLevels();
      return VIEWS.every((v) => JSON.stringify(last[v]) === JSON.stringify(labels(v)));
    },
    { timeout: 30_000, message: `${message}; the views show ${JSON.stringify(last)}` },
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`);
  });
}

describe('multi-root: folders added and removed while the editor runs', () => {
  const base = () => path.dirname(folderOf('alpha')!.uri.fsPath);
  const delta = () => path.join(base(), 'delta');
  let terminal: vscode.Terminal | undefined;
  let betaUri: vscode.Uri | undefined;

  before(async () => {
    await agentApi();
    assert.deepEqual(names(), ['alpha', 'beta', 'gamma']);
    betaUri = folderOf('beta')!.uri;
  });

  after(async () => {
    terminal?.dispose();
    // Back to the fixture's folders for the suites after this one: alpha, beta, gamma.
    const d = names().indexOf('delta');
    if (d >= 0) await changeFolders(d, 1);
    if (!names().includes('beta') && betaUri) await changeFolders(1, 0, { uri: betaUri });
  });

  it('a folder with .agent/ added to the workspace appears as its own group in every view, its terminals named by folder', async function () {
    this.timeout(120_000);
    const agentDir = path.join(delta(), '.agent');
    fs.mkdirSync(path.join(agentDir, 'scratch'), { recursive: true });
    fs.mkdirSync(path.join(agentDir, 'skills', 'release'), { recursive: true });
    fs.mkdirSync(path.join(agentDir, 'memory'), { recursive: true });
    fs.writeFileSync(path.join(agentDir, 'plan.yaml'), 'objective: "Delta objective"\nsteps:\n  - id: d1\n    title: Delta step\n    status: pending\n');
    fs.writeFileSync(path.join(agentDir, 'scratch', 'd.txt'), 'delta scratch\n');
    fs.writeFileSync(path.join(agentDir, 'skills', 'release', 'SKILL.md'), '---\nname: release\ndescription: Cut a release\n---\nSteps.\n');
    fs.writeFileSync(path.join(agentDir, 'memory', 'preferences.yaml'), 'editor: vim\n');
    const status = await setAgentStatus(agentDir, 'delta-agent', { status: 'working', progress: 0.4 });
    assert.ok(status.ok, JSON.stringify(status));

    await changeFolders(names().length, 0, { uri: vscode.Uri.file(delta()) });
    assert.deepEqual(names(), ['alpha', 'beta', 'gamma', 'delta']);
    await allViewsShow(() => ['alpha', 'beta', 'delta'], 'every view groups alpha, beta and the added delta');
    const api = await agentApi();
    const group = async (view: string) => (await api.treeSnapshot(view)).find((g) => g.label === 'delta')!;
    assert.deepEqual((await group('agentContext.plan')).children.map((p) => p.label), ['Delta objective']);
    assert.deepEqual((await group('agentContext.scratch')).children.map((c) => c.label), ['d.txt']);
    assert.ok(flatten((await group('agentContext.skills')).children).some((k) => k.label === 'release'), JSON.stringify(await group('agentContext.skills')));
    assert.deepEqual((await group('agentContext.memory:memory')).children.map((c) => [c.label, c.description]), [['editor', 'vim']]);
    assert.deepEqual((await group('agentContext.memory:agents')).children.map((c) => c.label), ['delta-agent']);

    // A real terminal opened in the added folder is captured into delta/.agent/terminals/ and listed
    // in Terminals with the folder's name (Terminals lists terminals, it names their folder instead of grouping).
    const name = `delta-term-${process.pid}`;
    terminal = vscode.window.createTerminal({ name, cwd: vscode.Uri.file(delta()), env: { PYENV_REHASH_TIMEOUT: '1' } });
    terminal.show();
    await waitFor(() => terminal!.shellIntegration, { timeout: 30_000, message: `shell integration in terminal ${name}` });
    terminal.sendText('echo delta-hello');
    const row = await waitForTree(
      'agentContext.terminals',
      (n) => flatten(n).find((x: SnapshotNode) => x.label.startsWith(`${name} (`) && x.children.some((c) => c.label === 'echo delta-hello')),
      'the delta terminal and its command in the Terminals view',
      60_000,
    );
    assert.match(row.description ?? '', / · delta$/, JSON.stringify(row));
    assert.ok(fs.readdirSync(path.join(agentDir, 'terminals')).some((f) => /^\d+\.txt$/.test(f)), 'the capture is in delta/.agent/terminals/');
  });

  it('a folder removed from the workspace leaves every view, and with one folder left with .agent/ no view groups by folder', async function () {
    this.timeout(120_000);
    await changeFolders(names().indexOf('beta'), 1);
    assert.deepEqual(names(), ['alpha', 'gamma', 'delta']);
    await allViewsShow(() => ['alpha', 'delta'], 'every view drops beta');

    terminal?.dispose();
    terminal = undefined;
    await changeFolders(names().indexOf('delta'), 1);
    assert.deepEqual(names(), ['alpha', 'gamma']);
    // gamma has no .agent/: alpha is the only folder with one, so each view shows alpha's items directly.
    await allViewsShow(
      (v) =>
        ({
          'agentContext.plan': ['Alpha objective'],
          'agentContext.scratch': ['a.txt'],
          'agentContext.skills': [],
          'agentContext.memory:memory': [],
          'agentContext.memory:agents': [],
        })[v]!,
      'every view shows alpha ungrouped',
    );
    const terminals = await (await agentApi()).treeSnapshot('agentContext.terminals');
    const rows = JSON.stringify(terminals.map((t) => [t.label, t.description]));
    assert.ok(!flatten(terminals).some((x) => x.label.startsWith('delta-term-')), `the removed folder's terminal is gone: ${rows}`);
    assert.ok(!flatten(terminals).some((x) => / · (alpha|beta|gamma|delta)$/.test(x.description ?? '')), `no terminal row names a folder: ${rows}`);
  });
});
