/**
 * Reader (decoder) for the WebSocket `agent:event` contract of seed 004: AgentEvent frames (as
 * `encoder.ts` writes them, one per line, or as a Socket.IO client receives them) back into
 * canonical events, linear in the stream's length (chunk contents are kept as parts and joined once
 * per block, when the block's final frame is checked against them).
 *
 * - thinking_chunk / message_chunk open their block on first sight and append; thinking / message
 *   close it (content beyond the chunks arrives as one last delta; a mismatch is a located error);
 *   citations on chunks come before that chunk's text, the final frame's further citations before the
 *   end;
 * - tool_use → tool-input-start + tool-input-end (once per tool_call_id); tool_result → tool-output /
 *   tool-error (once per tool_call_id, preliminary outputs aside);
 * - complete → run-finish (or run-abort when `aborted` / reason `user_cancelled`); the extension
 *   frames map back one to one; the prototype's camelCase names (toolName, toolUseId, args, success,
 *   stopReason) are read too; frames of types the canonical model has no place for become `raw`.
 * The event times are the frames' `timestamp`s (falling back to `options.now`).
 */
import { describe } from '../../codec/framing.ts';
import { type Decoder, isObject } from '../../inputs/decoder.ts';
import type { DecoderOptions } from '../../model/emitter.ts';
import { createFrameHandler } from './frames.ts';
import { createReadState, PERSISTENCE_STATES, WS_TYPES } from './read-state.ts';

export { fromWsCitation, fromWsUsage } from './read-state.ts';

/** Creates the reader of `agent:event` frames (framework `ws`). */
export function createWsDecoder(options: DecoderOptions = {}): Decoder {
  const s = createReadState(options);
  const { out } = s;
  const handle = createFrameHandler(s);
  return {
    push(value, where) {
      if (!isObject(value)) {
        s.error(
          'invalid_event',
          `${describe(where ?? {})}: expected an agent:event object with a "type", got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
          { ...where, expected: 'object' },
        );
        return out.take();
      }
      if (typeof value.type !== 'string') {
        s.invalid(where, 'type', 'the event type as a string');
        return out.take();
      }
      const t = typeof value.timestamp === 'string' ? Date.parse(value.timestamp) : Number.NaN;
      s.frameTime = Number.isFinite(t) ? t : undefined;
      handle(value.type, value, where);
      s.frameTime = undefined;
      return out.take();
    },
    fault(code, message, where) {
      s.error(code, message, where);
      return out.take();
    },
    end() {
      if (!out.finished) {
        if (!s.failed) s.error('truncated', 'the agent:event stream ended without a "complete" event', undefined, true);
        s.closeAll();
        s.closeSteps();
        out.emit({ type: 'run-finish', finishReason: 'error' });
      }
      return out.take();
    },
  };
}

/** True when one parsed value is unmistakably an `agent:event` frame (a known type and the contract's envelope). */
export function detectWs(value: unknown): boolean {
  return (
    isObject(value) &&
    !('data' in value) &&
    typeof value.type === 'string' &&
    WS_TYPES.has(value.type) &&
    typeof value.persistenceState === 'string' &&
    PERSISTENCE_STATES.has(value.persistenceState) &&
    (typeof value.eventId === 'string' || typeof value.eventIndex === 'number')
  );
}
