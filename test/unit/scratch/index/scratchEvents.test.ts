// The scratch index following file events (update with the paths a watcher reported), on a small
// real folder: what a user sees in the Scratch view after creating, changing and deleting files.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ScratchIndex } from '../../../../src/core/scratch/index/scratchIndex';

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function agentDir(): string {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scratch-events-')));
  made.push(ws);
  fs.mkdirSync(path.join(ws, '.agent', 'scratch'), { recursive: true });
  return path.join(ws, '.agent');
}

test('files and folders whose names start with two dots are followed like any other (..x is inside scratch/)', async () => {
  const a = agentDir();
  const s = path.join(a, 'scratch');
  fs.writeFileSync(path.join(s, 'a.txt'), 'a');
  const index = await ScratchIndex.build(a, { snapshot: false, summary: false });
  index.followsEvents = true;
  assert.ok(index.file('a.txt'));
  fs.writeFileSync(path.join(s, '..x'), 'dots');
  fs.mkdirSync(path.join(s, '..y'));
  fs.writeFileSync(path.join(s, '..y', 'z.txt'), 'zz');
  await index.update([path.join(s, '..x'), path.join(s, '..y')]);
  assert.equal(index.file('..x')?.size, 4);
  assert.equal(index.file('..y/z.txt')?.size, 2);
  assert.deepEqual(index.totals(), { files: 3, bytes: 7 });
  fs.rmSync(path.join(s, '..x'));
  await index.update([path.join(s, '..x')]);
  assert.equal(index.file('..x'), undefined);
  // A path that really leaves scratch/ is ignored.
  await index.update([path.join(a, 'elsewhere.txt')]);
  assert.deepEqual(index.totals(), { files: 2, bytes: 3 });
});
