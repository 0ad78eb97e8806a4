/**
 * The store: an append-only log of canonical events per run, the chats and runs they belong to, and
 * the persisted messages (the user message that started a run, the assistant message projected
 * from its events). Three backends implement it (SQLite, PostgreSQL, Redis); `BaseStore` holds the
 * logic they share, so every backend behaves the same way — one contract test suite checks that.
 *
 * Invariants:
 * - a run's log holds `seq` 0, 1, 2, … with no gap, in the order appended; the pair (runId, seq) is
 *   the event's identity: appending the same event again is a no-op, a different event at a stored
 *   seq is a `conflict` error;
 * - nothing follows a run's `run-finish` / `run-abort`;
 * - the assistant message and the log are written in one transaction (SQLite / PostgreSQL) or one
 *   Lua script (Redis): when its run has finished, the message is exactly the projection of the log.
 */
import {
  CANONICAL_VERSION,
  type CanonicalEvent,
  type FinishReason,
  inspectValue,
  type Json,
  type JsonObject,
  MAX_DEPTH,
} from '@switchboard/core';

import { ConcurrentAppendError, chatExists, inProgress, StoreError } from './errors.ts';
import { GroupCommit, type GroupLimits, SYNC_GROUP } from './group-commit.ts';
import { sameJson } from './json.ts';
import { type LiveRun, LiveRuns } from './live-runs.ts';
import { LocalTails } from './local-tails.ts';
import { locateMessage, type MessageLookup, shownMessage, shownRun } from './message-ids.ts';
import {
  type AssistantMessage,
  isTerminal,
  type PersistedMessage,
  type PersistenceState,
  Projector,
  type UserMessage,
} from './projection.ts';
import { RunLocks } from './run-locks.ts';

/** A conversation. */
export interface Chat {
  id: string;
  title?: string;
  metadata?: JsonObject;
  /** ms since the epoch. */
  createdAt: number;
  /** Bumped when a run starts or ends in the chat. */
  updatedAt: number;
}

/** What a chat is created with. */
export interface ChatInit {
  /** Default: a random UUID. */
  id?: string;
  title?: string;
  metadata?: JsonObject;
}

/** Where a run stands. `error` = it finished with finishReason `error`. */
export type RunStatus = 'running' | 'complete' | 'error' | 'aborted';

/** One run: one agent turn, one assistant message. */
export interface Run {
  id: string;
  chatId: string;
  /** Id of the assistant message it produces (known once run-start is stored). */
  messageId?: string;
  /** Id of the user message it answers. */
  userMessageId?: string;
  status: RunStatus;
  finishReason?: FinishReason;
  /** seq of the last stored event; -1 before the first. */
  lastSeq: number;
  createdAt: number;
  /** Bumped on every append. */
  updatedAt: number;
  /** Who executes the run (a gateway instance id), when it holds a lease. */
  leaseHolder?: string;
  /** The lease's end (ms since the epoch): a `running` run whose lease has ended is taken as orphaned (`recoverRuns({ expiredLeases: true })`). */
  leaseUntil?: number;
}

/** The user message that starts a run. */
export interface UserMessageInit {
  /** The client's id (AI SDK `UIMessage.id`); default a random UUID. A message already stored in the chat with this id is reused. */
  id?: string;
  /** Its text. */
  content: string;
  /** The client's UIMessage parts (files, …), kept for history reload. */
  parts?: Json[];
  /** Anything else to keep with it. */
  metadata?: JsonObject;
  /** Default `user`. */
  role?: 'user' | 'system';
}

/** What `startRun` needs. */
export interface StartRunInit {
  chatId: string;
  runId: string;
  /** Id for the assistant message (default: run-start's `messageId`). */
  messageId?: string;
  userMessage?: UserMessageInit;
  /** Title of the chat when this creates it (default: the start of the user message). */
  title?: string;
  /**
   * One run at a time in the chat: fail with `conflict` when another run of the chat is still
   * `running`, checked atomically with the insert (two concurrent starts: exactly one wins).
   */
  exclusive?: boolean;
  /** A lease on the run for its executor: `holder` must renew it (`renewLeases`) before `until`. */
  lease?: { holder: string; until: number };
  /**
   * The chat is new (the caller has just seen it missing): it is created with the run, with this
   * metadata, and the start fails with `conflict` ("already exists") when the chat exists after all.
   */
  newChat?: { metadata?: JsonObject };
  /**
   * `runId` and `messageId` were made just now by the caller from random UUIDs (as the gateway
   * makes them): no stored run or message can have them, so the start does not look them up, nor
   * its first append the message id (two reads fewer). Leave it unset for ids a client chose.
   */
  newIds?: boolean;
}

