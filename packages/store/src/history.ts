/**
 * History reload in each protocol, from the persisted messages (no log replay needed):
 * - `ai-sdk`: `UIMessage[]` — the same parts the client assembled live (step-start, reasoning with
 *   `providerMetadata[namespace].variant` and the stored `durationMs`, signatures kept, text with
 *   citations, `tool-<name>` parts, source-url / source-document, file, data-todos / data-usage / …);
 * - `ag-ui`: a `MESSAGES_SNAPSHOT` event (`user`, `assistant` with `toolCalls`, `tool`, `reasoning`);
 * - `timeline`: seed 002's timeline (thinking, agent_message, user_message, tool_execution,
 *   system_message, ephemeral_message), `<think>` tags in stored text deduplicated against the
 *   streamed thinking blocks;
 * - `canonical`: the user messages and each run's canonical events.
 */
import {
  type CanonicalEvent,
  encryptedReasoningOf,
  type Json,
  type JsonObject,
  type ProviderMetadata,
  splitThinkTags,
  type TimelineItem,
  type ToolCallData,
  type ToolResultData,
  toAiSdkCitation,
  toAiSdkSource,
} from '@switchboard/core';

import {
  type AssistantMessage,
  type MessagePart,
  mergeProviderMetadata,
  type PersistedMessage,
  type ToolPart,
  type UserMessage,
} from './projection.ts';
import { type RunStatus, type Store, StoreError } from './store.ts';

/** The protocols history can be loaded in. */
export const HISTORY_PROTOCOLS = ['ai-sdk', 'ag-ui', 'timeline', 'canonical'] as const;
export type HistoryProtocol = (typeof HISTORY_PROTOCOLS)[number];

/** True when `name` is a history protocol. */
export function isHistoryProtocol(name: string): name is HistoryProtocol {
  return (HISTORY_PROTOCOLS as readonly string[]).includes(name);
}

export interface HistoryOptions {
  /** providerMetadata / metadata key for the reasoning variant and our fields (default `switchboard`, like the encoders). */
  namespace?: string;
  /** Include reasoning (default true). */
  sendReasoning?: boolean;
  /** Include sources and citations (default true). */
  sendSources?: boolean;
  /**
   * AI SDK: add `metadata[namespace]` (runId, persistenceState, status, model, usage, stopReason,
   * durationMs) to assistant messages (default true). False gives exactly the live message metadata.
   */
  metadata?: boolean;
  /**
   * Include assistant messages whose run is still streaming (default true). An AI SDK client that
   * calls `resumeStream()` after loading history wants them left out: the resumed stream replays the
   * whole message, and would otherwise be appended to the partial one.
   */
  includePending?: boolean;
}

// ---------------------------------------------------------------------------------------------
// AI SDK
// ---------------------------------------------------------------------------------------------

/** One part of an AI SDK UIMessage (structural: the store does not depend on `ai`). */
export type UIPartLike = { type: string } & Record<string, unknown>;

/** An AI SDK `UIMessage` (structural). */
export interface UIMessageLike {
  id: string;
  role: 'system' | 'user' | 'assistant';
  metadata?: unknown;
  parts: UIPartLike[];
}

