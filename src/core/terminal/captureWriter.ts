/**
 * Writes one terminal's capture: `N.txt` (claimed exclusively), its command blocks, the index
 * `N.index.jsonl`, and rotation to `N.1.txt`. Formats: terminalFormat.ts and docs/terminal-format.md.
 *
 * Everything is accounted synchronously (line numbers, bytes, rotation decisions) and the disk
 * work runs on one promise chain, so the index always matches the file and the caller (the
 * terminal data path) never waits. Output is batched: written every `flushMs` or once
 * `flushBytes` are pending, never per line.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirp, writeFileAtomic } from '../fs/fsAtomic';
import { nullLogger, type Logger } from '../log';
import { describeFsError, isDiskFull } from '../fs/fsErrors';
import { EXIT_UNKNOWN } from './commandExit';
import { formatCommandFooter, formatCommandHeader, formatHeader, oneLine, type IndexRecord } from './terminalFormat';
import { highestTerminalNumber } from './terminalIndex';
import { EMPTY_TALLY, talliedClosing, talliedLine, talliedLines, type Tally } from './indexTally';
import { groupDigits } from '../output/humanize';
import { SETTINGS } from '../settingsTable';

export interface TerminalHeader {
  name: string;
  shell?: string;
  cwd?: string;
  started: Date;
  shellIntegration: boolean;
}

export interface CaptureWriterOptions {
  /** Rotate N.txt to N.1.txt past this size. Default 10 MB. */
  maxFileBytes?: number;
  /** Write pending output at least this often. Default 250 ms. */
  flushMs?: number;
  /** Write at once when this much output is pending. Default 16 KB (what is pending is memory; see BACKLOG_BYTES). */
  flushBytes?: number;
  logger?: Logger;
  /**
   * Told when the disk fills up (capture pauses: output is dropped, counted, and marked in the file
   * with DISK_FULL_MARK when space returns) and when capture resumes. Once per pause, not per chunk.
   */
  onDiskFull?: (e: { file: string; resumed: boolean; lostLines: number }) => void;
  /** How often a paused capture tries to write again. Default 2 s. */
  resumeRetryMs?: number;
}

/** Free space a paused capture waits for before it writes again. */
const RESUME_FREE_BYTES = 256 * 1024;

/** The line a capture writes where output was lost because the disk was full. */
export const DISK_FULL_MARK = '[capture paused: disk full]';

export interface CommandStart {
  commandLine: string;
  cwd?: string;
  started: Date;
}

function countLines(s: string): number {
  let n = 0;
  let i = -1;
  while ((i = s.indexOf('\n', i + 1)) !== -1) n++;
  return n;
}

/**
 * Claims the next free N in `dir` by creating N.txt with O_EXCL (numbering continues after the
 * highest existing N, so a reload, a second window or an agent session's capture never reuses a
 * number) and writes `header(n)` into it. The file is left open for the caller.
 */
