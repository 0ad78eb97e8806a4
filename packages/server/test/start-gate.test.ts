/** The start gate (server/start-gate.ts): runs streaming wait while runs start; counted, never timed. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { StartGate, settlesThisTurn } from '../src/server/start-gate.ts';

/** Whether `p` has settled once the microtasks queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('StartGate', () => {
  test('no start in flight: wait() is undefined; a start holds waiters until it ends, and ending twice counts once', async () => {
    const gate = new StartGate();
    assert.equal(gate.wait(), undefined);
    const end = gate.begin();
    const other = gate.begin();
    const w = gate.wait() as Promise<void>;
    assert.ok(w);
    end();
    end();
    assert.equal(gate.starting, 1);
    assert.equal(await settled(w), false);
    other();
    assert.equal(gate.starting, 0);
    assert.equal(await settled(w), true);
  });

  test('a waiter goes on after maxWaitStarts starts have completed, even while others are in flight', async () => {
    const gate = new StartGate(2);
    const first = gate.begin();
    const w = gate.wait() as Promise<void>;
    const second = gate.begin();
    gate.begin(); // never ends
    first();
    assert.equal(await settled(w), false);
    second();
    assert.equal(await settled(w), true);
    assert.equal(gate.starting, 1);
  });

  test('an aborted run does not wait, and a waiter whose run is aborted goes on at once', async () => {
    const gate = new StartGate();
    gate.begin();
    const ctl = new AbortController();
    const w = gate.wait(ctl.signal) as Promise<void>;
    assert.equal(await settled(w), false);
    ctl.abort();
    assert.equal(await settled(w), true);
    assert.equal(gate.wait(ctl.signal), undefined);
  });
});

describe('settlesThisTurn', () => {
  test('true for a promise settled in microtasks (resolved or rejected), false for one waiting on I/O', async () => {
    assert.equal(await settlesThisTurn(Promise.resolve(1)), true);
    const rejected = Promise.reject(new Error('no'));
    assert.equal(await settlesThisTurn(rejected), true);
    await rejected.catch(() => {});
    assert.equal(await settlesThisTurn(new Promise(() => {})), false);
  });
});
