/**
 * The projections of the runs a store process is appending to, and the re-projection of a pending
 * message on read. Apart from `BaseStore` (store.ts), which stays under the 400-line limit of
 * scripts/check-function-length.ts.
 */
import type { CanonicalEvent } from '@switchboard/core';
import { READ_PAGE } from './local-tails.ts';
import { locateMessage, messageInChat } from './message-ids.ts';
import { type PersistedMessage, Projector } from './projection.ts';

/** The fields of a run (store.ts `Run`) a projection needs. */
export interface RunRef {
  id: string;
  chatId: string;
  messageId?: string;
  userMessageId?: string;
  lastSeq: number;
  status: string;
}

/** What this process keeps about a run it is appending to (saves a read per append; a stale copy is caught by the commit). */
export interface LiveRun<R extends RunRef> {
  run: R;
  projector: Projector;
  lastWritten: number;
}

/** Most runs kept between their start and their first append (`started`). */
const MAX_STARTED = 4096;

/** Live runs by id, with what rebuilds them from the log. */
export class LiveRuns<R extends RunRef> extends Map<string, LiveRun<R>> {
  /** Runs inserted here and not appended to yet. */
  private readonly fresh = new Map<string, R>();
  /** Message ids made new for a run started here (`StartRunInit.newIds`: no stored message has them), until its first commit. */
  private readonly newMessageIds = new Map<string, string>();
  private readonly src: {
    readEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]>;
    getRun(runId: string): Promise<R | undefined>;
    /** The stored messages with these stored ids (those that exist). */
    getMessages(messageIds: readonly string[]): Promise<PersistedMessage[]>;
  };

  /** Stored messages by their stored ids. */
  private readonly lookup = (storedIds: readonly string[]) => this.src.getMessages(storedIds);

  constructor(src: LiveRuns<R>['src']) {
    super();
    this.src = src;
  }

  /**
   * A run this process has just inserted: its first append need not read it back, nor, when
   * `newMessageId`, look its message id up.
   */
  started(run: R, newMessageId = false): void {
    // A run started and never appended to must not make this grow: the oldest go first.
    if (this.fresh.size >= MAX_STARTED) this.fresh.delete(this.fresh.keys().next().value as string);
    if (this.newMessageIds.size >= MAX_STARTED) this.newMessageIds.delete(this.newMessageIds.keys().next().value as string);
    this.fresh.set(run.id, { ...run });
    if (newMessageId && run.messageId !== undefined) this.newMessageIds.set(run.id, run.messageId);
  }

  /** The row `started` kept, once (a guess like any cached row: a stale one fails its commit and is read). */
  takeStarted(runId: string): R | undefined {
    const run = this.fresh.get(runId);
    this.fresh.delete(runId);
    return run;
  }

  /** Whether the run was just inserted here and not appended to yet. */
  isFresh(runId: string): boolean {
    return this.fresh.has(runId);
  }

  /** A run live here (or gone) is not just started any more. */
  override set(runId: string, live: LiveRun<R>): this {
    this.fresh.delete(runId);
    this.newMessageIds.delete(runId);
    return super.set(runId, live);
  }

  override delete(runId: string): boolean {
    this.fresh.delete(runId);
    this.newMessageIds.delete(runId);
    return super.delete(runId);
  }

  /** The stored message the chat names `id` (message-ids.ts). */
  inChat(id: string, chatId: string): Promise<PersistedMessage | undefined> {
    return messageInChat(this.lookup, id, chatId);
  }

  /**
   * The runs a run continues, oldest first, and the stored id of the message it adds to, when it is
   * a continuation: started (`startRun`) with the id of an assistant message of its chat whose run
   * has ended, and with no user message of its own. It then adds to that message (AI SDK clients
   * continue the last assistant message when they send tool approvals or client tool outputs).
   * Undefined for any other run.
   */
  async continues(run: R): Promise<{ runs: string[]; messageId: string } | undefined> {
    if (run.messageId === undefined || run.userMessageId !== undefined) return undefined;
    const m = await messageInChat(this.lookup, run.messageId, run.chatId);
    if (m?.role !== 'assistant' || m.runId === run.id) return undefined;
    const previous = await this.src.getRun(m.runId);
    if (!previous || previous.status === 'running') return undefined;
    return { runs: m.metadata.runs ?? [m.runId], messageId: m.id };
  }

  /**
   * The stored id of a run's message, named `wanted` in its chat (message-ids.ts): the id itself, or
   * its chat-scoped alias when another chat holds it. When the run's own chat holds that name already
   * (another run's message — the same capture stored twice — or a user message), the chat needs two
   * names, and the run's message is named `<wanted>~<runId>`: only the chat's own messages are
   * involved, so the name tells its client nothing about other chats.
   */
  async freeMessageId(wanted: string, run: R): Promise<string> {
    const id = wanted || run.id;
    // The run's own new id (`started`), asked for once: nothing stored can have it.
    const made = this.newMessageIds.get(run.id);
    this.newMessageIds.delete(run.id);
    if (made === id) return id;
    const ours = (m: PersistedMessage) => m.role === 'assistant' && m.runId === run.id;
    const first = await locateMessage(this.lookup, id, run.chatId);
    if (first.held === undefined) return first.free;
    if (ours(first.held)) return first.held.id;
    const second = await locateMessage(this.lookup, `${id}~${run.id}`, run.chatId);
    return second.held ? second.held.id : second.free;
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
    const m = stored ?? (run.messageId !== undefined ? (await this.src.getMessages([run.messageId]))[0] : undefined);
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
