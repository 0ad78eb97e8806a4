/**
 * PostgreSQL's NOTIFY wake-ups, counted: a store's own appends wake its own tails when they commit,
 * so the notification of that same commit, arriving later through LISTEN, is skipped; otherwise
 * every tail would read the log and the run again for nothing (two queries per tail per commit).
 * Notifications of other instances still wake the tails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';
import pg from 'pg';

import { openPostgresStore, type PostgresStore } from '../src/postgres.ts';
import { demoRun, dropSchema, POSTGRES_URL, postgresSkip, rid } from './support.ts';

const url = POSTGRES_URL;

/** Reads of a run's log (SELECTs from the events table naming `runId`), counted from `reset()` on. */
function countReads(): { of(runId: string): number; reset(): void; restore(): void } {
  const seen: unknown[][] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; values?: unknown[] };
    const text = typeof q === 'string' ? q : (q.text ?? '');
    const values = (typeof q === 'string' ? args[1] : q.values) as unknown[] | undefined;
    if (/^\s*SELECT\b[^;]*\bFROM\s+\S*events\b/i.test(text) && values) seen.push(values);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    of: (runId) => seen.filter((v) => v.includes(runId)).length,
    reset: () => {
      seen.length = 0;
    },
    restore: () => {
      pg.Client.prototype.query = query;
    },
  };
}

/** Follows a run's tail into `events`; `until(seq)` resolves once the tail has yielded it. */
function follow(store: PostgresStore, runId: string, signal: AbortSignal) {
  const events: CanonicalEvent[] = [];
  const waiters: { seq: number; resolve: () => void }[] = [];
  const done = (async () => {
    for await (const page of store.tailPages(runId, { signal })) {
      events.push(...page);
      const last = page[page.length - 1]?.seq ?? -1;
      for (const w of waiters.filter((x) => x.seq <= last)) w.resolve();
    }
  })();
  const until = (seq: number) =>
    (events.at(-1)?.seq ?? -1) >= seq ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ seq, resolve }));
  return { events, until, done };
}

const skip = await postgresSkip();

describe('PostgreSQL notifications', { skip: skip ?? false }, () => {
  const schema = `sb_test_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let a: PostgresStore;
  let b: PostgresStore;
  before(async () => {
    // No polling in this test: every read is a wake-up's.
    a = await openPostgresStore({ url, schema, pollIntervalMs: 600_000, maxConnections: 4 });
    b = await openPostgresStore({ url, schema, pollIntervalMs: 600_000, maxConnections: 4 });
  });
  after(async () => {
    await a.close();
    await b.close();
    await dropSchema(schema);
  });

  test("a store's own appends do not make its tails read again; another instance's do wake them", async () => {
    const runId = rid('own');
    const events = demoRun('notify me', runId);
    await a.startRun({ chatId: runId, runId, userMessage: { content: 'notify me' } });
    const reads = countReads();
    const stop = new AbortController();
    const tails: Promise<void>[] = [];
    try {
      const own = follow(a, runId, stop.signal);
      tails.push(own.done);
      // A marker run written by the other instance: once its notification has woken a tail here,
      // every notification committed before it has been handled here too (one LISTEN connection, commit order).
      const marker = rid('marker');
      await b.startRun({ chatId: marker, runId: marker });
      const markerTail = follow(a, marker, stop.signal);
      tails.push(markerTail.done);
      // The tail's own first read is done once it has yielded the first batch.
      await a.append(events.slice(0, 3));
      await own.until(2);
      reads.reset();
      const batches = [events.slice(3, 6), events.slice(6, 9), events.slice(9, 12), events.slice(12)];
      for (const batch of batches) {
        await a.append(batch);
        await own.until((batch.at(-1) as CanonicalEvent).seq);
      }
      await b.append(demoRun('marker', marker).slice(0, 2));
      await markerTail.until(1);
      assert.equal(own.events.length, events.length);
      // Was a read of the log (and of the run's row) per commit, for each of its own commits.
      assert.equal(reads.of(runId), 0);
      // The other instance's append woke the tail here, which read it from the log.
      assert.ok(reads.of(marker) > 0);
    } finally {
      stop.abort();
      await Promise.allSettled(tails);
      reads.restore();
    }
  });
});
