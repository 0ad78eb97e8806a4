/** Replay at the recorded pace with an injected clock: no real sleeping, exact waits. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';

import { type ReplayClock, replayEvents } from '../src/replay.ts';

function run(gaps: number[]): CanonicalEvent[] {
  let ts = 1000;
  const out: CanonicalEvent[] = [{ type: 'run-start', runId: 'r', seq: 0, ts, version: 1, messageId: 'm' }];
  gaps.forEach((g, i) => {
    ts += g;
    out.push({ type: 'status', runId: 'r', seq: i + 1, ts, status: `s${i}` });
  });
  return out;
}

/** A fake clock that advances only when slept on; `lag` ms pass on each event handed out (a slow consumer). */
function fakeClock(): ReplayClock & { sleeps: number[]; advance(ms: number): void } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

async function collect(it: AsyncIterable<CanonicalEvent>, clock?: { advance(ms: number): void }, lag = 0): Promise<CanonicalEvent[]> {
  const out: CanonicalEvent[] = [];
  for await (const e of it) {
    out.push(e);
    clock?.advance(lag);
  }
  return out;
}

describe('replay', () => {
  const events = run([100, 0, 400, 2500, 50]);

  test('original pace: waits equal the ts gaps', async () => {
    const clock = fakeClock();
    assert.deepEqual(await collect(replayEvents(events, { clock })), events);
    assert.deepEqual(clock.sleeps, [100, 400, 2500, 50]);
  });

  test('speed multiplier, and as fast as possible', async () => {
    const fast = fakeClock();
    await collect(replayEvents(events, { clock: fast, speed: 4 }));
    assert.deepEqual(fast.sleeps, [25, 100, 625, 12.5]);
    const max = fakeClock();
    assert.deepEqual(await collect(replayEvents(events, { clock: max, speed: 'max' })), events);
    assert.deepEqual(max.sleeps, []);
    await assert.rejects(replayEvents(events, { speed: 0 }).next(), RangeError);
  });

  test('waits are scheduled from the start: a slow consumer does not make the replay drift', async () => {
    const clock = fakeClock();
    await collect(replayEvents(events, { clock }), clock, 80);
    // due at 0, 100, 100, 500, 3000, 3050; 80 ms pass after each event: sleep 20 (to 100), none
    // (at 180, due 100), 240 (260 → 500), 2420 (580 → 3000), none (3080, due 3050).
    assert.deepEqual(clock.sleeps, [20, 240, 2420]);
  });

  test('maxGapMs caps long idle gaps; after skips the start; a signal stops it', async () => {
    const capped = fakeClock();
    await collect(replayEvents(events, { clock: capped, maxGapMs: 500 }));
    assert.deepEqual(capped.sleeps, [100, 400, 500, 50]);
    const later = fakeClock();
    assert.deepEqual(
      (await collect(replayEvents(events, { clock: later, after: 2 }))).map((e) => e.seq),
      [3, 4, 5],
    );
    assert.deepEqual(later.sleeps, [2500, 50]);
    const ctl = new AbortController();
    const clock = fakeClock();
    const got: CanonicalEvent[] = [];
    for await (const e of replayEvents(events, { clock, signal: ctl.signal })) {
      got.push(e);
      if (got.length === 2) ctl.abort();
    }
    assert.equal(got.length, 2);
  });
});