/** What an append did. */
export interface AppendResult {
  runId: string;
  /** Events newly stored. */
  appended: number;
  /** Events that were already stored (identical), skipped. */
  duplicates: number;
  /** seq of the last stored event of the run. */
  lastSeq: number;
  status: RunStatus;
}

export interface ReadOptions {
  /** Return events with seq > after (default -1: from the start). */
  after?: number;
  /** At most this many events. */
  limit?: number;
}

export interface TailOptions {
  /** Yield events with seq > after (default -1: the whole run). */
  after?: number;
  /** Stops the tail (the iterator then ends without error). */
  signal?: AbortSignal;
}

export interface ListOptions {
  limit?: number;
  offset?: number;
  /** Only the chats whose `metadata.owner` is this (served from an index on SQLite, PostgreSQL and memory). */
  owner?: string;
}

export { ConcurrentAppendError, chatExists, importOptional, inProgress, StoreError, type StoreErrorCode } from './errors.ts';

/** The store interface every backend implements. */
export interface Store {
  /** Which backend this is. */
  readonly kind: 'sqlite' | 'postgres' | 'redis' | 'memory';

  /** Creates a chat. Fails with `conflict` when the id is taken. */
  createChat(init?: ChatInit): Promise<Chat>;
  getChat(chatId: string): Promise<Chat | undefined>;
  /** Chats, most recently updated first. */
  listChats(options?: ListOptions): Promise<Chat[]>;
  /** Changes a chat's title / metadata. */
  updateChat(chatId: string, changes: { title?: string; metadata?: JsonObject }): Promise<Chat>;
  /** Deletes a chat with all its runs, events and messages. False when there was no such chat. */
  deleteChat(chatId: string): Promise<boolean>;

  /**
   * Registers a run of a chat (creating the chat if needed) and stores the user message it answers,
   * in one transaction. Idempotent: starting the same run of the same chat again returns it. With
   * `exclusive`, fails with `conflict` while another run of the chat is `running`.
   */
  startRun(init: StartRunInit): Promise<Run>;
  getRun(runId: string): Promise<Run | undefined>;
  /** The runs of a chat, oldest first. */
  listRuns(chatId: string): Promise<Run[]>;

  /**
   * Appends canonical events to their runs' logs (their `runId` and `seq` say where). Idempotent: an
   * event already stored at its seq is skipped; a different event there fails with `conflict`, a
   * seq past the next one with `gap`, anything after run-finish / run-abort with `finished`. A
   * `run-start` for an unknown run that carries `chatId` registers the run (and the chat).
   * The assistant message is updated in the same transaction.
   *
   * Group commit: the appends of all runs made while a commit is in flight are written together in
   * the next one (one transaction, one multi-row statement, one pipeline), and each call resolves
   * when its events are committed — acknowledged = durable.
   */
  append(events: CanonicalEvent | readonly CanonicalEvent[]): Promise<AppendResult>;
  /** A run's stored events, in seq order. */
  read(runId: string, options?: ReadOptions): Promise<CanonicalEvent[]>;
  /**
   * The run's events after `options.after`, then each new one as it is appended, until run-finish /
   * run-abort (or the signal). Never misses nor repeats an event, whatever the timing of appends.
   */
  tail(runId: string, options?: TailOptions): AsyncIterable<CanonicalEvent>;
  /**
   * The same as `tail`, a page at a time: each array holds the events that became readable together
   * (one read, one group commit), in order, never empty. Consumers that write somewhere (a socket)
   * do one write per page instead of one per event. Optional: without it, `tailPages(store, …)`
   * (resume.ts) makes pages of one event from `tail`.
   */
  tailPages?(runId: string, options?: TailOptions): AsyncIterable<CanonicalEvent[]>;

  /** The messages of a chat in order (user, assistant, user, …). A live run's message is projected up to its last event. */
  listMessages(chatId: string): Promise<PersistedMessage[]>;
  /**
   * A message by id. With `chatId`, the message that chat names `messageId` (message ids are per
   * chat as a client sees them: message-ids.ts); without, the message stored under that id.
   */
  getMessage(messageId: string, chatId?: string): Promise<PersistedMessage | undefined>;

  /**
   * Ends a run whose producer is gone: appends a fatal `error` (code `interrupted`), closes its
   * open blocks and appends `run-finish` (finishReason `error`), so its message is persisted with an
   * error state. No-op for a finished run.
   */
  interruptRun(runId: string, reason?: string): Promise<AppendResult>;
  /**
   * Interrupts every run still `running` that was last appended to more than `olderThanMs` ago
   * (default 0: all of them — right for a single server at start-up). Returns their ids.
   */
  recoverRuns(options?: RecoverOptions): Promise<string[]>;
  /** Extends the leases `holder` has on these runs to `until` (runs it does not hold are left alone). */
  renewLeases(holder: string, runIds: readonly string[], until: number): Promise<void>;

