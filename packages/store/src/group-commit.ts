/**
 * The store's group commit: the appends of all runs made while a commit is in flight are written
 * together in the next one. Apart from `BaseStore` (store.ts), which stays under the 400-line limit
 * of scripts/check-function-length.ts.
 *
 * Scheduling, for a gateway under load (docs/benchmarks.md, section 5):
 * - a group starts at the end of the event loop's turn (setImmediate), never in the middle of one:
 *   the requests read in a turn are all read before any commit's followers run;
 * - *urgent* writes (a run's start, a run's first events: what its client's first byte waits for)
 *   all go into the next group, ahead of everything else;
 * - the rest (the streams already going) fill a group up to a number of events ({@link GroupLimits}),
 *   a small one while first bytes are waiting: what a turn commits is what its followers then encode
 *   and send in the same turn, and Node accepts one new connection per turn of the event loop
 *   (libuv ≥ 1.45), so long turns are what keeps a burst of new clients waiting.
 */

/** How much one group commit may hold: what a turn of the event loop commits and then streams. */
export interface GroupLimits {
  /** Most events of non-urgent writes in a group; one write, however large, always goes. */
  maxEvents: number;
  /** The same while urgent writes are in the group (first bytes are waiting). */
  maxEventsWithUrgent: number;
  /**
   * Groups committing at once (default 1). More than one for a backend that commits off the event
   * loop: SQLite's writer thread (the next group is sent while the last commits, so the event loop
   * streams one group while the thread writes the next) and PostgreSQL (groups on connections of
   * their own, committed side by side). Groups never share a run: a run has one append in flight at
   * a time, and its next is queued only once that one is stored.
   */
  inFlight?: number;
}

/** Most writes in one group commit. */
const MAX_GROUP = 2000;

/**
 * For a backend whose commit runs on the event loop (SQLite, memory): at ≈ 20–40 µs an event all
 * told (the commit, then its followers encode and send it in the same turn), 500 events keep a turn
 * at ≈ 10–20 ms; 50 while first bytes wait.
 */
export const SYNC_GROUP: GroupLimits = { maxEvents: 500, maxEventsWithUrgent: 50 };

/**
 * For SQLite's writer thread: groups as small as on the event loop (what a group's acknowledgement
 * releases is streamed in one turn), two in flight (one committing on the thread, the next queued
 * behind it), so neither side waits for the other.
 */
export const THREAD_GROUP: GroupLimits = { ...SYNC_GROUP, inFlight: 2 };

/**
 * For a backend whose commit waits on a server (Redis): the event loop is free while a group is in
 * flight, and each group costs a round trip, so a group is whatever is queued.
 */
export const ASYNC_GROUP: GroupLimits = { maxEvents: 100_000, maxEventsWithUrgent: 100_000 };

/**
 * For PostgreSQL: a group's statement runs in ONE server process, on one core. Taking whatever is
 * queued (as ASYNC_GROUP does) makes a fast burst one statement of 83,000 events, 1.5 s on one core
 * while the other and the event loop wait. Groups of at most 4,000 events (≈ 70 ms of the server's
 * time), three in flight on connections of their own: the server commits on every core, and the
 * event loop streams one group while the others commit (docs/benchmarks.md, "PostgreSQL groups side
 * by side").
 */
export const POSTGRES_GROUP: GroupLimits = { maxEvents: 4000, maxEventsWithUrgent: 4000, inFlight: 3 };