function aiSdkTool(p: ToolPart): UIPartLike {
  const out: UIPartLike = { type: `tool-${p.toolName}`, toolCallId: p.toolCallId, state: p.state };
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

/** The AI SDK parts of a persisted assistant message. */
export function toUIParts(m: AssistantMessage, options: HistoryOptions = {}): UIPartLike[] {
  const ns = options.namespace ?? 'switchboard';
  const sendReasoning = options.sendReasoning ?? true;
  const sendSources = options.sendSources ?? true;
  const out: UIPartLike[] = [];
  for (const p of m.metadata.parts) {
    switch (p.type) {
      case 'step-start':
        out.push({ type: 'step-start' });
        break;
      case 'reasoning': {
        if (!sendReasoning) break;
        const ours: Record<string, Json> = { variant: p.variant };
        if (p.durationMs !== undefined) ours.durationMs = p.durationMs;
        const pm = mergeProviderMetadata(p.providerMetadata, { [ns]: ours }) as ProviderMetadata;
        out.push({ type: 'reasoning', id: p.blockId, text: p.text, state: p.state, providerMetadata: pm });
        break;
      }
      case 'text': {
        const part: UIPartLike = { type: 'text', text: p.text, state: p.state };
        if (p.providerMetadata) part.providerMetadata = p.providerMetadata;
        if (sendSources && p.citations?.length && p.state === 'done')
          part.citations = p.citations.map((c) => toAiSdkCitation(c, c.sourceId) as unknown as JsonObject);
        out.push(part);
        break;
      }
      case 'tool':
        out.push(aiSdkTool(p));
        break;
      case 'source': {
        if (!sendSources) break;
        out.push(toAiSdkSource(p));
        break;
      }
      case 'file': {
        const part: UIPartLike = { type: 'file', mediaType: p.mediaType, url: p.url };
        if (p.providerMetadata) part.providerMetadata = p.providerMetadata;
        out.push(part);
        break;
      }
      case 'data': {
        const part: UIPartLike = { type: `data-${p.name}` };
        if (p.id !== undefined) part.id = p.id;
        part.data = p.data;
        out.push(part);
        break;
      }
    }
  }
  // readUIMessageStream adds a step-start part without publishing it: one with nothing after it
  // (a step that produced nothing, e.g. a request that failed) never reaches the client's message.
  while (out.at(-1)?.type === 'step-start') out.pop();
  return out;
}

function userParts(m: UserMessage): { parts: UIPartLike[]; metadata?: JsonObject } {
  const { parts, ...rest } = m.metadata;
  const out: { parts: UIPartLike[]; metadata?: JsonObject } = {
    parts: Array.isArray(parts) && parts.length > 0 ? (parts as UIPartLike[]) : [{ type: 'text', text: m.content }],
  };
  if (Object.keys(rest).length > 0) out.metadata = rest;
  return out;
}

/** Persisted messages → AI SDK `UIMessage[]` (what `useChat({ messages })` takes). */
export function toUIMessages(messages: readonly PersistedMessage[], options: HistoryOptions = {}): UIMessageLike[] {
  const ns = options.namespace ?? 'switchboard';
  return messages.map((m): UIMessageLike => {
    if (m.role !== 'assistant') {
      const { parts, metadata } = userParts(m);
      const out: UIMessageLike = { id: m.id, role: m.role, parts };
      if (metadata) out.metadata = metadata;
      return out;
    }
    const out: UIMessageLike = { id: m.id, role: 'assistant', parts: toUIParts(m, options) };
    const md = m.metadata;
    let metadata: JsonObject | undefined = md.runMetadata ? { ...md.runMetadata } : undefined;
    if (options.metadata ?? true) {
      const ours: JsonObject = { runId: m.runId, persistenceState: m.persistenceState, status: md.status };
      if (md.model !== undefined) ours.model = md.model;
      if (md.usage !== undefined) ours.usage = md.usage as Json;
      if (md.stopReason !== undefined) ours.stopReason = md.stopReason;
      if (md.durationMs !== undefined) ours.durationMs = md.durationMs;
      if (md.error !== undefined)
        ours.error = { message: md.error.message, ...(md.error.code !== undefined ? { code: md.error.code } : {}) };
      metadata = { ...metadata, [ns]: ours };
    }
    if (metadata) out.metadata = metadata;
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// AG-UI
// ---------------------------------------------------------------------------------------------

/** One AG-UI message (`@ag-ui/core` `Message`, structural). */
export type AgUiMessageLike = { id: string; role: 'user' | 'assistant' | 'tool' | 'reasoning' | 'system' | 'developer' } & Record<
  string,
  unknown
>;

/** The AG-UI `MESSAGES_SNAPSHOT` event. */
export interface MessagesSnapshotLike {
  type: 'MESSAGES_SNAPSHOT';
  messages: AgUiMessageLike[];
  timestamp?: number;
}

/** A call's arguments as the model produced them: the streamed text when there was one, else the input as JSON. */
function toolArguments(p: ToolPart): string {
  if (p.inputText !== undefined) return p.inputText;
  if (p.inputError !== undefined && typeof p.input === 'string') return p.input;
  if (p.input === undefined) return '';
  return JSON.stringify(p.input);
}

/**
 * One assistant message → AG-UI messages, segmented like the AG-UI encoder does it live: text and
 * tool calls go to an assistant message (id = the message id, then `<id>-<n>`), a new one after an
 * explicit step boundary, a reasoning block or a tool result; each reasoning block is a `reasoning`
 * message; each tool result a `tool` message right after the assistant message that made the call.
 */
function agUiOfAssistant(m: AssistantMessage, ns: string, sendReasoning: boolean): AgUiMessageLike[] {
  const base = m.id;
  const list: AgUiMessageLike[] = [];
  let used = new Set<string>();
  const unique = (id: string) => {
    let out = id;
    for (let k = 2; used.has(out); k++) out = `${id}~${k}`;
    used.add(out);
    return out;
  };
  const scoped = (id: string) => unique(id.startsWith(`${base}:`) ? id : `${base}:${id}`);
  let count = 0;
  const current = new Map<string | undefined, AgUiMessageLike>();
  const ownerOfCall = new Map<string, AgUiMessageLike>();
  /** seq at which the last text block put in a message closed. */
  const textUntil = new Map<AgUiMessageLike, number>();

  /** Assistant messages by id: a continuation run may name one the client has already (it adds to it). */
  const assistants = new Map<string, AgUiMessageLike>();
  const runStarts = (m.metadata.runSeqs ?? []).slice(1);

  const assistantFor = (owner: string | undefined): AgUiMessageLike => {
    let msg = current.get(owner);
    if (!msg) {
      let id: string;
      do {
        count++;
        id = count === 1 ? base : `${base}-${count}`;
      } while (used.has(id));
      used.add(id);
      msg = assistants.get(id);
      if (!msg) {
        msg = { id, role: 'assistant' };
        if (owner !== undefined) msg.subagentRunId = owner;
        list.push(msg);
        assistants.set(id, msg);
      }
      current.set(owner, msg);
    }
    return msg;
  };

  // Parts in event order, with each tool result at the position of its output event.
  type Item = { at: number; part: MessagePart; result: boolean };
  const items: Item[] = [];
  for (const p of m.metadata.parts) {
    items.push({ at: p.seq, part: p, result: false });
    if (p.type === 'tool' && p.outputSeq !== undefined && p.inputError === undefined)
      items.push({ at: p.outputSeq, part: p, result: true });
  }
  items.sort((a, b) => a.at - b.at);

  for (const { at, part: p, result } of items) {
    if (runStarts.length > 0 && at >= runStarts[0]) {
      // A continuation run, encoded on its own: it counts its message ids again, past the message id
      // (which the client has), as the AG-UI encoder does for a run that starts with answers.
      while (runStarts.length > 0 && at >= runStarts[0]) runStarts.shift();
      count = 0;
      current.clear();
      used = new Set([base]);
    }
    const owner = p.subagentId;
    switch (p.type) {
      case 'step-start':
        if (p.stepId !== undefined) current.delete(owner);
        break;
      case 'reasoning': {
        current.delete(owner);
        if (!sendReasoning) break;
        const msg: AgUiMessageLike = { id: scoped(p.blockId), role: 'reasoning', content: p.text };
        const encrypted = encryptedReasoningOf(p.providerMetadata);
        if (encrypted !== undefined) msg.encryptedValue = encrypted;
        const ours: JsonObject = { variant: p.variant };
        if (p.durationMs !== undefined) ours.durationMs = p.durationMs;
        if (p.providerMetadata) ours.providerMetadata = p.providerMetadata;
        msg.metadata = { [ns]: ours };
        if (owner !== undefined) msg.subagentRunId = owner;
        list.push(msg);
        break;
      }
      case 'text': {
        const msg = assistantFor(owner);
        if ((textUntil.get(msg) ?? -1) > p.seq) {
          // Two text blocks open at once (n > 1 choices) cannot share a message.
          const own: AgUiMessageLike = { id: scoped(p.blockId), role: 'assistant', content: p.text };
          if (owner !== undefined) own.subagentRunId = owner;
          list.push(own);
          break;
        }
        msg.content = `${(msg.content as string | undefined) ?? ''}${p.text}`;
        textUntil.set(msg, p.endSeq ?? Number.POSITIVE_INFINITY);
        break;
      }
      case 'tool': {
        if (!result) {
          const msg = assistantFor(owner);
          const call: JsonObject = { id: p.toolCallId, type: 'function', function: { name: p.toolName, arguments: toolArguments(p) } };
          const ours: JsonObject = {};
          if (p.providerExecuted) ours.providerExecuted = true;
          if (p.inputError !== undefined) ours.inputError = p.inputError;
          // The approval (asked, answered, denied): AG-UI messages have no state for it, so it is ours.
          if (p.approval) ours.approval = { ...p.approval, state: p.state };
          if (Object.keys(ours).length > 0) call.metadata = { [ns]: ours };
          msg.toolCalls ??= [];
          (msg.toolCalls as JsonObject[]).push(call);
          ownerOfCall.set(p.toolCallId, msg);
          break;
        }
        const isError = p.state === 'output-error';
        const content = isError ? (p.errorText ?? 'error') : typeof p.output === 'string' ? p.output : JSON.stringify(p.output ?? null);
        // A client tool's result keeps the id of the client's own tool message (continuation.ts in the server).
        const own = p.resultProviderMetadata?.[ns]?.messageId;
        const id = typeof own === 'string' ? unique(own) : unique(`${base}:${p.toolCallId}:result`);
        const msg: AgUiMessageLike = { id, role: 'tool', toolCallId: p.toolCallId, content };
        if (isError) msg.error = p.errorText ?? 'error';
        if (owner !== undefined) msg.subagentRunId = owner;
        const at = list.indexOf(ownerOfCall.get(p.toolCallId) as AgUiMessageLike);
        if (at === -1) list.push(msg);
        else {
          let i = at + 1;
          while (i < list.length && list[i].role === 'tool') i++;
          list.splice(i, 0, msg);
        }
        current.delete(owner);
        break;
      }
      default:
        break;
    }
  }
  return list;
}

/** Persisted messages → AG-UI messages. */
export function toAgUiMessages(messages: readonly PersistedMessage[], options: HistoryOptions = {}): AgUiMessageLike[] {
  const ns = options.namespace ?? 'switchboard';
  const out: AgUiMessageLike[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') out.push(...agUiOfAssistant(m, ns, options.sendReasoning ?? true));
    else out.push({ id: m.id, role: m.role, content: m.content });
  }
  return out;
}

/** Persisted messages → an AG-UI `MESSAGES_SNAPSHOT` event. */
export function toAgUiSnapshot(messages: readonly PersistedMessage[], options: HistoryOptions = {}): MessagesSnapshotLike {
  return { type: 'MESSAGES_SNAPSHOT', messages: toAgUiMessages(messages, options) };
}

// ---------------------------------------------------------------------------------------------
// Seed 002 timeline
// ---------------------------------------------------------------------------------------------

export type { TimelineItem, ToolCallData, ToolResultData } from '@switchboard/core';

/** What `<think>` extraction found in a text. */
export interface ThinkExtraction {
  /** The text without its thinking blocks. */
  content: string;
  /** The thinking blocks, in order. */
  thinking: string[];
  /** True when the last block was never closed (it runs to the end of the text). */
  unclosed: boolean;
}

/**
 * Extracts `<think>…</think>` (and `<thinking>…</thinking>`) blocks from stored text, with core's
 * `splitThinkTags` (the client's timeline splits live text with the same rules). Malformed input
 * keeps its content: an unclosed block runs to the end, a stray closing tag stays as text, a tag
 * inside a block is part of it.
 */
export function extractThinkTags(text: string): ThinkExtraction {
  const { content, thinking, open } = splitThinkTags(text);
  return { content, thinking, unclosed: open };
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const iso = (ms: number) => new Date(ms).toISOString();

function timelineOfAssistant(m: AssistantMessage, sendReasoning: boolean): TimelineItem[] {
  const out: TimelineItem[] = [];
  const live = m.persistenceState !== 'persisted';
  // Streamed thinking wins over the same block found in `<think>` tags of the stored text.
  const streamed = new Set<string>();
  for (const p of m.metadata.parts) if (p.type === 'reasoning' && p.variant === 'thinking') streamed.add(norm(p.text));
  for (const p of m.metadata.parts) {
    const ephemeral = live && 'state' in p && p.state === 'streaming';
    switch (p.type) {
      case 'reasoning': {
        if (!sendReasoning || p.text === '') break;
        const id = `${m.id}:${p.blockId}`;
        if (ephemeral) out.push({ type: 'ephemeral_message', id, messageType: p.variant, content: p.text, timestamp: iso(p.startedAt) });
        else if (p.variant === 'processing') {
          const item: TimelineItem = { type: 'system_message', id, content: p.text, timestamp: iso(p.startedAt), kind: 'processing' };
          if (p.durationMs !== undefined) item.durationMs = p.durationMs;
          out.push(item);
        } else {
          const item: TimelineItem = { type: 'thinking', id, content: p.text, timestamp: iso(p.startedAt), source: 'stream' };
          if (p.durationMs !== undefined) item.durationMs = p.durationMs;
          out.push(item);
        }
        break;
      }
      case 'text': {
        const id = `${m.id}:${p.blockId}`;
        const { content, thinking } = extractThinkTags(p.text);
        thinking.forEach((t, i) => {
          if (!sendReasoning || streamed.has(norm(t)) || norm(t) === '') return;
          streamed.add(norm(t));
          out.push({ type: 'thinking', id: `${id}:think-${i}`, content: t.trim(), timestamp: iso(p.startedAt), source: 'tag' });
        });
        if (content.trim() === '') break;
        if (ephemeral) out.push({ type: 'ephemeral_message', id, messageType: 'agent_message', content, timestamp: iso(p.startedAt) });
        else out.push({ type: 'agent_message', id, content, timestamp: iso(p.startedAt) });
        break;
      }
      case 'tool': {
        const call: ToolCallData = { id: p.toolCallId, name: p.toolName, input: p.input ?? (p.inputText as Json | undefined) };
        if (p.providerExecuted) call.providerExecuted = true;
        const item: Extract<TimelineItem, { type: 'tool_execution' }> = {
          type: 'tool_execution',
          id: `${m.id}:${p.toolCallId}`,
          call,
          timestamp: iso(p.startedAt),
        };
        if (p.state === 'output-available' || p.state === 'output-error') {
          const result: ToolResultData = { isError: p.state === 'output-error', timestamp: iso(p.endedAt ?? p.startedAt) };
          if (p.state === 'output-available') result.output = p.output ?? null;
          else result.error = p.errorText ?? 'error';
          item.result = result;
        }
        out.push(item);
        break;
      }
      default:
        break;
    }
  }
  for (const e of m.metadata.errors) {
    out.push({ type: 'system_message', id: `${m.id}:error-${e.seq}`, content: e.message, timestamp: iso(e.ts), kind: 'error' });
  }
  return out;
}

/** Persisted messages → seed 002's timeline. */
export function toTimeline(messages: readonly PersistedMessage[], options: HistoryOptions = {}): TimelineItem[] {
  const out: TimelineItem[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') out.push(...timelineOfAssistant(m, options.sendReasoning ?? true));
    else if (m.role === 'user') out.push({ type: 'user_message', id: m.id, content: m.content, timestamp: iso(m.createdAt) });
    else out.push({ type: 'system_message', id: m.id, content: m.content, timestamp: iso(m.createdAt), kind: 'processing' });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Canonical
// ---------------------------------------------------------------------------------------------

/** One entry of the canonical history: a user message, or a run with its events. */
export type CanonicalHistoryItem =
  | { kind: 'message'; message: UserMessage }
  | { kind: 'run'; runId: string; messageId: string; status: RunStatus | 'unknown'; events: CanonicalEvent[] };

/**
 * A chat's canonical history: its user messages and each run's stored events, in order (a message
 * continued by later runs gives one item per run, each with the message's id).
 */
export async function canonicalHistory(store: Store, chatId: string): Promise<CanonicalHistoryItem[]> {
  const messages = await store.listMessages(chatId);
  const items = await Promise.all(
    messages.map(async (m): Promise<CanonicalHistoryItem[]> => {
      if (m.role !== 'assistant') return [{ kind: 'message', message: m }];
      return Promise.all(
        (m.metadata.runs ?? [m.runId]).map(async (runId): Promise<CanonicalHistoryItem> => {
          const run = await store.getRun(runId);
          return { kind: 'run', runId, messageId: m.id, status: run?.status ?? 'unknown', events: await store.read(runId) };
        }),
      );
    }),
  );
  return items.flat();
}

// ---------------------------------------------------------------------------------------------
// One entry point (what `GET /api/chats/:id/messages?protocol=…` calls)
// ---------------------------------------------------------------------------------------------

/** What each protocol's history is. */
export interface HistoryOf {
  'ai-sdk': UIMessageLike[];
  'ag-ui': MessagesSnapshotLike;
  timeline: TimelineItem[];
  canonical: CanonicalHistoryItem[];
}

/**
 * A chat's history in a protocol. Fails with `not_found` for an unknown chat.
 *
 * @example
 * const messages = await loadHistory(store, chatId, 'ai-sdk'); // → useChat({ messages })
 */
export async function loadHistory<P extends HistoryProtocol>(
  store: Store,
  chatId: string,
  protocol: P,
  options: HistoryOptions = {},
): Promise<HistoryOf[P]> {
  if (!isHistoryProtocol(protocol))
    throw new StoreError(
      'invalid',
      `unknown history protocol ${JSON.stringify(protocol)}; expected one of ${HISTORY_PROTOCOLS.join(', ')}`,
    );
  if (!(await store.getChat(chatId))) throw new StoreError('not_found', `no chat ${chatId}`);
  if (protocol === 'canonical') return (await canonicalHistory(store, chatId)) as HistoryOf[P];
  let messages = await store.listMessages(chatId);
  if (options.includePending === false) messages = messages.filter((m) => m.role !== 'assistant' || m.persistenceState === 'persisted');
  switch (protocol) {
    case 'ai-sdk':
      return toUIMessages(messages, options) as HistoryOf[P];
    case 'ag-ui':
      return toAgUiSnapshot(messages, options) as HistoryOf[P];
    default:
      return toTimeline(messages, options) as HistoryOf[P];
  }
}
