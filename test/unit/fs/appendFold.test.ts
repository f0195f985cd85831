// AppendFold: summaries of append-only files stay equal to a full re-read while other processes
// append, and start over when the file is truncated, rotated (renamed away) or rewritten in place.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { advanceFold, advanceFoldSync, AppendFold, type FoldCheckpoint, type FoldSpec } from '../../../src/core/fs/appendFold';

interface S {
  count: number;
  sum: number;
  last: string;
  tags: Record<string, number>;
}
const spec: FoldSpec<S> = {
  version: 1,
  init: () => ({ count: 0, sum: 0, last: '', tags: {} }),
  line(s, text) {
    if (!text) return;
    const o = JSON.parse(text) as { tag: string; i: number };
    s.count++;
    s.sum += o.i;
    s.last = text;
    s.tags[o.tag] = (s.tags[o.tag] ?? 0) + 1;
  },
};

/** The state a full re-read of the file gives (what the summary must always equal). */
function fullRead(file: string): S {
  const s = spec.init();
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  lines.pop(); // the last piece is partial (or empty)
  lines.forEach((l, i) => spec.line(s, l, i + 1, 0));
  return s;
}

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-fold-')));
}

test('folds only complete lines; a partial line waits for its newline', async () => {
  const dir = tmp();
  const file = path.join(dir, 'log.jsonl');
  fs.writeFileSync(file, '{"tag":"a","i":1}\n{"tag":"a","i":2}\n{"tag":"a",');
  const f = new AppendFold(file, spec);
  let r = await f.read();
  assert.equal(r.state.count, 2);
  assert.equal(r.rebuilt, true);
  fs.appendFileSync(file, '"i":3}\n');
  r = await f.read();
  assert.equal(r.rebuilt, false);
  assert.deepEqual(r.state, fullRead(file));
  assert.equal(r.state.sum, 6);
});

