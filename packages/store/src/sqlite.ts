/**
 * The SQLite backend (the default): `node:sqlite` (built into Node 24, no native addon), one file,
 * WAL journal, a busy timeout, foreign keys with cascading deletes. Appends go through the group
 * commit: one `BEGIN IMMEDIATE … COMMIT` transaction holds the events, run rows and messages of
 * every append queued in a turn.
 *
 * Two connections to the file: this one reads, on the event loop; the writes run on a thread of
 * their own with a connection of their own (sqlite-writer.ts, sqlite-writer-thread.ts), so the
 * event loop never waits for SQLite's inserts, commits or checkpoints. A `:memory:` database (or
 * `writer: 'inline'`) reads and writes on one connection, on the event loop.
 *
 * Tails of runs appended by this process wake at once; appends by another process sharing the file
 * are seen by polling (`pollIntervalMs`).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { CanonicalEvent } from '@switchboard/core';
import { StoreError } from './errors.ts';
import { SYNC_GROUP, THREAD_GROUP } from './group-commit.ts';
import type { PersistedMessage } from './projection.ts';
import { chatOf, messageOf, type Row, runOf } from './rows.ts';
import { openSqliteConnection, type SqliteConnectionOptions, SqliteWriter, statementCache } from './sqlite-writer.ts';
import { inlineWriter, type WriterPort, WriterThread } from './sqlite-writer-thread.ts';
import { BaseStore, type BaseStoreOptions, type Chat, type Commit, type Run, type Write, writeAndRead } from './store.ts';

export { SQLITE_SCHEMA_VERSION } from './sqlite-writer.ts';

export interface SqliteStoreOptions extends BaseStoreOptions, SqliteConnectionOptions {
  /** Database file (`:memory:` for a private in-memory database). Default `${SWITCHBOARD_DATA_DIR ?? './data'}/switchboard.db`. */
  path?: string;
  /**
   * Where the writes run: `thread` (the default for a file) on a worker thread with a connection of
   * its own, or `inline` on the event loop (always for `:memory:`; for a bundle that cannot ship
   * the worker's module, `sqlite-worker.js`, next to this one).
   */
  writer?: 'thread' | 'inline';
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

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** The SQLite store. Open it with {@link openSqliteStore} (or `openStore('sqlite:…')`). */
export class SqliteStore extends BaseStore {
  readonly kind = 'sqlite' as const;
  protected override readonly batchesStarts = true;
  /** The database file. */
  readonly path: string;
  /** The reading connection (and, inline, the writing one). */
  private readonly db: DatabaseSync;
  /** A prepared statement of the reading connection, prepared once. */
  private readonly stmt: (sql: string) => StatementSync;
  /** Where the writes run (see the module comment). */
  private readonly writer: WriterPort;
  /** The database file opened (undefined for `:memory:`), to tell it from one deleted or replaced since. */
  private readonly file: { dev: number; ino: number } | undefined;

