/**
 * TypeScript types of the assistant message, inferred from the zod schemas in `schema.ts`.
 * Type-only imports: using these types never loads zod.
 */
import type { z } from 'zod';
import type {
  assistantMessageSchema,
  assistantMetadataSchema,
  dataPartSchema,
  errorInfoSchema,
  filePartSchema,
  messagePartSchema,
  messageStatusSchema,
  persistedMessageSchema,
  persistenceStateSchema,
  reasoningPartSchema,
  reasoningSpanSchema,
  sourceInfoSchema,
  sourcePartSchema,
  stepInfoSchema,
  stepStartPartSchema,
  storedCitationSchema,
  subagentInfoSchema,
  textPartSchema,
  thinkingSpanSchema,
  toolApprovalSchema,
  toolPartSchema,
  toolStateSchema,
  userMessageSchema,
} from './schema.ts';

/** Where an assistant message stands: still streaming, or how its run ended. */
export type MessageStatus = z.infer<typeof messageStatusSchema>;
/** `transient` (only in memory), `pending` (written while its run is live), `persisted` (its run ended). */
export type PersistenceState = z.infer<typeof persistenceStateSchema>;
export type StepStartPart = z.infer<typeof stepStartPartSchema>;
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;
export type StoredCitation = z.infer<typeof storedCitationSchema>;
export type TextPart = z.infer<typeof textPartSchema>;
export type ToolState = z.infer<typeof toolStateSchema>;
export type ToolApproval = z.infer<typeof toolApprovalSchema>;
export type ToolPart = z.infer<typeof toolPartSchema>;
export type SourcePart = z.infer<typeof sourcePartSchema>;
export type FilePart = z.infer<typeof filePartSchema>;
export type DataPart = z.infer<typeof dataPartSchema>;
/** One ordered block of an assistant message. */
export type MessagePart = z.infer<typeof messagePartSchema>;
export type ReasoningSpan = z.infer<typeof reasoningSpanSchema>;
export type ThinkingSpan = z.infer<typeof thinkingSpanSchema>;
export type StepInfo = z.infer<typeof stepInfoSchema>;
export type SubagentInfo = z.infer<typeof subagentInfoSchema>;
export type SourceInfo = z.infer<typeof sourceInfoSchema>;
export type ErrorInfo = z.infer<typeof errorInfoSchema>;
export type AssistantMetadata = z.infer<typeof assistantMetadataSchema>;
/** The assistant message of a run (and of the continuation runs that answered what it waited for). */
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
/** A user (or system) message, stored when a run starts. */
export type UserMessage = z.infer<typeof userMessageSchema>;
/** A message of a chat. */
export type PersistedMessage = z.infer<typeof persistedMessageSchema>;