  /**
   * Checks that the store answers a write and a read, cheaply (the write matches nothing, so nothing
   * changes); rejects with what is wrong (the SQLite file deleted or replaced, the server unreachable…).
   */
  healthCheck(): Promise<void>;

  /** Closes connections; running tails end. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Shared implementation
// ---------------------------------------------------------------------------------------------

/** An event as a backend stores it. */
export interface EventRow {
  seq: number;
  type: string;
  ts: number;
  /** The event's JSON text, stored verbatim (resume must re-encode it byte for byte). */
  json: string;
}

/** One atomic append, as BaseStore hands it to a backend. */
export interface Commit {
  runId: string;
  chatId: string;
  /** The run's lastSeq when it was read; the commit fails with ConcurrentAppendError if it changed. */
  expectedLastSeq: number;
  events: EventRow[];
  run: { lastSeq: number; status: RunStatus; finishReason?: FinishReason; updatedAt: number; messageId?: string };
  /** The assistant message to upsert, when it is written with this commit. */
  message?: AssistantMessage;
  /** Set when the chat's updatedAt is bumped (the run ended). */
  chatUpdatedAt?: number;
}

/**
 * A chat or a run to create, queued into the group commit with the appends by backends that write
 * them in the group's transaction (`dbWriteMany`): a burst of run starts then costs a transaction
 * per group, not two per start. A write that cannot be done fails with its error (a taken chat id,
 * another run in progress) and leaves the rest of its group in.
 */
export type StartWrite =
  | { kind: 'chat'; chat: Chat }
  | {
      kind: 'run';
      run: Run;
      /** Created with the run when missing. */
      chat: Chat;
      user: UserMessage | undefined;
      exclusive: boolean;
      /** The chat must not exist yet (`StartRunInit.newChat`): `conflict` when it does. */
      newChat: boolean;
      /** Set by the backend when it inserted this run (so it need not be read back). */
      inserted?: boolean;
    };

/** What the group commit writes: appends, and the start-up writes of backends that batch them. */
export type Write = Commit | StartWrite;

function isAppend(w: Write): w is Commit {
  return !('kind' in w);
}

/** Which `running` runs `recoverRuns` interrupts. */
export interface RecoverOptions {
  /** Runs last appended to more than this long ago (ms; default 0: all of them — right for a single server at start-up). */
  olderThanMs?: number;
  /** Instead: only runs with a lease that has ended (their executor stopped renewing it: it is gone). */
  expiredLeases?: boolean;
  /** With `expiredLeases`: leave the runs of this holder alone (the caller itself: it is alive). */
  exceptHolder?: string;
  /** Text of the `interrupted` error. */
  reason?: string;
}

/** What every backend takes. */
export interface BaseStoreOptions {
  /** Clock for createdAt / updatedAt (default Date.now). */
  now?: () => number;
  /** How often a waiting tail re-reads the log in case a notification was missed (ms, default 1000). */
  pollIntervalMs?: number;
}

const DEFAULT_INTERRUPT_REASON = 'The run was interrupted: its process ended before it finished.';

/**
 * A live run's message row is written with its first events, then at widening intervals — after
 * this many events, then each time the run has as many new events as it had at the previous
 * write (seq 256, 512, 1,024, …) — and with its end. Reads of a pending message re-project it to the
 * run's last event, so the row only needs to exist; each write is the whole message, so writing it
 * at a fixed interval made a run's bytes written grow with the square of its output, and the
 * doubling keeps them under about twice the final message.
 */
const WRITE_EVERY = 256;

/** Whether a live run's message is written with the commit that ends at `seq`. */
function writesMessage(seq: number, lastWritten: number, finished: boolean): boolean {
  return finished || lastWritten < 0 || seq - lastWritten >= Math.max(WRITE_EVERY, lastWritten);
}

function statusOf(e: CanonicalEvent): RunStatus {
  if (e.type === 'run-abort') return 'aborted';
  if (e.type === 'run-finish') return e.finishReason === 'error' ? 'error' : 'complete';
  return 'running';
}

function checkEnvelope(e: CanonicalEvent, runId: string): void {
  if (e === null || typeof e !== 'object' || typeof e.type !== 'string')
    throw new StoreError('invalid', 'an event must be an object with a string `type`');
  if (e.runId !== runId) throw new StoreError('invalid', `event runId ${JSON.stringify(e.runId)} differs from ${JSON.stringify(runId)}`);
  if (!Number.isSafeInteger(e.seq) || e.seq < 0) throw new StoreError('invalid', `event seq must be a non-negative integer, got ${e.seq}`);
  if (typeof e.ts !== 'number' || !Number.isFinite(e.ts)) throw new StoreError('invalid', `event ts must be a finite number, got ${e.ts}`);
  // Hostile input (docs/hostile-input.md): a rejection, never a stack overflow while serialising.
  if (inspectValue(e, MAX_DEPTH + 8).tooDeep) throw new StoreError('invalid', `event ${e.seq} is nested deeper than ${MAX_DEPTH} levels`);
}

function preview(text: string, max = 80): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The chat, run and user message `startRun` creates (before it checks what is stored already). */
function newRun(init: StartRunInit, t: number): { chat: Chat; run: Run; user: UserMessage | undefined } {
  const chat: Chat = { id: init.chatId, createdAt: t, updatedAt: t };
  const title = init.title ?? (init.userMessage ? preview(init.userMessage.content) : undefined);
  if (title) chat.title = title;
  if (init.newChat?.metadata !== undefined) chat.metadata = init.newChat.metadata;
  let user: UserMessage | undefined;
  if (init.userMessage) {
    const u = init.userMessage;
    const metadata: JsonObject = { ...u.metadata };
    if (u.parts !== undefined) metadata.parts = u.parts;
    user = {
      id: u.id ?? crypto.randomUUID(),
      chatId: init.chatId,
      runId: init.runId,
      role: u.role ?? 'user',
      content: u.content,
      metadata,
      persistenceState: 'persisted',
      createdAt: t,
      updatedAt: t,
    };
  }
  // In the order the backends read runs back (rows.ts runOf): a run returned as written looks the same.
  const run: Run = { id: init.runId, chatId: init.chatId, status: 'running', lastSeq: -1, createdAt: t, updatedAt: t };
  if (init.messageId !== undefined) run.messageId = init.messageId;
  if (user) run.userMessageId = user.id;
  if (init.lease) {
    run.leaseHolder = init.lease.holder;
    run.leaseUntil = init.lease.until;
  }
  return { chat, run, user };
}

/**
 * The user message a new run writes, under the id it is stored with (the chat's names for messages
 * are its own: one another chat holds gets an alias, message-ids.ts); undefined when the chat has
 * it already — the client re-sent it (a regenerate): it is reused. Sets the run's `userMessageId`.
 */
async function placeUser(get: MessageLookup, run: Run, user: UserMessage | undefined): Promise<UserMessage | undefined> {
  if (!user) return undefined;
  const place = await locateMessage(get, user.id, run.chatId);
  run.userMessageId = place.held ? place.held.id : place.free;
  return place.held ? undefined : { ...user, id: place.free };
}

/** Events grouped by run, in order (one run per call is the normal case). */
function byRun(list: readonly CanonicalEvent[]): Map<string, CanonicalEvent[]> {
  const groups = new Map<string, CanonicalEvent[]>();
  for (const e of list) {
    const runId = typeof e?.runId === 'string' ? e.runId : '';
    if (!runId) throw new StoreError('invalid', 'every event needs a runId');
    const g = groups.get(runId);
    if (g) g.push(e);
    else groups.set(runId, [e]);
  }
  return groups;
}

/** Re-sent events (seq already stored) must be the stored ones: else `conflict`. */
async function checkDuplicates(
  runId: string,
  dups: CanonicalEvent[],
  read: (after: number, limit: number) => Promise<CanonicalEvent[]>,
): Promise<void> {
  const from = dups[0].seq;
  const bySeq = new Map((await read(from - 1, dups[dups.length - 1].seq - from + 1)).map((e) => [e.seq, e]));
  for (const e of dups) {
    const s = bySeq.get(e.seq);
    if (!s || !sameJson(s, e))
      throw new StoreError(
        'conflict',
        `run ${runId}: a different event is already stored at seq ${e.seq} (${s?.type ?? 'missing'} vs ${e.type})`,
      );
  }
}

/** The run-start of a run that has none yet, for `interruptRun` to close it with. */
function startOf(run: Run, ts: number): CanonicalEvent {
  return {
    type: 'run-start',
    runId: run.id,
    seq: 0,
    ts,
    version: CANONICAL_VERSION,
    messageId: run.messageId ?? run.id,
    chatId: run.chatId,
  };
}

/**
 * The logic every backend shares: validation, idempotency, projection, message writes, tails,
 * recovery. Backends implement the `db*` primitives.
 */
export abstract class BaseStore implements Store {
  abstract readonly kind: 'sqlite' | 'postgres' | 'redis' | 'memory';
  protected readonly now: () => number;
  protected readonly pollIntervalMs: number;
  protected closed = false;
  /** The runs this process is appending to, with their projections. */
  private readonly live = new LiveRuns<Run>({
    readEvents: (id, after, limit) => this.dbReadEvents(id, after, limit),
    getRun: (id) => this.dbGetRun(id),
    getMessages: (ids) => this.dbGetMessages(ids),
  });
  private readonly locks = new RunLocks();
  /** The tails waiting on this store's runs. */
  private readonly tails = new LocalTails();
  /** The group commit every append (and, with `batchesStarts`, every chat and run creation) goes through. */
  private readonly commits: GroupCommit<Write>;
  /** True when the backend writes chat and run creations in the group commit's transaction (`dbWriteMany`). */
  protected readonly batchesStarts: boolean = false;

