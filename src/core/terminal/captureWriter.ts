/**
 * Writes one terminal's capture: `N.txt` (claimed exclusively), its command blocks, the index
 * `N.index.jsonl`, and rotation to `N.1.txt`. Formats: terminalIndex.ts and docs/terminal-format.md.
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
import { EXIT_UNKNOWN } from './commandExit';
import { formatCommandFooter, formatCommandHeader, formatHeader, oneLine, type IndexRecord } from './terminalIndex';

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
}

export interface CommandStart {
  commandLine: string;
  cwd?: string;
  started: Date;
}

const NUMBERED = /^(\d+)(?:\.1)?\.(?:txt|index\.jsonl)$/;

function countLines(s: string): number {
  let n = 0;
  let i = -1;
  while ((i = s.indexOf('\n', i + 1)) !== -1) n++;
  return n;
}

/**
 * Claims the next free N in `dir` by creating N.txt with O_EXCL (numbering continues after the
 * highest existing N, so a reload or a second window never reuses a number) and writes the header.
 */
export async function createCaptureWriter(dir: string, header: TerminalHeader, opts: CaptureWriterOptions = {}): Promise<CaptureWriter> {
  await mkdirp(dir);
  let n = 0;
  for (const name of await fs.promises.readdir(dir)) {
    const m = NUMBERED.exec(name);
    if (m) n = Math.max(n, Number(m[1]));
  }
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
    const text = formatHeader({ ...header, n });
    try {
      await fh.write(text);
    } catch (e) {
      await fh.close();
      throw e;
    }
    return new CaptureWriter(dir, n, header, fh, text, opts);
  }
  throw new Error(`could not claim a terminal number in ${dir}: 10000 numbers taken; clean up .agent/terminals/`);
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
    this.maxBytes = Math.max(64 * 1024, opts.maxFileBytes ?? 10 * 1024 * 1024);
    this.flushMs = opts.flushMs ?? 250;
    this.flushBytes = opts.flushBytes ?? 16 * 1024;
    this.log = opts.logger ?? nullLogger;
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
      this.enqueue(async () => {
        try {
          await this.fh.write(text);
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
    this.endCommand(undefined, 0, at, undefined, reason);
    this.note(`terminal closed at ${at.toISOString()}`);
    this.closed = true;
    await this.flush();
    this.enqueue(() => this.fh.close());
    return this.chain;
  }

  private put(text: string, size = Buffer.byteLength(text)): void {
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
        // Capture must never break the terminal: log once and stop writing this terminal.
        this.failed = true;
        this.log.error(`terminal capture stopped for ${this.file}: ${(e as Error).message}. Check disk space and permissions of ${this.dir}.`);
      }
    });
  }

  private addRecord(r: IndexRecord): void {
    // The index never points at lines that are not on disk yet: the text goes first.
    void this.flush();
    this.records.push(r);
    const line = JSON.stringify(r) + '\n';
    this.enqueue(() => fs.promises.appendFile(this.indexFile, line));
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
    const indexText = this.records.map((r) => JSON.stringify(r) + '\n').join('');
    this.enqueue(async () => {
      await this.fh.close();
      await fs.promises.rename(this.file, prev);
      this.fh = await fs.promises.open(this.file, 'w');
      await this.fh.write(headerText);
      await writeFileAtomic(this.indexFile, indexText);
    });
    if (cur) {
      const from = `${this.n}.1.txt`;
      this.put(formatCommandHeader(cur.k, cur.start.started, cur.start.cwd, cur.start.commandLine, from) + '\n');
      cur.record = { ...cur.record, file: `${this.n}.txt`, headerLine: this.lines, firstLine: this.lines + 1, lastLine: null };
      this.addRecord(cur.record);
    }
  }
}
