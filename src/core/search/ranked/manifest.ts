/*
 * The ranked-search index's manifest, `.agent/.cache/search/manifest.json`: which runs make up the
 * index and, per file indexed, the stat it was indexed at and its chunks. Written whole and
 * atomically (temp + rename) by one process at a time, under the manifest's lock, so readers in
 * other processes always see a whole manifest naming only whole runs. A manifest that cannot be
 * read as one is taken for no index: the cache is rebuilt, nothing else depends on it.
 *
 * On disk (version 8) it is binary, though its name stays (one file and one lock for every version:
 * a process of another version finds a manifest it cannot read and builds its index anew, never a
 * second index beside this one whose run names could collide with this one's):
 *
 *   "ACSMAN8\n"
 *   u32 length, then JSON: kind, v, nextChunk, runs, retired, and the files as
 *                [rel, scope, ino, size, mtimeMs, chunks, agent (0 or 1)]
 *   u32 length, then every file's chunk table, in the order of the files above (packChunks's varints)
 *   u32 CRC-32 of every byte before it, "ACSEND8\n"
 *
 * Read whole at a process's first query: as JSON with each table base64 in its file's entry
 * (version 7) the 1.26 GB tree's manifest (11 MB, 388,000 chunks) took ~280 ms to read and parse at
 * 1 GB, most of it decoding 30,000 base64 strings into arrays; the tables are now decoded in one
 * pass over one buffer into one Float64Array, each file's table a view of it.
 */
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { cacheFile } from '../../workspace/cacheFiles';
import { SEARCH_SCOPES, type SearchScope } from './sources';
import { ByteWriter } from './runFile';

const KIND = 'agent-context-search';
/**
 * 4: runs of format ACSRUN2 (packed postings, deflated dictionary); 5: the terms of terms.ts without
 * numbers and versions whole (an index of version 4 still holds them, at 15% of the bytes indexed
 * against 11%); 6: each file's chunks written packed (manifestText); 7: numbers of one or two digits
 * not posted (chunker.ts); 8: the manifest binary (above). An older index is built anew.
 */
const VERSION = 8;
const MAGIC = Buffer.from('ACSMAN8\n');
const END = Buffer.from('ACSEND8\n');

/** Fields per chunk in FileEntry.c: id, first byte, first line, terms counted, hash, highest issue level of its lines, its command's header line in a terminal (0 elsewhere). */
export const CHUNK_FIELDS = 7;
/** CHUNK_FIELDS for this module's loops (an exported const is read as a property of `exports` by the compiled code, in every turn of a loop). */
const FIELDS = CHUNK_FIELDS;

/** A file's chunk table: CHUNK_FIELDS numbers per chunk (a view of the manifest's table as read, or an array a writer made). */
export type ChunkTable = ArrayLike<number>;

/** One file as indexed. */
export interface FileEntry {
  scope: Exclude<SearchScope, 'agentCommands'>;
  /** A terminal capture whose header names an agent. */
  agent?: true;
  ino: number;
  /** Bytes indexed (the file's size then, or less while a large file is indexed in parts). */
  size: number;
  mtimeMs: number;
  /**
   * Per chunk, in file order: id, byteStart, lineStart, tokens, hash, issue level, command block
   * (CHUNK_FIELDS numbers). On disk packed (packChunks), in memory these numbers.
   */
  c: ChunkTable;
}

/** A run file of the index and the chunk ids it covers. */
export interface RunEntry {
  name: string;
  lo: number;
  hi: number;
  bytes: number;
}

export interface Manifest {
  kind: typeof KIND;
  v: typeof VERSION;
  /** The next chunk id to give out: ids are never reused, so a run's postings of a chunk dropped since are simply not live. */
  nextChunk: number;
  runs: RunEntry[];
  files: Record<string, FileEntry>;
  /** Runs replaced by a merge, deleted once no reader can still be about to open them. */
  retired: { name: string; at: number }[];
}

/** The folder of the index. */
export function searchDir(agentDir: string): string {
  return cacheFile(agentDir, 'searchIndex');
}

/** The manifest's path. */
export function manifestPath(agentDir: string): string {
  return path.join(searchDir(agentDir), 'manifest.json');
}

/** A manifest of an empty index. */
export function emptyManifest(): Manifest {
  return { kind: KIND, v: VERSION, nextChunk: 1, runs: [], files: {}, retired: [] };
}

