/**
 * The stored assistant message → AI SDK `UIMessage`s: the same parts the client assembled live
 * (step-start, reasoning with `providerMetadata[namespace].variant` and the stored `durationMs`,
 * signatures kept, text with citations, `tool-<name>` parts, source-url / source-document, file,
 * data-todos / data-usage / …). Pure; {@link createUIMessageView} is the memoized form for a live fold.
 */
import type { HistoryOptions } from '../../message/history-options.ts';
import type { AssistantMessage, MessagePart, PersistedMessage, ToolPart, UserMessage } from '../../message/types.ts';
import type { Json, JsonObject, ProviderMetadata } from '../../model/events.ts';
import { mergeProviderMetadata } from '../../model/metadata.ts';
import { messageSummaryMetadata } from '../../model/run-summary.ts';
import { toAiSdkCitation, toAiSdkSource } from './encoder.ts';
import type { UIMessageLike, UIMessagePartLike } from './reducer.ts';

function aiSdkTool(p: ToolPart): UIMessagePartLike {
  const out: UIMessagePartLike = { type: `tool-${p.toolName}`, toolCallId: p.toolCallId, state: p.state };
  if (p.input !== undefined) out.input = p.input;
  else if (p.state !== 'input-streaming') out.input = {};
  if (p.state === 'output-available') out.output = p.output ?? null;
  if (p.state === 'output-error') out.errorText = p.errorText ?? 'error';
  if (p.approval) {
    // The client's approval object: id, requestReason; approved and reason once answered (not who: ours).
    const { by: _by, ...approval } = p.approval;
    out.approval = approval;
  }
  if (p.providerExecuted !== undefined) out.providerExecuted = p.providerExecuted;
  if (p.preliminary) out.preliminary = true;
  if (p.callProviderMetadata) out.callProviderMetadata = p.callProviderMetadata;
  if (p.resultProviderMetadata) out.resultProviderMetadata = p.resultProviderMetadata;
  return out;
}

/** One stored part → its AI SDK part, or undefined when the options leave it out. */
function toUIPart(p: MessagePart, ns: string, sendReasoning: boolean, sendSources: boolean): UIMessagePartLike | undefined {
  switch (p.type) {
    case 'step-start':
      return { type: 'step-start' };
    case 'reasoning': {
      if (!sendReasoning) return undefined;
      const ours: Record<string, Json> = { variant: p.variant };
      if (p.durationMs !== undefined) ours.durationMs = p.durationMs;
      const pm = mergeProviderMetadata(p.providerMetadata, { [ns]: ours }) as ProviderMetadata;
      return { type: 'reasoning', id: p.blockId, text: p.text, state: p.state, providerMetadata: pm };
    }
    case 'text': {
      const part: UIMessagePartLike = { type: 'text', text: p.text, state: p.state };
      if (p.providerMetadata) part.providerMetadata = p.providerMetadata;
      if (sendSources && p.citations?.length && p.state === 'done')
        part.citations = p.citations.map((c) => toAiSdkCitation(c, c.sourceId) as unknown as JsonObject);
      return part;
    }
    case 'tool':
      return aiSdkTool(p);
    case 'source':
      return sendSources ? toAiSdkSource(p) : undefined;
    case 'file': {
      const part: UIMessagePartLike = { type: 'file', mediaType: p.mediaType, url: p.url };
      if (p.providerMetadata) part.providerMetadata = p.providerMetadata;
      return part;
    }
    case 'data': {
      const part: UIMessagePartLike = { type: `data-${p.name}` };
      if (p.id !== undefined) part.id = p.id;
      part.data = p.data;
      return part;
    }
  }
}

/** readUIMessageStream adds a step-start part without publishing it: one with nothing after it
 * (a step that produced nothing, e.g. a request that failed) never reaches the client's message. */
function dropTrailingStepStarts(parts: UIMessagePartLike[]): UIMessagePartLike[] {
  while (parts.at(-1)?.type === 'step-start') parts.pop();
  return parts;
}

/** The AI SDK parts of a stored assistant message. */
export function toUIParts(m: AssistantMessage, options: HistoryOptions = {}): UIMessagePartLike[] {
  const ns = options.namespace ?? 'switchboard';
  const out: UIMessagePartLike[] = [];
  for (const p of m.metadata.parts) {
    const part = toUIPart(p, ns, options.sendReasoning ?? true, options.sendSources ?? true);
    if (part) out.push(part);
  }
  return dropTrailingStepStarts(out);
}

