import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ulid } from 'ulid';
import { AtomicFileStream, type AtomicWriteError } from '../fs/atomicStream';
import { OutputScanner, type OutputScan } from '../output/reference';
import { type FolderStamp } from '../fs/stamps';
import { folderStamp, noteScratchCreated } from '../scratch/index/sharedIndex';
import { StreamingMasker, type UserPatterns } from '../secrets';
import { onlcr, TerminalRenderer } from '../terminal/screen/terminalRenderer';
import { defaultFolder, displayPath, type WorkspaceFolderRef } from '../workspace/workspacePaths';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentDirOf } from '../workspace/agentLayout';

/** Turns a command or name hint into a short file-name slug (`npm-run-test`). */
export function slugify(hint: string): string {
  const slug = hint
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'output';
}

/** Where a new scratch file goes: absolute path and the workspace-relative path tools print. */
export interface ScratchTarget {
  abs: string;
  display: string;
  /** Relative to the folder root (for the printed grep, which runs there). */
  rel: string;
  agentDir: string;
}

/** Picks `<.agent>/<sub>/<slug>-<ULID><ext>` in the default folder. */
export function newScratchFile(folders: readonly WorkspaceFolderRef[], sub: string, hint: string, ext: string): ScratchTarget {
  const folder = defaultFolder(folders);
  if (!folder) throw new Error('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  const abs = path.join(agentDir, sub, `${slugify(hint)}-${ulid()}${ext}`);
  return { abs, display: displayPath(folders, folder, abs), rel: toPosixRelative(folder.path, abs), agentDir };
}

/** How a ScratchWriter treats what it is given. */
export interface ScratchWriterOptions {
  /**
   * The input is a program's raw output (agentContext_run, the agents' shell hooks): the file gets
   * it as a terminal shows it (terminalRenderer.ts: colour and other escapes dropped, a `\r`
   * progress bar's redraws reduced to what the line ended up showing), so the model, the reference
   * and a later read or grep all see the same text. The live viewer (onText) still gets the raw
   * stream, masked, since it is a terminal itself.
   */
  render?: boolean;
}

/**
 * Streams output to a scratch file through secret masking, scanning it for the reference on the
 * way (one pass, bounded memory). The file holds the text byte for byte except masked spans (and,
 * with `render`, as a terminal shows it).
 * It is written under a temp name (AtomicFileStream) and appears in scratch only when finish()
 * completes it: a failed or killed write never leaves a partial file posing as a whole one.
 */
export class ScratchWriter {
  private readonly decoder = new StringDecoder('utf8');
  private readonly masker: StreamingMasker;
  private readonly scanner = new OutputScanner(1, true);
  private readonly file: AtomicFileStream;
  private readonly renderer: TerminalRenderer | undefined;
  /** With `render`: the raw stream's own masker, for the live viewer (undefined once it wants no more). */
  private liveMasker: StreamingMasker | undefined;
  /** Masked text as it arrives, for live viewers (with `render`, the raw stream, not the rendered file); returning false stops it. */
  onText?: (text: string) => boolean | void;

  /** `rules`: the user's masking rules (secretRulesOf); the built-in ones always apply. */
  constructor(readonly target: ScratchTarget, rules?: UserPatterns, opts: ScratchWriterOptions = {}) {
    this.masker = new StreamingMasker(rules);
    this.file = new AtomicFileStream(target.abs, target.agentDir, target.display);
    if (opts.render) {
      this.renderer = new TerminalRenderer();
      this.liveMasker = new StreamingMasker(rules);
    }
  }

  /** The write's failure (a full disk, a read-only folder), as soon as it happens; its message names the file. */
  get failure(): AtomicWriteError | undefined {
    return this.file.failure;
  }

  /** Calls `f` once when the write fails (at once if it already has). */
  onFailure(f: (e: AtomicWriteError) => void): void {
    this.file.onFailure(f);
  }

  /** Writes bytes (decoded as UTF-8 across chunk boundaries); returns false when the caller should wait for drain(). */
  writeBytes(chunk: Buffer): boolean {
    return this.writeText(this.decoder.write(chunk));
  }

  /** Writes text; returns false when the file stream wants the caller to pause. */
  writeText(text: string): boolean {
    if (!this.renderer) return this.emit(this.masker.push(text));
    this.live(text, false);
    return this.emit(this.masker.push(this.renderer.write(onlcr(text))));
  }

  /** With `render`: the raw text, masked, to the live viewer while it wants it. */
  private live(text: string, last: boolean): void {
    if (!this.liveMasker || !this.onText) return;
    const masked = this.liveMasker.push(text) + (last ? this.liveMasker.flush() : '');
    if (masked && this.onText(masked) === false) this.liveMasker = undefined;
  }

  private emit(masked: string): boolean {
    if (!masked) return true;
    this.scanner.push(masked);
    if (!this.renderer) this.onText?.(masked);
    return this.file.write(masked);
  }

  /** Everything the decoder, renderer and masker still hold, out (a second call finds nothing left). */
  private flushHeld(): void {
    const rest = this.decoder.end();
    if (this.renderer) {
      this.live(rest, true);
      this.emit(this.masker.push(this.renderer.write(onlcr(rest)) + this.renderer.end()));
    } else this.emit(this.masker.push(rest));
    this.emit(this.masker.flush());
  }

  /** Resolves when the file stream can take more (or the write failed). */
  drain(): Promise<void> {
    return this.file.drain();
  }

  /**
   * Flushes decoder and masker, completes the file (renamed into scratch), returns the scan and
   * the masked count. Throws an AtomicWriteError naming the file when it could not be written;
   * nothing is then left in scratch.
   */
  async finish(): Promise<{ scan: OutputScan; masked: number }> {
    this.flushHeld();
    const dir = path.dirname(this.target.abs);
    let before: FolderStamp | undefined;
    let after: FolderStamp | undefined;
    // The rename is the folder's one change: this process's scratch index takes the file in without listing the folder again.
    await this.file.commit((rename) => {
      before = folderStamp(dir);
      rename();
      after = folderStamp(dir);
    });
    await noteScratchCreated(this.target.agentDir, this.target.abs, before, after);
    return { scan: await this.scanner.endAsync(), masked: this.masker.count };
  }

  /**
   * After a failed write (finish threw): flushes what is held into the scan, and gives the scan
   * of everything written, masked, with nothing in scratch. The reference can still name the
   * error lines and the end of an output that could not be saved.
   */
  async scanOfUnsaved(): Promise<{ scan: OutputScan; masked: number }> {
    this.flushHeld(); // done already unless finish threw before its end
    await this.file.discard();
    return { scan: await this.scanner.endAsync(), masked: this.masker.count };
  }

  /** Gives up: nothing appears in scratch. */
  discard(): Promise<void> {
    return this.file.discard();
  }
}

/**
 * Writes a whole text to a new scratch file (grep's full lists): under a temp name, renamed into
 * place when complete, the scratch index told. Throws an AtomicWriteError naming the file.
 */
export async function writeScratchText(target: ScratchTarget, text: string): Promise<void> {
  const f = new AtomicFileStream(target.abs, target.agentDir, target.display);
  f.write(text);
  const dir = path.dirname(target.abs);
  let before: FolderStamp | undefined;
  let after: FolderStamp | undefined;
  await f.commit((rename) => {
    before = folderStamp(dir);
    rename();
    after = folderStamp(dir);
  });
  await noteScratchCreated(target.agentDir, target.abs, before, after);
}
