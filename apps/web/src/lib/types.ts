/**
 * The message shapes the UI renders: AI SDK `UIMessage`s (from `useChat`, from the history route,
 * or built from AG-UI events by chat/agui.ts). Kept loose on purpose: a part the UI does not know is
 * shown as JSON, never dropped.
 */
import type { CanonicalEvent } from '@switchboard/core';
import type { UIMessage } from 'ai';

export type { CanonicalEvent };

export type ChatMessage = UIMessage;
export type Part = ChatMessage['parts'][number];

/** A part viewed as a plain record (for the fields the AI SDK types do not declare). */
export type LoosePart = { type: string } & Record<string, unknown>;

export type Variant = 'thinking' | 'processing';

/** One todo item as `data-todos` carries it (canonical `todos` event). */
export interface Todo {
  id?: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled' | string;
  activeForm?: string;
}

/** An agent the server can run (`GET /api/agents`). */
export interface AgentInfo {
  name: string;
  description?: string;
  framework?: string;
}

/** A stored conversation (`GET /api/chats`); `metadata.agent` is the agent of its latest run. */
export interface ChatSummary {
  id: string;
  title?: string;
  createdAt?: number;
  updatedAt?: number;
  metadata?: { agent?: string } & Record<string, unknown>;
}

/** Which wire protocol the chat pane speaks. */
export type Mode = 'ai-sdk' | 'ag-ui';

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
