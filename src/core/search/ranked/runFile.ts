/*
 * A run: one immutable file of the ranked-search index (`.agent/.cache/search/r-<n>.run`) holding,
 * for every term of the chunks it covers, the list of those chunks with the term's count and
 * whether it stood on an error or warning line. A query reads only the terms it asks for, so the
 * index never has to be loaded whole (at 1 GB of output it is tens of MB):
 *
 *   "ACSRUN2\n"
 *   postings      per term and chunk: varint(id delta × 2 + 1, then value) or, for the usual value
 *                 (the term once, on an ordinary line: COMMON_VALUE), varint(id delta × 2) alone;
 *                 value = tf << 2 | issue level
 *   dictionary    blocks of BLOCK_TERMS sorted terms, front-coded (shared, suffix, df, postings
 *                 length), each block deflated (raw): a folder of logs has many terms seen once
 *                 (hashes, numbers, paths), whose text is most of the dictionary
 *   block index   per block: its offset, its first term, its first postings offset
 *   trailer       JSON: chunk id range, counts, section offsets
 *   u32 trailer length, "ACSEND1\n"
 *
 * The block index (a few hundred KB at most) is read when the run is opened; a term costs one read
 * of its block and one of its postings. Terms compare as JavaScript strings everywhere (sort, search).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { sweepStaleTemps, tempName } from '../../fs/fsAtomic';

const MAGIC = Buffer.from('ACSRUN2\n');
const END = Buffer.from('ACSEND1\n');
/** Terms per dictionary block: 128 deflate better than 64 (the dictionary −8%) and still inflate in well under a millisecond. */
const BLOCK_TERMS = 128;
/** Postings read at once when a run is read whole (a merge). */
const SLAB_BYTES = 1 << 20;
/** The value most postings have (tf 1, no issue): written as one flag bit of the id delta. */
const COMMON_VALUE = 1 << 2;
/** Dictionary blocks are small and read often: the fastest deflate level (level 6 saves ~5% more). */
const DICT_DEFLATE = { level: 1 };
/** Count kept per posting (a term 200 times in a chunk says no more than 31 times). */
export const MAX_TF = 31;

