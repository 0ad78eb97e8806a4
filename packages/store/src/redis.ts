/**
 * The Redis backend (`@redis/client`, the official node-redis client): for live fan-out across
 * instances, and a complete store on its own.
 *
 * - Each run's log is a Stream, `<prefix>run:<id>:events`, whose entry ids are `0-<seq + 1>`: reads
 *   from any seq are one XRANGE, and a tail is XREAD BLOCK from the last id it has (nothing between
 *   the read and the wait can be missed: the wait is by id, not "from now").
 * - Sequence numbers are verified with a per-run INCR counter, `<prefix>run:<id>:seq`:
 *   an append is accepted only when the counter says it continues the log.
 * - An append is one Lua script (atomic): the counter, XADD of every event, the run hash, the
 *   assistant message. Chat deletion is one script too.
 * - `<prefix>schema` holds the schema version.
 *
 * Keys (prefix default `switchboard:`): `chats` (zset by updatedAt), `chat:<id>` (hash),
 * `owner:<owner>:chats` (zset by updatedAt: the owner index, written by the same scripts as the chat),
 * `chat:<id>:runs` / `chat:<id>:messages` (zsets in creation order), `run:<id>` (hash), `run:<id>:seq`,
 * `run:<id>:events`, `msg:<id>` (JSON), `running` (set of live run ids), `order` (counter).
 * One Redis (or a primary with replicas); Redis Cluster is not supported (keys of a chat span slots).
 */
import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import type { CanonicalEvent, FinishReason } from '@switchboard/core';
import { openBackend } from './errors.ts';
import { ASYNC_GROUP } from './group-commit.ts';
import { parseObject } from './json.ts';
import { upToTerminal } from './local-tails.ts';
import type { PersistedMessage } from './projection.ts';
import { isTerminal } from './projection.ts';
import { ownerColumn, takeSearchParam } from './rows.ts';
import {
  BaseStore,
  type BaseStoreOptions,
  type Chat,
  type Commit,
  ConcurrentAppendError,
  type Run,
  type RunStatus,
  StoreError,
  type TailOptions,
  writeAndRead,
} from './store.ts';

/** The schema version this code writes. */
export const REDIS_SCHEMA_VERSION = 2;

export interface RedisStoreOptions extends BaseStoreOptions {
  /** Connection URL (default `REDIS_URL`, else `redis://127.0.0.1:6379`). A `?prefix=` parameter sets the key prefix. */
  url?: string;
  /** Prefix of every key (default `switchboard:`). */
  prefix?: string;
  /** How long one XREAD BLOCK of a tail waits before re-checking the run (ms, default: pollIntervalMs). */
  blockMs?: number;
  /** Timeout of the first connection (ms, default 5000). */
  connectTimeoutMs?: number;
}

type Client = RedisClientType;
type Reply = unknown;

// Keeps a chat's owner index in step with its hash: moves the chat from its old owner's zset to the
// new one's (the owner kept in the hash's `owner` field) and sets its score. Scripts below prepend it.
// reindex(chatKey, prefix, chatId, owner or false to keep the stored one, '' for none, updatedAt)
const REINDEX = `
local function reindex(chat, prefix, id, owner, at)
  local old = redis.call('HGET', chat, 'owner')
  if owner == false then owner = old or '' end
  if old and old ~= owner then redis.call('ZREM', prefix .. 'owner:' .. old .. ':chats', id) end
  if owner == '' then
    if old then redis.call('HDEL', chat, 'owner') end
    return
  end
  if old ~= owner then redis.call('HSET', chat, 'owner', owner) end
  redis.call('ZADD', prefix .. 'owner:' .. owner .. ':chats', at, id)
end
`;

// KEYS: 1 chat, 2 chats. ARGV: 1 chatId, 2 createdAt, 3 title, 4 metadata, 5 owner, 6 prefix
const CREATE_CHAT = `${REINDEX}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'createdAt', ARGV[2], 'updatedAt', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'title', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'metadata', ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
reindex(KEYS[1], ARGV[6], ARGV[1], ARGV[5], ARGV[2])
return 1
`;

