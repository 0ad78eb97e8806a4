/**
 * What the server runs: an agent is a function from a chat request to an async stream of events in
 * the simplified Claude agent format's `{"type", "data"}` lines (the `claude` decoder reads them).
 */
import type { Json, JsonObject } from '@switchboard/core';

/** A todo item as agents print it. */
export interface AgentTodo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled';
  activeForm?: string;
}

/** One event of the simplified Claude agent format, discriminated on `type`. */
export type AgentEvent =
  | { type: 'start'; data: { model?: string; prompt_preview?: string } }
  | { type: 'status'; data: { message: string } }
  | { type: 'thinking'; data: { content: string } }
  | { type: 'think'; data: { thought: string } }
  | { type: 'text'; data: { content: string } }
  | { type: 'tool_use'; data: { id: string; name: string; input: JsonObject } }
  | { type: 'tool_result'; data: { tool_use_id: string; content: Json; is_error?: boolean } }
  | { type: 'approval_request'; data: { id: string; name: string; input: JsonObject; approval_id?: string; reason?: string } }
  | { type: 'client_tool_call'; data: { id: string; name: string; input: JsonObject } }
  | { type: 'todo_create'; data: { items: AgentTodo[] } }
  | { type: 'todo_update'; data: { items: AgentTodo[] } }
  | { type: 'todo_done'; data: { index: number } }
  | { type: 'result'; data: { duration_ms: number; num_turns?: number; usage?: { input_tokens: number; output_tokens: number } } }
  | { type: 'error'; data: { message: string; code?: string } }
  | { type: 'done'; data: Record<string, never> };

/** What an agent is given for one run. */
export interface AgentRequest {
  /** Text of the last user message: what the agent answers. */
  prompt: string;
  /** The whole conversation as the client sent it (AI SDK `UIMessage`s). */
  messages: readonly { id: string; role: string; parts: readonly object[] }[];
  /** Chat (thread) id, when the client sent one. */
  chatId?: string;
  /** Aborted when the client goes away; agents stop waiting when it fires. */
  signal: AbortSignal;
}

/**
 * Starts one agent run. The server calls `return()` on the iterator when the client disconnects,
 * so async generators get their `finally` run.
 */
export type AgentFactory = (request: AgentRequest) => AsyncIterable<AgentEvent>;
