/**
 * AG-UI events → one AI SDK-shaped assistant message, so the AG-UI mode renders with the same
 * components as the `useChat` mode. Nothing is mapped here: core's AG-UI reader turns the events
 * back into canonical events (reading what Switchboard's encoder carries in `metadata.switchboard`
 * and `switchboard.*` CUSTOM events), core's message fold assembles the assistant message, and
 * core's AI SDK view (`createUIMessageView`, the same conversion as the AI SDK history) gives its
 * UIMessage parts. Parts that did not change keep their identity (the fold's snapshots share them,
 * the view reuses their conversion), so the renderer's per-part memoization works as with `useChat`.
 *
 * A run that continues a message (an approval answered through `resume`, a frontend tool's output
 * sent as a `tool` message) adds to that message, as `useChat` does: the builder starts from it, and
 * a result for one of its calls settles that call's part.
 */
import { type CanonicalEvent, createAgUiDecoder, createMessageFold, createUIMessageView } from '@switchboard/core';

import { type ChatMessage, isRecord, type LoosePart } from '../lib/types.ts';
import { type FrontendCall, frontendCallsWaiting } from './client-tools.ts';

type AgUiEvent = { type: string } & Record<string, unknown>;

export class AgUiMessageBuilder {
  id: string;
  runId: string | undefined;
  error: string | undefined;
  finished = false;
  /** Transient status (canonical `status`, CUSTOM switchboard.status over AG-UI). */
  status: string | undefined;
  private readonly decoder = createAgUiDecoder();
  /** The message, stamped with the browser's receipt clock. */
  private readonly fold = createMessageFold({ clock: Date.now });
  private readonly view = createUIMessageView();
  /** The parts of the message this run continues (settled in place by this run's results). */
  private base: LoosePart[];
  private readonly continues: boolean;

  /** `continues`: the message this run goes on with (its id stays the message's id). */
  constructor(fallbackId: string, continues?: ChatMessage) {
    this.id = continues?.id ?? fallbackId;
    this.continues = continues !== undefined;
    this.base = continues ? [...(continues.parts as unknown as LoosePart[])] : [];
  }

  /** This run's own parts: the fold's snapshot through the AI SDK view. */
  private get own(): LoosePart[] {
    return this.view.view(this.fold.snapshot()).parts as unknown as LoosePart[];
  }

  /** The parts so far (unchanged parts keep their identity between reads). */
  get parts(): LoosePart[] {
    const own = this.own;
    return this.base.length ? [...this.base, ...own] : own;
  }

  /** Calls of this message the run left to the browser: frontend tools with no result yet. */
  get pendingFrontendCalls(): FrontendCall[] {
    return frontendCallsWaiting(this.own);
  }

  /** Some call of this run waits for the reader's approval. */
  get waitingForApproval(): boolean {
    return this.own.some((p) => p.state === 'approval-requested');
  }

  /** Some call of this run waits for the reader (an approval, a frontend tool). */
  get waiting(): boolean {
    return this.waitingForApproval || this.pendingFrontendCalls.length > 0;
  }

  /** A result of a call of the continued message: settles that part; false when the call is not there. */
  private settleBase(ev: CanonicalEvent): boolean {
    if (ev.type !== 'tool-output' && ev.type !== 'tool-error' && ev.type !== 'tool-approval-response') return false;
    const approvalId = ev.type === 'tool-approval-response' ? ev.approvalId : undefined;
    const at = this.base.findIndex(
      (p) =>
        (p.type.startsWith('tool-') || p.type === 'dynamic-tool') &&
        (ev.toolCallId !== undefined ? p.toolCallId === ev.toolCallId : isRecord(p.approval) && p.approval.id === approvalId),
    );
    if (at === -1) return false;
    const p = this.base[at];
    let next: LoosePart;
    if (ev.type === 'tool-approval-response') {
      const approval = { ...(isRecord(p.approval) ? p.approval : {}), id: ev.approvalId, approved: ev.approved };
      next = { ...p, state: ev.approved ? 'approval-responded' : 'output-denied', approval };
    } else if (ev.type === 'tool-error') next = { ...p, state: 'output-error', errorText: ev.error };
    else next = { ...p, state: 'output-available', output: ev.output };
    this.base = this.base.with(at, next);
    return true;
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
        if (ev.messageId && !this.continues) this.id = ev.messageId;
      } else if (this.continues && this.settleBase(ev)) continue;
      else if (ev.type === 'status') this.status = ev.message ?? ev.status;
      else if (ev.type === 'error' && ev.fatal) this.error = ev.message;
      this.fold.push(ev);
    }
  }

  /** Ends the message: whatever is still open is closed (run finished, failed or stopped). */
  finish(): void {
    if (this.finished) return;
    const error = this.error;
    this.take(this.decoder.end());
    this.fold.end();
    // A stream the client stopped is not a failure of the run.
    this.error = error;
    this.finished = true;
  }
}

type AgUiToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
export type AgUiInputMessage =
  | { id: string; role: 'user' | 'system'; content: string }
  | { id: string; role: 'assistant'; content: string; toolCalls?: AgUiToolCall[] }
  | { id: string; role: 'tool'; toolCallId: string; content: string; error?: string };

/**
 * UIMessages → AG-UI messages for the HttpAgent's conversation: text, an assistant's tool calls
 * (`toolCalls`), and each settled call's result as a `tool` message after it (a string output as
 * is, anything else as JSON). Calls waiting for an answer go without a result: the run that
 * answers them says how (`resume` for an approval, a `tool` message for a frontend tool).
 */
export function toAgUiMessages(messages: readonly ChatMessage[]): AgUiInputMessage[] {
  const out: AgUiInputMessage[] = [];
  for (const m of messages) {
    const parts = m.parts as unknown as LoosePart[];
    const content = parts.map((p) => (p.type === 'text' ? String(p.text ?? '') : '')).join('');
    if (m.role !== 'assistant') {
      out.push({ id: m.id, role: m.role, content });
      continue;
    }
    const calls = parts.filter((p) => p.type.startsWith('tool-') && typeof p.toolCallId === 'string' && p.providerExecuted !== true);
    if (calls.length === 0) {
      out.push({ id: m.id, role: 'assistant', content });
      continue;
    }
    const toolCalls = calls.map((p) => ({
      id: String(p.toolCallId),
      type: 'function' as const,
      function: { name: p.type.slice(5), arguments: JSON.stringify(p.input ?? {}) },
    }));
    out.push({ id: m.id, role: 'assistant', content, toolCalls });
    for (const p of calls) {
      const id = `${m.id}:${String(p.toolCallId)}`;
      if (p.state === 'output-available')
        out.push({
          id,
          role: 'tool',
          toolCallId: String(p.toolCallId),
          content: typeof p.output === 'string' ? p.output : JSON.stringify(p.output ?? null),
        });
      else if (p.state === 'output-error')
        out.push({ id, role: 'tool', toolCallId: String(p.toolCallId), content: '', error: String(p.errorText ?? 'error') });
    }
  }
  return out;
}
