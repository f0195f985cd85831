import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planDigests } from '../../../src/core/plan/planDigests';
import { mirrorPlan } from '../../../src/core/plan/mirroredPlans';

// The Plan view draws a collapsed plan's row (objective, line, progress, read-only owner) from its digest, without parsing it.
test('plan digests carry what a Plan view row shows: objective line, progress, outline, the mirroring agent', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-plandigest-'));
  const agent = path.join(ws, '.agent');
  fs.mkdirSync(path.join(agent, 'plans'), { recursive: true });
  const yaml = path.join(agent, 'plans', 'a.yaml');
  fs.writeFileSync(yaml, '# a comment\n\nobjective: Ship the parser\nstatus: in_progress\nsteps:\n  - id: "1"\n    description: Write it\n    status: completed\n  - id: "2"\n    description: Test it\n    status: pending\n');
  const md = path.join(agent, 'plans', 'b.md');
  fs.writeFileSync(md, 'Intro line\n\n# Outline only\n\n## Why\ntext\n');
  const r = await mirrorPlan(agent, 'copilot-cli-s1.md', '# Plan: Mirror me\n\n- [x] one\n- [ ] two\n', 'GitHub Copilot CLI', undefined);
  assert.ok(r.ok);
  const mirrored = path.join(agent, 'plans', 'copilot-cli-s1.md');
  const bad = path.join(agent, 'plans', 'c.yaml');
  fs.writeFileSync(bad, 'objective: [unclosed\n');
  const rel = (f: string) => path.relative(ws, f).split(path.sep).join('/');
  const d = await planDigests(agent, [yaml, md, mirrored, bad], rel, { only: true });
  const y = d.get(yaml)!.plan;
  assert.deepEqual([y.objective, y.objectiveLine, y.status, y.done, y.total, y.outline, y.mirror], ['Ship the parser', 3, 'in_progress', 1, 2, undefined, undefined]);
  const m = d.get(md)!.plan;
  assert.deepEqual([m.objective, m.objectiveLine, m.outline, m.mirror], ['Outline only', 3, true, undefined]);
  const c = d.get(mirrored)!.plan;
  assert.deepEqual([c.objective, c.done, c.total, c.mirror], ['Plan: Mirror me', 1, 2, 'GitHub Copilot CLI']);
  assert.equal(c.objectiveLine, 2, 'the line after the mirror header');
  assert.match(d.get(bad)!.plan.error ?? '', /c\.yaml/);

  // What a new process reads back from .agent/.cache/ is the same, without reading the plans.
  const cacheFile = path.join(agent, '.cache', 'briefing-plans.json');
  assert.ok(fs.existsSync(cacheFile), 'the digests were saved');
  const lines = fs.readFileSync(cacheFile, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as [string, unknown, { plan: { objectiveLine?: number } }]);
  assert.equal(lines.find(([f]) => f === 'plans/a.yaml')?.[2].plan.objectiveLine, 3);
});
