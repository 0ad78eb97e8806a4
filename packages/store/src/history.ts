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
  createAgUiEncoder,
  createAgUiReducer,
  encryptedReasoningOf,
  type Json,
  type JsonObject,
  messageSummaryMetadata,
  type ProviderMetadata,
  splitThinkTags,
  type TimelineItem,
  type ToolCallData,
  type ToolResultData,
  toAiSdkCitation,
  toAiSdkSource,
  type UIMessageLike,
  type UIMessagePartLike,
} from '@switchboard/core';

import {
  type AssistantMessage,
  type MessagePart,
  mergeProviderMetadata,
  type PersistedMessage,
  type ToolPart,
  type UserMessage,
} from './projection.ts';
import { type Chat, type RunStatus, type Store, StoreError } from './store.ts';

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

/** One part of an AI SDK UIMessage (structural: the store does not depend on `ai`); the core's type. */
export type UIPartLike = UIMessagePartLike;
export type { UIMessageLike };

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
 * explicit step boundary or the result of a tool the client side ran (one message per provider
 * response); each reasoning block with text (or an encrypted value) is a `reasoning` message; each tool
 * result a `tool` message right after the assistant message that made the call.
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
        // As the encoder: a block with nothing to show is no message, and it does not end the assistant message.
        const encrypted = encryptedReasoningOf(p.providerMetadata);
        if (!sendReasoning || (p.text === '' && encrypted === undefined)) break;
        const msg: AgUiMessageLike = { id: scoped(p.blockId), role: 'reasoning', content: p.text };
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
        if (!p.providerExecuted) current.delete(owner);
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

/** The tool messages a client sent with a continuation run: its outputs the gateway marked `fromClient`. */
function clientToolMessages(events: readonly CanonicalEvent[], messageId: string, ns: string): AgUiMessageLike[] {
  const out: AgUiMessageLike[] = [];
  for (const e of events) {
    if (e.type !== 'tool-output' || e.providerMetadata?.[ns]?.fromClient !== true) continue;
    const own = e.providerMetadata[ns].messageId;
    const id = typeof own === 'string' ? own : `${messageId}:${e.toolCallId}:result`;
    const content = typeof e.output === 'string' ? e.output : JSON.stringify(e.output);
    out.push({ id, role: 'tool', toolCallId: e.toolCallId, content });
  }
  return out;
}

/**
 * A chat's AG-UI messages exactly as an AG-UI client holds them after following each run live: every
 * run's log through the AG-UI encoder and core's AG-UI reducer (the apply step of `@ag-ui/client`), so
 * ids, segmentation and the metadata the events carried are the live ones. What `loadHistory` serves;
 * {@link toAgUiMessages} builds the same messages from the persisted message alone, without that metadata.
 */
export async function agUiMessagesFromLog(
  store: Store,
  messages: readonly PersistedMessage[],
  options: HistoryOptions = {},
): Promise<AgUiMessageLike[]> {
  const out: AgUiMessageLike[] = [];
  const encoderOptions = {
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    ...(options.sendReasoning !== undefined ? { sendReasoning: options.sendReasoning } : {}),
    ...(options.sendSources !== undefined ? { sendSources: options.sendSources } : {}),
  };
  for (const m of messages) {
    if (m.role !== 'assistant') {
      out.push({ id: m.id, role: m.role, content: m.content });
      continue;
    }
    // A message continued by later runs (answers to approvals, client tools) is each run's log in turn,
    // each encoded on its own as the gateway streams it, into one reducer as the client holds it.
    const runs = m.metadata.runs ?? [m.runId];
    let reducer = createAgUiReducer({ warn: () => {} });
    for (const [i, runId] of runs.entries()) {
      const events = await store.read(runId);
      // The tool messages the client sent with this run (the stream does not repeat them): it has them.
      const sent = clientToolMessages(events, m.id, options.namespace ?? 'switchboard');
      if (sent.length > 0) reducer = createAgUiReducer({ warn: () => {}, messages: [...reducer.messages, ...sent] });
      const encoder = createAgUiEncoder(encoderOptions);
      for (const e of events) for (const ev of encoder.push(e)) reducer.apply(ev);
      if (i < runs.length - 1 || m.persistenceState === 'persisted') for (const ev of encoder.end()) reducer.apply(ev);
    }
    out.push(...(reducer.messages as AgUiMessageLike[]));
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
// Superseded answers (a regenerate)
// ---------------------------------------------------------------------------------------------

/** Chat metadata key listing the messages a regenerate replaced: kept in the store (runs, events) for audit, left out of history. */
export const SUPERSEDED_KEY = 'superseded';

/** The ids of a chat's superseded messages. */
export function supersededOf(chat: Chat | undefined): Set<string> {
  const list = chat?.metadata?.[SUPERSEDED_KEY];
  return new Set(Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []);
}

/** Marks messages of a chat superseded (a regenerate replaced them): history no longer shows them. */
export async function supersedeMessages(store: Store, chatId: string, messageIds: readonly string[]): Promise<void> {
  if (messageIds.length === 0) return;
  const chat = await store.getChat(chatId);
  if (!chat) return;
  const ids = supersededOf(chat);
  for (const id of messageIds) ids.add(id);
  await store.updateChat(chatId, { metadata: { ...chat.metadata, [SUPERSEDED_KEY]: [...ids] } });
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
  const chat = await store.getChat(chatId);
  if (!chat) throw new StoreError('not_found', `no chat ${chatId}`);
  // The canonical history is the audit view: it keeps superseded answers.
  if (protocol === 'canonical') return (await canonicalHistory(store, chatId)) as HistoryOf[P];
  const superseded = supersededOf(chat);
  let messages = (await store.listMessages(chatId)).filter((m) => !superseded.has(m.id));
  if (options.includePending === false) messages = messages.filter((m) => m.role !== 'assistant' || m.persistenceState === 'persisted');
  switch (protocol) {
    case 'ai-sdk':
      return toUIMessages(messages, options) as HistoryOf[P];
    case 'ag-ui':
      return { type: 'MESSAGES_SNAPSHOT', messages: await agUiMessagesFromLog(store, messages, options) } as HistoryOf[P];
    default:
      return toTimeline(messages, options) as HistoryOf[P];
  }
}
