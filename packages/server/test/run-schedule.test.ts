/**
 * When a run's work happens (the gateway at scale), counted, not timed: the request that starts a
 * run is answered before its agent does anything, and until the run's first events are committed
 * (what its client's first byte waits for) the agent takes no step beyond the first; the runs
 * already streaming take no step while a run starts (start-gate.ts), unless the starting run's
 * agent is waiting for I/O.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';
import { type AppendResult, openMemoryStore, type Store } from '@switchboard/store';
import type { AgentEvent } from '../src/agents/agent.ts';
import type { InProcessAgentSpec } from '../src/server/agent-registry.ts';

import { startServer } from '../src/server/start.ts';
import { Gate, linesAgent, quietLogger, testConfig, userMessage } from './gateway-support.ts';

const STEPS = 100;

describe('run schedule', () => {
  test('a run starts its agent in the turn after the start, and takes one step before its first commit', async () => {
    const store = await openMemoryStore();
    // What the agent had done at the first append and at its commit.
    let steps = 0;
    let entered = false;
    let stepsAtFirstAppend = -1;
    let stepsAtFirstCommit = -1;
    const append = store.append.bind(store);
    store.append = async (events: CanonicalEvent | readonly CanonicalEvent[]): Promise<AppendResult> => {
      const first = stepsAtFirstAppend < 0;
      if (first) stepsAtFirstAppend = steps;
      const r = await append(events);
      if (first) stepsAtFirstCommit = steps;
      return r;
    };
    const s = await startServer({
      port: 0,
      store,
      config: testConfig(),
      runOptions: { logger: quietLogger() },
      onError: () => {},
      // Never waits: every step is ready at once.
      agents: [
        linesAgent('eager', async function* (): AsyncGenerator<AgentEvent> {
          entered = true;
          for (; steps < STEPS; ) {
            steps++;
            yield { type: 'text', data: { content: `${steps} ` } };
          }
          yield { type: 'done', data: {} };
        }),
      ],
    });
    try {
      const run = await s.core.runs.start({
        chatId: 'eager',
        agent: 'eager',
        messages: [userMessage('go')],
        principal: { anonymous: true },
        userMessage: { content: 'go' },
      });
      // The start is answered (and its response can go out) before the agent's first step.
      assert.equal(entered, false);
      await run.done;
      assert.equal(stepsAtFirstAppend, 1);
      // Before: the agent ran 32 events ahead of the first commit, which every other request's first byte waited behind.
      assert.equal(stepsAtFirstCommit, 1);
      const events = await store.read(run.runId);
      assert.equal(events.at(-1)?.type, 'run-finish');
      assert.equal(events.filter((e) => e.type === 'text-delta').length, STEPS);
    } finally {
      await s.close();
      await store.close();
    }
  });

  /** An agent that never waits, counting its steps. */
  function eagerAgent(name: string, steps: number, count: { steps: number }) {
    return linesAgent(name, async function* (): AsyncGenerator<AgentEvent> {
      for (let i = 0; i < steps; i++) {
        count.steps++;
        yield { type: 'text', data: { content: `${i} ` } };
      }
      yield { type: 'done', data: {} };
    });
  }

  /** A gateway on `store` with `agents`, quiet. */
  const serve = (store: Store, agents: InProcessAgentSpec[]) =>
    startServer({ port: 0, store, config: testConfig(), runOptions: { logger: quietLogger() }, onError: () => {}, agents });

  const start = (s: Awaited<ReturnType<typeof startServer>>, chatId: string, agent: string) =>
    s.core.runs.start({ chatId, agent, messages: [userMessage('go')], principal: { anonymous: true }, userMessage: { content: 'go' } });

  test('a run streaming takes no step while another run starts, from its start to its first commit', async () => {
    const store = await openMemoryStore();
    const streaming = { steps: 0 };
    const starting = { steps: 0 };
    // Steps of the streaming run when the second run's first append was committed.
    let streamingAtFirstCommit = -1;
    let secondRunId = '';
    const append = store.append.bind(store);
    store.append = async (events: CanonicalEvent | readonly CanonicalEvent[]): Promise<AppendResult> => {
      const r = await append(events);
      if (r.runId === secondRunId && streamingAtFirstCommit < 0) streamingAtFirstCommit = streaming.steps;
      return r;
    };
    const s = await serve(store, [eagerAgent('streaming', 5000, streaming), eagerAgent('starting', 10, starting)]);
    try {
      const first = await start(s, 'streaming', 'streaming');
      // Let it stream: wait for its steps to pass a few pages.
      while (streaming.steps < 100) await new Promise((r) => setImmediate(r));
      const before = streaming.steps;
      const secondStart = start(s, 'starting', 'starting');
      const second = await secondStart;
      secondRunId = second.runId;
      await second.done;
      await first.done;
      assert.ok(streamingAtFirstCommit >= 0, 'the second run committed');
      // One page may already have been taken when the second run began; no more (3 without the gate).
      assert.ok(
        streamingAtFirstCommit - before <= 1,
        `the streaming run took ${streamingAtFirstCommit - before} steps while the other started`,
      );
      assert.equal(streaming.steps, 5000);
      assert.equal(starting.steps, 10);
    } finally {
      await s.close();
      await store.close();
    }
  });

  test("a run whose agent waits for its first page (a model's first token) holds no other run back", { timeout: 60_000 }, async () => {
    const store = await openMemoryStore();
    const streaming = { steps: 0 };
    const gate = new Gate();
    // Waits before its first output line: its run has nothing to commit until the gate opens.
    const silent = linesAgent('silent', (ctx) =>
      (async function* (): AsyncGenerator<AgentEvent> {
        await Promise.race([gate.opened, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))]);
        yield { type: 'text', data: { content: 'at last' } };
        yield { type: 'done', data: {} };
      })(),
    );
    const s = await serve(store, [eagerAgent('streaming', 2000, streaming), silent]);
    try {
      const first = await start(s, 'streaming', 'streaming');
      while (streaming.steps < 100) await new Promise((r) => setImmediate(r));
      const waiting = await start(s, 'silent', 'silent');
      // Ends although the other run's start never commits anything (before the fix it waited for it).
      await first.done;
      assert.equal(streaming.steps, 2000);
      gate.open();
      await waiting.done;
      const events = await store.read(waiting.runId);
      assert.equal(events.at(-1)?.type, 'run-finish');
    } finally {
      await s.close();
      await store.close();
    }
  });
});
