// Files of .agent/ read or written by a fixed name must not lead out of the workspace through a
// symbolic link: each is refused with where it leads, and nothing outside is read or written.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';

test('preferences.yaml, features.json, progress.md, a note and findings.md that link out of the workspace are neither read nor written', async () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-links-outside-'));
  const files: Record<string, string> = {
    'prefs.yaml': 'outk:\n  value: OUTSIDE-MEMORY\n',
    'features.json': '[{"category":"a","description":"OUTSIDE-FEATURE","steps":[],"passes":false}]\n',
    'progress.md': '## 2026-01-01T00:00:00Z — OUTSIDE-PROGRESS\n',
    'note.md': '---\nid: 01KB0000000000000000000000\ntarget: src/a.js\nauthor: x\ncreated: 2026-12-03T03:08:01.181Z\n---\nOUTSIDE-NOTE\n',
    'findings.md': '# OUTSIDE-FINDINGS\n',
  };
  for (const [n, t] of Object.entries(files)) fs.writeFileSync(path.join(outside, n), t);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-links-'));
  const agent = path.join(root, '.agent');
  for (const d of ['memory', 'human/notes', 'agents/a1']) fs.mkdirSync(path.join(agent, d), { recursive: true });
  fs.symlinkSync(path.join(outside, 'prefs.yaml'), path.join(agent, 'memory/preferences.yaml'));
  fs.symlinkSync(path.join(outside, 'features.json'), path.join(agent, 'features.json'));
  fs.symlinkSync(path.join(outside, 'progress.md'), path.join(agent, 'progress.md'));
  fs.symlinkSync(path.join(outside, 'note.md'), path.join(agent, 'human/notes/01KB0000000000000000000000.md'));
  fs.symlinkSync(path.join(outside, 'findings.md'), path.join(agent, 'agents/a1/findings.md'));
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const call = (tool: string, input: Record<string, unknown>) => invokeTool(tool, input, ctx);
  const answers = [
    await call('agentContext_briefing', {}),
    await call('agentContext_memory', { action: 'list' }),
    await call('agentContext_memory', { action: 'remember', key: 'a', value: 'b' }),
    await call('agentContext_plan', { action: 'logProgress', description: 'done a thing' }),
    await call('agentContext_plan', { action: 'setPasses', feature: 0, passes: true }),
    await call('agentContext_agentWorkspace', { agentId: 'a1', action: 'writeFinding', content: 'WRITTEN-THROUGH' }),
  ];
  for (const a of answers) assert.doesNotMatch(a.text, /OUTSIDE-/, a.text);
  const [brief, list, remember, progress, passes, finding] = answers;
  assert.match(brief.text, /features\.json: it is a symbolic link .*leading outside the workspace/);
  assert.match(brief.text, /preferences\.yaml: it is a symbolic link .*leading outside the workspace/);
  for (const r of [list, remember, progress, passes, finding]) {
    assert.ok(r.isError, r.text);
    assert.match(r.text, /it is a symbolic link \(or inside one\) leading outside the workspace, to .*; not read or written/);
  }
  // Nothing outside changed, and the links are still links.
  for (const [n, t] of Object.entries(files)) assert.equal(fs.readFileSync(path.join(outside, n), 'utf8'), t, n);
  assert.ok(fs.lstatSync(path.join(agent, 'memory/preferences.yaml')).isSymbolicLink());
});

test('a history folder linked out of the workspace gets no ledger line: the answer says the call was not recorded, and why', async () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-links-history-'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-links-'));
  fs.mkdirSync(path.join(root, '.agent'));
  fs.symlinkSync(outside, path.join(root, '.agent', 'history'));
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const r = await invokeTool('agentContext_briefing', {}, ctx);
  assert.match(r.text, /Note: this call was not recorded in the ledger: .*\.agent\/history\/tools-\d{4}-\d\d\.jsonl.*leading outside the workspace/);
  assert.deepEqual(fs.readdirSync(outside), []);
});
