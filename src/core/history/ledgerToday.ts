/**
 * Today's totals of the tool ledger for the status bar, at a cost that does not grow with the
 * ledger: the first poll reads the ledger backwards from its end only as far as today's first
 * entry; later polls read only what was appended since. No entry is kept, only running totals, and
 * no read is larger than CHUNK bytes, so a ledger of any size (past V8's 512 MB string limit too)
 * neither throws nor fills memory.
 *
 * Another process (the MCP server, a second window) appends to the same file: each poll checks the
 * file's identity and size, and starts over from the end of the file when it was replaced (other
 * inode), truncated (smaller than what was read) or when the day changed.
 *
 * With a checkpoint file (`.agent/.cache/ledger-today.json`), a new window does not read today's
 * part again (a heavy user's day is megabytes of entries, ~60 ms at every start): it takes the totals
 * where the last window left them and reads only what came after. The checkpoint names the ledger
 * file, its inode, the day, the offset, the totals and the bytes just before the offset; it is used
 * only when all of them still hold (same file and day, not truncated, the same bytes there),
 * otherwise today is read from the end as without one. Written atomically after the first poll and
 * then at most every CHECKPOINT_EVERY_MS; several windows may write it, each write whole.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localDay, savedBy, type LedgerEntry, type LedgerTotals } from './ledger';
import { writeCacheFile } from '../fs/fsAtomic';

/** Largest single read (bytes): its lines are parsed in one go, so this bounds the editor's block (~10 ms). */
const CHUNK = 256 * 1024;
/** Entries from concurrent writers can be slightly out of time order: look this far before midnight. */
const SLACK_MS = 10 * 60_000;
/** The checkpoint is written again at most this often while entries come. */
const CHECKPOINT_EVERY_MS = 60_000;
/** Bytes before the offset kept in the checkpoint, to tell the same file from one rewritten in place. */
const TAIL_BYTES = 64;
const CHECKPOINT_VERSION = 1;

interface Checkpoint {
  v: number;
  file: string;
  ino: number;
  day: string;
  offset: number;
  tail: string;
  totals: LedgerTotals;
}

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

function zero(): LedgerTotals {
  return { calls: 0, rawTokens: 0, returnedTokens: 0, savedTokens: 0 };
}

function addTo(t: LedgerTotals, e: LedgerEntry): void {
  t.calls++;
  t.rawTokens += e.rawTokens || 0;
  t.returnedTokens += e.returnedTokens || 0;
  t.savedTokens += savedBy(e);
}

function parse(line: string): LedgerEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const o = JSON.parse(line) as LedgerEntry;
    return o && typeof o.tool === 'string' && typeof o.time === 'string' ? o : undefined;
  } catch {
    return undefined; // a torn or hand-edited line: the report lists those
  }
}

/** What one poll found. */
export interface TodayTotals {
  /** Local calendar day (YYYY-MM-DD) the totals are for. */
  day: string;
  today: LedgerTotals;
  /** The ledger exists and is not empty. */
  hasEntries: boolean;
}

/** Follows one ledger file; `file()` names it on every poll (it may change when the ledger rotates). */
export class LedgerToday {
  private path: string | undefined;
  private ino = -1;
  /** Bytes consumed: always just after a newline. */
  private offset = 0;
  private day = '';
  private totals = zero();
  /** Bytes read by the last poll (for tests and the benchmark). */
  lastReadBytes = 0;
  /** When the checkpoint was last written (0: not yet) and at which offset. */
  private savedAt = 0;
  private savedOffset = -1;

  /** `checkpoint`: where to keep the totals for the next window (see above); none without it. */
  constructor(private readonly file: () => string, private readonly checkpoint?: string) {}

