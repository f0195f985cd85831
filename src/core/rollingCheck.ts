/**
 * The one mechanism of a per-process cache of many files that a call cannot afford to check all of
 * (the terminal catalog, the agent ranking; the notes and FileDigests rounds): each call checks what
 * may have changed plus a batch in turn (round), and a background sweep checks every item, in slices
 * queued between calls, SWEEP_DELAY_MS after a call when the last sweep is older than SWEEP_EVERY_MS.
 * What a caller may find stale, and for how long, follows from these numbers: its module states
 * the bound. A cache whose items can be stat'ed elsewhere (the catalog's terminals, on the check
 * worker) narrows a sweep to the items found changed there (`narrow`), and checks only those here.
 */
import { SerialQueue } from './keyedState';

/** Items checked per slice of a sweep (a call that comes meanwhile waits for one slice at most). */
export const SWEEP_SLICE = 200;
/** A sweep starts this long after the call that asks for it, so it never slows that call. */
export const SWEEP_DELAY_MS = 1000;
/** While calls come, a sweep of every item at most this often. */
export const SWEEP_EVERY_MS = 60_000;

/** `count` items of `all` from `from` on, wrapping around; and where the next round starts. */
export function round<T>(all: readonly T[], from: number, count: number): { items: T[]; next: number } {
  if (all.length <= count) return { items: [...all], next: 0 };
  const start = from % all.length;
  const items = all.slice(start, start + count);
  if (items.length < count) items.push(...all.slice(0, count - items.length));
  return { items, next: (start + count) % all.length };
}

/**
 * One cache's calls and sweeps: one call or sweep slice at a time (run), the sweep's schedule, and
 * its stop when the cache is forgotten (a new process, in tests).
 */
export class RollingCheck<K> {
  private readonly queue = new SerialQueue();
  /** When this process last finished checking every item (0: not yet). */
  sweptAt = 0;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  /** Someone waits for the sweep (tests): it then keeps the process alive. */
  private awaited = false;
  /** Forgotten: a sweep under way stops, and so do the owner's deferred writes (it checks this). */
  dead = false;

  /**
   * `items`: every item as of now (a sweep checks those; one added meanwhile is checked by the call
   * that finds it); `checkSlice`: checks a slice of them (run in the queue); `narrow`: the items of a
   * sweep that may have changed, found off this thread after the sweep started (undefined: it cannot
   * tell, and the sweep checks every item here).
   */
  constructor(
    private readonly items: () => readonly K[],
    private readonly checkSlice: (slice: K[]) => Promise<void> | void,
    private readonly narrow?: (items: readonly K[]) => Promise<readonly K[] | undefined>,
  ) {}

  /** Runs `f` after whatever the cache is doing (one call, sweep slice or write at a time). */
  run<T>(f: () => Promise<T> | T): Promise<T> {
    return this.queue.run(f);
  }

  /** A call checked every item: that was a sweep. */
  swept(): void {
    this.sweptAt = Date.now();
  }

  /** After a call: a sweep SWEEP_DELAY_MS from now when none ran within SWEEP_EVERY_MS (unless one is under way or due: calls never postpone it). */
  sweepIfDue(): void {
    if (this.sweptAt && Date.now() - this.sweptAt <= SWEEP_EVERY_MS) return;
    if (this.sweeping || this.sweepTimer) return;
    this.sweepTimer = setTimeout(() => void this.startSweep(), SWEEP_DELAY_MS);
    this.sweepTimer.unref?.();
  }

  /** Resolves when the sweep due or under way (if any) is done; it then keeps the process alive (tests: what a process does a while after a call). */
  async settleSweep(): Promise<void> {
    if (this.sweepTimer || this.sweeping) {
      this.awaited = true;
      await this.startSweep();
    }
  }

  /** Stops the sweeps (the cache is forgotten). */
  stop(): void {
    this.dead = true;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  private startSweep(): Promise<void> {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Checks every item (or those `narrow` names), SWEEP_SLICE at a time, each slice queued after the calls that came meanwhile. */
  private async sweep(): Promise<void> {
    let all: readonly K[] = [...this.items()];
    if (this.narrow) all = (await this.narrow(all).catch(() => undefined)) ?? all;
    for (let i = 0; i < all.length; i += SWEEP_SLICE) {
      if (this.dead) return;
      const slice = all.slice(i, i + SWEEP_SLICE);
      await this.run(() => this.checkSlice(slice));
      // Between slices, without keeping a process that has nothing else to do alive (unless someone waits for the sweep).
      await new Promise((done) => {
        const t = setTimeout(done, 0);
        if (!this.awaited) t.unref?.();
      });
    }
    this.sweptAt = Date.now();
  }
}
