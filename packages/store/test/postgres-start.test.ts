/**
 * PostgreSQL's batched run starts (`startMany`, one call of the schema's `start_runs(json)`): the
 * starts go to the database sorted by chat id (so two instances' groups lock chats in one order and
 * cannot deadlock), and each result must come back to the write it belongs to. Pushed here in
 * reverse chat-id order, with a taken chat id and a blocked exclusive start among them, so that a
 * result returned in sorted order instead of queue order would land on the wrong write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgresStore, type PostgresStore } from '../src/postgres.ts';
import { startMany } from '../src/postgres-start.ts';
import type { Chat, Run, StartWrite } from '../src/store.ts';
import { dropSchema, POSTGRES_URL, postgresSkip, rid } from './support.ts';

const url = POSTGRES_URL;

const T = 1_763_870_000_000;

function chatOf(id: string): Chat {
  return { id, createdAt: T, updatedAt: T };
}

function runWrite(chatId: string, runId: string, options: { exclusive?: boolean; newChat?: boolean } = {}): StartWrite {
  const run: Run = { id: runId, chatId, status: 'running', lastSeq: -1, createdAt: T, updatedAt: T };
  return {
    kind: 'run',
    run,
    chat: chatOf(chatId),
    user: undefined,
    exclusive: options.exclusive === true,
    newChat: options.newChat === true,
  };
}

const skip = await postgresSkip();

describe('PostgreSQL batched run starts', { skip: skip ?? false }, () => {
  const schema = `sb_test_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let store: PostgresStore;
  let pool: pg.Pool;
  before(async () => {
    store = await openPostgresStore({ url, schema, maxConnections: 2 });
    pool = new pg.Pool({ connectionString: url, max: 1 });
  });
  after(async () => {
    await store.close();
    await pool.end();
    await dropSchema(schema);
  });

  test('starts pushed in reverse chat-id order get their own results, in queue order', async () => {
    const p = rid('c');
    // A chat that exists, and a chat with a run in progress.
    await store.createChat({ id: `${p}-b-taken` });
    await store.startRun({ chatId: `${p}-c-busy`, runId: `${p}-busy-run` });

    const writes: StartWrite[] = [
      runWrite(`${p}-e-new`, `${p}-run-e`, { newChat: true }),
      runWrite(`${p}-d-free`, `${p}-run-d`, { exclusive: true }),
      runWrite(`${p}-c-busy`, `${p}-run-c`, { exclusive: true }),
      { kind: 'chat', chat: chatOf(`${p}-b-taken`) },
      runWrite(`${p}-a-new`, `${p}-run-a`),
    ];
    // What goes to the database: one call, its items sorted by chat id.
    const calls: string[] = [];
    const spy = {
      query: (text: string, values: unknown[]) => {
        calls.push(String(values[0]));
        return pool.query(text, values);
      },
    } as unknown as pg.Pool;
    const results = await startMany(spy, `"${schema}"`, writes);
    assert.equal(calls.length, 1);
    const sent = (JSON.parse(calls[0] as string) as { chat: { id: string } }[]).map((i) => i.chat.id);
    assert.deepEqual(sent, [`${p}-a-new`, `${p}-b-taken`, `${p}-c-busy`, `${p}-d-free`, `${p}-e-new`]);

    assert.equal(results.length, writes.length);
    assert.equal(results[0], undefined);
    assert.equal(results[1], undefined);
    assert.match(String((results[2] as Error)?.message), new RegExp(`chat ${p}-c-busy has a run in progress \\(${p}-busy-run\\)`));
    assert.match(String((results[3] as Error)?.message), new RegExp(`chat ${p}-b-taken already exists`));
    assert.equal(results[4], undefined);
    // `inserted` is set on the run starts that were written, and only on them.
    assert.deepEqual(
      writes.map((w) => (w.kind === 'run' ? w.inserted : 'chat')),
      [true, true, undefined, 'chat', true],
    );

    // The database agrees: each written run is in its own chat; the blocked one is not there.
    for (const [chatId, runId] of [
      [`${p}-e-new`, `${p}-run-e`],
      [`${p}-d-free`, `${p}-run-d`],
      [`${p}-a-new`, `${p}-run-a`],
    ] as const) {
      assert.equal((await store.getRun(runId))?.chatId, chatId);
    }
    assert.equal(await store.getRun(`${p}-run-c`), undefined);
    assert.deepEqual(
      (await store.listRuns(`${p}-c-busy`)).map((r) => r.id),
      [`${p}-busy-run`],
    );
  });
});