/** Chunk ids stay below this (they index typed arrays, liveSet); an index that reaches it is built anew. */
export const MAX_CHUNK_ID = 2 ** 31 - 1;

const isNum = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/*
 * A file's chunk table on disk: its CHUNK_FIELDS numbers per chunk as varints. Ids, first bytes,
 * first lines and command blocks as the difference from the chunk before (zigzag: never negative in
 * practice, but a difference is never assumed); the rest as they are. A chunk costs about 15 bytes
 * instead of about 40 characters as a JSON array.
 */
/** Fields written as the difference from the previous chunk's: id, byteStart, lineStart, block. */
const DELTA_FIELD = [true, true, true, false, false, false, true];

function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

function unzigzag(n: number): number {
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
}

/** A chunk table packed (throws on a number that is not a whole number ≥ 0). */
export function packChunks(c: ChunkTable): Buffer {
  const w = new ByteWriter(c.length * 3 + 8);
  const prev = new Array<number>(CHUNK_FIELDS).fill(0);
  for (let k = 0; k < c.length; k++) {
    const f = k % CHUNK_FIELDS;
    const v = c[k];
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`chunk table: field ${f} is ${v}`);
    w.varint(DELTA_FIELD[f] ? zigzag(v - prev[f]) : v);
    prev[f] = v;
  }
  return w.take();
}

/** The numbers of a packed chunk table; undefined when it is not one. */
export function unpackChunks(b: Buffer): number[] | undefined {
  // A varint ends at each byte below 0x80.
  let numbers = 0;
  for (let i = 0; i < b.length; i++) if (b[i] < 0x80) numbers++;
  if (numbers % CHUNK_FIELDS !== 0) return undefined;
  const out = new Float64Array(numbers);
  return unpackInto(b, 0, b.length, out, 0, numbers / CHUNK_FIELDS, Number.MAX_SAFE_INTEGER) === b.length ? Array.from(out) : undefined;
}

/** Where the last varint read by readVarint ended (-1: cut short or too long); one decoder at a time (it never yields). */
let varintEnd = 0;

/** The varint at `pos` of `b` (not past `end`); sets varintEnd. */
function readVarint(b: Buffer, pos: number, end: number): number {
  if (pos >= end) return (varintEnd = -1);
  let byte = b[pos++];
  if (byte < 0x80) {
    varintEnd = pos;
    return byte;
  }
  let x = byte & 0x7f;
  for (let mul = 0x80; byte >= 0x80; mul *= 0x80) {
    if (pos >= end || mul > 2 ** 49) return (varintEnd = -1);
    byte = b[pos++];
    x += (byte & 0x7f) * mul;
  }
  varintEnd = pos;
  return x;
}

/**
 * Decodes `chunks` chunks of a packed table from `b` at `pos` (not past `end`) into `out` at `at`;
 * returns the position after them, or -1 when they are not there whole (cut short, a number out of
 * range, an id from `maxId` on). The differences start from 0 at `pos` (each file's table on its own).
 */
function unpackInto(b: Buffer, pos: number, end: number, out: Float64Array, at: number, chunks: number, maxId = MAX_CHUNK_ID): number {
  if (at + chunks * FIELDS > out.length) return -1;
  let id = 0;
  let byte0 = 0;
  let line = 0;
  let block = 0;
  for (let i = 0, k = at; i < chunks; i++, k += FIELDS) {
    id += unzigzag(readVarint(b, pos, end));
    if ((pos = varintEnd) < 0) return -1;
    byte0 += unzigzag(readVarint(b, pos, end));
    if ((pos = varintEnd) < 0) return -1;
    line += unzigzag(readVarint(b, pos, end));
    if ((pos = varintEnd) < 0) return -1;
    const tokens = readVarint(b, pos, end);
    if ((pos = varintEnd) < 0) return -1;
    const hash = readVarint(b, pos, end);
    if ((pos = varintEnd) < 0) return -1;
    const level = readVarint(b, pos, end);
    if ((pos = varintEnd) < 0) return -1;
    block += unzigzag(readVarint(b, pos, end));
    if ((pos = varintEnd) < 0) return -1;
    if (id < 0 || id >= maxId || byte0 < 0 || line < 0 || block < 0 || !Number.isSafeInteger(byte0) || !Number.isSafeInteger(hash)) return -1;
    out[k] = id;
    out[k + 1] = byte0;
    out[k + 2] = line;
    out[k + 3] = tokens;
    out[k + 4] = hash;
    out[k + 5] = level;
    out[k + 6] = block;
  }
  return pos;
}

