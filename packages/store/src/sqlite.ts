/**
 * The SQLite backend (the default): `node:sqlite` (built into Node 24, no native addon), one file,
 * WAL journal, a busy timeout, foreign keys with cascading deletes. Every append is one
 * `BEGIN IMMEDIATE … COMMIT` transaction holding the events, the run row and the message.
 *
 * Tails of runs appended by this process wake at once; appends by another process sharing the file
 * are seen by polling (`pollIntervalMs`).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { CanonicalEvent } from '@switchboard/core';
import type { PersistedMessage } from './projection.ts';
import { chatOf, messageOf, ownerColumn, type Row, runInsertValues, runOf } from './rows.ts';
import {
  BaseStore,
  type BaseStoreOptions,
  type Chat,
  type Commit,
  ConcurrentAppendError,
  chatExists,
  inProgress,
  type Run,
  StoreError,
  type Write,
} from './store.ts';

/** The schema version this code writes. */
export const SQLITE_SCHEMA_VERSION = 2;

const MIGRATIONS: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'chats, runs, events, messages',
    sql: `
      CREATE TABLE chats (
        id TEXT PRIMARY KEY,
        title TEXT,
        metadata TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX chats_updated ON chats (updated_at DESC, id);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        message_id TEXT,
        user_message_id TEXT,
        status TEXT NOT NULL,
        finish_reason TEXT,
        last_seq INTEGER NOT NULL DEFAULT -1,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX runs_chat ON runs (chat_id, created_at);
      CREATE INDEX runs_status ON runs (status) WHERE status = 'running';
      CREATE TABLE events (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        ts REAL NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE messages (
        n INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        run_id TEXT,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        metadata TEXT NOT NULL,
        persistence_state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX messages_chat ON messages (chat_id, n);
    `,
  },
  {
    version: 2,
    name: 'run leases, chats indexed by owner',
    sql: `
      ALTER TABLE runs ADD COLUMN lease_holder TEXT;
      ALTER TABLE runs ADD COLUMN lease_until INTEGER;
      CREATE INDEX runs_chat_running ON runs (chat_id) WHERE status = 'running';
      ALTER TABLE chats ADD COLUMN owner TEXT;
      UPDATE chats SET owner = json_extract(metadata, '$.owner')
       WHERE metadata IS NOT NULL AND json_valid(metadata) AND json_type(metadata, '$.owner') = 'text';
      CREATE INDEX chats_owner ON chats (owner, updated_at DESC, id) WHERE owner IS NOT NULL;
    `,
  },
];

export interface SqliteStoreOptions extends BaseStoreOptions {
  /** Database file (`:memory:` for a private in-memory database). Default `${SWITCHBOARD_DATA_DIR ?? './data'}/switchboard.db`. */
  path?: string;
  /** How long a writer waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** `PRAGMA synchronous` (default `NORMAL`: with WAL, a process crash loses nothing; `FULL` also survives power loss). */
  synchronous?: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  /** Page cache of the connection in KiB (default 65536: 64 MiB). */
  cacheKiB?: number;
}

/** The default database file. */
export function defaultSqlitePath(env: Record<string, string | undefined> = process.env): string {
  return `${env.SWITCHBOARD_DATA_DIR ?? './data'}/switchboard.db`;
}

/**
 * Creates the database's directory owner-only (0700) when missing, and the file owner-only (0600)
 * before SQLite opens it, so no other user of the machine can read the conversations. An existing
 * directory is left as it is (it may be shared on purpose); an existing file is made 0600.
 */
function ownerOnly(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(path)) {
    // Created empty with the mode, so it is never world-readable, even for a moment.
    closeSync(openSync(path, 'a', 0o600));
  }
}

/** The SQLite store. Open it with {@link openSqliteStore} (or `openStore('sqlite:…')`). */
export class SqliteStore extends BaseStore {
  readonly kind = 'sqlite' as const;
  protected override readonly batchesStarts = true;
  /** The database file. */
  readonly path: string;
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(options: SqliteStoreOptions = {}) {
    super(options);
    this.path = options.path ?? defaultSqlitePath();
    if (this.path !== ':memory:') ownerOnly(this.path);
    this.db = new DatabaseSync(this.path, { enableForeignKeyConstraints: true, timeout: options.busyTimeoutMs ?? 5000 });
    this.db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
    if (this.path !== ':memory:') this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`);
    // Many live runs append to scattered pages of the events index: keep them in memory (64 MiB,
    // not the default 2 MiB), and checkpoint the WAL every ~16 MiB instead of every 4 MiB.
    this.db.exec(`PRAGMA cache_size = -${Math.trunc(options.cacheKiB ?? 65536)}`);
    if (this.path !== ':memory:') this.db.exec('PRAGMA wal_autocheckpoint = 4000');
    this.db.exec('PRAGMA foreign_keys = ON');
    this.migrate();
    if (this.path !== ':memory:')
      for (const f of [this.path, `${this.path}-wal`, `${this.path}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  }