/** A growable byte buffer with varints. */
export class ByteWriter {
  buf: Buffer;
  len = 0;
  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  varint(v: number): void {
    this.room(10);
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }
  bytes(b: Buffer): void {
    this.room(b.length);
    b.copy(this.buf, this.len);
    this.len += b.length;
  }
  take(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** Reads varints from a buffer. */
export class ByteReader {
  pos = 0;
  constructor(readonly buf: Buffer, start = 0) {
    this.pos = start;
  }
  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
}

/** Postings of one term: chunk ids ascending and their values (tf << 2 | issue level). */
export interface Postings {
  ids: number[];
  values: number[];
}

/** One posting as readPosting reads it: its id's distance from the id before (the first: from 0) and its value. */
export interface PostingRead {
  delta: number;
  value: number;
}

/** Writes one posting: its id's distance from the id before (the first: from 0) and its value. */
export function writePosting(w: ByteWriter, delta: number, value: number): void {
  if (value === COMMON_VALUE) w.varint(delta * 2);
  else {
    w.varint(delta * 2 + 1);
    w.varint(value);
  }
}

/** Reads one posting into `p` (reused: a merge reads millions). */
export function readPosting(r: ByteReader, p: PostingRead): PostingRead {
  const x = r.varint();
  p.delta = Math.floor(x / 2);
  p.value = x % 2 === 1 ? r.varint() : COMMON_VALUE;
  return p;
}

/** Encodes a postings list (ids ascending). */
export function encodePostings(ids: readonly number[], values: readonly number[], w = new ByteWriter(ids.length * 3 + 8)): Buffer {
  let prev = 0;
  for (let i = 0; i < ids.length; i++) {
    writePosting(w, ids[i] - prev, values[i]);
    prev = ids[i];
  }
  return w.take();
}

/** Decodes a postings list, appending to `out`. */
export function decodePostings(b: Buffer, out: Postings = { ids: [], values: [] }): Postings {
  const r = new ByteReader(b);
  const p: PostingRead = { delta: 0, value: 0 };
  let prev = 0;
  while (!r.done) {
    readPosting(r, p);
    prev += p.delta;
    out.ids.push(prev);
    out.values.push(p.value);
  }
  return out;
}

/** Postings decoded into reused arrays (decodePostingsInto): a query reads ~10^6 of them. */
export interface PostingsBuffer {
  ids: Float64Array;
  values: Uint32Array;
}

export function postingsBuffer(size = 1 << 12): PostingsBuffer {
  return { ids: new Float64Array(size), values: new Uint32Array(size) };
}

/**
 * Decodes a postings list into `into` (grown when too small) as decodePostings does, without an
 * array or object per posting; returns the postings' count. Ids come out less `base` (a live set's
 * slots, manifest.ts liveSet), and those below it are left out (no live chunk is).
 */
export function decodePostingsInto(b: Buffer, into: PostingsBuffer, base = 0): number {
  const len = b.length;
  let pos = 0;
  let n = 0;
  let prev = 0;
  while (pos < len) {
    if (n === into.ids.length) {
      const ids = new Float64Array(n * 2);
      const values = new Uint32Array(n * 2);
      ids.set(into.ids);
      values.set(into.values);
      into.ids = ids;
      into.values = values;
    }
    let byte = b[pos++];
    let x = byte & 0x7f;
    for (let mul = 0x80; byte >= 0x80; mul *= 0x80) {
      if (pos >= len) throw new Error('truncated varint');
      byte = b[pos++];
      x += (byte & 0x7f) * mul;
    }
    let value = COMMON_VALUE;
    if (x % 2 === 1) {
      if (pos >= len) throw new Error('truncated varint');
      byte = b[pos++];
      value = byte & 0x7f;
      for (let mul = 0x80; byte >= 0x80; mul *= 0x80) {
        if (pos >= len) throw new Error('truncated varint');
        byte = b[pos++];
        value += (byte & 0x7f) * mul;
      }
    }
    prev += Math.floor(x / 2);
    if (prev < base) continue;
    into.ids[n] = prev - base;
    into.values[n] = value;
    n++;
  }
  return n;
}

/** What a run's trailer says. */
export interface RunTrailer {
  v: 2;
  /** Chunk ids covered: [lo, hi]. */
  lo: number;
  hi: number;
  terms: number;
  postings: [number, number];
  dict: [number, number];
  index: [number, number];
}

/**
 * Writes a run file: terms in sorted order, postings streamed to the file as they come (a merge of
 * large runs never holds their postings in memory), the dictionary and block index kept until
 * `finish`. Written under a temp name and renamed into place by `writeRun`.
 */
export class RunWriter {
  private readonly dict = new ByteWriter(1 << 16);
  private readonly index = new ByteWriter(1 << 12);
  private blockBuf = new ByteWriter(4096);
  private inBlock = 0;
  private prevTerm = Buffer.alloc(0);
  private lastTerm: string | undefined;
  private terms = 0;
  private postLen = 0;
  /** Bytes not yet written to the file (copied in: a term's postings may be a view of a reused buffer). */
  private readonly pending = new ByteWriter(1 << 20);

  constructor(private readonly fd: number, private readonly lo: number, private readonly hi: number) {
    this.write(MAGIC);
  }

  private write(b: Buffer): void {
    this.pending.bytes(b);
    if (this.pending.len >= 1 << 20) this.flush();
  }

  private flush(): void {
    const all = this.pending.take();
    let done = 0;
    while (done < all.length) done += fs.writeSync(this.fd, all, done, all.length - done);
    this.pending.len = 0;
  }

  /** Adds a term (strictly after the previous one) with its encoded postings and document frequency. */
  add(term: string, postings: Buffer, df: number): void {
    if (this.lastTerm !== undefined && !(term > this.lastTerm)) throw new Error(`run terms out of order: ${JSON.stringify(term)} after ${JSON.stringify(this.lastTerm)}`);
    this.lastTerm = term;
    if (this.inBlock === BLOCK_TERMS) this.flushBlock();
    const tb = Buffer.from(term, 'utf8');
    if (this.inBlock === 0) {
      // Block index entry: its offset in the dictionary, its first term, its first postings offset.
      this.index.varint(this.dict.len);
      this.index.varint(tb.length);
      this.index.bytes(tb);
      this.index.varint(this.postLen);
      this.prevTerm = Buffer.alloc(0);
      this.blockBuf = new ByteWriter(4096);
    }
    let shared = 0;
    while (shared < this.prevTerm.length && shared < tb.length && this.prevTerm[shared] === tb[shared]) shared++;
    this.blockBuf.varint(shared);
    this.blockBuf.varint(tb.length - shared);
    this.blockBuf.bytes(tb.subarray(shared));
    this.blockBuf.varint(df);
    this.blockBuf.varint(postings.length);
    this.write(postings);
    this.postLen += postings.length;
    this.prevTerm = tb;
    this.inBlock++;
    this.terms++;
  }

  private flushBlock(): void {
    if (this.inBlock === 0) return;
    const plain = new ByteWriter(this.blockBuf.len + 8);
    plain.varint(this.inBlock);
    plain.bytes(this.blockBuf.take());
    this.dict.bytes(zlib.deflateRawSync(plain.take(), DICT_DEFLATE));
    this.inBlock = 0;
  }

  /** Writes the dictionary, block index and trailer; returns the file's size. */
  finish(): number {
    this.flushBlock();
    const postAt = MAGIC.length;
    const dictAt = postAt + this.postLen;
    const indexAt = dictAt + this.dict.len;
    const trailer: RunTrailer = {
      v: 2, lo: this.lo, hi: this.hi, terms: this.terms,
      postings: [postAt, this.postLen], dict: [dictAt, this.dict.len], index: [indexAt, this.index.len],
    };
    const t = Buffer.from(JSON.stringify(trailer), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(t.length);
    this.write(this.dict.take());
    this.write(this.index.take());
    this.write(t);
    this.write(len);
    this.write(END);
    this.flush();
    return indexAt + this.index.len + t.length + 4 + END.length;
  }
}

/**
 * Writes run `file` atomically (a temp file beside it, fsync, rename): readers in other processes
 * see the whole run or none. Returns its size.
 */
export function writeRun(file: string, lo: number, hi: number, fill: (w: RunWriter) => void): number {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  sweepStaleTemps(dir);
  const tmp = path.join(dir, tempName(path.basename(file)));
  const fd = fs.openSync(tmp, 'wx');
  let size: number;
  try {
    try {
      const w = new RunWriter(fd, lo, hi);
      fill(w);
      size = w.finish();
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return size;
}

/** One term of a dictionary block. */
interface DictEntry {
  term: string;
  df: number;
  /** Absolute file offset of its postings. */
  at: number;
  len: number;
}

/** A run opened for reading (pread on a kept file descriptor). */
export class RunReader {
  readonly trailer: RunTrailer;
  private readonly firstTerms: string[] = [];
  private readonly blockAt: number[] = [];
  private readonly blockPost: number[] = [];
  private readonly blocks = new Map<number, DictEntry[]>();

  private constructor(private readonly fd: number, readonly file: string, readonly size: number) {
    if (size < MAGIC.length + END.length + 4) throw new Error('too short to be a run');
    const tail = this.read(size - END.length - 4, END.length + 4);
    if (!tail.subarray(4).equals(END)) throw new Error('no end mark (cut short?)');
    const tlen = tail.readUInt32LE(0);
    const tAt = size - END.length - 4 - tlen;
    if (tAt < MAGIC.length || !this.read(0, MAGIC.length).equals(MAGIC)) throw new Error('not a run file');
    const t = JSON.parse(this.read(tAt, tlen).toString('utf8')) as RunTrailer;
    if (t?.v !== 2 || !Array.isArray(t.index) || !Array.isArray(t.dict) || !Array.isArray(t.postings)) throw new Error('unknown trailer');
    this.trailer = t;
    const r = new ByteReader(this.read(t.index[0], t.index[1]));
    while (!r.done) {
      this.blockAt.push(t.dict[0] + r.varint());
      const n = r.varint();
      this.firstTerms.push(r.buf.toString('utf8', r.pos, r.pos + n));
      r.pos += n;
      this.blockPost.push(r.varint());
    }
  }

  /** Opens a run; throws with the reason when it is not a whole run file. */
  static open(file: string): RunReader {
    const fd = fs.openSync(file, 'r');
    try {
      return new RunReader(fd, file, fs.fstatSync(fd).size);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  private read(at: number, len: number): Buffer {
    const b = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = fs.readSync(this.fd, b, got, len - got, at + got);
      if (n === 0) throw new Error('run file cut short');
      got += n;
    }
    return b;
  }

  get blockCount(): number {
    return this.firstTerms.length;
  }

  /** The terms of block `i`, decoded (kept: a query asks again for the same few). */
  private block(i: number): DictEntry[] {
    let b = this.blocks.get(i);
    if (b) return b;
    const end = i + 1 < this.blockAt.length ? this.blockAt[i + 1] : this.trailer.dict[0] + this.trailer.dict[1];
    const r = new ByteReader(zlib.inflateRawSync(this.read(this.blockAt[i], end - this.blockAt[i])));
    const n = r.varint();
    b = [];
    let prev = Buffer.alloc(0);
    let at = this.trailer.postings[0] + this.blockPost[i];
    for (let k = 0; k < n; k++) {
      const shared = r.varint();
      const slen = r.varint();
      const tb = Buffer.concat([prev.subarray(0, shared), r.buf.subarray(r.pos, r.pos + slen)]);
      r.pos += slen;
      const df = r.varint();
      const len = r.varint();
      b.push({ term: tb.toString('utf8'), df, at, len });
      at += len;
      prev = tb;
    }
    if (this.blocks.size > 256) this.blocks.clear();
    this.blocks.set(i, b);
    return b;
  }

  /** Index of the last block whose first term is <= term (-1: before every block). */
  private blockFor(term: string): number {
    let lo = 0;
    let hi = this.firstTerms.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.firstTerms[mid] <= term) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The entry of a term, if the run has it. */
  entry(term: string): DictEntry | undefined {
    const i = this.blockFor(term);
    if (i < 0) return undefined;
    return this.block(i).find((e) => e.term === term);
  }

  /** Terms that start with `prefix` (up to `limit`), in order. */
  withPrefix(prefix: string, limit: number): DictEntry[] {
    const out: DictEntry[] = [];
    for (let i = Math.max(0, this.blockFor(prefix)); i < this.firstTerms.length; i++) {
      // Sorted: the terms with the prefix are one range, starting at the first term >= prefix.
      if (this.firstTerms[i] > prefix && !this.firstTerms[i].startsWith(prefix)) break;
      for (const e of this.block(i)) {
        if (e.term.startsWith(prefix)) {
          out.push(e);
          if (out.length >= limit) return out;
        } else if (e.term > prefix) return out;
      }
    }
    return out;
  }

  /**
   * The postings of entries, in order. Entries that follow one another in the dictionary (the words
   * a prefix starts: withPrefix) have their postings one after another in the file: read at once, not
   * one read per word (reads were a third of a query's lookups).
   */
  postings(es: readonly DictEntry[]): Postings[] {
    return this.rawPostings(es).map((b) => decodePostings(b));
  }

  /** The postings of entries as written (decodePostings, decodePostingsInto), in order; read as `postings` says. */
  rawPostings(es: readonly DictEntry[]): Buffer[] {
    if (es.length === 0) return [];
    const from = es[0].at;
    const last = es[es.length - 1];
    let sum = 0;
    for (const e of es) sum += e.len;
    if (last.at + last.len - from !== sum) return es.map((e) => this.read(e.at, e.len));
    const b = this.read(from, sum);
    return es.map((e) => b.subarray(e.at - from, e.at - from + e.len));
  }

  /**
   * Every term in order with its raw postings (merges). Terms' postings lie in term order, so they
   * are read in slabs of SLAB_BYTES rather than one read per term (most terms have a few bytes).
   */
  *entries(): Generator<{ term: string; df: number; raw: () => Buffer }> {
    const end = this.trailer.postings[0] + this.trailer.postings[1];
    let slab: Buffer = Buffer.alloc(0);
    let slabAt = 0;
    const raw = (at: number, len: number): Buffer => {
      if (at < slabAt || at + len > slabAt + slab.length) {
        slabAt = at;
        slab = this.read(at, Math.max(len, Math.min(SLAB_BYTES, end - at)));
      }
      return slab.subarray(at - slabAt, at - slabAt + len);
    };
    for (let i = 0; i < this.firstTerms.length; i++) {
      const block = this.block(i);
      this.blocks.delete(i);
      for (const e of block) yield { term: e.term, df: e.df, raw: () => raw(e.at, e.len) };
    }
  }
}
