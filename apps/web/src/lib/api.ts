/**
 * The server routes the UI reads. Each call says whether the route is there: several of them are
 * optional (a server without a store has no history), and the UI shows what is missing instead of
 * failing.
 */
import { type AgentInfo, type CanonicalEvent, type ChatMessage, type ChatSummary, isRecord } from './types.ts';

export type Fetched<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      /** HTTP status; 0 when the request itself failed. */
      status: number;
      /** True when the route (or the thing asked for) does not exist: 404, 405, 501. */
      missing: boolean;
      message: string;
    };

async function errorText(res: Response): Promise<string> {
  try {
    const body: unknown = await res.json();
    if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // not JSON: fall through
  }
  return `HTTP ${res.status}`;
}

export async function getJson<T>(url: string, init?: RequestInit): Promise<Fetched<T>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  } catch (err) {
    return { ok: false, status: 0, missing: false, message: (err as Error).message };
  }
  if (!res.ok) {
    const missing = res.status === 404 || res.status === 405 || res.status === 501;
    return { ok: false, status: res.status, missing, message: await errorText(res) };
  }
  try {
    return { ok: true, data: (await res.json()) as T };
  } catch (err) {
    return { ok: false, status: res.status, missing: false, message: `invalid JSON: ${(err as Error).message}` };
  }
}

/** Pulls an array out of `[...]` or `{ <key>: [...] }`. */
function arrayOf(body: unknown, ...keys: string[]): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (isRecord(body)) for (const k of keys) if (Array.isArray(body[k])) return body[k] as unknown[];
  return undefined;
}

export const DEMO_AGENT: AgentInfo = { name: 'demo', description: 'Built-in demo agent (no key needed)', framework: 'claude' };

/** `GET /api/agents`; just the demo agent when the route is not there. */
export async function listAgents(): Promise<{ agents: AgentInfo[]; fallback: boolean }> {
  const r = await getJson<unknown>('/api/agents');
  const list = r.ok ? arrayOf(r.data, 'agents') : undefined;
  const agents = (list ?? []).filter((a): a is AgentInfo => isRecord(a) && typeof a.name === 'string');
  if (agents.length === 0) return { agents: [DEMO_AGENT], fallback: true };
  return { agents, fallback: false };
}

/** `GET /api/chats`. */
export async function listChats(): Promise<Fetched<ChatSummary[]>> {
  const r = await getJson<unknown>('/api/chats');
  if (!r.ok) return r;
  const list = arrayOf(r.data, 'chats', 'items') ?? [];
  return { ok: true, data: list.filter((c): c is ChatSummary => isRecord(c) && typeof c.id === 'string') };
}

export async function deleteChat(chatId: string): Promise<boolean> {
  try {
    const res = await fetch(`/api/chats/${encodeURIComponent(chatId)}`, { method: 'DELETE' });
    return res.ok;
  } catch {
    return false;
  }
}

