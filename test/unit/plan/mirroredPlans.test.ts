import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mirroredPlanName, mirrorPlan, MIRROR_MAX_BYTES } from '../../../src/core/plan/mirroredPlans';
import { gatherBriefing } from '../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../src/core/briefing/composeBriefing';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';

const COPILOT_PLAN = '# Plan: Cache the rate limiter\n\nTL;DR: keep a bucket per client.\n\n## Steps\n1. [ ] Measure the hit rate\n2. [ ] Add the cache\n';

test('a plan mirrored from an agent: named for agent and session, written once, read by agentContext_plan and the briefing as a plan of .agent/plans/', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-mirror-'));
  const agent = path.join(ws, '.agent');
  fs.mkdirSync(agent);
  fs.writeFileSync(path.join(agent, 'plan.yaml'), 'objective: Ship the parser\nsteps:\n  - id: "1"\n    description: Write it\n    status: in_progress\n');
  assert.equal(mirroredPlanName('copilot', 'vscode-chat-session://local/YWJj/../x y'), 'copilot-vscode-chat-session___local_YWJj_.._x_y.md');
  assert.equal(mirroredPlanName('copilot', '...'), 'copilot-session.md');
  const name = mirroredPlanName('copilot', 'YWJjZGVm');
  let r = await mirrorPlan(agent, name, COPILOT_PLAN, 'VS Code\'s Plan agent', undefined);
  assert.ok(r.ok && r.value.changed);
  const file = path.join(agent, 'plans', name);
  const first = fs.statSync(file).mtimeMs;
  r = await mirrorPlan(agent, name, COPILOT_PLAN, 'VS Code\'s Plan agent', undefined);
  assert.ok(r.ok && !r.value.changed, 'the same text writes nothing');
  assert.equal(fs.statSync(file).mtimeMs, first);
  assert.match(fs.readFileSync(file, 'utf8'), /^<!-- Mirrored by Agent Context from VS Code's Plan agent\. .*edit the plan there, not here\. -->\n# Plan: Cache/);

  const ctx = { folders: [{ name: 'w', path: ws }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp' as const, trusted: true, allowRun: false };
  const listed = await invokeTool('agentContext_plan', {}, ctx);
  assert.match(listed.text, /Other plans \(pass plan to read one\):\n- \.agent\/plans\/copilot-YWJjZGVm\.md: Plan: Cache the rate limiter \(0\/2 done\)/, listed.text);
  const read = await invokeTool('agentContext_plan', { plan: 'copilot-YWJjZGVm' }, ctx);
  assert.match(read.text, /\[1\] pending: Measure the hit rate\n\[2\] pending: Add the cache/);
  const brief = composeBriefing(await gatherBriefing(agent)).text;
  assert.match(brief, /\.agent\/plans\/copilot-YWJjZGVm\.md/);

  // The agent's update follows; a plan over 1 MB is refused with the reason, the old mirror kept.
  r = await mirrorPlan(agent, name, COPILOT_PLAN.replace('1. [ ]', '1. [x]'), 'VS Code\'s Plan agent', undefined);
  assert.ok(r.ok && r.value.changed);
  assert.match(fs.readFileSync(file, 'utf8'), /1\. \[x\] Measure/);
  r = await mirrorPlan(agent, name, 'x'.repeat(MIRROR_MAX_BYTES + 1), 'VS Code\'s Plan agent', undefined);
  assert.ok(!r.ok);
  assert.match(r.error.message, /over 1 MB/);
  assert.match(fs.readFileSync(file, 'utf8'), /1\. \[x\] Measure/);

  // A secret in the agent's plan is masked in the mirror (a file of the project, read back by every agent).
  const token = 'ghp_' + 'aKQeHtmOrgMiOt9oYwg0btBdaSuEkmieNzzV';
  r = await mirrorPlan(agent, name, COPILOT_PLAN.replace('1. [ ]', `1. [x] push with ${token};`), 'VS Code\'s Plan agent', undefined);
  assert.ok(r.ok && r.value.changed);
  const mirrored = fs.readFileSync(file, 'utf8');
  assert.ok(!mirrored.includes(token), mirrored);
  assert.match(mirrored, /push with \[MASKED:github-token\];/);
});
