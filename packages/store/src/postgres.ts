/**
 * The PostgreSQL backend (`pg`): the durable log for more than one machine. Tables live in their
 * own schema (default `switchboard`); every append is one transaction holding the events, the run
 * row and the message, and sends a `NOTIFY` (delivered on commit) so the tails of every instance
 * wake at once. Events are stored as `text`, verbatim, so a resumed stream is byte-identical.
 */
import type { CanonicalEvent } from '@switchboard/core';
import pg from 'pg';
import type { PersistedMessage } from './projection.ts';
import { chatOf, messageOf, type Row, runOf, takeSearchParam } from './rows.ts';
import { BaseStore, type BaseStoreOptions, type Chat, type Commit, ConcurrentAppendError, type Run, StoreError } from './store.ts';

/** The schema version this code writes. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** The NOTIFY channel appends are announced on (payload: `{"s":schema,"r":runId}`). */
export const POSTGRES_CHANNEL = 'switchboard_events';

const MIGRATIONS: { version: number; name: string; sql: (s: string) => string }[] = [
  {
    version: 1,
    name: 'chats, runs, events, messages',
    sql: (s) => `
      CREATE TABLE ${s}.chats (
        id text PRIMARY KEY,
        title text,
        metadata text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX chats_updated ON ${s}.chats (updated_at DESC, id);
      CREATE TABLE ${s}.runs (
        id text PRIMARY KEY,
        chat_id text NOT NULL REFERENCES ${s}.chats (id) ON DELETE CASCADE,
        message_id text,
        user_message_id text,
        status text NOT NULL,
        finish_reason text,
        last_seq integer NOT NULL DEFAULT -1,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        n bigserial
      );
      CREATE INDEX runs_chat ON ${s}.runs (chat_id, n);
      CREATE INDEX runs_running ON ${s}.runs (status) WHERE status = 'running';
      CREATE TABLE ${s}.events (
        run_id text NOT NULL REFERENCES ${s}.runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        type text NOT NULL,
        ts double precision NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE ${s}.messages (
        n bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        chat_id text NOT NULL REFERENCES ${s}.chats (id) ON DELETE CASCADE,
        run_id text,
        role text NOT NULL,
        content text NOT NULL,
        metadata text NOT NULL,
        persistence_state text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX messages_chat ON ${s}.messages (chat_id, n);
    `,
  },
];

