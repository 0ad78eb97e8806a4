/**
 * The PostgreSQL backend (`pg`): the durable log for more than one machine. Tables live in their
 * own schema (default `switchboard`); every append is one transaction holding the events, the run
 * row and the message, and sends a `NOTIFY` (delivered on commit) so the tails of every instance
 * wake at once. Events are stored as `text`, verbatim, so a resumed stream is byte-identical.
 */
import type { CanonicalEvent } from '@switchboard/core';
import pg from 'pg';
import { openBackend } from './errors.ts';
import { POSTGRES_GROUP } from './group-commit.ts';
import { type AppendTarget, CHANNEL, commitMany, commitOne } from './postgres-append.ts';
import { startMany, startRunsFunction } from './postgres-start.ts';
import type { PersistedMessage } from './projection.ts';
import { chatInsertValues, chatOf, messageOf, ownerColumn, type Row, runInsertValues, runOf, takeSearchParam } from './rows.ts';
import {
  BaseStore,
  type BaseStoreOptions,
  type Chat,
  type Commit,
  chatExists,
  inProgress,
  type Run,
  type StartWrite,
  StoreError,
  type Write,
  writeAndRead,
} from './store.ts';

/** The schema version this code writes. */
export const POSTGRES_SCHEMA_VERSION = 4;

/**
 * The NOTIFY channel appends are announced on (see postgres-append.ts). A constant of this module,
 * not a re-export, so that the store's declarations never load postgres-append's, which use `pg`'s types.
 */
export const POSTGRES_CHANNEL: 'switchboard_events' = CHANNEL;

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
  {
    version: 2,
    name: 'run leases, chats indexed by owner',
    sql: (s) => `
      ALTER TABLE ${s}.runs ADD COLUMN lease_holder text, ADD COLUMN lease_until bigint;
      CREATE INDEX runs_chat_running ON ${s}.runs (chat_id) WHERE status = 'running';
      ALTER TABLE ${s}.chats ADD COLUMN owner text;
      UPDATE ${s}.chats SET owner = metadata::jsonb->>'owner'
       WHERE metadata IS NOT NULL AND jsonb_typeof(metadata::jsonb->'owner') = 'string';
      CREATE INDEX chats_owner ON ${s}.chats (owner, updated_at DESC, id) WHERE owner IS NOT NULL;
    `,
  },
  { version: 3, name: 'run starts in the group commit (start_runs)', sql: startRunsFunction },
  {
    // The events' foreign key ran a lookup and a row lock of the run for every event inserted, a
    // quarter of the server's CPU under load (docs/benchmarks.md). An append inserts events only for
    // the run rows its statement moved (and so holds locked), and deleting a chat deletes its runs'
    // events itself (dbDeleteChat): the key held nothing the writes do not.
    version: 4,
    name: 'events without a foreign key (appends and deletes keep them consistent)',
    sql: (s) => `
      DO $$
      DECLARE c text;
      BEGIN
        FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = '${s}.events'::regclass AND contype = 'f' LOOP
          EXECUTE format('ALTER TABLE ${s}.events DROP CONSTRAINT %I', c);
        END LOOP;
      END $$;
    `,
  },
];

export interface PostgresStoreOptions extends BaseStoreOptions {
  /** Connection string (default `DATABASE_URL`). A `?schema=` parameter sets the schema. */
  url?: string;
  /** Schema holding the tables (default `switchboard`; created if missing). */
  schema?: string;
  /** Largest number of pooled connections for reads and starts (default 10; appends use 2 more of their own). */
  maxConnections?: number;
  /** An existing pool to use instead of opening one, a `new pg.Pool(…)` (it is not closed by `close()`). */
  pool?: PostgresPool;
}

/**
 * What the store needs of a `pg.Pool`. Declared here rather than taken from `@types/pg` so that the
 * store's declarations load without `pg`'s types: `pg` is an optional dependency, installed only by
 * those who use PostgreSQL.
 */
