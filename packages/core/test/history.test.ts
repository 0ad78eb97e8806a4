/**
 * The history functions of each protocol, on folded messages: the memoized AI SDK view equals the
 * pure conversion after every event and reuses the parts that did not change; the AG-UI history
 * carries the agent state; the timeline of a stored message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  type CanonicalEvent,
  createMessageFold,
  createUIMessageView,
  foldMessage,
  toAgUiHistory,
  toTimeline,
  toUIMessage,
} from '../src/index.ts';

function run(blocks: number, deltas: number): CanonicalEvent[] {
  const runId = 'r';
  let seq = 0;
  const out: CanonicalEvent[] = [];
  const add = (e: Record<string, unknown>) => out.push({ ...e, runId, seq: seq++, ts: 1000 + seq } as unknown as CanonicalEvent);
  add({ type: 'run-start', messageId: 'm' });
  add({ type: 'state-snapshot', state: { step: 1 } });
  add({ type: 'state-delta', patch: [{ op: 'replace', path: '/step', value: 2 }] });
  add({ type: 'todos', change: 'create', todos: [{ id: 'a', content: 'Search', status: 'in_progress' }] });
  for (let b = 0; b < blocks; b++) {
    add({ type: 'reasoning-start', blockId: `r${b}`, variant: 'thinking' });
    add({ type: 'reasoning-delta', blockId: `r${b}`, delta: 'hmm' });
    add({ type: 'reasoning-end', blockId: `r${b}` });
    add({ type: 'text-start', blockId: `t${b}` });
    for (let i = 0; i < deltas; i++) add({ type: 'text-delta', blockId: `t${b}`, delta: 'x' });
    add({ type: 'text-end', blockId: `t${b}` });
  }
  add({ type: 'run-finish', finishReason: 'stop' });
  return out;
}

test('createUIMessageView: after every event the same message as toUIMessage, unchanged parts reused', () => {
  const fold = createMessageFold();
  const view = createUIMessageView();
  let previous: ReturnType<typeof view.view> | undefined;
  let reused = 0;
  for (const e of run(4, 5)) {
    fold.push(e);
    const snapshot = fold.snapshot();
    const message = view.view(snapshot);
    assert.deepEqual(message, toUIMessage(snapshot));
    assert.equal(view.view(snapshot), message, 'the same snapshot gives the same message');
    if (previous) {
      // Every part but the one the event changed is the previous message's object.
      const before = new Set(previous.parts);
      const changed = message.parts.filter((p) => !before.has(p)).length;
      assert.ok(changed <= 2, `${changed} parts rebuilt after ${e.type}`);
      reused += message.parts.length - changed;
    }
    previous = message;
  }
  assert.ok(reused > 0);
});

test('toAgUiHistory: the state the snapshots and deltas left, with the todos', () => {
  const history = toAgUiHistory([foldMessage(run(1, 1))]);
  assert.deepEqual(history.state, { step: 2, todos: [{ id: 'a', content: 'Search', status: 'in_progress' }] });
  assert.deepEqual(toAgUiHistory([]).state, {});
});

test('toAgUiHistory: a run with deltas only applies them to the state the chat held, through superseded answers too', () => {
  const deltaRun = (runId: string, patch: object[]): CanonicalEvent[] =>
    [
      { type: 'run-start', messageId: runId },
      { type: 'state-delta', patch },
      { type: 'run-finish', finishReason: 'stop' },
    ].map((e, seq) => ({ ...e, runId, seq, ts: 1000 + seq }) as unknown as CanonicalEvent);
  const first = foldMessage(run(0, 0));
  const second = foldMessage(deltaRun('b', [{ op: 'add', path: '/runs', value: ['b'] }]));
  assert.equal(second.metadata.state, undefined, 'one fold does not know the state before its run');
  assert.deepEqual(second.metadata.stateDeltas, [[{ op: 'add', path: '/runs', value: ['b'] }]]);
  const third = foldMessage(
    deltaRun('c', [
      { op: 'add', path: '/runs/-', value: 'c' },
      { op: 'remove', path: '/missing' },
    ]),
  );
  const fourth = foldMessage(deltaRun('d', [{ op: 'add', path: '/runs/-', value: 'd' }]));
  const history = toAgUiHistory([first, second, third, fourth], { superseded: new Set([third.id]) });
  // The delta that does not apply is skipped whole (as a client skips it); the superseded answer's state stays.
  assert.deepEqual(history.state, { step: 2, runs: ['b', 'd'], todos: [{ id: 'a', content: 'Search', status: 'in_progress' }] });
});

test('toTimeline: thinking and agent messages of a stored message', () => {
  const items = toTimeline([foldMessage(run(1, 3))]);
  assert.deepEqual(
    items.map((i) => [i.type, 'content' in i ? i.content : undefined]),
    [
      ['thinking', 'hmm'],
      ['agent_message', 'xxx'],
    ],
  );
});
