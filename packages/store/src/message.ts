/**
 * The persisted messages of seed 000 and seed 004: an assistant message (its final text and its
 * metadata — processing and thinking blocks with durations, ordered parts, tool calls, todos, steps,
 * sources, usage, model, stop reason, errors) and a user message, with their lifecycle. The types
 * only (and the providerMetadata merge they are built with); `projection.ts` folds a run's events
 * into them.
 */
import type { Citation, EventOf, FinishReason, Json, JsonObject, ProviderMetadata, ReasoningVariant, Todo, Usage } from '@switchboard/core';

/**
 * Lifecycle of a persisted message (seed 004): `transient` exists only in memory (a projector's
 * snapshot that was never written), `pending` is written while its run is live and still being
 * appended, `persisted` once the run's `run-finish` / `run-abort` is stored with it.
 */
export type PersistenceState = 'transient' | 'pending' | 'persisted';

/** Where an assistant message stands: still streaming, or how its run ended. */
export type MessageStatus = 'streaming' | 'complete' | 'error' | 'aborted';

/** One reasoning block as seed 000 stores it, with its server-measured duration. */
export interface ReasoningSpan {
  blockId: string;
  text: string;
  /** `ts` of the block's reasoning-start (ms since the epoch, server clock). */
  startedAt: number;
  /** `ts` of its reasoning-end (absent while it streams). */
  endedAt?: number;
  /** endedAt − startedAt. */
  durationMs?: number;
  subagentId?: string;
}

/** A thinking block: a reasoning span plus what a model needs to accept it back. */
export interface ThinkingSpan extends ReasoningSpan {
  /** Anthropic thinking signature, when there is one (also kept in providerMetadata). */
  signature?: string;
  /** True for redacted thinking (its opaque data is in providerMetadata). */
  redacted?: boolean;
  /** Everything the provider attached: Anthropic signature / redacted data, OpenAI item id and encrypted content, … */
  providerMetadata?: ProviderMetadata;
}

interface PartBase {
  /** seq of the event that created the part (orders parts against tool results for AG-UI). */
  seq: number;
  /** Set on parts produced by a nested subagent. */
  subagentId?: string;
}

/** A step boundary (AI SDK `step-start`): an explicit step-start event, or the encoder's implicit one. */
export interface StepStartPart extends PartBase {
  type: 'step-start';
  startedAt: number;
  /** Set for explicit steps (a canonical step-start); absent for the encoder's implicit steps. */
  stepId?: string;
  kind?: EventOf<'step-start'>['kind'];
  name?: string;
  number?: number;
  model?: string;
}

export interface ReasoningPart extends PartBase {
  type: 'reasoning';
  blockId: string;
  variant: ReasoningVariant;
  text: string;
  state: 'streaming' | 'done';
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  /** Start and end providerMetadata merged per provider (signatures arrive on the end). */
  providerMetadata?: ProviderMetadata;
}

/** A citation of a text block, numbered like the AI SDK encoder numbers them (`citation-<n>`). */
export type StoredCitation = Citation & { sourceId: string };

export interface TextPart extends PartBase {
  type: 'text';
  blockId: string;
  text: string;
  state: 'streaming' | 'done';
  startedAt: number;
  endedAt?: number;
  /** seq of the event that closed it (tells text blocks open at the same time apart). */
  endSeq?: number;
  citations?: StoredCitation[];
  /** The end's providerMetadata, else the start's (the AI SDK client's replace rule). */
  providerMetadata?: ProviderMetadata;
}

/** AI SDK tool part states that a canonical stream can reach. */
export type ToolState =
  | 'input-streaming'
  | 'input-available'
  | 'approval-requested'
  | 'approval-responded'
  | 'output-available'
  | 'output-error'
  | 'output-denied';

/**
 * A tool call's approval as the AI SDK client keeps it on the part: the request's id (and its
 * reason as `requestReason`), then the answer (`approved`, `reason`). Kept once the tool has run.
 */
export interface ToolApproval {
  id: string;
  requestReason?: string;
  approved?: boolean;
  reason?: string;
  /** Who answered (the client's part has no such field: history leaves it out of the AI SDK part). */
  by?: string;
}

export interface ToolPart extends PartBase {
  type: 'tool';
  toolCallId: string;
  toolName: string;
  state: ToolState;
  /** The parsed input (while streaming: what the partial JSON parses to so far). */
  input?: Json;
  /** The input text as it streamed (kept once complete: the exact text the model produced). Absent when the input came whole. */
  inputText?: string;
  /** Why the input text could not be parsed (canonical `inputError`). */
  inputError?: string;
  output?: Json;
  /** The error text of a failed call (tool-error, or the input error). */
  errorText?: string;
  /** The provider's error payload of a tool-error. */
  errorOutput?: Json;
  preliminary?: boolean;
  providerExecuted?: boolean;
  callProviderMetadata?: ProviderMetadata;
  resultProviderMetadata?: ProviderMetadata;
  startedAt: number;
  /** ts of the output / error. */
  endedAt?: number;
  durationMs?: number;
  /** seq of the output / error event. */
  outputSeq?: number;
  /** The approval asked for (and its answer), when the call needed one. */
  approval?: ToolApproval;
}