export interface PostgresPool {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

function quoteIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(name))
    throw new StoreError('invalid', `invalid PostgreSQL schema name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/** The PostgreSQL store. Open it with {@link openPostgresStore} (or `openStore('postgres://…')`). */
export class PostgresStore extends BaseStore {
  readonly kind = 'postgres' as const;
  protected override readonly batchesStarts = true;
  /** The schema holding the tables. */
  readonly schema: string;
  private readonly s: string;
  private readonly pool: pg.Pool;
  private readonly writer: pg.Pool;
  private readonly ownPool: boolean;
  private readonly url: string | undefined;
  private listener: pg.Client | undefined;
  private listening: Promise<void> | undefined;
  /** What the appends in `postgres-append.ts` write through. */
  private readonly db: AppendTarget;

  constructor(options: PostgresStoreOptions = {}) {
    super(options, POSTGRES_GROUP);
    const split = takeSearchParam(options.url ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'schema');
    this.url = split.url;
    this.schema = options.schema ?? split.value ?? 'switchboard';
    this.s = quoteIdent(this.schema);
    this.ownPool = !options.pool;
    const given = options.pool as pg.Pool | undefined;
    this.pool = given ?? new pg.Pool({ connectionString: this.url, max: options.maxConnections ?? 10 });
    // Appends get connections of their own, one per group in flight: a burst of requests (each a
    // few queries) must not queue the group commits that every live stream is waiting for.
    this.writer = given ?? new pg.Pool({ connectionString: this.url, max: POSTGRES_GROUP.inFlight });
    this.writer.on('error', () => {});
    // An idle client that loses its connection must not crash the process.
    this.pool.on('error', () => {});
    this.db = { writer: this.writer, pool: this.pool, s: this.s, schema: this.schema, writerId: crypto.randomUUID() };
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
      `INSERT INTO ${this.s}.chats (id, title, metadata, owner, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
      chatInsertValues(chat),
    );
  }

  private upsertMessage(c: pg.PoolClient, m: PersistedMessage): Promise<pg.QueryResult> {
    return c.query(
      `INSERT INTO ${this.s}.messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, content = excluded.content, metadata = excluded.metadata,
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

  protected async dbListChats(limit: number, offset: number, owner: string | undefined): Promise<Chat[]> {
    if (owner !== undefined)
      return (
        await this.rows(`SELECT * FROM ${this.s}.chats WHERE owner = $1 ORDER BY updated_at DESC, id LIMIT $2 OFFSET $3`, [
          owner,
          limit,
          offset,
        ])
      ).map(chatOf);
    return (await this.rows(`SELECT * FROM ${this.s}.chats ORDER BY updated_at DESC, id LIMIT $1 OFFSET $2`, [limit, offset])).map(chatOf);
  }

  protected async dbUpdateChat(chat: Chat): Promise<void> {
    await this.pool.query(`UPDATE ${this.s}.chats SET title = $1, metadata = $2, owner = $3, updated_at = $4 WHERE id = $5`, [
      chat.title ?? null,
      chat.metadata ? JSON.stringify(chat.metadata) : null,
      ownerColumn(chat),
      chat.updatedAt,
      chat.id,
    ]);
  }

  protected async dbDeleteChat(chatId: string): Promise<string[] | false> {
    return this.transaction(async (c) => {
      // The chat's row first (a start in the chat locks it too), then its runs' rows (an append holds
      // its run's until it commits; one that comes after finds the run gone and writes nothing):
      // no event of these runs can be inserted between the two deletes.
      await c.query(`SELECT 1 FROM ${this.s}.chats WHERE id = $1 FOR UPDATE`, [chatId]);
      const runs = (await c.query(`SELECT id FROM ${this.s}.runs WHERE chat_id = $1 FOR UPDATE`, [chatId])).rows.map(
        (r: Row) => r.id as string,
      );
      if (runs.length > 0) await c.query(`DELETE FROM ${this.s}.events WHERE run_id = ANY($1::text[])`, [runs]);
      const r = await c.query(`DELETE FROM ${this.s}.chats WHERE id = $1`, [chatId]);
      return (r.rowCount ?? 0) > 0 ? runs : false;
    });
  }

  protected async dbCreateRun(run: Run, chat: Chat, user: PersistedMessage | undefined, exclusive: boolean): Promise<string | undefined> {
    return this.transaction(async (c) => {
      await this.insertChat(c, chat);
      // The UPDATE locks the chat's row until commit: starts in one chat are serialised, so the
      // exclusive check below cannot race another start (it sees that one's run once it commits).
      await c.query(`UPDATE ${this.s}.chats SET updated_at = $1 WHERE id = $2`, [run.createdAt, run.chatId]);
      if (exclusive) {
        const busy = await c.query(`SELECT id FROM ${this.s}.runs WHERE chat_id = $1 AND status = 'running' AND id <> $2 LIMIT 1`, [
          run.chatId,
          run.id,
        ]);
        if (busy.rows.length > 0) {
          await c.query('ROLLBACK');
          await c.query('BEGIN');
          return busy.rows[0].id as string;
        }
      }
      const r = await c.query(
        `INSERT INTO ${this.s}.runs (id, chat_id, message_id, user_message_id, status, last_seq, created_at, updated_at, lease_holder, lease_until)
         VALUES ($1, $2, $3, $4, $5, -1, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
        runInsertValues(run),
      );
      if ((r.rowCount ?? 0) === 0) return undefined;
      if (user) await this.upsertMessage(c, user);
      return undefined;
    });
  }

  protected async dbRenewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.s}.runs SET lease_until = $1 WHERE id = ANY($2::text[]) AND lease_holder = $3 AND status = 'running'`,
      [until, [...runIds], holder],
    );
  }

  protected async dbGetRun(runId: string): Promise<Run | undefined> {
    const [r] = await this.rows(`SELECT * FROM ${this.s}.runs WHERE id = $1`, [runId]);
    return r && runOf(r);
  }

  protected async dbListRuns(chatId: string): Promise<Run[]> {
    return (await this.rows(`SELECT * FROM ${this.s}.runs WHERE chat_id = $1 ORDER BY n`, [chatId])).map(runOf);
  }

  protected async dbRunningRuns(leaseEndedBefore?: number): Promise<Run[]> {
    if (leaseEndedBefore !== undefined)
      return (
        await this.rows(`SELECT * FROM ${this.s}.runs WHERE status = 'running' AND lease_until < $1 ORDER BY n`, [leaseEndedBefore])
      ).map(runOf);
    return (await this.rows(`SELECT * FROM ${this.s}.runs WHERE status = 'running' ORDER BY n`)).map(runOf);
  }

  protected async dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]> {
    const rows =
      limit === undefined
        ? await this.rows(`SELECT data FROM ${this.s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq`, [runId, after])
        : await this.rows(`SELECT data FROM ${this.s}.events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [runId, after, limit]);
    return rows.map((r) => JSON.parse(r.data as string) as CanonicalEvent);
  }

  /** One append (see {@link commitOne}). */
  protected async dbCommit(c: Commit): Promise<void> {
    return commitOne(this.db, c);
  }

  /** A group commit (see {@link commitMany}); each append on its own when the group statement fails. */
  protected override async dbCommitMany(commits: readonly Commit[]): Promise<(unknown | undefined)[]> {
    return (await commitMany(this.db, commits)) ?? super.dbCommitMany(commits);
  }

  /** A group: its run starts in one call of `start_runs` (postgres-start.ts), its appends in one statement, side by side. */
  protected override async dbWriteMany(writes: readonly Write[]): Promise<(unknown | undefined)[]> {
    const starts: StartWrite[] = [];
    const appends: Commit[] = [];
    for (const w of writes)
      if ('kind' in w) starts.push(w);
      else appends.push(w);
    const [started, appended] = await Promise.all([
      starts.length > 0 ? this.startAll(starts) : [],
      appends.length > 0 ? this.dbCommitMany(appends) : [],
    ]);
    let i = 0;
    let j = 0;
    return writes.map((w) => ('kind' in w ? started[i++] : appended[j++]));
  }

  /** The starts of a group: one call, or one by one when the call fails as a whole (a text PostgreSQL's JSON cannot hold…). */
  private async startAll(starts: readonly StartWrite[]): Promise<(unknown | undefined)[]> {
    try {
      return await startMany(this.pool, this.s, starts);
    } catch {
      return Promise.all(
        starts.map(async (w) => {
          try {
            if (w.kind === 'chat' || w.newChat) {
              if (!(await this.dbInsertChat(w.chat))) return chatExists(w.chat.id);
              if (w.kind === 'chat') return undefined;
            }
            const existed = (await this.dbGetRun(w.run.id)) !== undefined;
            const blocker = await this.dbCreateRun(w.run, w.chat, w.user, w.exclusive);
            if (blocker !== undefined && blocker !== w.run.id) return inProgress(w.run.chatId, blocker);
            w.inserted = !existed;
            return undefined;
          } catch (err) {
            return err;
          }
        }),
      );
    }
  }

  protected async dbGetMessage(messageId: string): Promise<PersistedMessage | undefined> {
    const [r] = await this.rows(`SELECT * FROM ${this.s}.messages WHERE id = $1`, [messageId]);
    return r && messageOf(r);
  }

  protected async dbGetMessages(messageIds: readonly string[]): Promise<PersistedMessage[]> {
    if (messageIds.length === 0) return [];
    return (await this.rows(`SELECT * FROM ${this.s}.messages WHERE id = ANY($1::text[])`, [messageIds])).map(messageOf);
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
        const p = JSON.parse(msg.payload) as { s?: string; r?: string | string[]; w?: string };
        // Our own appends woke our tails when they committed: a wake-up now would only make each
        // of them read the log again for nothing (two queries per tail per commit).
        if (p.s !== this.schema || p.w === this.db.writerId) return;
        if (typeof p.r === 'string') this.notify(p.r);
        else if (Array.isArray(p.r)) for (const id of p.r) if (typeof id === 'string') this.notify(id);
      } catch {
        // not ours
      }
    });
    this.listening = client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(() => undefined)
      .catch(() => {
        this.listener = undefined;
        this.listening = undefined;
      });
    return this.listening;
  }

  override async *tailPages(runId: string, options: { after?: number; signal?: AbortSignal } = {}): AsyncGenerator<CanonicalEvent[]> {
    this.assertOpen();
    await this.listen();
    yield* super.tailPages(runId, options);
  }

  /** The shared write and read (`writeAndRead`). */
  healthCheck(): Promise<void> {
    return writeAndRead(this);
  }

  protected async dbClose(): Promise<void> {
    const l = this.listener;
    this.listener = undefined;
    this.listening = undefined;
    await l?.end().catch(() => {});
    if (this.ownPool) await Promise.all([this.pool.end(), this.writer.end()]);
  }
}

/** Opens a PostgreSQL store: connects, creates the schema and applies migrations. */
export async function openPostgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  return openBackend(new PostgresStore(options), (store) => store.migrate(), 'PostgreSQL');
}