/**
 * Chunk tables packed, by the table they pack. A file entry in a manifest is never changed in place,
 * only replaced (copyManifest), so its table packs to the same bytes every time: the manifest written
 * after each batch packs only the entries the batch made (at 1 GB every batch re-packed ~10^6 chunks).
 * A table read from disk is known by its bytes there.
 */
const packed = new WeakMap<ChunkTable, Buffer>();

function packedChunks(c: ChunkTable): Buffer {
  let b = packed.get(c);
  if (b === undefined) packed.set(c, (b = packChunks(c)));
  return b;
}

/** The CRC-32 of bytes (zlib's where the runtime has it: Node 20.15, 22.2 on). */
const crc32: (b: Uint8Array) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (b) => (zlib as unknown as { crc32(b: Uint8Array): number }).crc32(b)
    : (b) => {
        let c = ~0;
        for (let i = 0; i < b.length; i++) {
          c ^= b[i];
          for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
        }
        return ~c >>> 0;
      };

type FileRow = [rel: string, scope: FileEntry['scope'], ino: number, size: number, mtimeMs: number, chunks: number, agent: 0 | 1];

/** A manifest's bytes, as written to its file (the format above). */
export function manifestBytes(m: Manifest): Buffer {
  const rows: FileRow[] = [];
  const tables: Buffer[] = [];
  let tableBytes = 0;
  for (const rel in m.files) {
    const e = m.files[rel];
    if (e.c.length % CHUNK_FIELDS !== 0) throw new Error(`chunk table of ${rel}: ${e.c.length} numbers`);
    rows.push([rel, e.scope, e.ino, e.size, e.mtimeMs, e.c.length / CHUNK_FIELDS, e.agent ? 1 : 0]);
    const t = packedChunks(e.c);
    tables.push(t);
    tableBytes += t.length;
  }
  const head = Buffer.from(JSON.stringify({ kind: m.kind, v: m.v, nextChunk: m.nextChunk, runs: m.runs, retired: m.retired, files: rows }));
  const out = Buffer.allocUnsafe(MAGIC.length + 4 + head.length + 4 + tableBytes + 4 + END.length);
  let at = MAGIC.copy(out, 0);
  at = out.writeUInt32LE(head.length, at);
  at += head.copy(out, at);
  at = out.writeUInt32LE(tableBytes, at);
  for (const t of tables) at += t.copy(out, at);
  at = out.writeUInt32LE(crc32(out.subarray(0, at)), at);
  END.copy(out, at);
  return out;
}

/**
 * A copy of a manifest to change (indexBatch, a merge's swap, a repair) while the original stays as
 * it was: its lists and file table are new, its entries shared, which is safe because an entry is
 * never changed in place, only replaced or deleted.
 */
export function copyManifest(m: Manifest): Manifest {
  return { ...m, runs: [...m.runs], files: { ...m.files }, retired: [...m.retired] };
}

/** The scopes a file entry can have (agentCommands is a terminal's, read from its `agent` flag). */
/** Whether a name is a run file's (r-….run): nothing else in the folder is ever read or deleted as one. */
export const isRunName = (n: unknown): n is string => typeof n === 'string' && /^r-[0-9a-z-]+\.run$/.test(n);

const SCOPES = new Set<string>(SEARCH_SCOPES.filter((s) => s !== 'agentCommands'));

/**
 * Parses a manifest's bytes; undefined when they are not one this version wrote whole (cut short,
 * changed: its CRC-32 no longer matches; another version's).
 */
