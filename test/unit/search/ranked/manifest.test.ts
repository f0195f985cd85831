import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CHUNK_FIELDS, emptyManifest, isLive, liveSet, manifestText, MAX_CHUNK_ID, packChunks, parseManifest, unpackChunks, type Manifest } from '../../../../src/core/search/ranked/manifest';

/** A file's chunk table as the index writes it: ids ascending, bytes and lines growing, command blocks. */
function table(chunks: number, firstId: number): number[] {
  const c: number[] = [];
  let byte = 0;
  let line = 1;
  for (let i = 0; i < chunks; i++) {
    // The command block goes back to 0 (no command) now and then, so its difference is negative.
    const block = i % 5 === 4 ? 0 : line - (i % 3);
    c.push(firstId + i, byte, line, 300 + ((i * 37) % 400), (i * 2654435761) >>> 0, i % 3, Math.max(0, block));
    byte += 3000 + ((i * 101) % 5000);
    line += 64;
  }
  return c;
}

test('a chunk table packs to a string and back to the same numbers, large and small', () => {
  const c = table(500, 1);
  assert.deepEqual(unpackChunks(packChunks(c)), c);
  // Bytes past 4 GB, the largest hash, a first chunk of id 0 and a block back to 0.
  const edge = [2 ** 33, 2 ** 40 + 5, 10_000_000, 0, 0xffffffff, 2, 7_000, 0, 0, 1, 1, 0, 0, 0];
  assert.deepEqual(unpackChunks(packChunks(edge)), edge);
  assert.deepEqual(unpackChunks(packChunks([])), []);
  assert.throws(() => packChunks([1, -2, 3, 4, 5, 6, 7]), /field 1 is -2/);
});

test('the manifest on disk holds its chunk tables in about half the bytes of JSON arrays, and reads back the same', () => {
  const m: Manifest = emptyManifest();
  let id = 1;
  for (let f = 0; f < 40; f++) {
    m.files[`terminals/${f}.txt`] = { scope: 'terminals', ino: 1000 + f, size: 300_000, mtimeMs: 1765000000000.123, c: table(60, id) };
    id += 60;
  }
  m.nextChunk = id;
  m.runs.push({ name: 'r-1.run', lo: 1, hi: id - 1, bytes: 123_456 });
  const text = manifestText(m);
  const plain = JSON.stringify(m);
  assert.ok(text.length < plain.length * 0.6, `${text.length} vs ${plain.length}`);
  assert.deepEqual(parseManifest(text), m);
});

test('a chunk table that is not one (cut, not base64, a field short) is no manifest: the index is built anew', () => {
  const m: Manifest = emptyManifest();
  m.files['scratch/a.txt'] = { scope: 'scratch', ino: 1, size: 10, mtimeMs: 1, c: table(3, 1) };
  m.nextChunk = 4;
  const good = JSON.parse(manifestText(m)) as { files: Record<string, { c: unknown }> };
  const withC = (c: unknown): string => JSON.stringify({ ...good, files: { 'scratch/a.txt': { ...good.files['scratch/a.txt'], c } } });
  const packed = good.files['scratch/a.txt'].c as string;
  assert.ok(parseManifest(withC(packed)));
  // A varint cut in its middle: the last byte of a multi-byte number.
  const bytes = Buffer.from(packed, 'base64');
  assert.equal(parseManifest(withC(bytes.subarray(0, bytes.length - 1).toString('base64'))), undefined);
  // A chunk short of its CHUNK_FIELDS numbers.
  assert.equal(parseManifest(withC(packChunks(table(3, 1).slice(0, 2 * CHUNK_FIELDS + 3)))), undefined);
  // The numbers as an array (an older writer): not this version's.
  assert.equal(parseManifest(withC(table(3, 1))), undefined);
  assert.equal(parseManifest(withC(42)), undefined);
});

test('a manifest naming a chunk id its writer never gave out (not below nextChunk) is no manifest: the index is built anew', () => {
  const m: Manifest = emptyManifest();
  m.files['scratch/a.txt'] = { scope: 'scratch', ino: 1, size: 10, mtimeMs: 1, c: table(3, 1) };
  m.nextChunk = 4;
  assert.ok(parseManifest(manifestText(m)));
  // The live set's arrays are indexed by chunk id: an id of 2^40 would ask for terabytes.
  assert.equal(parseManifest(manifestText({ ...m, nextChunk: 3 })), undefined);
  assert.equal(parseManifest(manifestText({ ...m, nextChunk: MAX_CHUNK_ID + 1 })), undefined);
});

test('the live set: per chunk id its file, place, terms and document; dead ids none; per document its terms', () => {
  const m: Manifest = emptyManifest();
  // A terminal capture: two chunks before any command (block 0: the file itself), then two commands.
  const term = [5, 0, 1, 10, 0, 0, 0, 6, 100, 20, 11, 0, 0, 0, 8, 200, 40, 12, 0, 2, 30, 9, 300, 60, 13, 0, 0, 30, 12, 400, 80, 14, 0, 0, 70];
  m.files['terminals/3.txt'] = { scope: 'terminals', ino: 1, size: 500, mtimeMs: 1, c: term };
  m.files['scratch/b.txt'] = { scope: 'scratch', ino: 2, size: 50, mtimeMs: 1, c: [2, 0, 1, 7, 0, 0, 0] };
  m.nextChunk = 20;
  const live = liveSet(m);
  assert.deepEqual([live.chunks, live.tokens, live.bytes], [6, 10 + 11 + 12 + 13 + 14 + 7, 550]);
  assert.deepEqual(live.docs, ['terminals/3.txt', 'terminals/3.txt#30', 'terminals/3.txt#70', 'scratch/b.txt']);
  assert.deepEqual([...live.docTokens], [21, 25, 14, 7]);
  const at = (id: number): unknown => (isLive(live, id) ? [live.rels[live.chunkFile[id - live.base]], live.chunkIndex[id - live.base], live.chunkTokens[id - live.base], live.docs[live.chunkDoc[id - live.base]]] : 'dead');
  assert.deepEqual([2, 5, 8, 12].map(at), [['scratch/b.txt', 0, 7, 'scratch/b.txt'], ['terminals/3.txt', 0, 10, 'terminals/3.txt'], ['terminals/3.txt', 2, 12, 'terminals/3.txt#30'], ['terminals/3.txt', 4, 14, 'terminals/3.txt#70']]);
  // Ids given out and dropped since (a file indexed again), and ids past every live one.
  assert.deepEqual([0, 1, 3, 7, 10, 19, 20, 1e9].map(at), Array(8).fill('dead'));
});
