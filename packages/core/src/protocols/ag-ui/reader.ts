/**
 * Reader (decoder) for the AG-UI protocol: AG-UI events (as objects, or an SSE / JSON-lines body
 * through `framed()`) → canonical events. The inverse of `encoder.ts`:
 *
 * - TEXT_MESSAGE_* (role assistant) → text blocks, REASONING_MESSAGE_* → reasoning blocks (the
 *   variant read back from `metadata[namespace].variant`), TOOL_CALL_* → tool calls (the argument
 *   text is parsed once, at TOOL_CALL_END), TOOL_CALL_RESULT → tool-output / tool-error, steps,
 *   state, subagents, RAW → raw, CUSTOM → custom; `*_CHUNK` events are expanded the way the
 *   official client's `transformChunks` does;
 * - our own encoder's `metadata[namespace]` and `<namespace>.*` CUSTOM events are read back into
 *   the canonical fields and kinds they came from, so canonical → AG-UI → canonical is lossless up
 *   to the differences listed in docs/protocols/ag-ui.md;
 * - anything of a foreign producer the canonical event has no field for goes to
 *   `providerMetadata['ag-ui']`, or, on events without providerMetadata, into a `raw` event
 *   carrying the whole AG-UI event;
 * - a stream with several runs (RUN_STARTED … RUN_FINISHED, RUN_STARTED …) is one canonical run:
 *   the run finishes when the input ends; finished runs before the last become `ag-ui.run-finished`
 *   custom events and later RUN_STARTED events `ag-ui.run-started`;
 * - sequence problems the official verifier rejects (CONTENT without START, RUN_FINISHED with open
 *   messages, …) become located errors, and decoding goes on.
 *
 * Work per input event is constant: text deltas are passed on, never joined; tool arguments are
 * collected and joined and parsed once.
 */
import { describe } from '../../codec/framing.ts';
import { type Decoder, isObject } from '../../inputs/decoder.ts';
import type { Json, Location } from '../../model/events.ts';
import { createApply } from './apply.ts';
import { createDispatch } from './chunks.ts';
import { type AgUiDecoderOptions, createReadState, type Ev, kindOf, TYPES } from './read-state.ts';
import { createRunLifecycle } from './run.ts';
import { createSpans } from './spans.ts';

export type { AgUiDecoderOptions } from './read-state.ts';

/** True for one AG-UI event object (its `type` is an AG-UI event type: upper snake case, never Anthropic's or the agent format's). */
export function detectAgUi(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string' && TYPES.has(value.type);
}

/** Creates an AG-UI reader. */
export function createAgUiDecoder(options: AgUiDecoderOptions = {}): Decoder {
  const s = createReadState(options);
  const spans = createSpans(s);
  const { closeAll } = spans;
  const run = createRunLifecycle(s, spans);
  const { flushHeld } = run;
  const dispatch = createDispatch(s, createApply(s, spans, run));
  const { emit, error, fieldError, take } = s;

  function handle(ev: Ev, where: Location | undefined): void {
    const type = ev.type;
    s.ts = Number.isSafeInteger(ev.timestamp) ? (ev.timestamp as number) : undefined;
    if (typeof type !== 'string') return fieldError('event', 'type', 'a string event type', type, where);
    if (!TYPES.has(type)) {
      emit({ type: 'raw', source: 'ag-ui', event: ev as Json, reason: `unknown event type ${JSON.stringify(type)}`, where });
      return;
    }
    dispatch(ev, where);
  }

  return {
    push(value, where) {
      if (!isObject(value))
        error('invalid_event', `${describe(where ?? {})}: expected an AG-UI event (a JSON object with a "type"), got ${kindOf(value)}`, {
          ...where,
          expected: 'object',
        });
      else handle(value, where);
      return take();
    },
    fault(code, message, where) {
      error(code, message, where);
      return take();
    },
    end() {
      s.ts = undefined;
      if (!s.out) {
        error('empty', 'the stream contained no AG-UI events', undefined, true);
        s.fatal = true;
        emit({ type: 'run-finish', finishReason: 'error' });
      } else if (s.run !== 'finished') {
        if (!s.fatal)
          error(
            'truncated',
            s.run === 'open' ? 'the stream ended before RUN_FINISHED or RUN_ERROR' : 'the stream ended without RUN_STARTED … RUN_FINISHED',
            undefined,
            true,
          );
        s.fatal = true;
        closeAll();
        flushHeld();
        emit({ type: 'run-finish', finishReason: 'error' });
      } else {
        closeAll();
        s.ts = s.heldTs;
        emit(s.held ?? { type: 'run-finish', finishReason: 'stop' });
        s.held = undefined;
      }
      return take();
    },
  };
}