  constructor(options: SqliteStoreOptions = {}) {
    const path = options.path ?? defaultSqlitePath();
    const threaded = path !== ':memory:' && options.writer !== 'inline';
    super(options, threaded ? THREAD_GROUP : SYNC_GROUP);
    this.path = path;
    if (this.path !== ':memory:') ownerOnly(this.path);
    this.db = openSqliteConnection(this.path, options);
    this.stmt = statementCache(this.db);
    // The schema is made here, before the writer thread opens its connection.
    const inline = new SqliteWriter(this.db, this.path);
    inline.migrate(this.now());
    this.writer = threaded ? new WriterThread(this.path, connectionOptions(options)) : inlineWriter(inline);
    if (this.path !== ':memory:') {
      for (const f of [this.path, `${this.path}-wal`, `${this.path}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
      const { dev, ino } = statSync(this.path);
      this.file = { dev, ino };
    }
  }

  /**
   * The shared write and read, after checking the file: SQLite keeps writing to a file deleted or
   * replaced under it (the open descriptor), and a file overwritten in place may still be read from
   * the page cache, so neither would fail the write or the read.
   */
  async healthCheck(): Promise<void> {
    if (this.file) {
      const at = statSync(this.path, { throwIfNoEntry: false });
      if (!at) throw new StoreError('unavailable', `the SQLite file ${this.path} was deleted`);
      if (at.dev !== this.file.dev || at.ino !== this.file.ino)
        throw new StoreError('unavailable', `the SQLite file ${this.path} was replaced by another file`);
      const header = Buffer.alloc(SQLITE_HEADER.length);
      const fd = openSync(this.path, 'r');
      try {
        readSync(fd, header, 0, header.length, 0);
      } finally {
        closeSync(fd);
      }
      if (!header.equals(SQLITE_HEADER)) throw new StoreError('unavailable', `the SQLite file ${this.path} is corrupt (no SQLite header)`);
    }
    await writeAndRead(this);
  }

  /** The applied schema version. */
  schemaVersion(): number {
    return Number(this.get('SELECT MAX(version) AS v FROM schema_migrations')?.v ?? 0);
  }

  private all(sql: string, ...params: SQLInputValue[]): Row[] {
    return this.stmt(sql).all(...params) as Row[];
  }

  private get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    return this.stmt(sql).get(...params) as Row | undefined;
  }

  protected async dbInsertChat(chat: Chat): Promise<boolean> {
    return this.writer.call('insertChat', chat);
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
    return this.writer.call('updateChat', chat);
  }

  protected async dbDeleteChat(chatId: string): Promise<string[] | false> {
    return this.writer.call('deleteChat', chatId);
  }

  protected async dbCreateRun(run: Run, chat: Chat, user: PersistedMessage | undefined, exclusive: boolean): Promise<string | undefined> {
    return this.writer.call('createRun', run, chat, user, exclusive);
  }

  protected async dbGetRun(runId: string): Promise<Run | undefined> {
    const r = this.get('SELECT * FROM runs WHERE id = ?', runId);
    return r && runOf(r);
  }

  protected async dbListRuns(chatId: string): Promise<Run[]> {
    return this.all('SELECT * FROM runs WHERE chat_id = ? ORDER BY created_at, rowid', chatId).map(runOf);
  }

  protected async dbRunningRuns(leaseEndedBefore?: number): Promise<Run[]> {
    if (leaseEndedBefore !== undefined)
      return this.all("SELECT * FROM runs WHERE status = 'running' AND lease_until < ? ORDER BY created_at", leaseEndedBefore).map(runOf);
    return this.all("SELECT * FROM runs WHERE status = 'running' ORDER BY created_at").map(runOf);
  }

  protected async dbReadEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]> {
    const rows =
      limit === undefined
        ? this.all(`${EVENTS_OF_RUN} ORDER BY seq`, runId, after)
        : this.all(`${EVENTS_OF_RUN} ORDER BY seq LIMIT ?`, runId, after, limit);
    return rows.map((r) => JSON.parse(r.data as string) as CanonicalEvent);
  }

  protected async dbCommit(c: Commit): Promise<void> {
    return this.writer.call('commit', c);
  }

  protected override async dbCommitMany(commits: readonly Commit[]): Promise<(unknown | undefined)[]> {
    return this.dbWriteMany(commits);
  }

  /** The group commit's writes, chats and runs created included, in one transaction (a savepoint each). */
  protected override async dbWriteMany(writes: readonly Write[]): Promise<(unknown | undefined)[]> {
    const { errors, inserted } = await this.writer.call('writeMany', writes);
    writes.forEach((w, i) => {
      if ('kind' in w && w.kind === 'run') w.inserted = inserted[i];
    });
    return errors;
  }

  protected async dbRenewLeases(holder: string, runIds: readonly string[], until: number): Promise<void> {
    return this.writer.call('renewLeases', holder, runIds, until);
  }

  protected async dbGetMessage(messageId: string): Promise<PersistedMessage | undefined> {
    const r = this.get('SELECT * FROM messages WHERE id = ?', messageId);
    return r && messageOf(r);
  }

  protected async dbGetMessages(messageIds: readonly string[]): Promise<PersistedMessage[]> {
    if (messageIds.length === 0) return [];
    return this.all(`SELECT * FROM messages WHERE id IN (${messageIds.map(() => '?').join(', ')})`, ...messageIds).map(messageOf);
  }

  protected async dbListMessages(chatId: string): Promise<PersistedMessage[]> {
    return this.all('SELECT * FROM messages WHERE chat_id = ? ORDER BY n', chatId).map(messageOf);
  }

  protected async dbClose(): Promise<void> {
    try {
      await this.writer.close();
    } finally {
      if (this.db.isOpen) this.db.close();
    }
  }
}

/** A run's events after a seq, found through the run's integer key (schema version 3). */
const EVENTS_OF_RUN = 'SELECT data FROM events WHERE run_n = (SELECT n FROM runs WHERE id = ?) AND seq > ?';

/** The settings the writer thread's connection takes (what structured clone can carry). */
function connectionOptions(o: SqliteConnectionOptions): SqliteConnectionOptions {
  return { busyTimeoutMs: o.busyTimeoutMs, synchronous: o.synchronous, cacheKiB: o.cacheKiB, maxSizeMiB: o.maxSizeMiB };
}

/** Opens (creating and migrating as needed) a SQLite store. */
export async function openSqliteStore(options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  return new SqliteStore(options);
}
