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
 */
import * as fs from 'node:fs';
import { localDay, savedBy, type LedgerEntry, type LedgerTotals } from './ledger';

/** Largest single read (bytes): its lines are parsed in one go, so this bounds the editor's block (~10 ms). */
const CHUNK = 256 * 1024;
/** Entries from concurrent writers can be slightly out of time order: look this far before midnight. */
const SLACK_MS = 10 * 60_000;

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

  constructor(private readonly file: () => string) {}

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
        await this.startFromEnd(fh, st.size, now);
        this.path = file;
        this.ino = st.ino;
        this.day = today;
      } else if (st.size > this.offset) {
        await this.readForward(fh, st.size, today);
      }
      return { day: today, today: { ...this.totals }, hasEntries: st.size > 0 };
    } finally {
      await fh.close();
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
