/*
 * Bringing the index up to date with the files: what changed (planFile), and indexing a batch of
 * changed files into one new run (indexBatch). A file that only grew since it was indexed (a
 * terminal, a log) is indexed from its last chunk on; one rewritten, truncated or replaced is
 * indexed anew and its old chunks dropped; one deleted is dropped. Large files and large backlogs
 * go in parts (BATCH_BYTES per run), newest files first, so the answer to a question about what
 * just happened never waits for a year of history.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile, chunkHash, type Chunk } from './chunker';
import { chunkAt, chunkCount, CHUNK_FIELDS, type FileEntry, type Manifest } from './manifest';
import { writeRun } from './runFile';
import { BatchPostings } from './batchPostings';
import { forgetTermIdsIfMany } from './terms';
import { isAgentCapture, scopeOf } from './sources';
import { readAt } from '../../fs/readAt';

/** Bytes indexed into one run at most: a batch takes well under a second, so the lock is never held long. */
export const BATCH_BYTES = 8 * 1024 * 1024;
/**
 * Distinct terms at which a batch ends (at a chunk's end): sorting and writing them is the batch's
 * cost after its chunks, about a second per 250,000 at load 6 (output where every line brings a new
 * term, such as a log of numbers, reaches it within 1 MB; ordinary output rarely within 8 MB).
 */
export const BATCH_TERMS = 100_000;

/** What a plan needs of a regular file's stat. */
export type FileStat = Pick<fs.Stats, 'ino' | 'size' | 'mtimeMs'>;

/** A path's stat when it is a regular file now (never through a symbolic link); undefined otherwise. */
export function fileStat(abs: string): FileStat | undefined {
  const st = fs.lstatSync(abs, { throwIfNoEntry: false });
  return st?.isFile() ? st : undefined;
}

/** What must be done to one file. */
export interface Planned {
  rel: string;
  abs: string;
  /** undefined: the file is gone (or no longer a file), its chunks are dropped. */
  st?: FileStat;
  /** Chunks of the old entry kept (an append keeps all but the last, which is indexed again with what follows). */
  keep: number;
  /** Where indexing starts. */
  fromByte: number;
  fromLine: number;
}