/** `PATCH /api/chats/:id` `{ title }`. */
export async function renameChat(chatId: string, title: string): Promise<Fetched<unknown>> {
  return getJson<unknown>(`/api/chats/${encodeURIComponent(chatId)}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
}

/** A chat as `GET /api/chats/:id` gives it: its title, its agent, and the run in progress if any. */
export interface ChatDetails {
  chat: ChatSummary;
  /** The id of the chat's run still streaming (resume it on reopen). */
  runningRunId?: string;
}

/** `GET /api/chats/:id` → `{ chat, runs }`. */
export async function loadChat(chatId: string): Promise<Fetched<ChatDetails>> {
  const r = await getJson<unknown>(`/api/chats/${encodeURIComponent(chatId)}`);
  if (!r.ok) return r;
  const chat =
    isRecord(r.data) && isRecord(r.data.chat) && typeof r.data.chat.id === 'string' ? (r.data.chat as unknown as ChatSummary) : undefined;
  if (!chat) return { ok: false, status: 200, missing: false, message: 'the chat is not an object with an id' };
  const runs = isRecord(r.data) && Array.isArray(r.data.runs) ? r.data.runs : [];
  const running = runs.findLast((run): run is { id: string } => isRecord(run) && run.status === 'running' && typeof run.id === 'string');
  return { ok: true, data: running ? { chat, runningRunId: running.id } : { chat } };
}

/**
 * `POST /api/runs/:runId/abort`: the explicit Stop. The UI's requests ask the server to keep a run
 * going when the page leaves (`x-switchboard-on-disconnect: continue`), so closing the stream does
 * not stop it; this does. False when the server has no such route (the caller then closes the stream).
 */
export async function abortRun(runId: string): Promise<boolean> {
  try {
    const res = await fetch(`/api/runs/${encodeURIComponent(runId)}/abort`, { method: 'POST' });
    await res.body?.cancel();
    // 409: it has ended already, which is what Stop wanted.
    return res.ok || res.status === 409;
  } catch {
    return false;
  }
}

/**
 * `GET /api/runs/:runId/stream?protocol=ai-sdk`: one run's UI message stream from its start, live or
 * finished. What a reconnect asks for when it knows the run: the chat's `/api/chat/:id/stream`
 * answers 204 once the run has ended, which leaves a page that read the history before the end with
 * a partial answer and nothing to follow.
 */
export function runStreamUrl(runId: string): string {
  return `/api/runs/${encodeURIComponent(runId)}/stream?protocol=ai-sdk`;
}

/** The header that keeps a run going when its request goes away (see chat.ts in the server). */
export const CONTINUE_ON_DISCONNECT = { 'x-switchboard-on-disconnect': 'continue' } as const;

/** `GET /api/chats/:id/messages?protocol=ai-sdk`: the conversation as AI SDK UIMessages. */
export async function loadHistory(chatId: string): Promise<Fetched<ChatMessage[]>> {
  const r = await getJson<unknown>(`/api/chats/${encodeURIComponent(chatId)}/messages?protocol=ai-sdk`);
  if (!r.ok) return r;
  const list = arrayOf(r.data, 'messages');
  if (!list) return { ok: false, status: 200, missing: false, message: 'the history is not an array of messages' };
  const messages = list.filter(
    (m): m is ChatMessage => isRecord(m) && typeof m.id === 'string' && typeof m.role === 'string' && Array.isArray(m.parts),
  );
  return { ok: true, data: messages };
}

/** Enough of a canonical event to show it; the inspector's encoders read the rest. */
function isEvent(e: unknown): e is CanonicalEvent {
  return isRecord(e) && typeof e.type === 'string' && typeof e.seq === 'number' && typeof e.ts === 'number';
}

/** `GET /api/runs/:runId/events`: a run's canonical events in seq order. */
export async function loadRunEvents(runId: string): Promise<Fetched<CanonicalEvent[]>> {
  const r = await getJson<unknown>(`/api/runs/${encodeURIComponent(runId)}/events`);
  if (!r.ok) return r;
  const list = arrayOf(r.data, 'events');
  if (!list) return { ok: false, status: 200, missing: false, message: 'the run events are not an array' };
  return { ok: true, data: list.filter(isEvent) };
}

/**
 * Finds the run that produced an assistant message: from the message's metadata when the server put
 * it there, else from the chat's canonical history (its `run-start` names the message id).
 */
export async function findRunId(chatId: string, message: ChatMessage | undefined): Promise<string | undefined> {
  const meta = message?.metadata;
  if (isRecord(meta)) {
    if (typeof meta.runId === 'string') return meta.runId;
    for (const v of Object.values(meta)) if (isRecord(v) && typeof v.runId === 'string') return v.runId;
  }
  const r = await getJson<unknown>(`/api/chats/${encodeURIComponent(chatId)}/messages?protocol=canonical`);
  if (!r.ok) return undefined;
  const runs: string[] = [];
  const visit = (v: unknown, depth: number): string | undefined => {
    if (depth > 4) return undefined;
    if (Array.isArray(v)) {
      for (const x of v) {
        const found = visit(x, depth + 1);
        if (found) return found;
      }
      return undefined;
    }
    if (!isRecord(v)) return undefined;
    if (v.type === 'run-start' && typeof v.runId === 'string') {
      runs.push(v.runId);
      if (message && v.messageId === message.id) return v.runId;
      return undefined;
    }
    if (message && typeof v.runId === 'string' && (v.id === message.id || v.messageId === message.id)) return v.runId;
    for (const x of Object.values(v)) {
      const found = visit(x, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return visit(r.data, 0) ?? (message ? undefined : runs.at(-1));
}
