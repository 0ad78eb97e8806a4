/**
 * History reload in each protocol: the chat's stored messages, without the answers a regenerate
 * superseded, through core's one history function per protocol (never a replay of the run logs):
 * - `ai-sdk`: `UIMessage[]` (core's `toUIMessages`);
 * - `ag-ui`: a `MESSAGES_SNAPSHOT` event with the agent state beside it (core's `toAgUiHistory`);
 * - `timeline`: the thinking timeline (core's `toTimeline`);
 * - `dsagent`: DSAgentRunMessage[] as a DeepSearchAgents client collected them (core's `toDsAgentMessages`);
 * - `canonical`: the user messages and each run's canonical events (the audit view: it keeps superseded answers).
 */
import {
  type AgUiHistory,
  type AgUiHistoryOptions,
  type AgUiMessageLike,
  type CanonicalEvent,
  type DsAgentHistoryMessage,
  extractThinkTags,
  type HistoryOptions,
  type Json,
  type ThinkExtraction,
  type TimelineItem,
  type ToolCallData,
  type ToolResultData,
  toAgUiHistory,
  toAgUiMessages,
  toDsAgentMessages,
  toTimeline,
  toUIMessages,
  toUIParts,
  type UIMessageLike,
  type UIMessagePartLike,
} from '@switchboard/core';

import type { PersistedMessage, UserMessage } from './projection.ts';
import { type Chat, type RunStatus, type Store, StoreError } from './store.ts';

/** The protocols history can be loaded in. */
export const HISTORY_PROTOCOLS = ['ai-sdk', 'ag-ui', 'timeline', 'dsagent', 'canonical'] as const;
export type HistoryProtocol = (typeof HISTORY_PROTOCOLS)[number];

/** True when `name` is a history protocol. */
export function isHistoryProtocol(name: string): name is HistoryProtocol {
  return (HISTORY_PROTOCOLS as readonly string[]).includes(name);
}

export type { HistoryOptions };

/** One part of an AI SDK UIMessage (structural: the store does not depend on `ai`); the core's type. */
export type UIPartLike = UIMessagePartLike;
export type {
  AgUiHistory,
  AgUiHistoryOptions,
  AgUiMessageLike,
  DsAgentHistoryMessage,
  TimelineItem,
  ToolCallData,
  ToolResultData,
  UIMessageLike,
};
export { extractThinkTags, type ThinkExtraction, toAgUiHistory, toAgUiMessages, toDsAgentMessages, toTimeline, toUIMessages, toUIParts };

/** The AG-UI history a protocol load answers: a `MESSAGES_SNAPSHOT` event with the state beside it. */
export interface MessagesSnapshotLike {
  type: 'MESSAGES_SNAPSHOT';
  messages: AgUiMessageLike[];
  /** The agent state the runs left (what `STATE_SNAPSHOT` / `STATE_DELTA` carried live). */
  state: Json;
  timestamp?: number;
}

/** Stored messages → an AG-UI `MESSAGES_SNAPSHOT` event with the agent state. */
export function toAgUiSnapshot(messages: readonly PersistedMessage[], options: AgUiHistoryOptions = {}): MessagesSnapshotLike {
  return { type: 'MESSAGES_SNAPSHOT', ...toAgUiHistory(messages, options) };
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
  dsagent: DsAgentHistoryMessage[];
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
  let messages = await store.listMessages(chatId);
  if (options.includePending === false) messages = messages.filter((m) => m.role !== 'assistant' || m.persistenceState === 'persisted');
  // AG-UI's state runs through the superseded answers too (a client keeps it across a regenerate).
  if (protocol === 'ag-ui') return toAgUiSnapshot(messages, { ...options, superseded }) as HistoryOf[P];
  return historyOf(
    messages.filter((m) => !superseded.has(m.id)),
    protocol,
    options,
  );
}

/** Stored messages in a protocol's history form; `canonical` (which needs the run logs) is empty here. */
function historyOf<P extends HistoryProtocol>(messages: readonly PersistedMessage[], protocol: P, options: HistoryOptions): HistoryOf[P] {
  switch (protocol) {
    case 'ai-sdk':
      return toUIMessages(messages, options) as HistoryOf[P];
    case 'ag-ui':
      return toAgUiSnapshot(messages, options) as HistoryOf[P];
    case 'timeline':
      return toTimeline(messages, options) as HistoryOf[P];
    case 'dsagent':
      return toDsAgentMessages(messages, options) as HistoryOf[P];
    default:
      return [] as CanonicalHistoryItem[] as HistoryOf[P];
  }
}

/**
 * The history of a chat with no messages, in a protocol's own form (`[]`, or AG-UI's
 * `MESSAGES_SNAPSHOT` with no messages and `{}` as the state): what the gateway answers for a chat it
 * has never seen, which a stock client reads as a new conversation.
 */
export function emptyHistory<P extends HistoryProtocol>(protocol: P): HistoryOf[P] {
  return historyOf([], protocol, {});
}
