/**
 * DSAgentRunMessage history: live == reloaded. The dsagent encoder's output, collected the way
 * DeepSearchAgents' `use-websocket.tsx` does it (one message per stream: the final message under the
 * initial message's id), equals `toDsAgentMessages` of the folded run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createDsAgentEncoder, type DsAgentRunMessage, toDsAgentMessages } from '@switchboard/core';
import { dsAgentClient } from '../../../test/support/dsagent-client.ts';
import { project } from '../src/projection.ts';
import { demoRun, kitchenSink } from './support.ts';

/** A DSAgent client's collected state of one run. */
function collect(events: readonly CanonicalEvent[]): DsAgentRunMessage[] {
  const enc = createDsAgentEncoder({ deltas: 'accumulated', sessionId: 'c' });
  const client = dsAgentClient();
  for (const e of events) for (const m of enc.push(e)) client.push(m);
  for (const m of enc.end()) client.push(m);
  return client.messages;
}

describe('dsagent history', () => {
  const runs: [string, CanonicalEvent[]][] = [
    ...['hello there', 'step', 'tool Rome', 'text just text', 'code let x = 1;', 'error'].map((p): [string, CanonicalEvent[]] => [
      `demo: ${p}`,
      demoRun(p, 'run'),
    ]),
    ['kitchen sink', kitchenSink('run', 'c')],
  ];
  for (const [name, events] of runs)
    test(`live == reloaded: ${name}`, () => {
      const live = collect(events);
      const reloaded = toDsAgentMessages([project(events, { chatId: 'c' })]);
      assert.deepEqual(reloaded, live);
    });
});
