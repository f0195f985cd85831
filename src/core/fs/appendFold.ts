/**
 * Summaries of append-only files that cost what was appended, not the file's size.
 *
 * An AppendFold folds the complete lines of a file into a small state (a count, the last few
 * records, per-day totals…) and remembers where it stopped: the byte offset after the last
 * complete line, the file's identity (device + inode) and a fingerprint of the bytes just before
 * that offset. The next read checks the file against that and then reads only what was appended.
 * Writers need not know about it: the MCP server, the editor and a second window append as they
 * always did, and every reader validates before trusting its summary.
 *
 * - A file replaced (rotation by rename: a new inode), truncated (smaller than the offset) or
 *   rewritten in place (the fingerprint no longer matches) resets the summary, which is rebuilt
 *   from the start.
 * - A partial last line (a writer caught mid-write) is not folded until its newline arrives.
 * - The file is read in 1 MB blocks, so a ledger of any size never becomes one JavaScript string.
 * - With `checkpoint`, the state is also saved (atomically) to a small JSON file once enough new
 *   bytes were folded, so a new process starts from there instead of from byte 0. Two processes
 *   may save the same checkpoint: each save is a whole, valid summary of some prefix of the file,
 *   and a reader validates it like its own.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeCacheFile } from './fsAtomic';
import { SerialQueue } from '../keyedState';

/** How a file's lines become a state. The state must survive JSON.stringify/parse (for checkpoints). */
export interface FoldSpec<S> {
  /** Bump when the state's shape or meaning changes: checkpoints of another version are ignored. */
  version: number;
  init(): S;
  /** Folds one complete line (without its newline); `lineNo` is 1-based, `byteOffset` where the line starts. */
  line(state: S, text: string, lineNo: number, byteOffset: number): void;
  /**
   * Optional: folds a run of whole lines at once (`text`: complete lines, each ending in `\n`, a `\r`
   * before it kept) and returns how many it folded. Must leave the state `line` would, called on each
   * line without its `\r\n`: it exists to spare a string per line (the terminal catalog folds
   * hundreds of thousands of index lines when it is first built).
   */
  lines?(state: S, text: string): number;
}

/** The result of a read: the state plus where it stands. */
export interface FoldResult<S> {
  state: S;
  /** Complete lines folded so far. */
  lines: number;
  /** Bytes folded (the offset after the last complete line). */
  offset: number;
  /** True when this read started over (first read, or the file was replaced, truncated or rewritten). */
  rebuilt: boolean;
}

/** Where a fold stands in its file: the file's identity and stamp, the folded prefix and its fingerprint, and the state. */
export interface FoldCheckpoint<S> {
  v: number;
  spec: number;
  dev: number;
  ino: number;
  offset: number;
  lines: number;
  size: number;
  mtimeMs: number;
  /** Base64 of the (up to) FINGERPRINT_BYTES bytes before `offset`. */
  tail: string;
  state: S;
}

const BLOCK = 1024 * 1024;
const FINGERPRINT_BYTES = 64;
/** Lines longer than this are folded as their first LONG_LINE bytes (no record of ours is anywhere near it). */
const LONG_LINE = 4 * 1024 * 1024;
const CHECKPOINT_FORMAT = 1;

/** Folds an append-only file incrementally; one instance per file and spec (see foldFile). */
export class AppendFold<S> {
  private cp: FoldCheckpoint<S> | undefined;
  private loaded = false;
  private savedOffset = 0;
  private readonly queue = new SerialQueue();

  constructor(
    readonly file: string,
    private readonly spec: FoldSpec<S>,
    private readonly opts: { checkpoint?: string; checkpointEveryBytes?: number } = {},
  ) {}

  /** Brings the summary up to date with the file and returns it (calls are serialised). */
  read(): Promise<FoldResult<S>> {
    return this.queue.run(() => this.update());
  }

  private async loadCheckpoint(): Promise<FoldCheckpoint<S> | undefined> {
    if (!this.opts.checkpoint) return undefined;
    try {
      const o = JSON.parse(await fs.promises.readFile(this.opts.checkpoint, 'utf8')) as FoldCheckpoint<S>;
      if (o && o.v === CHECKPOINT_FORMAT && o.spec === this.spec.version && typeof o.offset === 'number' && typeof o.tail === 'string' && o.state !== undefined) {
        this.savedOffset = o.offset;
        return o;
      }
    } catch {
      // missing or unreadable: start from the file itself
    }
    return undefined;
  }