  /** `groupLimits`: how much one group commit holds (SYNC_GROUP for a backend that commits on the event loop). */
  constructor(options: BaseStoreOptions = {}, groupLimits: GroupLimits = SYNC_GROUP) {
    this.now = options.now ?? Date.now;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.commits = new GroupCommit<Write>(
      (w) =>
        isAppend(w) ? this.dbCommit(w) : this.dbWriteMany([w]).then(([err]) => (err === undefined ? undefined : Promise.reject(err))),
      (ws) => this.dbWriteMany(ws),
      groupLimits,
    );
  }

  // ---- backend primitives ------------------------------------------------------------------

  protected abstract dbInsertChat(chat: Chat): Promise<boolean>;
  protected abstract dbGetChat(chatId: string): Promise<Chat | undefined>;
  protected abstract dbListChats(limit: number, offset: number, owner: string | undefined): Promise<Chat[]>;
  protected abstract dbUpdateChat(chat: Chat): Promise<void>;
  /** Deletes the chat and everything in it; returns the ids of its runs (false: no such chat). */
  protected abstract dbDeleteChat(chatId: string): Promise<string[] | false>;
  /**
   * Atomically: creates the chat if missing, the run, and the user message when given. With
   * `exclusive`, does nothing and returns the id of the chat's `running` run when there is one.
   */
  protected abstract dbCreateRun(
    run: Run,
    chat: Chat,
    userMessage: UserMessage | undefined,
    exclusive: boolean,
  ): Promise<string | undefined>;
  protected abstract dbGetRun(runId: string): Promise<Run | undefined>;
  protected abstract dbListRuns(chatId: string): Promise<Run[]>;
  /**
   * The running runs; with `leaseEndedBefore`, a backend may return only those whose lease ended
   * before that time (the sweep for orphaned runs then reads no more than it interrupts). Callers
   * filter again, so returning them all is correct, only slower.
   */
  protected abstract dbRunningRuns(leaseEndedBefore?: number): Promise<Run[]>;
  protected abstract dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]>;
  protected abstract dbCommit(commit: Commit): Promise<void>;
  /**
   * Commits many appends (of different runs) at once: one transaction / statement / pipeline. Returns,
   * per commit, undefined when it is stored or the error that stopped it (the others are unaffected).
   * Default: each on its own, concurrently.
   */
  protected dbCommitMany(commits: readonly Commit[]): Promise<(unknown | undefined)[]> {
    return Promise.all(
      commits.map((c) =>
        this.dbCommit(c).then(
          () => undefined,
          (err: unknown) => err ?? new Error('commit failed'),
        ),
      ),
    );
  }
  /**
   * Writes a group of the group commit: per write, undefined when it is stored, else its error. A
   * backend with `batchesStarts` writes creations here too; without, a group holds appends only.
   */
  protected dbWriteMany(writes: readonly Write[]): Promise<(unknown | undefined)[]> {
    const appends = writes.filter(isAppend);
    if (appends.length !== writes.length) throw new StoreError('invalid', `the ${this.kind} store does not batch run starts`);
    return this.dbCommitMany(appends);
  }

