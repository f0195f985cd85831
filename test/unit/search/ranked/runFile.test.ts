import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodePostings, encodePostings, RunReader, writeRun } from '../../../../src/core/search/ranked/runFile';
import { MAX_MERGE_BYTES, mergeRuns, pickMerge } from '../../../../src/core/search/ranked/runMerge';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'run-'));
}

/** A run of `n` terms (term i is `t<i padded>` plus words around it), each in chunks lo + (i % 7) and lo + 100 + i. */
function sampleRun(dir: string, name: string, lo: number, words: string[]): string {
  const file = path.join(dir, name);
  writeRun(file, lo, lo + 999, (w) => {
    for (const [i, t] of [...words].sort().entries()) w.add(t, encodePostings([lo + (i % 7), lo + 100 + i], [(2 << 2) | 0, (1 << 2) | 2]), 2);
  });
  return file;
}

test('postings survive encoding: ids ascending, counts and issue levels', () => {
  const ids = [1, 2, 300, 70_000, 70_001, 2 ** 40];
  const values = [4, 7, 125, 6, 5, 4];
  assert.deepEqual(decodePostings(encodePostings(ids, values)), { ids, values });
});

test('the usual posting (a term once, on an ordinary line) costs one byte; others a byte more for their value', () => {
  const ids = Array.from({ length: 100 }, (_, i) => 1 + i);
  assert.equal(encodePostings(ids, ids.map(() => 1 << 2)).length, 100);
  assert.equal(encodePostings(ids, ids.map(() => (2 << 2) | 2)).length, 200);
});

test('the dictionary is stored deflated: terms seen once that share no prefix but a suffix (file names, versions) cost less than their text', () => {
  const dir = tmp();
  let seed = 7;
  const letter = (): string => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 26));
  const words = [...new Set(Array.from({ length: 3000 }, () => `${Array.from({ length: 6 }, letter).join('')}-worker.d.ts.map`))];
  const text = words.reduce((n, w) => n + Buffer.byteLength(w), 0);
  const r = RunReader.open(sampleRun(dir, 'r-1.run', 1, words));
  try {
    assert.ok(r.trailer.dict[1] < text * 0.5, `dictionary ${r.trailer.dict[1]} bytes for ${text} bytes of terms`);
    for (const t of words.slice(0, 50)) assert.equal(r.entry(t)?.df, 2, t);
  } finally {
    r.close();
  }
});

test('a run of the previous format (ACSRUN1: postings and dictionary unpacked) is refused, never misread', () => {
  const dir = tmp();
  const file = sampleRun(dir, 'r-1.run', 1, ['alpha', 'beta']);
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.from('ACSRUN1\n'), 0, 8, 0);
  fs.closeSync(fd);
  assert.throws(() => RunReader.open(file), /not a run file/);
});

test('a run finds every term it holds, and no other, through its block index', () => {
  const dir = tmp();
  const words = Array.from({ length: 2000 }, (_, i) => `w${String(i).padStart(4, '0')}`).concat(['错误', 'größe', 'a', 'zzz']);
  const r = RunReader.open(sampleRun(dir, 'r-1.run', 1, words));
  try {
    assert.equal(r.trailer.terms, words.length);
    assert.ok(r.blockCount > 10, 'more than one block');
    for (const t of words) {
      const e = r.entry(t);
      assert.ok(e, t);
      assert.equal(e.df, 2);
      assert.equal(r.postings([e])[0].ids.length, 2);
    }
    for (const t of ['w9999', 'b', '', 'w00005', 'zzzz']) assert.equal(r.entry(t), undefined, t);
    assert.deepEqual([...r.entries()].map((e) => e.term), [...words].sort());
  } finally {
    r.close();
  }
});

test('a prefix gives exactly the terms that start with it, across blocks', () => {
  const dir = tmp();
  const words = ['time', 'timeout', 'timer', 'timestamp', 'tim', 'tiny', 'tick', ...Array.from({ length: 400 }, (_, i) => `timeline${i}`)];
  const r = RunReader.open(sampleRun(dir, 'r-1.run', 1, words));
  try {
    const got = r.withPrefix('time', 1000).map((e) => e.term);
    assert.deepEqual(got, words.filter((w) => w.startsWith('time')).sort());
    assert.deepEqual(r.withPrefix('tim', 3).map((e) => e.term), ['tim', 'time', 'timeline0']);
    assert.deepEqual(r.withPrefix('zz', 10), []);
  } finally {
    r.close();
  }
});