  /** The applied schema version. */
  schemaVersion(): number {
    const r = this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as Row | undefined;
    return Number(r?.v ?? 0);
  }

  private migrate(): void {
    this.tx(() => {
      this.db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
      );
      const current = this.schemaVersion();
      if (current > SQLITE_SCHEMA_VERSION)
        throw new StoreError(
          'schema',
          `database ${this.path} has schema version ${current}; this code supports up to ${SQLITE_SCHEMA_VERSION}`,
        );
      for (const m of MIGRATIONS) {
        if (m.version <= current) continue;
        this.db.exec(m.sql);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, this.now());
      }
    });
  }

  /** Runs `fn` in a write transaction (BEGIN IMMEDIATE takes the write lock up front: no upgrade deadlocks). */
  private tx<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /** A prepared statement, prepared once. */
  private stmt(sql: string): StatementSync {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  private all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.stmt(sql).all(...params) as Row[];
  }

  private get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.stmt(sql).get(...params) as Row | undefined;
  }

  private insertChat(chat: Chat): boolean {
    const r = this.stmt(
      'INSERT INTO chats (id, title, metadata, owner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    ).run(
      chat.id,
      chat.title ?? null,
      chat.metadata ? JSON.stringify(chat.metadata) : null,
      ownerColumn(chat),
      chat.createdAt,
      chat.updatedAt,
    );
    return Number(r.changes) > 0;
  }

  protected async dbInsertChat(chat: Chat): Promise<boolean> {
    return this.tx(() => this.insertChat(chat));
  }

  protected async dbGetChat(chatId: string): Promise<Chat | undefined> {
    const r = this.get('SELECT * FROM chats WHERE id = ?', chatId);
    return r && chatOf(r);
  }

  protected async dbListChats(limit: number, offset: number, owner: string | undefined): Promise<Chat[]> {
    if (owner !== undefined)
      return this.all('SELECT * FROM chats WHERE owner = ? ORDER BY updated_at DESC, id LIMIT ? OFFSET ?', owner, limit, offset).map(
        chatOf,
      );
    return this.all('SELECT * FROM chats ORDER BY updated_at DESC, id LIMIT ? OFFSET ?', limit, offset).map(chatOf);
  }

  protected async dbUpdateChat(chat: Chat): Promise<void> {
    this.stmt('UPDATE chats SET title = ?, metadata = ?, owner = ?, updated_at = ? WHERE id = ?').run(
      chat.title ?? null,
      chat.metadata ? JSON.stringify(chat.metadata) : null,
      ownerColumn(chat),
      chat.updatedAt,
      chat.id,
    );
  }

  protected async dbDeleteChat(chatId: string): Promise<string[] | false> {
    return this.tx(() => {
      const runs = this.all('SELECT id FROM runs WHERE chat_id = ?', chatId).map((r) => r.id as string);
      const r = this.stmt('DELETE FROM chats WHERE id = ?').run(chatId);
      return Number(r.changes) > 0 ? runs : false;
    });
  }

  protected async dbCreateRun(run: Run, chat: Chat, user: PersistedMessage | undefined, exclusive: boolean): Promise<string | undefined> {
    return this.tx(() => this.createRun(run, chat, user, exclusive).blocker);
  }

  /** A run's creation (inside a transaction): the chat's running run when `exclusive` finds one, and whether the run row is this one. */
  private createRun(
    run: Run,
    chat: Chat,
    user: PersistedMessage | undefined,
    exclusive: boolean,
    newChat = false,
  ): { blocker: string | undefined; inserted: boolean } {
    if (newChat) {
      // A new chat has no run to be exclusive with, and is inserted with its updated_at.
      if (!this.insertChat(chat)) throw chatExists(chat.id);
    } else {
      if (exclusive) {
        // The transaction holds the write lock: no other start can slip in between the check and the insert.
        const busy = this.get("SELECT id FROM runs WHERE chat_id = ? AND status = 'running' LIMIT 1", run.chatId);
        if (busy) return { blocker: busy.id as string, inserted: false };
      }
      if (!this.insertChat(chat)) this.stmt('UPDATE chats SET updated_at = ? WHERE id = ?').run(run.createdAt, run.chatId);
    }
    const r = this.stmt(
      `INSERT INTO runs (id, chat_id, message_id, user_message_id, status, last_seq, created_at, updated_at, lease_holder, lease_until)
         VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    ).run(...runInsertValues(run));
    if (Number(r.changes) === 0) return { blocker: undefined, inserted: false }; // started concurrently: keep the first
    if (user) this.upsertMessage(user);
    return { blocker: undefined, inserted: true };
  }

  private upsertMessage(m: PersistedMessage): void {
    this.stmt(
      `INSERT INTO messages (id, chat_id, run_id, role, content, metadata, persistence_state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, content = excluded.content, metadata = excluded.metadata,
           persistence_state = excluded.persistence_state, updated_at = excluded.updated_at`,
    ).run(m.id, m.chatId, m.runId ?? null, m.role, m.content, JSON.stringify(m.metadata), m.persistenceState, m.createdAt, m.updatedAt);
  }

  protected async dbGetRun(runId: string): Promise<Run | undefined> {
    const r = this.get('SELECT * FROM runs WHERE id = ?', runId);
    return r && runOf(r);
  }

  protected async dbListRuns(chatId: string): Promise<Run[]> {
    return this.all('SELECT * FROM runs WHERE chat_id = ? ORDER BY created_at, rowid', chatId).map(runOf);
  }

  protected async dbRunningRuns(): Promise<Run[]> {
    return this.all("SELECT * FROM runs WHERE status = 'running' ORDER BY created_at").map(runOf);
  }

  protected async dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]> {
    const rows =
      limit === undefined
        ? this.all('SELECT data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq', runId, after)
        : this.all('SELECT data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?', runId, after, limit);
    return rows.map((r) => JSON.parse(r.data as string) as CanonicalEvent);
  }

  protected async dbCommit(c: Commit): Promise<void> {
    this.tx(() => this.commitOne(c));
  }

  /**
   * A group commit: one transaction for every append, each in a savepoint of its own so that one
   * failing (a concurrent writer, a deleted run) leaves the others in.
   */
  protected override async dbCommitMany(commits: readonly Commit[]): Promise<(unknown | undefined)[]> {
    return this.dbWriteMany(commits);
  }

  /** The group commit's writes, chats and runs created included, in one transaction (a savepoint each). */
  protected override async dbWriteMany(writes: readonly Write[]): Promise<(unknown | undefined)[]> {
    return this.tx(() =>
      writes.map((w) => {
        this.db.exec('SAVEPOINT sb_append');
        try {
          this.writeOne(w);
          this.db.exec('RELEASE sb_append');
          return undefined;
        } catch (err) {
          this.db.exec('ROLLBACK TO sb_append');
          this.db.exec('RELEASE sb_append');
          return err;
        }
      }),
    );
  }

  private writeOne(w: Write): void {
    if (!('kind' in w)) return this.commitOne(w);
    if (w.kind === 'chat') {
      if (!this.insertChat(w.chat)) throw chatExists(w.chat.id);
      return;
    }
    const { blocker, inserted } = this.createRun(w.run, w.chat, w.user, w.exclusive, w.newChat);
    if (blocker !== undefined && blocker !== w.run.id) throw inProgress(w.run.chatId, blocker);
    w.inserted = inserted;
  }

  protected async dbRenewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    this.tx(() => {
      const st = this.stmt("UPDATE runs SET lease_until = ? WHERE id = ? AND lease_holder = ? AND status = 'running'");
      for (const id of runIds) st.run(until, id, holder);
    });
  }

  /** One append's writes (inside a transaction). */
  private commitOne(c: Commit): void {
    // The run's row moves first, on the condition that nobody appended since it was read: one
    // statement for the check and the update (a savepoint or the transaction undoes it on failure).
    const moved = this.stmt(
      `UPDATE runs SET last_seq = ?, status = ?, finish_reason = ?, updated_at = ?, message_id = COALESCE(?, message_id)
         WHERE id = ? AND last_seq = ?`,
    ).run(c.run.lastSeq, c.run.status, c.run.finishReason ?? null, c.run.updatedAt, c.run.messageId ?? null, c.runId, c.expectedLastSeq);
    if (Number(moved.changes) === 0) {
      if (!this.get('SELECT 1 FROM runs WHERE id = ?', c.runId)) throw new StoreError('not_found', `no run ${c.runId}`);
      throw new ConcurrentAppendError();
    }
    const insert = this.stmt('INSERT INTO events (run_id, seq, type, ts, data) VALUES (?, ?, ?, ?, ?)');
    for (const e of c.events) insert.run(c.runId, e.seq, e.type, e.ts, e.json);
    if (c.message) this.upsertMessage(c.message);
    if (c.chatUpdatedAt !== undefined) this.stmt('UPDATE chats SET updated_at = ? WHERE id = ?').run(c.chatUpdatedAt, c.chatId);
  }

  protected async dbGetMessage(messageId: string): Promise<PersistedMessage | undefined> {
    const r = this.get('SELECT * FROM messages WHERE id = ?', messageId);
    return r && messageOf(r);
  }

  protected async dbListMessages(chatId: string): Promise<PersistedMessage[]> {
    return this.all('SELECT * FROM messages WHERE chat_id = ? ORDER BY n', chatId).map(messageOf);
  }

  protected async dbClose(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}

/** Opens (creating and migrating as needed) a SQLite store. */
export async function openSqliteStore(options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  return new SqliteStore(options);
}
