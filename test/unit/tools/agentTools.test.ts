import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentWorkspaceTool } from '../../../src/core/tools/agentWorkspace';
import { briefingTool } from '../../../src/core/tools/briefing';
import { planExtraAction } from '../../../src/core/tools/planProgress';
import { archiveToHistory } from '../../../src/core/tools/historyArchive';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { countTokens } from '../../../src/core/output/tokens';
import { ledgerPath } from '../../../src/core/history/ledger';

function ws(): { root: string; ctx: ToolContext } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-tools7-'));
  fs.mkdirSync(path.join(root, '.agent'));
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode', trusted: true, allowRun: false };
  return { root, ctx };
}

test('agentWorkspace: write findings, set status, list and read a peer', async () => {
  const { root, ctx } = ws();
  let r = await agentWorkspaceTool({ agentId: 'scout', action: 'writeFinding', content: 'API lives in src/api.ts' }, ctx);
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /Appended a finding to \.agent\/agents\/scout\/findings\.md/);
  r = await agentWorkspaceTool({ agentId: 'scout', action: 'setStatus', status: 'working', progress: 0.4 }, ctx);
  assert.equal(r.text, 'scout: working, 40% (.agent/agents/scout/status.json).');
  r = await agentWorkspaceTool({ agentId: 'builder', action: 'list' }, ctx);
  assert.match(r.text, /scout: working 40%; 1 finding \(\.agent\/agents\/scout\/findings\.md\)/);
  r = await agentWorkspaceTool({ agentId: 'builder', action: 'read', peer: 'scout' }, ctx);
  assert.match(r.text, /Findings of scout .*1 entry/);
  assert.match(r.text, /API lives in src\/api\.ts/);
  // A call never writes outside its own folder.
  assert.deepEqual(fs.readdirSync(path.join(root, '.agent', 'agents')), ['scout']);
  r = await agentWorkspaceTool({ agentId: '../scout', action: 'writeFinding', content: 'x' }, ctx);
  assert.ok(r.isError);
  r = await agentWorkspaceTool({ agentId: 'a', action: 'setStatus', status: 'asleep' }, ctx);
  assert.ok(r.isError);
  assert.match(r.text, /use one of idle, working, blocked, done, failed/);
});

test('agentWorkspace read stays within the inline bound and points to earlier lines', async () => {
  const { ctx } = ws();
  for (let i = 0; i < 30; i++) await agentWorkspaceTool({ agentId: 'big', action: 'writeFinding', content: `finding ${i} ` + 'z'.repeat(1500) }, ctx);
  const r = await agentWorkspaceTool({ agentId: 'big', action: 'read' }, ctx);
  assert.ok(Buffer.byteLength(r.text) <= 6 * 1024);
  assert.match(r.text, /finding 29 /);
  assert.match(r.text, /Earlier entries: read lines 1–\d+ of \.agent\/agents\/big\/findings\.md/);
});

test('plan logProgress and setPasses', async () => {
  const { root, ctx } = ws();
  const agentDir = path.join(root, '.agent');
  let r = await planExtraAction('logProgress', { description: 'Parser done', notes: 'handles CRLF', next: 'views' }, agentDir, ctx);
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /^Logged to \.agent\/progress\.md:3 — .* — Parser done\nNext: views$/);
  r = await planExtraAction('setPasses', { feature: 0, passes: true }, agentDir, ctx);
  assert.ok(r.isError);
  assert.match(r.text, /no features\.json/);
  fs.writeFileSync(path.join(agentDir, 'features.json'), JSON.stringify([{ category: 'a', description: 'Parses', steps: [], passes: false }]));
  r = await planExtraAction('setPasses', { feature: 0, passes: true }, agentDir, ctx);
  assert.equal(r.text, 'Feature 0 "Parses" passes: true. 1/1 passing (.agent/features.json).');
  fs.writeFileSync(path.join(agentDir, 'features.json'), JSON.stringify([{ category: 'a', description: 'Parses mostly', steps: [], passes: true }]));
  r = await planExtraAction('setPasses', { feature: 0, passes: true }, agentDir, ctx);
  assert.ok(r.isError);
  assert.match(r.text, /reworded feature 0: "Parses" → "Parses mostly"/);
});

