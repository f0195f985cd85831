// The catalog worker's watch of the terminals folder (catalogChanges.ts) stands in for a stat of
// every file: it must name every terminal whose files changed after it began, and say "unknown"
// when it cannot tell.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { watchTerminalChanges } from '../../../../src/core/terminal/catalog/catalogChanges';

function terminals(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-changes-')), 'terminals');
  fs.mkdirSync(dir);
  for (const n of [1, 2, 3, 4, 5]) {
    fs.writeFileSync(path.join(dir, `${n}.txt`), `terminal ${n}\n`);
    fs.writeFileSync(path.join(dir, `${n}.index.jsonl`), `{"v":1,"command":1}\n`);
  }
  return dir;
}

const linux = process.platform === 'linux';

test('names every terminal whose files changed after it began, and no other', { skip: !linux && 'a watch is used on Linux only' }, async () => {
  const dir = terminals();
  const w = watchTerminalChanges(dir);
  assert.ok(w, 'a local file system on Linux: watched');
  fs.appendFileSync(path.join(dir, '2.index.jsonl'), '{"v":1,"command":2}\n');
  fs.appendFileSync(path.join(dir, '4.txt'), 'more output\n');
  fs.truncateSync(path.join(dir, '5.index.jsonl'), 0);
  fs.writeFileSync(path.join(dir, '6.txt'), 'a new terminal\n');
  fs.writeFileSync(path.join(dir, 'notes.md'), 'not a terminal\n');
  // A rename over an index (as an atomic rewrite does).
  fs.writeFileSync(path.join(dir, '.3.index.jsonl.tmp'), '{"v":1,"command":9}\n');
  fs.renameSync(path.join(dir, '.3.index.jsonl.tmp'), path.join(dir, '3.index.jsonl'));
  const seen = await w.seen();
  assert.notEqual(seen, 'all');
  assert.deepEqual([...(seen as ReadonlySet<number>)].sort((a, b) => a - b), [2, 3, 4, 5, 6]);
});

test('nothing changed: nothing named', { skip: !linux && 'a watch is used on Linux only' }, async () => {
  const dir = terminals();
  const w = watchTerminalChanges(dir);
  assert.ok(w);
  fs.readFileSync(path.join(dir, '1.index.jsonl'));
  assert.deepEqual([...(await w.seen() as ReadonlySet<number>)], []);
});

test('the folder replaced or removed under the watch: unknown', { skip: !linux && 'a watch is used on Linux only' }, async () => {
  const dir = terminals();
  const w = watchTerminalChanges(dir);
  assert.ok(w);
  fs.renameSync(dir, `${dir}.old`);
  fs.cpSync(`${dir}.old`, dir, { recursive: true });
  fs.appendFileSync(path.join(dir, '1.index.jsonl'), '{"v":1,"command":2}\n');
  assert.equal(await w.seen(), 'all');
  const w2 = watchTerminalChanges(dir);
  assert.ok(w2);
  fs.rmSync(dir, { recursive: true });
  assert.equal(await w2.seen(), 'all');
});

test('no folder, or not Linux: no watch (the files are stat\'ed instead)', () => {
  assert.equal(watchTerminalChanges(path.join(os.tmpdir(), 'ac-changes-missing', 'terminals')), undefined);
  if (!linux) assert.equal(watchTerminalChanges(terminals()), undefined);
});
