/** The in-process runner's limits: the idle timer (re-armed lazily, not per event) still ends a hung agent. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CanonicalEvent, decode } from '@switchboard/core';

import type { AgentEvent } from '../src/agents/agent.ts';
import { decoderOptions, runInProcess } from '../src/runner/in-process.ts';
import { quietLogger } from './gateway-support.ts';

const LIMITS = { timeoutMs: 60_000, idleTimeoutMs: 60_000, maxLineBytes: 1024 * 1024, maxOutputBytes: 64 * 1024 * 1024 };

async function collect(it: AsyncIterable<CanonicalEvent>): Promise<CanonicalEvent[]> {
  const out: CanonicalEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

test('an in-process agent that produces events and then hangs hits the idle timeout', async () => {
  const agent = { name: 'hang', framework: 'claude' as const, limits: { ...LIMITS, idleTimeoutMs: 50 } };
  const run = runInProcess(agent, { runId: 'r_idle', messages: [] }, { logger: quietLogger() }, (ctx) => {
    async function* lines(): AsyncGenerator<AgentEvent> {
      yield { type: 'start', data: { model: 'hang' } };
      for (let i = 0; i < 100; i++) yield { type: 'text', data: { content: `${i} ` } };
      // Hangs until the runner stops it.
      await new Promise((resolve) =>
        ctx.signal.aborted ? resolve(undefined) : ctx.signal.addEventListener('abort', resolve, { once: true }),
      );
    }
    return decode(lines(), 'claude', decoderOptions(ctx, 'hang'));
  });
  const events = await collect(run);
  const text = events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');
  assert.equal(text, Array.from({ length: 100 }, (_, i) => `${i} `).join(''), 'every event before the hang');
  const error = events.find((e) => e.type === 'error');
  assert.ok(error && error.type === 'error');
  assert.equal(error.code, 'timeout');
  assert.match(error.message, /produced nothing for 50 ms \(idle timeout\)/);
  const last = events.at(-1);
  assert.ok(last?.type === 'run-finish');
  assert.equal(last.finishReason, 'error');
});

test('pages: nextPage gives the events of one agent step together, next() the same events one by one', async () => {
  const agent = { name: 'pages', framework: 'claude' as const, limits: LIMITS };
  const make = (ctx: Parameters<Parameters<typeof runInProcess>[3]>[0]) => {
    async function* lines(): AsyncGenerator<AgentEvent> {
      yield { type: 'start', data: { model: 'pages' } };
      yield { type: 'text', data: { content: 'a' } };
      yield { type: 'text', data: { content: 'b' } };
      yield { type: 'done', data: {} };
    }
    // Without its run-start: the runner makes one, in the same page as the agent's first event.
    async function* events(): AsyncGenerator<CanonicalEvent> {
      for await (const e of decode(lines(), 'claude', decoderOptions(ctx, 'pages'))) if (e.type !== 'run-start') yield e;
    }
    return events();
  };
  const paged = runInProcess(agent, { runId: 'r_pages', messages: [] }, { logger: quietLogger() }, make);
  const pages: CanonicalEvent[][] = [];
  for (let r = await paged.nextPage?.(); r && !r.done; r = await paged.nextPage?.()) pages.push(r.value);
  assert.ok(pages.length > 0 && pages.every((p) => p.length > 0), 'no empty page');
  const events = await collect(runInProcess(agent, { runId: 'r_pages', messages: [] }, { logger: quietLogger() }, make));
  const strip = (e: CanonicalEvent) => ({ ...e, ts: 0 });
  assert.deepEqual(pages.flat().map(strip), events.map(strip), 'the same events, in the same order');
  assert.deepEqual(
    pages.flat().map((e) => e.seq),
    events.map((_, i) => i),
  );
  assert.ok(
    pages.some((p) => p.length > 1),
    'a step that makes several events gives them in one page',
  );
});

test('a step still pending when the run is aborted may fail later: handled, no unhandled rejection', async () => {
  const agent = { name: 'late', framework: 'claude' as const, limits: LIMITS };
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const { promise: failed, resolve: failedNow } = Promise.withResolvers<void>();
  const client = new AbortController();
  try {
    const run = runInProcess(agent, { runId: 'r_late', messages: [], signal: client.signal }, { logger: quietLogger() }, (ctx) => {
      async function* lines(): AsyncGenerator<AgentEvent> {
        yield { type: 'start', data: { model: 'late' } };
        // Ignores the abort for a turn, then fails: its step is left behind by then.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        await new Promise((resolve) => setImmediate(resolve));
        failedNow();
        throw new Error('failed after the run had stopped');
      }
      return decode(lines(), 'claude', decoderOptions(ctx, 'late'));
    });
    const first = await run.next();
    assert.equal(first.done, false);
    const rest = collect({ [Symbol.asyncIterator]: () => run });
    client.abort('client disconnected');
    const events = await rest;
    assert.equal(events.at(-1)?.type, 'run-abort');
    await failed;
    // Unhandled rejections are reported after the microtasks of the turn that made them.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