test('the postings of a prefix\'s words, read at once across blocks, are each word\'s own; words apart in the dictionary too', () => {
  const dir = tmp();
  const words = ['time', 'timeout', 'timer', 'tim', 'tiny', 'tick', ...Array.from({ length: 400 }, (_, i) => `timeline${i}`)];
  const sorted = [...words].sort();
  // sampleRun's postings of the i-th term in order.
  const own = (t: string): { ids: number[]; values: number[] } => {
    const i = sorted.indexOf(t);
    return { ids: [1 + (i % 7), 101 + i], values: [(2 << 2) | 0, (1 << 2) | 2] };
  };
  const r = RunReader.open(sampleRun(dir, 'r-1.run', 1, words));
  try {
    const es = r.withPrefix('time', 1000);
    assert.ok(es.length > 300);
    assert.deepEqual(r.postings(es), es.map((e) => own(e.term)));
    const apart = ['tick', 'timer', 'timeline7'].map((t) => r.entry(t)!);
    assert.deepEqual(r.postings(apart), ['tick', 'timer', 'timeline7'].map(own));
    assert.deepEqual(r.postings([]), []);
  } finally {
    r.close();
  }
});

test('a run cut short or of another kind is refused with the reason, never read as empty', () => {
  const dir = tmp();
  const file = sampleRun(dir, 'r-1.run', 1, ['a', 'b', 'c']);
  const whole = fs.readFileSync(file);
  fs.writeFileSync(file, whole.subarray(0, whole.length - 5));
  assert.throws(() => RunReader.open(file), /end mark|cut short/);
  fs.writeFileSync(file, 'not a run at all, but long enough to have a tail');
  assert.throws(() => RunReader.open(file), /end mark|not a run/);
  // No temp file of the writer is left beside the runs.
  assert.deepEqual(fs.readdirSync(dir), ['r-1.run']);
});

test('a merge keeps the live chunks of each term in id order and drops the rest', () => {
  const dir = tmp();
  writeRun(path.join(dir, 'r-1.run'), 1, 10, (w) => {
    w.add('alpha', encodePostings([1, 5], [4, 4]), 2);
    w.add('gone', encodePostings([2], [4]), 1);
  });
  writeRun(path.join(dir, 'r-11.run'), 11, 20, (w) => {
    w.add('alpha', encodePostings([12], [6]), 1);
    w.add('beta', encodePostings([11, 20], [4, 10]), 2);
  });
  const runs = [{ name: 'r-1.run', lo: 1, hi: 10, bytes: 100 }, { name: 'r-11.run', lo: 11, hi: 20, bytes: 100 }];
  const merged = mergeRuns(dir, runs, (id) => id !== 2 && id !== 20);
  assert.notEqual(merged.name, 'r-1.run', 'a merged run never takes the name of an input still in use');
  const r = RunReader.open(path.join(dir, merged.name));
  try {
    assert.deepEqual([r.trailer.lo, r.trailer.hi], [1, 20]);
    assert.deepEqual(r.postings([r.entry('alpha')!])[0], { ids: [1, 5, 12], values: [4, 4, 6] });
    assert.deepEqual(r.postings([r.entry('beta')!])[0], { ids: [11], values: [4] });
    assert.equal(r.entry('gone'), undefined, 'a term whose chunks all went is dropped');
  } finally {
    r.close();
  }
});

test('runs are merged by tiers of four, and never more than twelve stay apart', () => {
  const run = (i: number, bytes: number) => ({ name: `r-${i}.run`, lo: i * 10, hi: i * 10 + 9, bytes });
  const none = () => 1e9;
  assert.equal(pickMerge([run(1, 5e6), run(2, 100), run(3, 100), run(4, 100)], none), undefined);
  assert.deepEqual(pickMerge([run(1, 5e6), run(2, 100), run(3, 100), run(4, 100), run(5, 100)], none)?.map((r) => r.name), ['r-2.run', 'r-3.run', 'r-4.run', 'r-5.run']);
  // Thirteen runs, no four adjacent of one tier: the smallest four adjacent ones.
  const many = Array.from({ length: 13 }, (_, i) => run(i, i === 12 ? 100 : [300_000, 1_100_000, 4_500_000][i % 3]));
  assert.deepEqual(pickMerge(many, none)?.map((r) => r.name), ['r-9.run', 'r-10.run', 'r-11.run', 'r-12.run']);
  // A single run more than half dead is rewritten alone.
  assert.deepEqual(pickMerge([run(1, 5e6)], () => 3)?.map((r) => r.name), ['r-1.run']);
});

