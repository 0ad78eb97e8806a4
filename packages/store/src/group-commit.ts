/**
 * The store's group commit: the appends of all runs made while a commit is in flight are written
 * together in the next one. Split out of `BaseStore` (store.ts) to keep it under issue 12's 400 lines.
 */

/** Most appends in one group commit. */
const MAX_GROUP = 2000;
/** Longest an append waits for its group to start while the event loop is busy (ms). */
const GROUP_WAIT_MS = 5;

/** A queue of commits, written in groups through `dbCommit` (a group of one) or `dbCommitMany`. */
export class GroupCommit<C> {
  private readonly commitQueue: { commit: C; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Immediate | undefined;
  private firstQueuedAt = 0;
  private readonly dbCommit: (commit: C) => Promise<void>;
  private readonly dbCommitMany: (commits: readonly C[]) => Promise<(unknown | undefined)[]>;

  constructor(dbCommit: (commit: C) => Promise<void>, dbCommitMany: (commits: readonly C[]) => Promise<(unknown | undefined)[]>) {
    this.dbCommit = dbCommit;
    this.dbCommitMany = dbCommitMany;
  }

  /**
   * Queues a commit for the next group commit and resolves once it is stored. One group is in
   * flight at a time; everything queued meanwhile (from any run) goes in the next one. A group
   * starts at the end of this turn of the event loop (setImmediate), or as soon as its oldest
   * append has waited GROUP_WAIT_MS — a long turn (many requests read at once) does not hold
   * every first event back until its end.
   */
  commit(commit: C): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.commitQueue.push({ commit, resolve, reject });
      if (this.flushing) return;
      if (!this.flushTimer) {
        this.firstQueuedAt = performance.now();
        this.flushTimer = setImmediate(() => this.startFlush());
      } else if (performance.now() - this.firstQueuedAt >= GROUP_WAIT_MS) this.startFlush();
    });
  }

  private startFlush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    const group = this.commitQueue.splice(0, MAX_GROUP);
    let results: (unknown | undefined)[];
    try {
      results =
        group.length === 1
          ? [
              await this.dbCommit(group[0].commit).then(
                () => undefined,
                (err: unknown) => err,
              ),
            ]
          : await this.dbCommitMany(group.map((g) => g.commit));
    } catch (err) {
      results = group.map(() => err);
    }
    this.flushing = undefined;
    // What was queued while this group committed forms the next group (at the end of this turn).
    if (this.commitQueue.length > 0 && !this.flushTimer) {
      this.firstQueuedAt = performance.now();
      this.flushTimer = setImmediate(() => this.startFlush());
    }
    for (let i = 0; i < group.length; i++) {
      const err = results[i];
      if (err === undefined) group[i].resolve();
      else group[i].reject(err);
    }
  }

  /** On close: starts a group still waiting for its turn. */
  startPending(): void {
    if (this.flushTimer) this.startFlush();
  }

  /** The group being committed now, if any. */
  get inFlight(): Promise<void> | undefined {
    return this.flushing;
  }
}