/** Reads `len` bytes at `at` of an open file. */
/** Whether a file's indexed chunk still holds what was indexed. */
export function chunkStillThere(abs: string, e: FileEntry, i: number): boolean {
  const c = chunkAt(e, i);
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const len = c.byteEnd - c.byteStart;
    const b = readAt(fd, c.byteStart, Math.min(len, 64 * 1024));
    return b.length === Math.min(len, 64 * 1024) && chunkHash(b, len) === c.hash;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What to do about a file given its stat now (undefined: gone, or not a regular file) and its entry
 * (undefined: never indexed); undefined when it is indexed as it is.
 */
export function planFile(rel: string, abs: string, st: FileStat | undefined, e: FileEntry | undefined): Planned | undefined {
  if (!st) return e ? { rel, abs, keep: 0, fromByte: 0, fromLine: 1 } : undefined;
  if (!e) return { rel, abs, st, keep: 0, fromByte: 0, fromLine: 1 };
  if (st.ino === e.ino && st.size === e.size && st.mtimeMs === e.mtimeMs) return undefined;
  const n = chunkCount(e);
  // Grown with the same inode and its last chunk as indexed: an append (a terminal, a log).
  if (st.ino === e.ino && st.size > e.size && n > 0 && chunkStillThere(abs, e, n - 1)) {
    const last = chunkAt(e, n - 1);
    return { rel, abs, st, keep: n - 1, fromByte: last.byteStart, fromLine: last.lineStart };
  }
  if (st.ino === e.ino && st.size > e.size && n === 0) return { rel, abs, st, keep: 0, fromByte: 0, fromLine: 1 };
  return { rel, abs, st, keep: 0, fromByte: 0, fromLine: 1 };
}

/** Bytes of one file read ahead at most (the next batch's large file is read as it is indexed). */
const READ_AHEAD_FILE_BYTES = 1 << 20;
/** Where read-ahead reads go: nothing reads them (their point is the page cache), so the reads of one batch share it. */
let readAheadSink: Buffer | undefined;

/**
 * Starts reading the first `budget` bytes of `plans` (the next batch) into the page cache, one
 * fs.read per file on the thread pool, while this thread indexes the batch before: a read that
 * waits for the disk then waits beside that batch's tokenizing instead of after it. Indexing
 * row 24's tree (1.26 GB) from nothing spent 24.6 s of 183 s in readSync (a CPU profile, the files
 * not all in the page cache); at 0.1 of it (132 MB), its pages dropped from the cache before each
 * build, readSync waited 0.9 and 5.4 s with read-ahead against 6.6 and 7.6 s without (load 7-8).
 * Each file is opened here (a read needs no turn of this thread's event loop to go on: indexBatch
 * never yields) and closed when its read ends.
 */
export function readAhead(plans: readonly Planned[], budget: number): void {
  let bytes = 0;
  for (const p of plans) {
    if (bytes >= budget) break;
    if (!p.st) continue;
    const len = Math.min(p.st.size - p.fromByte, budget - bytes, READ_AHEAD_FILE_BYTES);
    if (len <= 0) continue;
    let fd: number;
    try {
      fd = fs.openSync(p.abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      continue; // gone or unreadable: indexBatch finds out
    }
    readAheadSink ??= Buffer.allocUnsafe(READ_AHEAD_FILE_BYTES);
    fs.read(fd, readAheadSink, 0, len, p.fromByte, () => fs.close(fd, () => undefined));
    bytes += len;
  }
}

/** What a batch did. */
export interface BatchOutcome {
  /** The run written (undefined: nothing needed one). */
  run?: { name: string; lo: number; hi: number; bytes: number };
  /** Files brought up to date (or dropped). */
  done: string[];
  /** Files indexed only in part (the rest comes in a later batch). */
  partial: string[];
  /** Files that could not be read, and why. */
  failed: { rel: string; why: string }[];
  bytes: number;
}

/**
 * Indexes `plans` (in the order given, up to `budget` bytes: the file that crosses it is indexed up
 * to a line end there) into one run in `dir`, and updates `m` in place (entries, runs, nextChunk).
 * When BATCH_TERMS distinct terms are in, the batch ends at the next chunk's end (what is left of
 * the file stays for a later batch), so a batch of output that is slow to index (a log of numbers:
 * a new term on every line) cannot hold a query far past its deadline.
 * The caller holds the manifest's lock and writes `m` afterwards.
 */
export function indexBatch(dir: string, m: Manifest, plans: readonly Planned[], mask: (text: string) => string, budget = BATCH_BYTES): BatchOutcome {
  const out: BatchOutcome = { done: [], partial: [], failed: [], bytes: 0 };
  // No term id is held between batches: a long-lived worker's ids are forgotten here when many.
  forgetTermIdsIfMany();
  const postings = new BatchPostings();
  const lo = m.nextChunk;
  let next = lo;
  const full = (): boolean => postings.terms >= BATCH_TERMS;
  for (const p of plans) {
    if (!p.st) {
      delete m.files[p.rel];
      out.done.push(p.rel);
      continue;
    }
    if (out.bytes >= budget || full()) break;
    const scope = scopeOf(p.rel);
    if (!scope) {
      delete m.files[p.rel];
      out.done.push(p.rel);
      continue;
    }
    let bytes: Buffer;
    let head = '';
    let st: fs.Stats;
    try {
      // Never through a symbolic link put in the file's place since it was listed.
      const fd = fs.openSync(p.abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        // The size and time read with the bytes: what was read is what the entry says was indexed.
        st = fs.fstatSync(fd);
        if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
        const room = Math.max(budget - out.bytes, 64 * 1024);
        const len = Math.min(st.size - p.fromByte, room);
        bytes = readAt(fd, p.fromByte, Math.max(0, len));
        if (p.fromByte + bytes.length < st.size) {
          // Stop at the last line end inside the part read (one long line: all of it).
          const nl = bytes.lastIndexOf(10);
          if (nl >= 0) bytes = bytes.subarray(0, nl + 1);
        }
        if (scope === 'terminals') head = p.fromByte === 0 ? bytes.toString('utf8', 0, Math.min(bytes.length, 4096)) : readAt(fd, 0, 4096).toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      // Unreadable now (gone, no permission): its old chunks are not quoted from; it is tried again later.
      delete m.files[p.rel];
      out.failed.push({ rel: p.rel, why: (e as Error).message });
      continue;
    }
    const old = m.files[p.rel];
    const kept: number[] = old && p.keep > 0 ? Array.prototype.slice.call(old.c, 0, p.keep * CHUNK_FIELDS) : [];
    // An append goes on from its last chunk, in the command block that chunk was in.
    const block = old && p.keep < chunkCount(old) && p.fromByte > 0 ? chunkAt(old, p.keep).block : 0;
    const c = kept;
    // Each chunk's terms go into the postings as it is made, so the batch knows when it is full.
    const chunks: Chunk[] = bytes.length > 0 ? chunkFile(bytes, p.fromByte, p.fromLine, mask, scope === 'terminals', block, (ch, terms) => {
      const id = next++;
      c.push(id, ch.byteStart, ch.lineStart, ch.tokens, ch.hash, ch.level, ch.block);
      terms.drain((term, v) => postings.add(term, id, v));
      return full();
    }) : [];
    // Stopped early (the terms filled the batch): indexed to the last chunk's end.
    const last = chunks[chunks.length - 1];
    if (last && last.byteEnd < p.fromByte + bytes.length) bytes = bytes.subarray(0, last.byteEnd - p.fromByte);
    const indexedTo = p.fromByte + bytes.length;
    const whole = indexedTo >= st.size;
    const entry: FileEntry = { scope, ino: st.ino, size: indexedTo, mtimeMs: whole ? st.mtimeMs : -1, c };
    if (scope === 'terminals' && isAgentCapture(head)) entry.agent = true;
    m.files[p.rel] = entry;
    out.bytes += bytes.length;
    (whole ? out.done : out.partial).push(p.rel);
  }
  if (next > lo) {
    const name = `r-${lo}.run`;
    const size = writeRun(path.join(dir, name), lo, next - 1, (w) => postings.forEachSorted((t, raw, df) => w.add(t, raw, df)));
    out.run = { name, lo, hi: next - 1, bytes: size };
    m.runs.push(out.run);
    m.nextChunk = next;
  }
  return out;
}
