/**
 * Scale-out: two gateway instances in one process, on different ports, each with its own
 * connections to the same PostgreSQL schema (the durable log) and the same Redis prefix (the live
 * fan-out). A run started through instance 1 is followed and resumed through instance 2 with no
 * gap and no duplicate, a WebSocket session on instance 2 sees it live, and an abort sent to
 * instance 2 stops the agent running on instance 1.
 *
 * Instance 2's store re-reads the log only every 10 minutes on its own: whatever it gets live comes
 * through Redis. PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and
 * Redis at REDIS_URL (default redis://127.0.0.1:6379); missing services skip the tests with a
 * message, except with CI=true, where they fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import pg from 'pg';

import { type GatewayStore, openGatewayStore } from '../src/server/gateway-store.ts';
import { redisLimiter } from '../src/server/rate-limit.ts';
import { type RunningServer, startServer } from '../src/server/start.ts';
import {
  api,
  BodyReader,
  completeEvents,
  Gate,
  gatedAgent,
  isComplete,
  quietLogger,
  testConfig,
  userMessage,
  WsClient,
} from './gateway-support.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function unavailable(): Promise<string | undefined> {
  const probe = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
  } catch (err) {
    return `PostgreSQL not reachable at ${new URL(DATABASE_URL).host} (set DATABASE_URL): ${(err as Error).message}`;
  } finally {
    await probe.end().catch(() => {});
  }
  const redis = createClient({ url: REDIS_URL, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.close();
  } catch (err) {
    return `Redis not reachable at ${new URL(REDIS_URL).host} (set REDIS_URL): ${(err as Error).message}`;
  }
  return undefined;
}

const missing = await unavailable();
if (missing && process.env.CI === 'true') throw new Error(`gateway scale-out tests need PostgreSQL and Redis in CI: ${missing}`);
if (missing) console.log(`# skipping the scale-out tests: ${missing}`);

const id = crypto.randomUUID().replace(/-/g, '').slice(0, 12);
const schema = `sb_gw_${id}`;
const prefix = `sbgw:${id}:`;

describe('two instances sharing PostgreSQL and Redis', { skip: missing ? `${missing} — skipping` : false }, () => {
  const gate = new Gate();
  const agent1 = gatedAgent('gated', gate);
  const agent2 = gatedAgent('gated', new Gate());
  const stores: GatewayStore[] = [];
  let one: RunningServer;
  let two: RunningServer;

  before(async () => {
    const open = (pollIntervalMs: number) =>
      openGatewayStore({
        dataDir: '/nonexistent',
        databaseUrl: DATABASE_URL,
        redisUrl: REDIS_URL,
        schema,
        redisPrefix: prefix,
        pollIntervalMs,
      });
    stores.push(await open(1000), await open(600_000));
    const common = {
      port: 0,
      config: testConfig(),
      onDisconnect: 'continue' as const,
      runOptions: { logger: quietLogger() },
      onError: () => {},
    };
    one = await startServer({ ...common, store: stores[0].store, fanout: stores[0].fanout, agents: [agent1.spec] });
    two = await startServer({
      ...common,
      store: stores[1].store,
      fanout: stores[1].fanout,
      agents: [agent2.spec],
      pollIntervalMs: 600_000,
    });
  });

  after(async () => {
    await one?.close();
    await two?.close();
    for (const s of stores) await s.close();
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
    const r = createClient({ url: REDIS_URL });
    r.on('error', () => {});
    await r.connect();
    let cursor = '0';
    do {
      const [next, keys] = (await r.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [string, string[]];
      cursor = next;
      if (keys.length > 0) await r.sendCommand(['DEL', ...keys]);
    } while (cursor !== '0');
    await r.close();
  });

  test('a run started through instance 1 is followed and resumed through instance 2: no gap, no duplicate', async () => {
    // A WebSocket session on instance 2, subscribed before the run exists.
    const ws = new WsClient(`${two.url.replace(/^http/, 'ws')}/ws`);
    await ws.opened;
    ws.send({ type: 'subscribe', sessionId: 'shared-chat' });
    await ws.until((e) => e.event === 'subscribed');

    const res = await api(one.url, '/api/chat?agent=gated', { json: { id: 'shared-chat', messages: [userMessage('go')] } });
    assert.equal(res.status, 200);
    const runId = res.headers.get('x-switchboard-run-id') as string;
    assert.ok(one.core.runs.get(runId), 'the agent runs on instance 1');
    assert.equal(two.core.runs.get(runId), undefined);
    await agent1.waiting;
    const first = new BodyReader(res);
    await first.until((t) => t.includes('first half'));
    const { prefix: seen, lastId } = completeEvents(first.text);
    await first.cancel();

    // Instance 2 resumes the live run after the client's last event.
    const resumed = await api(two.url, '/api/chat/shared-chat/stream', { headers: { 'last-event-id': lastId as string } });
    assert.equal(resumed.status, 200);
    const rest = new BodyReader(resumed);
    // …and its WebSocket follower already has the first half, live.
    await ws.until((e) => e.event === 'agent:event' && e.data?.type === 'message_chunk' && String(e.data.content).includes('first half'));
    gate.open();
    await rest.all();
    const frames = await ws.until(isComplete);
    assert.ok(frames.some((e) => e.data?.type === 'message' && e.data.content === 'Hello from the first half. And the second half.'));
    ws.close();

    const whole1 = await (await api(one.url, `/api/runs/${runId}/stream`)).text();
    const whole2 = await (await api(two.url, `/api/runs/${runId}/stream`)).text();
    assert.equal(whole2, whole1);
    assert.equal(seen + rest.text, whole1, 'prefix from instance 1 + the rest from instance 2 = the whole stream, byte for byte');
    assert.ok(whole1.endsWith('data: [DONE]\n\n'));

    const history1 = await (await api(one.url, '/api/chats/shared-chat/messages')).json();
    assert.deepEqual(await (await api(two.url, '/api/chats/shared-chat/messages')).json(), history1);
  });

  test('an abort sent to instance 2 stops the agent running on instance 1', async () => {
    const stoppedGate = new Gate();
    const held = gatedAgent('held', stoppedGate);
    const a = await startServer({
      port: 0,
      config: testConfig(),
      store: stores[0].store,
      fanout: stores[0].fanout,
      agents: [held.spec],
      onDisconnect: 'continue',
      runOptions: { logger: quietLogger() },
      onError: () => {},
    });
    try {
      const res = await api(a.url, '/api/chat?agent=held', { json: { id: 'abort-chat', messages: [userMessage('go')] } });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      await held.waiting;
      const local = a.core.runs.get(runId);
      assert.ok(local);
      const stop = await api(two.url, `/api/runs/${runId}/abort`, { method: 'POST' });
      assert.equal(stop.status, 202);
      await local.done;
      await res.text();
      assert.equal((await (await api(two.url, `/api/runs/${runId}`)).json()).status, 'aborted');
    } finally {
      await a.close();
    }
  });

  test('the rate limit is one bucket per caller across instances (Redis)', async () => {
    const key = `test-${crypto.randomUUID()}`;
    const l1 = redisLimiter(stores[0].fanout as NonNullable<GatewayStore['fanout']>, { perMinute: 3 });
    const l2 = redisLimiter(stores[1].fanout as NonNullable<GatewayStore['fanout']>, { perMinute: 3 });
    assert.equal((await l1.take(key)).ok, true);
    assert.equal((await l2.take(key)).ok, true);
    assert.equal((await l1.take(key)).ok, true);
    const fourth = await l2.take(key);
    assert.equal(fourth.ok, false);
    assert.ok(fourth.retryAfterMs > 0);
  });
});
