/**
 * First bytes before more bytes: while runs are starting, the runs already streaming wait.
 *
 * A burst of clients is a burst of run starts, and each start's first byte waits for its run-start
 * to be committed and sent. The runs already streaming compete for the same event loop: left alone,
 * a client's first byte waits behind every event of the clients before it. The gate counts the starts
 * in flight (from the request's run registration to its run's first commit, or until its agent is
 * found waiting for I/O: `settlesThisTurn`); a streaming run's pump asks it before taking its agent's
 * next page, and waits while starts are in flight.
 *
 * Starvation is bounded by counting, not by time: a waiting run goes on once `maxWaitStarts` starts
 * have completed since it began to wait, even if more are in flight, so a steady flood of new runs
 * slows the runs already going, never stops them.
 */

/** Most starts a waiting run lets complete before it goes on anyway. */
export const MAX_WAIT_STARTS = 256;

interface Waiter {
  /** The value of `completed` at which it goes on anyway. */
  until: number;
  resolve: () => void;
}

/** Counts the starts in flight; runs already streaming wait on it (see the file's comment). */
export class StartGate {
  /** Starts in flight: registered, first commit not done yet. */
  private inFlight = 0;
  /** Starts completed (or failed) so far: the clock of `maxWaitStarts`. */
  private completed = 0;
  /** Runs waiting: resolved when no start is in flight, or at their `completed` deadline. */
  private waiting: Waiter[] = [];
  private readonly maxWaitStarts: number;

  constructor(maxWaitStarts = MAX_WAIT_STARTS) {
    this.maxWaitStarts = maxWaitStarts;
  }

  /** Starts in flight now. */
  get starting(): number {
    return this.inFlight;
  }

  /** A start begins; call the returned function once (more calls are ignored) when its first commit is done or it failed. */
  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.completed++;
      this.release();
    };
  }

  /**
   * Undefined when no start is in flight (go on), else a promise that resolves when the run may go
   * on: no start in flight, `maxWaitStarts` starts completed, or `signal` aborted (an aborted run
   * must end at once: a start may be waiting for it, to supersede it).
   */
  wait(signal?: AbortSignal): Promise<void> | undefined {
    if (this.inFlight === 0 || signal?.aborted) return undefined;
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        until: this.completed + this.maxWaitStarts,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    if (this.waiting.length === 0) return;
    if (this.inFlight === 0) {
      const all = this.waiting;
      this.waiting = [];
      for (const w of all) w.resolve();
      return;
    }
    // Waiters are queued in order of their deadlines (each is `completed` at its time + the same bound).
    let n = 0;
    while (n < this.waiting.length && (this.waiting[n] as Waiter).until <= this.completed) n++;
    if (n > 0) for (const w of this.waiting.splice(0, n)) w.resolve();
  }
}

/**
 * Whether `p` settles within this turn of the event loop (before its check phase): an agent whose
 * first page is not ready by then waits for I/O (a model's first token, a process's first line),
 * and its start holds the gate no longer: the runs already streaming must not wait on a model.
 */
export function settlesThisTurn(p: Promise<unknown>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setImmediate(() => resolve(false));
    const settled = () => {
      clearImmediate(timer);
      resolve(true);
    };
    p.then(settled, settled);
  });
}
