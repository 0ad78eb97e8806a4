/**
 * The in-memory backend (`memory:`): everything in this process's heap, gone when it exits. For
 * tests, demos and as the benchmark's baseline (what the gateway costs with a store that does no
 * I/O). It passes the same contract suite as the durable backends: same validation, idempotency,
 * projection, tails and recovery (all in `BaseStore`); events are kept as their JSON text, like the
 * other backends, so a resumed stream is byte-identical.
 */
import type { CanonicalEvent } from '@switchboard/core';
import { cloneJson } from './json.ts';
import type { PersistedMessage } from './projection.ts';
import type { BaseStoreOptions, Chat, Commit, Run, Write } from './store.ts';
import { BaseStore, ConcurrentAppendError, chatExists, inProgress, StoreError, writeAndRead } from './store.ts';

interface RunRecord {
  run: Run;
  /** Each event's JSON text, by seq. */
  events: string[];
}

/** The data of an in-memory store. Pass one to several stores and they share it, like processes sharing a database file. */
export class MemoryData {
  readonly chats = new Map<string, Chat>();
  readonly runs = new Map<string, RunRecord>();
  /** Run ids per chat, in creation order. */
  readonly chatRuns = new Map<string, string[]>();
  readonly messages = new Map<string, PersistedMessage>();
  /** Message ids per chat, in insertion order. */
  readonly chatMessages = new Map<string, string[]>();
  /** Chat ids per owner (the owner index). */
  readonly owners = new Map<string, Set<string>>();
}

/** Options of the in-memory store. */
export interface MemoryStoreOptions extends BaseStoreOptions {
  /** The data to use (default: a new, empty one). */
  data?: MemoryData;
}

const copy = <T>(x: T): T => structuredClone(x);

/** The in-memory store. Open it with {@link openMemoryStore} (or `openStore('memory:')`). */
export class MemoryStore extends BaseStore {
  readonly kind = 'memory' as const;
  // Run starts go through the group commit as on SQLite, so that the baseline does the same work
  // at the same moments (a burst of requests is read before their runs start).
  protected override readonly batchesStarts = true;
  /** The data (share it with another store to give both the same database). */
  readonly data: MemoryData;
  private readonly chats: Map<string, Chat>;
  private readonly runs: Map<string, RunRecord>;
  private readonly chatRuns: Map<string, string[]>;
  private readonly messages: Map<string, PersistedMessage>;
  private readonly chatMessages: Map<string, string[]>;
  private readonly owners: Map<string, Set<string>>;

  constructor(options: MemoryStoreOptions = {}) {
    super(options);
    this.data = options.data ?? new MemoryData();
    ({ chats: this.chats, runs: this.runs, chatRuns: this.chatRuns, messages: this.messages } = this.data);
    ({ chatMessages: this.chatMessages, owners: this.owners } = this.data);
  }

  /** Always 1: there is nothing to migrate. */
  schemaVersion(): number {
    return 1;
  }

  private index(chat: Chat, add: boolean): void {
    const owner = chat.metadata?.owner;
    if (typeof owner !== 'string') return;
    let set = this.owners.get(owner);
    if (add) {
      if (!set) {
        set = new Set();
        this.owners.set(owner, set);
      }
      set.add(chat.id);
    } else {
      set?.delete(chat.id);
      if (set?.size === 0) this.owners.delete(owner);
    }
  }

  protected async dbInsertChat(chat: Chat): Promise<boolean> {
    if (this.chats.has(chat.id)) return false;
    this.chats.set(chat.id, copy(chat));
    this.index(chat, true);
    return true;
  }

  protected async dbGetChat(chatId: string): Promise<Chat | undefined> {
    const chat = this.chats.get(chatId);
    return chat && copy(chat);
  }

  protected async dbListChats(limit: number, offset: number, owner: string | undefined): Promise<Chat[]> {
    const ids = owner === undefined ? [...this.chats.keys()] : [...(this.owners.get(owner) ?? [])];
    const chats = ids.map((id) => this.chats.get(id) as Chat);
    chats.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return chats.slice(offset, offset + limit).map(copy);
  }

  protected async dbUpdateChat(chat: Chat): Promise<void> {
    const old = this.chats.get(chat.id);
    if (!old) return;
    this.index(old, false);
    this.chats.set(chat.id, copy(chat));
    this.index(chat, true);
  }

  protected async dbDeleteChat(chatId: string): Promise<string[] | false> {
    const chat = this.chats.get(chatId);
    if (!chat) return false;
    const runs = this.chatRuns.get(chatId) ?? [];
    for (const id of runs) this.runs.delete(id);
    for (const id of this.chatMessages.get(chatId) ?? []) this.messages.delete(id);
    this.index(chat, false);
    this.chats.delete(chatId);
    this.chatRuns.delete(chatId);
    this.chatMessages.delete(chatId);
    return runs;
  }

  private putMessage(message: PersistedMessage): void {
    // Stored as the other backends store it, JSON text read back: the commit's message shares the
    // projector's objects (and could hold what JSON drops, an undefined field).
    const m = cloneJson(message);
    const old = this.messages.get(m.id);
    if (old) {
      this.messages.set(m.id, { ...m, createdAt: old.createdAt } as PersistedMessage);
      return;
    }
    this.messages.set(m.id, m);
    const list = this.chatMessages.get(m.chatId);
    if (list) list.push(m.id);
    else this.chatMessages.set(m.chatId, [m.id]);
  }

