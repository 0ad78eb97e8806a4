/**
 * The message fold's snapshot cost, counted (no timing):
 * - a client that snapshots after every tool-input delta without reading the input parses no partial
 *   JSON, and reading it parses once for its length (a cached getter);
 * - joined characters grow linearly with the deltas (N vs 4N);
 * - the latest `status` event is the message's activity, and the message validates against its schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMessageFold } from '../src/message/fold.ts';
import { assistantMessageSchema } from '../src/message/schema.ts';
import type { ToolPart } from '../src/message/types.ts';
import type { CanonicalEvent } from '../src/model/events.ts';
import { createWorkCounter } from '../src/transforms/text-buffer.ts';

function ev(seq: number, e: Record<string, unknown>): CanonicalEvent {
  return { runId: 'r', seq, ts: 1000 + seq, ...e } as CanonicalEvent;
}

/** A run whose one tool call's input streams one character per delta: n characters in all. */
function toolRun(n: number): CanonicalEvent[] {
  const input = JSON.stringify({ text: 'y'.repeat(n - 11) });
  const events = [
    ev(0, { type: 'run-start', version: 2, messageId: 'm' }),
    ev(1, { type: 'tool-input-start', toolCallId: 't', toolName: 'write' }),
  ];
  for (const ch of input) events.push(ev(events.length, { type: 'tool-input-delta', toolCallId: 't', delta: ch }));
  return events;
}

describe('message fold: a snapshot after every event stays linear', () => {
  test('a streaming tool input is parsed when read, once per length; joins grow linearly', () => {
    const work: number[] = [];
    for (const n of [1_000, 4_000]) {
      const counter = createWorkCounter();
      const fold = createMessageFold({ work: counter });
      for (const e of toolRun(n)) {
        fold.apply(e);
        fold.snapshot(); // a UI re-rendering after every delta without reading the input
      }
      assert.equal(counter.partialJsonParses, 0, 'nothing parsed until the input is read');
      const part = fold.snapshot().metadata.parts.find((p): p is ToolPart => p.type === 'tool');
      assert.ok(part);
      assert.equal(part.state, 'input-streaming');
      assert.equal((part.input as { text: string }).text.length, n - 11);
      void part.input;
      assert.equal(counter.partialJsonParses, 1, 'one parse for one length, however often it is read');
      assert.equal(counter.partialJsonChars, n);
      assert.ok(counter.joinedChars <= n, `${counter.joinedChars} characters joined for ${n} deltas`);
      work.push(counter.joinedChars + counter.partialJsonChars);
    }
    // An operation count: 4× the deltas → 4× the work (a parse per snapshot would be 16×).
    assert.ok(work[1] / work[0] <= 4.5, `work ratio ${work[1] / work[0]}`);
  });

  test('an old snapshot keeps the input as it was; JSON of a snapshot carries the parsed input', () => {
    const fold = createMessageFold();
    fold.applyAll([
      ev(0, { type: 'run-start', version: 2, messageId: 'm' }),
      ev(1, { type: 'tool-input-start', toolCallId: 't', toolName: 'write' }),
      ev(2, { type: 'tool-input-delta', toolCallId: 't', delta: '{"a":1,' }),
    ]);
    const before = fold.snapshot();
    fold.apply(ev(3, { type: 'tool-input-delta', toolCallId: 't', delta: '"b":2}' }));
    const after = fold.snapshot();
    const tool = (m: typeof before) => m.metadata.parts.find((p): p is ToolPart => p.type === 'tool');
    assert.deepEqual(tool(after)?.input, { a: 1, b: 2 });
    assert.deepEqual(tool(before)?.input, { a: 1 });
    assert.deepEqual(JSON.parse(JSON.stringify(tool(after))).input, { a: 1, b: 2 });
  });

  test('the latest status event is the activity; the message validates', () => {
    const fold = createMessageFold({ clock: () => 7 });
    fold.applyAll([
      ev(0, { type: 'run-start', version: 2, messageId: 'm' }),
      ev(1, { type: 'status', status: 'retrying', message: 'overloaded' }),
    ]);
    assert.deepEqual(fold.snapshot().metadata.activity, { status: 'retrying', message: 'overloaded' });
    fold.apply(ev(2, { type: 'status', status: 'searching' }));
    const m = fold.snapshot();
    assert.deepEqual(m.metadata.activity, { status: 'searching' });
    assert.equal(assistantMessageSchema.safeParse(m).success, true);
  });

  test('a subagent keeps its start and finish together, timed on both clocks', () => {
    const fold = createMessageFold({ clock: () => 7 });
    fold.applyAll([
      ev(0, { type: 'run-start', version: 2, messageId: 'm' }),
      ev(1, { type: 'subagent-start', subagentId: 'a', name: 'researcher', task: 'look', parentToolCallId: 't' }),
      ev(2, { type: 'text-delta', blockId: 'b', delta: 'x', subagentId: 'a' }),
      ev(5, { type: 'subagent-finish', subagentId: 'a', result: 'found' }),
    ]);
    const m = fold.snapshot();
    assert.deepEqual(m.metadata.subagents, [
      {
        subagentId: 'a',
        name: 'researcher',
        task: 'look',
        parentToolCallId: 't',
        state: 'done',
        result: 'found',
        startedAt: 1001,
        receivedAt: 7,
        endedAt: 1005,
        durationMs: 4,
      },
    ]);
    assert.equal(m.content, '', "a subagent's text is not the message's");
    assert.equal(assistantMessageSchema.safeParse(m).success, true);
  });
});