export interface PostgresStoreOptions extends BaseStoreOptions {
  /** Connection string (default `DATABASE_URL`). A `?schema=` parameter sets the schema. */
  url?: string;
  /** Schema holding the tables (default `switchboard`; created if missing). */
  schema?: string;
  /** Largest number of pooled connections (default 10). */
  maxConnections?: number;
  /** An existing pool to use instead of opening one (it is not closed by `close()`). */
  pool?: pg.Pool;
}

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(name))
    throw new StoreError('invalid', `invalid PostgreSQL schema name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** The PostgreSQL store. Open it with {@link openPostgresStore} (or `openStore('postgres://…')`). */
export class PostgresStore extends BaseStore {
  readonly kind = 'postgres' as const;
  /** The schema holding the tables. */
  readonly schema: string;
  private readonly s: string;
  private readonly pool: pg.Pool;
  private readonly ownPool: boolean;
  private readonly url: string | undefined;
  private listener: pg.Client | undefined;
  private listening: Promise<void> | undefined;

  constructor(options: PostgresStoreOptions = {}) {
    super(options);
    const split = takeSearchParam(options.url ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'schema');
    this.url = split.url;
    this.schema = options.schema ?? split.value ?? 'switchboard';
    this.s = quoteIdent(this.schema);
    this.ownPool = !options.pool;
    this.pool = options.pool ?? new pg.Pool({ connectionString: this.url, max: options.maxConnections ?? 10 });
    // An idle client that loses its connection must not crash the process.
    this.pool.on('error', () => {});
  }

  /** Creates the schema and applies pending migrations (under an advisory lock: safe with many instances starting at once). */
  async migrate(): Promise<void> {
    await this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`switchboard:${this.schema}`]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await c.query(
        `CREATE TABLE IF NOT EXISTS ${this.s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`,
      );
      const current = Number((await c.query(`SELECT COALESCE(MAX(version), 0) AS v FROM ${this.s}.schema_migrations`)).rows[0].v);
      if (current > POSTGRES_SCHEMA_VERSION)
        throw new StoreError('schema', `schema ${this.schema} has version ${current}; this code supports up to ${POSTGRES_SCHEMA_VERSION}`);
      for (const m of MIGRATIONS) {
        if (m.version <= current) continue;
        await c.query(m.sql(this.s));
        await c.query(`INSERT INTO ${this.s}.schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`, [
          m.version,
          m.name,
          this.now(),
        ]);
      }
    });
  }

  /** The applied schema version. */
  async schemaVersion(): Promise<number> {
    const r = await this.pool.query(`SELECT COALESCE(MAX(version), 0) AS v FROM ${this.s}.schema_migrations`);
    return Number(r.rows[0].v);
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  private async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows as Row[];
  }

  private insertChat(c: pg.PoolClient | pg.Pool, chat: Chat): Promise<pg.QueryResult> {
    return c.query(
      `INSERT INTO ${this.s}.chats (id, title, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
      [chat.id, chat.title ?? null, chat.metadata ? JSON.stringify(chat.metadata) : null, chat.createdAt, chat.updatedAt],
    );
  }

  private upsertMessage(c: pg.PoolClient, m: PersistedMessage): Promise<pg.QueryResult> {
    return c.query(
      `INSERT INTO ${this.s}.messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET content = excluded.content, metadata = excluded.metadata,
         persistence_state = excluded.persistence_state, updated_at = excluded.updated_at`,
      [m.id, m.chatId, m.runId ?? null, m.role, m.content, JSON.stringify(m.metadata), m.persistenceState, m.createdAt, m.updatedAt],
    );
  }

  protected async dbInsertChat(chat: Chat): Promise<boolean> {
    return ((await this.insertChat(this.pool, chat)).rowCount ?? 0) > 0;
  }

  protected async dbGetChat(chatId: string): Promise<Chat | undefined> {
    const [r] = await this.rows(`SELECT * FROM ${this.s}.chats WHERE id = $1`, [chatId]);
    return r && chatOf(r);
  }

  protected async dbListChats(limit: number, offset: number): Promise<Chat[]> {
    return (await this.rows(`SELECT * FROM ${this.s}.chats ORDER BY updated_at DESC, id LIMIT $1 OFFSET $2`, [limit, offset])).map(chatOf);
  }

  protected async dbUpdateChat(chat: Chat): Promise<void> {
    await this.pool.query(`UPDATE ${this.s}.chats SET title = $1, metadata = $2, updated_at = $3 WHERE id = $4`, [
      chat.title ?? null,
      chat.metadata ? JSON.stringify(chat.metadata) : null,
      chat.updatedAt,
      chat.id,
    ]);
  }

  protected async dbDeleteChat(chatId: string): Promise<string[] | false> {
    return this.transaction(async (c) => {
      const runs = (await c.query(`SELECT id FROM ${this.s}.runs WHERE chat_id = $1`, [chatId])).rows.map((r: Row) => r.id as string);
      const r = await c.query(`DELETE FROM ${this.s}.chats WHERE id = $1`, [chatId]);
      return (r.rowCount ?? 0) > 0 ? runs : false;
    });
  }

  protected async dbCreateRun(run: Run, chat: Chat, user: PersistedMessage | undefined): Promise<void> {
    await this.transaction(async (c) => {
      await this.insertChat(c, chat);
      await c.query(`UPDATE ${this.s}.chats SET updated_at = $1 WHERE id = $2`, [run.createdAt, run.chatId]);
      const r = await c.query(
        `INSERT INTO ${this.s}.runs (id, chat_id, message_id, user_message_id, status, last_seq, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, -1, $6, $7) ON CONFLICT (id) DO NOTHING`,
        [run.id, run.chatId, run.messageId ?? null, run.userMessageId ?? null, run.status, run.createdAt, run.updatedAt],
      );
      if ((r.rowCount ?? 0) === 0) return;
      if (user) await this.upsertMessage(c, user);
    });
  }

  protected async dbGetRun(runId: string): Promise<Run | undefined> {
    const [r] = await this.rows(`SELECT * FROM ${this.s}.runs WHERE id = $1`, [runId]);
    return r && runOf(r);
  }

  protected async dbListRuns(chatId: string): Promise<Run[]> {
    return (await this.rows(`SELECT * FROM ${this.s}.runs WHERE chat_id = $1 ORDER BY n`, [chatId])).map(runOf);
  }

  protected async dbRunningRuns(): Promise<Run[]> {
    return (await this.rows(`SELECT * FROM ${this.s}.runs WHERE status = 'running' ORDER BY n`)).map(runOf);
  }

  protected async dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]> {
    const rows =
      limit === undefined
        ? await this.rows(`SELECT data FROM ${this.s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq`, [runId, after])
        : await this.rows(`SELECT data FROM ${this.s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [runId, after, limit]);
    return rows.map((r) => JSON.parse(r.data as string) as CanonicalEvent);
  }

  /**
   * One append = ONE statement (one round trip): data-modifying CTEs run atomically in the
   * statement's implicit transaction. The run row moves only if its last_seq is still the expected
   * one; everything else is conditional on that, and the NOTIFY is delivered on commit.
   */
  protected async dbCommit(c: Commit): Promise<void> {
    const m = c.message;
    // A named statement: parsed and planned once per connection.
    const r = await this.pool.query({
      name: `switchboard_append_${this.schema}`,
      text: `WITH moved AS (
         UPDATE ${this.s}.runs
            SET last_seq = $1::integer, status = $2::text, finish_reason = $3::text, updated_at = $4::bigint,
                message_id = COALESCE($5::text, message_id)
          WHERE id = $6::text AND last_seq = $7::integer
         RETURNING id
       ), ins AS (
         INSERT INTO ${this.s}.events (run_id, seq, type, ts, data)
         SELECT $6::text, u.seq, u.type, u.ts, u.data
           FROM unnest($8::integer[], $9::text[], $10::double precision[], $11::text[]) AS u (seq, type, ts, data)
          WHERE EXISTS (SELECT 1 FROM moved)
         RETURNING 1
       ), msg AS (
         INSERT INTO ${this.s}.messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
         SELECT $12::text, $13::text, $6::text, 'assistant', $14::text, $15::text, $16::text, $17::bigint, $18::bigint
          WHERE $12::text IS NOT NULL AND EXISTS (SELECT 1 FROM moved)
         ON CONFLICT (id) DO UPDATE SET content = excluded.content, metadata = excluded.metadata,
           persistence_state = excluded.persistence_state, updated_at = excluded.updated_at
         RETURNING 1
       ), chat AS (
         UPDATE ${this.s}.chats SET updated_at = $19::bigint
          WHERE id = $13::text AND $19::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM moved)
         RETURNING 1
       ), note AS (
         SELECT pg_notify($20::text, $21::text) FROM moved
       )
       SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM ins) AS inserted,
              (SELECT count(*) FROM msg) AS messages, (SELECT count(*) FROM chat) AS chats, (SELECT count(*) FROM note) AS notified`,
      values: [
        c.run.lastSeq,
        c.run.status,
        c.run.finishReason ?? null,
        c.run.updatedAt,
        c.run.messageId ?? null,
        c.runId,
        c.expectedLastSeq,
        c.events.map((e) => e.seq),
        c.events.map((e) => e.type),
        c.events.map((e) => e.ts),
        c.events.map((e) => e.json),
        m?.id ?? null,
        c.chatId,
        m?.content ?? null,
        m ? JSON.stringify(m.metadata) : null,
        m?.persistenceState ?? null,
        m?.createdAt ?? null,
        m?.updatedAt ?? null,
        c.chatUpdatedAt ?? null,
        POSTGRES_CHANNEL,
        JSON.stringify({ s: this.schema, r: c.runId }),
      ],
    });
    if (Number(r.rows[0]?.moved ?? 0) === 0) {
      const exists = await this.pool.query(`SELECT 1 FROM ${this.s}.runs WHERE id = $1`, [c.runId]);
      if (exists.rowCount === 0) throw new StoreError('not_found', `no run ${c.runId}`);
      throw new ConcurrentAppendError();
    }
    this.notify(c.runId);
  }

  protected async dbGetMessage(messageId: string): Promise<PersistedMessage | undefined> {
    const [r] = await this.rows(`SELECT * FROM ${this.s}.messages WHERE id = $1`, [messageId]);
    return r && messageOf(r);
  }

  protected async dbListMessages(chatId: string): Promise<PersistedMessage[]> {
    return (await this.rows(`SELECT * FROM ${this.s}.messages WHERE chat_id = $1 ORDER BY n`, [chatId])).map(messageOf);
  }

  /** Starts LISTEN on first use; tails of appends by other instances wake through it (polling covers a lost connection). */
  private listen(): Promise<void> {
    if (this.listening) return this.listening;
    const client = new pg.Client({ connectionString: this.url });
    this.listener = client;
    client.on('error', () => {
      // Lost: forget it; the next tail reconnects, and polling covers the gap.
      if (this.listener === client) {
        this.listener = undefined;
        this.listening = undefined;
      }
    });
    client.on('notification', (msg) => {
      if (!msg.payload) return;
      try {
        const p = JSON.parse(msg.payload) as { s?: string; r?: string };
        if (p.s === this.schema && typeof p.r === 'string') this.notify(p.r);
      } catch {
        // not ours
      }
    });
    this.listening = client
      .connect()
      .then(() => client.query(`LISTEN ${POSTGRES_CHANNEL}`))
      .then(() => undefined)
      .catch(() => {
        this.listener = undefined;
        this.listening = undefined;
      });
    return this.listening;
  }

  override async *tail(runId: string, options: { after?: number; signal?: AbortSignal } = {}): AsyncGenerator<CanonicalEvent> {
    this.assertOpen();
    await this.listen();
    yield* super.tail(runId, options);
  }

  protected async dbClose(): Promise<void> {
    const l = this.listener;
    this.listener = undefined;
    this.listening = undefined;
    await l?.end().catch(() => {});
    if (this.ownPool) await this.pool.end();
  }
}

/** Opens a PostgreSQL store: connects, creates the schema and applies migrations. */
export async function openPostgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const store = new PostgresStore(options);
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => {});
    if (err instanceof StoreError) throw err;
    throw new StoreError('unavailable', `PostgreSQL: ${(err as Error).message}`, { cause: err });
  }
  return store;
}
