/**
 * Readers of the `canonical` protocol (canonical events as `encoder.ts` writes them, one JSON object
 * per line or SSE event). Two ways to read a stored run:
 *
 * - `createCanonicalReader` passes each event through unchanged (its `seq` is what resume is keyed
 *   on); what a value that is not a canonical event becomes is the caller's choice (the client throws
 *   a located `ReadError`);
 * - `createCanonicalDecoder` replays the events as a new run: same content, this run's id, fresh
 *   `seq` and `ts`; a value that is not a canonical event is a located error event, and a stream that
 *   ends before its run finished ends with a truncation error and `run-finish` (`error`).
 *
 * Both recognise an event with `isCanonicalEvent`. Used by the server (`replay`) and the client.
 */
import { describe } from '../../codec/framing.ts';
import type { Decoder } from '../../inputs/decoder.ts';
import { type DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { CanonicalEvent, EventInit, Location } from '../../model/events.ts';

/** True for a value shaped like a canonical event: a kebab-case `type`, `runId`, `seq` and `ts`. */
export function isCanonicalEvent(value: unknown): value is CanonicalEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.type === 'string' &&
    typeof v.runId === 'string' &&
    typeof v.seq === 'number' &&
    typeof v.ts === 'number' &&
    /^[a-z]+(-[a-z]+)*$/.test(v.type)
  );
}

/** The located message for a value that is not a canonical event. */
export function notCanonicalMessage(where: Location | undefined): string {
  return `${describe(where ?? {})}: expected a canonical event {type, runId, seq, ts, …}`;
}

/**
 * Canonical events in, the same events out. `invalid` decides what a value that is not a canonical
 * event (or a framing fault) becomes: events to emit instead, or it throws.
 */
export function createCanonicalReader(invalid: (message: string, where: Location | undefined) => CanonicalEvent[]): Decoder {
  return {
    push(value, where) {
      if (isCanonicalEvent(value)) return [value];
      return invalid(notCanonicalMessage(where), where);
    },
    fault(_code, message, where) {
      return invalid(message, where);
    },
    end: () => [],
  };
}

/** Replays stored canonical events as a new run: same content, this run's id, fresh seq and ts. */
export function createCanonicalDecoder(options: DecoderOptions = {}): Decoder {
  const out = new Emitter(options, 'canonical');
  let ended = false;
  return {
    push(value, where) {
      if (!isCanonicalEvent(value)) {
        const e: EventInit = { type: 'error', code: 'invalid_event', message: notCanonicalMessage(where), fatal: false };
        if (where) e.where = { ...where, expected: 'canonical event' };
        out.emit(e);
        return out.take();
      }
      const { runId: _runId, seq: _seq, ts: _ts, ...init } = value as unknown as Record<string, unknown>;
      const e = init as EventInit;
      if (e.type === 'run-start') out.start(e);
      else out.emit(e);
      if (e.type === 'run-finish' || e.type === 'run-abort') ended = true;
      return out.take();
    },
    fault(code, message, where) {
      out.emit({ type: 'error', code, message, fatal: false, where });
      return out.take();
    },
    end() {
      if (!ended) {
        out.emit({ type: 'error', code: 'truncated', message: 'the capture ended before its run finished', fatal: true });
        out.emit({ type: 'run-finish', finishReason: 'error' });
      }
      return out.take();
    },
  };
}
