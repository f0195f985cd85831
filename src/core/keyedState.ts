/**
 * Runs one thing at a time, in the order queued: each run starts once the runs queued before it
 * have ended, fulfilled or not (a failed run does not stop the queue). The per-folder queue of the
 * terminal catalog and the agent ranking, and of an append-only file's fold.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `f` after everything queued before it; resolves or rejects as `f` does. */
  run<T>(f: () => Promise<T> | T): Promise<T> {
    const p = this.tail.then(f);
    this.tail = p.catch(() => undefined);
    return p;
  }
}

/**
 * Per-key state (a view's index of one workspace folder, say) built once and then updated in place
 * by steps that run one at a time per key, in the order queued.
 *
 * A build or a step that fails never sticks: the key is forgotten and the next get() builds afresh.
 * Keeping the rejected promise as the state would fail every later read and every later update —
 * a view that never draws its rows again after one failed refresh.
 */
export class KeyedState<T> {
  private readonly map = new Map<string, Promise<T>>();

  constructor(
    private readonly build: (key: string) => Promise<T>,
    private readonly onError?: (key: string, e: unknown) => void,
  ) {}

  /** True when the key has a state (built or being built). */
  has(key: string): boolean {
    return this.map.has(key);
  }

  /**
   * The key's state, built on first use. When the pending build or step fails, a fresh build is
   * tried once before the error reaches the caller.
   */
  get(key: string, retry = true): Promise<T> {
    let p = this.map.get(key);
    if (!p) {
      p = this.build(key);
      this.track(key, p);
    }
    return retry ? p.catch(() => this.get(key, false)) : p;
  }

  /**
   * Queues a step on the key's state (after the steps queued before it). Does nothing when the key
   * has no state yet (the next get() builds it from the files as they are then). Resolves true when
   * the step ran, false when it (or what it waited for) failed; never rejects.
   */
  update(key: string, step: (state: T) => Promise<void> | void): Promise<boolean> {
    const p = this.map.get(key);
    if (!p) return Promise.resolve(false);
    const next = p.then(async (s) => {
      await step(s);
      return s;
    });
    this.track(key, next);
    return next.then(
      () => true,
      () => false,
    );
  }

  /** Forgets a key (its next get() builds afresh). */
  delete(key: string): void {
    this.map.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.map.clear();
  }

  private track(key: string, p: Promise<T>): void {
    this.map.set(key, p);
    // Registered before any caller's handler, so the key is forgotten before a caller retries.
    p.catch((e: unknown) => {
      if (this.map.get(key) === p) this.map.delete(key);
      this.onError?.(key, e);
    });
  }
}
