/**
 * The persisted messages: an assistant message (its final text and its metadata — processing and
 * thinking blocks with durations, ordered parts, tool calls, todos, steps, sources, usage, model, stop
 * reason, errors, agent state) and a user message, with their lifecycle. The types are core's (the
 * assistant message and its one fold live in `@switchboard/core`); re-exported here for the store's users.
 */
export type {
  AssistantMessage,
  AssistantMetadata,
  DataPart,
  ErrorInfo,
  FilePart,
  MessagePart,
  MessageStatus,
  PersistedMessage,
  PersistenceState,
  ReasoningPart,
  ReasoningSpan,
  SourceInfo,
  SourcePart,
  StepInfo,
  StepStartPart,
  StoredCitation,
  TextPart,
  ThinkingSpan,
  ToolApproval,
  ToolPart,
  ToolState,
  UserMessage,
} from '@switchboard/core';

/** What a projector needs to know that the events may not say. */
export interface ProjectorInit {
  runId?: string;
  chatId?: string;
  /** The message id to use (default: run-start's messageId, else the run id). */
  messageId?: string;
  /** createdAt of the message (default: run-start's ts). */
  createdAt?: number;
}

/** Merges providerMetadata per provider key (core's, re-exported for the store's users). */
export { mergeProviderMetadata } from '@switchboard/core';
