/**
 * The SQLite store's writes: every statement that changes the database, synchronous, on one
 * connection. They run on the store's writer thread (`sqlite-worker.ts`), so that the event loop
 * never waits for SQLite's B-tree inserts, its commits and its WAL checkpoints, or — for `:memory:`
 * and `writer: 'inline'` — on the event loop itself. Also here: the schema, its migrations and the
 * connection's settings, which the reading connection (sqlite.ts) shares.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { ConcurrentAppendError, chatExists, inProgress, StoreError } from './errors.ts';
import type { PersistedMessage } from './projection.ts';
import { chatInsertValues, ownerColumn, type Row, runInsertValues } from './rows.ts';
import type { Chat, Commit, Run, Write } from './store.ts';

/** The schema version this code writes. */
export const SQLITE_SCHEMA_VERSION = 3;

/** The schema's migrations, in order (exported for the upgrade test). */
export const SQLITE_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
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
  {
    // Events were clustered by (run_id, seq): with many live runs, every group commit wrote one
    // scattered page per run (and split it in the middle of the tree). They are now stored in the
    // order appended, so a commit fills the pages at the table's end, and found by run through a
    // small index on the run's integer key (docs/benchmarks.md, "Events in the order appended").
    version: 3,
    name: 'events in append order, indexed by an integer run key',
    sql: `
      ALTER TABLE runs ADD COLUMN n INTEGER;
      UPDATE runs SET n = rowid;
      CREATE UNIQUE INDEX runs_n ON runs (n);
      CREATE TABLE events_by_append (
        n INTEGER PRIMARY KEY,
        run_n INTEGER NOT NULL REFERENCES runs (n) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        ts REAL NOT NULL,
        data TEXT NOT NULL
      );
      INSERT INTO events_by_append (run_n, seq, type, ts, data)
        SELECT r.n, e.seq, e.type, e.ts, e.data FROM events e JOIN runs r ON r.id = e.run_id ORDER BY r.n, e.seq;
      DROP TABLE events;
      ALTER TABLE events_by_append RENAME TO events;
      CREATE UNIQUE INDEX events_run ON events (run_n, seq);
    `,
  },
];

/** The connection settings both connections of a store share (SqliteStoreOptions' subset). */
export interface SqliteConnectionOptions {
  /** How long a writer waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** `PRAGMA synchronous` (default `NORMAL`: with WAL, a process crash loses nothing; `FULL` also survives power loss). */
  synchronous?: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  /** Page cache of the connection in KiB (default 65536: 64 MiB). */
  cacheKiB?: number;
  /**
   * Largest size of the database file in MiB (SQLite's `max_page_count`; default none): a write that
   * would grow it further fails as on a full disk (SQLITE_FULL), and succeeds again once rows are
   * deleted or the limit raised. A quota, and how the tests make a disk full.
   */
  maxSizeMiB?: number;
}

/** `node:sqlite`, once loaded. */
let sqlite: typeof import('node:sqlite') | undefined;

/**
 * Loads `node:sqlite` on the first open rather than by a static import, for two reasons. On a Node
 * without it (20 and older) a static import fails as the store loads, with ERR_UNKNOWN_BUILTIN_MODULE;
 * here the error names the version needed. And Node 22 prints "ExperimentalWarning: SQLite is an
 * experimental feature" when it is loaded: that warning is about the store's choice, not the program's,
 * so it is kept out of the console of a program that uses the store (Node 24 does not print it; every
 * other warning passes through).
 */
