/*
 * The ranked-search index's manifest, `.agent/.cache/search/manifest.json`: which runs make up the
 * index and, per file indexed, the stat it was indexed at and its chunks. Written whole and
 * atomically (temp + rename) by one process at a time, under the manifest's lock, so readers in
 * other processes always see a whole manifest naming only whole runs. A manifest that cannot be
 * read as one is taken for no index: the cache is rebuilt, nothing else depends on it.
 */
import * as path from 'node:path';
import { cacheFile } from '../../workspace/cacheFiles';
import type { SearchScope } from './sources';
import { ByteReader, ByteWriter } from './runFile';

const KIND = 'agent-context-search';
/**
 * 4: runs of format ACSRUN2 (packed postings, deflated dictionary); 5: the terms of terms.ts without
 * numbers and versions whole (an index of version 4 still holds them, at 15% of the bytes indexed
 * against 11%); 6: each file's chunks written packed (manifestText); 7: numbers of one or two digits
 * not posted (chunker.ts). An older index is built anew.
 */
const VERSION = 7;

/** Fields per chunk in FileEntry.c: id, first byte, first line, terms counted, hash, highest issue level of its lines, its command's header line in a terminal (0 elsewhere). */
export const CHUNK_FIELDS = 7;

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
   * (CHUNK_FIELDS numbers). On disk packed as one string (manifestText), in memory these numbers.
   */
  c: number[];
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
 * A file's chunk table on disk: its CHUNK_FIELDS numbers per chunk as varints, base64. Ids, first
 * bytes, first lines and command blocks as the difference from the chunk before (zigzag: never
 * negative in practice, but a difference is never assumed); the rest as they are. A chunk costs
 * about 20 characters instead of about 40 as a JSON array: on row 24's tree at 0.02 the manifest
 * went from 1.2% to 0.8% of the bytes indexed (it is read whole at a process's first query).
 */
/** Fields written as the difference from the previous chunk's: id, byteStart, lineStart, block. */
const DELTA_FIELD = [true, true, true, false, false, false, true];

function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

function unzigzag(n: number): number {
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
}

/** A chunk table packed for the manifest (throws on a number that is not a whole number ≥ 0). */
export function packChunks(c: readonly number[]): string {
  const w = new ByteWriter(c.length * 3 + 8);
  const prev = new Array<number>(CHUNK_FIELDS).fill(0);
  for (let k = 0; k < c.length; k++) {
    const f = k % CHUNK_FIELDS;
    const v = c[k];
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`chunk table: field ${f} is ${v}`);
    w.varint(DELTA_FIELD[f] ? zigzag(v - prev[f]) : v);
    prev[f] = v;
  }
  return w.take().toString('base64');
}

/** The numbers of a packed chunk table; undefined when it is not one. */
export function unpackChunks(text: string): number[] | undefined {
  const r = new ByteReader(Buffer.from(text, 'base64'));
  const out: number[] = [];
  const prev = new Array<number>(CHUNK_FIELDS).fill(0);
  try {
    while (!r.done) {
      const f = out.length % CHUNK_FIELDS;
      const x = r.varint();
      const v = DELTA_FIELD[f] ? prev[f] + unzigzag(x) : x;
      if (v < 0 || !Number.isSafeInteger(v)) return undefined;
      out.push(v);
      prev[f] = v;
    }
  } catch {
    return undefined;
  }
  return out.length % CHUNK_FIELDS === 0 ? out : undefined;
}

/**
 * Chunk tables packed, by the array they pack. A file entry in a manifest is never changed in place,
 * only replaced (copyManifest), so its array packs to the same text every time: the manifest written
 * after each batch packs only the entries the batch made (at 1 GB every batch re-packed ~10^6 chunks).
 */
const packed = new WeakMap<readonly number[], string>();

function packedChunks(c: readonly number[]): string {
  let s = packed.get(c);
  if (s === undefined) packed.set(c, (s = packChunks(c)));
  return s;
}

/** A manifest's text, as written to manifest.json: JSON, each file's chunks packed. */
export function manifestText(m: Manifest): string {
  return JSON.stringify(m, (k, v: unknown) => (k === 'c' && Array.isArray(v) ? packedChunks(v as number[]) : v));
}

/**
 * A copy of a manifest to change (indexBatch, a merge's swap, a repair) while the original stays as
 * it was: its lists and file table are new, its entries shared, which is safe because an entry is
 * never changed in place, only replaced or deleted.
 */
export function copyManifest(m: Manifest): Manifest {
  return { ...m, runs: [...m.runs], files: { ...m.files }, retired: [...m.retired] };
}

/** Parses a manifest's text; undefined when it is not one this version wrote whole. */
export function parseManifest(text: string): Manifest | undefined {
  let m: Manifest;
  try {
    m = JSON.parse(text) as Manifest;
  } catch {
    return undefined;
  }
  if (!m || m.kind !== KIND || m.v !== VERSION || !isNum(m.nextChunk) || m.nextChunk > MAX_CHUNK_ID || !Array.isArray(m.runs) || !m.files || typeof m.files !== 'object' || !Array.isArray(m.retired)) return undefined;
  for (const r of m.runs) if (!r || typeof r.name !== 'string' || !/^r-[0-9a-z-]+\.run$/.test(r.name) || !isNum(r.lo) || !isNum(r.hi) || !isNum(r.bytes)) return undefined;
  for (const e of Object.values(m.files)) {
    if (!e || typeof e.scope !== 'string' || !isNum(e.ino) || !isNum(e.size) || !isNum(e.mtimeMs) || typeof e.c !== 'string') return undefined;
    const c = unpackChunks(e.c);
    if (!c) return undefined;
    // Ids index the live set's arrays (liveSet): one past nextChunk would be one no writer gave.
    for (let k = 0; k < c.length; k += CHUNK_FIELDS) if (c[k] >= m.nextChunk) return undefined;
    packed.set(c, e.c);
    e.c = c;
  }
  return m;
}

/** The stamp a manifest file is recognised by between two reads (a rename gives a new inode). */
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
    for (let k = 0; k < e.c.length; k += CHUNK_FIELDS) {
      if (e.c[k] >= top) top = e.c[k] + 1;
      if (e.c[k] < base) base = e.c[k];
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
  const docTokens: number[] = [];
  const docIndex = new Map<string, number>();
  let chunks = 0;
  let tokens = 0;
  let bytes = 0;
  entries.forEach((e, f) => {
    const rel = rels[f];
    // A file's chunks come in file order: most follow a chunk of the same block.
    let lastBlock = -1;
    let d = -1;
    for (let k = 0, i = 0; k < e.c.length; k += CHUNK_FIELDS, i++) {
      const block = e.c[k + 6];
      if (block !== lastBlock) {
        const doc = docOf(rel, block);
        let at = docIndex.get(doc);
        if (at === undefined) {
          docIndex.set(doc, (at = docs.length));
          docs.push(doc);
          docFile.push(f);
          docTokens.push(0);
        }
        d = at;
        lastBlock = block;
      }
      const slot = e.c[k] - base;
      if (chunkFile[slot] < 0) chunks++;
      chunkFile[slot] = f;
      chunkIndex[slot] = i;
      chunkTokens[slot] = e.c[k + 3];
      chunkDoc[slot] = d;
      tokens += e.c[k + 3];
      docTokens[d] += e.c[k + 3];
    }
    bytes += e.size;
  });
  return { rels, entries, base, chunkFile, chunkIndex, chunkTokens, chunkDoc, docs, docFile: Int32Array.from(docFile), docTokens: Float64Array.from(docTokens), chunks, tokens, bytes };
}