export function parseManifest(b: Buffer): Manifest | undefined {
  const min = MAGIC.length + 4 + 4 + 4 + END.length;
  if (b.length < min || !b.subarray(0, MAGIC.length).equals(MAGIC) || !b.subarray(b.length - END.length).equals(END)) return undefined;
  const crcAt = b.length - END.length - 4;
  if (b.readUInt32LE(crcAt) !== crc32(b.subarray(0, crcAt))) return undefined;
  const headLen = b.readUInt32LE(MAGIC.length);
  const headEnd = MAGIC.length + 4 + headLen;
  if (headEnd + 4 > crcAt) return undefined;
  const tableAt = headEnd + 4;
  if (tableAt + b.readUInt32LE(headEnd) !== crcAt) return undefined;
  let h: { kind?: unknown; v?: unknown; nextChunk?: unknown; runs?: unknown; retired?: unknown; files?: unknown };
  try {
    h = JSON.parse(b.toString('utf8', MAGIC.length + 4, headEnd)) as typeof h;
  } catch {
    return undefined;
  }
  if (!h || h.kind !== KIND || h.v !== VERSION || !isNum(h.nextChunk) || h.nextChunk > MAX_CHUNK_ID || !Array.isArray(h.runs) || !Array.isArray(h.files) || !Array.isArray(h.retired)) return undefined;
  const runs = h.runs as RunEntry[];
  for (const r of runs) if (!r || !isRunName(r.name) || !isNum(r.lo) || !isNum(r.hi) || !isNum(r.bytes)) return undefined;
  // A retired run is deleted by its name: never one that is not a run's.
  const retired = h.retired as Manifest['retired'];
  for (const r of retired) if (!r || !isRunName(r.name) || !isNum(r.at)) return undefined;
  const rows = h.files as unknown[];
  let chunks = 0;
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== 7) return undefined;
    const [rel, scope, ino, size, mtimeMs, n, agent] = row as unknown[];
    if (typeof rel !== 'string' || typeof scope !== 'string' || !SCOPES.has(scope) || !isNum(ino) || !isNum(size) || !isNum(mtimeMs) || !Number.isSafeInteger(n) || (n as number) < 0 || (agent !== 0 && agent !== 1)) return undefined;
    chunks += n as number;
  }
  // Every chunk takes CHUNK_FIELDS bytes at least: a count past that is not this table's.
  if (chunks * CHUNK_FIELDS > crcAt - tableAt) return undefined;
  const all = new Float64Array(chunks * CHUNK_FIELDS);
  const files: Record<string, FileEntry> = {};
  const next = h.nextChunk;
  let pos = tableAt;
  let at = 0;
  for (const row of rows as FileRow[]) {
    const [rel, scope, ino, size, mtimeMs, n, agent] = row;
    // Ids index the live set's arrays (liveSet): one from nextChunk on would be one no writer gave.
    const end = unpackInto(b, pos, crcAt, all, at, n, next);
    if (end < 0) return undefined;
    const c = all.subarray(at, at + n * FIELDS);
    packed.set(c, b.subarray(pos, end));
    files[rel] = agent ? { scope, agent: true, ino, size, mtimeMs, c } : { scope, ino, size, mtimeMs, c };
    pos = end;
    at += n * FIELDS;
  }
  if (pos !== crcAt) return undefined;
  return { kind: KIND, v: VERSION, nextChunk: next, runs, files, retired };
}

/** A chunk of a file entry, by index. */
export interface ChunkRef {
  id: number;
  byteStart: number;
  /** The next chunk's start, or the bytes indexed. */
  byteEnd: number;
  lineStart: number;
  tokens: number;
  hash: number;
  /** Highest issue level of its lines: 2 an error or failure line, 1 a warning, 0 neither. */
  level: number;
  /** The header line of the terminal command its first line belongs to (0: not in a terminal, or before the first command). */
  block: number;
}

export function chunkCount(e: FileEntry): number {
  return e.c.length / CHUNK_FIELDS;
}

export function chunkAt(e: FileEntry, i: number): ChunkRef {
  const k = i * CHUNK_FIELDS;
  const next = (i + 1) * CHUNK_FIELDS;
  return { id: e.c[k], byteStart: e.c[k + 1], byteEnd: next < e.c.length ? e.c[next + 1] : e.size, lineStart: e.c[k + 2], tokens: e.c[k + 3], hash: e.c[k + 4], level: e.c[k + 5], block: e.c[k + 6] };
}

/**
 * The live chunks of a manifest and the totals BM25 needs, per chunk and per document. Kept in
 * arrays indexed by a chunk's slot, its id less `base` (a query at 1 GB reads about 10^6 postings: a
 * map or an object per chunk made its ranking 3/4 lookups and garbage). Ids only grow, so the
 * arrays span the ids from the oldest live chunk on; SearchIndex.compactOnce keeps that span within
 * SPARSE_SPAN of the live count by indexing the oldest files again.
 */
