/**
 * Opens the store the gateway runs on, from its settings:
 *
 * | settings | durable log | live fan-out |
 * |---|---|---|
 * | nothing | SQLite at `<dataDir>/switchboard.db` | in-process |
 * | `DATABASE_URL` | PostgreSQL | in-process + PostgreSQL NOTIFY |
 * | `REDIS_URL` as well | PostgreSQL (or SQLite) | Redis pub/sub (`fanout.ts`) |
 * | `SWITCHBOARD_STORE_URL` | whatever it names (`sqlite:`, `postgres://`, `redis://`) | as above |
 *
 * Several instances must share the durable log (PostgreSQL) and, for live following across them,
 * Redis with the same key prefix.
 */
import { join } from 'node:path';
import { openPostgresStore, openSqliteStore, openStore, type Store } from '@switchboard/store';

import type { RedisFanout } from './fanout.ts';

/** Where the store is. */
export interface StoreSettings {
  /** Directory of the SQLite file (`switchboard.db`). */
  dataDir: string;
  /** PostgreSQL URL of the durable log. */
  databaseUrl?: string;
  /** Redis URL of the live fan-out. */
  redisUrl?: string;
  /** Any store URL (`sqlite:…`, `postgres://…`, `redis://…`); wins over `dataDir` / `databaseUrl`. */
  storeUrl?: string;
  /** PostgreSQL schema (default: the URL's `?schema=`, else `switchboard`). */
  schema?: string;
  /** Redis key prefix of the fan-out (default: the URL's `?prefix=`, else `switchboard:`). */
  redisPrefix?: string;
  /** How often a waiting tail re-reads the log in case a notification was lost (ms, default 1000). */
  pollIntervalMs?: number;
}

/** An opened store. */
export interface GatewayStore {
  store: Store;
  /** The Redis fan-out, when `redisUrl` is set. */
  fanout?: RedisFanout;
  /** True when other instances may write the same log (PostgreSQL or Redis): recovery must leave their live runs alone. */
  shared: boolean;
  /** A one-line description for the start-up log (no credentials). */
  describe: string;
  close(): Promise<void>;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** Opens the durable store and, with `redisUrl`, the Redis fan-out around it. */
export async function openGatewayStore(settings: StoreSettings): Promise<GatewayStore> {
  const poll = settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs };
  let durable: Store;
  let describe: string;
  if (settings.storeUrl) {
    durable = await openStore(settings.storeUrl);
    describe = `${durable.kind} (${redact(settings.storeUrl)})`;
  } else if (settings.databaseUrl) {
    durable = await openPostgresStore({
      url: settings.databaseUrl,
      ...(settings.schema ? { schema: settings.schema } : {}),
      ...poll,
    });
    describe = `postgres (${redact(settings.databaseUrl)})`;
  } else {
    const path = join(settings.dataDir, 'switchboard.db');
    durable = await openSqliteStore({ path, ...poll });
    describe = `sqlite (${path})`;
  }
  const shared = durable.kind === 'postgres' || durable.kind === 'redis';
  if (!settings.redisUrl) return { store: durable, shared, describe, close: () => durable.close() };

  // Loaded only here: the Redis client is a large module graph that a gateway without REDIS_URL
  // would otherwise load at every start.
  const { openRedisFanout, withFanout } = await import('./fanout.ts');
  let fanout: RedisFanout;
  try {
    fanout = await openRedisFanout({ url: settings.redisUrl, ...(settings.redisPrefix ? { prefix: settings.redisPrefix } : {}) });
  } catch (err) {
    await durable.close().catch(() => {});
    throw err;
  }
  const store = withFanout(durable, fanout, poll);
  return {
    store,
    fanout,
    shared: true,
    describe: `${describe} + redis fan-out (${redact(settings.redisUrl)}, prefix ${fanout.prefix})`,
    close: async () => {
      await store.close();
      await fanout.close();
    },
  };
}

/** The store settings of a configuration (`SWITCHBOARD_STORE_URL` from the environment wins). */
export function storeSettingsOf(
  server: { dataDir: string; databaseUrl?: string; redisUrl?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: { fanout?: boolean } = {},
): StoreSettings {
  const storeUrl = env.SWITCHBOARD_STORE_URL?.trim();
  return {
    dataDir: server.dataDir,
    ...(server.databaseUrl ? { databaseUrl: server.databaseUrl } : {}),
    ...(server.redisUrl && options.fanout !== false ? { redisUrl: server.redisUrl } : {}),
    ...(storeUrl ? { storeUrl } : {}),
  };
}
