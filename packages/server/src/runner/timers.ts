/**
 * The timers of one process run (run and idle timeouts, kill and exit grace), kept in one set so
 * that cleanup can clear them all. Split out of `process.ts` so `ProcessRun` stays a readable size
 * (the 400-line rule of scripts/check-function-length.ts).
 */

/** A set of timeouts that forget themselves once they fire. */
export class RunTimers {
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Calls `fn` after `ms`. */
  start(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  /** Cancels one timer (nothing when `t` is undefined or already fired). */
  clear(t: NodeJS.Timeout | undefined): void {
    if (!t) return;
    clearTimeout(t);
    this.timers.delete(t);
  }

  /** Cancels every timer but `keep`. */
  clearAll(keep?: NodeJS.Timeout): void {
    for (const t of this.timers) {
      if (keep !== undefined && t === keep) continue;
      clearTimeout(t);
      this.timers.delete(t);
    }
  }
}
