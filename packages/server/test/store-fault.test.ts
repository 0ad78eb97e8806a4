/**
 * A store that fails under its followers: a switch makes the store's reads reject (its writes go
 * on, so the run does not notice). Each protocol's follower ends with its own error ending — AI SDK
 * `error` + `finish` + `[DONE]`, AG-UI `RUN_ERROR`, the WebSocket `error` — with the located
 * message `store read failed: <reason>`, logged once; the run completes in the store; once the
 * switch is off, the client resumes from its last frame and gets everything after it, nothing lost
 * and nothing twice. A follower whose first read fails gets the JSON error (503). On SQLite, and
 * once more on PostgreSQL (skipped with a message when it is not reachable, except with CI=true).
 * The agent waits at a gate the test opens: no sleeps, no timing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgresStore, openSqliteStore, resumeSseResponse, type Store, StoreReadError } from '@switchboard/store';

import { runAgUi } from '../../../test/support/ag-ui-oracle.ts';
import { assembleChunks, parseAiSdkSse } from '../../../test/support/ai-sdk-oracle.ts';
import { dropSchema, POSTGRES_URL, postgresSkip } from '../../store/test/support.ts';
import { type RunningServer, startServer } from '../src/server/start.ts';
import {
  api,
  BodyReader,
  completeEvents,
  Gate,
  gatedAgent,
  isComplete,
  quietLogger,
  sseData,
  testConfig,
  userMessage,
  WsClient,
} from './gateway-support.ts';

/** What the failing reads reject with (what a PostgreSQL connection cut gives). */
const REASON = 'Connection terminated unexpectedly';
const LOCATED = `store read failed: ${REASON}`;

/** The store's reads (tails aside): what the switch makes reject. */
const READS = new Set(['getChat', 'listChats', 'getRun', 'listRuns', 'read', 'listMessages', 'getMessage']);

/** `inner`, with a switch: `'reads'` makes every read reject, `'tails'` only the tails; writes always go on. */
function faultSwitch(inner: Store): { store: Store; fail: (what: 'reads' | 'tails' | undefined) => void } {
  let failing: 'reads' | 'tails' | undefined;
  const check = (tail: boolean) => {
    if (failing === 'reads' || (failing === 'tails' && tail)) throw new Error(REASON);
  };
  // A page read while the switch is on is not handed out: the tail's read rejected.
  async function* faulty<T>(tail: AsyncIterable<T>): AsyncGenerator<T> {
    check(true);
    for await (const item of tail) {
      check(true);
      yield item;
    }
  }
  const store = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      if (key === 'tail' || key === 'tailPages') return (...args: unknown[]) => faulty(value.apply(target, args));
      if (typeof key === 'string' && READS.has(key))
        return async (...args: unknown[]) => {
          check(false);
          return value.apply(target, args);
        };
      return value.bind(target);
    },
  });
  return {
    store,
    fail: (what) => {
      failing = what;
    },
  };
}

/** The frames a follower got: those the store holds (with ids), and the error ending after them (without). */
function splitEnding(text: string): { stored: string; ending: string } {
  const events = text.split('\n\n').filter(Boolean);
  const last = events.findLastIndex((e) => e.startsWith('id: '));
  assert.ok(
    events.slice(0, last + 1).every((e) => e.startsWith('id: ')),
    'every stored frame has an id',
  );
  const join = (list: string[]) => list.map((e) => `${e}\n\n`).join('');
  return { stored: join(events.slice(0, last + 1)), ending: join(events.slice(last + 1)) };
}

const frames = (text: string) => text.split('\n\n').filter(Boolean).length;

interface Backend {
  name: string;
  skip: string | undefined;
  open: () => Promise<Store>;
  cleanup?: () => Promise<void>;
}

const schema = `sb_fault_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
const pgSkip = await postgresSkip();
if (pgSkip) console.log(`# ${pgSkip}`);
const backends: Backend[] = [
  { name: 'SQLite', skip: undefined, open: () => openSqliteStore({ path: ':memory:' }) },
  {
    name: 'PostgreSQL',
    skip: pgSkip,
    open: () => openPostgresStore({ url: POSTGRES_URL, schema, pollIntervalMs: 50 }),
    cleanup: () => dropSchema(schema),
  },
];