interface Queued<C> {
  commit: C;
  /** Events it writes (1 for a chat or run creation). */
  size: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A queue of commits, written in groups through `dbCommit` (a group of one) or `dbCommitMany`. */
export class GroupCommit<C> {
  /** Writes a client's first byte waits for: all go into the next group (up to MAX_GROUP). */
  private readonly urgent: Queued<C>[] = [];
  /** The rest, in the order queued (a run queues one append at a time: first in, first out is fair). */
  private readonly queue: Queued<C>[] = [];
  /** Groups sent and not yet acknowledged (at most `limits.inFlight`). */
  private inFlight = 0;
  /** Their promises, for `drain`. */
  private readonly flushing = new Set<Promise<void>>();
  /** The next group, waiting for the end of this turn. */
  private flushTimer: NodeJS.Immediate | undefined;
  private readonly dbCommit: (commit: C) => Promise<void>;
  private readonly dbCommitMany: (commits: readonly C[]) => Promise<(unknown | undefined)[]>;
  private readonly limits: GroupLimits;

  constructor(
    dbCommit: (commit: C) => Promise<void>,
    dbCommitMany: (commits: readonly C[]) => Promise<(unknown | undefined)[]>,
    limits: GroupLimits = SYNC_GROUP,
  ) {
    this.dbCommit = dbCommit;
    this.dbCommitMany = dbCommitMany;
    this.limits = limits;
  }

  /**
   * Queues a commit for a coming group commit and resolves once it is stored. At most
   * `limits.inFlight` groups (one by default) are in flight; a group starts at the end of the event
   * loop's turn. `size` is the number of events it writes; `urgent` puts it in the next group, ahead
   * of what was queued before it.
   */
  commit(commit: C, size = 1, urgent = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      (urgent ? this.urgent : this.queue).push({ commit, size, resolve, reject });
      this.schedule();
    });
  }

  /** Starts a group at the end of this turn, unless as many as allowed are in flight (their end schedules the next). */
  private schedule(): void {
    if (this.inFlight >= (this.limits.inFlight ?? 1) || this.flushTimer) return;
    this.flushTimer = setImmediate(() => this.startFlush());
  }

  private startFlush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    if (this.inFlight >= (this.limits.inFlight ?? 1) || (this.urgent.length === 0 && this.queue.length === 0)) return;
    this.inFlight++;
    const flush = this.flush().finally(() => this.flushing.delete(flush));
    this.flushing.add(flush);
  }

  /** The next group: the urgent writes, then queued ones up to the events limit. */
  private take(): Queued<C>[] {
    const group = this.urgent.splice(0, MAX_GROUP);
    const limit = group.length > 0 ? this.limits.maxEventsWithUrgent : this.limits.maxEvents;
    let events = 0;
    let n = 0;
    while (n < this.queue.length && group.length + n < MAX_GROUP) {
      const size = (this.queue[n] as Queued<C>).size;
      if (n > 0 && events + size > limit) break;
      events += size;
      n++;
    }
    for (const q of this.queue.splice(0, n)) group.push(q);
    return group;
  }

  private async flush(): Promise<void> {
    const group = this.take();
    // With room for another group in flight, what is queued meanwhile goes at the end of this turn.
    if (this.urgent.length > 0 || this.queue.length > 0) this.schedule();
    let results: (unknown | undefined)[];
    try {
      results =
        group.length === 1
          ? [
              await this.dbCommit((group[0] as Queued<C>).commit).then(
                () => undefined,
                (err: unknown) => err,
              ),
            ]
          : await this.dbCommitMany(group.map((g) => g.commit));
    } catch (err) {
      results = group.map(() => err);
    }
    this.inFlight--;
    // What is still queued forms the next group, at the end of this turn.
    if (this.urgent.length > 0 || this.queue.length > 0) this.schedule();
    for (let i = 0; i < group.length; i++) {
      const err = results[i];
      const g = group[i] as Queued<C>;
      if (err === undefined) g.resolve();
      else g.reject(err);
    }
  }

  /** On close: starts a group still waiting for its turn. */
  startPending(): void {
    if (this.flushTimer) this.startFlush();
  }

  /** Resolves once everything queued is committed (on close: nothing is left for a closed database). */
  async drain(): Promise<void> {
    while (this.flushing.size > 0 || this.flushTimer || this.urgent.length > 0 || this.queue.length > 0) {
      this.startFlush();
      await Promise.all(this.flushing);
    }
  }
}