  protected abstract dbRenewLeases(holder: string, runIds: readonly string[], until: number): Promise<void>;
  protected abstract dbGetMessage(messageId: string): Promise<PersistedMessage | undefined>;
  /** The messages stored under these ids (those that exist, in any order), in one read. */
  protected abstract dbGetMessages(messageIds: readonly string[]): Promise<PersistedMessage[]>;
  protected abstract dbListMessages(chatId: string): Promise<PersistedMessage[]>;
  protected abstract dbClose(): Promise<void>;

  // ---- chats -------------------------------------------------------------------------------

  async createChat(init: ChatInit = {}): Promise<Chat> {
    this.assertOpen();
    const t = this.now();
    const chat: Chat = { id: init.id ?? crypto.randomUUID(), createdAt: t, updatedAt: t };
    if (init.title !== undefined) chat.title = init.title;
    if (init.metadata !== undefined) chat.metadata = init.metadata;
    if (this.batchesStarts) await this.commits.commit({ kind: 'chat', chat }, 1, true);
    else if (!(await this.dbInsertChat(chat))) throw chatExists(chat.id);
    return chat;
  }

  getChat(chatId: string): Promise<Chat | undefined> {
    this.assertOpen();
    return this.dbGetChat(chatId);
  }

  listChats(options: ListOptions = {}): Promise<Chat[]> {
    this.assertOpen();
    return this.dbListChats(options.limit ?? 100, options.offset ?? 0, options.owner);
  }

