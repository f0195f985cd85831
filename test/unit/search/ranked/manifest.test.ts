import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { CHUNK_FIELDS, emptyManifest, isLive, liveSet, manifestBytes, MAX_CHUNK_ID, packChunks, parseManifest, unpackChunks, type Manifest } from '../../../../src/core/search/ranked/manifest';

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

test('a chunk table packs to bytes and back to the same numbers, large and small', () => {
  const c = table(500, 1);
  assert.deepEqual(unpackChunks(packChunks(c)), c);
  // Bytes past 4 GB, the largest hash, a first chunk of id 0 and a block back to 0.
  const edge = [2 ** 33, 2 ** 40 + 5, 10_000_000, 0, 0xffffffff, 2, 7_000, 0, 0, 1, 1, 0, 0, 0];
  assert.deepEqual(unpackChunks(packChunks(edge)), edge);
  assert.deepEqual(unpackChunks(packChunks([])), []);
  assert.throws(() => packChunks([1, -2, 3, 4, 5, 6, 7]), /field 1 is -2/);
  // Cut in the middle of a number, or a chunk short of its CHUNK_FIELDS numbers: not a table.
  const b = packChunks(c);
  assert.equal(unpackChunks(b.subarray(0, b.length - 1)), undefined);
  assert.equal(unpackChunks(packChunks(c.slice(0, 2 * CHUNK_FIELDS + 3))), undefined);
});

/** A manifest of `files` files of 60 chunks each, as the index writer makes them. */
function manifestOf(files: number): Manifest {
  const m: Manifest = emptyManifest();
  let id = 1;
  for (let f = 0; f < files; f++) {
    m.files[`terminals/${f}.txt`] = { scope: 'terminals', ino: 1000 + f, size: 300_000, mtimeMs: 1765000000000.123, c: table(60, id) };
    id += 60;
  }
  m.files['scratch/tool_outputs/cargo-build-01J.txt'] = { scope: 'toolOutputs', ino: 7, size: 0, mtimeMs: 1, c: [] };
  m.files['terminals/99.txt'] = { scope: 'terminals', agent: true, ino: 8, size: 10, mtimeMs: 2, c: table(1, id) };
  m.nextChunk = id + 1;
  m.runs.push({ name: 'r-1.run', lo: 1, hi: id, bytes: 123_456 });
  m.retired.push({ name: 'r-0-5-abc.run', at: 1765000000000 });
  return m;
}

/** A manifest as read, its chunk tables as arrays (a read one's are views of one Float64Array). */
function plain(m: Manifest | undefined): unknown {
  return m && { ...m, files: Object.fromEntries(Object.entries(m.files).map(([rel, e]) => [rel, { ...e, c: Array.from(e.c) }])) };
}

test('the manifest on disk holds its chunk tables in about half the bytes of JSON arrays, and reads back the same', () => {
  const m = manifestOf(40);
  const bytes = manifestBytes(m);
  assert.ok(bytes.length < JSON.stringify(m).length * 0.5, `${bytes.length} vs ${JSON.stringify(m).length}`);
  const back = parseManifest(bytes);
  assert.deepEqual(plain(back), plain(m));
  // Read back and written again (its tables not packed anew): the same bytes.
  assert.ok(manifestBytes(back!).equals(bytes));
});

/** `b` with its CRC-32 made right again: a change that a checksum cannot catch (a writer's bug), which the reader's own checks must. */
function withCrc(b: Buffer): Buffer {
  const out = Buffer.from(b);
  const at = out.length - 8 - 4;
  out.writeUInt32LE(zlib.crc32(out.subarray(0, at)), at);
  return out;
}

test('a manifest cut short, with any byte changed, or whose parts disagree is no manifest: the index is built anew', () => {
  const m = manifestOf(5);
  const good = manifestBytes(m);
  assert.ok(parseManifest(good));
  // Cut at every length (a disk that filled up, a copy cut short).
  for (let n = 0; n < good.length; n++) assert.equal(parseManifest(good.subarray(0, n)), undefined, `cut at ${n} of ${good.length}`);
  // One byte changed anywhere: the header, a chunk table, the checksum, the end mark.
  for (let at = 0; at < good.length; at += 7) {
    const bad = Buffer.from(good);
    bad[at] ^= 0x10;
    assert.equal(parseManifest(bad), undefined, `byte ${at} changed`);
  }
  // A file's chunk count past its table, or short of it, though the checksum is right.
  const headLen = good.readUInt32LE(8);
  const head = JSON.parse(good.toString('utf8', 12, 12 + headLen)) as { files: unknown[][] };
  const rebuilt = (h: unknown): Buffer => {
    const text = Buffer.from(JSON.stringify(h));
    const rest = good.subarray(12 + headLen);
    const len = Buffer.alloc(4);
    len.writeUInt32LE(text.length);
    return withCrc(Buffer.concat([good.subarray(0, 8), len, text, rest]));
  };
  assert.ok(parseManifest(rebuilt(head)), 'the header rebuilt as it was still reads');
  for (const n of [61, 59]) {
    const h = structuredClone(head);
    h.files[0][5] = n;
    assert.equal(parseManifest(rebuilt(h)), undefined, `${n} chunks for a table of 60`);
  }
  // A retired run named outside the index's folder (it would be deleted by that name).
  const out = structuredClone(head) as unknown as { retired: { name: string }[] };
  out.retired[0].name = '../../notes.md';
  assert.equal(parseManifest(rebuilt(out)), undefined);
  // A scope no version wrote, a row short of a field, the JSON of version 7.
  const h = structuredClone(head);
  h.files[1][1] = 'elsewhere';
  assert.equal(parseManifest(rebuilt(h)), undefined);
  const short = structuredClone(head);
  short.files[1].pop();
  assert.equal(parseManifest(rebuilt(short)), undefined);
  assert.equal(parseManifest(Buffer.from(JSON.stringify({ ...m, v: 7 }))), undefined);
});

test('a manifest naming a chunk id its writer never gave out (not below nextChunk) is no manifest: the index is built anew', () => {
  const m: Manifest = emptyManifest();
  m.files['scratch/a.txt'] = { scope: 'scratch', ino: 1, size: 10, mtimeMs: 1, c: table(3, 1) };
  m.nextChunk = 4;
  assert.ok(parseManifest(manifestBytes(m)));
  // The live set's arrays are indexed by chunk id: an id of 2^40 would ask for terabytes.
  assert.equal(parseManifest(manifestBytes({ ...m, nextChunk: 3 })), undefined);
  assert.equal(parseManifest(manifestBytes({ ...m, nextChunk: MAX_CHUNK_ID + 1 })), undefined);
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

test('the live set: a command block met again further down its file (not after the chunk before) is the same document', () => {
  const m: Manifest = emptyManifest();
  // Blocks 30, 70, then 30 again, then 90: three documents, the third chunk in the first's.
  m.files['terminals/4.txt'] = { scope: 'terminals', ino: 1, size: 400, mtimeMs: 1, c: [1, 0, 1, 5, 0, 0, 30, 2, 100, 20, 6, 0, 0, 70, 3, 200, 40, 7, 0, 0, 30, 4, 300, 60, 8, 0, 0, 90] };
  m.nextChunk = 5;
  const live = liveSet(m);
  assert.deepEqual(live.docs, ['terminals/4.txt#30', 'terminals/4.txt#70', 'terminals/4.txt#90']);
  assert.deepEqual([...live.docTokens], [5 + 7, 6, 8]);
  assert.deepEqual([1, 2, 3, 4].map((id) => live.chunkDoc[id - live.base]), [0, 1, 0, 2]);
});
