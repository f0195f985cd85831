// The scratch index's basics in the fast tier (the rest is in test/slow/scratch/index/): it matches a
// full scan by an independent walker (plainScan, a plain lstat walk sharing no code with the index),
// pages newest first, and follows changes path by path.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { plainScan } from '../../../slow/scratch/index/plainScan';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scratch-basics-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

test('the scratch index matches a full scan, pages newest first, and follows changes path by path', async () => {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');

  const a = tmpAgent();
  const s = path.join(a, 'scratch');
  fs.mkdirSync(path.join(s, 'tool_outputs', 'deep'), { recursive: true });
  const t0 = Date.now() / 1000 - 10_000;
  for (let i = 0; i < 450; i++) {
    const f = path.join(s, i % 3 === 0 ? 'tool_outputs' : '', `f${String(i).padStart(3, '0')}.txt`);
    fs.writeFileSync(f, 'x'.repeat(i));
    fs.utimesSync(f, t0 + i, t0 + i);
  }
  fs.writeFileSync(path.join(s, 'tool_outputs', 'deep', 'z.txt'), 'zz');
  const ix = await ScratchIndex.build(a);
  const scan = plainScan(a);
  assert.deepEqual(ix.totals(), scan.totals());
  const top = scan.filesPage('', 0, 1000).entries;
  const p1 = ix.filesPage('', 0, 200);
  assert.equal(p1.total, top.length);
  assert.deepEqual(p1.entries.map((e) => e.rel), top.slice(0, 200).map((f) => f.rel));
  const p2 = ix.filesPage('', 200, 200);
  assert.deepEqual(p2.entries.map((e) => e.rel), top.slice(200, 400).map((f) => f.rel));
  assert.deepEqual(ix.folder('')!.subdirs, ['tool_outputs']);
  assert.equal(ix.folder('tool_outputs')!.count, 151);
  // A new file, a changed one, a deleted one, a deleted folder: one update with those paths.
  fs.writeFileSync(path.join(s, 'new.txt'), 'newest');
  fs.writeFileSync(path.join(s, 'f001.txt'), 'changed size');
  fs.rmSync(path.join(s, 'f002.txt'));
  fs.rmSync(path.join(s, 'tool_outputs', 'deep'), { recursive: true });
  await ix.update([path.join(s, 'new.txt'), path.join(s, 'f001.txt'), path.join(s, 'f002.txt'), path.join(s, 'tool_outputs', 'deep'), path.join(a, 'plan.yaml')]);
  const again = plainScan(a);
  assert.deepEqual(ix.totals(), again.totals());
  const newest = ix.filesPage('', 0, 2).entries.map((e) => e.rel);
  assert.deepEqual(newest, again.filesPage('', 0, 2).entries.map((e) => e.rel));
  // The kept newest-first order, updated in place, equals a plain scan's.
  const fresh = plainScan(a);
  for (const off of [0, 200]) assert.deepEqual(ix.filesPage('', off, 200), fresh.filesPage('', off, 200));
  assert.equal(ix.folder('tool_outputs/deep'), undefined);
  assert.deepEqual(ix.folder('tool_outputs')!.subdirs, []);
  // A folder moved in with files (no events for its files): walked on its own event.
  const moved = path.join(os.tmpdir(), `ac-moved-${process.pid}`);
  fs.mkdirSync(path.join(moved, 'inner'), { recursive: true });
  fs.writeFileSync(path.join(moved, 'inner', 'a.txt'), 'aaa');
  fs.renameSync(moved, path.join(s, 'moved'));
  await ix.update([path.join(s, 'moved')]);
  assert.equal(ix.folder('moved')!.count, 1);
  assert.equal(ix.totals().files, again.totals().files + 1);
});
