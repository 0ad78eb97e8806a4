/**
 * Encoder for the AG-UI protocol (1.0; what `@ag-ui/client`'s `HttpAgent` reads). Canonical events
 * in, AG-UI event objects out; `sse.ts` frames them as `data: <json>\n\n` exactly like
 * `@ag-ui/encoder`'s `EventEncoder.encodeSSE` (no `[DONE]`).
 *
 * Shape of the output (see docs/protocols/ag-ui.md for the full table):
 * - one AG-UI run: RUN_STARTED first, RUN_FINISHED (or RUN_ERROR) last, with every text message,
 *   reasoning message, tool call, step and subagent closed before RUN_FINISHED as the official
 *   verifier requires;
 * - text and tool calls go to an assistant message (`messageId` of the run for the first one,
 *   `<messageId>-<n>` after a step boundary, a reasoning block or a tool result), so the client's
 *   apply step builds the history a model would see: assistant → tool → assistant;
 * - each reasoning block is its own `reasoning` message; its variant (thinking / processing)
 *   travels in `metadata[namespace].variant`, signatures / encrypted reasoning also as
 *   REASONING_ENCRYPTED_VALUE;
 * - canonical fields AG-UI has no field for travel in `metadata[namespace]`, so that the AG-UI
 *   reader (`reader.ts`) turns the stream back into the same canonical events.
 */

import type { Machine } from '../../machine.ts';
import type { CanonicalEvent } from '../../model/events.ts';
import { createEventEncoder } from './encode-event.ts';
import { type AgUiEncoderOptions, createEncoderState } from './encoder-state.ts';
import type { AgUiEvent } from './schema.ts';

export type { AgUiEncoderOptions } from './encoder-state.ts';

/** Response headers of the AG-UI SSE transport (`EventEncoder.getContentType()` is `text/event-stream`). */
export const AG_UI_SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Creates an AG-UI encoder (push canonical events, get AG-UI events). */
export function createAgUiEncoder(options: AgUiEncoderOptions = {}): Machine<CanonicalEvent, AgUiEvent> {
  const s = createEncoderState(options);
  const encode = createEventEncoder(s);
  return {
    push(e) {
      if (s.ended) return [];
      s.ts = Number.isFinite(e.ts) ? Math.round(e.ts) : undefined;
      const out: AgUiEvent[] = [];
      encode(e, out);
      return out;
    },
    end() {
      return [];
    },
  };
}
