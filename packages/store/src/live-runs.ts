/**
 * The projections of the runs a store process is appending to, and the re-projection of a pending
 * message on read. Split out of `BaseStore` (store.ts) to keep it under issue 12's 400 lines.
 */
import type { CanonicalEvent } from '@switchboard/core';
import { READ_PAGE } from './local-tails.ts';
import { type PersistedMessage, Projector } from './projection.ts';

/** The fields of a run (store.ts `Run`) a projection needs. */
export interface RunRef {
  id: string;
  chatId: string;
  messageId?: string;
  lastSeq: number;
  status: string;
}

/** What this process keeps about a run it is appending to (saves a read per append; a stale copy is caught by the commit). */
export interface LiveRun<R extends RunRef> {
  run: R;
  projector: Projector;
  lastWritten: number;
}

/** Live runs by id, with what rebuilds them from the log. */
export class LiveRuns<R extends RunRef> extends Map<string, LiveRun<R>> {
  private readonly src: {
    readEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]>;
    getRun(runId: string): Promise<R | undefined>;
    getMessage(messageId: string): Promise<PersistedMessage | undefined>;
  };

  constructor(src: LiveRuns<R>['src']) {
    super();
    this.src = src;
  }

  /** The in-memory projector of a live run, rebuilt from the log when not cached or out of date. */
  async liveRun(run: R): Promise<LiveRun<R>> {
    const cached = this.get(run.id);
    if (cached && cached.projector.lastSeq === run.lastSeq) return cached;
    const projector = await this.rebuild(run);
    return { run, projector, lastWritten: run.lastSeq };
  }

  /**
   * A projector of `run` with the runs it continues applied (`before`: their ids, oldest first), ready
   * for the run's own events: a continuation run adds to the message of the run it answers.
   */
  async chainProjector(run: R, before: readonly string[], createdAt?: number): Promise<Projector> {
    const init: { runId: string; chatId: string; messageId?: string; createdAt?: number } = { runId: run.id, chatId: run.chatId };
    if (run.messageId !== undefined) init.messageId = run.messageId;
    if (createdAt !== undefined) init.createdAt = createdAt;
    const projector = new Projector(init);
    for (const id of before) {
      await this.replay(projector, id);
      projector.continueWith();
    }
    return projector;
  }

  private async replay(projector: Projector, runId: string): Promise<void> {
    let after = -1;
    for (;;) {
      const page = await this.src.readEvents(runId, after, READ_PAGE);
      projector.applyAll(page);
      if (page.length < READ_PAGE) break;
      after = page[page.length - 1].seq;
    }
  }

  private async rebuild(run: R, stored?: PersistedMessage): Promise<Projector> {
    const m = stored ?? (run.messageId !== undefined ? await this.src.getMessage(run.messageId) : undefined);
    const chain = m?.role === 'assistant' ? (m.metadata.runs ?? []) : [];
    const at = chain.indexOf(run.id);
    const projector = await this.chainProjector(run, at > 0 ? chain.slice(0, at) : [], stored?.createdAt);
    await this.replay(projector, run.id);
    return projector;
  }

  /** A stored message brought up to date: a pending assistant message is re-projected to the run's last event. */
  async current(m: PersistedMessage): Promise<PersistedMessage> {
    if (m.role !== 'assistant' || m.persistenceState === 'persisted') return m;
    const cached = this.get(m.runId);
    const run = await this.src.getRun(m.runId);
    if (!run) return m;
    const projector = cached && cached.projector.lastSeq === run.lastSeq ? cached.projector : await this.rebuild(run, m);
    const snap = projector.snapshot(run.status === 'running' ? 'pending' : 'persisted');
    snap.id = m.id;
    snap.createdAt = m.createdAt;
    return snap;
  }
}
