import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startMcp } from '../mcpClient';
import { extension, flatten, invoke, waitForPaneRow, waitForTree, wsRoot } from '../agentViewsHelpers';

const agentsDir = () => path.join(wsRoot(), '.agent/agents');

describe('Agents view and agentContext_agentWorkspace', () => {
  after(() => {
    for (const id of ['it-scout', 'it-reviewer', 'it-shared']) fs.rmSync(path.join(agentsDir(), id), { recursive: true, force: true });
  });

  it('shows each agent with status and progress, findings and files as children', async () => {
    assert.equal(await invoke('agentContext_agentWorkspace', { agentId: 'it-scout', action: 'setStatus', status: 'working', progress: 0.4 }), 'it-scout: working, 40% (.agent/agents/it-scout/status.json).');
    await invoke('agentContext_agentWorkspace', { agentId: 'it-scout', action: 'writeFinding', content: 'Endpoints are listed in src/routes.ts' });
    await invoke('agentContext_agentWorkspace', { agentId: 'it-scout', action: 'writeFinding', content: 'Rate limits belong in middleware' });
    await invoke('agentContext_agentWorkspace', { agentId: 'it-reviewer', action: 'setStatus', status: 'blocked', progress: 0.1, content: 'waiting for it-scout' });
    fs.mkdirSync(path.join(agentsDir(), 'it-scout/notes'), { recursive: true });
    fs.writeFileSync(path.join(agentsDir(), 'it-scout/notes/summary.txt'), 'summary');
    const scout = await waitForTree(
      'agentContext.memory:agents',
      (n) => n.find((a) => a.label === 'it-scout' && a.description === 'working · 40%' && a.children.some((c) => c.label === 'notes/summary.txt') && a.children.find((c) => c.label === 'Findings')?.children.length === 2),
      'it-scout with status, 2 findings and its file',
    );
    const findings = scout.children.find((c) => c.label === 'Findings')!;
    assert.equal(findings.description, '2');
    // Newest first.
    assert.deepEqual(findings.children.map((f) => f.label), ['Rate limits belong in middleware', 'Endpoints are listed in src/routes.ts']);
    const reviewer = await waitForTree('agentContext.memory:agents', (n) => n.find((a) => a.label === 'it-reviewer'), 'it-reviewer listed');
    assert.equal(reviewer.description, 'blocked · 10%');
    assert.match(reviewer.tooltip ?? '', /waiting for it-scout/);
    // Memory & Agents: the sub-agents under their own header, beside what the agent remembers.
    const view = await waitForTree('agentContext.memory', (n) => (n.find((s) => s.label === 'Agents')?.children.some((a) => a.label === 'it-scout') ? n : undefined), 'it-scout under the Agents header');
    assert.deepEqual(view.map((s) => [s.label, s.expanded]), [['Memory', true], ['Agents', true]]);
    const rows = await waitForPaneRow('Memory & Agents', 'it-scout', 20_000, true);
    assert.ok(rows.some((r) => r.includes('it-scout') && r.includes('working · 40%')), rows.join(' | '));
  });

  it('a peer reads findings; a call cannot write outside its own folder', async () => {
    const t = await invoke('agentContext_agentWorkspace', { agentId: 'it-reviewer', action: 'read', peer: 'it-scout' });
    assert.match(t, /Findings of it-scout \(\.agent\/agents\/it-scout\/findings\.md, 2 entries\)/);
    const bad = await invoke('agentContext_agentWorkspace', { agentId: 'it-reviewer/../it-scout', action: 'writeFinding', content: 'overwrite' });
    assert.match(bad, /^Error: agent id must be/);
    assert.doesNotMatch(fs.readFileSync(path.join(agentsDir(), 'it-scout/findings.md'), 'utf8'), /overwrite/);
  });

  it('the extension and the MCP server writing findings at the same moment corrupt nothing', async () => {
    const ext = await extension();
    const mcp = await startMcp(path.join(ext.extensionPath, 'dist/mcp.js'), wsRoot());
    try {
      const calls: Promise<string>[] = [];
      for (let i = 0; i < 25; i++) {
        calls.push(invoke('agentContext_agentWorkspace', { agentId: 'it-shared', action: 'writeFinding', content: `editor ${i} ${'e'.repeat(2000)}` }));
        calls.push(mcp.call('agentContext_agentWorkspace', { agentId: 'it-shared', action: 'writeFinding', content: `mcp ${i} ${'m'.repeat(2000)}` }).then((r) => r.text));
      }
      for (const t of await Promise.all(calls)) assert.match(t, /^Appended a finding/);
    } finally {
      await mcp.close();
    }
    const read = await invoke('agentContext_agentWorkspace', { agentId: 'it-shared', action: 'list' });
    assert.match(read, /it-shared \(you\): no status; 50 findings/);
    const text = fs.readFileSync(path.join(agentsDir(), 'it-shared/findings.md'), 'utf8');
    const bodies = text.split(/\n## \d{4}-\d\d-\d\dT[0-9:.]+Z\n\n/).slice(1).map((b) => b.trimEnd());
    assert.equal(bodies.length, 50);
    for (const b of bodies) assert.match(b, /^(editor \d+ e{2000}|mcp \d+ m{2000})$/);
    const shared = await waitForTree('agentContext.memory:agents', (n) => flatten(n).find((a) => a.label === 'it-shared' && a.children.find((c) => c.label === 'Findings')?.description === '50'), 'it-shared shows 50 findings');
    assert.ok(shared);
  });
});
