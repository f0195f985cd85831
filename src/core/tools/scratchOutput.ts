import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ulid } from 'ulid';
import { mkdirpSync } from '../fs/fsAtomic';
import { OutputScanner, type OutputScan } from '../output/reference';
import { type FolderStamp } from '../scratch/scratchIndex';
import { folderStamp, noteScratchCreated } from '../scratch/sharedIndex';
import { StreamingMasker, type UserPatterns } from '../secrets';
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

/**
 * Streams output to a scratch file through secret masking, scanning it for the reference on the
 * way (one pass, bounded memory). The file holds the output byte for byte except masked spans.
 */
export class ScratchWriter {
  private readonly decoder = new StringDecoder('utf8');
  private readonly masker: StreamingMasker;
  private readonly scanner = new OutputScanner();
  private readonly out: fs.WriteStream;
  private readonly opened: Promise<void>;
  private failed: Error | undefined;
  /** The folder's stamps right before and right after the file was created (see noteScratchCreated). */
  private readonly before: FolderStamp | undefined;
  private after: FolderStamp | undefined;
  /** Masked text emitted so far, for live viewers. */
  onText?: (text: string) => void;

  /** `rules`: the user's masking rules (secretRulesOf); the built-in ones always apply. */
  constructor(readonly target: ScratchTarget, rules?: UserPatterns) {
    this.masker = new StreamingMasker(rules);
    mkdirpSync(path.dirname(target.abs));
    this.before = folderStamp(path.dirname(target.abs));
    this.out = fs.createWriteStream(target.abs, { flags: 'wx' });
    this.opened = new Promise((resolve, reject) => {
      this.out.once('open', () => {
        this.after = folderStamp(path.dirname(target.abs));
        resolve();
      });
      this.out.once('error', reject);
    });
    this.out.on('error', (e) => (this.failed = e));
  }

  /** Writes bytes (decoded as UTF-8 across chunk boundaries); returns false when the caller should wait for drain(). */
  writeBytes(chunk: Buffer): boolean {
    return this.writeText(this.decoder.write(chunk));
  }

  /** Writes text; returns false when the file stream wants the caller to pause. */
  writeText(text: string): boolean {
    return this.emit(this.masker.push(text));
  }

  private emit(masked: string): boolean {
    if (!masked) return true;
    this.scanner.push(masked);
    this.onText?.(masked);
    return this.out.write(masked);
  }

  /** Resolves when the file stream can take more. */
  drain(): Promise<void> {
    return new Promise((resolve) => this.out.once('drain', () => resolve()));
  }

  /** Flushes decoder and masker, closes the file, returns the scan and the masked count. */
  async finish(): Promise<{ scan: OutputScan; masked: number }> {
    this.emit(this.masker.push(this.decoder.end()));
    this.emit(this.masker.flush());
    await this.opened;
    await new Promise<void>((resolve, reject) => this.out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    if (this.failed) throw this.failed;
    // This process's scratch index (if it has one) takes the file in without listing its folder again.
    await noteScratchCreated(this.target.agentDir, this.target.abs, this.before, this.after);
    return { scan: this.scanner.end(), masked: this.masker.count };
  }
}
