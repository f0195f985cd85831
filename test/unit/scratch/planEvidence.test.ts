import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planProtectedPaths } from '../../../src/core/scratch/scratchCleanup';

const plan = (evidence: string[]) => `objective: x\nsteps:\n  - id: 1\n    description: d\n    status: completed\n    evidence: [${evidence.join(', ')}]\n`;

// Cleanup keeps every path a plan names as evidence; the plans' evidence is remembered per file
// stat, so an edit, a broken plan and a removed one must each be seen on the next call.
test('plan evidence follows edits, a broken plan and a removal, also from the cache in .agent/.cache', async () => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-evidence-')));
  const plans = path.join(ws, '.agent', 'plans');
  fs.mkdirSync(plans, { recursive: true });
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(plans, `p${i}.yaml`), plan([`.agent/scratch/e${i}.txt`]));
  fs.writeFileSync(path.join(plans, 'outline.md'), '# Plan\n\n- [ ] a\n');
  const abs = (r: string) => path.join(ws, r);
  const first = await planProtectedPaths(ws);
  assert.ok(first.ok);
  assert.ok(first.value.includes(abs('.agent/scratch/e0.txt')) && first.value.includes(abs('.agent/scratch/e29.txt')));
  assert.ok(first.value.includes(path.join(plans, 'outline.md')), 'the Markdown plan itself is kept');
  assert.ok(fs.existsSync(path.join(ws, '.agent', '.cache', 'plan-evidence.json')), 'the digests are kept for the next process');
  // Edited in place (a different size): the new evidence counts, the old one no longer.
  fs.writeFileSync(path.join(plans, 'p3.yaml'), plan(['.agent/scratch/new-proof.txt', '../outside.txt']));
  const edited = await planProtectedPaths(ws);
  assert.ok(edited.ok);
  assert.ok(edited.value.includes(abs('.agent/scratch/new-proof.txt')));
  assert.ok(!edited.value.includes(abs('.agent/scratch/e3.txt')));
  assert.ok(!edited.value.some((p) => p.endsWith('outside.txt')), 'evidence outside the workspace is not a path of it');
  // A plan that cannot be parsed: an error naming it (its evidence would be unknown), then fixed.
  fs.writeFileSync(path.join(plans, 'p7.yaml'), 'objective: [unclosed\n');
  const broken = await planProtectedPaths(ws);
  assert.equal(broken.ok, false);
  assert.match(!broken.ok ? `${broken.error.file}: ${broken.error.message}` : '', /p7\.yaml/);
  fs.writeFileSync(path.join(plans, 'p7.yaml'), plan(['.agent/scratch/fixed.txt']));
  const fixed = await planProtectedPaths(ws);
  assert.ok(fixed.ok && fixed.value.includes(abs('.agent/scratch/fixed.txt')));
  // Removed: its evidence is free.
  fs.rmSync(path.join(plans, 'p0.yaml'));
  const removed = await planProtectedPaths(ws);
  assert.ok(removed.ok && !removed.value.includes(abs('.agent/scratch/e0.txt')));
  // A garbage cache file is rebuilt, with the same answer.
  fs.writeFileSync(path.join(ws, '.agent', '.cache', 'plan-evidence.json'), '{"format": 12');
  const again = await planProtectedPaths(ws);
  assert.ok(again.ok);
  assert.deepEqual([...again.value].sort(), [...removed.value].sort());
});
