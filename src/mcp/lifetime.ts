/*
 * How the MCP server ends. Every agent session starts a server, so one that outlives its client
 * leaves an orphan with its watchers and workers; one that dies mid-call can leave a call's
 * command running. The stdio binding's shutdown is that the client closes the server's stdin (a
 * client that dies closes it too), then SIGTERM, then SIGKILL (MCP 2026-07-28, transports/stdio;
 * the SDK clients wait 2 s between the steps).
 *
 * - End of input: calls in flight get GRACE_MS to finish and answer (a client that wrote a request
 *   and closed its end still gets it), then are cancelled; then the server exits 0.
 * - SIGTERM, SIGINT, SIGHUP, or an output nobody reads any more: calls in flight are cancelled at
 *   once; the exit code is 128 + the signal's number (0 for a broken output).
 * - A cancelled call ends as a cancelled call does (agentContext_run ends its command's process
 *   group), and writes its ledger line; the server waits up to SETTLE_MS for that. Files are
 *   written atomically, so whatever a call had not finished by then is left as it was.
 * - The exit is explicit: no worker thread, watcher or timer can keep the process alive.
 */
import * as os from 'node:os';
import { plural } from '../core/output/humanize';
import { yieldNow } from '../core/eventLoop';

/** How long calls in flight at end of input may take to finish before they are cancelled. */
export const GRACE_MS = 500;
/**
 * How long cancelled calls get to end (and write their ledger lines) before the process exits. A
 * call's ledger line counts its answer's tokens, on the tokenizer's worker; a server stopped soon
 * after it started waits for the worker to load its tables (~300 ms of CPU: over 1.5 s at a load
 * of 13 on 2 cores). With GRACE_MS and CLOSE_MS the server is gone within 4 s, inside the SDK
 * clients' 2 s + 2 s before SIGKILL and the issue's 5 s.
 */
export const SETTLE_MS = 3000;
/** How long closing the protocol layer may take at the very end. */
const CLOSE_MS = 300;

/** The signals that stop the server (SIGHUP: its terminal or session went away). */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export interface LifetimeOptions {
  /** Closes the protocol layer and the transport (answers nothing more). */
  close(): Promise<void>;
  exit(code: number): void;
  log(message: string): void;
  graceMs?: number;
  settleMs?: number;
}

/** Resolves when every promise has settled or `ms` has passed, whichever is first; true when all settled. */
function settled(calls: ReadonlySet<Promise<unknown>>, ms: number): Promise<boolean> {
  if (calls.size === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void Promise.allSettled([...calls]).then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export class ServerLifetime {
  private readonly calls = new Set<Promise<unknown>>();
  private readonly stopAll = new AbortController();
  private stopping: 'end of input' | 'now' | undefined;
  private signalled = false;

  constructor(private readonly opts: LifetimeOptions) {}

  /** The signal a call runs under: aborted when its client cancels it or when the server stops. */
  signalFor(client: AbortSignal): AbortSignal {
    return AbortSignal.any([client, this.stopAll.signal]);
  }

  /** Runs a call, counted as in flight until it settles (its result is returned as is). */
  track<T>(call: () => Promise<T>): Promise<T> {
    const p = call();
    this.calls.add(p);
    const forget = (): void => void this.calls.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** The client closed the server's input: finish what is in flight (within the grace), then exit 0. */
  endOfInput(): void {
    if (this.stopping) return;
    this.stopping = 'end of input';
    void this.finish(0, this.opts.graceMs ?? GRACE_MS, 'end of input');
  }

  /** Stops at once (a broken output, a signal): calls in flight are cancelled. */
  stopNow(code: number, why: string): void {
    if (this.stopping === 'now') return;
    this.stopping = 'now';
    void this.finish(code, 0, why);
  }

  /** A stop signal: the first stops at once; a second one (another Ctrl-C) exits without waiting for the calls. */
  signal(sig: StopSignal): void {
    const code = 128 + (os.constants.signals[sig] ?? 15);
    if (this.signalled) {
      this.opts.exit(code);
      return;
    }
    this.signalled = true;
    this.stopNow(code, sig);
  }

  /** Registers the stop signals on `proc`; returns a function that removes them. */
  handleSignals(proc: NodeJS.Process = process): () => void {
    const handlers = STOP_SIGNALS.map((sig) => {
      const h = (): void => this.signal(sig);
      proc.on(sig, h);
      return [sig, h] as const;
    });
    return () => handlers.forEach(([sig, h]) => proc.off(sig, h));
  }

  private async finish(code: number, graceMs: number, why: string): Promise<void> {
    if (graceMs > 0) {
      await settled(this.calls, graceMs);
      if (this.stopping === 'now') return; // a signal came meanwhile: its stop finishes
    }
    const cancelled = this.calls.size;
    if (cancelled > 0) this.opts.log(`${why}: cancelling ${plural(cancelled, 'call')} in flight`);
    this.stopAll.abort(new Error(`the server is stopping (${why})`));
    if (!(await settled(this.calls, this.opts.settleMs ?? SETTLE_MS))) this.opts.log(`${why}: ${plural(this.calls.size, 'call')} did not end within ${this.opts.settleMs ?? SETTLE_MS} ms; exiting anyway`);
    // The protocol layer writes a settled call's answer a few promise steps later (no I/O waits in
    // between, and a pipe write is synchronous on Linux): one turn of the event loop lets it out.
    await yieldNow();
    await Promise.race([this.opts.close().catch(() => undefined), new Promise((r) => setTimeout(r, CLOSE_MS))]);
    this.opts.exit(code);
  }
}
