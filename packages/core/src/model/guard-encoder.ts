/**
 * The choke point every encoder runs behind (see `createEncoder`): `push` and `end` never throw.
 * An event deeper than the depth limit, or one the encoder throws on, is replaced by a non-fatal
 * `error` event that says which event it was (the encoder encodes that instead); if even that
 * fails, the event produces no frames. Nothing after it is affected. Events that did not come
 * through a guarded decoder (a store, a client) are cleaned like decoder output: `__proto__` keys
 * and non-finite numbers are left out of the frames, and an error frame after them says what.
 */
import type { Machine } from '../machine.ts';
import type { CanonicalEvent } from './events.ts';
import { clean, dropFromEvent, MAX_DEPTH, type Removed, scan, TOO_DEEP } from './hostile.ts';

/** Events whose fields are all strings: nothing to inspect. */
const FLAT = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta', 'text-start', 'text-end']);

function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Wraps an encoder so that no event, however malformed, makes it throw. */
export function guardEncoder<O>(encoder: Machine<CanonicalEvent, O>): Machine<CanonicalEvent, O> {
  const instead = (e: CanonicalEvent, why: string, code = 'unencodable_event'): O[] => {
    const replacement = {
      type: 'error',
      runId: typeof e?.runId === 'string' ? e.runId : 'unknown',
      seq: Number.isSafeInteger(e?.seq) ? e.seq : 0,
      ts: Number.isFinite(e?.ts) ? e.ts : 0,
      message: `event ${Number.isSafeInteger(e?.seq) ? e.seq : '?'} (${typeof e?.type === 'string' ? e.type : 'no type'}) ${code === 'unencodable_event' ? 'could not be encoded' : 'was encoded without unsafe fields'}: ${why}`,
      code,
      fatal: false,
    } as CanonicalEvent;
    try {
      return encoder.push(replacement);
    } catch {
      return [];
    }
  };
  /** An event that needs cleaning first: the warning goes after it, or before it when it ends the run. */
  const pushUnsafe = (e: CanonicalEvent): O[] => {
    const removed: Removed[] = [];
    let safe: CanonicalEvent;
    try {
      safe = clean(e, removed, dropFromEvent) as CanonicalEvent;
    } catch (err) {
      return instead(e, reason(err));
    }
    const terminal = safe.type === 'run-finish' || safe.type === 'run-abort';
    const warning = removed.length ? removed.map((r) => r.path).join(', ') : undefined;
    const out: O[] = terminal && warning !== undefined ? instead(safe, warning, 'unsafe_event') : [];
    try {
      for (const o of encoder.push(safe)) out.push(o);
    } catch (err) {
      for (const o of instead(safe, reason(err))) out.push(o);
    }
    if (!terminal && warning !== undefined) for (const o of instead(safe, warning, 'unsafe_event')) out.push(o);
    return out;
  };
  return {
    push(e) {
      if (e === null || typeof e !== 'object') return instead(e, 'not an event object');
      let found: number;
      try {
        // Deltas (the hot path) have nothing to inspect or clean.
        found = FLAT.has(e.type) ? 0 : scan(e, MAX_DEPTH + 8);
        if (found === 0) return encoder.push(e);
      } catch (err) {
        return instead(e, reason(err));
      }
      if (found & TOO_DEEP) return instead(e, `nested deeper than ${MAX_DEPTH} levels`);
      return pushUnsafe(e);
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