/** A stored user (or system) message → its AI SDK message: the parts the client sent, else its text. */
export function toUIUserMessage(m: UserMessage): UIMessageLike {
  const { parts, ...rest } = m.metadata;
  const out: UIMessageLike = {
    id: m.id,
    role: m.role,
    parts: Array.isArray(parts) && parts.length > 0 ? (parts as UIMessagePartLike[]) : [{ type: 'text', text: m.content }],
  };
  if (Object.keys(rest).length > 0) out.metadata = rest;
  return out;
}

/** The assistant message's AI SDK metadata: its run metadata, plus `metadata[namespace]` unless turned off. */
function assistantMetadata(m: AssistantMessage, options: HistoryOptions): JsonObject | undefined {
  const md = m.metadata;
  const metadata: JsonObject | undefined = md.runMetadata ? { ...md.runMetadata } : undefined;
  if (!(options.metadata ?? true)) return metadata;
  // The same shape the AI SDK encoder sends live (core's model/run-summary.ts).
  const ours = messageSummaryMetadata({
    runId: m.runId,
    persistenceState: m.persistenceState,
    status: md.status,
    ...(md.model !== undefined ? { model: md.model } : {}),
    ...(md.usage !== undefined ? { usage: md.usage } : {}),
    ...(md.stopReason !== undefined ? { stopReason: md.stopReason } : {}),
    ...(md.durationMs !== undefined ? { durationMs: md.durationMs } : {}),
    ...(md.error !== undefined ? { error: md.error } : {}),
  });
  return { ...metadata, [options.namespace ?? 'switchboard']: ours };
}

function assistantUIMessage(m: AssistantMessage, parts: UIMessagePartLike[], options: HistoryOptions): UIMessageLike {
  const out: UIMessageLike = { id: m.id, role: 'assistant', parts };
  const metadata = assistantMetadata(m, options);
  if (metadata) out.metadata = metadata;
  return out;
}

/** A stored assistant message → its AI SDK message. */
export function toUIMessage(m: AssistantMessage, options: HistoryOptions = {}): UIMessageLike {
  return assistantUIMessage(m, toUIParts(m, options), options);
}

/** Stored messages → AI SDK `UIMessage[]` (what `useChat({ messages })` takes). */
export function toUIMessages(messages: readonly PersistedMessage[], options: HistoryOptions = {}): UIMessageLike[] {
  return messages.map((m) => (m.role === 'assistant' ? toUIMessage(m, options) : toUIUserMessage(m)));
}

/** A memoized fold snapshot → UIMessage conversion (see {@link createUIMessageView}). */
export interface UIMessageView {
  /** The AI SDK message of a fold snapshot; parts whose stored part object is unchanged are reused. */
  view(m: AssistantMessage): UIMessageLike;
}

/**
 * The AI SDK message of a live fold, converted after every event at the cost of what changed: the
 * fold's `snapshot()` keeps each unchanged part the same object, so its converted part is reused, and
 * the same snapshot gives the same message.
 *
 * @example
 * const fold = createMessageFold(); const view = createUIMessageView();
 * for (const e of events) { fold.push(e); render(view.view(fold.snapshot())); }
 */
export function createUIMessageView(options: HistoryOptions = {}): UIMessageView {
  const ns = options.namespace ?? 'switchboard';
  const sendReasoning = options.sendReasoning ?? true;
  const sendSources = options.sendSources ?? true;
  // Keyed by the fold's part objects: a replaced part's entry goes with it.
  const converted = new WeakMap<MessagePart, UIMessagePartLike | null>();
  let last: { message: AssistantMessage; out: UIMessageLike } | undefined;
  return {
    view(m) {
      if (last?.message === m) return last.out;
      const parts: UIMessagePartLike[] = [];
      for (const p of m.metadata.parts) {
        let part = converted.get(p);
        if (part === undefined) {
          part = toUIPart(p, ns, sendReasoning, sendSources) ?? null;
          converted.set(p, part);
        }
        if (part) parts.push(part);
      }
      const out = assistantUIMessage(m, dropTrailingStepStarts(parts), options);
      last = { message: m, out };
      return out;
    },
  };
}
