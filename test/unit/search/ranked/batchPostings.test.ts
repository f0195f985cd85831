import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { BatchPostings } from '../../../../src/core/search/ranked/batchPostings';
import { decodePostings, encodePostings } from '../../../../src/core/search/ranked/runFile';

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
      batch.add(w, id, v);
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
