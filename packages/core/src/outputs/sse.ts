/**
 * A protocol's encoder framed as SSE, with an `id:` on every event so a client can resume with
 * `Last-Event-ID`. The id of a frame is the `seq` of the canonical event that produced it, plus `.k`
 * for its k-th further frame (`12`, `12.1`, `12.2`): ordered, and stable across re-encoding because
 * encoders are deterministic. Resuming = re-encoding the run's log from the start and dropping every
 * frame up to the last id the client has.
 */
import { formatSse } from '../codec/sse.ts';
import type { Machine } from '../machine.ts';
import type { CanonicalEvent } from '../model/events.ts';
import { createEncoder, type EncoderOptions, PROTOCOLS, type Protocol, type ProtocolSpec } from './index.ts';

export interface SseEncoderOptions extends EncoderOptions {
  /** Put an `id:` on every SSE event (default true). */
  ids?: boolean;
  /** Drop every frame up to and including this SSE event id (a `Last-Event-ID`). */
  after?: string;
}

/** A parsed SSE event id: the canonical seq and the frame's index among that event's frames. */
export interface FrameId {
  seq: number;
  index: number;
}

/** Parses an SSE event id written by {@link createSseEncoder}; undefined when it is not one. */
export function parseFrameId(id: string | null | undefined): FrameId | undefined {
  const m = id?.trim().match(/^(\d+)(?:\.(\d+))?$/);
  if (!m) return undefined;
  return { seq: Number(m[1]), index: m[2] === undefined ? 0 : Number(m[2]) };
}

/** Formats a frame id (`12`, `12.1`). */
export function formatFrameId(seq: number, index: number): string {
  return index === 0 ? String(seq) : `${seq}.${index}`;
}

/**
 * Encodes canonical events into a protocol's SSE text: one SSE event per frame, ids per frame, and the
 * protocol's terminator (`data: [DONE]` for the AI SDK) at the end. `push` returns the SSE text of
 * the event's frames as one string (none when it has no frames): one string to write per event, not
 * one per frame.
 */
export function createSseEncoder(protocol: Protocol, options: SseEncoderOptions = {}): Machine<CanonicalEvent, string> {
  const spec: ProtocolSpec = PROTOCOLS[protocol];
  const encoder = createEncoder(protocol, options) as Machine<CanonicalEvent, object>;
  const ids = options.ids ?? true;
  const after = parseFrameId(options.after);
  return {
    push(event) {
      const frames = encoder.push(event);
      let text = '';
      for (let k = 0; k < frames.length; k++) {
        if (after && (event.seq < after.seq || (event.seq === after.seq && k <= after.index))) continue;
        const data = JSON.stringify(frames[k]);
        text += ids ? formatSse({ id: formatFrameId(event.seq, k), data }) : `data: ${data}\n\n`;
      }
      return text ? [text] : [];
    },
    end() {
      let text = '';
      for (const f of encoder.end()) text += `data: ${JSON.stringify(f)}\n\n`;
      if (spec.terminator) text += `data: ${spec.terminator}\n\n`;
      return text ? [text] : [];
    },
  };
}
