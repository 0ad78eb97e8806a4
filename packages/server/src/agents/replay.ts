/**
 * Replaying a recorded capture as if it were live: any framework's SSE body or JSON lines (or a
 * stored canonical run), decoded value by value and paced like the original. Values that carry a
 * timestamp (canonical `ts`, AG-UI / WebSocket `timestamp`) are spaced by their real gaps (capped);
 * others by a fixed small interval. `speed` divides every pause (2 = twice as fast, 0 = no pauses).
 *
 * A stored canonical run is read with core's `createCanonicalDecoder` (a new run, same content).
 * Used by the `replay` built-in agent and by `switchboard replay`.
 */
import {
  type CanonicalEvent,
  createCanonicalDecoder,
  createDecoder,
  createFramer,
  type Decoder,
  type DecoderOptions,
  type Framework,
  isCanonicalEvent,
  type Source,
} from '@switchboard/core';
import { realClock } from '@switchboard/store';
import { REPLAY_INTERVAL_MS } from '../config/defaults.ts';

/** What a capture can be replayed as: a framework, `auto`, or `canonical` (a stored run). */
export type ReplayFormat = Framework | 'auto' | 'canonical';

/** Options of `replayCapture`. */
export interface ReplayOptions extends DecoderOptions {
  /** Framework of the capture (default `auto`: recognised, canonical runs included). */
  from?: ReplayFormat;
  /** 1 = original pace (default), 2 = twice as fast, 0 = as fast as possible. */
  speed?: number;
  /** Pause between values without timestamps, in ms (default 20). */
  intervalMs?: number;
  /** Longest pause taken from timestamps, in ms (default 5000): a capture's idle minutes are not replayed. */
  maxGapMs?: number;
  /** Stops the replay (a pending pause ends at once). */
  signal?: AbortSignal;
  /** Waits `ms` (default: a timer that the signal cuts short). Injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const MAX_GAP_MS = 5000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** When a value was produced, in ms since the epoch, if it says so. */
export function timestampOf(value: unknown): number | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.ts === 'number') return value.ts;
  // AG-UI events and the WebSocket contract's messages; recorded AG-UI traces wrap the event.
  const inner = isObject(value.event) ? value.event : value;
  const t = inner.timestamp;
  if (typeof t === 'number' && Number.isFinite(t)) return t < 1e11 ? t * 1000 : t;
  if (typeof t === 'string') {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return ms;
  }
  return undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts (the store's replay clock; never rejects). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return realClock.sleep(ms, signal);
}

/**
 * Replays a capture (bytes or text in chunks) as canonical events, paced. Stops quietly when the
 * signal aborts.
 */
export async function* replayCapture(source: Source<Uint8Array | string>, options: ReplayOptions = {}): AsyncGenerator<CanonicalEvent> {
  const { from = 'auto', speed = 1, intervalMs = REPLAY_INTERVAL_MS, maxGapMs = MAX_GAP_MS, signal, sleep = pause } = options;
  const framer = createFramer({
    ...(options.maxLineLength !== undefined ? { maxLineLength: options.maxLineLength } : {}),
    ...(options.inputFormat !== undefined ? { inputFormat: options.inputFormat } : {}),
  });
  let decoder: Decoder | undefined =
    from === 'canonical' ? createCanonicalDecoder(options) : from === 'auto' ? undefined : createDecoder(from, options);
  let previous: number | undefined;
  let first = true;

  const wait = async (value: unknown): Promise<void> => {
    const ts = timestampOf(value);
    const gap = !first && previous !== undefined && ts !== undefined && ts >= previous ? Math.min(ts - previous, maxGapMs) : intervalMs;
    if (ts !== undefined) previous = ts;
    if (first) {
      first = false;
      return;
    }
    if (speed > 0 && gap > 0) await sleep(gap / speed, signal);
  };

  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    for (const frame of framer.push(chunk)) {
      if (signal?.aborted) return;
      if (frame.kind === 'value') {
        // `auto` recognises a stored canonical run itself; anything else goes to core's detection.
        decoder ??= isCanonicalEvent(frame.value) ? createCanonicalDecoder(options) : createDecoder('auto', options);
        await wait(frame.value);
        if (signal?.aborted) return;
        yield* decoder.push(frame.value, frame.where);
      } else {
        decoder ??= createDecoder('auto', options);
        yield* decoder.fault(frame.code, frame.message, frame.where);
      }
    }
  }
  for (const frame of framer.end()) {
    decoder ??= frame.kind === 'value' && isCanonicalEvent(frame.value) ? createCanonicalDecoder(options) : createDecoder('auto', options);
    if (frame.kind === 'value') {
      await wait(frame.value);
      if (signal?.aborted) return;
      yield* decoder.push(frame.value, frame.where);
    } else yield* decoder.fault(frame.code, frame.message, frame.where);
  }
  decoder ??= createDecoder('auto', options);
  yield* decoder.end();
}
