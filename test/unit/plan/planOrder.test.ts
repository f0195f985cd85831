import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PlanOrder } from '../../../src/core/plan/planOrder';
import { findPlanFiles } from '../../../src/core/plan/planFiles';

function workspace(): { root: string; agentDir: string; plan: (rel: string, ageS: number) => string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-order-')));
  const agentDir = path.join(root, '.agent');
  const now = Date.now() / 1000;
  const plan = (rel: string, ageS: number): string => {
    const f = path.join(rel.startsWith('.opencode') ? root : agentDir, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, f.endsWith('.md') ? '# Plan\n\n- [ ] one\n' : 'objective: x\nsteps: []\n');
    fs.utimesSync(f, now - ageS, now - ageS);
    return f;
  };
  return { root, agentDir, plan };
}

test('plan folders are paged newest first; the single plan files come apart, always', async () => {
  const { agentDir, plan } = workspace();
  const main = plan('plan.yaml', 1000);
  const current = plan('scratch/current_plan.yaml', 1000);
  const files = Array.from({ length: 45 }, (_, i) => plan(`plans/p${String(i).padStart(2, '0')}.${i % 2 ? 'md' : 'yaml'}`, 100 + i * 10));
  const scratchPlan = plan('scratch/plans/s.yaml', 105); // between p00 (100 s) and p01 (110 s)
  const opencode = plan('.opencode/plans/1-a.md', 50); // newest
  plan('plans/notes.txt', 1); // not a plan
  plan('scratch/plans/n.md', 1); // Markdown is read in plans/ only
  const order = new PlanOrder(agentDir);
  const first = await order.page(0, 20);
  assert.deepEqual(first.fixed, [main, current]);
  assert.equal(first.total, 47);
  assert.deepEqual(first.files.slice(0, 4), [opencode, files[0], scratchPlan, files[1]]);
  const all = [...first.files, ...(await order.page(20, 20)).files, ...(await order.page(40, 20)).files];
  assert.equal(all.length, 47);
  assert.deepEqual(new Set(all), new Set([...files, scratchPlan, opencode]), 'every plan is on some page, once');
  assert.deepEqual(new Set([...first.fixed, ...all]), new Set(await findPlanFiles(agentDir)), 'the same plans as findPlanFiles');
});

test('changed paths move an edited plan to the front, add a new one and drop a removed one; invalidate re-lists', async () => {
  const { agentDir, plan } = workspace();
  const files = Array.from({ length: 5 }, (_, i) => plan(`plans/p${i}.yaml`, 100 + i * 10));
  const order = new PlanOrder(agentDir);
  assert.deepEqual((await order.page(0, 10)).files, files);
  // Edited in place (no report yet): the order is the one listed.
  const t = Date.now() / 1000;
  fs.utimesSync(files[4], t, t);
  const added = plan('plans/new.md', 5);
  fs.rmSync(files[0]);
  // Added and removed plans change the folder: seen without a report. The edit in place keeps its place.
  assert.deepEqual((await order.page(0, 10)).files, [added, files[1], files[2], files[3], files[4]]);
  assert.equal(order.has(files[0]), false);
  order.changed([files[4], path.join(agentDir, 'progress.md')]);
  assert.deepEqual((await order.page(0, 10)).files, [files[4], added, files[1], files[2], files[3]], 'the reported edit leads');
  // invalidate() re-reads every stat: an edit nobody reported takes its place too.
  const t2 = Date.now() / 1000 + 60;
  fs.utimesSync(files[3], t2, t2);
  assert.equal((await order.page(0, 10)).files[0], files[4]);
  order.invalidate();
  assert.equal((await order.page(0, 10)).files[0], files[3]);
});

test('a report that arrives while the folders are being listed is applied after', async () => {
  const { agentDir, plan } = workspace();
  const files = Array.from({ length: 50 }, (_, i) => plan(`plans/p${i}.yaml`, 100 + i));
  const order = new PlanOrder(agentDir);
  const listing = order.page(0, 3);
  const t = Date.now() / 1000 + 10;
  fs.utimesSync(files[49], t, t);
  order.changed([files[49]]);
  assert.equal((await listing).files[0], files[49]);
  // An invalidate while listing: the listing starts over and sees the new file.
  const again = new PlanOrder(agentDir);
  const p = again.page(0, 3);
  const late = plan('plans/late.yaml', -20);
  again.invalidate();
  assert.equal((await p).files[0], late);
});

test('a plan folder created or removed as a whole is listed again without any report', async () => {
  const { root, agentDir, plan } = workspace();
  plan('plans/a.yaml', 100);
  const order = new PlanOrder(agentDir);
  assert.equal((await order.page(0, 10)).total, 1);
  const oc = plan('.opencode/plans/1-x.md', 10);
  assert.deepEqual((await order.page(0, 10)).files[0], oc);
  fs.rmSync(path.join(agentDir, 'plans'), { recursive: true });
  assert.deepEqual((await order.page(0, 10)).files, [oc]);
  // Paths elsewhere are ignored.
  order.changed([path.join(agentDir, 'scratch', 'x.txt'), path.join(root, 'src'), path.join(agentDir, 'plan.yaml')]);
  assert.deepEqual((await order.page(0, 10)).files, [oc]);
});
