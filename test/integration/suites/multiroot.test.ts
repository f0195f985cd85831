import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, paneRows, paneSelector, waitForRow, waitForTree } from '../agentViewsHelpers';

const folder = (name: string) => vscode.workspace.workspaceFolders!.find((f) => f.name === name)!.uri.fsPath;

describe('multi-root workspace', () => {
  before(() => agentApi());

  it('shows each folder with .agent/ as its own group in Plan, Scratch and Skills', async () => {
    assert.deepEqual(vscode.workspace.workspaceFolders?.map((f) => f.name), ['alpha', 'beta', 'gamma']);
    const plan = await waitForTree('agentContext.plan', (n) => (n.length === 2 ? n : undefined), 'two groups');
    assert.deepEqual(
      plan.map((g) => [g.label, g.children.map((p) => `${p.label} · ${p.description}`)]),
      [['alpha', ['Alpha objective · 0/1 done']], ['beta', ['Beta objective · 1/1 done']]],
    );
    const scratch = await (await agentApi()).treeSnapshot('agentContext.scratch');
    assert.deepEqual(scratch.map((g) => [g.label, g.description, g.children.map((c) => c.label)]), [['alpha', '1 file · 14 B', ['a.txt']], ['beta', '0 files · 0 B', []]]);
    const skills = await (await agentApi()).treeSnapshot('agentContext.skills');
    assert.deepEqual(skills.map((g) => [g.label, g.children.map((s) => [s.label, s.children.map((k) => k.label)])]), [['alpha', []], ['beta', [['.agent/skills', ['deploy']]]]]);
    const rows = await waitForRow('Plan', 'Beta objective').catch(async (e) => {
      throw new Error(`${(e as Error).message}; rows: ${(await paneRows('Plan')).join(' | ')}; tree: ${JSON.stringify(await (await agentApi()).treeSnapshot('agentContext.plan')).slice(0, 400)}`);
    });
    assert.ok(rows.some((r) => r.startsWith('alpha')) && rows.some((r) => r.startsWith('beta')), rows.join(' | '));
    assert.ok(!rows.some((r) => r.startsWith('gamma')));
  });

  it('a folder that gets .agent/ appears as a new group; removing it drops the group', async () => {
    const agent = path.join(folder('gamma'), '.agent');
    fs.mkdirSync(agent);
    fs.writeFileSync(path.join(agent, 'plan.yaml'), 'objective: "Gamma objective"\n');
    await waitForTree('agentContext.plan', (n) => n.find((g) => g.label === 'gamma' && g.children[0]?.label === 'Gamma objective'), 'gamma group');
    await waitFor(
      async () => {
        // The new group is the last: scroll the small pane to its end (only rows in view are rendered).
        await ui.press('End', { selector: `${paneSelector('Plan')} .monaco-list` });
        return (await paneRows('Plan')).some((r) => r.includes('Gamma objective'));
      },
      { timeout: 20_000, message: 'gamma row visible' },
    );
    fs.rmSync(agent, { recursive: true });
    await waitForTree('agentContext.plan', (n) => n.length === 2, 'gamma group gone');
    await ui.press('Escape');
  });

  it('follows files in a folder the user keeps out of file watching (files.watcherExclude)', async () => {
    // beta's .vscode/settings.json excludes **/.agent/scratch/** from VS Code's recursive watcher, so
    // only the extension's own non-recursive watcher of .agent/scratch/ can report these files.
    const file = path.join(folder('beta'), '.agent/scratch/from-another-process.txt');
    const betaFiles = (n: { label: string; children: { label: string }[] }[]) => n.find((g) => g.label === 'beta')?.children.map((c) => c.label);
    fs.writeFileSync(file, 'written outside the editor\n');
    try {
      await waitForTree('agentContext.scratch', (n) => betaFiles(n)?.includes('from-another-process.txt'), 'beta lists the new file');
      fs.rmSync(file);
      await waitForTree('agentContext.scratch', (n) => betaFiles(n)?.length === 0, 'beta empty again after the delete');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('a status edit in one folder leaves the other untouched', async () => {
    const before = fs.readFileSync(path.join(folder('beta'), '.agent/plan.yaml'), 'utf8');
    const alphaPlan = path.join(folder('alpha'), '.agent/plan.yaml');
    const original = fs.readFileSync(alphaPlan, 'utf8');
    await vscode.commands.executeCommand('agentContext.plan.refresh');
    await waitForRow('Plan', 'Alpha step');
    await ui.contextMenu(`${paneSelector('Plan')} .monaco-list-row:has-text("Alpha step")`, 'Mark Blocked');
    await waitFor(() => fs.readFileSync(alphaPlan, 'utf8') === original.replace('status: pending', 'status: blocked'), { timeout: 20_000, message: 'alpha step blocked' });
    assert.equal(fs.readFileSync(path.join(folder('beta'), '.agent/plan.yaml'), 'utf8'), before);
    fs.writeFileSync(alphaPlan, original);
    await ui.press('Escape');
  });
});
