/**
 * Per-run locks: a store process serialises the appends of a run. Apart from `BaseStore`
 * (store.ts), which stays under the 400-line limit of scripts/check-function-length.ts.
 */

/** The tail of each run's queue of calls, by run id. */
export class RunLocks extends Map<string, Promise<unknown>> {
  /** Runs `fn` after every earlier call for the same run has settled (appends of a run are serialised in-process). */
  async withLock<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.get(runId) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.set(runId, tail);
    try {
      return await next;
    } finally {
      if (this.get(runId) === tail) this.delete(runId);
    }
  }
}
