/** Budgeted turns (turns.ts): continuations keep their order, and a check phase past its budget lets the loop go round. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { nextTurn, TURN_BUDGET_MS } from '../src/turns.ts';

/** Keeps the thread busy for `ms` (the work a continuation triggers). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test('continuations resume in the order they were queued', async () => {
  const order: number[] = [];
  await Promise.all(Array.from({ length: 50 }, (_, i) => nextTurn().then(() => order.push(i))));
  assert.deepEqual(
    order,
    Array.from({ length: 50 }, (_, i) => i),
  );
});

test('past its budget, the rest of a check phase waits for the next loop iteration', async () => {
  const order: string[] = [];
  const a = nextTurn().then(() => {
    busy(TURN_BUDGET_MS + 1);
    setImmediate(() => order.push('next iteration'));
  });
  const b = nextTurn().then(() => order.push('b'));
  await Promise.all([a, b]);
  assert.deepEqual(order, ['next iteration', 'b']);
});
