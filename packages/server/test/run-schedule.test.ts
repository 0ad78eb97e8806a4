/**
 * When a run's work happens (issue 16, "the gateway at scale"), counted, not timed: the request that
 * starts a run is answered before its agent does anything, and until the run's first events are
 * committed (what its client's first byte waits for) the agent takes no step beyond the first.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';
import { type AppendResult, openMemoryStore } from '@switchboard/store';
import type { AgentEvent } from '../src/agents/agent.ts';

import { startServer } from '../src/server/start.ts';
import { linesAgent, quietLogger, testConfig, userMessage } from './gateway-support.ts';

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
});
