/**
 * Replay: a stored run as a live stream of canonical events, at its original pace (the gaps between
 * the events' `ts`), sped up or slowed down by `speed`, or as fast as possible. The clock is
 * injectable, so tests replay deterministically without sleeping.
 */
import type { CanonicalEvent } from '@switchboard/core';

import type { Store } from './store.ts';

/** Time source and sleep of a replay. */
export interface ReplayClock {
  now(): number;
  /** Resolves after `ms` (or at once when the signal aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const realClock: ReplayClock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface ReplayOptions {
  /**
   * Pace: `1` (default) = the original gaps, `2` = twice as fast, `0.5` = half speed,
   * `Infinity` (or `'max'`) = no waiting at all.
   */
  speed?: number | 'max';
  /** Longest wait between two events, in replayed ms (after `speed`), to skip long idle gaps. */
  maxGapMs?: number;
  /** Start after this seq (default -1: from the beginning; no wait before the first event). */
  after?: number;
  /** Clock and sleep (default: real time). */
  clock?: ReplayClock;
  /** Stops the replay; the iterator then ends. */
  signal?: AbortSignal;
}

/**
 * Replays events at their recorded pace. Waits are scheduled against the replay's start (not
 * chained), so rounding and slow consumers never make the replay drift.
 *
 * @example
 * for await (const e of replay(await store.read(runId), { speed: 4 })) send(e);
 */
export async function* replayEvents(
  events: Iterable<CanonicalEvent> | AsyncIterable<CanonicalEvent>,
  options: ReplayOptions = {},
): AsyncGenerator<CanonicalEvent> {
  const speed = options.speed === 'max' ? Number.POSITIVE_INFINITY : (options.speed ?? 1);
  if (!(speed > 0)) throw new RangeError(`replay speed must be > 0, got ${options.speed}`);
  const clock = options.clock ?? realClock;
  const after = options.after ?? -1;
  let firstTs: number | undefined;
  let startedAt = 0;
  /** Total time taken out by maxGapMs so far (in replayed ms). */
  let skipped = 0;
  let prevTs: number | undefined;
  for await (const e of events as AsyncIterable<CanonicalEvent>) {
    if (options.signal?.aborted) return;
    if (e.seq <= after) continue;
    if (firstTs === undefined) {
      firstTs = e.ts;
      startedAt = clock.now();
    } else if (Number.isFinite(speed)) {
      let gap = Math.max(0, e.ts - (prevTs ?? e.ts)) / speed;
      if (options.maxGapMs !== undefined && gap > options.maxGapMs) {
        skipped += gap - options.maxGapMs;
        gap = options.maxGapMs;
      }
      const due = startedAt + (e.ts - firstTs) / speed - skipped;
      const wait = due - clock.now();
      if (wait > 0) await clock.sleep(wait, options.signal);
      if (options.signal?.aborted) return;
    }
    prevTs = e.ts;
    yield e;
  }
}

/** Replays a stored run (see {@link replayEvents}). A run still live is followed to its end, paced as it was recorded. */
export function replay(store: Store, runId: string, options: ReplayOptions = {}): AsyncGenerator<CanonicalEvent> {
  const tailOptions: { after?: number; signal?: AbortSignal } = {};
  if (options.after !== undefined) tailOptions.after = options.after;
  if (options.signal) tailOptions.signal = options.signal;
  return replayEvents(store.tail(runId, tailOptions), options);
}