test('offload to history archives masked text as a new session file and returns a reference', async () => {
  const { root, ctx } = ws();
  const r = await archiveToHistory('User: deploy\nAgent: used token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok\n', 'deploy chat', ctx);
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /^Archived \(append-only, never rewritten\): \.agent\/history\/session-[0-9A-Z]{26}\.md/);
  const body = fs.readFileSync(path.join(root, r.outputPath!), 'utf8');
  assert.doesNotMatch(body, /ghp_abcdefghijklmnopqrstuvwxyz0123456789/);
  assert.match(r.text, /1 secret masked/);
});

test('briefing tool returns the orientation within 1,500 tokens', async () => {
  const { root, ctx } = ws();
  fs.writeFileSync(path.join(root, '.agent', 'plan.yaml'), 'objective: "Ship"\nsteps:\n  - id: 1\n    description: "Do it"\n    status: in_progress\n');
  const r = await briefingTool({}, ctx);
  assert.ok(!r.isError);
  assert.match(r.text, /Now: step 1 \[in_progress\] Do it \(\.agent\/plan\.yaml:3\)/);
  assert.ok(countTokens(r.text).tokens <= 1500);
});

test('wired through invokeTool: agentWorkspace, briefing, plan logProgress/setPasses, offload to history', async () => {
  const { root, ctx } = ws();
  let r = await invokeTool('agentContext_agentWorkspace', { agentId: 'w1', action: 'setStatus', status: 'done', progress: '0.75' }, ctx);
  assert.equal(r.text, 'w1: done, 75% (.agent/agents/w1/status.json).');
  r = await invokeTool('agentContext_agentWorkspace', { agentId: 'w1', action: 'setStatus', progress: 2 }, ctx);
  assert.ok(r.isError);
  assert.match(r.text, /"progress" must be at most 1/);
  r = await invokeTool('agentContext_plan', { action: 'logProgress', description: 'Did a thing', next: 'Do the next' }, ctx);
  assert.match(r.text, /^Logged to \.agent\/progress\.md:3/);
  fs.writeFileSync(path.join(root, '.agent', 'features.json'), JSON.stringify([{ category: 'a', description: 'X works', steps: [], passes: false }]));
  r = await invokeTool('agentContext_plan', { action: 'setPasses', feature: 0, passes: true }, ctx);
  assert.match(r.text, /1\/1 passing/);
  r = await invokeTool('agentContext_offload', { content: 'transcript', to: 'history' }, ctx);
  assert.match(r.text, /\.agent\/history\/session-/);
  r = await invokeTool('agentContext_briefing', {}, ctx);
  assert.match(r.text, /Did a thing \| Next: Do the next/);
  assert.match(r.text, /Features \.agent\/features\.json: 1\/1 passing/);
  assert.match(r.text, /w1: done 75%, 0 findings/);
  // Every call is in the ledger.
  const ledger = fs.readFileSync(ledgerPath(path.join(root, '.agent')), 'utf8').trim().split('\n').map((l) => JSON.parse(l).tool);
  assert.deepEqual(ledger, ['agentContext_agentWorkspace', 'agentContext_agentWorkspace', 'agentContext_plan', 'agentContext_plan', 'agentContext_offload', 'agentContext_briefing']);
});

test('plan get: a step or objective written as a YAML block scalar is shown on one line', async () => {
  const { root, ctx } = ws();
  fs.writeFileSync(path.join(root, '.agent', 'plan.yaml'), 'objective: >\n  Ship\n  it\nsteps:\n  - id: a\n    description: |\n      multi\n      line\n    status: pending\n  - id: b\n    description: next\n    status: pending\n');
  const r = await invokeTool('agentContext_plan', { action: 'get' }, ctx);
  assert.ok(!r.isError, r.text);
  const lines = r.text.split('\n');
  assert.ok(lines.includes('Plan .agent/plan.yaml: Ship it'), r.text);
  // Each step on its own line, the next one right after.
  const i = lines.indexOf('[a] pending: multi line');
  assert.ok(i > 0, r.text);
  assert.equal(lines[i + 1], '[b] pending: next');
});
