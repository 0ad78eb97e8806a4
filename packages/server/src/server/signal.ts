/**
 * A versioned wake-up: a waiter remembers the version it saw before reading some state, and
 * `wait(seen)` resolves at once when the version moved since (nothing can be missed between the read
 * and the wait), else on the next `bump()`, the timeout or the abort.
 */
export class VersionSignal {
  version = 0;
  private waiters = new Set<() => void>();

  /** Something changed: wakes every waiter. */
  bump(): void {
    this.version++;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }

  /**
   * Resolves when the version is no longer `seen`, after `timeoutMs` (when given) or when `signal`
   * aborts — whichever comes first. Never rejects.
   */
  wait(seen: number, signal?: AbortSignal, timeoutMs?: number): Promise<void> {
    if (this.version !== seen || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.waiters.delete(done);
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        timer = setTimeout(done, timeoutMs);
        timer.unref?.();
      }
    });
  }
}

/** A map of ref-counted signals by key (one per run or chat being watched). */
export class SignalMap {
  private readonly signals = new Map<string, { signal: VersionSignal; refs: number }>();

  /** The signal of `key`, kept until the returned release is called (as often as acquired). */
  acquire(key: string): { signal: VersionSignal; release: () => void } {
    let entry = this.signals.get(key);
    if (!entry) {
      entry = { signal: new VersionSignal(), refs: 0 };
      this.signals.set(key, entry);
    }
    entry.refs++;
    let released = false;
    const held = entry;
    return {
      signal: entry.signal,
      release: () => {
        if (released) return;
        released = true;
        if (--held.refs <= 0 && this.signals.get(key) === held) this.signals.delete(key);
      },
    };
  }

  /** Wakes the waiters of `key`, if any. */
  bump(key: string): void {
    this.signals.get(key)?.signal.bump();
  }

  /** Wakes every waiter (shutdown). */
  bumpAll(): void {
    for (const { signal } of this.signals.values()) signal.bump();
  }
}