// KEYS: 1 chat, 2 chats. ARGV: 1 chatId, 2 updatedAt, 3 't' .. title ('' keeps it), 4 metadata ('' keeps), 5 owner, 6 prefix
const UPDATE_CHAT = `${REINDEX}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'title', string.sub(ARGV[3], 2)) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'metadata', ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
reindex(KEYS[1], ARGV[6], ARGV[1], ARGV[5], ARGV[2])
return 1
`;

// Schema 1 → 2: indexes a page of existing chats by the string `metadata.owner` (idempotent).
// KEYS: the chat hashes. ARGV: 1 prefix
const INDEX_OWNERS = `${REINDEX}
for _, key in ipairs(KEYS) do
  local h = redis.call('HMGET', key, 'id', 'metadata', 'updatedAt')
  if h[1] then
    local owner = ''
    if h[2] then
      local ok, meta = pcall(cjson.decode, h[2])
      if ok and type(meta) == 'table' and type(meta.owner) == 'string' then owner = meta.owner end
    end
    reindex(key, ARGV[1], h[1], owner, h[3])
  end
end
return 1
`;

// KEYS: 1 chat, 2 chats, 3 chat runs, 4 order, 5 run, 6 running, 7 user message, 8 chat messages
// ARGV: 1 chatId, 2 title, 3 now, 4 runId, 5 messageId, 6 userMessageId, 7 user message JSON, 8 user message id,
//       9 exclusive ('1' or ''), 10 lease holder, 11 lease end, 12 prefix
const CREATE_RUN = `${REINDEX}
if ARGV[9] == '1' then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    if id ~= ARGV[4] and redis.call('SISMEMBER', KEYS[6], id) == 1 then return 'busy:' .. id end
  end
end
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'id', ARGV[1], 'createdAt', ARGV[3], 'updatedAt', ARGV[3])
  if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'title', ARGV[2]) end
else
  redis.call('HSET', KEYS[1], 'updatedAt', ARGV[3])
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
reindex(KEYS[1], ARGV[12], ARGV[1], false, ARGV[3])
redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[4])
redis.call('HSET', KEYS[5], 'id', ARGV[4], 'chatId', ARGV[1], 'status', 'running', 'lastSeq', '-1', 'createdAt', ARGV[3], 'updatedAt', ARGV[3])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[5], 'messageId', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[5], 'userMessageId', ARGV[6]) end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[5], 'leaseHolder', ARGV[10], 'leaseUntil', ARGV[11]) end
redis.call('SADD', KEYS[6], ARGV[4])
if ARGV[7] ~= '' then
  redis.call('SET', KEYS[7], ARGV[7])
  if not redis.call('ZSCORE', KEYS[8], ARGV[8]) then redis.call('ZADD', KEYS[8], redis.call('INCR', KEYS[4]), ARGV[8]) end
end
return 1
`;

// KEYS: 1 run, 2 seq counter, 3 stream, 4 message, 5 chat messages, 6 order, 7 chat, 8 chats, 9 running
// ARGV: 1 expected last seq, 2 status, 3 finishReason, 4 updatedAt, 5 new messageId, 6 message JSON, 7 message id,
//       8 chat updatedAt, 9 chatId, 10 runId, 11 n, 12 prefix, then n pairs (seq, event JSON)
const APPEND = `${REINDEX}
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('SBNORUN') end
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
if count ~= tonumber(ARGV[1]) + 1 then return redis.error_reply('SBCONFLICT') end
local n = tonumber(ARGV[11])
for i = 0, n - 1 do
  if tonumber(ARGV[13 + 2 * i]) ~= count + i then return redis.error_reply('SBGAP') end
end
for i = 0, n - 1 do
  local seq = redis.call('INCR', KEYS[2]) - 1
  redis.call('XADD', KEYS[3], '0-' .. (seq + 1), 'e', ARGV[14 + 2 * i])
end
redis.call('HSET', KEYS[1], 'lastSeq', tostring(count + n - 1), 'status', ARGV[2], 'updatedAt', ARGV[4])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'finishReason', ARGV[3]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'messageId', ARGV[5]) end
if ARGV[2] ~= 'running' then redis.call('SREM', KEYS[9], ARGV[10]) end
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[4], ARGV[6])
  if not redis.call('ZSCORE', KEYS[5], ARGV[7]) then redis.call('ZADD', KEYS[5], redis.call('INCR', KEYS[6]), ARGV[7]) end
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[7], 'updatedAt', ARGV[8])
  redis.call('ZADD', KEYS[8], ARGV[8], ARGV[9])
  reindex(KEYS[7], ARGV[12], ARGV[9], false, ARGV[8])
end
return count + n - 1
`;

