// Plans an agent keeps outside .agent/ with no setting to move them (opencode's .opencode/plans/):
// found beside ours, classified as plan changes, listed by agentContext_plan and the briefing, and
// read-only (the agent rewrites them).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findPlanFiles, isPlanPath, readOnlyPlanOwner } from '../../../src/core/plan/planFiles';
import { classifyAgentPath } from '../../../src/core/workspace/agentLayout';
import { planTool } from '../../../src/core/tools/plan';
import { mirroredPlanName, mirrorOwner, mirrorPlan } from '../../../src/core/plan/mirroredPlans';
import { briefingTool } from '../../../src/core/tools/briefing';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';

const OPENCODE_PLAN = '# Rate limiting\n\n- [ ] Add a token bucket to the public API\n- [x] Measure the current load\n';

function workspace(): { root: string; agentDir: string; ctx: ToolContext; plan: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-agentplans-')));
  const agentDir = path.join(root, '.agent');
  fs.mkdirSync(path.join(agentDir, 'plans'), { recursive: true });
  fs.writeFileSync(path.join(agentDir, 'plan.yaml'), 'objective: Ship the release\nsteps:\n  - id: 1\n    description: Tag it\n    status: pending\n');
  fs.mkdirSync(path.join(root, '.opencode/plans'), { recursive: true });
  const plan = path.join(root, '.opencode/plans/1764633600000-rate-limiting.md');
  fs.writeFileSync(plan, OPENCODE_PLAN);
  fs.writeFileSync(path.join(root, '.opencode/plans/notes.txt'), 'not a plan');
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  return { root, agentDir, ctx, plan };
}

test('opencode\'s plans are found after ours, their changes count as plan changes, and they are marked as opencode\'s', async () => {
  const { root, agentDir, plan } = workspace();
  assert.deepEqual(await findPlanFiles(agentDir), [path.join(agentDir, 'plan.yaml'), plan]);
  assert.equal(readOnlyPlanOwner(agentDir, plan), 'opencode');
  assert.equal(readOnlyPlanOwner(agentDir, path.join(agentDir, 'plan.yaml')), undefined);
  assert.equal(isPlanPath(agentDir, plan), true);
  assert.equal(isPlanPath(agentDir, path.join(root, '.opencode/plans/notes.txt')), false);
  assert.deepEqual(classifyAgentPath(root, plan, isPlanPath), ['plan']);
  assert.deepEqual(classifyAgentPath(root, path.join(root, '.opencode/opencode.json'), isPlanPath), []);
});

test('agentContext_plan lists opencode\'s plan under the current one (read-only), reads it by name, and refuses to edit it', async () => {
  const { ctx, plan } = workspace();
  const list = await planTool({}, ctx);
  assert.match(list.text, /^Plan \.agent\/plan\.yaml/);
  assert.match(list.text, /- \.opencode\/plans\/1764633600000-rate-limiting\.md: Rate limiting \(1\/2 done\) \(opencode's plan, read-only\)/);
  const one = await planTool({ plan: '1764633600000-rate-limiting' }, ctx);
  assert.match(one.text, /^Plan \.opencode\/plans\/1764633600000-rate-limiting\.md \(opencode's plan, read-only\)/);
  const edit = await planTool({ plan: '1764633600000-rate-limiting.md', action: 'setStatus', stepId: '1', status: 'completed' }, ctx);
  assert.equal(edit.isError, true);
  assert.match(edit.text, /opencode's own plan: read-only/);
  assert.equal(fs.readFileSync(plan, 'utf8'), OPENCODE_PLAN);
});

test('the briefing names opencode\'s plan with its open step', async () => {
  const { ctx } = workspace();
  const b = await briefingTool({}, ctx);
  assert.match(b.text, /\.opencode\/plans\/1764633600000-rate-limiting\.md/);
  assert.match(b.text, /Add a token bucket to the public API/);
});

test('a mirror of an agent\'s plan in .agent/plans/ is read-only: agentContext_plan names its agent and refuses to edit it; a plan of ours with a similar name is not', async () => {
  const { agentDir, ctx } = workspace();
  const r = await mirrorPlan(agentDir, mirroredPlanName('copilot-cli', 'sess-7'), '# Cache the lookups\n\n- [ ] Add an LRU\n- [ ] Invalidate on update\n', "GitHub Copilot CLI's plan (session-state/sess-7/plan.md in its home folder, session sess-7)", undefined);
  assert.ok(r.ok);
  const mirror = r.value.file;
  const text = fs.readFileSync(mirror, 'utf8');
  assert.equal(readOnlyPlanOwner(agentDir, mirror, text), 'GitHub Copilot CLI');
  assert.equal(mirrorOwner(text), 'GitHub Copilot CLI');
  assert.equal(mirrorOwner(text.replace("GitHub Copilot CLI's plan (session-state", "VS Code's Plan agent (Copilot Chat")), "VS Code's Plan agent");
  const one = await planTool({ plan: 'copilot-cli-sess-7' }, ctx);
  assert.match(one.text, /^Plan \.agent\/plans\/copilot-cli-sess-7\.md \(GitHub Copilot CLI's plan, read-only\)/);
  assert.match(one.text, /\nRead-only here: GitHub Copilot CLI rewrites this plan; change it in GitHub Copilot CLI\.$/);
  assert.doesNotMatch(one.text, /setStatus writes/, 'no edit hint for a plan it may not edit');
  const edit = await planTool({ plan: 'copilot-cli-sess-7.md', action: 'setStatus', stepId: '1', status: 'completed' }, ctx);
  assert.equal(edit.isError, true);
  assert.match(edit.text, /GitHub Copilot CLI's own plan: read-only here/);
  assert.equal(fs.readFileSync(mirror, 'utf8'), text, 'the mirror is unchanged');
  // Our own plan named like a mirror, without the mirror's first line: editable.
  const ours = path.join(agentDir, 'plans', 'copilot-cli-mine.md');
  fs.writeFileSync(ours, '# Mine\n\n- [ ] One\n');
  assert.equal(readOnlyPlanOwner(agentDir, ours, fs.readFileSync(ours, 'utf8')), undefined);
  const mine = await planTool({ plan: 'copilot-cli-mine.md', action: 'setStatus', stepId: '1', status: 'completed' }, ctx);
  assert.equal(mine.isError, undefined, mine.text);
  assert.equal(fs.readFileSync(ours, 'utf8'), '# Mine\n\n- [x] One\n');
  // Text that only starts like a mirror's line is not one.
  assert.equal(mirrorOwner('<!-- Mirrored by Agent Context from somewhere -->\n# x\n'), undefined);
});
