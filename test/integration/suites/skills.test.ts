import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { agentApi, paneSelector, paneRows, waitForRow, waitForTree, wsRoot } from '../agentViewsHelpers';

describe('Skills view', () => {
  before(() => agentApi());
  afterEach(async () => {
    await ui.press('Escape');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('groups skills by source folder; broken frontmatter gets a warning and the parse message', async () => {
    const nodes = await waitForTree('agentContext.skills', (n) => (n.length === 2 ? n : undefined), 'two source groups');
    assert.deepEqual(nodes.map((n) => [n.label, n.description]), [['.agent/skills', '2 skills, 1 broken'], ['.github/skills', '1 skill']]);
    assert.deepEqual(
      nodes[0].children.map((s) => [s.label, s.icon, s.contextValue]),
      [['broken-skill', 'warning', 'skill.broken'], ['pdf-extract', 'book', 'skill']],
    );
    assert.match(nodes[0].children[0].description ?? '', /^no YAML frontmatter/);
    assert.match(nodes[0].children[0].tooltip ?? '', /^\.agent\/skills\/broken-skill\/SKILL\.md:1: no YAML frontmatter/);
    assert.equal(nodes[1].children[0].description, 'Review a diff for correctness, tests and naming before committing.');
    const rows = await waitForRow('Skills', 'code-review');
    assert.ok(rows.some((r) => r.includes('broken-skill') && r.includes('no YAML frontmatter')), rows.join(' | '));
  });

  it('Copy Skill Index (title bar button) copies `name: description (path)` lines of the valid skills', async () => {
    await waitForRow('Skills', 'pdf-extract');
    // Title bar actions show when the view has focus (or on hover): select a row first.
    await ui.click(`${paneSelector('Skills')} .monaco-list-row:has-text("code-review")`);
    await ui.click(`${paneSelector('Skills')} .pane-header .actions-container a.action-label[aria-label="Copy Skill Index"]`);
    const expected =
      'pdf-extract: Extract text and tables from PDF files with pdftotext; use when a task mentions PDFs. (.agent/skills/pdf-extract/SKILL.md)\n' +
      'code-review: Review a diff for correctness, tests and naming before committing. (.github/skills/code-review/SKILL.md)';
    await waitFor(async () => (await vscode.env.clipboard.readText()) === expected, { message: 'clipboard holds the skill index' });
  });

  it('shows a skill added under .claude/skills promptly, then drops it', async () => {
    const dir = path.join(wsRoot(), '.claude/skills/triage');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: triage\ndescription: Sort incoming bugs.\n---\n');
    await waitForTree('agentContext.skills', (n) => n.find((g) => g.label === '.claude/skills')?.children.find((s) => s.label === 'triage'), 'new skill listed');
    await waitFor(
      async () => {
        // The new group is the last one: scroll the (small) pane to its end; only rows in view are rendered.
        await ui.press('End', { selector: `${paneSelector('Skills')} .monaco-list` });
        return (await paneRows('Skills')).some((r) => r.includes('triage'));
      },
      { timeout: 20_000, message: 'triage row visible' },
    );
    fs.rmSync(path.join(wsRoot(), '.claude'), { recursive: true });
    await waitForTree('agentContext.skills', (n) => n.length === 2, 'back to two groups');
  });
  it('shows .agents/skills and the home folders VS Code\'s agent loads (~/.copilot/skills, ~/.claude/skills, ~/.agents/skills), grouped by source', async () => {
    const home = process.env.HOME!;
    const made = [path.join(wsRoot(), '.agents'), path.join(home, '.copilot/skills'), path.join(home, '.agents')];
    const put = (dir: string, name: string): void => {
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      fs.writeFileSync(path.join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: From ${dir}.\n---\n`);
    };
    try {
      put(path.join(wsRoot(), '.agents/skills'), 'ws-agents-skill');
      put(path.join(home, '.copilot/skills'), 'home-copilot-skill');
      put(path.join(home, '.agents/skills'), 'home-agents-skill');
      await vscode.commands.executeCommand('agentContext.skills.refresh');
      const nodes = await waitForTree('agentContext.skills', (n) => (n.length === 5 ? n : undefined), 'five source groups');
      assert.deepEqual(nodes.map((n) => [n.label, n.children.map((c) => c.label).join(',')]), [
        ['.agent/skills', 'broken-skill,pdf-extract'],
        ['.github/skills', 'code-review'],
        ['.agents/skills', 'ws-agents-skill'],
        ['~/.copilot/skills', 'home-copilot-skill'],
        ['~/.agents/skills', 'home-agents-skill'],
      ]);
    } finally {
      for (const d of made) fs.rmSync(d, { recursive: true, force: true });
      await vscode.commands.executeCommand('agentContext.skills.refresh');
    }
    await waitForTree('agentContext.skills', (n) => n.length === 2, 'back to two groups');
  });
});