  /** Reads what is new and returns today's totals. */
  async poll(now = new Date()): Promise<TodayTotals> {
    const file = this.file();
    const today = localDay(now);
    this.lastReadBytes = 0;
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(file, 'r');
    } catch {
      this.path = undefined;
      this.offset = 0;
      this.totals = zero();
      this.day = today;
      return { day: today, today: zero(), hasEntries: false };
    }
    try {
      const st = await fh.stat();
      if (file !== this.path || st.ino !== this.ino || st.size < this.offset || today !== this.day) {
        if (!(this.path === undefined && (await this.resume(fh, file, st, today, now.getTime())))) await this.startFromEnd(fh, st.size, now);
        this.path = file;
        this.ino = st.ino;
        this.day = today;
      }
      if (st.size > this.offset) await this.readForward(fh, st.size, today);
      await this.saveCheckpoint(fh, now.getTime());
      return { day: today, today: { ...this.totals }, hasEntries: st.size > 0 };
    } finally {
      await fh.close();
    }
  }

  /** Takes the totals from the checkpoint when it still holds for this file and day (see above). */
  private async resume(fh: fs.promises.FileHandle, file: string, st: fs.Stats, today: string, nowMs: number): Promise<boolean> {
    if (!this.checkpoint) return false;
    let c: Checkpoint;
    try {
      c = JSON.parse(await fs.promises.readFile(this.checkpoint, 'utf8')) as Checkpoint;
    } catch {
      return false; // none yet, unreadable or damaged: read today from the end
    }
    const t = c?.totals;
    if (!c || c.v !== CHECKPOINT_VERSION || c.file !== path.basename(file) || c.ino !== st.ino || c.day !== today) return false;
    if (!isCount(c.offset) || c.offset > st.size || typeof c.tail !== 'string' || !t || ![t.calls, t.rawTokens, t.returnedTokens, t.savedTokens].every(isCount)) return false;
    const tail = await this.tailBefore(fh, c.offset);
    if (tail !== c.tail || (c.offset > 0 && !tail.endsWith('\n'))) return false;
    this.offset = c.offset;
    this.totals = { calls: t.calls, rawTokens: t.rawTokens, returnedTokens: t.returnedTokens, savedTokens: t.savedTokens };
    this.savedAt = nowMs;
    this.savedOffset = c.offset;
    return true;
  }

  /** The TAIL_BYTES bytes before `offset`, as latin1 text (byte for byte). */
  private async tailBefore(fh: fs.promises.FileHandle, offset: number): Promise<string> {
    const len = Math.min(TAIL_BYTES, offset);
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fh.read(buf, 0, len, offset - len);
    return buf.toString('latin1', 0, bytesRead);
  }

  /** Writes the checkpoint after the first poll, then when the offset moved and the last write is old enough. */
  private async saveCheckpoint(fh: fs.promises.FileHandle, nowMs: number): Promise<void> {
    if (!this.checkpoint || this.path === undefined || this.offset === this.savedOffset) return;
    if (this.savedAt && nowMs - this.savedAt < CHECKPOINT_EVERY_MS) return;
    this.savedAt = nowMs;
    this.savedOffset = this.offset;
    const body: Checkpoint = { v: CHECKPOINT_VERSION, file: path.basename(this.path), ino: this.ino, day: this.day, offset: this.offset, tail: await this.tailBefore(fh, this.offset), totals: { ...this.totals } };
    try {
      await writeCacheFile(this.checkpoint, JSON.stringify(body));
    } catch {
      // A cache: a failed write (read-only folder, full disk) only means reading today again next start.
    }
  }

  /** Today's entries, read from the end backwards until an entry from before today (less the slack). */
  private async startFromEnd(fh: fs.promises.FileHandle, size: number, now: Date): Promise<void> {
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
    const nextMidnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime();
    this.totals = zero();
    /** Returns true when the line is from before today (stop reading further back). */
    const take = (line: string): boolean => {
      const e = parse(line);
      if (!e) return false;
      // Today in local time, as localDay(e.time) === localDay(now), without formatting a date per line.
      const t = Date.parse(e.time);
      if (t >= midnight && t < nextMidnight) {
        addTo(this.totals, e);
        return false;
      }
      return Number.isFinite(t) && t < midnight - SLACK_MS;
    };
    let pos = size;
    let carry: Buffer = Buffer.alloc(0);
    // Everything up to the last newline is consumed; bytes after it are a line still being written.
    let end: number | undefined;
    // Small first reads (today is usually a small part), growing to CHUNK.
    let chunk = 64 * 1024;
    while (pos > 0) {
      const len = Math.min(chunk, pos);
      chunk = Math.min(chunk * 2, CHUNK);
      pos -= len;
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, pos);
      this.lastReadBytes += len;
      const data = carry.length ? Buffer.concat([buf, carry]) : buf;
      let lineEnd = data.length;
      if (end === undefined) {
        const nl = data.lastIndexOf(10);
        if (nl === -1) {
          carry = data;
          continue;
        }
        end = pos + nl + 1;
        lineEnd = nl;
      }
      let stop = false;
      let i = lineEnd > 0 ? data.lastIndexOf(10, lineEnd - 1) : -1;
      while (i !== -1) {
        if (take(data.toString('utf8', i + 1, lineEnd))) {
          stop = true;
          break;
        }
        lineEnd = i;
        i = lineEnd > 0 ? data.lastIndexOf(10, lineEnd - 1) : -1;
      }
      if (stop) break;
      if (pos === 0) {
        take(data.toString('utf8', 0, lineEnd));
        break;
      }
      // The first line of this chunk may be cut: carry it into the next (earlier) chunk.
      carry = Buffer.from(data.subarray(0, lineEnd));
    }
    this.offset = end ?? 0;
  }

  /** Adds today's entries among the complete lines appended since the last poll. */
  private async readForward(fh: fs.promises.FileHandle, size: number, today: string): Promise<void> {
    let pos = this.offset;
    let carry = '';
    while (pos < size) {
      const len = Math.min(CHUNK, size - pos);
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      if (bytesRead === 0) break;
      this.lastReadBytes += bytesRead;
      const lastNl = buf.subarray(0, bytesRead).lastIndexOf(10);
      if (lastNl === -1) {
        // No complete line in this chunk: a line longer than CHUNK (or one still being written).
        if (pos + bytesRead >= size) break;
        carry += buf.toString('utf8', 0, bytesRead);
        pos += bytesRead;
        continue;
      }
      const text = carry + buf.toString('utf8', 0, lastNl);
      carry = '';
      for (const line of text.split('\n')) {
        const e = parse(line);
        if (e && localDay(e.time) === today) addTo(this.totals, e);
      }
      pos += lastNl + 1;
      this.offset = pos;
    }
  }
}
