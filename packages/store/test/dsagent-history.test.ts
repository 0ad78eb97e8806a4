/**
 * DSAgentRunMessage history: live == reloaded. The dsagent encoder's output, collected the way
 * DeepSearchAgents' `use-websocket.tsx` does it (one message per stream: the final message under the
 * initial message's id), equals `toDsAgentMessages` of the folded run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createDsAgentEncoder, type DsAgentRunMessage, toDsAgentMessages } from '@switchboard/core';
import { project } from '../src/projection.ts';
import { demoRun, kitchenSink } from './support.ts';

/** A DSAgent client's collected state of one run. */
function collect(events: readonly CanonicalEvent[]): DsAgentRunMessage[] {
  const enc = createDsAgentEncoder({ deltas: 'accumulated', sessionId: 'c' });
  const out: DsAgentRunMessage[] = [];
  const streams = new Map<string, number>();
  const take = (m: DsAgentRunMessage) => {
    const md = m.metadata as Record<string, unknown>;
    const streamId = typeof md.stream_id === 'string' ? md.stream_id : undefined;
    if (streamId === undefined) return out.push(m);
    if (md.is_initial_stream) {
      streams.set(streamId, out.length);
      return out.push(m);
    }
    const at = streams.get(streamId) as number;
    if (md.is_delta) out[at] = { ...out[at], content: m.content };
    else {
      out[at] = { ...m, message_id: out[at].message_id, timestamp: out[at].timestamp };
      streams.delete(streamId);
    }
  };
  for (const e of events) for (const m of enc.push(e)) take(m);
  for (const m of enc.end()) take(m);
  return out;
}

/** What the stored form cannot give exactly (the step-finish event's seq and time are not stored). */
const comparable = (list: readonly DsAgentRunMessage[]) => list.map(({ message_id: _id, timestamp: _ts, ...rest }) => rest);

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
      assert.deepEqual(comparable(reloaded as DsAgentRunMessage[]), comparable(live));
    });
});
