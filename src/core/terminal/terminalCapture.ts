/**
 * The capture pipeline of one terminal: raw data → TerminalRenderer → StreamingMasker →
 * CaptureWriter. Editor-free, so the glue, the unit tests and the benchmarks all drive the same
 * code. Per chunk the cost is the renderer's; lines reach the writer as they become final, and
 * a settle timer commits lines that the program can no longer change, so a long-running server's log
 * is on disk within about 6 s (docs/terminal-format.md, "Latency").
 */
import { StreamingMasker, maskSecrets, type UserPatterns } from '../secrets';
import { createCaptureWriter, type CaptureWriter, type CaptureWriterOptions, type CommandStart, type TerminalHeader } from './captureWriter';
import { TerminalRenderer, type RendererOptions } from './screen/terminalRenderer';
import { EXIT_UNKNOWN, type RecordedExit } from './commandExit';

/** The first bytes of every command's data under VS Code shell integration (or FinalTerm's 133). */
const SHELL_INTEGRATION_START = /^\x1b\](?:633|133);C/;

/**
 * Queued output above which CommandCapture.write() asks the producer to wait (small: what waits
 * for the disk is memory, and strings that live across young-generation collections make V8 grow
 * its young generation; 64 KB measured 40 MB of RSS growth on 200 MB where 512 KB gave 50-67).
 */
export const BACKLOG_BYTES = 64 * 1024;

export interface CaptureOptions extends CaptureWriterOptions {
  userPatterns?: UserPatterns;
  renderer?: RendererOptions;
  /** How often running output is settled into the file. Default 500 ms; 0 disables the timer. */
  settleMs?: number;
}

/** Opens a capture for a terminal: claims N.txt in `dir` and returns the pipeline. */
export async function openTerminalCapture(dir: string, header: TerminalHeader, opts: CaptureOptions = {}): Promise<TerminalCapture> {
  return new TerminalCapture(await createCaptureWriter(dir, header, opts), opts);
}

/** One terminal's pipeline; one command at a time, as shell integration delivers them. */
export class TerminalCapture {
  private current: CommandCapture | undefined;

  constructor(readonly writer: CaptureWriter, private opts: CaptureOptions = {}) {}

  /** Secret patterns for the commands that start from now on (settings changed). */
  setUserPatterns(userPatterns: UserPatterns | undefined): void {
    this.opts = { ...this.opts, userPatterns };
  }

  get n(): number {
    return this.writer.n;
  }

  /** The command still open, if any (its end not reported yet). */
  get running(): CommandCapture | undefined {
    return this.current;
  }

  /** Starts a command; a still-open previous one is ended first (exit unknown: the next command started). */
  beginCommand(start: CommandStart): CommandCapture {
    this.current?.end({ exitCode: null, reason: EXIT_UNKNOWN.superseded }, start.started);
    const masked = maskSecrets(start.commandLine, this.opts.userPatterns);
    const k = this.writer.beginCommand({ ...start, commandLine: masked.text });
    const cmd = new CommandCapture(this.writer, k, masked.count, this.opts, () => {
      if (this.current === cmd) this.current = undefined;
    });
    this.current = cmd;
    return cmd;
  }

  /** Notes a line between commands (`# ...`). */
  note(text: string): void {
    this.writer.note(text);
  }

  /**
   * Finalises the files: a running command ends with exit unknown for `reason` (default: the
   * terminal closed while it ran), then `# terminal closed` is written.
   */
  async close(at: Date = new Date(), reason: string = EXIT_UNKNOWN.terminalClosed): Promise<void> {
    this.current?.end({ exitCode: null, reason }, at);
    await this.writer.close(at, reason);
  }
}

/** One command's output path. write() is the hot path: render, mask, hand whole lines to the writer. */
export class CommandCapture {
  private readonly renderer: TerminalRenderer;
  private readonly masker: StreamingMasker;

  /** Raw chunks received so far. */
  get chunkCount(): number {
    return this.chunks;
  }

  /**
   * What is known to be missing: 'all' (no data arrived), 'start' (data arrived but not the
   * shell-integration marker that begins every command's data), or undefined. Only meaningful
   * for data from `execution.read()`.
   */
  get missing(): 'all' | 'start' | undefined {
    return this.chunks === 0 ? 'all' : this.startSeen ? undefined : 'start';
  }
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  private chunks = 0;
  private startSeen = false;

  constructor(
    private readonly writer: CaptureWriter,
    readonly k: number,
    private readonly maskedInCommandLine: number,
    opts: CaptureOptions,
    private readonly onEnd: () => void,
  ) {
    this.renderer = new TerminalRenderer(opts.renderer);
    this.masker = new StreamingMasker(opts.userPatterns);
    const every = opts.settleMs ?? 500;
    if (every > 0) {
      this.timer = setInterval(() => this.settle(), every);
      this.timer.unref?.();
    }
  }

  /**
   * Feeds raw terminal data. Returns false when more than BACKLOG_BYTES wait for the disk: a
   * producer that can wait should then `await drain()` (the glue does, so a fast command cannot
   * pile its whole output up in memory).
   */
  write(data: string): boolean {
    if (this.ended) return true;
    if (this.chunks++ === 0) this.startSeen = SHELL_INTEGRATION_START.test(data);
    const text = this.renderer.write(data);
    if (text.length > 0) this.writer.write(this.masker.push(text));
    return this.writer.backlogBytes < BACKLOG_BYTES;
  }

  /** Resolves when everything handed to the writer so far is on disk. */
  drain(): Promise<void> {
    return this.writer.flush();
  }

  /** Commits lines that can no longer change (see TerminalRenderer.settle); `now` in ms for tests. */
  settle(now: number = Date.now()): void {
    if (this.ended) return;
    const text = this.renderer.settle(now);
    if (text.length > 0) this.writer.write(this.masker.push(text));
  }

  /** The command has been ended (its closing line is written or queued). */
  get isEnded(): boolean {
    return this.ended;
  }

  /**
   * Ends the command: everything still on screen is written, then the closing line. `exit` is the
   * code, or a RecordedExit whose null code carries the reason it is unknown (resolveExit in
   * commandExit.ts); a bare undefined is recorded as `exit ? (not reported)`. `missing` (the glue
   * passes `this.missing`) marks output VS Code did not deliver, so it is not mistaken for empty or
   * complete output.
   */
  end(exit: number | undefined | RecordedExit, at: Date = new Date(), missing?: 'all' | 'start'): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer) clearInterval(this.timer);
    const text = this.renderer.end();
    this.writer.write(this.masker.push(text) + this.masker.flush());
    const r: RecordedExit = typeof exit === 'object' ? exit : exit === undefined ? { exitCode: null, reason: EXIT_UNKNOWN.unspecified } : { exitCode: exit };
    this.writer.endCommand(r.exitCode ?? undefined, this.masker.count + this.maskedInCommandLine, at, missing, r.reason);
    this.onEnd();
  }
}
