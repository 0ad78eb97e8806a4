/**
 * AG-UI events → one AI SDK-shaped assistant message, so the AG-UI mode renders with the same
 * components as the `useChat` mode. Nothing is mapped here: core's AG-UI reader turns the events
 * back into canonical events (reading what Switchboard's encoder carries in `metadata.switchboard`
 * and `switchboard.*` CUSTOM events), core's AI SDK encoder writes the chunks the `useChat` mode
 * gets, and core's AI SDK reducer assembles them as `readUIMessageStream` does. Parts that did not
 * change keep their identity, so the renderer's per-part memoization works as with `useChat`.
 */
import { type CanonicalEvent, createAgUiDecoder, createAiSdkEncoder, createAiSdkReducer } from '@switchboard/core';

import type { ChatMessage, LoosePart } from '../lib/types.ts';

type AgUiEvent = { type: string } & Record<string, unknown>;

export class AgUiMessageBuilder {
  id: string;
  runId: string | undefined;
  error: string | undefined;
  finished = false;
  /** Transient status (canonical `status`, CUSTOM switchboard.status over AG-UI). */
  status: string | undefined;
  private readonly decoder = createAgUiDecoder();
  private readonly encoder = createAiSdkEncoder();
  private readonly reducer = createAiSdkReducer();

  constructor(fallbackId: string) {
    this.id = fallbackId;
  }

  /** The parts so far (unchanged parts keep their identity between reads). */
  get parts(): LoosePart[] {
    return this.reducer.message.parts;
  }

  get message(): ChatMessage {
    return { id: this.id, role: 'assistant', parts: this.parts as unknown as ChatMessage['parts'] };
  }

  /** Applies one AG-UI event. The run's end (RUN_FINISHED / RUN_ERROR) finishes the message. */
  apply(e: AgUiEvent): void {
    if (this.finished) return;
    this.take(this.decoder.push(e));
    if (e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR') this.finish();
  }

  private take(events: readonly CanonicalEvent[]): void {
    for (const ev of events) {
      if (ev.type === 'run-start') {
        this.runId = ev.runId;
        if (ev.messageId) this.id = ev.messageId;
      } else if (ev.type === 'status') this.status = ev.message ?? ev.status;
      else if (ev.type === 'error' && ev.fatal) this.error = ev.message;
      for (const chunk of this.encoder.push(ev)) this.reducer.apply(chunk);
    }
  }

  /** Ends the message: whatever is still open is closed (run finished, failed or stopped). */
  finish(): void {
    if (this.finished) return;
    const error = this.error;
    this.take(this.decoder.end());
    for (const chunk of this.encoder.end()) this.reducer.apply(chunk);
    // A stream the client stopped is not a failure of the run.
    this.error = error;
    this.finished = true;
  }
}

/** UIMessages → AG-UI messages (text only) for the HttpAgent's conversation. */
export function toAgUiMessages(messages: readonly ChatMessage[]): { id: string; role: 'user' | 'assistant' | 'system'; content: string }[] {
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'system')
    .map((m) => ({
      id: m.id,
      role: m.role,
      content: (m.parts as unknown as LoosePart[]).map((p) => (p.type === 'text' ? String(p.text ?? '') : '')).join(''),
    }));
}