function loadSqlite(): typeof import('node:sqlite') {
  if (sqlite) return sqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (String(typeof warning === 'string' ? warning : warning.message).startsWith('SQLite is an experimental feature')) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    sqlite = process.getBuiltinModule?.('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!sqlite)
    throw new StoreError(
      'unavailable',
      `the SQLite store needs Node.js 22.16 or later (it uses node:sqlite); this is Node.js ${process.versions.node}`,
    );
  return sqlite;
}

/** Opens a connection to `path` with the store's settings (WAL, busy timeout, foreign keys, cache). */
export function openSqliteConnection(path: string, options: SqliteConnectionOptions = {}): DatabaseSync {
  const busy = Math.trunc(options.busyTimeoutMs ?? 5000);
  const { DatabaseSync } = loadSqlite();
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true, timeout: busy });
  db.exec(`PRAGMA busy_timeout = ${busy}`);
  if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`);
  // Many live runs append to scattered pages of the events index: keep them in memory (64 MiB,
  // not the default 2 MiB), and checkpoint the WAL every ~16 MiB instead of every 4 MiB.
  db.exec(`PRAGMA cache_size = -${Math.trunc(options.cacheKiB ?? 65536)}`);
  if (path !== ':memory:') db.exec('PRAGMA wal_autocheckpoint = 4000');
  // Every write of a group commit runs in a savepoint, whose journal of the pages it changes is a
  // temporary file by default: written with a system call per page, it was two thirds of a run's
  // creation (docs/benchmarks.md, "Savepoint journals in memory"). In memory it holds at most the
  // pages of one transaction, and is never needed after a crash (the WAL is).
  db.exec('PRAGMA temp_store = MEMORY');
  db.exec('PRAGMA foreign_keys = ON');
  if (options.maxSizeMiB !== undefined) {
    const pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor((options.maxSizeMiB * 1024 * 1024) / pageSize))}`);
  }
  return db;
}

/** Prepares each statement of a connection once: `stmt(sql)` is the prepared statement of that text. */
export function statementCache(db: DatabaseSync): (sql: string) => StatementSync {
  const statements = new Map<string, StatementSync>();
  return (sql) => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };
}

/** What a group commit's writes came to: each write's error (undefined when it is in), and which runs were inserted. */
export interface WriteManyResult {
  errors: (unknown | undefined)[];
  /** Per write: for a run creation, whether this write inserted the run row (`StartWrite.inserted`). */
  inserted: (boolean | undefined)[];
}

/** The writes of a SQLite store, on one connection (see the module comment). */
export class SqliteWriter {
  private readonly db: DatabaseSync;
  /** The database file, for error messages. */
  private readonly path: string;
  /** A prepared statement, prepared once. */
  private readonly stmt: (sql: string) => StatementSync;

  constructor(db: DatabaseSync, path: string) {
    this.db = db;
    this.path = path;
    this.stmt = statementCache(db);
  }

  /** The applied schema version. */
  schemaVersion(): number {
    const r = this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as Row | undefined;
    return Number(r?.v ?? 0);
  }