// KEYS: the run hashes. ARGV: 1 holder, 2 lease end
const RENEW_LEASES = `
for _, key in ipairs(KEYS) do
  if redis.call('HGET', key, 'leaseHolder') == ARGV[1] and redis.call('HGET', key, 'status') == 'running' then
    redis.call('HSET', key, 'leaseUntil', ARGV[2])
  end
end
return 1
`;

// KEYS: 1 chat, 2 chats, 3 chat runs, 4 chat messages, 5 running. ARGV: 1 prefix, 2 chatId
const DELETE_CHAT = `${REINDEX}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
reindex(KEYS[1], ARGV[1], ARGV[2], '', 0)
local runs = redis.call('ZRANGE', KEYS[3], 0, -1)
local msgs = redis.call('ZRANGE', KEYS[4], 0, -1)
for _, id in ipairs(runs) do
  redis.call('DEL', ARGV[1] .. 'run:' .. id, ARGV[1] .. 'run:' .. id .. ':seq', ARGV[1] .. 'run:' .. id .. ':events')
  redis.call('SREM', KEYS[5], id)
end
for _, id in ipairs(msgs) do redis.call('DEL', ARGV[1] .. 'msg:' .. id) end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[2], ARGV[2])
return runs
`;

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Field/value pairs of a hash reply (RESP2 flat array, RESP3 map / object). */
function hashOf(reply: Reply): Record<string, string> {
  if (reply instanceof Map) return Object.fromEntries([...reply].map(([k, v]) => [String(k), String(v)]));
  if (Array.isArray(reply)) {
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
    return out;
  }
  if (reply && typeof reply === 'object') return Object.fromEntries(Object.entries(reply).map(([k, v]) => [k, String(v)]));
  return {};
}

/** Stream entries `[id, [field, value, …]]` → the events they hold. */
function eventsOfEntries(entries: Reply): CanonicalEvent[] {
  if (!Array.isArray(entries)) return [];
  const out: CanonicalEvent[] = [];
  for (const entry of entries) {
    const fields = hashOf((entry as Reply[])[1]);
    if (fields.e !== undefined) out.push(JSON.parse(fields.e) as CanonicalEvent);
  }
  return out;
}

/** The entries of the one stream in an XREAD reply (RESP2: `[[key, entries]]`, RESP3: `{key: entries}`). */
function xreadEntries(reply: Reply): Reply {
  if (reply === null || reply === undefined) return [];
  if (reply instanceof Map) return [...reply.values()][0] ?? [];
  if (Array.isArray(reply)) return (reply[0] as Reply[] | undefined)?.[1] ?? [];
  if (typeof reply === 'object') return Object.values(reply)[0] ?? [];
  return [];
}

function chatOf(h: Record<string, string>): Chat | undefined {
  if (h.id === undefined) return undefined;
  const chat: Chat = { id: h.id, createdAt: Number(h.createdAt), updatedAt: Number(h.updatedAt) };
  if (h.title !== undefined) chat.title = h.title;
  if (h.metadata !== undefined) chat.metadata = parseObject(h.metadata);
  return chat;
}

function runOf(h: Record<string, string>): Run | undefined {
  if (h.id === undefined) return undefined;
  const run: Run = {
    id: h.id,
    chatId: h.chatId,
    status: h.status as RunStatus,
    lastSeq: Number(h.lastSeq),
    createdAt: Number(h.createdAt),
    updatedAt: Number(h.updatedAt),
  };
  if (h.messageId !== undefined) run.messageId = h.messageId;
  if (h.userMessageId !== undefined) run.userMessageId = h.userMessageId;
  if (h.finishReason !== undefined) run.finishReason = h.finishReason as FinishReason;
  if (h.leaseHolder !== undefined) run.leaseHolder = h.leaseHolder;
  if (h.leaseUntil !== undefined) run.leaseUntil = Number(h.leaseUntil);
  return run;
}

