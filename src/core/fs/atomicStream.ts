/**
 * A file written as a stream (a command's output, an offload, a grep list) that appears under its
 * final name only when it is complete. Until then it lives in `<.agent>/.cache/tmp/` under a temp
 * name, where nothing lists, searches or counts it; `commit()` renames it into place. A writer
 * that fails (a full disk, a read-only folder) or is abandoned leaves nothing under the final
 * name, and a killed process's temp file is swept by the next one (sweepStaleTemps).
 *
 * Failures never hang the producer: once the file fails, `write()` returns true (nothing more is
 * kept, so there is no reason to wait), `drain()` resolves, and `failure` holds the error, whose
 * message names the final file and says "disk full" when it is (describeFsError).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureAgentTempDir, mkdirpSync, tempName } from './fsAtomic';
import { describeFsError } from './fsErrors';

/** An error of an AtomicFileStream: its message is for the user; `cause` is the file system's error. */
export class AtomicWriteError extends Error {
  constructor(message: string, readonly code: string | undefined, override readonly cause: unknown) {
    super(message);
  }
}

function asWriteError(e: unknown, shown: string, doing: 'writing' | 'creating'): AtomicWriteError {
  if (e instanceof AtomicWriteError) return e;
  return new AtomicWriteError(describeFsError(e, shown, doing), (e as NodeJS.ErrnoException).code, e);
}

export class AtomicFileStream {
  /** Where the bytes go until commit(). */
  readonly tmp: string | undefined;
  private out: fs.WriteStream | undefined;
  private readonly opened: Promise<void>;
  private error: AtomicWriteError | undefined;
  private readonly onFail: ((e: AtomicWriteError) => void)[] = [];
  private settled = false;

  /**
   * `final`: the absolute path the file gets when complete; `agentDir`: the `.agent/` folder whose
   * temp folder holds it meanwhile; `shown`: the path as the user reads it (in error messages).
   */
  constructor(readonly final: string, agentDir: string, readonly shown: string) {
    try {
      mkdirpSync(path.dirname(final));
      const dir = ensureAgentTempDir(agentDir);
      this.tmp = path.join(dir, tempName(path.basename(final), false));
      this.out = fs.createWriteStream(this.tmp, { flags: 'wx' });
    } catch (e) {
      this.fail(asWriteError(e, shown, 'creating'));
    }
    const out = this.out;
    this.opened = out
      ? new Promise((resolve) => {
          out.once('open', () => resolve());
          out.once('error', () => resolve());
          out.once('close', () => resolve());
        })
      : Promise.resolve();
    out?.on('error', (e) => this.fail(asWriteError(e, shown, 'writing')));
  }

  /** The first error, if the file failed (its message names `shown`). */
  get failure(): AtomicWriteError | undefined {
    return this.error;
  }

  /** Calls `f` once when the file fails (at once if it already has). */
  onFailure(f: (e: AtomicWriteError) => void): void {
    if (this.error) f(this.error);
    else this.onFail.push(f);
  }

  private fail(e: AtomicWriteError): void {
    if (this.error) return;
    this.error = e;
    for (const f of this.onFail.splice(0)) f(e);
    this.out?.destroy();
  }

  /** Writes text; false when the caller should wait for drain(). After a failure it drops the text and returns true. */
  write(text: string | Buffer): boolean {
    if (this.error || !this.out || this.settled) return true;
    return this.out.write(text);
  }

  /** Resolves when the stream can take more, or it failed. */
  drain(): Promise<void> {
    const out = this.out;
    if (this.error || !out || !out.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.once('drain', done);
      out.once('close', done);
      this.onFailure(() => done());
    });
  }

  /** Flushes and closes the temp file; throws the failure (the temp file removed) if there was one. */
  private async close(): Promise<void> {
    await this.opened;
    const out = this.out;
    if (out && !this.error && !out.destroyed) {
      // 'close' comes after the last write's error or success; end()'s callback may run before the 'error' event.
      await new Promise<void>((resolve) => {
        out.once('close', () => resolve());
        out.end((e?: Error | null) => {
          if (e) this.fail(asWriteError(e, this.shown, 'writing'));
        });
      });
    }
    if (this.error) {
      await this.discard();
      throw this.error;
    }
  }

  /**
   * Completes the file: flush, close, rename into place. `around` runs the rename (for callers that
   * stamp the target folder right before and after its one change). Throws an AtomicWriteError (the
   * temp file removed, nothing under the final name) when anything failed.
   */
  async commit(around?: (rename: () => void) => void): Promise<void> {
    await this.close();
    this.settled = true;
    const rename = (): void => {
      try {
        fs.renameSync(this.tmp!, this.final);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
        // The target folder is on another file system (a symlinked scratch/): copy beside it, then rename there.
        const near = path.join(path.dirname(this.final), tempName(path.basename(this.final)));
        try {
          fs.copyFileSync(this.tmp!, near);
          fs.renameSync(near, this.final);
        } catch (c) {
          fs.rmSync(near, { force: true });
          throw c;
        }
        fs.rmSync(this.tmp!, { force: true });
      }
    };
    try {
      if (around) around(rename);
      else rename();
    } catch (e) {
      const err = asWriteError(e, this.shown, 'writing');
      this.error = err;
      await this.discard();
      throw err;
    }
  }

  /** Gives up the file: the temp file is removed, nothing appears under the final name. */
  async discard(): Promise<void> {
    this.settled = true;
    this.out?.destroy();
    if (this.tmp) await fs.promises.rm(this.tmp, { force: true }).catch(() => undefined);
  }
}
