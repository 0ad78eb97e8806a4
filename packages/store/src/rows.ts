/**
 * Row mappers shared by the SQL backends (SQLite and PostgreSQL use the same columns), and the URL
 * helper all backends use for their own query parameter.
 */
import type { FinishReason } from '@switchboard/core';
import { parseObject } from './json.ts';
import type { AssistantMessage, PersistedMessage, PersistenceState } from './projection.ts';
import type { Chat, Run, RunStatus } from './store.ts';

/** One row as the SQL drivers return it. */
export type Row = Record<string, unknown>;

const present = (v: unknown): boolean => v !== null && v !== undefined;

/** A `chats` row as a Chat. */
export function chatOf(r: Row): Chat {
  const chat: Chat = { id: r.id as string, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) };
  if (present(r.title)) chat.title = r.title as string;
  if (present(r.metadata)) chat.metadata = parseObject(r.metadata as string);
  return chat;
}

/** A `runs` row as a Run. */
export function runOf(r: Row): Run {
  const run: Run = {
    id: r.id as string,
    chatId: r.chat_id as string,
    status: r.status as RunStatus,
    lastSeq: Number(r.last_seq),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
  if (present(r.message_id)) run.messageId = r.message_id as string;
  if (present(r.user_message_id)) run.userMessageId = r.user_message_id as string;
  if (present(r.finish_reason)) run.finishReason = r.finish_reason as FinishReason;
  if (present(r.lease_holder)) run.leaseHolder = r.lease_holder as string;
  if (present(r.lease_until)) run.leaseUntil = Number(r.lease_until);
  return run;
}

/**
 * A new chat's values for `INSERT INTO chats (id, title, metadata, owner, created_at, updated_at)`,
 * in that order: the inverse of {@link chatOf} for both SQL backends.
 */
export function chatInsertValues(chat: Chat): (string | number | null)[] {
  return [
    chat.id,
    chat.title ?? null,
    chat.metadata ? JSON.stringify(chat.metadata) : null,
    ownerColumn(chat),
    chat.createdAt,
    chat.updatedAt,
  ];
}

/**
 * A new run's values for `INSERT INTO runs (id, chat_id, message_id, user_message_id, status, last_seq,
 * created_at, updated_at, lease_holder, lease_until)`, in that order, `last_seq` aside (the statement
 * writes -1): the inverse of {@link runOf} for both SQL backends.
 */
export function runInsertValues(run: Run): (string | number | null)[] {
  return [
    run.id,
    run.chatId,
    run.messageId ?? null,
    run.userMessageId ?? null,
    run.status,
    run.createdAt,
    run.updatedAt,
    run.leaseHolder ?? null,
    run.leaseUntil ?? null,
  ];
}

/** The owner a chat is indexed under: its `metadata.owner` when that is a string. */
export function ownerColumn(chat: Chat): string | null {
  const owner = chat.metadata?.owner;
  return typeof owner === 'string' ? owner : null;
}

/** A `messages` row as a PersistedMessage. */
export function messageOf(r: Row): PersistedMessage {
  const base = {
    id: r.id as string,
    chatId: r.chat_id as string,
    content: r.content as string,
    persistenceState: r.persistence_state as PersistenceState,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
  if (r.role === 'assistant')
    return { ...base, role: 'assistant', runId: r.run_id as string, metadata: JSON.parse(r.metadata as string) } as AssistantMessage;
  const m: PersistedMessage = { ...base, role: r.role as 'user' | 'system', metadata: parseObject(r.metadata as string) };
  if (present(r.run_id)) m.runId = r.run_id as string;
  return m;
}

/** Takes `?name=` off a URL (`postgres://…?schema=x`, `redis://…?prefix=y`): the URL without it, and its value. */
export function takeSearchParam(url: string, name: string): { url: string; value?: string } {
  try {
    const u = new URL(url);
    const value = u.searchParams.get(name) ?? undefined;
    if (value === undefined) return { url };
    u.searchParams.delete(name);
    return { url: u.toString(), value };
  } catch {
    return { url };
  }
}