/** The Redis store. Open it with {@link openRedisStore} (or `openStore('redis://…')`). */
export class RedisStore extends BaseStore {
  readonly kind = 'redis' as const;
  /** Prefix of every key. */
  readonly prefix: string;
  private readonly client: Client;
  private readonly blockMs: number;
  private readonly url: string;
  private connected = false;

  constructor(options: RedisStoreOptions = {}) {
    super(options, ASYNC_GROUP);
    const split = takeSearchParam(options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'prefix');
    this.url = split.url;
    this.prefix = options.prefix ?? split.value ?? 'switchboard:';
    this.blockMs = options.blockMs ?? this.pollIntervalMs;
    this.client = createClient({
      url: this.url,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 5000,
        // Fail fast on the first connect (a missing server is an error, not a hang); reconnect after that.
        reconnectStrategy: (retries: number) => (this.connected ? Math.min(50 * 2 ** retries, 2000) : false),
      },
    }) as Client;
    // Connection errors surface on the commands; without a listener node-redis would throw them at the process.
    this.client.on('error', () => {});
  }

  private k(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /** Connects and checks / writes the schema version key. */
  async connect(): Promise<void> {
    await this.client.connect();
    this.connected = true;
    const key = this.k('schema');
    // A fresh prefix has no chats to migrate: it starts at the current version.
    const fresh = Number(await this.client.sendCommand(['EXISTS', this.k('chats')])) === 0;
    await this.client.sendCommand(['SET', key, String(fresh ? REDIS_SCHEMA_VERSION : 1), 'NX']);
    const v = Number(await this.client.sendCommand(['GET', key]));
    if (v > REDIS_SCHEMA_VERSION)
      throw new StoreError(
        'schema',
        `Redis keys under ${this.prefix} have schema version ${v}; this code supports up to ${REDIS_SCHEMA_VERSION}`,
      );
    if (v < 2) await this.indexOwners();
    // Later migrations run here, each guarded by the version key.
  }

  /** Migration 1 → 2: the owner index of the chats already stored (idempotent, so a second instance may repeat it). */
  private async indexOwners(): Promise<void> {
    const PAGE = 500;
    for (let at = 0; ; at += PAGE) {
      const ids = (await this.client.sendCommand(['ZRANGE', this.k('chats'), String(at), String(at + PAGE - 1)])) as string[];
      if (ids.length > 0)
        await this.script(
          INDEX_OWNERS,
          ids.map((id) => this.k('chat', id)),
          [this.prefix],
        );
      if (ids.length < PAGE) break;
    }
    await this.client.sendCommand(['SET', this.k('schema'), '2']);
  }

  /** The stored schema version. */
  async schemaVersion(): Promise<number> {
    return Number(await this.client.sendCommand(['GET', this.k('schema')]));
  }

  private async script(source: string, keys: string[], args: string[]): Promise<Reply> {
    const sha = sha1(source);
    try {
      return await this.client.sendCommand(['EVALSHA', sha, String(keys.length), ...keys, ...args]);
    } catch (err) {
      if (!String((err as Error).message).includes('NOSCRIPT')) throw err;
      return this.client.sendCommand(['EVAL', source, String(keys.length), ...keys, ...args]);
    }
  }

  protected async dbInsertChat(chat: Chat): Promise<boolean> {
    const r = await this.script(
      CREATE_CHAT,
      [this.k('chat', chat.id), this.k('chats')],
      [
        chat.id,
        String(chat.createdAt),
        chat.title ?? '',
        chat.metadata ? JSON.stringify(chat.metadata) : '',
        ownerColumn(chat) ?? '',
        this.prefix,
      ],
    );
    return Number(r) === 1;
  }

  protected async dbGetChat(chatId: string): Promise<Chat | undefined> {
    return chatOf(hashOf(await this.client.sendCommand(['HGETALL', this.k('chat', chatId)])));
  }

  /**
   * Chats newest first: all of them (`chats`), or an owner's from the owner index
   * (`owner:<owner>:chats`), which never reads another owner's chat.
   */
  protected async dbListChats(limit: number, offset: number, owner: string | undefined): Promise<Chat[]> {
    const ids = (await this.client.sendCommand([
      'ZRANGE',
      owner === undefined ? this.k('chats') : this.k('owner', owner, 'chats'),
      '+inf',
      '-inf',
      'BYSCORE',
      'REV',
      'LIMIT',
      String(offset),
      String(limit),
    ])) as string[];
    const chats = await Promise.all(ids.map((id) => this.dbGetChat(id)));
    return chats.filter((c): c is Chat => c !== undefined);
  }

  protected async dbUpdateChat(chat: Chat): Promise<void> {
    await this.script(
      UPDATE_CHAT,
      [this.k('chat', chat.id), this.k('chats')],
      [
        chat.id,
        String(chat.updatedAt),
        chat.title !== undefined ? `t${chat.title}` : '',
        chat.metadata !== undefined ? JSON.stringify(chat.metadata) : '',
        ownerColumn(chat) ?? '',
        this.prefix,
      ],
    );
  }

  protected async dbDeleteChat(chatId: string): Promise<string[] | false> {
    const r = await this.script(
      DELETE_CHAT,
      [this.k('chat', chatId), this.k('chats'), this.k('chat', chatId, 'runs'), this.k('chat', chatId, 'messages'), this.k('running')],
      [this.prefix, chatId],
    );
    return Array.isArray(r) ? (r as string[]) : false;
  }

  protected async dbCreateRun(run: Run, chat: Chat, user: PersistedMessage | undefined, exclusive: boolean): Promise<string | undefined> {
    const r = await this.script(
      CREATE_RUN,
      [
        this.k('chat', run.chatId),
        this.k('chats'),
        this.k('chat', run.chatId, 'runs'),
        this.k('order'),
        this.k('run', run.id),
        this.k('running'),
        this.k('msg', user?.id ?? '-'),
        this.k('chat', run.chatId, 'messages'),
      ],
      [
        run.chatId,
        chat.title ?? '',
        String(run.createdAt),
        run.id,
        run.messageId ?? '',
        run.userMessageId ?? '',
        user ? JSON.stringify(user) : '',
        user?.id ?? '',
        exclusive ? '1' : '',
        run.leaseHolder ?? '',
        run.leaseUntil !== undefined ? String(run.leaseUntil) : '',
        this.prefix,
      ],
    );
    return typeof r === 'string' && r.startsWith('busy:') ? r.slice(5) : undefined;
  }

  protected async dbRenewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    await this.script(
      RENEW_LEASES,
      runIds.map((id) => this.k('run', id)),
      [holder, String(until)],
    );
  }

  protected async dbGetRun(runId: string): Promise<Run | undefined> {
    return runOf(hashOf(await this.client.sendCommand(['HGETALL', this.k('run', runId)])));
  }

  private async runsOf(ids: string[]): Promise<Run[]> {
    const runs = await Promise.all(ids.map((id) => this.dbGetRun(id)));
    return runs.filter((r): r is Run => r !== undefined);
  }

  protected async dbListRuns(chatId: string): Promise<Run[]> {
    return this.runsOf((await this.client.sendCommand(['ZRANGE', this.k('chat', chatId, 'runs'), '0', '-1'])) as string[]);
  }

  protected async dbRunningRuns(): Promise<Run[]> {
    const ids = (await this.client.sendCommand(['SMEMBERS', this.k('running')])) as string[];
    return (await this.runsOf(ids)).sort((a, b) => a.createdAt - b.createdAt);
  }

  protected async dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]> {
    const args = ['XRANGE', this.k('run', runId, 'events'), `0-${after + 2}`, '+'];
    if (limit !== undefined) args.push('COUNT', String(limit));
    return eventsOfEntries(await this.client.sendCommand(args));
  }

  protected async dbCommit(c: Commit): Promise<void> {
    const args = [
      String(c.expectedLastSeq),
      c.run.status,
      c.run.finishReason ?? '',
      String(c.run.updatedAt),
      c.run.messageId ?? '',
      c.message ? JSON.stringify(c.message) : '',
      c.message?.id ?? '',
      c.chatUpdatedAt !== undefined ? String(c.chatUpdatedAt) : '',
      c.chatId,
      c.runId,
      String(c.events.length),
      this.prefix,
    ];
    for (const e of c.events) args.push(String(e.seq), e.json);
    try {
      await this.script(
        APPEND,
        [
          this.k('run', c.runId),
          this.k('run', c.runId, 'seq'),
          this.k('run', c.runId, 'events'),
          this.k('msg', c.message?.id ?? '-'),
          this.k('chat', c.chatId, 'messages'),
          this.k('order'),
          this.k('chat', c.chatId),
          this.k('chats'),
          this.k('running'),
        ],
        args,
      );
    } catch (err) {
      const msg = String((err as Error).message);
      if (msg.includes('SBCONFLICT')) throw new ConcurrentAppendError();
      if (msg.includes('SBNORUN')) throw new StoreError('not_found', `no run ${c.runId}`);
      if (msg.includes('SBGAP')) throw new StoreError('gap', `run ${c.runId}: seq does not continue the log`);
      throw err;
    }
  }

  protected async dbGetMessage(messageId: string): Promise<PersistedMessage | undefined> {
    const text = (await this.client.sendCommand(['GET', this.k('msg', messageId)])) as string | null;
    return text === null ? undefined : (JSON.parse(text) as PersistedMessage);
  }

  protected async dbGetMessages(messageIds: readonly string[]): Promise<PersistedMessage[]> {
    if (messageIds.length === 0) return [];
    const texts = (await this.client.sendCommand(['MGET', ...messageIds.map((id) => this.k('msg', id))])) as (string | null)[];
    return texts.filter((t): t is string => t !== null).map((t) => JSON.parse(t) as PersistedMessage);
  }

  protected async dbListMessages(chatId: string): Promise<PersistedMessage[]> {
    const ids = (await this.client.sendCommand(['ZRANGE', this.k('chat', chatId, 'messages'), '0', '-1'])) as string[];
    if (ids.length === 0) return [];
    const texts = (await this.client.sendCommand(['MGET', ...ids.map((id) => this.k('msg', id))])) as (string | null)[];
    return texts.filter((t): t is string => t !== null).map((t) => JSON.parse(t) as PersistedMessage);
  }

  /**
   * Tail by XREAD BLOCK on a connection of its own: read what is there, and when nothing is, block
   * on the stream from the last id seen (so an append between the two is never missed).
   */
  override async *tailPages(runId: string, options: TailOptions = {}): AsyncGenerator<CanonicalEvent[]> {
    this.assertOpen();
    const stop = this.stopper(options.signal);
    const stream = this.k('run', runId, 'events');
    let conn: Client | undefined;
    const drop = () => {
      try {
        conn?.destroy();
      } catch {
        // already closed
      }
    };
    stop.signal.addEventListener('abort', drop, { once: true });
    try {
      let last = options.after ?? -1;
      for (;;) {
        if (stop.signal.aborted) return;
        let events = eventsOfEntries(
          xreadEntries(await this.client.sendCommand(['XREAD', 'COUNT', '1000', 'STREAMS', stream, `0-${last + 1}`])),
        );
        if (events.length === 0) {
          const run = await this.dbGetRun(runId);
          if (!run) throw new StoreError('not_found', `no run ${runId}`);
          if (run.status !== 'running' && run.lastSeq <= last) return;
          if (!conn) {
            conn = this.client.duplicate() as Client;
            conn.on('error', () => {});
            await conn.connect();
            if (stop.signal.aborted) return;
          }
          let reply: Reply;
          try {
            reply = await conn.sendCommand(['XREAD', 'COUNT', '1000', 'BLOCK', String(this.blockMs), 'STREAMS', stream, `0-${last + 1}`]);
          } catch (err) {
            if (stop.signal.aborted) return;
            throw err;
          }
          events = eventsOfEntries(xreadEntries(reply));
        }
        if (events.length > 0) {
          const page = upToTerminal(events);
          last = page[page.length - 1].seq;
          yield page;
          if (isTerminal(page[page.length - 1])) return;
        }
      }
    } finally {
      stop.signal.removeEventListener('abort', drop);
      stop.dispose();
      drop();
    }
  }

  /** The shared write and read (`writeAndRead`). */
  healthCheck(): Promise<void> {
    return writeAndRead(this);
  }

  protected async dbClose(): Promise<void> {
    this.connected = false;
    if (this.client.isReady) await this.client.close();
    else if (this.client.isOpen) this.client.destroy();
  }
}

/** Opens a Redis store: connects and checks the schema version key. */
export async function openRedisStore(options: RedisStoreOptions = {}): Promise<RedisStore> {
  return openBackend(new RedisStore(options), (store) => store.connect(), 'Redis');
}