  /** Creates or upgrades the schema; `schema` when the file is newer than this code. */
  migrate(now: number): void {
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
      for (const m of SQLITE_MIGRATIONS) {
        if (m.version <= current) continue;
        this.db.exec(m.sql);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, now);
      }
    });
  }

  /** Inserts a chat; false when its id is taken. */
  insertChat(chat: Chat): boolean {
    return this.tx(() => this.insertChatRow(chat));
  }

  updateChat(chat: Chat): void {
    this.stmt('UPDATE chats SET title = ?, metadata = ?, owner = ?, updated_at = ? WHERE id = ?').run(
      chat.title ?? null,
      chat.metadata ? JSON.stringify(chat.metadata) : null,
      ownerColumn(chat),
      chat.updatedAt,
      chat.id,
    );
  }

  /** Deletes a chat (its runs, events and messages cascade): the ids of its runs, or false when it did not exist. */
  deleteChat(chatId: string): string[] | false {
    return this.tx(() => {
      const runs = (this.stmt('SELECT id FROM runs WHERE chat_id = ?').all(chatId) as Row[]).map((r) => r.id as string);
      const r = this.stmt('DELETE FROM chats WHERE id = ?').run(chatId);
      return Number(r.changes) > 0 ? runs : false;
    });
  }

  /** Creates a run (and its chat when missing): the chat's running run when `exclusive` finds one. */
  createRun(run: Run, chat: Chat, user: PersistedMessage | undefined, exclusive: boolean): string | undefined {
    return this.tx(() => this.createRunRows(run, chat, user, exclusive).blocker);
  }

  /** One append in a transaction of its own. */
  commit(c: Commit): void {
    this.tx(() => this.commitOne(c));
  }

  /**
   * A group commit: one transaction for every write, chats and runs created included, each in a
   * savepoint of its own so that one failing (a concurrent writer, a deleted run) leaves the others in.
   */
  writeMany(writes: readonly Write[]): WriteManyResult {
    const inserted: (boolean | undefined)[] = [];
    const errors = this.tx(() =>
      writes.map((w, i) => {
        this.db.exec('SAVEPOINT sb_append');
        try {
          inserted[i] = this.writeOne(w);
          this.db.exec('RELEASE sb_append');
          return undefined;
        } catch (err) {
          this.db.exec('ROLLBACK TO sb_append');
          this.db.exec('RELEASE sb_append');
          return err;
        }
      }),
    );
    return { errors, inserted };
  }

  renewLeases(holder: string, runIds: readonly string[], until: number): void {
    this.tx(() => {
      const st = this.stmt("UPDATE runs SET lease_until = ? WHERE id = ? AND lease_holder = ? AND status = 'running'");
      for (const id of runIds) st.run(until, id, holder);
    });
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
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

  private get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.stmt(sql).get(...params) as Row | undefined;
  }

  private insertChatRow(chat: Chat): boolean {
    const r = this.stmt(
      'INSERT INTO chats (id, title, metadata, owner, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    ).run(...chatInsertValues(chat));
    return Number(r.changes) > 0;
  }

  /** One write of a group (inside its savepoint): for a run creation, whether it inserted the run. */
  private writeOne(w: Write): boolean | undefined {
    if (!('kind' in w)) {
      this.commitOne(w);
      return undefined;
    }
    if (w.kind === 'chat') {
      if (!this.insertChatRow(w.chat)) throw chatExists(w.chat.id);
      return undefined;
    }
    const { blocker, inserted } = this.createRunRows(w.run, w.chat, w.user, w.exclusive, w.newChat);
    if (blocker !== undefined && blocker !== w.run.id) throw inProgress(w.run.chatId, blocker);
    return inserted;
  }

  /** A run's creation (inside a transaction): the chat's running run when `exclusive` finds one, and whether the run row is this one. */
  private createRunRows(
    run: Run,
    chat: Chat,
    user: PersistedMessage | undefined,
    exclusive: boolean,
    newChat = false,
  ): { blocker: string | undefined; inserted: boolean } {
    if (newChat) {
      // A new chat has no run to be exclusive with, and is inserted with its updated_at.
      if (!this.insertChatRow(chat)) throw chatExists(chat.id);
    } else {
      if (exclusive) {
        // The transaction holds the write lock: no other start can slip in between the check and the insert.
        const busy = this.get("SELECT id FROM runs WHERE chat_id = ? AND status = 'running' LIMIT 1", run.chatId);
        if (busy) return { blocker: busy.id as string, inserted: false };
      }
      if (!this.insertChatRow(chat)) this.stmt('UPDATE chats SET updated_at = ? WHERE id = ?').run(run.createdAt, run.chatId);
    }
    // `n`, the run's key in the events table, is the next integer: the write lock makes it unique.
    const r = this.stmt(
      `INSERT INTO runs (id, chat_id, message_id, user_message_id, status, last_seq, created_at, updated_at, lease_holder, lease_until, n)
         VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, (SELECT IFNULL(MAX(n), 0) + 1 FROM runs)) ON CONFLICT (id) DO NOTHING`,
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

  /** One append's writes (inside a transaction). */
  private commitOne(c: Commit): void {
    // The run's row moves first, on the condition that nobody appended since it was read: one
    // statement for the check and the update (a savepoint or the transaction undoes it on failure).
    // It answers with the run's key in the events table.
    const moved = this.stmt(
      `UPDATE runs SET last_seq = ?, status = ?, finish_reason = ?, updated_at = ?, message_id = COALESCE(?, message_id)
         WHERE id = ? AND last_seq = ? RETURNING n`,
    ).get(c.run.lastSeq, c.run.status, c.run.finishReason ?? null, c.run.updatedAt, c.run.messageId ?? null, c.runId, c.expectedLastSeq);
    if (!moved) {
      if (!this.get('SELECT 1 FROM runs WHERE id = ?', c.runId)) throw new StoreError('not_found', `no run ${c.runId}`);
      throw new ConcurrentAppendError();
    }
    const insert = this.stmt('INSERT INTO events (run_n, seq, type, ts, data) VALUES (?, ?, ?, ?, ?)');
    for (const e of c.events) insert.run(moved.n as number, e.seq, e.type, e.ts, e.json);
    if (c.message) this.upsertMessage(c.message);
    if (c.chatUpdatedAt !== undefined) this.stmt('UPDATE chats SET updated_at = ? WHERE id = ?').run(c.chatUpdatedAt, c.chatId);
  }
}
