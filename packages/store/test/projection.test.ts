/** The projector: incremental equals batch, idempotent, and closing an interrupted run gives a valid log. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';
import { validate } from '@switchboard/core/schema';
import fc from 'fast-check';

import { Projector, project } from '../src/projection.ts';
import { anthropicFixture, decodeText, demoRun, kitchenSink } from './support.ts';

const RUNS: [string, CanonicalEvent[]][] = [
  ['demo', demoRun('hello', 'run')],
  ['kitchen sink', kitchenSink('run')],
  ['anthropic thinking + tool', decodeText(anthropicFixture('thinking-text-tool-use.sse'), 'anthropic', 'run')],
  ['anthropic web search + citations', decodeText(anthropicFixture('anthropic-web-search-tool.1.chunks.txt'), 'anthropic', 'run')],
  ['anthropic cut-off tool input', decodeText(anthropicFixture('incomplete_partial_json_response.txt'), 'anthropic', 'run')],
];

describe('projection', () => {
  test('a shared snapshot (what the store commits) is the same message, without the copies', () => {
    const events = kitchenSink('shared-run', 'shared-chat');
    const p = new Projector({ runId: 'shared-run', chatId: 'shared-chat' });
    for (const e of events.slice(0, 30)) p.apply(e);
    const shared = p.snapshot('pending', true);
    assert.deepEqual(JSON.parse(JSON.stringify(shared)), p.snapshot('pending'));
    assert.equal(p.snapshot('pending', true).metadata.steps, shared.metadata.steps, 'the projector’s own arrays');
    assert.notEqual(p.snapshot('pending').metadata.steps, shared.metadata.steps, 'a copy');
  });

  for (const [name, events] of RUNS) {
    test(`${name}: a snapshot after any prefix equals the projection of that prefix; re-applied events are ignored`, () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: events.length }), { minLength: 1, maxLength: 6 }), (cuts) => {
          const p = new Projector();
          let at = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            p.applyAll(events.slice(Math.max(0, at - 2), cut)); // overlapping: the repeats are ignored
            at = Math.max(at, cut);
            assert.deepEqual(p.snapshot(), project(events.slice(0, at), {}, 'transient'));
          }
        }),
        { numRuns: 30 },
      );
    });

    test(`${name}: closing an interrupted run at any point gives a well-formed log with an error state`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: events.length - 1 }), (cut) => {
          const head = events.slice(0, cut);
          const p = new Projector().applyAll(head);
          const closing = p.closingEvents('gone', 42);
          const log = [...head, ...closing];
          assert.deepEqual(validate(log).issues, []);
          const m = project(log);
          assert.equal(m.persistenceState, 'persisted');
          assert.equal(m.metadata.status, 'error');
          assert.equal(m.metadata.error?.code, 'interrupted');
          assert.equal(m.content, project(head).content);
        }),
        { numRuns: 30 },
      );
    });
  }

  test('a live snapshot shows partial tool input as the AI SDK client would (partial JSON)', () => {
    const events = kitchenSink('run');
    const at = events.findIndex((e) => e.type === 'tool-input-delta') + 1;
    const m = new Projector().applyAll(events.slice(0, at)).snapshot();
    const tool = m.metadata.parts.find((x) => x.type === 'tool' && x.toolCallId === 'c1');
    assert.ok(tool?.type === 'tool');
    assert.equal(tool.state, 'input-streaming');
    assert.equal(tool.inputText, '{"q":');
    assert.deepEqual(tool.input, {});
    assert.equal(m.persistenceState, 'transient');
    assert.equal(m.metadata.status, 'streaming');
  });

  test('a run that ended closes its projection: later events are ignored', () => {
    const events = demoRun('text hi', 'run');
    const p = new Projector().applyAll(events);
    const before = p.snapshot();
    p.apply({ ...events[2], seq: events.length, type: 'text-delta', blockId: 'b1', delta: 'late' } as CanonicalEvent);
    assert.deepEqual(p.snapshot(), before);
    assert.deepEqual(p.closingEvents('x', 0), []);
  });
});