  protected async dbCreateRun(run: Run, chat: Chat, user: PersistedMessage | undefined, exclusive: boolean): Promise<string | undefined> {
    if (exclusive) for (const id of this.chatRuns.get(run.chatId) ?? []) if (this.runs.get(id)?.run.status === 'running') return id;
    if (this.runs.has(run.id)) return undefined;
    // No await from the check to the insert: atomic within this process, like a transaction.
    const existing = this.chats.get(run.chatId);
    if (existing) existing.updatedAt = run.createdAt;
    else {
      this.chats.set(chat.id, copy(chat));
      this.index(chat, true);
    }
    this.runs.set(run.id, { run: copy(run), events: [] });
    const list = this.chatRuns.get(run.chatId);
    if (list) list.push(run.id);
    else this.chatRuns.set(run.chatId, [run.id]);
    if (user) this.putMessage(user);
    return undefined;
  }

  /** The group commit's writes, run starts included: each applied on its own (nothing is shared between them). */
  protected override async dbWriteMany(writes: readonly Write[]): Promise<(unknown | undefined)[]> {
    const out: (unknown | undefined)[] = [];
    for (const w of writes) {
      try {
        if (!('kind' in w)) await this.dbCommit(w);
        else if (w.kind === 'chat') {
          if (!(await this.dbInsertChat(w.chat))) throw chatExists(w.chat.id);
        } else {
          if (w.newChat && this.chats.has(w.chat.id)) throw chatExists(w.chat.id);
          const existed = this.runs.has(w.run.id);
          const blocker = await this.dbCreateRun(w.run, w.chat, w.user, w.exclusive);
          if (blocker !== undefined && blocker !== w.run.id) throw inProgress(w.run.chatId, blocker);
          w.inserted = !existed;
        }
        out.push(undefined);
      } catch (err) {
        out.push(err);
      }
    }
    return out;
  }

  protected async dbGetRun(runId: string): Promise<Run | undefined> {
    const r = this.runs.get(runId);
    return r && { ...r.run };
  }

  protected async dbListRuns(chatId: string): Promise<Run[]> {
    return (this.chatRuns.get(chatId) ?? []).map((id) => ({ ...(this.runs.get(id) as RunRecord).run }));
  }

  protected async dbRunningRuns(): Promise<Run[]> {
    return [...this.runs.values()].filter((r) => r.run.status === 'running').map((r) => ({ ...r.run }));
  }

  protected async dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]> {
    const r = this.runs.get(runId);
    if (!r) return [];
    const from = Math.max(0, after + 1);
    const to = limit === undefined ? r.events.length : Math.min(r.events.length, from + limit);
    const out: CanonicalEvent[] = [];
    for (let i = from; i < to; i++) out.push(JSON.parse(r.events[i]) as CanonicalEvent);
    return out;
  }

  protected async dbCommit(c: Commit): Promise<void> {
    const r = this.runs.get(c.runId);
    if (!r) throw new StoreError('not_found', `no run ${c.runId}`);
    if (r.run.lastSeq !== c.expectedLastSeq) throw new ConcurrentAppendError();
    for (const e of c.events) r.events.push(e.json);
    r.run.lastSeq = c.run.lastSeq;
    r.run.status = c.run.status;
    r.run.updatedAt = c.run.updatedAt;
    if (c.run.finishReason !== undefined) r.run.finishReason = c.run.finishReason;
    if (c.run.messageId !== undefined) r.run.messageId = c.run.messageId;
    if (c.message) this.putMessage(c.message);
    if (c.chatUpdatedAt !== undefined) {
      const chat = this.chats.get(c.chatId);
      if (chat) chat.updatedAt = c.chatUpdatedAt;
    }
  }

  protected async dbRenewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    for (const id of runIds) {
      const r = this.runs.get(id)?.run;
      if (r && r.leaseHolder === holder && r.status === 'running') r.leaseUntil = until;
    }
  }

  protected async dbGetMessage(messageId: string): Promise<PersistedMessage | undefined> {
    const m = this.messages.get(messageId);
    return m && copy(m);
  }

  protected async dbGetMessages(messageIds: readonly string[]): Promise<PersistedMessage[]> {
    return messageIds.flatMap((id) => {
      const m = this.messages.get(id);
      return m ? [copy(m)] : [];
    });
  }

  protected async dbListMessages(chatId: string): Promise<PersistedMessage[]> {
    return (this.chatMessages.get(chatId) ?? []).map((id) => copy(this.messages.get(id) as PersistedMessage));
  }

  /** The shared write and read (`writeAndRead`). */
  healthCheck(): Promise<void> {
    return writeAndRead(this);
  }

  protected async dbClose(): Promise<void> {}
}

/** Opens an in-memory store (empty). */
export async function openMemoryStore(options: MemoryStoreOptions = {}): Promise<MemoryStore> {
  return new MemoryStore(options);
}
