/**
 * The gateway on PostgreSQL through a TCP proxy that cuts the connections for 1, 3 and 6 s, or
 * stalls them for 8 s, while a run streams: every run ends `complete` (the failed appends are
 * retried), nothing it stored is lost, its stream replays whole afterwards, and the chat takes a new
 * message. PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test): skipped
 * with a message when absent, a failure with CI=true. The faults take real seconds (what is being
 * tested is an outage of that length); no assertion is about time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgresStore, type PostgresStore } from '@switchboard/store/postgres';
import pg from 'pg';

import { type RunningServer, startServer } from '../src/index.ts';
import { api, Gate, gatedAgent, quietLogger, sseData, testConfig, userMessage } from './gateway-support.ts';
import { TcpProxy } from './tcp-proxy.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function unavailable(): Promise<string | undefined> {
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

describe('PostgreSQL cut or stalled mid-run', async () => {
  const why = await unavailable();
  if (why && process.env.CI === 'true') throw new Error(`${why} (CI=true: a missing service is a failure)`);
  const schema = `sb_faults_${process.pid}`;
  let proxy: TcpProxy;
  let store: PostgresStore;
  before(async () => {
    if (why) return;
    const target = new URL(DATABASE_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(DATABASE_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    url.searchParams.set('schema', schema);
    store = await openPostgresStore({ url: url.toString() });
  });
  after(async () => {
    if (why) return;
    await store.close();
    await proxy.close();
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  });

  for (const [fault, ms] of [
    ['cut', 1000],
    ['cut', 3000],
    ['cut', 6000],
    ['pause', 8000],
  ] as const) {
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
        const chatId = `pg-${fault}-${ms}`;
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
