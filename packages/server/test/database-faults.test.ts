/**
 * The gateway on PostgreSQL (or Redis) through a TCP proxy that cuts the connections for 1, 3 and
 * 6 s, or stalls them for 8 s, while a run streams: every run ends `complete` (the failed appends
 * are retried), nothing it stored is lost, the starter's stream ends with `[DONE]`, the run's stream
 * replays whole afterwards, and the chat takes a new message. PostgreSQL at DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test), Redis at REDIS_URL (default redis://127.0.0.1:6379):
 * skipped with a message when absent, a failure with CI=true. The faults take real seconds (what
 * is being tested is an outage of that length); no assertion is about time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import type { Store } from '@switchboard/store';
import { openPostgresStore } from '@switchboard/store/postgres';
import { openRedisStore } from '@switchboard/store/redis';
import pg from 'pg';

import { type RunningServer, startServer } from '../src/index.ts';
import { api, Gate, gatedAgent, quietLogger, sseData, testConfig, userMessage } from './gateway-support.ts';
import { TcpProxy } from './tcp-proxy.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisUnavailable(): Promise<string | undefined> {
  const r = createClient({ url: REDIS_URL, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.close();
    return undefined;
  } catch (err) {
    return `Redis not reachable (${(err as Error).message})`;
  }
}

async function postgresUnavailable(): Promise<string | undefined> {
  const probe = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return undefined;
  } catch (err) {
    return `PostgreSQL not reachable (${(err as Error).message})`;
  } finally {
    await probe.end().catch(() => {});
  }
}

/** Runs the faults against one backend, opened through the proxy by `open`. */
function faultsOn(
  backend: string,
  target: string,
  unavailable: () => Promise<string | undefined>,
  open: (proxied: URL) => Promise<Store>,
  cleanUp: () => Promise<void>,
  faults: readonly (readonly ['cut' | 'pause', number])[],
) {
  describe(`${backend} cut or stalled mid-run`, async () => {
    const why = await unavailable();
    if (why && process.env.CI === 'true') throw new Error(`${why} (CI=true: a missing service is a failure)`);
    let proxy: TcpProxy;
    let store: Store;
    before(async () => {
      if (why) return;
      const url = new URL(target);
      proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || (url.protocol.startsWith('redis') ? 6379 : 5432)) });
      url.host = `127.0.0.1:${proxy.port}`;
      store = await open(url);
    });
    after(async () => {
      if (why) return;
      await store.close();
      await proxy.close();
      await cleanUp();
    });
    for (const [fault, ms] of faults) {
      test(`${fault} for ${ms / 1000} s: the run completes, replays whole, and the chat goes on`, {
        skip: why ? `${why} — skipping` : false,
      }, async () => {
        const gate = new Gate();
        const { spec, waiting } = gatedAgent('gated', gate, { after: Array.from({ length: 200 }, (_, i) => `word${i} `) });
        const s: RunningServer = await startServer({
          port: 0,
          config: testConfig(),
          store,
          agents: [spec],
          runOptions: { logger: quietLogger() },
          onError: () => {},
          runLeaseMs: 0,
        });
        try {
          const chatId = `${backend}-${fault}-${ms}`;
          const res = await api(s.url, '/api/chat?agent=gated', {
            json: { id: chatId, messages: [userMessage('go')], trigger: 'submit-message' },
            headers: { 'x-switchboard-on-disconnect': 'continue' },
          });
          const runId = res.headers.get('x-switchboard-run-id') as string;
          // The starter's stream ends whatever the store does (with the answer, or an error ending).
          const live = res.text().catch(() => '');
          await waiting;
          const connections = proxy.connections;
          const outage = fault === 'cut' ? proxy.cut(ms) : proxy.pause(ms);
          gate.open();
          await outage;
          // The starter's stream ended in the protocol's own terms: the whole answer, or (a read failed
          // during the outage) the error ending, and either way `[DONE]`.
          assert.ok((await live).trimEnd().endsWith('data: [DONE]'));
          // The run's whole stream, replayed from the store once it is back.
          const replay = await (await api(s.url, `/api/runs/${runId}/stream?protocol=ai-sdk`)).text();
          assert.ok(replay.trimEnd().endsWith('data: [DONE]'), replay.slice(-200));
          const text = (sseData(replay) as { type: string; delta?: string }[])
            .filter((c) => c.type === 'text-delta')
            .map((c) => c.delta)
            .join('');
          assert.match(text, /word0 .*word199 $/s);
          assert.equal((await store.getRun(runId))?.status, 'complete');
          // A cut made the store connect again: its appends did fail, and were retried.
          if (fault === 'cut') assert.ok(proxy.connections > connections);
          const next = await api(s.url, '/api/chat?agent=demo', {
            json: { id: chatId, messages: [userMessage('again')], trigger: 'submit-message' },
          });
          assert.equal(next.status, 200);
          assert.ok((await next.text()).trimEnd().endsWith('data: [DONE]'));
        } finally {
          await s.close();
        }
      });
    }
  });
}

const schema = `sb_faults_${process.pid}`;
faultsOn(
  'PostgreSQL',
  DATABASE_URL,
  postgresUnavailable,
  (url) => {
    url.searchParams.set('schema', schema);
    return openPostgresStore({ url: url.toString() });
  },
  async () => {
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  },
  [
    ['cut', 1000],
    ['cut', 3000],
    ['cut', 6000],
    ['pause', 8000],
  ],
);

const prefix = `sb-faults-${process.pid}:`;
faultsOn(
  'Redis',
  REDIS_URL,
  redisUnavailable,
  (url) => openRedisStore({ url: url.toString(), prefix }),
  async () => {
    const r = createClient({ url: REDIS_URL });
    await r.connect();
    for await (const keys of r.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length) await r.del(keys);
    await r.close();
  },
  [['cut', 3000]],
);
