/**
 * The store contract: the SAME tests against every backend (sqlite.test.ts, postgres.test.ts,
 * redis.test.ts call `contract`). A backend whose service is not reachable is skipped with a clear
 * message — except when `CI=true`, where that is a failure.
 *
 * Every test is deterministic: concurrency is exercised by interleaving promises, never by sleeping
 * or by timing thresholds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CanonicalEvent, createSseEncoder, PROTOCOLS, type Protocol } from '@switchboard/core';
import { validate } from '@switchboard/core/schema';
import fc from 'fast-check';

import { loadHistory, toUIMessages } from '../src/history.ts';
import { type AssistantMessage, Projector, project } from '../src/projection.ts';
import { recordRun } from '../src/record.ts';
import { replay } from '../src/replay.ts';
import { resumeEvents, resumeSse } from '../src/resume.ts';
import { type Store, StoreError } from '../src/store.ts';
import { anthropicFixture, type BackendSetup, decodeText, demoRun, kitchenSink, restamp, rid } from './support.ts';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Registers a run and appends its events in batches of the given sizes (the rest in one batch). */
async function ingest(
  store: Store,
  events: readonly CanonicalEvent[],
  opts: { chatId: string; sizes?: number[]; user?: string; userId?: string },
): Promise<void> {
  const runId = events[0].runId;
  await store.startRun({
    chatId: opts.chatId,
    runId,
    userMessage: { content: opts.user ?? 'hello', ...(opts.userId ? { id: opts.userId } : {}) },
  });
  let i = 0;
  for (const n of opts.sizes ?? []) {
    if (i >= events.length) break;
    await store.append(events.slice(i, i + Math.max(1, n)));
    i += Math.max(1, n);
  }
  if (i < events.length) await store.append(events.slice(i));
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof StoreError, `expected a StoreError, got ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

/** The SSE chunks of a whole run, per event (one encoder), and the chunks `end()` adds. */
function sseOf(events: readonly CanonicalEvent[], protocol: Protocol): { perEvent: string[][]; end: string[] } {
  const enc = createSseEncoder(protocol);
  // The encoder gives an event's SSE events as one string: split it into its SSE events (frames).
  const frames = (text: string[]) => text.flatMap((t) => t.split(/(?<=\n\n)/).filter((f) => f !== ''));
  const perEvent = events.map((e) => frames(enc.push(e)));
  return { perEvent, end: frames(enc.end()) };
}

const idOf = (frame: string) => /^id: (.*)$/m.exec(frame)?.[1];

/** The SSE text of a run in a protocol (what an uninterrupted client reads). */
function fullSse(events: readonly CanonicalEvent[], protocol: Protocol): string {
  const { perEvent, end } = sseOf(events, protocol);
  return [...perEvent.flat(), ...end].join('');
}

/** The stored assistant message of a run, as the projection of its log must give it. */
async function expectedMessage(store: Store, runId: string): Promise<AssistantMessage> {
  const run = await store.getRun(runId);
  assert.ok(run?.messageId);
  const events = await store.read(runId);
  return project(events, { runId, chatId: run.chatId, messageId: run.messageId });
}

export function contract(label: string, setup: BackendSetup): void {
  describe(`store contract: ${label}`, async () => {
    const env = await setup();
    if ('skip' in env) {
      test(`${label} is reachable`, (t) => {
        if (process.env.CI === 'true') assert.fail(`${env.skip.replace(/ — skipping$/, '')} (CI=true: a missing service is a failure)`);
        t.skip(env.skip);
      });
      return;
    }
    let store: Store;
    before(async () => {
      store = await env.open();
    });
    after(async () => {
      await store?.close();
      await env.cleanup();
    });

    test('migrations are idempotent: a second open of the same database works and sees the same data', async () => {
      const chat = await store.createChat({ title: 'migrations' });
      const again = await env.open();
      try {
        const version = (s: Store) => (s as unknown as { schemaVersion(): number | Promise<number> }).schemaVersion();
        assert.equal(await version(again), await version(store));
        assert.ok((await version(again)) >= 1);
        assert.deepEqual(await again.getChat(chat.id), chat);
      } finally {
        await again.close();
      }
    });

    test('healthCheck answers on an open store and changes nothing; a closed store fails it', async () => {
      const again = await env.open();
      const chat = await again.createChat({ title: 'health' });
      const before = await again.listChats({ limit: 1000 });
      await again.healthCheck();
      assert.deepEqual(await again.listChats({ limit: 1000 }), before);
      assert.deepEqual(await again.getChat(chat.id), chat);
      await again.close();
      await rejectsWith(again.healthCheck(), 'closed');
    });

    test('chats: create, get, update, list, conflict', async () => {
      const a = await store.createChat({ id: rid('chat'), title: 'A', metadata: { k: 1 } });
      assert.deepEqual(await store.getChat(a.id), a);
      await rejectsWith(store.createChat({ id: a.id }), 'conflict');
      const b = await store.createChat();
      assert.ok(b.id.length > 0);
      const renamed = await store.updateChat(a.id, { title: 'A2' });
      assert.equal(renamed.title, 'A2');
      assert.deepEqual((await store.getChat(a.id))?.metadata, { k: 1 });
      const ids = (await store.listChats({ limit: 1000 })).map((c) => c.id);
      assert.ok(ids.includes(a.id) && ids.includes(b.id));
      await rejectsWith(store.updateChat(rid('nochat'), { title: 'x' }), 'not_found');
      assert.equal(await store.getChat(rid('nochat')), undefined);
    });

    test('startRun: creates the chat and the user message, is idempotent, reuses a re-sent user message', async () => {
      const chatId = rid('chat');
      const runId = rid('run');
      const run = await store.startRun({ chatId, runId, userMessage: { id: 'u-1', content: 'What is the weather?' } });
      assert.equal(run.status, 'running');
      assert.equal(run.lastSeq, -1);
      assert.equal(run.userMessageId, 'u-1');
      assert.equal((await store.getChat(chatId))?.title, 'What is the weather?');
      assert.deepEqual(await store.startRun({ chatId, runId, userMessage: { id: 'u-1', content: 'What is the weather?' } }), run);
      await rejectsWith(store.startRun({ chatId: rid('other'), runId }), 'conflict');
      // Regenerate: the client sends the same last user message with a new run.
      const run2 = rid('run');
      await store.startRun({ chatId, runId: run2, userMessage: { id: 'u-1', content: 'What is the weather?' } });
      const messages = await store.listMessages(chatId);
      assert.deepEqual(
        messages.map((m) => [m.role, m.id, m.content, m.persistenceState]),
        [['user', 'u-1', 'What is the weather?', 'persisted']],
      );
      assert.deepEqual(
        (await store.listRuns(chatId)).map((r) => [r.id, r.status]),
        [
          [runId, 'running'],
          [run2, 'running'],
        ],
      );
      await store.interruptRun(runId);
      await store.interruptRun(run2);
    });

    test('append and read: one event per append, read from any seq, limits', async () => {
      const chatId = rid('chat');
      const events = demoRun('hello there', rid('run'));
      await ingest(store, events, { chatId, sizes: events.map(() => 1) });
      const runId = events[0].runId;
      assert.deepEqual(await store.read(runId), events);
      assert.deepEqual(await store.read(runId, { after: 10 }), events.slice(11));
      assert.deepEqual(await store.read(runId, { after: 10, limit: 5 }), events.slice(11, 16));
      assert.deepEqual(await store.read(runId, { after: events.length - 1 }), []);
      const run = await store.getRun(runId);
      assert.equal(run?.status, 'complete');
      assert.equal(run?.finishReason, 'stop');
      assert.equal(run?.lastSeq, events.length - 1);
      assert.deepEqual(await store.read(rid('nothing')), []);
    });

    test('idempotent append: the same events again are a no-op; a batch overlapping the log appends only the new part', async () => {
      const chatId = rid('chat');
      const events = demoRun('tool Rome', rid('run'));
      const runId = events[0].runId;
      await ingest(store, events.slice(0, 10), { chatId });
      const r1 = await store.append(events.slice(5, 20));
      assert.deepEqual([r1.appended, r1.duplicates, r1.lastSeq, r1.status], [10, 5, 19, 'running']);
      const r2 = await store.append(events.slice(0, 20));
      assert.deepEqual([r2.appended, r2.duplicates], [0, 20]);
      await store.append(events.slice(20));
      const r3 = await store.append(events);
      assert.deepEqual([r3.appended, r3.duplicates, r3.status], [0, events.length, 'complete']);
      // Key order does not make an event different.
      const reordered = Object.fromEntries(Object.entries(events[3]).reverse()) as unknown as CanonicalEvent;
      assert.equal((await store.append(reordered)).duplicates, 1);
      assert.deepEqual(await store.read(runId), events);
    });

    test('conflicting appends fail: a different event at a stored seq, a gap, disorder, anything after the end, an unknown run', async () => {
      const chatId = rid('chat');
      const events = demoRun('text hello world', rid('run'));
      const runId = events[0].runId;
      await ingest(store, events.slice(0, 4), { chatId });
      const changed = { ...events[2], delta: 'something else' } as CanonicalEvent;
      await rejectsWith(store.append(changed), 'conflict');
      await rejectsWith(store.append(events[6]), 'gap');
      await rejectsWith(store.append([events[5], events[4]]), 'invalid');
      await rejectsWith(store.append({ ...events[4], runId: '' } as CanonicalEvent), 'invalid');
      await store.append(events.slice(4));
      const late = { ...events[3], seq: events.length } as CanonicalEvent;
      await rejectsWith(store.append(late), 'finished');
      await rejectsWith(store.append({ ...events[1], runId: rid('ghost') } as CanonicalEvent), 'not_found');
      assert.deepEqual(await store.read(runId), events, 'failed appends left no trace');
    });

    test('a run-start with a chatId registers its run (and chat) by itself', async () => {
      const chatId = rid('chat');
      const events = restamp(demoRun('text hi', rid('run')), rid('run'), chatId);
      await store.append(events);
      const run = await store.getRun(events[0].runId);
      assert.equal(run?.chatId, chatId);
      assert.equal(run?.status, 'complete');
      assert.ok(await store.getChat(chatId));
      assert.deepEqual(
        (await store.listMessages(chatId)).map((m) => [m.role, m.content]),
        [['assistant', 'hi']],
      );
    });

    test('the assistant message agrees with its log, whatever the batching', async () => {
      const runs: [string, CanonicalEvent[]][] = [
        ['demo', demoRun('hello', 'x')],
        ['kitchen sink', kitchenSink('x')],
        ['anthropic thinking + tool', decodeText(anthropicFixture('thinking-text-tool-use.sse'), 'anthropic', 'x')],
        ['anthropic, 15 messages', decodeText(anthropicFixture('programmatic-tool-calling.1.chunks.txt'), 'anthropic', 'x')],
      ];
      for (const [name, base] of runs) {
        await fc.assert(
          fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 30 }), async (sizes) => {
            const events = restamp(base, rid('run'));
            const chatId = rid('chat');
            await ingest(store, events, { chatId, sizes });
            const runId = events[0].runId;
            const stored = await store.getMessage((await store.getRun(runId))?.messageId as string, chatId);
            assert.deepEqual(stored, await expectedMessage(store, runId), name);
            assert.equal(stored?.persistenceState, 'persisted');
            const list = await store.listMessages(chatId);
            assert.deepEqual(
              list.map((m) => m.role),
              ['user', 'assistant'],
            );
            assert.deepEqual(list[1], stored);
          }),
          { numRuns: 4 },
        );
      }
    });

    test('persistenceState: pending while the run streams (projected to its last event), persisted with run-finish', async () => {
      const chatId = rid('chat');
      const events = demoRun('text one two three four', rid('run'));
      const runId = events[0].runId;
      const textAt = events.findIndex((e) => e.type === 'text-delta');
      await ingest(store, events.slice(0, textAt + 2), { chatId, sizes: [1, 1, 1, 1, 1, 1, 1, 1] });
      const run = await store.getRun(runId);
      const live = await store.getMessage(run?.messageId as string);
      assert.equal(live?.persistenceState, 'pending');
      assert.equal(live?.role === 'assistant' && live.metadata.status, 'streaming');
      assert.equal(live?.content, 'one two ');
      assert.deepEqual(live, project(events.slice(0, textAt + 2), { runId, chatId, messageId: run?.messageId }, 'pending'));
      const [, listed] = await store.listMessages(chatId);
      assert.deepEqual(listed, live);
      await store.append(events.slice(textAt + 2));
      const done = await store.getMessage(run?.messageId as string);
      assert.equal(done?.persistenceState, 'persisted');
      assert.equal(done?.content, 'one two three four');
      assert.equal(done?.role === 'assistant' && done.metadata.status, 'complete');
    });

    test('live tail: no gap and no duplicate, whatever interleaves with the appends', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
          fc.array(fc.integer({ min: -1, max: 40 }), { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 0, max: 6 }),
          async (sizes, starts, lateStartBatch) => {
            const events = demoRun('tool Oslo', rid('run'));
            const runId = events[0].runId;
            await store.startRun({ chatId: rid('chat'), runId });
            const tails = starts.map((after) => collect(store.tail(runId, { after })));
            const late: Promise<CanonicalEvent[]>[] = [];
            let i = 0;
            for (const [k, n] of sizes.entries()) {
              if (i >= events.length) break;
              await store.append(events.slice(i, i + n));
              i += n;
              if (k === lateStartBatch) late.push(collect(store.tail(runId, { after: Math.min(i - 1, 3) })));
              // let the tails run between appends, at different points of their loops
              for (let y = 0; y < k % 3; y++) await Promise.resolve();
            }
            if (i < events.length) await store.append(events.slice(i));
            const got = await Promise.all(tails);
            for (const [t, after] of starts.entries()) {
              assert.deepEqual(
                got[t].map((e) => e.seq),
                events.filter((e) => e.seq > after).map((e) => e.seq),
              );
            }
            for (const l of await Promise.all(late)) assert.equal(l.at(-1)?.type, 'run-finish');
            // A tail of a finished run replays it and ends.
            assert.deepEqual(await collect(store.tail(runId)), events);
            assert.deepEqual(await collect(store.tail(runId, { after: events.length - 1 })), []);
          },
        ),
        { numRuns: 6 },
      );
    });

    test('live tail across two store instances (appends by one, tail on the other)', async () => {
      const other = await env.open();
      try {
        const events = demoRun('step', rid('run'));
        const runId = events[0].runId;
        await other.startRun({ chatId: rid('chat'), runId });
        const tailed = collect(store.tail(runId));
        for (let i = 0; i < events.length; i += 7) await other.append(events.slice(i, i + 7));
        assert.deepEqual(await tailed, events);
      } finally {
        await other.close();
      }
    });

    test('two writers on one run (two instances): a stale writer retries; nothing is lost, duplicated or wrongly projected', async () => {
      const other = await env.open();
      try {
        const chatId = rid('chat');
        const events = kitchenSink(rid('run'));
        const runId = events[0].runId;
        await store.startRun({ chatId, runId });
        await store.append(events.slice(0, 10));
        await other.append(events.slice(10, 20));
        await store.append(events.slice(10, 25)); // 10..19 are duplicates now, 20..24 new
        await other.append(events.slice(25, 30));
        await rejectsWith(store.append({ ...events[27], seq: 27, type: 'status', status: 'x' } as CanonicalEvent), 'conflict');
        await store.append(events.slice(30));
        assert.deepEqual(await store.read(runId), events);
        assert.deepEqual(await other.getMessage(`msg_${runId}`), await expectedMessage(store, runId));
      } finally {
        await other.close();
      }
    });

    test('a tail stops when its signal aborts', async () => {
      const events = demoRun('text hi', rid('run'));
      const runId = events[0].runId;
      await store.startRun({ chatId: rid('chat'), runId });
      await store.append(events.slice(0, 2));
      const ctl = new AbortController();
      const got: CanonicalEvent[] = [];
      const done = (async () => {
        for await (const e of store.tail(runId, { signal: ctl.signal })) {
          got.push(e);
          if (got.length === 2) ctl.abort();
        }
      })();
      await done;
      assert.deepEqual(got, events.slice(0, 2));
      await store.interruptRun(runId);
    });

    test('crash consistency: closed without finishing, reopened, the history is unchanged; interrupting it persists an error state', async () => {
      const chatId = rid('chat');
      const events = kitchenSink(rid('run'));
      const runId = events[0].runId;
      const half = events.slice(0, 40);
      const first = await env.open();
      await ingest(first, half, { chatId, sizes: half.map(() => 1) });
      const messages = await first.listMessages(chatId);
      const history = await loadHistory(first, chatId, 'ai-sdk');
      await first.close(); // no run-finish: the producer "died"

      const reopened = await env.open();
      try {
        assert.deepEqual(await reopened.read(runId), half);
        assert.deepEqual(await reopened.listMessages(chatId), messages);
        assert.deepEqual(await loadHistory(reopened, chatId, 'ai-sdk'), history);
        assert.equal((await reopened.getRun(runId))?.status, 'running');
        assert.equal(messages[1].persistenceState, 'pending');

        assert.deepEqual(await reopened.recoverRuns({ olderThanMs: 3_600_000 }), [], 'a recently active run is left alone');
        const r = await reopened.interruptRun(runId);
        assert.equal(r.status, 'error');
        const log = await reopened.read(runId);
        assert.deepEqual(validate(log).issues, [], 'the closed log is well formed');
        assert.deepEqual(log.slice(0, half.length), half);
        const message = (await reopened.listMessages(chatId))[1];
        assert.ok(message.role === 'assistant');
        assert.equal(message.persistenceState, 'persisted');
        assert.equal(message.metadata.status, 'error');
        assert.equal(message.metadata.error?.code, 'interrupted');
        assert.deepEqual(message, await expectedMessage(reopened, runId));
        assert.equal((await reopened.interruptRun(runId)).appended, 0, 'interrupting a finished run is a no-op');
      } finally {
        await reopened.close();
      }
    });

    test('recoverRuns interrupts runs left running (also one that never got an event)', async () => {
      const other = await env.open();
      try {
        const chatId = rid('chat');
        const runId = rid('run');
        await other.startRun({ chatId, runId, userMessage: { content: 'hi' } });
        const recovered = await other.recoverRuns();
        assert.ok(recovered.includes(runId));
        const log = await other.read(runId);
        assert.deepEqual(
          log.map((e) => e.type),
          ['run-start', 'error', 'run-finish'],
        );
        assert.deepEqual(validate(log).issues, []);
        assert.equal((await other.getRun(runId))?.status, 'error');
      } finally {
        await other.close();
      }
    });

    test('group commit: appends of many runs at once are all stored, each resolves after its commit, tails see every event once', async () => {
      const chatId = rid('chat');
      // A different answer per run: a message written with another run's metadata would show.
      const runs = Array.from({ length: 12 }, (_, i) => demoRun(`text group ${i} ${'word '.repeat(i)}`, rid('run')));
      for (const events of runs) await store.startRun({ chatId: `${chatId}-${events[0].runId}`, runId: events[0].runId });
      const tails = runs.map((events) => collect(store.tail(events[0].runId)));
      // Every run appends in small batches, all interleaved: they share group commits.
      await Promise.all(
        runs.map(async (events) => {
          for (let i = 0; i < events.length; i += 3) {
            const r = await store.append(events.slice(i, i + 3));
            // Acknowledged = durable: what the append returned is readable at once.
            assert.equal((await store.read(events[0].runId, { after: r.lastSeq - 1 })).length, 1);
          }
        }),
      );
      const tailed = await Promise.all(tails);
      for (let i = 0; i < runs.length; i++) {
        const runId = runs[i][0].runId;
        assert.deepEqual(await store.read(runId), runs[i]);
        assert.deepEqual(tailed[i], runs[i]);
        // Its message, written in the same groups (first commit and last), is its own.
        const run = await store.getRun(runId);
        const message = await store.getMessage(run?.messageId as string);
        assert.deepEqual(message, project(runs[i], { runId, chatId: `${chatId}-${runId}`, messageId: run?.messageId }, 'persisted'));
      }
    });

    test('group commit: one failing append (a stale writer elsewhere) does not fail the others in its group', async () => {
      const other = await env.open();
      try {
        const a = demoRun('a', rid('run'));
        const b = demoRun('b', rid('run'));
        await store.startRun({ chatId: rid('chat'), runId: a[0].runId });
        await store.startRun({ chatId: rid('chat'), runId: b[0].runId });
        await store.append(a.slice(0, 5));
        await other.append(a.slice(5, 8)); // store's cached view of run a is stale now
        const [ra, rb] = await Promise.all([store.append(a.slice(5, 10)), store.append(b.slice(0, 4))]);
        assert.equal(ra.lastSeq, 9);
        assert.equal(rb.lastSeq, 3);
        assert.deepEqual(await store.read(a[0].runId), a.slice(0, 10));
        assert.deepEqual(await store.read(b[0].runId), b.slice(0, 4));
      } finally {
        await other.close();
      }
    });

    test('one run at a time per chat (exclusive): of ten concurrent starts exactly one wins, the others get conflict', async () => {
      const chatId = rid('chat');
      const other = await env.open();
      try {
        const ids = Array.from({ length: 10 }, () => rid('run'));
        const results = await Promise.allSettled(
          ids.map((runId, i) => (i % 2 ? other : store).startRun({ chatId, runId, exclusive: true, userMessage: { content: `m${i}` } })),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        assert.equal(won.length, 1, `${won.length} starts won`);
        for (const r of results)
          if (r.status === 'rejected') {
            assert.ok(r.reason instanceof StoreError && r.reason.code === 'conflict', String(r.reason));
            assert.match(r.reason.message, /has a run in progress/);
          }
        const running = (await store.listRuns(chatId)).filter((r) => r.status === 'running');
        assert.equal(running.length, 1);
        // Once it has ended, the chat takes a new run; a non-exclusive start is not checked.
        await store.interruptRun(running[0].id);
        await store.startRun({ chatId, runId: rid('run'), exclusive: true });
        await store.startRun({ chatId, runId: rid('run') });
      } finally {
        await other.close();
      }
    });

    test('newChat: the chat is created with the run and its metadata; a chat that exists fails the start with conflict, and nothing is stored', async () => {
      const chatId = rid('chat');
      const runId = rid('run');
      const run = await store.startRun({
        chatId,
        runId,
        exclusive: true,
        title: 'new',
        userMessage: { content: 'hi' },
        newChat: { metadata: { owner: 'alice', agent: 'demo' } },
      });
      assert.deepEqual(run, await store.getRun(runId), 'the run returned is the stored one');
      const chat = await store.getChat(chatId);
      assert.equal(chat?.title, 'new');
      assert.deepEqual(chat?.metadata, { owner: 'alice', agent: 'demo' });
      assert.deepEqual(
        (await store.listChats({ owner: 'alice' })).map((c) => c.id),
        [chatId],
      );
      const again = rid('run');
      await assert.rejects(
        store.startRun({ chatId, runId: again, userMessage: { content: 'mine?' }, newChat: { metadata: { owner: 'bob' } } }),
        (err: unknown) => err instanceof StoreError && err.code === 'conflict' && /already exists/.test(err.message),
      );
      assert.equal(await store.getRun(again), undefined);
      assert.deepEqual((await store.getChat(chatId))?.metadata, { owner: 'alice', agent: 'demo' });
      assert.equal((await store.listMessages(chatId)).length, 1);
    });

    test('leases: renewed by their holder only; recoverRuns({ expiredLeases }) interrupts the runs whose lease ended, and only those', async () => {
      const t = Date.now();
      const [gone, alive, free] = [rid('run'), rid('run'), rid('run')];
      await store.startRun({ chatId: rid('chat'), runId: gone, lease: { holder: 'i1', until: t - 1 } });
      await store.startRun({ chatId: rid('chat'), runId: alive, lease: { holder: 'i2', until: t - 1 } });
      await store.startRun({ chatId: rid('chat'), runId: free });
      await store.renewLeases('i2', [alive, gone], t + 60_000);
      assert.equal((await store.getRun(alive))?.leaseUntil, t + 60_000);
      assert.equal((await store.getRun(gone))?.leaseUntil, t - 1);
      assert.equal((await store.getRun(gone))?.leaseHolder, 'i1');
      const recovered = await store.recoverRuns({ expiredLeases: true, reason: 'its server is gone' });
      assert.ok(recovered.includes(gone));
      assert.ok(!recovered.includes(alive) && !recovered.includes(free));
      const log = await store.read(gone);
      assert.deepEqual(
        log.map((e) => e.type),
        ['run-start', 'error', 'run-finish'],
      );
      assert.equal((log[1] as { code?: string }).code, 'interrupted');
      assert.equal((await store.getRun(gone))?.status, 'error');
      assert.equal((await store.getRun(alive))?.status, 'running');
      await store.interruptRun(alive);
      await store.interruptRun(free);
    });

    test("chats by owner: listChats({ owner }) returns exactly that owner's chats, newest first, and follows metadata changes", async () => {
      const owner = rid('owner');
      const a = await store.createChat({ id: rid('chat'), metadata: { owner } });
      await store.createChat({ id: rid('chat'), metadata: { owner: `${owner}-other` } });
      const b = await store.createChat({ id: rid('chat'), metadata: { owner, x: 1 } });
      await store.updateChat(a.id, { title: 'touched' });
      const listed = await store.listChats({ owner });
      assert.deepEqual(listed.map((c) => c.id).sort(), [a.id, b.id].sort());
      assert.ok(listed[0].updatedAt >= listed[1].updatedAt, 'most recently updated first');
      assert.deepEqual(
        (await store.listChats({ owner, limit: 1, offset: 1 })).map((c) => c.id),
        [listed[1].id],
      );
      await store.updateChat(b.id, { metadata: { owner: `${owner}-other` } });
      assert.deepEqual(
        (await store.listChats({ owner })).map((c) => c.id),
        [a.id],
      );
      await store.startRun({ chatId: a.id, runId: rid('run') });
      assert.deepEqual(
        (await store.listChats({ owner })).map((c) => c.id),
        [a.id],
      );
    });

    test('deleting a chat removes its runs, events and messages', async () => {
      const chatId = rid('chat');
      const a = demoRun('hello', rid('run'));
      const b = demoRun('tool', rid('run'));
      await ingest(store, a, { chatId });
      await ingest(store, b, { chatId, user: 'tool' });
      const keep = demoRun('text keep me', rid('run'));
      const keepChat = rid('chat');
      await ingest(store, keep, { chatId: keepChat });
      const ids = (await store.listMessages(chatId)).map((m) => m.id);
      assert.equal(ids.length, 4);
      assert.equal(await store.deleteChat(chatId), true);
      assert.equal(await store.getChat(chatId), undefined);
      assert.deepEqual(await store.listMessages(chatId), []);
      assert.deepEqual(await store.listRuns(chatId), []);
      for (const run of [a, b]) {
        assert.equal(await store.getRun(run[0].runId), undefined);
        assert.deepEqual(await store.read(run[0].runId), []);
      }
      for (const id of ids) assert.equal(await store.getMessage(id), undefined);
      assert.ok(!(await store.listChats({ limit: 10_000 })).some((c) => c.id === chatId));
      assert.equal(await store.deleteChat(chatId), false);
      assert.deepEqual(await store.read(keep[0].runId), keep, 'other chats are untouched');
    });

    test('a chat with several runs lists its messages in order; a reused message id gets a run-scoped one', async () => {
      const chatId = rid('chat');
      const anthropic = anthropicFixture('text-basic.sse');
      const r1 = decodeText(anthropic, 'anthropic', rid('run'));
      const r2 = decodeText(anthropic, 'anthropic', rid('run')); // same provider message id
      await ingest(store, r1, { chatId, user: 'first' });
      await ingest(store, r2, { chatId, user: 'second' });
      const messages = await store.listMessages(chatId);
      assert.deepEqual(
        messages.map((m) => [m.role, m.runId]),
        [
          ['user', r1[0].runId],
          ['assistant', r1[0].runId],
          ['user', r2[0].runId],
          ['assistant', r2[0].runId],
        ],
      );
      const first = r1[0].type === 'run-start' ? r1[0].messageId : '';
      assert.equal(messages[1].id, first);
      assert.equal(messages[3].id, `${first}~${r2[0].runId}`);
      assert.deepEqual(
        (await store.listRuns(chatId)).map((r) => r.status),
        ['complete', 'complete'],
      );
      const ui = await loadHistory(store, chatId, 'ai-sdk');
      assert.deepEqual(
        ui.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant'],
      );
      assert.deepEqual(ui[0].parts, [{ type: 'text', text: 'first' }]);
      assert.deepEqual(toUIMessages(messages), ui);
    });

    describe('resume', () => {
      const protocols = Object.keys(PROTOCOLS) as Protocol[];
      const runs: [string, CanonicalEvent[]][] = [
        ['demo', demoRun('hello', 'x')],
        ['anthropic thinking + tool', decodeText(anthropicFixture('thinking-text-tool-use.sse'), 'anthropic', 'x')],
      ];

      for (const protocol of protocols) {
        test(`${protocol}: after the run finished, from any frame id, byte for byte`, async () => {
          for (const [name, base] of runs) {
            const events = restamp(base, rid('run'));
            const runId = events[0].runId;
            await ingest(store, events, { chatId: rid('chat') });
            const { perEvent, end } = sseOf(events, protocol);
            const frames = perEvent.flat();
            const full = [...frames, ...end].join('');
            assert.equal(fullSse(events, protocol), full);
            assert.equal((await collect(resumeSse(store, runId, protocol))).join(''), full, `${name}: no Last-Event-ID`);
            assert.equal((await collect(resumeSse(store, runId, protocol, 'not-an-id'))).join(''), full);
            assert.equal((await collect(resumeSse(store, runId, protocol, idOf(frames.at(-1) as string)))).join(''), end.join(''));
            await fc.assert(
              fc.asyncProperty(fc.integer({ min: 0, max: frames.length - 1 }), async (cut) => {
                const id = idOf(frames[cut]);
                assert.ok(id !== undefined, 'every frame has an id');
                const rest = (await collect(resumeSse(store, runId, protocol, id))).join('');
                assert.equal(frames.slice(0, cut + 1).join('') + rest, full, `${name}: resumed after ${id}`);
              }),
              { numRuns: 15 },
            );
          }
        });

        test(`${protocol}: while the run is live (appends interleaved with the resumed stream), byte for byte`, async () => {
          const base = runs[0][1];
          await fc.assert(
            fc.asyncProperty(
              fc.nat(),
              fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 12 }),
              async (cutSeed, sizes) => {
                const events = restamp(base, rid('run'));
                const runId = events[0].runId;
                await store.startRun({ chatId: rid('chat'), runId });
                const { perEvent, end } = sseOf(events, protocol);
                const owner: number[] = [];
                const frames: string[] = [];
                perEvent.forEach((fs, i) => {
                  for (const f of fs) {
                    frames.push(f);
                    owner.push(i);
                  }
                });
                const full = [...frames, ...end].join('');
                // The client read frames[0..cut] live, then lost the connection.
                const cut = cutSeed % frames.length;
                let appended = owner[cut]; // index of the last appended event
                await store.append(events.slice(0, appended + 1));
                const it = resumeSse(store, runId, protocol, idOf(frames[cut]))[Symbol.asyncIterator]();
                const got: string[] = [];
                // The text of the frames appended so far after the cut (chunks are pages of frames, not frames).
                const expectedChars = () =>
                  frames.reduce((n, f, k) => (owner[k] <= appended && k > cut ? n + f.length : n), 0) +
                  (appended === events.length - 1 ? end.join('').length : 0);
                const pull = async () => {
                  let have = got.join('').length;
                  while (have < expectedChars()) {
                    const next = await it.next();
                    assert.ok(!next.done, 'the resumed stream ended early');
                    got.push(next.value);
                    have += next.value.length;
                  }
                  assert.equal(have, expectedChars(), 'no frame before its event is appended');
                };
                await pull();
                for (const n of sizes) {
                  if (appended >= events.length - 1) break;
                  const upto = Math.min(events.length - 1, appended + n);
                  await store.append(events.slice(appended + 1, upto + 1));
                  appended = upto;
                  await pull();
                }
                if (appended < events.length - 1) {
                  await store.append(events.slice(appended + 1));
                  appended = events.length - 1;
                }
                for (let next = await it.next(); !next.done; next = await it.next()) got.push(next.value);
                assert.equal(frames.slice(0, cut + 1).join('') + got.join(''), full);
              },
            ),
            { numRuns: 6 },
          );
        });
      }

      test('WebSocket-style: canonical events after the last sequence number, then live', async () => {
        const events = restamp(runs[0][1], rid('run'));
        const runId = events[0].runId;
        await store.startRun({ chatId: rid('chat'), runId });
        await store.append(events.slice(0, 20));
        const resumed = collect(resumeEvents(store, runId, 11));
        await store.append(events.slice(20));
        assert.deepEqual(await resumed, events.slice(12));
        assert.deepEqual(await collect(resumeEvents(store, runId)), events);
      });
    });

    test('replay of a stored run at its recorded pace (injected clock)', async () => {
      const events = restamp(kitchenSink('x'), rid('run'));
      const runId = events[0].runId;
      await ingest(store, events, { chatId: rid('chat') });
      let now = 0;
      const sleeps: number[] = [];
      const clock = {
        now: () => now,
        sleep: async (ms: number) => {
          sleeps.push(ms);
          now += ms;
        },
      };
      const got = await collect(replay(store, runId, { clock, speed: 2 }));
      assert.deepEqual(got, events);
      assert.deepEqual(
        sleeps,
        events.slice(1).map(() => 500),
      );
    });

    test('recordRun: appends each event before passing it on; a stream that stops early is interrupted', async () => {
      const chatId = rid('chat');
      const events = restamp(demoRun('hello', 'x'), rid('run'));
      const runId = events[0].runId;
      const seen: number[] = [];
      for await (const e of recordRun(store, { chatId, runId, userMessage: { content: 'hello' } }, events)) {
        assert.equal((await store.getRun(runId))?.lastSeq, e.seq, 'stored before it is passed on');
        seen.push(e.seq);
      }
      assert.equal(seen.length, events.length);
      assert.deepEqual(await store.read(runId), events);

      const cut = restamp(demoRun('hello', 'x'), rid('run'));
      for await (const e of recordRun(store, { chatId, runId: cut[0].runId }, cut)) if (e.seq === 10) break;
      const run = await store.getRun(cut[0].runId);
      assert.equal(run?.status, 'error');
      assert.deepEqual(validate(await store.read(cut[0].runId)).issues, []);
      // A live message is left out of the AI SDK history on request (useChat resumeStream replays it).
      const live = restamp(demoRun('hello', 'x'), rid('run'));
      await ingest(store, live.slice(0, 5), { chatId });
      assert.equal((await loadHistory(store, chatId, 'ai-sdk')).length, 5);
      assert.equal((await loadHistory(store, chatId, 'ai-sdk', { includePending: false })).length, 4);
      await store.interruptRun(live[0].runId);
    });

    test('history of a stored chat in every protocol', async () => {
      const chatId = rid('chat');
      const events = restamp(demoRun('hello', 'x'), rid('run'));
      await ingest(store, events, { chatId, user: 'hello' });
      const ui = await loadHistory(store, chatId, 'ai-sdk');
      assert.deepEqual(
        ui.map((m) => m.role),
        ['user', 'assistant'],
      );
      const agui = await loadHistory(store, chatId, 'ag-ui');
      assert.equal(agui.type, 'MESSAGES_SNAPSHOT');
      assert.equal(agui.messages[0].role, 'user');
      const timeline = await loadHistory(store, chatId, 'timeline');
      assert.equal(timeline[0].type, 'user_message');
      const canonical = await loadHistory(store, chatId, 'canonical');
      assert.deepEqual(canonical[1], {
        kind: 'run',
        runId: events[0].runId,
        messageId: (await store.getRun(events[0].runId))?.messageId,
        status: 'complete',
        events,
      });
      await rejectsWith(loadHistory(store, rid('nochat'), 'ai-sdk'), 'not_found');
    });

    test('a continuation run adds to the message it continues: one assistant message, both runs, the answer in its part', async () => {
      const chatId = rid('chat');
      const messageId = rid('msg');
      const stamp = (runId: string, list: object[]) =>
        list.map((e, seq) => ({ ...e, runId, seq, ts: 1_763_870_000_000 + seq }) as CanonicalEvent);
      const r1 = rid('run');
      const call = { toolCallId: 'call_1', toolName: 'delete_file' };
      const first = stamp(r1, [
        { type: 'run-start', version: 2, messageId, chatId },
        { type: 'step-start', stepId: 'step-1', kind: 'model' },
        { type: 'tool-input-start', ...call },
        { type: 'tool-input-end', ...call, input: { path: 'notes.txt' } },
        { type: 'tool-approval-request', approvalId: 'approval_1', toolCallId: 'call_1', reason: 'cannot be undone' },
        { type: 'step-finish', stepId: 'step-1' },
        { type: 'run-finish', finishReason: 'tool-calls', pending: { approvalIds: ['approval_1'] } },
      ]);
      await ingest(store, first, { chatId, user: 'approval' });
      const waiting = (await store.listMessages(chatId))[1] as AssistantMessage;
      assert.deepEqual(waiting.metadata.pending, { approvalIds: ['approval_1'] });
      const asked = (await loadHistory(store, chatId, 'ai-sdk', { metadata: false }))[1];
      assert.deepEqual(asked.parts.at(-1), {
        type: 'tool-delete_file',
        toolCallId: 'call_1',
        state: 'approval-requested',
        input: { path: 'notes.txt' },
        approval: { id: 'approval_1', requestReason: 'cannot be undone' },
      });

      const r2 = rid('run');
      const second = stamp(r2, [
        { type: 'run-start', version: 2, messageId, chatId },
        { type: 'tool-approval-response', approvalId: 'approval_1', toolCallId: 'call_1', approved: true, by: 'alice' },
        { type: 'tool-output', toolCallId: 'call_1', output: { deleted: 'notes.txt' } },
        { type: 'step-start', stepId: 'step-1', kind: 'model' },
        { type: 'text-start', blockId: 't' },
        { type: 'text-delta', blockId: 't', delta: 'Deleted notes.txt' },
        { type: 'text-end', blockId: 't' },
        { type: 'step-finish', stepId: 'step-1' },
        { type: 'run-finish', finishReason: 'stop' },
      ]);
      await store.startRun({ chatId, runId: r2, messageId });
      await store.append(second.slice(0, 4));
      // While it runs: one message, re-projected with the run it continues.
      const live = await store.listMessages(chatId);
      assert.equal(live.length, 2);
      assert.equal(live[1].id, messageId);
      assert.equal((live[1] as AssistantMessage).persistenceState, 'pending');
      await store.append(second.slice(4));

      const messages = await store.listMessages(chatId);
      assert.deepEqual(
        messages.map((m) => [m.role, m.id === messageId, m.runId]),
        [
          ['user', false, r1],
          ['assistant', true, r2],
        ],
      );
      const m = messages[1] as AssistantMessage;
      assert.deepEqual(m.metadata.runs, [r1, r2]);
      assert.equal(m.metadata.pending, undefined);
      assert.equal(m.content, 'Deleted notes.txt');
      const chain = new Projector({ runId: r2, chatId, messageId }).applyAll(first).continueWith().applyAll(second);
      assert.deepEqual(m, chain.snapshot('persisted'));
      const ui = await loadHistory(store, chatId, 'ai-sdk', { metadata: false });
      assert.deepEqual(
        ui[1].parts.filter((p) => p.type !== 'step-start'),
        [
          {
            type: 'tool-delete_file',
            toolCallId: 'call_1',
            state: 'output-available',
            input: { path: 'notes.txt' },
            output: { deleted: 'notes.txt' },
            approval: { id: 'approval_1', requestReason: 'cannot be undone', approved: true },
          },
          { type: 'text', text: 'Deleted notes.txt', state: 'done' },
        ],
      );
      const agui = await loadHistory(store, chatId, 'ag-ui');
      assert.deepEqual(
        agui.messages.map((x) => x.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
      const canonical = await loadHistory(store, chatId, 'canonical');
      assert.deepEqual(
        canonical.map((i) => (i.kind === 'run' ? [i.runId, i.messageId, i.events.length] : i.kind)),
        ['message', [r1, messageId, first.length], [r2, messageId, second.length]],
      );
    });

    test('message ids are per chat: two chats with the same client ids each show theirs; re-sends and continuations find them; a delete leaves the other chat', async () => {
      const [chatA, chatB] = [rid('chat'), rid('chat')];
      const question = rid('q');
      const answer = rid('a');
      const stamp = (runId: string, list: object[]) =>
        list.map((e, seq) => ({ ...e, runId, seq, ts: 1_763_870_000_000 + seq }) as CanonicalEvent);
      // A run that ends waiting for an approval, answering `question` with message `answer`.
      const asking = (chatId: string) =>
        stamp(rid('run'), [
          { type: 'run-start', version: 2, messageId: answer, chatId },
          { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'delete_file' },
          { type: 'tool-input-end', toolCallId: 'call_1', toolName: 'delete_file', input: { path: `${chatId}.txt` } },
          { type: 'tool-approval-request', approvalId: 'approval_1', toolCallId: 'call_1' },
          { type: 'run-finish', finishReason: 'tool-calls', pending: { approvalIds: ['approval_1'] } },
        ]);
      const a = asking(chatA);
      const b = asking(chatB);
      await ingest(store, a, { chatId: chatA, user: 'in A', userId: question });
      await ingest(store, b, { chatId: chatB, user: 'in B', userId: question });
      const shown = async (chatId: string) => (await store.listMessages(chatId)).map((m) => [m.role, m.id, m.chatId, m.runId, m.content]);
      const inA = [
        ['user', question, chatA, a[0].runId, 'in A'],
        ['assistant', answer, chatA, a[0].runId, ''],
      ];
      assert.deepEqual(await shown(chatA), inA);
      assert.deepEqual(await shown(chatB), [
        ['user', question, chatB, b[0].runId, 'in B'],
        ['assistant', answer, chatB, b[0].runId, ''],
      ]);
      const ids = (r: { messageId?: string; userMessageId?: string } | undefined) => [r?.messageId, r?.userMessageId];
      assert.deepEqual((await store.listRuns(chatB)).map(ids), [[answer, question]]);
      assert.deepEqual(ids(await store.getRun(b[0].runId)), [answer, question]);
      // By id in a chat: that chat's message; in a chat without it: none.
      assert.equal((await store.getMessage(question, chatB))?.content, 'in B');
      assert.equal((await store.getMessage(answer, chatB))?.runId, b[0].runId);
      assert.equal((await store.getMessage(answer, chatA))?.runId, a[0].runId);
      assert.equal(await store.getMessage(question, rid('chat')), undefined);
      const ui = await loadHistory(store, chatB, 'ai-sdk', { metadata: false });
      assert.deepEqual(
        ui.map((m) => m.id),
        [question, answer],
      );
      const canonical = await loadHistory(store, chatB, 'canonical');
      assert.deepEqual(
        canonical.map((x) => (x.kind === 'message' ? x.message.id : x.messageId)),
        [question, answer],
      );

      // A continuation in B adds to B's message.
      const r2 = rid('run');
      const answered = stamp(r2, [
        { type: 'run-start', version: 2, messageId: answer, chatId: chatB },
        { type: 'tool-approval-response', approvalId: 'approval_1', toolCallId: 'call_1', approved: true },
        { type: 'text-start', blockId: 't' },
        { type: 'text-delta', blockId: 't', delta: 'Deleted' },
        { type: 'text-end', blockId: 't' },
        { type: 'run-finish', finishReason: 'stop' },
      ]);
      assert.deepEqual(ids(await store.startRun({ chatId: chatB, runId: r2, messageId: answer })), [answer, undefined]);
      await store.append(answered);
      const continued = (await store.listMessages(chatB))[1] as AssistantMessage;
      assert.deepEqual(
        [continued.id, continued.runId, continued.metadata.runs, continued.content],
        [answer, r2, [b[0].runId, r2], 'Deleted'],
      );
      assert.deepEqual(ids(await store.getRun(r2)), [answer, undefined]);

      // A re-send of the question in B (a regenerate) reuses B's user message.
      const again = restamp(demoRun('hello', rid('msg')), rid('run'));
      await ingest(store, again, { chatId: chatB, user: 'in B', userId: question });
      assert.deepEqual(ids(await store.getRun(again[0].runId)), [again[0].type === 'run-start' ? again[0].messageId : '', question]);
      assert.deepEqual(
        (await store.listMessages(chatB)).map((m) => [m.role, m.id === question]),
        [
          ['user', true],
          ['assistant', false],
          ['assistant', false],
        ],
      );
      assert.deepEqual(await shown(chatA), inA, "A's chat is unchanged");

      // Deleting A leaves B; a re-send in B still finds B's message, and a new chat takes the id A had.
      const inB = await store.listMessages(chatB);
      assert.equal(await store.deleteChat(chatA), true);
      assert.deepEqual(await store.listMessages(chatA), []);
      assert.deepEqual(await store.listMessages(chatB), inB);
      await ingest(store, restamp(demoRun('hello', rid('msg')), rid('run')), { chatId: chatB, user: 'in B', userId: question });
      assert.equal((await store.listMessages(chatB)).filter((m) => m.role === 'user').length, 1);
      const chatC = rid('chat');
      await ingest(store, asking(chatC), { chatId: chatC, user: 'in C', userId: question });
      assert.deepEqual(
        (await store.listMessages(chatC)).map((m) => [m.id, m.chatId]),
        [
          [question, chatC],
          [answer, chatC],
        ],
      );
      assert.equal(await store.deleteChat(chatB), true);
      assert.equal(await store.getMessage(question, chatB), undefined);
      assert.deepEqual(await store.listMessages(chatB), []);
      assert.equal((await store.getMessage(question, chatC))?.content, 'in C');
    });
  });
}