export async function claimTerminalFile(dir: string, header: (n: number) => string): Promise<{ n: number; fh: fs.promises.FileHandle; text: string }> {
  await mkdirp(dir);
  // From the kept listing while the folder is unchanged (10,000 terminals: 20,000 names otherwise).
  const highest = await highestTerminalNumber(dir);
  if (!highest.ok) throw new Error(highest.error.message);
  let n = highest.value;
  for (let attempt = 0; attempt < 10000; attempt++) {
    n++;
    const file = path.join(dir, `${n}.txt`);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(file, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    const text = header(n);
    try {
      await fh.write(text);
    } catch (e) {
      await fh.close();
      throw e;
    }
    return { n, fh, text };
  }
  throw new Error(`could not claim a terminal number in ${dir}: 10000 numbers taken; clean up .agent/terminals/`);
}

/** Claims the next free N in `dir` (claimTerminalFile) and opens its capture. */
export async function createCaptureWriter(dir: string, header: TerminalHeader, opts: CaptureWriterOptions = {}): Promise<CaptureWriter> {
  const { n, fh, text } = await claimTerminalFile(dir, (k) => formatHeader({ ...header, n: k }));
  return new CaptureWriter(dir, n, header, fh, text, opts);
}

interface OpenCommand {
  k: number;
  start: CommandStart;
  record: IndexRecord;
}

/** One terminal's files. Create with createCaptureWriter. */
export class CaptureWriter {
  readonly file: string;
  readonly indexFile: string;
  private lines: number;
  private bytes: number;
  private headerBytes: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private commands = 0;
  private current: OpenCommand | undefined;
  private records: IndexRecord[] = [];
  private closed = false;
  private failed = false;
  private readonly maxBytes: number;
  private readonly flushMs: number;
  private readonly flushBytes: number;
  private readonly log: Logger;
  private readonly opts: CaptureWriterOptions;
  /** What of N.txt is known to be on disk (whole chunks, so always at a line's end). */
  private diskBytes: number;
  private diskLines: number;
  /** Set while the disk is full: output is counted and dropped until a write succeeds again. */
  private paused: { since: Date; atLines: number; lostLines: number; timer?: NodeJS.Timeout } | undefined;
  /** The latest record of each command that is not in the index yet (written or dropped in a pause). */
  private readonly unindexed = new Map<number, IndexRecord>();
  /** The index as written so far (indexTally.ts); advanced only by writes that completed. */
  private tally: Tally = EMPTY_TALLY;
  /** Commands whose `>>>` line was lost in a pause. */
  private readonly headerLost = new Set<number>();

  constructor(
    readonly dir: string,
    readonly n: number,
    private readonly header: TerminalHeader,
    private fh: fs.promises.FileHandle,
    headerText: string,
    opts: CaptureWriterOptions,
  ) {
    this.file = path.join(dir, `${n}.txt`);
    this.indexFile = path.join(dir, `${n}.index.jsonl`);
    this.lines = countLines(headerText);
    this.bytes = Buffer.byteLength(headerText);
    this.headerBytes = this.bytes;
    this.diskBytes = this.bytes;
    this.diskLines = this.lines;
    this.maxBytes = Math.max(64 * 1024, opts.maxFileBytes ?? SETTINGS['terminals.maxFileMB'].default * 1024 * 1024);
    this.flushMs = opts.flushMs ?? 250;
    this.flushBytes = opts.flushBytes ?? 16 * 1024;
    this.log = opts.logger ?? nullLogger;
    this.opts = opts;
  }

  /** True while capture is paused because the disk is full. */
  get pausedForDiskFull(): boolean {
    return this.paused !== undefined;
  }

  /** Bytes handed to the disk queue but not written yet (backpressure for fast producers). */
  get backlogBytes(): number {
    return this.inFlight + this.pendingBytes;
  }

  /** Number of commands begun so far. */
  get commandCount(): number {
    return this.commands;
  }

  /** Starts a command block; the command line should already be masked. Ends an unfinished previous one. */
  beginCommand(start: CommandStart): number {
    if (this.closed) return 0;
    if (this.current) this.endCommand(undefined, 0, start.started, undefined, EXIT_UNKNOWN.superseded);
    const k = ++this.commands;
    if (this.paused) this.headerLost.add(k);
    this.put(formatCommandHeader(k, start.started, start.cwd, start.commandLine) + '\n');
    const record: IndexRecord = {
      v: 1, command: k, status: 'running', file: `${this.n}.txt`, commandLine: oneLine(start.commandLine), cwd: start.cwd ?? null,
      started: start.started.toISOString(), headerLine: this.lines, firstLine: this.lines + 1, lastLine: null,
      exitCode: null, durationMs: null, secretsMasked: 0,
    };
    this.current = { k, start, record };
    this.addRecord(record);
    return k;
  }

  /** Appends output: whole lines, already rendered and masked. Rotates first if the file is full. */
  write(text: string): void {
    if (this.closed || text.length === 0) return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.maxBytes && this.bytes > this.headerBytes + 4096) this.rotate();
    this.put(text, size);
  }

  /** Closes the current command block with its exit code; when that is undefined, `exitUnknown` says why (an EXIT_UNKNOWN reason). */
  endCommand(exitCode: number | undefined, secretsMasked: number, ended: Date = new Date(), outputMissing?: 'all' | 'start', exitUnknown?: string): void {
    const c = this.current;
    if (!c || this.closed) return;
    this.current = undefined;
    const durationMs = Math.max(0, ended.getTime() - c.start.started.getTime());
    const lastLine = this.lines;
    // Never a silent unknown: a caller that gives no reason still gets one in the file and the index.
    const why = exitCode === undefined ? (exitUnknown ?? EXIT_UNKNOWN.unspecified) : undefined;
    this.put(formatCommandFooter(c.k, exitCode, durationMs, secretsMasked, outputMissing, why) + '\n');
    const done: IndexRecord = { ...c.record, status: 'done', lastLine, exitCode: exitCode ?? null, durationMs, secretsMasked };
    if (why) done.exitUnknown = why;
    if (outputMissing) done.outputMissing = outputMissing;
    this.addRecord(done);
    this.flushSoon();
  }

  /** Writes a `# ...` note line between commands. */
  note(text: string): void {
    if (this.closed) return;
    this.put(`# ${oneLine(text)}\n`);
    this.flushSoon();
  }

  /** Writes everything pending; resolves when it is on disk. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length > 0) {
      const text = this.pending.join('');
      const size = this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
      this.inFlight += size;
      const lines = countLines(text);
      this.enqueue(async () => {
        try {
          // Output accounted before a pause began, or during one, is lost: counted, not written.
          if (this.paused) return;
          await this.writeAll(text, size);
          this.diskBytes += size;
          this.diskLines += lines;
        } finally {
          this.inFlight -= size;
        }
      });
    }
    return this.chain;
  }

  /** Finalises the file: ends a running command (exit unknown, for `reason`), notes the close, flushes, closes. */
  async close(at: Date = new Date(), reason: string = EXIT_UNKNOWN.terminalClosed): Promise<void> {
    if (this.closed) return this.chain;
    // A paused capture tries once more, so the mark and the closing note land if there is room now.
    if (this.paused) {
      this.enqueue(() => this.tryResume());
      await this.chain;
    }
    this.endCommand(undefined, 0, at, undefined, reason);
    this.closeIndex(at);
    this.note(`terminal closed at ${at.toISOString()}`);
    this.closed = true;
    if (this.paused?.timer) clearTimeout(this.paused.timer);
    await this.flush();
    this.enqueue(() => this.fh.close());
    return this.chain;
  }

  /**
   * One write of a whole chunk at the end of what is on disk (positional: after a pause cut the file
   * back, the handle's own position would leave a hole); a short write (the disk filled up part-way) is ENOSPC.
   */
  private async writeAll(text: string, size: number): Promise<void> {
    const { bytesWritten } = await this.fh.write(text, this.diskBytes, 'utf8');
    if (bytesWritten < size) throw Object.assign(new Error(`ENOSPC: no space left on device, write (${bytesWritten} of ${size} bytes)`), { code: 'ENOSPC' });
  }

  /**
   * The disk is full: what is not on disk is given up (counted), the file is cut back to its last
   * whole chunk, and capture pauses until a write succeeds again (tryResume, every resumeRetryMs).
   */
  private async pause(e: unknown): Promise<void> {
    const lost = Math.max(0, this.lines - this.diskLines);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.paused) this.paused.lostLines += lost;
    else {
      this.paused = { since: new Date(), atLines: this.diskLines, lostLines: lost };
      this.log.warn(`terminal capture paused for ${this.file}: ${describeFsError(e, this.file)}. Output is counted and marked when space returns.`);
      this.opts.onDiskFull?.({ file: this.file, resumed: false, lostLines: lost });
    }
    this.lines = this.diskLines;
    this.bytes = this.diskBytes;
    // Records kept for a rotation must not point past what is on disk (tryResume adds the right ones).
    const at = this.paused.atLines;
    this.records = this.records.filter((r) => r.headerLine <= at && (r.lastLine ?? 0) <= at);
    await this.fh.truncate(this.diskBytes).catch(() => undefined);
    this.scheduleResume();
  }

  private scheduleResume(): void {
    const p = this.paused;
    if (!p || p.timer || this.closed) return;
    p.timer = setTimeout(() => {
      p.timer = undefined;
      this.enqueue(() => this.tryResume());
    }, this.opts.resumeRetryMs ?? 2000);
    p.timer.unref?.();
  }

  /**
   * Writes the mark where output was lost and what the index needs to stay true: commands that
   * ended in the pause get their `<<<` line after the mark (the mark is their last output line),
   * commands whose `>>>` line was lost get one there. Then the records the index missed. On a full
   * disk again, the file is cut back and the pause goes on.
   */
  private async tryResume(): Promise<void> {
    const p = this.paused;
    if (!p) return;
    // Cutting the file back frees a little room by itself: resume only when the disk has real room
    // again, or the capture would pause and resume with every chunk.
    const free = await fs.promises.statfs(this.dir).then((st) => st.bavail * st.bsize, () => Number.POSITIVE_INFINITY);
    if (free < RESUME_FREE_BYTES) {
      this.scheduleResume();
      return;
    }
    const at = new Date();
    const out: string[] = [];
    let line = this.diskLines;
    const add = (t: string): number => {
      out.push(t + '\n');
      return ++line;
    };
    const mark = add(`${DISK_FULL_MARK} ${groupDigits(p.lostLines)} line${p.lostLines === 1 ? '' : 's'} of output lost from ${p.since.toISOString()} to ${at.toISOString()}; capture resumed`);
    const records: IndexRecord[] = [];
    for (const [k, rec] of [...this.unindexed].sort((a, b) => a[0] - b[0])) {
      const headerOnDisk = !this.headerLost.has(k) && rec.headerLine <= p.atLines;
      let r: IndexRecord = rec;
      if (!headerOnDisk) {
        const h = add(formatCommandHeader(k, new Date(rec.started), rec.cwd ?? undefined, rec.commandLine, undefined, 'its output before this line was lost: disk full'));
        r = { ...rec, headerLine: h, firstLine: h + 1, lastLine: rec.status === 'done' ? h : null, diskFull: true };
        if (rec.status === 'done') add(formatCommandFooter(k, rec.exitCode ?? undefined, rec.durationMs ?? 0, rec.secretsMasked, undefined, rec.exitUnknown));
      } else if (rec.status === 'done' && (rec.lastLine ?? 0) + 1 > p.atLines) {
        // It ended in the pause: the mark is its last output line, its `<<<` line follows.
        r = { ...rec, lastLine: mark, diskFull: true };
        add(formatCommandFooter(k, rec.exitCode ?? undefined, rec.durationMs ?? 0, rec.secretsMasked, undefined, rec.exitUnknown));
      } else if (rec.status !== 'done' && (rec.lastLine === null || rec.lastLine > p.atLines)) {
        r = { ...rec, diskFull: true };
      }
      records.push(r);
      if (this.current?.k === k) this.current.record = { ...this.current.record, headerLine: r.headerLine, firstLine: r.firstLine, diskFull: true };
    }
    // A command still running whose records are all on disk: its range now holds the mark.
    if (this.current && !this.unindexed.has(this.current.k)) this.current.record = { ...this.current.record, diskFull: true };
    const text = out.join('');
    const size = Buffer.byteLength(text);
    const index = talliedLines(this.tally, records);
    try {
      await this.writeAll(text, size);
      if (index.text) await fs.promises.appendFile(this.indexFile, index.text);
      this.tally = index.next;
    } catch (e) {
      await this.fh.truncate(this.diskBytes).catch(() => undefined);
      if (!isDiskFull(e)) throw e;
      this.scheduleResume();
      return;
    }
    this.diskBytes += size;
    this.diskLines = line;
    this.bytes = this.diskBytes;
    this.lines = this.diskLines;
    for (const r of records) this.records.push(r);
    this.unindexed.clear();
    this.headerLost.clear();
    this.paused = undefined;
    this.log.info(`terminal capture resumed for ${this.file} (${p.lostLines} lines lost while the disk was full)`);
    this.opts.onDiskFull?.({ file: this.file, resumed: true, lostLines: p.lostLines });
  }

  private put(text: string, size = Buffer.byteLength(text)): void {
    if (this.paused) {
      // Dropped while the disk is full: only counted, for the mark.
      this.paused.lostLines += countLines(text);
      this.scheduleResume();
      return;
    }
    this.pending.push(text);
    this.pendingBytes += size;
    this.bytes += size;
    this.lines += countLines(text);
    if (this.pendingBytes >= this.flushBytes) void this.flush();
    else this.flushSoon();
  }

  private flushSoon(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs);
  }

  private enqueue(op: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.failed) return;
      try {
        await op();
      } catch (e) {
        // A full disk pauses capture (resumed when there is room again); anything else stops this terminal.
        if (isDiskFull(e)) {
          try {
            await this.pause(e);
            return;
          } catch {
            // fall through: stop
          }
        }
        // Capture must never break the terminal: log once and stop writing this terminal.
        this.failed = true;
        this.log.error(`terminal capture stopped for ${this.file}: ${describeFsError(e, this.file)}. Check disk space and permissions of ${this.dir}.`);
      }
    });
  }

  private addRecord(r: IndexRecord): void {
    // The index never points at lines that are not on disk yet: the text goes first.
    void this.flush();
    this.unindexed.set(r.command, r);
    if (this.paused) {
      this.scheduleResume();
      return;
    }
    this.records.push(r);
    this.enqueue(async () => {
      // In a pause the record waits: tryResume writes what the index missed, with lines that exist.
      if (this.paused) return;
      // Tallied here, in the chain's order: the order the lines reach the file.
      const { line, next } = talliedLine(this.tally, r);
      await fs.promises.appendFile(this.indexFile, line);
      this.tally = next;
      if (this.unindexed.get(r.command) === r) this.unindexed.delete(r.command);
    });
  }

  /**
   * The index's closing record (terminalFormat.ts ClosingRecord), after its last command's record and
   * before N.txt's closing note; none for a terminal with no index (no command was indexed), in a
   * pause (the disk is full) or after a failed write: then N.txt's note alone says it closed.
   */
  private closeIndex(at: Date): void {
    this.enqueue(async () => {
      if (this.paused || this.failed || this.tally.at === 0 || this.unindexed.size > 0) return;
      const { line, next } = talliedClosing(this.tally, { v: 1, closed: at.toISOString() });
      await fs.promises.appendFile(this.indexFile, line);
      this.tally = next!;
    });
  }

  /** N.txt becomes N.1.txt (replacing the previous one) and a fresh N.txt starts with the header. */
  private rotate(): void {
    void this.flush();
    const prev = path.join(this.dir, `${this.n}.1.txt`);
    const cur = this.current;
    // Index: the part of the running command in the old file is cut here.
    if (cur) this.records.push({ ...cur.record, status: 'continued', lastLine: this.lines });
    const moved = this.records
      .filter((r) => r.file === `${this.n}.txt`)
      .map((r) => ({ ...r, file: `${this.n}.1.txt` }));
    // Only the latest record per command part matters once the file is old.
    const latest = new Map<string, IndexRecord>();
    for (const r of moved) latest.set(`${r.command}:${r.headerLine}`, r);
    this.records = [...latest.values()];
    const headerText = formatHeader({ ...this.header, n: this.n, continued: true });
    this.lines = countLines(headerText);
    this.bytes = Buffer.byteLength(headerText);
    this.headerBytes = this.bytes;
    const index = talliedLines(EMPTY_TALLY, this.records);
    this.enqueue(async () => {
      await this.fh.close();
      await fs.promises.rename(this.file, prev);
      this.fh = await fs.promises.open(this.file, 'w');
      await this.fh.write(headerText);
      this.diskBytes = Buffer.byteLength(headerText);
      this.diskLines = countLines(headerText);
      await writeFileAtomic(this.indexFile, index.text);
      this.tally = index.next;
    });
    if (cur) {
      const from = `${this.n}.1.txt`;
      this.put(formatCommandHeader(cur.k, cur.start.started, cur.start.cwd, cur.start.commandLine, from) + '\n');
      cur.record = { ...cur.record, file: `${this.n}.txt`, headerLine: this.lines, firstLine: this.lines + 1, lastLine: null };
      this.addRecord(cur.record);
    }
  }
}