export interface SourcePart extends PartBase {
  type: 'source';
  sourceId: string;
  kind: 'url' | 'document';
  url?: string;
  title?: string;
  mediaType?: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
  /** True when the source came from a citation (its id is `citation-<n>`). */
  fromCitation?: boolean;
}

export interface FilePart extends PartBase {
  type: 'file';
  url: string;
  mediaType: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * An AI SDK data part (`data-<name>`): todos (id `todos`), usage, subagent (id = subagentId), state
 * (id `state`), custom. A data part with an id is replaced in place by a later one with that id.
 */
export interface DataPart extends PartBase {
  type: 'data';
  name: string;
  id?: string;
  data: Json;
}

/** One ordered block of an assistant message. */
export type MessagePart = StepStartPart | ReasoningPart | TextPart | ToolPart | SourcePart | FilePart | DataPart;

/** A step of the run (explicit canonical steps only). */
export interface StepInfo {
  stepId: string;
  kind: EventOf<'step-start'>['kind'];
  name?: string;
  number?: number;
  model?: string;
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  finishReason?: FinishReason;
  rawFinishReason?: string;
  usage?: Usage;
  subagentId?: string;
}

/** A source the answer drew on. */
export interface SourceInfo {
  sourceId: string;
  kind: 'url' | 'document';
  url?: string;
  title?: string;
  mediaType?: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}

/** An error of the run. */
export interface ErrorInfo {
  message: string;
  code?: string;
  fatal: boolean;
  seq: number;
  ts: number;
  where?: EventOf<'error'>['where'];
  providerMetadata?: ProviderMetadata;
}

/** The metadata of a persisted assistant message. */
export interface AssistantMetadata {
  status: MessageStatus;
  /** Processing blocks (agent status / progress, "Processed in 2s"). */
  processing: ReasoningSpan[];
  /** Thinking blocks (model reasoning, "Thought for 4s"), with signatures / provider metadata. */
  thinking: ThinkingSpan[];
  /** Every block in order (see MessagePart). */
  parts: MessagePart[];
  /** The latest todo list, when the run had one. */
  todos?: Todo[];
  steps: StepInfo[];
  sources: SourceInfo[];
  /** Total usage: run-finish's, else the last total usage event, else the sum of steps and increments. */
  usage?: Usage;
  model?: string;
  provider?: string;
  agent?: string;
  /** run-finish's finishReason. */
  stopReason?: FinishReason;
  rawStopReason?: string;
  abortReason?: string;
  /** The first fatal error (else the last error of a run that ended in error). */
  error?: ErrorInfo;
  errors: ErrorInfo[];
  /** ts of run-start, and of the last event. */
  startedAt?: number;
  endedAt?: number;
  durationMs?: number;
  /** seq of the last event projected. */
  lastSeq: number;
  /** run-start's `metadata` (the AI SDK's messageMetadata). */
  runMetadata?: JsonObject;
  /** run-start's and run-finish's providerMetadata, merged. */
  providerMetadata?: ProviderMetadata;
  /** What the (last) run ended waiting for: approvals, client tool calls, interrupts (run-finish `pending`). */
  pending?: EventOf<'run-finish'>['pending'];
  /**
   * The runs that built the message, oldest first, when there is more than one: a run that ended
   * waiting and the continuation runs that answered it (each with this message id).
   */
  runs?: string[];
  /** With `runs`: the seq (as the parts number them) at which each run begins. */
  runSeqs?: number[];
}

/** The persisted assistant message of one run. */
export interface AssistantMessage {
  id: string;
  chatId: string;
  runId: string;
  role: 'assistant';
  /** The final text: every text delta of the main agent, in order. */
  content: string;
  metadata: AssistantMetadata;
  persistenceState: PersistenceState;
  createdAt: number;
  updatedAt: number;
}

/** A user (or system) message, stored when a run starts. */
export interface UserMessage {
  id: string;
  chatId: string;
  /** The run that answers it. */
  runId?: string;
  role: 'user' | 'system';
  content: string;
  /** `parts`: the client's UIMessage parts (files, …) when it sent them; anything else the caller stored. */
  metadata: JsonObject;
  persistenceState: PersistenceState;
  createdAt: number;
  updatedAt: number;
}

/** A message of a chat. */
export type PersistedMessage = AssistantMessage | UserMessage;

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