  private async update(): Promise<FoldResult<S>> {
    if (!this.loaded) {
      this.loaded = true;
      this.cp = await this.loadCheckpoint();
    }
    // A sync stat: one path lookup, where an async one costs ~20× its CPU in dispatch (a briefing folds ten files).
    const st = fs.statSync(this.file, { throwIfNoEntry: false });
    if (!st) {
      // No file: an empty summary (a later file starts from 0 whatever its inode).
      const had = this.cp !== undefined && this.cp.offset > 0;
      this.cp = undefined;
      return { state: this.spec.init(), lines: 0, offset: 0, rebuilt: had };
    }
    const { cp, rebuilt } = await advanceFold(this.file, this.spec, this.cp, st);
    this.cp = cp;
    await this.maybeSave(cp);
    return { state: cp.state, lines: cp.lines, offset: cp.offset, rebuilt };
  }

  private async maybeSave(cp: FoldCheckpoint<S>): Promise<void> {
    const file = this.opts.checkpoint;
    if (!file) return;
    const every = this.opts.checkpointEveryBytes ?? 256 * 1024;
    // Small appends are cheap to fold again; saving on each one would only churn the disk (and file watchers).
    if (Math.abs(cp.offset - this.savedOffset) < every) return;
    try {
      // The folder ignores itself, so checkpoints never show up in git.
      await writeCacheFile(file, JSON.stringify(cp));
      this.savedOffset = cp.offset;
    } catch {
      // a read-only or vanished folder: the in-memory summary still works
    }
  }
}

/** A checkpoint at the start of a file (nothing folded yet). */
function freshCheckpoint<S>(spec: FoldSpec<S>, st: { dev: number; ino: number }): FoldCheckpoint<S> {
  return { v: CHECKPOINT_FORMAT, spec: spec.version, dev: st.dev, ino: st.ino, offset: 0, lines: 0, size: 0, mtimeMs: 0, tail: '', state: spec.init() };
}

/**
 * Brings `cp` (undefined: nothing folded yet) up to date with `file`, whose stat `st` the caller
 * took just before: unchanged (same identity, size and mtime) gives `cp` back; an append folds only
 * the new complete lines into `cp` (mutated); a file replaced, truncated or rewritten in place
 * starts over from byte 0 (`rebuilt`). The stateless core of AppendFold, for callers that keep many
 * checkpoints in one file of their own (the terminal catalog).
 */
export async function advanceFold<S>(file: string, spec: FoldSpec<S>, cp: FoldCheckpoint<S> | undefined, st: fs.Stats): Promise<{ cp: FoldCheckpoint<S>; rebuilt: boolean }> {
  if (cp && cp.size === st.size && cp.mtimeMs === st.mtimeMs && cp.ino === st.ino && cp.dev === st.dev) return { cp, rebuilt: false };
  let rebuilt = false;
  const fh = await fs.promises.open(file, 'r');
  try {
    if (!cp || cp.ino !== st.ino || cp.dev !== st.dev || st.size < cp.offset || !(await tailMatches(fh, cp))) {
      rebuilt = true;
      cp = freshCheckpoint(spec, st);
    }
    await foldFrom(fh, spec, cp, st.size);
    cp.size = st.size;
    cp.mtimeMs = st.mtimeMs;
  } finally {
    await fh.close();
  }
  return { cp, rebuilt };
}

/**
 * advanceFold with synchronous reads, for a caller that brings thousands of small files up to date
 * in one go (async reads cost tens of µs each in dispatch alone; these cost a few). Reads at most
 * `maxBytes` (one read): undefined, with `cp` untouched, when more is to be folded (use advanceFold).
 */
export function advanceFoldSync<S>(file: string, spec: FoldSpec<S>, cp: FoldCheckpoint<S> | undefined, st: fs.Stats, maxBytes = BLOCK): { cp: FoldCheckpoint<S>; rebuilt: boolean } | undefined {
  if (cp && cp.size === st.size && cp.mtimeMs === st.mtimeMs && cp.ino === st.ino && cp.dev === st.dev) return { cp, rebuilt: false };
  const fd = fs.openSync(file, 'r');
  try {
    let rebuilt = false;
    if (!cp || cp.ino !== st.ino || cp.dev !== st.dev || st.size < cp.offset || !tailMatchesSync(fd, cp)) {
      rebuilt = true;
      cp = freshCheckpoint(spec, st);
    }
    const len = st.size - cp.offset;
    if (len > maxBytes) return undefined;
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = fs.readSync(fd, buf, got, len - got, cp.offset + got);
      if (n === 0) break;
      got += n;
    }
    foldLines(spec, cp, buf.subarray(0, got), cp.offset);
    cp.size = st.size;
    cp.mtimeMs = st.mtimeMs;
    return { cp, rebuilt };
  } finally {
    fs.closeSync(fd);
  }
}