  async updateChat(chatId: string, changes: { title?: string; metadata?: JsonObject }): Promise<Chat> {
    this.assertOpen();
    const chat = await this.dbGetChat(chatId);
    if (!chat) throw new StoreError('not_found', `no chat ${chatId}`);
    if (changes.title !== undefined) chat.title = changes.title;
    if (changes.metadata !== undefined) chat.metadata = changes.metadata;
    chat.updatedAt = this.now();
    await this.dbUpdateChat(chat);
    return chat;
  }

  async deleteChat(chatId: string): Promise<boolean> {
    this.assertOpen();
    const runs = await this.dbDeleteChat(chatId);
    if (runs === false) return false;
    for (const id of runs) {
      this.live.delete(id);
      this.tails.forget(id);
    }
    return true;
  }

  // ---- runs --------------------------------------------------------------------------------

  async startRun(init: StartRunInit): Promise<Run> {
    return shownRun(await this.startRunRow(init));
  }

  /** `startRun`, answering the run row as stored (its message ids the stored ones). */
  private async startRunRow(init: StartRunInit): Promise<Run> {
    this.assertOpen();
    const existing = init.newIds ? undefined : await this.dbGetRun(init.runId);
    if (existing) {
      if (existing.chatId !== init.chatId)
        throw new StoreError('conflict', `run ${init.runId} belongs to chat ${existing.chatId}, not ${init.chatId}`);
      return existing;
    }
    const { chat, run, user: built } = newRun(init, this.now());
    const user = await placeUser((ids) => this.dbGetMessages(ids), run, built);
    const newChat = init.newChat !== undefined;
    const write: StartWrite = { kind: 'run', run, chat, user, exclusive: init.exclusive === true, newChat };
    if (this.batchesStarts) await this.commits.commit(write, 1, true);
    else {
      // A backend without batched starts creates a new chat on its own first.
      if (newChat && !(await this.dbInsertChat(chat))) throw chatExists(chat.id);
      const blocker = await this.dbCreateRun(run, chat, user, write.exclusive);
      if (blocker !== undefined && blocker !== init.runId) throw inProgress(init.chatId, blocker);
    }
    if (write.inserted) {
      this.live.started(run, init.newIds === true && init.messageId !== undefined);
      return run;
    }
    const stored = await this.dbGetRun(init.runId);
    if (stored && stored.chatId !== init.chatId)
      throw new StoreError('conflict', `run ${init.runId} belongs to chat ${stored.chatId}, not ${init.chatId}`);
    return stored ?? run;
  }

  getRun(runId: string): Promise<Run | undefined> {
    this.assertOpen();
    return this.dbGetRun(runId).then((run) => run && shownRun(run));
  }

  async listRuns(chatId: string): Promise<Run[]> {
    this.assertOpen();
    return (await this.dbListRuns(chatId)).map(shownRun);
  }

  // ---- the log -----------------------------------------------------------------------------

  async append(events: CanonicalEvent | readonly CanonicalEvent[]): Promise<AppendResult> {
    this.assertOpen();
    const list: readonly CanonicalEvent[] = Array.isArray(events) ? events : [events as CanonicalEvent];
    if (list.length === 0) throw new StoreError('invalid', 'nothing to append');
    let result: AppendResult | undefined;
    for (const [runId, group] of byRun(list)) {
      const r = await this.locks.withLock(runId, () => this.appendLocked(runId, group));
      result = result ? { ...r, appended: result.appended + r.appended, duplicates: result.duplicates + r.duplicates } : r;
    }
    return result as AppendResult;
  }

