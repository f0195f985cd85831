import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CHUNK_FIELDS, emptyManifest, manifestText, packChunks, parseManifest, unpackChunks, type Manifest } from '../../../../src/core/search/ranked/manifest';

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