export interface LiveSet {
  /** The manifest's files, in one order; a file is named by its index here. */
  rels: string[];
  entries: FileEntry[];
  /** The lowest live chunk id (0 when none): chunk `id` is at slot `id - base` of the arrays below. */
  base: number;
  /** Per slot (below `chunkFile.length`): its chunk's file's index in `rels`, or -1 when the id is not live. */
  chunkFile: Int32Array;
  /** Per slot: its chunk's index among its file's chunks. */
  chunkIndex: Int32Array;
  /** Per slot: the terms counted in its chunk. */
  chunkTokens: Int32Array;
  /** Per slot: its chunk's document's index in `docs`. */
  chunkDoc: Int32Array;
  /** The documents (docOf), and per document its file's index and the terms counted in it. */
  docs: string[];
  docFile: Int32Array;
  docTokens: Float64Array;
  chunks: number;
  tokens: number;
  bytes: number;
}

/** The document a chunk belongs to. */
export function docOf(rel: string, block: number): string {
  return block > 0 ? `${rel}#${block}` : rel;
}

/** Whether chunk `id` is live in `live`. */
export function isLive(live: LiveSet, id: number): boolean {
  const slot = id - live.base;
  return slot >= 0 && slot < live.chunkFile.length && live.chunkFile[slot] >= 0;
}

/**
 * How far the live set's span of ids may exceed its live chunks before the oldest files are indexed
 * again (compactOnce): at most SPARSE_SPAN times the live count plus SPARSE_SLACK ids. Each file
 * indexed again, appended to or deleted leaves ids no chunk uses; without a bound a months-old index
 * would size its arrays (about 53 bytes per id with the ranking's) by every id it ever gave out.
 */
export const SPARSE_SPAN = 3;
export const SPARSE_SLACK = 1 << 16;

/** Whether a live set's span of ids is past the bound (SPARSE_SPAN). */
export function tooSparse(live: LiveSet, slack = SPARSE_SLACK): boolean {
  return live.chunkFile.length > SPARSE_SPAN * live.chunks + slack;
}

export function liveSet(m: Manifest): LiveSet {
  const rels = Object.keys(m.files);
  const entries = rels.map((rel) => m.files[rel]);
  let top = 0;
  let base = Infinity;
  for (const e of entries) {
    const c = e.c;
    for (let k = 0; k < c.length; k += FIELDS) {
      if (c[k] >= top) top = c[k] + 1;
      if (c[k] < base) base = c[k];
    }
  }
  if (base === Infinity) base = 0;
  const span = top - base;
  const chunkFile = new Int32Array(span).fill(-1);
  const chunkIndex = new Int32Array(span);
  const chunkTokens = new Int32Array(span);
  const chunkDoc = new Int32Array(span);
  const docs: string[] = [];
  const docFile: number[] = [];
  const docBlock: number[] = [];
  const docTokens: number[] = [];
  let chunks = 0;
  let tokens = 0;
  let bytes = 0;
  for (let f = 0; f < entries.length; f++) {
    const e = entries[f];
    const c = e.c;
    const rel = rels[f];
    // A file's documents are docs[firstDoc…]: its chunks come in file order, so most follow a chunk
    // of the same block, and a block met again is looked for among the file's own few (no map of
    // 100,000 document names: at 1 GB that map was most of this function's ~150 ms).
    const firstDoc = docs.length;
    let lastBlock = -1;
    let maxBlock = -1;
    let d = -1;
    for (let k = 0, i = 0; k < c.length; k += FIELDS, i++) {
      const block = c[k + 6];
      if (block !== lastBlock) {
        d = -1;
        // Blocks grow through a file (a command's header line): one past the file's highest is new.
        for (let x = firstDoc; block <= maxBlock && x < docs.length; x++) {
          if (docBlock[x] === block) {
            d = x;
            break;
          }
        }
        if (d < 0) {
          d = docs.length;
          docs.push(docOf(rel, block));
          docFile.push(f);
          docBlock.push(block);
          docTokens.push(0);
        }
        lastBlock = block;
        if (block > maxBlock) maxBlock = block;
      }
      const t = c[k + 3];
      const slot = c[k] - base;
      if (chunkFile[slot] < 0) chunks++;
      chunkFile[slot] = f;
      chunkIndex[slot] = i;
      chunkTokens[slot] = t;
      chunkDoc[slot] = d;
      tokens += t;
      docTokens[d] += t;
    }
    bytes += e.size;
  }
  return { rels, entries, base, chunkFile, chunkIndex, chunkTokens, chunkDoc, docs, docFile: Int32Array.from(docFile), docTokens: Float64Array.from(docTokens), chunks, tokens, bytes };
}