function tailMatchesSync<S>(fd: number, cp: FoldCheckpoint<S>): boolean {
  if (cp.offset === 0) return true;
  const want = Buffer.from(cp.tail, 'base64');
  const got = Buffer.alloc(want.length);
  const n = fs.readSync(fd, got, 0, want.length, cp.offset - want.length);
  return n === want.length && got.equals(want);
}

async function tailMatches<S>(fh: fs.promises.FileHandle, cp: FoldCheckpoint<S>): Promise<boolean> {
  if (cp.offset === 0) return true;
  const want = Buffer.from(cp.tail, 'base64');
  const got = Buffer.alloc(want.length);
  const { bytesRead } = await fh.read(got, 0, want.length, cp.offset - want.length);
  return bytesRead === want.length && got.equals(want);
}

/**
 * Folds the complete lines of `chunk` (which starts at byte `chunkStart` of the file, where `cp`
 * stands) and advances `cp` past them; returns where the incomplete rest of the chunk starts.
 */
function foldLines<S>(spec: FoldSpec<S>, cp: FoldCheckpoint<S>, chunk: Buffer, chunkStart: number): number {
  let start = 0;
  if (spec.lines) {
    // One string for the whole run (a newline byte is never part of a UTF-8 sequence, so decoding
    // the run gives what decoding line by line would).
    const last = chunk.lastIndexOf(10);
    if (last >= 0) {
      start = last + 1;
      cp.lines += spec.lines(cp.state, chunk.toString('utf8', 0, start));
    }
  } else for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
    const end = nl > start && chunk[nl - 1] === 13 ? nl - 1 : nl;
    cp.lines++;
    spec.line(cp.state, chunk.toString('utf8', start, end), cp.lines, chunkStart + start);
    start = nl + 1;
  }
  // Offset and fingerprint advance only past complete lines.
  if (start > 0) {
    cp.offset = chunkStart + start;
    cp.tail = Buffer.concat([Buffer.from(cp.tail, 'base64'), chunk.subarray(Math.max(0, start - FINGERPRINT_BYTES), start)]).subarray(-FINGERPRINT_BYTES).toString('base64');
  }
  return start;
}

/** Folds complete lines from cp.offset up to `size` (bytes past it, appended meanwhile, wait for the next read). */
async function foldFrom<S>(fh: fs.promises.FileHandle, spec: FoldSpec<S>, cp: FoldCheckpoint<S>, size: number): Promise<void> {
  let pos = cp.offset;
  let carry: Buffer = Buffer.alloc(0);
  // A line longer than LONG_LINE (garbage, a file of NULs) is folded as its first LONG_LINE bytes:
  // carrying it whole would copy it again with every block read (quadratic; a 2 GB line never ends).
  let longLine = false;
  // Sized to what is to be read (at most a block), uninitialised: only the bytes read are used.
  // A zero-filled 1 MB block per read made a small file's first read (an agent's findings.md,
  // hundreds of them when a view lists agents) cost as much as reading a megabyte.
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(BLOCK, size - pos)));
  while (pos < size) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const block = buf.subarray(0, bytesRead);
    if (longLine) {
      const nl = block.indexOf(10);
      if (nl < 0) continue;
      // The long line ends here: fold its head, go on after it.
      const lineStart = cp.offset;
      cp.lines++;
      spec.line(cp.state, carry.toString('utf8'), cp.lines, lineStart);
      const end = pos - bytesRead + nl + 1;
      cp.offset = end;
      cp.tail = block.subarray(Math.max(0, nl + 1 - FINGERPRINT_BYTES), nl + 1).toString('base64');
      longLine = false;
      carry = Buffer.alloc(0);
      // Fold the rest of this block normally (re-read from `end`).
      pos = end;
      continue;
    }
    const chunk = carry.length ? Buffer.concat([carry, block]) : block;
    const start = foldLines(spec, cp, chunk, pos - chunk.length);
    // A line longer than the block is carried whole (copied, since buf is reused) up to LONG_LINE.
    carry = Buffer.from(chunk.subarray(start, start + LONG_LINE));
    if (chunk.length - start > LONG_LINE) longLine = true;
  }
}

const folds = new Map<string, AppendFold<unknown>>();

/**
 * The process-wide AppendFold of `file` under `spec` (keyed by both), so every tool call and view
 * refresh in this process continues from the same place.
 */
export function foldFile<S>(file: string, spec: FoldSpec<S> & { id: string }, checkpoint?: string): AppendFold<S> {
  const key = `${spec.id}\0${path.resolve(file)}`;
  let f = folds.get(key) as AppendFold<S> | undefined;
  if (!f) {
    f = new AppendFold(file, spec, { checkpoint });
    folds.set(key, f as AppendFold<unknown>);
  }
  return f;
}

