/**
 * The thinking timeline: the item shapes the store's history (`toTimeline`) and the client's live
 * timeline builder produce (thinking, agent_message, user_message, tool_execution, system_message,
 * ephemeral_message). Types only.
 */
import type { Json } from '../../model/events.ts';

/** A tool call in the timeline. */
export interface ToolCallData {
  id: string;
  name: string;
  input: Json | undefined;
  providerExecuted?: boolean;
}

/** A tool result in the timeline. */
export interface ToolResultData {
  output?: Json;
  error?: string;
  isError: boolean;
  timestamp: string;
}

/** One item of the thinking timeline. `timestamp` is ISO 8601 (a `Date` as JSON). */
export type TimelineItem =
  | { type: 'thinking'; id: string; content: string; timestamp: string; durationMs?: number; source: 'stream' | 'tag' }
  | { type: 'agent_message'; id: string; content: string; timestamp: string }
  | { type: 'user_message'; id: string; content: string; timestamp: string }
  | { type: 'tool_execution'; id: string; call: ToolCallData; result?: ToolResultData; timestamp: string }
  | { type: 'system_message'; id: string; content: string; timestamp: string; kind: 'processing' | 'error'; durationMs?: number }
  | { type: 'ephemeral_message'; id: string; messageType: string; content: string; timestamp: string };
