/**
 * Live fan-out across server instances through Redis (`REDIS_URL`), beside the durable log
 * (PostgreSQL, or SQLite for one machine):
 *
 * - every event appended to a run is published on `<prefix>run:<runId>` right after its commit; a
 *   tail on any instance yields it from there, without reading the database, and re-reads the log
 *   by `seq` whenever it sees a gap, a nudge or nothing for a while — so it never misses nor repeats
 *   an event, whatever Redis drops or reorders;
 * - `<prefix>chat:<chatId>` announces a run starting in a chat (WebSocket session followers on
 *   other instances pick the new run up at once);
 * - `<prefix>control` carries aborts to the instance that runs the agent;
 * - the per-token rate limit is a token bucket in a Redis hash (one Lua script), shared by all
 *   instances.
 *
 * `withFanout(store, fanout)` wraps any store: appends publish, tails listen; everything else is the
 * store's own.
 */
import type { RedisClientType } from '@redis/client';
import type { CanonicalEvent } from '@switchboard/core';
import {
  type AppendResult,
  type Chat,
  type ChatInit,
  importOptional,
  isTerminal,
  type ListOptions,
  type PersistedMessage,
  type ReadOptions,
  type RecoverOptions,
  type Run,
  type StartRunInit,
  type Store,
  StoreError,
  type TailOptions,
  upToTerminal,
} from '@switchboard/store';

import { VersionSignal } from './signal.ts';

type Client = RedisClientType;
type Listener = (message: string) => void;

/** Options of `openRedisFanout`. */
export interface FanoutOptions {
  /** `redis://…` (a `?prefix=` parameter sets the prefix). */
  url: string;
  /** Key and channel prefix (default `switchboard:`): instances that share it see each other. */
  prefix?: string;
  /** Timeout of the first connection in ms (default 5000). */
  connectTimeoutMs?: number;
}

