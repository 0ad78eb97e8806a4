/**
 * The SQLite store's work, counted (transactions begun, statements run), not timed: what a burst of
 * run starts and a run's appends cost. The gateway's side, `POST /api/chat`:
 * packages/server/test/run-start-work.test.ts.
 */
import assert from 'node:assert/strict';
import { StatementSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';

import { openSqliteStore, type SqliteStore } from '../src/sqlite.ts';
import { countSqliteWork, demoRun } from './support.ts';

describe('SQLite store work', () => {
  let store: SqliteStore;
  before(async () => {
    store = await openSqliteStore({ path: ':memory:' });
    // Warm: every statement prepared once.
    const warm = demoRun('warm', 'warm');
    await store.startRun({ chatId: 'warm', runId: 'warm', exclusive: true, userMessage: { content: 'hi' } });
    await store.append(warm.slice(0, 5));
    await store.append(warm.slice(5));
  });
  after(() => store.close());

  test('the sweep for orphaned runs reads only the runs whose lease ended, not every running run', async () => {
    const now = Date.now();
    for (let i = 0; i < 30; i++)
      await store.startRun({ chatId: `leased-${i}`, runId: `leased-${i}`, lease: { holder: 'alive', until: now + 60_000 } });
    for (let i = 0; i < 2; i++)
      await store.startRun({ chatId: `orphan-${i}`, runId: `orphan-${i}`, lease: { holder: 'dead', until: now - 1000 } });
    let rows = 0;
    const all = StatementSync.prototype.all;
    const counting = function (this: StatementSync, ...args: unknown[]) {
      const out = (all as (...a: unknown[]) => unknown[]).apply(this, args);
      rows += out.length;
      return out;
    };
    StatementSync.prototype.all = counting as typeof all;
    let swept: string[];
    try {
      swept = await store.recoverRuns({ expiredLeases: true, exceptHolder: 'me' });
    } finally {
      StatementSync.prototype.all = all;
    }
    assert.deepEqual(swept.sort(), ['orphan-0', 'orphan-1']);
    // The two orphans (and what interrupting them reads), not the 30 live runs.
    assert.ok(rows < 30, `${rows} rows read`);
    assert.equal((await store.getRun('leased-0'))?.status, 'running');
  });

  test('ten runs started in one turn: one transaction', async () => {
    const r = await countSqliteWork(() =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.startRun({ chatId: `many-${i}`, runId: `many-run-${i}`, exclusive: true, userMessage: { content: 'hi' } }),
        ),
      ),
    );
    // One group commit (was 10 transactions); 6 statements a start (was 8: the run is not read back,
    // a new chat needs no separate bump of its updated_at).
    assert.equal(r.transactions, 1);
    assert.ok(r.statements <= 60, `${r.statements} statements`);
  });

  test('a start whose ids the caller made new (newIds): neither the run nor the message id is looked up', async () => {
    const startAndAppend = (id: string, newIds: boolean) =>
      countSqliteWork(async () => {
        await store.startRun({ chatId: id, runId: id, messageId: `msg_${id}`, exclusive: true, userMessage: { content: 'hi' }, newIds });
        await store.append(demoRun('hi', id).slice(0, 3));
      });
    const looked = await startAndAppend('ids-looked-up', false);
    const made = await startAndAppend('ids-made-new', true);
    // Two reads fewer: the run id at the start, the message id at the first append.
    assert.equal(made.statements, looked.statements - 2);
    assert.equal((await store.getRun('ids-made-new'))?.messageId, 'msg_ids-made-new');
  });

  test("a run's appends: one statement for the run row, one per event", async () => {
    const events = demoRun('count me', 'counted');
    await store.startRun({ chatId: 'counted', runId: 'counted', exclusive: true, userMessage: { content: 'count me' } });
    const first = await countSqliteWork(() => store.append(events.slice(0, 5)));
    // The message id checked, the run row (checked and moved in one UPDATE), 5 inserts, the message
    // (was 10: the run read back, then its last_seq read before the update).
    assert.equal(first.transactions, 1);
    assert.ok(first.statements <= 8, `${first.statements} statements`);
    const next = await countSqliteWork(() => store.append(events.slice(5, 15)));
    // The run row and 10 inserts (was 12).
    assert.equal(next.transactions, 1);
    assert.ok(next.statements <= 11, `${next.statements} statements`);
    assert.deepEqual(await store.read('counted'), events.slice(0, 15));
  });
});
