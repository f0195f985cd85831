import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { BatchPostings, TermTally } from '../../../../src/core/search/ranked/batchPostings';
import { decodePostings, encodePostings, MAX_TF } from '../../../../src/core/search/ranked/runFile';
import { termId } from '../../../../src/core/search/ranked/terms';

test('a batch\'s postings come out per term in sorted order, ids ascending, encoded as runs store them', () => {
  // Chunks in id order, each with some of the words (as chunkFile hands them to indexBatch).
  const words = ['zeta', 'alpha', 'Größe', '错误', 'a', 'alpha.beta', 'b', ...Array.from({ length: 300 }, (_, i) => `w${i}`)];
  const batch = new BatchPostings();
  const want = new Map<string, { ids: number[]; values: number[] }>();
  let seed = 11;
  const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let id = 1_000_000; id < 1_000_000 + 2_000; id++) {
    const inChunk = new Map<string, number>();
    for (let k = rnd(40); k > 0; k--) inChunk.set(words[rnd(words.length)], ((1 + rnd(31)) << 2) | rnd(3));
    for (const [w, v] of inChunk) {
      batch.add(termId(w), id, v);
      let l = want.get(w);
      if (!l) want.set(w, (l = { ids: [], values: [] }));
      l.ids.push(id);
      l.values.push(v);
    }
  }
  assert.equal(batch.terms, want.size);
  const got: string[] = [];
  batch.forEachSorted((term, raw, df) => {
    got.push(term);
    const l = want.get(term)!;
    assert.equal(df, l.ids.length, term);
    assert.deepEqual(Buffer.from(raw), encodePostings(l.ids, l.values), term);
    assert.deepEqual(decodePostings(raw), l, term);
  });
  assert.deepEqual(got, [...want.keys()].sort());
});

test('an empty batch writes no term', () => {
  const terms: string[] = [];
  new BatchPostings().forEachSorted((t) => terms.push(t));
  assert.deepEqual(terms, []);
});

test('a chunk\'s tally counts each term up to MAX_TF with the highest issue level it stood on, and starts empty again', () => {
  const tally = new TermTally();
  const [a, b, far] = [termId('tally-a'), termId('tally-b'), 200_000];
  for (let k = 0; k < 40; k++) tally.add(a, k === 5 ? 2 : 0);
  tally.add(b, 1);
  tally.add(far, 0);
  tally.add(b, 0);
  const got: [number, number][] = [];
  tally.drain((id, v) => got.push([id, v]));
  assert.deepEqual(got, [[a, (MAX_TF << 2) | 2], [b, (2 << 2) | 1], [far, (1 << 2) | 0]]);
  assert.equal(tally.size, 0);
  tally.add(b, 0);
  const again: [number, number][] = [];
  tally.drain((id, v) => again.push([id, v]));
  assert.deepEqual(again, [[b, 1 << 2]]);
});