  private async appendLocked(runId: string, events: CanonicalEvent[]): Promise<AppendResult> {
    for (const e of events) checkEnvelope(e, runId);
    for (let i = 1; i < events.length; i++)
      if (events[i].seq <= events[i - 1].seq)
        throw new StoreError('invalid', `events must be in increasing seq order (${events[i - 1].seq} then ${events[i].seq})`);

    for (let attempt = 0; ; attempt++) {
      // The cached run row is only a guess: a writer elsewhere makes the commit fail, and the retry reads it.
      const cached = attempt === 0 ? (this.live.get(runId)?.run ?? this.live.takeStarted(runId)) : undefined;
      let run = cached ?? (await this.dbGetRun(runId));
      if (!run) {
        const first = events[0];
        if (first.type !== 'run-start' || first.seq !== 0 || !first.chatId)
          throw new StoreError('not_found', `no run ${runId}: call startRun first (or append a run-start with a chatId)`);
        run = await this.startRunRow({ chatId: first.chatId, runId });
      }
      const dups = events.filter((e) => e.seq <= run.lastSeq);
      const fresh = events.filter((e) => e.seq > run.lastSeq);
      if (dups.length > 0) await checkDuplicates(runId, dups, (after, limit) => this.dbReadEvents(runId, after, limit));
      const result: AppendResult = { runId, appended: 0, duplicates: dups.length, lastSeq: run.lastSeq, status: run.status };
      if (fresh.length === 0) return result;
      // Events past the cached end: another instance may have appended meanwhile; check against the database.
      if (cached && fresh[0].seq !== run.lastSeq + 1) {
        this.live.delete(runId);
        continue;
      }
      if (run.status !== 'running')
        throw new StoreError('finished', `run ${runId} has ended (${run.status}); seq ${fresh[0].seq} cannot be appended`);
      for (let i = 0; i < fresh.length; i++) {
        const want = run.lastSeq + 1 + i;
        if (fresh[i].seq !== want) throw new StoreError('gap', `run ${runId}: expected seq ${want}, got ${fresh[i].seq}`);
        if (isTerminal(fresh[i]) && i < fresh.length - 1)
          throw new StoreError('invalid', `run ${runId}: events after ${fresh[i].type} (seq ${fresh[i].seq})`);
      }

      // A run's first commit builds its projector below: nothing to rebuild from the log (two reads saved).
      const live: LiveRun<Run> =
        run.lastSeq < 0 ? { run, projector: undefined as unknown as Projector, lastWritten: -1 } : await this.live.liveRun(run);
      const last = fresh[fresh.length - 1];
      const status = statusOf(last);
      const finished = status !== 'running';
      const t = this.now();
      const commit: Commit = {
        runId,
        chatId: run.chatId,
        expectedLastSeq: run.lastSeq,
        events: fresh.map((e) => ({ seq: e.seq, type: e.type, ts: e.ts, json: JSON.stringify(e) })),
        run: { lastSeq: last.seq, status, updatedAt: t },
      };
      if (last.type === 'run-finish') commit.run.finishReason = last.finishReason;
      try {
        let messageId = run.messageId;
        if (run.lastSeq < 0) {
          // First commit of the run: its assistant message gets its id now.
          const start = fresh[0].type === 'run-start' ? fresh[0] : undefined;
          const before = await this.live.continues(run);
          messageId = before ? before.messageId : await this.live.freeMessageId(run.messageId ?? start?.messageId ?? runId, run);
          commit.run.messageId = messageId;
          live.projector = before
            ? await this.live.chainProjector({ ...run, messageId }, before.runs)
            : new Projector({ runId, chatId: run.chatId, messageId });
          live.lastWritten = -1;
        }
        for (const e of fresh) live.projector.apply(e);
        if (writesMessage(last.seq, live.lastWritten, finished)) {
          // Shared with the projector, not copied: the commit serializes it before this run's next
          // event is applied (the run's lock is held until the commit is stored).
          commit.message = live.projector.snapshot(finished ? 'persisted' : 'pending', true);
          if (messageId !== undefined) commit.message.id = messageId;
        }
        if (finished) commit.chatUpdatedAt = t;
        // A run's first events are what its client's first byte waits for: they go in the next group.
        await this.commits.commit(commit, commit.events.length, run.lastSeq < 0);
      } catch (err) {
        this.live.delete(runId);
        if (err instanceof ConcurrentAppendError && attempt < 5) continue;
        // A cached row of a run deleted elsewhere: read what is there now.
        if (cached && err instanceof StoreError && err.code === 'not_found') continue;
        throw err;
      }
      if (commit.message) live.lastWritten = last.seq;
      live.run = { ...run, lastSeq: last.seq, status, updatedAt: t };
      if (commit.run.messageId !== undefined) live.run.messageId = commit.run.messageId;
      if (commit.run.finishReason !== undefined) live.run.finishReason = commit.run.finishReason;
      if (finished) this.live.delete(runId);
      else this.live.set(runId, live);
      this.tails.remember(runId, commit.events, finished);
      this.tails.wake(runId);
      return { runId, appended: fresh.length, duplicates: dups.length, lastSeq: last.seq, status };
    }
  }

  async read(runId: string, options: ReadOptions = {}): Promise<CanonicalEvent[]> {
    this.assertOpen();
    return this.dbReadEvents(runId, options.after ?? -1, options.limit);
  }

