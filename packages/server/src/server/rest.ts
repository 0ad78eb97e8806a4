/**
 * The REST routes: chats, their history in every protocol, runs and their canonical events, the
 * agents. A chat of another token answers 404, like a chat that does not exist.
 */
import { isProtocol, type Protocol } from '@switchboard/core';
import {
  activeRun,
  type Chat,
  emptyHistory,
  HISTORY_PROTOCOLS,
  isHistoryProtocol,
  loadHistory,
  type Run,
  storeRead,
} from '@switchboard/store';

import { canSee, publicChat } from './auth.ts';
import { lastEventIdOf, runHeaders } from './chat.ts';
import { parseRequestJson } from './chat-request.ts';
import type { GatewayContext } from './context.ts';
import { jsonError } from './errors.ts';
import { requestBody, requestSignal } from './request-io.ts';
import { sseResponse } from './sse-response.ts';

const MAX_PAGE = 200;

/** A non-negative integer query parameter, its default, or a 400. */
function intParam(c: GatewayContext, name: string, fallback: number, min: number, max: number): number | Response {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    return jsonError(400, `Invalid ?${name}=${JSON.stringify(raw).slice(1, -1)}: expected an integer from ${min} to ${max}`);
  return Number(raw);
}

function boolParam(c: GatewayContext, name: string, fallback: boolean): boolean | Response {
  const raw = c.req.query(name);
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  return jsonError(400, `Invalid ?${name}=${raw}: expected true or false`);
}

/** The chat if the caller may see it. */
async function visibleChat(c: GatewayContext, chatId: string): Promise<Chat | undefined> {
  const chat = await storeRead(c.get('core').store.getChat(chatId));
  return canSee(c.get('principal'), chat) ? chat : undefined;
}

/** The run if the caller may see its chat. */
async function visibleRun(c: GatewayContext, runId: string): Promise<Run | undefined> {
  const run = await storeRead(c.get('core').store.getRun(runId));
  if (!run) return undefined;
  return (await visibleChat(c, run.chatId)) ? run : undefined;
}

