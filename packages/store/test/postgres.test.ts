/** The store contract against PostgreSQL, and what only PostgreSQL has: its schema's events table. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgresStore, POSTGRES_SCHEMA_VERSION, type PostgresStore } from '../src/postgres.ts';
import { contract } from './contract.ts';
import { demoRun, dropSchema, POSTGRES_URL, postgresSetup, postgresSkip, rid } from './support.ts';

contract('PostgreSQL', postgresSetup);

const skip = await postgresSkip();

describe('PostgreSQL specifics: events without a foreign key (schema version 4)', { skip: skip ?? false }, () => {
  const schema = `sb_test_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let store: PostgresStore;
  let sql: pg.Client;
  const eventsOf = async (runId: string) =>
    Number((await sql.query(`SELECT count(*) AS n FROM "${schema}".events WHERE run_id = $1`, [runId])).rows[0].n);
  const foreignKeys = async () =>
    Number(
      (await sql.query(`SELECT count(*) AS n FROM pg_constraint WHERE conrelid = '"${schema}".events'::regclass AND contype = 'f'`)).rows[0]
        .n,
    );

  before(async () => {
    store = await openPostgresStore({ url: POSTGRES_URL, schema, pollIntervalMs: 50 });
    sql = new pg.Client({ connectionString: POSTGRES_URL });
    await sql.connect();
  });
  after(async () => {
    await store?.close();
    await sql?.end();
    await dropSchema(schema);
  });

  test('a version 3 schema (with the key) upgrades: the key goes, the events stay', async () => {
    assert.equal(await store.schemaVersion(), POSTGRES_SCHEMA_VERSION);
    assert.equal(await foreignKeys(), 0);
    const events = demoRun('hello', rid('run'));
    await store.startRun({ chatId: rid('chat'), runId: events[0].runId });
    await store.append(events);
    // Back to version 3, key included, then opened again.
    await sql.query(
      `ALTER TABLE "${schema}".events ADD CONSTRAINT events_run_id_fkey FOREIGN KEY (run_id) REFERENCES "${schema}".runs (id) ON DELETE CASCADE`,
    );
    await sql.query(`DELETE FROM "${schema}".schema_migrations WHERE version = 4`);
    assert.equal(await foreignKeys(), 1);
    const again = await openPostgresStore({ url: POSTGRES_URL, schema });
    try {
      assert.equal(await again.schemaVersion(), 4);
      assert.equal(await foreignKeys(), 0);
      assert.deepEqual(await again.read(events[0].runId), events);
    } finally {
      await again.close();
    }
  });

  test('deleting a chat deletes its runs’ events, also with appends racing the delete', async () => {
    for (let i = 0; i < 8; i++) {
      const chatId = rid('chat');
      const events = demoRun('tool Rome', rid('run'));
      const runId = events[0].runId;
      await store.startRun({ chatId, runId });
      await store.append(events.slice(0, 4));
      // The append and the delete in either order: whichever wins, no event outlives its run.
      const racing = store.append(events.slice(4, 8)).catch(() => undefined);
      assert.equal(await store.deleteChat(chatId), true);
      await racing;
      assert.equal(await eventsOf(runId), 0, `run ${i}: no event left of a deleted run`);
      assert.equal(await store.getRun(runId), undefined);
    }
  });
});
