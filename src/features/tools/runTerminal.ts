import * as vscode from 'vscode';
import { formatDuration } from '../../core/output/reference';
import type { RunObserver } from '../../core/tools/toolContext';

/** Live echo is capped: a command printing 50 MB must not flood the terminal renderer. */
const LIVE_MAX_CHARS = 512 * 1024;

/**
 * The Pseudoterminal named after the tool, where the user watches agentContext_run live. One is
 * reused across runs; closing it just means the next run opens a new one.
 */
export class RunTerminal implements vscode.Disposable {
  private terminal: vscode.Terminal | undefined;
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private opened = false;
  private pending: string[] = [];
  private liveChars = 0;
  private paused = false;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly name: string) {
    this.subs.push(vscode.window.onDidCloseTerminal((t) => {
      if (t === this.terminal) {
        this.terminal = undefined;
        this.opened = false;
      }
    }));
  }

  private write(text: string): void {
    const out = text.replace(/\r?\n/g, '\r\n');
    if (this.opened) this.writeEmitter.fire(out);
    else this.pending.push(out);
  }

  private ensure(): void {
    if (this.terminal) return;
    this.pending = [];
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      open: () => {
        this.opened = true;
        for (const p of this.pending) this.writeEmitter.fire(p);
        this.pending = [];
      },
      close: () => {
        this.opened = false;
      },
    };
    this.terminal = vscode.window.createTerminal({ name: this.name, pty, isTransient: true });
  }

  /** An observer for one run. */
  observer(): RunObserver {
    return {
      start: (info) => {
        this.ensure();
        this.terminal?.show(true);
        this.liveChars = 0;
        this.paused = false;
        this.write(`\x1b[1m$ ${info.command}\x1b[0m  (cwd: ${info.cwd})\n`);
      },
      data: (text) => {
        if (this.paused) return false;
        this.liveChars += text.length;
        if (this.liveChars > LIVE_MAX_CHARS) {
          this.paused = true;
          this.write('\n\x1b[2m[live view paused after 512 KB; the full output is being saved]\x1b[0m\n');
          return false;
        }
        this.write(text);
        return true;
      },
      end: (info) => {
        const status = info.timedOut ? 'timed out' : info.cancelled ? 'cancelled' : info.exitCode !== null ? `exit ${info.exitCode}` : `killed by ${info.signal}`;
        this.write(`\n\x1b[2m[${status} · ${formatDuration(info.durationMs)}]\x1b[0m\n\n`);
      },
    };
  }

  dispose(): void {
    this.terminal?.dispose();
    this.writeEmitter.dispose();
    for (const s of this.subs) s.dispose();
  }
}
