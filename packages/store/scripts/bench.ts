/**
 * Store benchmark: append throughput (one event per append, as a server records a live run, and
 * batched) and read-back speed (read, tail of a finished run) for each backend. Backends whose
 * service is not reachable are reported as skipped.
 *
 * Usage: node packages/store/scripts/bench.ts [--events N] [--batch N]
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), REDIS_URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CanonicalEvent } from '@switchboard/core';

import { openPostgresStore } from '../src/postgres.ts';
import { openRedisStore } from '../src/redis.ts';
import { openSqliteStore } from '../src/sqlite.ts';
import type { Store } from '../src/store.ts';

const { values } = parseArgs({ options: { events: { type: 'string' }, batch: { type: 'string' } } });
const N = Number(values.events ?? 2000);
const BATCH = Number(values.batch ?? 100);

/** A run of n events: run-start, one text block of deltas, run-finish. */
function makeRun(runId: string, n: number): CanonicalEvent[] {
  const out: CanonicalEvent[] = [];
  let seq = 0;
  const ts = () => 1_763_870_000_000 + seq * 5;
  out.push({ type: 'run-start', runId, seq: seq, ts: ts(), version: 1, messageId: `msg_${runId}` });
  seq++;
  out.push({ type: 'text-start', runId, seq, ts: ts(), blockId: 't' });
  seq++;
  while (seq < n - 2) {
    out.push({ type: 'text-delta', runId, seq, ts: ts(), blockId: 't', delta: `word${seq} ` });
    seq++;
  }
  out.push({ type: 'text-end', runId, seq, ts: ts(), blockId: 't' });
  seq++;
  out.push({ type: 'run-finish', runId, seq, ts: ts(), finishReason: 'stop' });
  return out;
}

interface Row {
  backend: string;
  appendOne?: number;
  appendBatch?: number;
  read?: number;
  tail?: number;
  note?: string;
}

async function measure(name: string, open: () => Promise<Store>, cleanup: () => Promise<void>): Promise<Row> {
  let store: Store | undefined;
  try {
    store = await open();
  } catch (err) {
    return { backend: name, note: `skipped: ${(err as Error).message}` };
  }
  try {
    const one = makeRun(`bench1_${crypto.randomUUID()}`, N);
    await store.startRun({ chatId: `benchchat_${crypto.randomUUID()}`, runId: one[0].runId });
    let t = performance.now();
    for (const e of one) await store.append(e);
    const appendOne = N / ((performance.now() - t) / 1000);

    const many = makeRun(`bench2_${crypto.randomUUID()}`, N);
    await store.startRun({ chatId: `benchchat_${crypto.randomUUID()}`, runId: many[0].runId });
    t = performance.now();
    for (let i = 0; i < many.length; i += BATCH) await store.append(many.slice(i, i + BATCH));
    const appendBatch = N / ((performance.now() - t) / 1000);

    t = performance.now();
    const back = await store.read(one[0].runId);
    const read = back.length / ((performance.now() - t) / 1000);
    if (back.length !== N) throw new Error(`read back ${back.length} events, expected ${N}`);

    t = performance.now();
    let count = 0;
    for await (const _ of store.tail(many[0].runId)) count++;
    const tail = count / ((performance.now() - t) / 1000);
    return { backend: name, appendOne, appendBatch, read, tail };
  } finally {
    await store.close();
    await cleanup().catch(() => {});
  }
}

const fmt = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v).toLocaleString('en-US')}`);

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-'));
const rows: Row[] = [];
rows.push(
  await measure(
    'sqlite',
    () => openSqliteStore({ path: join(dir, 'bench.db') }),
    async () => rmSync(dir, { recursive: true, force: true }),
  ),
);

const pgUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `sb_bench_${crypto.randomUUID().replace(/-/g, '').slice(0, 8)}`;
rows.push(
  await measure(
    'postgres',
    () => openPostgresStore({ url: pgUrl, schema }),
    async () => {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  ),
);

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sbbench:${crypto.randomUUID().slice(0, 8)}:`;
rows.push(
  await measure(
    'redis',
    () => openRedisStore({ url: redisUrl, prefix }),
    async () => {
      const { createClient } = await import('@redis/client');
      const c = createClient({ url: redisUrl });
      await c.connect();
      let cursor = '0';
      do {
        const [next, keys] = (await c.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [string, string[]];
        cursor = next;
        if (keys.length > 0) await c.sendCommand(['DEL', ...keys]);
      } while (cursor !== '0');
      await c.close();
    },
  ),
);

console.log(`store: ${N} events per run; batch appends of ${BATCH}; events per second`);
console.log(['backend', 'append (1/call)', `append (${BATCH}/call)`, 'read', 'tail (finished run)'].join(' | '));
for (const r of rows) {
  if (r.note) console.log(`${r.backend} | ${r.note}`);
  else console.log([r.backend, fmt(r.appendOne), fmt(r.appendBatch), fmt(r.read), fmt(r.tail)].join(' | '));
}
