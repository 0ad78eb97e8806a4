/**
 * What every decoder is, and the one wrapper that lets any of them read bytes.
 */
import { createFramer, type Frame, type FramingOptions } from '../codec/framing.ts';
import type { Machine } from '../machine.ts';
import type { CanonicalEvent, Location } from '../model/events.ts';

/**
 * A decoder: a pure, incremental state machine from one framework's events (already parsed JSON
 * values) to canonical events. `push` never throws: input it cannot read becomes a located `error`
 * event (or a `raw` event when it is well-formed but unknown), and everything before it is kept.
 */
export interface Decoder extends Machine<unknown, CanonicalEvent> {
  /** Feed one parsed input value; `where` locates it in the original input for error messages. */
  push(value: unknown, where?: Location): CanonicalEvent[];
  /** Report input that could not even be framed (invalid JSON, oversized line) as a located error. */
  fault(code: string, message: string, where: Location): CanonicalEvent[];
}

/**
 * Wraps an object decoder so that it reads an SSE body or JSON lines, as text or bytes, in chunks
 * split anywhere.
 */
export function framed(decoder: Decoder, options: FramingOptions = {}): Machine<string | Uint8Array, CanonicalEvent> {
  const framer = createFramer(options);
  return {
    push: (chunk) => pushFrames(decoder, framer.push(chunk)),
    end: () => {
      const out = pushFrames(decoder, framer.end());
      for (const e of decoder.end()) out.push(e);
      return out;
    },
  };
}

/**
 * Feeds frames to a decoder (values pushed, framing problems reported as located faults) and
 * returns what it emitted; the decoder is not ended. What `framed` does with each chunk's frames.
 */
export function pushFrames(decoder: Decoder, frames: readonly Frame[]): CanonicalEvent[] {
  if (frames.length === 0) return [];
  const out: CanonicalEvent[] = [];
  for (const f of frames) {
    const events = f.kind === 'value' ? decoder.push(f.value, f.where) : decoder.fault(f.code, f.message, f.where);
    for (const e of events) out.push(e);
  }
  return out;
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Joins a location and a field path into the location of that field. */
export function at(where: Location | undefined, field: string, expected?: string): Location {
  const loc: Location = { ...where, field };
  if (expected !== undefined) loc.expected = expected;
  return loc;
}