const RATE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens = tonumber(v[1]) or burst
local ts = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return {allowed, wait}
`;

/** Splits `?prefix=` off a Redis URL. */
function splitPrefix(url: string): { url: string; prefix?: string } {
  try {
    const u = new URL(url);
    const prefix = u.searchParams.get('prefix');
    if (prefix === null) return { url };
    u.searchParams.delete('prefix');
    return { url: u.toString(), prefix };
  } catch {
    return { url };
  }
}

/**
 * The Redis connections of one instance: one for commands and publishing, one subscribed. The Redis
 * client (a large module graph) is loaded by `connect()`, so importing this module — or
 * `@switchboard/server` — costs nothing to a program that never fans out.
 */
export class RedisFanout {
  readonly prefix: string;
  private readonly options: FanoutOptions;
  private readonly url: string;
  // Both set by connect(); every method below is called on a connected fan-out (openRedisFanout).
  private client: Client | undefined;
  private sub: Client | undefined;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly pending = new Map<string, Promise<void>>();
  private connected = false;
  private closed = false;
  private rateSha: string | undefined;

  constructor(options: FanoutOptions) {
    const split = splitPrefix(options.url);
    this.options = options;
    this.url = split.url;
    this.prefix = options.prefix ?? split.prefix ?? 'switchboard:';
  }

  async connect(): Promise<void> {
    try {
      const { createClient } = await importOptional(() => import('@redis/client'), '@redis/client', 'it');
      const client = createClient({
        url: this.url,
        socket: {
          connectTimeout: this.options.connectTimeoutMs ?? 5000,
          // A missing server at start is an error, not a hang; after that, reconnect.
          reconnectStrategy: (retries: number) => (this.connected ? Math.min(50 * 2 ** retries, 2000) : false),
        },
      }) as Client;
      client.on('error', () => {});
      const sub = client.duplicate() as Client;
      sub.on('error', () => {});
      this.client = client;
      this.sub = sub;
      await client.connect();
      await sub.connect();
    } catch (err) {
      await this.close().catch(() => {});
      throw new StoreError('unavailable', `Redis (live fan-out): ${(err as Error).message}`, { cause: err });
    }
    this.connected = true;
  }

  /** The command connection; a StoreError before connect(). */
  private commands(): Client {
    if (!this.client) throw new StoreError('unavailable', 'Redis (live fan-out): not connected (call connect() first)');
    return this.client;
  }

  /** The subscribed connection; a StoreError before connect(). */
  private subscriber(): Client {
    if (!this.sub) throw new StoreError('unavailable', 'Redis (live fan-out): not connected (call connect() first)');
    return this.sub;
  }

  /** Publishes a message (fire and forget: a lost message only delays a tail until its next re-read). */
  publish(channel: string, message: string): void {
    if (this.closed || !this.client) return;
    this.client.publish(this.prefix + channel, message).catch(() => {});
  }

  /**
   * Listens on a channel; resolves once Redis confirmed the subscription (so nothing published after
   * that is missed). Returns the function that stops listening.
   */
  async subscribe(channel: string, listener: Listener): Promise<() => Promise<void>> {
    const sub = this.subscriber();
    const name = this.prefix + channel;
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
      const ready = sub
        .subscribe(name, (message: string) => {
          for (const l of this.listeners.get(name) ?? []) l(message);
        })
        .catch(() => {});
      this.pending.set(name, ready);
    }
    set.add(listener);
    await this.pending.get(name);
    return async () => {
      const current = this.listeners.get(name);
      if (!current?.delete(listener) || current.size > 0) return;
      this.listeners.delete(name);
      this.pending.delete(name);
      if (!this.closed) await this.sub?.unsubscribe(name).catch(() => {});
    };
  }

  /**
   * Takes one token from the bucket of `key` (capacity `burst`, refilled at `perMinute`), in Redis so
   * every instance shares it. `retryAfterMs` says when the next token is there.
   */
  async take(key: string, perMinute: number, burst: number): Promise<{ ok: boolean; retryAfterMs: number }> {
    const args = [String(perMinute / 60_000), String(burst)];
    const keys = [`${this.prefix}rate:${key}`];
    let reply: unknown;
    try {
      if (this.rateSha) reply = await this.commands().sendCommand(['EVALSHA', this.rateSha, '1', ...keys, ...args]);
      else throw new Error('NOSCRIPT');
    } catch (err) {
      if (!String((err as Error).message).includes('NOSCRIPT')) throw err;
      this.rateSha = String(await this.commands().sendCommand(['SCRIPT', 'LOAD', RATE_SCRIPT]));
      reply = await this.commands().sendCommand(['EVALSHA', this.rateSha, '1', ...keys, ...args]);
    }
    const [allowed, wait] = reply as [number, number];
    return { ok: Number(allowed) === 1, retryAfterMs: Number(wait) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await Promise.allSettled([this.sub?.isOpen ? this.sub.close() : undefined, this.client?.isOpen ? this.client.close() : undefined]);
  }
}

/** Connects the fan-out; fails with a StoreError `unavailable` when Redis is not there. */
export async function openRedisFanout(options: FanoutOptions): Promise<RedisFanout> {
  const fanout = new RedisFanout(options);
  await fanout.connect();
  return fanout;
}

/** What a run channel carries: the events of an append, or a nudge ("re-read the log"). */
type RunMessage = { events: CanonicalEvent[] } | { nudge: true };

/** How long a tail waits on Redis before it re-reads the log anyway (ms). */
const DEFAULT_POLL_MS = 1000;
const READ_PAGE = 1000;
/** Live events a tail keeps for a slow consumer before it falls back to reading the log. */
const MAX_QUEUED = 10_000;

/**
 * A store whose appends are published on Redis and whose tails follow Redis, reading the durable
 * store by seq to fill any gap. Everything else goes to the durable store unchanged.
 */
export class FanoutStore implements Store {
  readonly durable: Store;
  readonly fanout: RedisFanout;
  private readonly pollMs: number;
  private readonly aborts = new Set<AbortController>();
  private closed = false;

  constructor(durable: Store, fanout: RedisFanout, options: { pollIntervalMs?: number } = {}) {
    this.durable = durable;
    this.fanout = fanout;
    this.pollMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  }

  get kind(): Store['kind'] {
    return this.durable.kind;
  }

  createChat(init?: ChatInit): Promise<Chat> {
    return this.durable.createChat(init);
  }
  getChat(chatId: string): Promise<Chat | undefined> {
    return this.durable.getChat(chatId);
  }
  listChats(options?: ListOptions): Promise<Chat[]> {
    return this.durable.listChats(options);
  }
  updateChat(chatId: string, changes: Parameters<Store['updateChat']>[1]): Promise<Chat> {
    return this.durable.updateChat(chatId, changes);
  }
  deleteChat(chatId: string): Promise<boolean> {
    return this.durable.deleteChat(chatId);
  }
  startRun(init: StartRunInit): Promise<Run> {
    return this.durable.startRun(init);
  }
  getRun(runId: string): Promise<Run | undefined> {
    return this.durable.getRun(runId);
  }
  listRuns(chatId: string): Promise<Run[]> {
    return this.durable.listRuns(chatId);
  }
  read(runId: string, options?: ReadOptions): Promise<CanonicalEvent[]> {
    return this.durable.read(runId, options);
  }
  listMessages(chatId: string): Promise<PersistedMessage[]> {
    return this.durable.listMessages(chatId);
  }
  getMessage(messageId: string, chatId?: string): Promise<PersistedMessage | undefined> {
    return this.durable.getMessage(messageId, chatId);
  }

  async append(events: CanonicalEvent | readonly CanonicalEvent[]): Promise<AppendResult> {
    const result = await this.durable.append(events);
    const list = (Array.isArray(events) ? events : [events]) as CanonicalEvent[];
    const byRun = new Map<string, CanonicalEvent[]>();
    for (const e of list) {
      const group = byRun.get(e.runId);
      if (group) group.push(e);
      else byRun.set(e.runId, [e]);
    }
    for (const [runId, group] of byRun) this.fanout.publish(`run:${runId}`, JSON.stringify({ events: group } satisfies RunMessage));
    return result;
  }

  async interruptRun(runId: string, reason?: string): Promise<AppendResult> {
    const result = await this.durable.interruptRun(runId, reason);
    this.fanout.publish(`run:${runId}`, JSON.stringify({ nudge: true } satisfies RunMessage));
    return result;
  }

  renewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    return this.durable.renewLeases(holder, runIds, until);
  }

  healthCheck(): Promise<void> {
    return this.durable.healthCheck();
  }

  async recoverRuns(options?: RecoverOptions): Promise<string[]> {
    const ids = await this.durable.recoverRuns(options);
    for (const runId of ids) this.fanout.publish(`run:${runId}`, JSON.stringify({ nudge: true } satisfies RunMessage));
    return ids;
  }

  /** The tail event by event (see `tailPages`). */
  async *tail(runId: string, options: TailOptions = {}): AsyncGenerator<CanonicalEvent> {
    for await (const page of this.tailPages(runId, options)) for (const e of page) yield e;
  }

  /** The run's events after `after`, a page at a time: from Redis as they are published, from the log to fill gaps. */
  async *tailPages(runId: string, options: TailOptions = {}): AsyncGenerator<CanonicalEvent[]> {
    if (this.closed) throw new StoreError('closed', 'the store is closed');
    const stop = new AbortController();
    const outer = options.signal;
    const onAbort = () => stop.abort();
    if (outer?.aborted) stop.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    this.aborts.add(stop);

    const wake = new VersionSignal();
    const queue: CanonicalEvent[] = [];
    let reread = true; // the first pass reads the log
    const unsubscribe = await this.fanout.subscribe(`run:${runId}`, (text) => {
      try {
        const message = JSON.parse(text) as RunMessage;
        // A consumer far behind reads the log instead of holding every live event in memory.
        if ('events' in message && queue.length < MAX_QUEUED) queue.push(...message.events);
        else reread = true;
      } catch {
        reread = true;
      }
      wake.bump();
    });
    try {
      let last = options.after ?? -1;
      for (;;) {
        if (stop.signal.aborted || this.closed) return;
        const seen = wake.version;
        // Live events, in order; a gap means something was missed: the log has it.
        const live: CanonicalEvent[] = [];
        let taken = 0;
        for (; taken < queue.length && !reread; taken++) {
          const e = queue[taken];
          if (e.seq <= last) continue;
          if (e.seq !== last + 1) {
            reread = true;
            break;
          }
          last = e.seq;
          live.push(e);
          if (isTerminal(e)) break;
        }
        queue.splice(0, taken);
        if (live.length > 0) {
          yield live;
          if (isTerminal(live[live.length - 1])) return;
          if (stop.signal.aborted || this.closed) return;
        }
        if (reread) {
          reread = false;
          for (;;) {
            const page = await this.durable.read(runId, { after: last, limit: READ_PAGE });
            if (page.length > 0) {
              const out = upToTerminal(page);
              last = out[out.length - 1].seq;
              yield out;
              if (isTerminal(out[out.length - 1])) return;
              if (stop.signal.aborted || this.closed) return;
            }
            if (page.length < READ_PAGE) break;
          }
          const run = await this.durable.getRun(runId);
          if (!run) throw new StoreError('not_found', `no run ${runId}`);
          if (run.status !== 'running' && run.lastSeq <= last) return;
          continue;
        }
        await wake.wait(seen, stop.signal, this.pollMs);
        // Nothing new for a while: look at the log (a lost message, another writer, an ended run).
        if (wake.version === seen) reread = true;
      }
    } finally {
      outer?.removeEventListener('abort', onAbort);
      this.aborts.delete(stop);
      await unsubscribe();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.aborts) a.abort();
    await this.durable.close();
  }
}

/** Wraps a store so that its appends fan out through Redis and its tails follow them. */
export function withFanout(store: Store, fanout: RedisFanout, options: { pollIntervalMs?: number } = {}): FanoutStore {
  return new FanoutStore(store, fanout, options);
}