for (const backend of backends) {
  describe(`followers on a store that fails (${backend.name})`, { skip: backend.skip ?? false }, () => {
    let inner: Store;
    let fault: ReturnType<typeof faultSwitch>;
    const errors: unknown[] = [];
    const located = () => errors.filter((e) => e instanceof StoreReadError);
    let gate: Gate;
    let s: RunningServer;
    let agent: ReturnType<typeof gatedAgent>;

    before(async () => {
      inner = await backend.open();
      fault = faultSwitch(inner);
    });
    after(async () => {
      await inner.close();
      await backend.cleanup?.();
    });

    /** A server whose `gated` agent waits at a new gate. */
    async function serve(): Promise<void> {
      fault.fail(undefined);
      gate = new Gate();
      agent = gatedAgent('gated', gate);
      errors.length = 0;
      s = await startServer({
        port: 0,
        config: testConfig(),
        store: fault.store,
        agents: [agent.spec],
        onDisconnect: 'continue',
        runOptions: { logger: quietLogger() },
        onError: (err) => errors.push(err),
      });
    }

    /** Waits for the run to end here, then checks it completed in the store (read past the switch). */
    async function completed(runId: string): Promise<void> {
      await s.core.runs.get(runId)?.done;
      const run = await inner.getRun(runId);
      assert.equal(run?.status, 'complete');
      assert.ok((await inner.read(runId)).some((e) => e.type === 'text-delta' && e.delta === 'half.'));
    }

    /**
     * Follows `res` to the first half of the answer, then fails the store's reads and lets the run
     * go on: what the follower got, split into the stored frames and the error ending.
     */
    async function followThroughFault(res: Response): Promise<{ got: string; stored: string; ending: string }> {
      const reader = new BodyReader(res);
      await reader.until((t) => t.includes('the first half. '));
      fault.fail('reads');
      gate.open();
      const got = await reader.all();
      return { got, ...splitEnding(got) };
    }

    /** With the store back: the run's stream after the follower's last stored frame is the rest of it, byte for byte. */
    async function resumesAfter(runId: string, protocol: string, stored: string): Promise<void> {
      fault.fail(undefined);
      const { lastId } = completeEvents(stored);
      const path = `/api/runs/${runId}/stream?protocol=${protocol}`;
      const more = await (await api(s.url, path, { headers: { 'last-event-id': lastId as string } })).text();
      const whole = await (await api(s.url, path)).text();
      assert.ok(more.includes('the second '), 'the events after the fault');
      assert.equal(stored + more, whole);
      assert.equal(frames(stored) + frames(more), frames(whole));
    }

    test('AI SDK: error, finish and [DONE]; the run completes; the stream resumes after its last id', async () => {
      await serve();
      try {
        const chatId = `fault-ai-${crypto.randomUUID()}`;
        const res = await api(s.url, '/api/chat?agent=gated', { json: { id: chatId, messages: [userMessage('go')] } });
        const runId = res.headers.get('x-switchboard-run-id') as string;
        const { got, stored, ending } = await followThroughFault(res);
        // What is still open is closed first (a step: finish-step after the error, as an interrupted run has it).
        const types = sseData(ending).map((c) => (typeof c === 'string' ? c : (c as { type: string }).type));
        assert.ok(types.includes('error'), types.join());
        assert.deepEqual(types.slice(-2), ['finish', '[DONE]']);
        // The stock parser and reader see a stream that ended with our error.
        const assembled = await assembleChunks(await parseAiSdkSse(got));
        assert.deepEqual(assembled.errorTexts, [LOCATED]);
        assert.equal(assembled.finishReason, 'error');
        await completed(runId);
        assert.equal(located().length, 1, 'logged once');
        await resumesAfter(runId, 'ai-sdk', stored);
      } finally {
        fault.fail(undefined);
        gate.open();
        await s.close();
      }
    });

    test('AG-UI: RUN_ERROR; the run completes; the stream resumes after its last id', async () => {
      await serve();
      try {
        const threadId = `fault-agui-${crypto.randomUUID()}`;
        const runId = `run-${crypto.randomUUID()}`;
        const res = await api(s.url, '/api/agui', {
          json: {
            threadId,
            runId,
            messages: [{ id: crypto.randomUUID(), role: 'user', content: 'go' }],
            tools: [],
            context: [],
            state: {},
            forwardedProps: { agent: 'gated' },
          },
        });
        assert.equal(res.status, 200);
        const { got, stored, ending } = await followThroughFault(res);
        const end = sseData(ending).at(-1) as { type: string; message: string; code: string };
        assert.deepEqual([end.type, end.message, end.code], ['RUN_ERROR', LOCATED, 'store_unavailable']);
        // The stock client: a run that ended with RUN_ERROR, the text it got so far kept.
        const client = await runAgUi(got);
        const last = client.events.at(-1) as { type: string; message?: string };
        assert.equal(last.type, 'RUN_ERROR');
        assert.equal(last.message, LOCATED);
        assert.ok(client.messages.some((m) => m.role === 'assistant' && String(m.content).includes('the first half. ')));
        await completed(runId);
        assert.equal(located().length, 1, 'logged once');
        await resumesAfter(runId, 'ag-ui', stored);
      } finally {
        fault.fail(undefined);
        gate.open();
        await s.close();
      }
    });

    test('WebSocket: an error frame; the run completes; subscribing from the last eventId gets the rest', async () => {
      await serve();
      const ws = new WsClient(`${s.url.replace(/^http/, 'ws')}/ws`);
      const again = new WsClient(`${s.url.replace(/^http/, 'ws')}/ws`);
      const fresh = new WsClient(`${s.url.replace(/^http/, 'ws')}/ws`);
      try {
        await Promise.all([ws.opened, again.opened, fresh.opened]);
        const sessionId = `fault-ws-${crypto.randomUUID()}`;
        ws.send({ type: 'message', sessionId, content: 'go', agent: 'gated' });
        const isFrame = (e: { event: string }) => e.event === 'agent:event';
        const first = (await ws.until((e) => isFrame(e) && JSON.stringify(e.data).includes('the first half. '))).filter(isFrame);
        fault.fail('reads');
        gate.open();
        const taken = await ws.until((e) => e.event === 'error');
        assert.deepEqual(taken.at(-1)?.data, { code: 'store_unavailable', message: LOCATED, sessionId });
        const before = [...first, ...taken.filter(isFrame)];
        const lastEventId = before.at(-1)?.data?.eventId as string;
        const runId = lastEventId.slice(0, lastEventId.lastIndexOf(':'));
        await completed(runId);
        assert.equal(located().length, 1, 'logged once');

        fault.fail(undefined);
        again.send({ type: 'subscribe', sessionId, lastEventId });
        const rest = (await again.until(isComplete)).filter(isFrame);
        fresh.send({ type: 'subscribe', sessionId });
        const whole = (await fresh.until(isComplete)).filter(isFrame);
        assert.ok(JSON.stringify(rest).includes('the second '), 'the events after the fault');
        assert.equal(before.length + rest.length, whole.length);
        assert.deepEqual(
          [...before, ...rest].map((e) => e.data),
          whole.map((e) => e.data),
        );
      } finally {
        fault.fail(undefined);
        gate.open();
        for (const c of [ws, again, fresh]) c.close();
        await s.close();
      }
    });

    test('a first read that fails: the JSON error over HTTP, an error frame on the WebSocket', async () => {
      await serve();
      const ws = new WsClient(`${s.url.replace(/^http/, 'ws')}/ws`);
      try {
        gate.open();
        const res = await api(s.url, '/api/chat?agent=gated', {
          json: { id: `fault-first-${crypto.randomUUID()}`, messages: [userMessage('go')] },
        });
        const runId = res.headers.get('x-switchboard-run-id') as string;
        await res.text();
        await completed(runId);
        const run = (await inner.getRun(runId)) as { chatId: string };
        const expected = { error: { message: LOCATED, code: 'store_unavailable' } };
        // The tail's first read fails (the route's own reads pass)…
        fault.fail('tails');
        const tail = await api(s.url, `/api/runs/${runId}/stream`);
        assert.equal(tail.status, 503);
        assert.match(tail.headers.get('content-type') ?? '', /application\/json/);
        assert.deepEqual(await tail.json(), expected);
        // Where a route answers a web Response (not Node's server), the status is 200 already: the error ending.
        const web = resumeSseResponse(fault.store, runId, 'ai-sdk', null, { messageMetadata: true });
        assert.equal(web.status, 200);
        const ending = await web.text();
        assert.doesNotMatch(ending, /^id: /m);
        assert.deepEqual((await assembleChunks(await parseAiSdkSse(ending))).errorTexts, [LOCATED]);
        assert.ok(ending.endsWith('data: [DONE]\n\n'));
        // …or every read does.
        fault.fail('reads');
        const route = await api(s.url, `/api/runs/${runId}/stream`);
        assert.equal(route.status, 503);
        assert.deepEqual(await route.json(), expected);
        const chat = await api(s.url, `/api/chat/${run.chatId}/stream`);
        assert.equal(chat.status, 503);
        assert.deepEqual(await chat.json(), expected);
        await ws.opened;
        ws.send({ type: 'subscribe', sessionId: run.chatId });
        const [error] = await ws.until((e) => e.event === 'error');
        assert.deepEqual(error.data, { code: 'store_unavailable', message: LOCATED, sessionId: run.chatId });
        assert.equal(located().length, 4, 'each logged once');
      } finally {
        fault.fail(undefined);
        ws.close();
        await s.close();
      }
    });
  });
}