test('two processes appending while a reader folds: the summary equals a full re-read', async () => {
  const dir = tmp();
  const file = path.join(dir, 'log.jsonl');
  const N = 400;
  const script = `
    const fs = require('fs');
    const [file, tag, n] = process.argv.slice(1);
    (async () => {
      for (let i = 0; i < Number(n); i++) {
        const fh = await fs.promises.open(file, 'a');
        await fh.write(JSON.stringify({ tag, i, pad: 'x'.repeat(i % 700) }) + '\\n');
        await fh.close();
      }
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = (tag: string) => new Promise<number>((resolve) => spawn(process.execPath, ['-e', script, file, tag, String(N)], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1)));
  const f = new AppendFold(file, spec);
  const writers = Promise.all([run('A'), run('B')]);
  let done = false;
  void writers.then(() => (done = true));
  let reads = 0;
  while (!done) {
    const r = await f.read();
    // Whatever moment we read at, the state is that of some complete prefix of the file.
    assert.ok(r.state.count <= 2 * N);
    reads++;
    await new Promise((res) => setTimeout(res, 2));
  }
  assert.deepEqual(await writers, [0, 0]);
  const r = await f.read();
  assert.ok(reads > 1);
  assert.deepEqual(r.state, fullRead(file));
  assert.deepEqual(r.state.tags, { A: N, B: N });
  assert.equal(r.state.sum, N * (N - 1));
});

test('truncation, rotation by rename and a rewrite in place reset the summary', async () => {
  const dir = tmp();
  const file = path.join(dir, 'log.jsonl');
  const line = (tag: string, i: number) => JSON.stringify({ tag, i }) + '\n';
  fs.writeFileSync(file, line('a', 1) + line('a', 2) + line('a', 3));
  const f = new AppendFold(file, spec);
  assert.equal((await f.read()).state.count, 3);
  // Truncated to nothing, then one line.
  fs.truncateSync(file, 0);
  fs.appendFileSync(file, line('b', 10));
  let r = await f.read();
  assert.equal(r.rebuilt, true);
  assert.deepEqual(r.state, fullRead(file));
  // Rotated: renamed away, a new file with the same name (a new inode).
  fs.renameSync(file, file + '.1');
  fs.writeFileSync(file, line('c', 5) + line('c', 6) + line('c', 7) + line('c', 8));
  r = await f.read();
  assert.equal(r.rebuilt, true);
  assert.deepEqual(r.state, fullRead(file));
  // Rewritten in place (same inode), longer than before: the bytes before the old offset changed.
  fs.writeFileSync(file, line('d', 100) + line('d', 200) + line('d', 300) + line('d', 400) + line('d', 500));
  r = await f.read();
  assert.equal(r.rebuilt, true);
  assert.deepEqual(r.state, fullRead(file));
  assert.deepEqual(r.state.tags, { d: 5 });
  // Deleted: empty.
  fs.rmSync(file);
  r = await f.read();
  assert.equal(r.state.count, 0);
});

test('a checkpoint lets a new reader continue, and is ignored when the file no longer matches it', async () => {
  const dir = tmp();
  const file = path.join(dir, 'log.jsonl');
  const cp = path.join(dir, '.cache', 'log.json');
  const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ tag: 'a', i, pad: 'p'.repeat(200) }) + '\n').join('');
  fs.writeFileSync(file, lines);
  const a = new AppendFold(file, spec, { checkpoint: cp, checkpointEveryBytes: 1000 });
  await a.read();
  assert.ok(fs.existsSync(cp));
  assert.equal(fs.readFileSync(path.join(dir, '.cache', '.gitignore'), 'utf8'), '*\n');
  fs.appendFileSync(file, JSON.stringify({ tag: 'b', i: 1 }) + '\n');
  // A second reader (another process) starts from the checkpoint and reads only the new line.
  const b = new AppendFold(file, spec, { checkpoint: cp });
  let r = await b.read();
  assert.equal(r.rebuilt, false);
  assert.deepEqual(r.state, fullRead(file));
  // The file is replaced by a shorter, different one: the checkpoint no longer applies.
  fs.writeFileSync(file + '.new', JSON.stringify({ tag: 'z', i: 9 }) + '\n');
  fs.renameSync(file + '.new', file);
  const c = new AppendFold(file, spec, { checkpoint: cp });
  r = await c.read();
  assert.equal(r.rebuilt, true);
  assert.deepEqual(r.state, fullRead(file));
});

test('lines longer than the read block are folded whole', async () => {
  // The file is read in 1 MB blocks (so a ledger of any size never becomes one string); a line
  // longer than a block is carried across blocks whole.
  const dir = tmp();
  const file = path.join(dir, 'log.jsonl');
  const long = JSON.stringify({ tag: 'L', i: 1, pad: 'q'.repeat(3 * 1024 * 1024) }) + '\n';
  fs.writeFileSync(file, long + JSON.stringify({ tag: 's', i: 2 }) + '\n' + long);
  const r = await new AppendFold(file, spec).read();
  assert.deepEqual(r.state.tags, { L: 2, s: 1 });
});

test('a line of 200 MB (garbage, a file of NULs) is folded as its head (4 MB of it kept), and the lines after it as usual', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-fold-long-'));
  const file = path.join(dir, 'f.txt');
  const seen: { n: number; len: number; at: number }[] = [];
  const lines: FoldSpec<{ n: number }> = { version: 1, init: () => ({ n: 0 }), line: (s, text, n, at) => void (s.n++, seen.push({ n, len: text.length, at })) };
  fs.writeFileSync(file, 'first\n');
  fs.truncateSync(file, 6 + 200 * 1024 * 1024); // 200 MB of NULs without a newline
  const fold = new AppendFold(file, lines);
  assert.equal((await fold.read()).lines, 1); // the long line is not complete yet
  fs.appendFileSync(file, '\nafter\n');
  const r = await fold.read();
  assert.equal(r.lines, 3);
  assert.deepEqual(seen.map((x) => [x.n, x.at]), [[1, 0], [2, 6], [3, 6 + 200 * 1024 * 1024 + 1]]);
  assert.equal(seen[1].len, 4 * 1024 * 1024);
  fs.rmSync(dir, { recursive: true });
});

test('advanceFoldSync gives what advanceFold gives through appends, a partial line, truncation, rotation and a rewrite; more than maxBytes is left to advanceFold', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-foldsync-'));
  const file = path.join(dir, 'log.jsonl');
  const line = (i: number): string => JSON.stringify({ tag: `t${i % 3}`, i }) + '\n';
  let a: FoldCheckpoint<S> | undefined;
  let b: FoldCheckpoint<S> | undefined;
  const step = async (what: string): Promise<void> => {
    const st = fs.statSync(file);
    const r = await advanceFold(file, spec, a, st);
    const q = advanceFoldSync(file, spec, b, st);
    assert.ok(q, what);
    a = r.cp;
    b = q.cp;
    assert.deepEqual(b, a, what);
    assert.equal(q.rebuilt, r.rebuilt, what);
    assert.deepEqual(b.state, fullRead(file), what);
  };
  fs.writeFileSync(file, Array.from({ length: 50 }, (_, i) => line(i)).join(''));
  await step('first read');
  fs.appendFileSync(file, line(50) + '{"tag":"t9","i":');
  await step('an append ending in a partial line');
  fs.appendFileSync(file, '7}\n');
  await step('the partial line completed');
  fs.truncateSync(file, 100);
  await step('truncated');
  fs.renameSync(file, file + '.1');
  fs.writeFileSync(file, line(1) + line(2));
  await step('rotated');
  fs.writeFileSync(file, line(3) + line(4));
  await step('rewritten in place to the same size');
  // Too much to fold in one sync read: undefined, and the checkpoint is not touched.
  const before = JSON.stringify(b);
  fs.appendFileSync(file, Array.from({ length: 100 }, (_, i) => line(i)).join(''));
  assert.equal(advanceFoldSync(file, spec, b, fs.statSync(file), 64), undefined);
  assert.equal(JSON.stringify(b), before);
  fs.rmSync(dir, { recursive: true, force: true });
});