/** `GET /api/chats?limit=&offset=`: the caller's chats, most recently updated first. */
export async function listChats(c: GatewayContext): Promise<Response> {
  const limit = intParam(c, 'limit', 50, 1, MAX_PAGE);
  if (limit instanceof Response) return limit;
  const offset = intParam(c, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (offset instanceof Response) return offset;
  const { store } = c.get('core');
  const principal = c.get('principal');
  if ('anonymous' in principal) {
    const chats = await store.listChats({ limit, offset });
    return c.json({ chats: chats.map(publicChat) });
  }
  // The caller's chats, from the store's owner index.
  const mine = await store.listChats({ limit, offset, owner: principal.name });
  return c.json({ chats: mine.filter((chat) => canSee(principal, chat)).map(publicChat) });
}

/** `GET /api/chats/:id`: the chat and its runs. */
export async function getChat(c: GatewayContext): Promise<Response> {
  const chatId = c.req.param('id') as string;
  const chat = await visibleChat(c, chatId);
  if (!chat) return jsonError(404, `No chat ${chatId}`);
  return c.json({ chat: publicChat(chat), runs: await c.get('core').store.listRuns(chatId) });
}

/** `GET /api/chats/:id/messages?protocol=ai-sdk|ag-ui|timeline|dsagent|canonical&includePending=`. */
export async function chatMessages(c: GatewayContext): Promise<Response> {
  const chatId = c.req.param('id') as string;
  const protocol = c.req.query('protocol') ?? 'ai-sdk';
  if (!isHistoryProtocol(protocol))
    return jsonError(400, `Unknown protocol ${JSON.stringify(protocol)}: expected one of ${HISTORY_PROTOCOLS.join(', ')}`);
  const includePending = boolParam(c, 'includePending', true);
  if (includePending instanceof Response) return includePending;
  // A chat this caller cannot see (never created, deleted, or another caller's) has an empty history:
  // a stock client opening a new chat asks for it first, and reads the empty form as a new conversation.
  if (!(await visibleChat(c, chatId))) return c.json(emptyHistory(protocol));
  const core = c.get('core');
  return c.json(await loadHistory(core.store, chatId, protocol, { namespace: core.namespace, includePending }));
}

const TITLE_MAX = 200;

/** `PATCH /api/chats/:id` with `{ "title": "…" }`: renames the chat. */
export async function renameChat(c: GatewayContext): Promise<Response> {
  const chatId = c.req.param('id') as string;
  if (!(await visibleChat(c, chatId))) return jsonError(404, `No chat ${chatId}`);
  const maxBytes = c.get('core').maxBodyBytes;
  const text = await requestBody(c, maxBytes);
  if (!text.ok) return jsonError(413, `Request body too large: the limit is ${maxBytes} bytes`);
  const read = parseRequestJson(text.text);
  const body = read.ok ? read.value : undefined;
  const title = typeof body === 'object' && body !== null ? (body as { title?: unknown }).title : undefined;
  if (typeof title !== 'string' || title.trim() === '' || title.length > TITLE_MAX)
    return jsonError(400, `Invalid body: expected { "title": a non-empty string of at most ${TITLE_MAX} characters }`);
  const chat = await c.get('core').store.updateChat(chatId, { title: title.trim() });
  return c.json({ chat: publicChat(chat) });
}

/** `DELETE /api/chats/:id`: stops its runs here, then deletes it with everything in it. */
export async function deleteChat(c: GatewayContext): Promise<Response> {
  const chatId = c.req.param('id') as string;
  if (!(await visibleChat(c, chatId))) return jsonError(404, `No chat ${chatId}`);
  const core = c.get('core');
  await core.runs.abortChat(chatId, 'the chat was deleted');
  await core.store.deleteChat(chatId);
  return new Response(null, { status: 204 });
}

/** `GET /api/runs/:runId`. */
export async function getRun(c: GatewayContext): Promise<Response> {
  const runId = c.req.param('runId') as string;
  const run = await visibleRun(c, runId);
  if (!run) return jsonError(404, `No run ${runId}`);
  return c.json(run);
}

/** `GET /api/runs/:runId/events?after=&limit=`: the run's canonical events, a JSON array. */
export async function runEvents(c: GatewayContext): Promise<Response> {
  const runId = c.req.param('runId') as string;
  const after = intParam(c, 'after', -1, -1, Number.MAX_SAFE_INTEGER);
  if (after instanceof Response) return after;
  const limit = intParam(c, 'limit', 0, 0, 100_000);
  if (limit instanceof Response) return limit;
  if (!(await visibleRun(c, runId))) return jsonError(404, `No run ${runId}`);
  const events = await c.get('core').store.read(runId, { after, ...(limit > 0 ? { limit } : {}) });
  return c.json(events);
}

/** `GET /api/runs/:runId/stream?protocol=`: the run (live or finished) as SSE in any protocol, resumable with Last-Event-ID. */
export async function runStream(c: GatewayContext): Promise<Response> {
  const runId = c.req.param('runId') as string;
  const protocol = c.req.query('protocol') ?? 'ai-sdk';
  if (!isProtocol(protocol))
    return jsonError(400, `Unknown protocol ${JSON.stringify(protocol)}: expected ai-sdk, ag-ui, ws, dsagent or canonical`);
  const last = lastEventIdOf(c);
  if (!last.ok) return last.response;
  const run = await visibleRun(c, runId);
  if (!run) return jsonError(404, `No run ${runId}`);
  const core = c.get('core');
  return sseResponse(c, core.store, run.id, protocol as Protocol, last.id, {
    namespace: core.namespace,
    messageMetadata: true,
    signal: requestSignal(c),
    headers: runHeaders(run.id, run.chatId),
  });
}

/** Aborts a running run the caller may see, on whichever instance runs it: 202, or 409 when none can be reached. */
async function abortRunning(c: GatewayContext, runId: string): Promise<Response> {
  const runs = c.get('core').runs;
  const sent = await runs.abort(runId, 'aborted by the client');
  if (!sent && runs.unstoredEnds.includes(runId))
    return jsonError(503, `Run ${runId} ended on this server, but the store has not taken its end yet: try again shortly`, {
      code: 'store_unavailable',
      headers: { 'retry-after': '1' },
    });
  if (!sent) return jsonError(409, `Run ${runId} is not running on a reachable instance`, { code: 'run_unreachable' });
  return c.json({ runId, aborting: true }, 202);
}

/** `POST /api/runs/:runId/abort`: stops a run in progress. */
export async function abortRun(c: GatewayContext): Promise<Response> {
  const runId = c.req.param('runId') as string;
  const run = await visibleRun(c, runId);
  if (!run) return jsonError(404, `No run ${runId}`);
  if (run.status !== 'running') return jsonError(409, `Run ${runId} has already ended (${run.status})`, { code: 'run_ended' });
  return abortRunning(c, runId);
}

/**
 * `POST /api/chat/:id/stop`: stops the chat's run in progress, with only what a stock client holds —
 * the chat id (`useChat`'s `id`, AG-UI's `threadId`). `stop()` only aborts the client's fetch, and
 * the run outlives that by default, so an app pairs the two. 204 when nothing runs, also for a chat
 * the caller cannot see (like `GET /api/chat/:id/stream`: nothing tells one caller of another's chat).
 */
export async function stopChat(c: GatewayContext): Promise<Response> {
  const chatId = c.req.param('id') as string;
  const run = (await visibleChat(c, chatId)) ? await activeRun(c.get('core').store, chatId) : undefined;
  if (!run) return new Response(null, { status: 204 });
  return abortRunning(c, run.id);
}

/** `GET /api/agents?all=`: the agents that can run (all of them, with why not, with `all=true`). */
export async function listAgents(c: GatewayContext): Promise<Response> {
  const all = boolParam(c, 'all', false);
  if (all instanceof Response) return all;
  const list = c.get('core').agents.list();
  return c.json(all ? list : list.filter((a) => a.enabled).map(({ name, description, framework }) => ({ name, description, framework })));
}