  /** The tail, event by event (backends override `tailPages`). */
  async *tail(runId: string, options: TailOptions = {}): AsyncGenerator<CanonicalEvent> {
    this.assertOpen();
    for await (const page of this.tailPages(runId, options)) for (const e of page) yield e;
  }

  /** Generic tail: read after the last seq, wait for a notification (or the poll interval), repeat. */
  async *tailPages(runId: string, options: TailOptions = {}): AsyncGenerator<CanonicalEvent[]> {
    this.assertOpen();
    yield* this.tails.follow(runId, options, {
      readEvents: (id, after, limit) => this.dbReadEvents(id, after, limit),
      getRun: (id) => this.dbGetRun(id),
      closed: () => this.closed,
      pollIntervalMs: this.pollIntervalMs,
      fresh: (id) => this.live.isFresh(id),
    });
  }

  /** An AbortController that follows `outer` and the store's close. */
  protected stopper(outer: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
    return this.tails.stopper(outer);
  }

  /**
   * Wakes the tails of a run. Backends call it for appends made by other processes; this
   * process's own commits wake them once they are remembered (`remember`), so a backend's commit
   * does not.
   */
  protected notify(runId: string): void {
    this.tails.wake(runId);
  }

  /** Run ids some tail of this store is waiting on. */
  protected watchedRuns(): string[] {
    return this.tails.watched();
  }

  // ---- messages ----------------------------------------------------------------------------

  async listMessages(chatId: string): Promise<PersistedMessage[]> {
    this.assertOpen();
    const rows = await this.dbListMessages(chatId);
    return Promise.all(rows.map(async (m) => shownMessage(await this.live.current(m))));
  }

  async getMessage(messageId: string, chatId?: string): Promise<PersistedMessage | undefined> {
    this.assertOpen();
    const m = chatId === undefined ? await this.dbGetMessage(messageId) : await this.live.inChat(messageId, chatId);
    return m && shownMessage(await this.live.current(m));
  }

  // ---- recovery ----------------------------------------------------------------------------

  async interruptRun(runId: string, reason = DEFAULT_INTERRUPT_REASON): Promise<AppendResult> {
    this.assertOpen();
    return this.locks.withLock(runId, async () => {
      const run = await this.dbGetRun(runId);
      if (!run) throw new StoreError('not_found', `no run ${runId}`);
      if (run.status !== 'running') return { runId, appended: 0, duplicates: 0, lastSeq: run.lastSeq, status: run.status };
      const { projector } = await this.live.liveRun(run);
      const events = projector.closingEvents(reason, this.now());
      if (run.lastSeq < 0) {
        // Nothing was ever appended: the closing events need a run-start first.
        const start = startOf(run, this.now());
        return this.appendLocked(runId, [start, ...events.map((e) => ({ ...e, seq: e.seq + 1 }) as CanonicalEvent)]);
      }
      return this.appendLocked(runId, events);
    });
  }

  async recoverRuns(options: RecoverOptions = {}): Promise<string[]> {
    this.assertOpen();
    const now = this.now();
    const cutoff = now - (options.olderThanMs ?? 0);
    const out: string[] = [];
    for (const run of await this.dbRunningRuns(options.expiredLeases ? now : undefined)) {
      if (options.expiredLeases) {
        if (run.leaseUntil === undefined || run.leaseUntil >= now) continue;
        if (options.exceptHolder !== undefined && run.leaseHolder === options.exceptHolder) continue;
      } else if (run.updatedAt > cutoff) continue;
      await this.interruptRun(run.id, options.reason);
      out.push(run.id);
    }
    return out;
  }

  async renewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    this.assertOpen();
    if (runIds.length > 0) await this.dbRenewLeases(holder, runIds, until);
  }

  abstract healthCheck(): Promise<void>;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tails.close();
    this.commits.startPending();
    await Promise.allSettled([...this.locks.values()]);
    await this.commits.drain();
    await this.dbClose();
  }

  protected assertOpen(): void {
    if (this.closed) throw new StoreError('closed', `the ${this.kind} store is closed`);
  }
}

/** The lease holder and run id of the health check's write (no instance holds leases by that name). */
const HEALTH_HOLDER = 'switchboard-healthz';

/**
 * The write and the read of every backend's `healthCheck`: a lease renewal no run matches (a real
 * write that changes nothing), then a page of chats.
 */
export async function writeAndRead(store: Store): Promise<void> {
  await store.renewLeases(HEALTH_HOLDER, [HEALTH_HOLDER], 0);
  await store.listChats({ limit: 1 });
}

/** The persistence state a stored message row should have for a run status. */
export function stateFor(status: RunStatus): PersistenceState {
  return status === 'running' ? 'pending' : 'persisted';
}