test('no merge reads more than MAX_MERGE_BYTES of runs: a query waits behind one merge at most that long', () => {
  const run = (i: number, bytes: number) => ({ name: `r-${i}.run`, lo: i * 10, hi: i * 10 + 9, bytes });
  const none = () => 1e9;
  const big = MAX_MERGE_BYTES / 3;
  // Four runs of one tier whose sum is over the cap stay apart; four small ones after them merge.
  assert.equal(pickMerge([run(1, big), run(2, big), run(3, big), run(4, big)], none), undefined);
  assert.deepEqual(pickMerge([run(1, big), run(2, big), run(3, big), run(4, big), run(5, 100), run(6, 100), run(7, 100), run(8, 100)], none)?.map((r) => r.name), ['r-5.run', 'r-6.run', 'r-7.run', 'r-8.run']);
  // Past twelve runs, none of them small enough to merge: they stay apart rather than one merge of 4/3 the cap.
  assert.equal(pickMerge(Array.from({ length: 14 }, (_, i) => run(i, big)), none), undefined);
  // Past twelve, the smallest adjacent four within the cap.
  const mixed = [...Array.from({ length: 10 }, (_, i) => run(i, big)), run(10, 1000), run(11, 1000), run(12, 1000), run(13, big)];
  assert.deepEqual(pickMerge(mixed, none)?.map((r) => r.name), ['r-9.run', 'r-10.run', 'r-11.run', 'r-12.run']);
  // A half-dead run over the cap (an index written before it) is left as it is; its dead chunks are never quoted.
  assert.equal(pickMerge([run(1, MAX_MERGE_BYTES + 1)], () => 3), undefined);
});

test('a merge of runs none of whose chunks died copies their postings, and they read back the same', () => {
  const dir = tmp();
  const ids = (from: number, n: number, step: number) => Array.from({ length: n }, (_, i) => from + i * step);
  // Ids far apart (multi-byte varints) and a term in every run, in one run, and in two.
  writeRun(path.join(dir, 'r-1.run'), 1, 100_000, (w) => {
    w.add('common', encodePostings(ids(1, 50, 1999), ids(4, 50, 1)), 50);
    w.add('first', encodePostings([7], [5]), 1);
  });
  writeRun(path.join(dir, 'r-100001.run'), 100_001, 300_000, (w) => {
    w.add('common', encodePostings(ids(100_001, 3, 70_000), [4, 8, 125]), 3);
    w.add('shared', encodePostings([200_000], [6]), 1);
  });
  writeRun(path.join(dir, 'r-300001.run'), 300_001, 300_010, (w) => {
    w.add('common', encodePostings([300_010], [4]), 1);
    w.add('shared', encodePostings([300_001, 300_002], [4, 4]), 2);
  });
  const runs = [{ name: 'r-1.run', lo: 1, hi: 100_000, bytes: 100 }, { name: 'r-100001.run', lo: 100_001, hi: 300_000, bytes: 100 }, { name: 'r-300001.run', lo: 300_001, hi: 300_010, bytes: 100 }];
  const merged = mergeRuns(dir, runs, () => true);
  const r = RunReader.open(path.join(dir, merged.name));
  try {
    assert.deepEqual(r.postings([r.entry('common')!])[0], { ids: [...ids(1, 50, 1999), ...ids(100_001, 3, 70_000), 300_010], values: [...ids(4, 50, 1), 4, 8, 125, 4] });
    assert.equal(r.entry('common')!.df, 54);
    assert.deepEqual(r.postings([r.entry('first')!])[0], { ids: [7], values: [5] });
    assert.deepEqual(r.postings([r.entry('shared')!])[0], { ids: [200_000, 300_001, 300_002], values: [6, 4, 4] });
    assert.equal(r.entry('shared')!.df, 3);
  } finally {
    r.close();
  }
});
