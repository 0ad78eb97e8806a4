/**
 * The choke point every encoder runs behind (see `createEncoder`): `push` and `end` never throw.
 * An event deeper than the depth limit, or one the encoder throws on, is replaced by a non-fatal
 * `error` event that says which event it was (the encoder encodes that instead); if even that
 * fails, the event produces no frames. Nothing after it is affected.
 */
import type { Machine } from '../machine.ts';
import type { CanonicalEvent } from './events.ts';
import { inspect, MAX_DEPTH } from './hostile.ts';

function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Wraps an encoder so that no event, however malformed, makes it throw. */
export function guardEncoder<O>(encoder: Machine<CanonicalEvent, O>): Machine<CanonicalEvent, O> {
  const instead = (e: CanonicalEvent, why: string): O[] => {
    const replacement = {
      type: 'error',
      runId: typeof e?.runId === 'string' ? e.runId : 'unknown',
      seq: Number.isSafeInteger(e?.seq) ? e.seq : 0,
      ts: Number.isFinite(e?.ts) ? e.ts : 0,
      message: `event ${Number.isSafeInteger(e?.seq) ? e.seq : '?'} (${typeof e?.type === 'string' ? e.type : 'no type'}) could not be encoded: ${why}`,
      code: 'unencodable_event',
      fatal: false,
    } as CanonicalEvent;
    try {
      return encoder.push(replacement);
    } catch {
      return [];
    }
  };
  return {
    push(e) {
      if (e === null || typeof e !== 'object') return instead(e, 'not an event object');
      if (inspect(e, MAX_DEPTH + 8).tooDeep) return instead(e, `nested deeper than ${MAX_DEPTH} levels`);
      try {
        return encoder.push(e);
      } catch (err) {
        return instead(e, reason(err));
      }
    },
    end() {
      try {
        return encoder.end();
      } catch {
        return [];
      }
    },
  };
}
