// "Has this file or folder changed?" (fs/stamps.ts), on real files: what each cache that trusts a
// stat instead of a read would miss if a part of the key or stamp were left out.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { equalFileKeys, fileKeyOf, isFileKey, RACY_MS, sameFileKey, sameStamp, settledStamp, stampOf } from '../../../src/core/fs/stamps';
import { ScratchIndex } from '../../../src/core/scratch/index/scratchIndex';

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-stamps-')));
  made.push(d);
  return d;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('a file rewritten in place with the same size and its mtime set back still changes its key (the ctime)', async () => {
  const f = path.join(tmp(), 'a.txt');
  fs.writeFileSync(f, 'one');
  const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000); // a whole second: utimes keeps it exactly
  fs.utimesSync(f, old, old);
  const before = fs.statSync(f);
  const key = fileKeyOf(before);
  await sleep(20);
  fs.writeFileSync(f, 'two');
  fs.utimesSync(f, old, old);
  const after = fs.statSync(f);
  assert.equal(after.size, before.size);
  assert.equal(after.mtimeMs, before.mtimeMs);
  assert.equal(after.ino, before.ino);
  assert.equal(sameFileKey(key, after), false, 'the ctime tells');
  assert.equal(sameFileKey(key, before), true);
  assert.equal(equalFileKeys(key, fileKeyOf(before)), true);
  assert.equal(equalFileKeys(key, fileKeyOf(after)), false);
  // A file replaced by rename (an atomic write) has another inode.
  fs.writeFileSync(`${f}.tmp`, 'two');
  fs.renameSync(`${f}.tmp`, f);
  assert.equal(sameFileKey(fileKeyOf(after), fs.statSync(f)), false);
  assert.ok(isFileKey(JSON.parse(JSON.stringify(key))));
  assert.ok(!isFileKey([1, 2, 3, 4]));
  assert.ok(!isFileKey([1, 2, 3, 4, 'x']));
});

test('a folder stamp changes when an entry is added, even with its mtime set back; it is settled only once both times are old', async () => {
  const d = tmp();
  const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  fs.utimesSync(d, old, old);
  const kept = stampOf(fs.statSync(d));
  assert.ok(sameStamp(kept, fs.statSync(d)));
  await sleep(20);
  fs.writeFileSync(path.join(d, 'new.txt'), 'x');
  fs.utimesSync(d, old, old);
  assert.equal(fs.statSync(d).mtimeMs, kept.mtimeMs);
  assert.equal(sameStamp(kept, fs.statSync(d)), false);
  const now = Date.now();
  assert.equal(settledStamp({ mtimeMs: now - RACY_MS - 1, ctimeMs: now - RACY_MS - 1 }, now), true);
  assert.equal(settledStamp({ mtimeMs: now - RACY_MS - 1, ctimeMs: now - 10 }, now), false, 'a recent ctime is not settled');
  assert.equal(settledStamp({ mtimeMs: now - 10, ctimeMs: now - RACY_MS - 1 }, now), false);
});

test('the scratch index lists a folder again when a file was added and the folder\'s mtime set back (its ctime changed)', async () => {
  const ws = tmp();
  const sub = path.join(ws, '.agent', 'scratch', 'sub');
  fs.mkdirSync(sub, { recursive: true });
  fs.writeFileSync(path.join(sub, 'a.txt'), 'a');
  const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  fs.utimesSync(sub, old, old);
  // The folder's ctime (the utimes above) must be settled when it is listed, so the listing stands on its stamp.
  await sleep(RACY_MS + 200);
  const index = await ScratchIndex.build(path.join(ws, '.agent'), { snapshot: false, summary: false });
  assert.ok(index.file('sub/a.txt'));
  fs.writeFileSync(path.join(sub, 'b.txt'), 'b');
  fs.utimesSync(sub, old, old);
  await index.revalidate();
  assert.ok(index.file('sub/b.txt'), 'the file added under a mtime set back is listed');
});
