// Copilot CLI's plan mirror (core/hooks/copilotCliHook.ts copilotPlanWrite): its session plan.md, written
// by plan mode's create/edit tool calls, copied into .agent/plans/.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copilotPlanSession, copilotPlanWrite } from '../../../src/core/hooks/copilotCliHook';
import { findPlanFiles } from '../../../src/core/plan/planFiles';
import { cleanTmp } from './hookDist';

const tmp = cleanTmp;

function setup(): { ws: string; plan: string } {
  const ws = tmp('ac-cp-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  const dir = path.join(tmp('ac-cp-home-'), '.copilot', 'session-state', '0f9c-41');
  fs.mkdirSync(dir, { recursive: true });
  return { ws, plan: path.join(dir, 'plan.md') };
}

test('copilotPlanSession: only <...>/session-state/<id>/plan.md names a session', () => {
  assert.equal(copilotPlanSession('/h/.copilot/session-state/ab-12/plan.md'), 'ab-12');
  assert.equal(copilotPlanSession('C:\\Users\\u\\.copilot\\session-state\\ab-12\\plan.md'), 'ab-12');
  assert.equal(copilotPlanSession('/h/.copilot/session-state/ab-12/notes.md'), undefined);
  assert.equal(copilotPlanSession('/repo/docs/plan.md'), undefined);
  assert.equal(copilotPlanSession('/h/.copilot/session-state/ab-12/files/plan.md'), undefined);
  assert.equal(copilotPlanSession('plan.md'), undefined);
});

test('copilotPlanWrite: a create mirrors the plan with a header naming its source; an edit refreshes it; unchanged writes nothing', async () => {
  const { ws, plan } = setup();
  fs.writeFileSync(plan, '# Rate limiter\n\n- [ ] Read the middleware\n- [ ] Add the limiter\n');
  const first = await copilotPlanWrite({ toolName: 'create', sessionId: '0f9c-41', toolArgs: { path: plan, file_text: 'ignored: the file on disk counts' } }, ws);
  const mirror = path.join(ws, '.agent', 'plans', 'copilot-cli-0f9c-41.md');
  assert.deepEqual(first, { file: mirror, changed: true });
  const text = fs.readFileSync(mirror, 'utf8');
  assert.match(text.split('\n')[0], /^<!-- Mirrored by Agent Context from GitHub Copilot CLI's plan \(session-state\/0f9c-41\/plan\.md .*edit the plan there, not here\. -->$/);
  assert.ok(text.endsWith('# Rate limiter\n\n- [ ] Read the middleware\n- [ ] Add the limiter\n'));
  fs.writeFileSync(plan, '# Rate limiter\n\n- [x] Read the middleware\n- [ ] Add the limiter\n');
  assert.equal((await copilotPlanWrite({ toolName: 'edit', toolArgs: { path: plan, old_str: '- [ ] Read', new_str: '- [x] Read' } }, ws))?.changed, true);
  assert.match(fs.readFileSync(mirror, 'utf8'), /- \[x\] Read the middleware/);
  assert.equal((await copilotPlanWrite({ toolName: 'edit', toolArgs: { path: plan } }, ws))?.changed, false);
  assert.ok((await findPlanFiles(path.join(ws, '.agent'))).includes(mirror), 'the Plan view and agentContext_plan find the mirror');
});

test('copilotPlanWrite: other tools, other files, a relative path and a missing file mirror nothing', async () => {
  const { ws, plan } = setup();
  fs.writeFileSync(plan, '# Plan\n');
  const other = path.join(ws, 'plan.md');
  fs.writeFileSync(other, '# Not Copilot\'s\n');
  for (const input of [
    { toolName: 'view', toolArgs: { path: plan } },
    { toolName: 'bash', toolArgs: { command: `cat ${plan}` } },
    { toolName: 'create', toolArgs: { path: other, file_text: 'x' } },
    { toolName: 'create', toolArgs: { path: 'session-state/0f9c-41/plan.md', file_text: 'x' } },
    { toolName: 'edit', toolArgs: { path: path.join(path.dirname(path.dirname(plan)), 'gone', 'plan.md') } },
    { toolName: 'edit' },
  ]) {
    assert.equal(await copilotPlanWrite(input, ws), undefined, JSON.stringify(input));
  }
  assert.ok(!fs.existsSync(path.join(ws, '.agent', 'plans')));
});
