/**
 * `openStore`: picks the backend from a URL (`sqlite:path`, `postgres://…`, `redis://…`) or options,
 * opens it and applies migrations.
 */
import { type MemoryStore, type MemoryStoreOptions, openMemoryStore } from './memory.ts';
import type { PostgresStore, PostgresStoreOptions } from './postgres.ts';
import type { RedisStore, RedisStoreOptions } from './redis.ts';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite.ts';
import { importOptional, StoreError } from './store.ts';

/**
 * Opens a PostgreSQL store (see `postgres.ts`). `pg` is loaded on first use, so programs that never
 * open one do not pay for it.
 */
export async function openPostgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  return (await importOptional(() => import('./postgres.ts'), 'pg', 'The PostgreSQL store')).openPostgresStore(options);
}

/** Opens a Redis store (see `redis.ts`). `@redis/client` (≈ 100 ms to import) is loaded on first use. */
export async function openRedisStore(options: RedisStoreOptions = {}): Promise<RedisStore> {
  return (await importOptional(() => import('./redis.ts'), '@redis/client', 'The Redis store')).openRedisStore(options);
}

/** Options of `openStore`: one backend's options, tagged with its kind. */
export type OpenStoreOptions =
  | ({ kind: 'sqlite' } & SqliteStoreOptions)
  | ({ kind: 'postgres' } & PostgresStoreOptions)
  | ({ kind: 'redis' } & RedisStoreOptions)
  | ({ kind: 'memory' } & MemoryStoreOptions);

export type AnyStore = SqliteStore | PostgresStore | RedisStore | MemoryStore;

/**
 * Where `sqlite:` URLs point: `sqlite:data/x.db` and `sqlite:./x.db` are relative paths,
 * `sqlite:///abs/x.db` and `sqlite:/abs/x.db` absolute, `sqlite::memory:` an in-memory database.
 */
export function sqlitePathOf(url: string): string {
  let rest = url.replace(/^sqlite:/i, '');
  if (rest.startsWith('//')) rest = rest.slice(2); // sqlite://<path>: the path follows (sqlite:///abs → /abs)
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  return decodeURIComponent(rest);
}

/**
 * A `sqlite:` URL's options: its path (`sqlitePathOf`) and `?writer=thread|inline` (where the writes
 * run, `SqliteStoreOptions.writer`).
 */
export function sqliteOptionsOf(url: string): SqliteStoreOptions {
  const options: SqliteStoreOptions = { path: sqlitePathOf(url) };
  const q = url.indexOf('?');
  const writer = q < 0 ? null : new URLSearchParams(url.slice(q + 1)).get('writer');
  if (writer === 'thread' || writer === 'inline') options.writer = writer;
  else if (writer !== null)
    throw new StoreError(
      'invalid',
      `unknown writer ${JSON.stringify(writer)} in ${JSON.stringify(url)}: use writer=thread or writer=inline`,
    );
  return options;
}

/**
 * Opens a store. With no argument: `SWITCHBOARD_STORE_URL` if set, else SQLite at
 * `${SWITCHBOARD_DATA_DIR ?? './data'}/switchboard.db`.
 *
 * @example
 * const store = await openStore('sqlite:./data/switchboard.db');
 * const store = await openStore('sqlite:./data/switchboard.db?writer=inline'); // writes on the event loop
 * const store = await openStore(process.env.DATABASE_URL);          // postgres://…
 * const store = await openStore({ kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: 'app:' });
 * const store = await openStore('memory:');                        // in this process only, for tests and demos
 */
export async function openStore(target?: string | OpenStoreOptions): Promise<AnyStore> {
  const spec = target ?? process.env.SWITCHBOARD_STORE_URL;
  if (spec === undefined || spec === '') return openSqliteStore();
  if (typeof spec !== 'string') {
    if (spec.kind === 'sqlite') return openSqliteStore(spec);
    if (spec.kind === 'postgres') return openPostgresStore(spec);
    if (spec.kind === 'redis') return openRedisStore(spec);
    if (spec.kind === 'memory') return openMemoryStore(spec);
  }
  const url = spec as string;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'sqlite':
    case 'file':
      return openSqliteStore(scheme === 'file' ? { path: new URL(url).pathname } : sqliteOptionsOf(url));
    case 'postgres':
    case 'postgresql':
      return openPostgresStore({ url });
    case 'redis':
    case 'rediss':
      return openRedisStore({ url });
    case 'memory':
      return openMemoryStore();
    default:
      throw new StoreError(
        'invalid',
        `cannot tell the store from ${JSON.stringify(url)}: use sqlite:<path>, postgres://…, redis://… or memory:`,
      );
  }
}
