import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { invoke, waitForTree } from '../agentViewsHelpers';

const folder = (name: string) => vscode.workspace.workspaceFolders!.find((f) => f.name === name)!.uri.fsPath;

describe('multi-root: Memory and Agents views, briefing', () => {
  after(() => {
    fs.rmSync(path.join(folder('beta'), '.agent/memory'), { recursive: true, force: true });
    fs.rmSync(path.join(folder('alpha'), '.agent/agents/mr-agent'), { recursive: true, force: true });
  });

  it('shows each folder with .agent/ as its own group; tools use the first such folder', async () => {
    fs.mkdirSync(path.join(folder('beta'), '.agent/memory'), { recursive: true });
    fs.writeFileSync(path.join(folder('beta'), '.agent/memory/preferences.yaml'), 'shell: zsh\n');
    const memory = await waitForTree('agentContext.memory:memory', (n) => (n.find((g) => g.label === 'beta')?.children.some((c) => c.label === 'shell') ? n : undefined), 'beta group lists shell');
    assert.deepEqual(memory.map((g) => g.label), ['alpha', 'beta']);
    assert.deepEqual(memory[1].children.map((c) => [c.label, c.description]), [['shell', 'zsh']]);

    assert.match(await invoke('agentContext_agentWorkspace', { agentId: 'mr-agent', action: 'setStatus', status: 'done' }), /^mr-agent: done, 100%/);
    assert.ok(fs.existsSync(path.join(folder('alpha'), '.agent/agents/mr-agent/status.json')));
    const agents = await waitForTree('agentContext.memory:agents', (n) => (n.find((g) => g.label === 'alpha')?.children.some((c) => c.label === 'mr-agent') ? n : undefined), 'alpha group lists mr-agent');
    assert.deepEqual(agents.map((g) => [g.label, g.children.map((c) => `${c.label} ${c.description ?? ''}`.trim())]), [
      ['alpha', ['mr-agent done · 100%']],
      ['beta', ['No sub-agents yet (.agent/agents/<id>/)']],
    ]);

    const brief = await invoke('agentContext_briefing', {});
    assert.match(brief, /Plan \.agent\/plan\.yaml: 0\/1 done.* — Alpha objective/);
    assert.match(brief, /mr-agent: done 100%/);
  });
});
