/**
 * The AG-UI 1.0 vocabulary shared by the encoder, the reader and the message reducer: every event
 * type (`@ag-ui/core` `EventType`), the event and message shapes (loose objects, as the official
 * schemas are), and the canonical kinds that travel as CUSTOM events. No zod: the official
 * `@ag-ui/core` schemas are what the conformance tests check the output against.
 */
import type { JsonObject } from '../../model/events.ts';

/** Every AG-UI 1.0 event type (`@ag-ui/core` `EventType`). */
export const AG_UI_EVENT_TYPES = [
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_CHUNK',
  'TOOL_CALL_RESULT',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
  'MESSAGES_SNAPSHOT',
  'ACTIVITY_SNAPSHOT',
  'ACTIVITY_DELTA',
  'RAW',
  'CUSTOM',
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'STEP_STARTED',
  'STEP_FINISHED',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_MESSAGE_CHUNK',
  'REASONING_END',
  'REASONING_ENCRYPTED_VALUE',
  'SUBAGENT_STARTED',
  'SUBAGENT_FINISHED',
  'SUBAGENT_ERROR',
] as const;

export type AgUiEventType = (typeof AG_UI_EVENT_TYPES)[number];

/** One AG-UI event (loose: the official schemas are loose objects). */
export type AgUiEvent = { type: AgUiEventType; timestamp?: number; subagentRunId?: string; metadata?: JsonObject } & Record<
  string,
  unknown
>;

/** One AG-UI message (`@ag-ui/core` `Message`), as MESSAGES_SNAPSHOT carries it. */
export type AgUiMessage = { id: string; role: string } & Record<string, unknown>;

/**
 * Canonical event kinds that travel as CUSTOM events named `<namespace>.<kind>`, their value being
 * the canonical event without its envelope (`type`, `runId`, `seq`, `ts`, `subagentId`).
 */
export const AG_UI_CUSTOM_KINDS = ['error', 'citation', 'source', 'file', 'status', 'usage', 'state-delta'] as const;
