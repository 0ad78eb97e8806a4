/**
 * The AI SDK routes:
 *
 * - `POST /api/chat` — what `DefaultChatTransport` (`useChat`) posts: `{ id, messages, trigger,
 *   messageId }` plus `agent` (or `?agent=`). Starts a run (the user message is stored, the agent's
 *   events are recorded as they come) and answers the run's UI message stream, read from the store
 *   with an SSE `id:` on every event. A request carrying only the newest message of a chat the store
 *   knows gets the stored conversation before it (`conversation.ts`). The response is a *follower*
 *   of the run, like any other: the run does not wait for it.
 * - `GET /api/chat/:id/stream` — the transport's `reconnectToStream`: 204 when the chat has no run in
 *   progress, else the run's stream from its start, or after `Last-Event-ID`.
 *
 * Client gone: by default (`onDisconnect: 'continue'`) the run goes on when the request that started
 * it goes away, because a server cannot tell the AI SDK's `stop()` (it aborts that fetch) from a
 * reload or a network drop, and `useChat({ resume: true })` comes back for the run after a reload.
 * Stopping is explicit: `POST /api/chat/:id/stop` (the chat id is all a stock app has) or
 * `POST /api/runs/:runId/abort`. With `onDisconnect: 'abort'` the run is aborted with its request
 * (the agent is killed, the partial message stored as `aborted`): for apps whose clients never
 * resume. A request may choose for itself with the header `x-switchboard-on-disconnect: continue |
 * abort`. Followers (`/stream`) never abort a run.
 */
import { randomUUID } from 'node:crypto';
import { parseFrameId } from '@switchboard/core';
import { activeRun, storeRead, supersedeMessages } from '@switchboard/store';

import { canSee } from './auth.ts';
import { type ChatRequest, clientToolsOf, lastUserText, parseChatRequest } from './chat-request.ts';
import type { DisconnectPolicy, GatewayContext } from './context.ts';
import { aiSdkContinuation } from './continuation.ts';
import { conversationOf } from './conversation.ts';
import { errorResponse, jsonError } from './errors.ts';
import { regeneratedIds } from './regenerate.ts';
import { requestBody, requestSignal } from './request-io.ts';
import { type LocalRun, RunStartError } from './runs.ts';
import { sseResponse } from './sse-response.ts';

/** Default cap on a chat request body: long conversations fit, runaway uploads do not. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** assistant-ui's name for the id of a stream a client can resume (`RESUMABLE_STREAM_ID_HEADER`). */
export const RESUMABLE_STREAM_ID_HEADER = 'x-resumable-stream-id';

/**
 * Headers that tell a client which run and chat a stream belongs to. The ids are percent-encoded
 * (`encodeURIComponent`; decode with `decodeURIComponent`): an id may be any Unicode text, a header
 * only Latin-1 without line breaks. Plain ASCII ids (letters, digits, `-_.!~*'()`) are unchanged.
 * `x-resumable-stream-id` is the run id again, under the name assistant-ui's resumable
 * `AssistantChatTransport` reads: it stores the id and resumes at `/api/runs/<id>/stream`.
 */
export function runHeaders(runId: string, chatId: string): Record<string, string> {
  const run = headerId(runId);
  return { 'x-switchboard-run-id': run, 'x-switchboard-chat-id': headerId(chatId), [RESUMABLE_STREAM_ID_HEADER]: run };
}

function headerId(id: string): string {
  return encodeURIComponent(id.toWellFormed());
}

/** A RunStartError as a JSON response. */
export function startErrorResponse(err: unknown): Response {
  if (err instanceof RunStartError)
    return jsonError(err.status, err.message, {
      code: err.code,
      ...(err.retryAfterMs !== undefined ? { headers: { 'retry-after': String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) } } : {}),
    });
  throw err;
}

/** The header a request names its own disconnect policy with. */
export const DISCONNECT_HEADER = 'x-switchboard-on-disconnect';

/** The request's disconnect policy: its `x-switchboard-on-disconnect` header, else the server's. */
export function disconnectPolicyOf(c: GatewayContext): DisconnectPolicy {
  const asked = c.req.header(DISCONNECT_HEADER)?.trim().toLowerCase();
  return asked === 'continue' || asked === 'abort' ? asked : c.get('core').onDisconnect;
}

/** Aborts `run` when the request that started it goes away (the `abort` disconnect policy). */
export function abortOnDisconnect(c: GatewayContext, run: LocalRun): void {
  if (disconnectPolicyOf(c) !== 'abort') return;
  const signal = requestSignal(c);
  const onAbort = () => run.abort('client disconnected');
  if (signal.aborted) {
    onAbort();
    return;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  void run.done.then(() => signal.removeEventListener('abort', onAbort));
}

/** A Last-Event-ID from the header (or `?lastEventId=`), or a 400 when it is not one of ours. */
export function lastEventIdOf(c: GatewayContext): { ok: true; id: string | undefined } | { ok: false; response: Response } {
  const id = c.req.header('last-event-id') ?? c.req.query('lastEventId');
  if (id === undefined || id.trim() === '') return { ok: true, id: undefined };
  if (!parseFrameId(id)) {
    return {
      ok: false,
      response: jsonError(400, `Invalid Last-Event-ID ${JSON.stringify(id.slice(0, 80))}: expected "<seq>" or "<seq>.<k>"`),
    };
  }
  return { ok: true, id };
}

function userMessageOf(messages: ChatRequest['messages']) {
  const last = messages.at(-1);
  if (last?.role !== 'user') return undefined;
  return { id: last.id, content: lastUserText([last]), parts: last.parts as never };
}

/** `POST /api/chat`. */
export async function postChat(c: GatewayContext): Promise<Response> {
  const core = c.get('core');
  const body = await requestBody(c, core.maxBodyBytes);
  if (!body.ok) return jsonError(413, `Request body too large: the limit is ${core.maxBodyBytes} bytes`);
  const parsed = parseChatRequest(body.text);
  if (!parsed.ok) return errorResponse(400, parsed.message, parsed.issues);
  const { messages, tools = [] } = parsed.value;
  const agent = c.req.query('agent') ?? parsed.value.agent ?? core.agents.defaultAgent;
  const chatId = parsed.value.id ?? randomUUID();
  const userMessage = userMessageOf(messages);
  // Only the caller's own chat lends its history (another's answers 404 from runs.start below).
  const known = await core.store.getChat(chatId);
  const mine = known !== undefined && canSee(c.get('principal'), known);
  // A regenerate supersedes the stored answer to its question (regenerate.ts).
  const replaced = mine ? await regeneratedIds(core.store, chatId, parsed.value.trigger, messages) : new Set<string>();
  const conversation = mine
    ? (await conversationOf(core.store, chatId, messages, core.namespace)).filter((m) => !replaced.has(m.id))
    : messages;
  // Answers to a run that ended waiting (approvals, client tool outputs): checked before anything starts.
  const continuation = await aiSdkContinuation(core.store, core.namespace, chatId, c.get('principal'), messages, conversation);
  if (!continuation.ok) return continuation.response;
  const continues = continuation.value;

  let run: LocalRun;
  try {
    run = await core.runs.start({
      chatId,
      agent,
      messages: continues?.messages ?? conversation,
      principal: c.get('principal'),
      caller: c.get('caller'),
      // A chat that did not exist is not read again (one that did is: it may have changed since).
      ...(known === undefined ? { knownChat: null } : {}),
      ...(userMessage ? { userMessage } : {}),
      ...(continues ? { continues } : {}),
      ...(tools.length ? { tools: clientToolsOf(tools) } : {}),
    });
  } catch (err) {
    return startErrorResponse(err);
  }
  abortOnDisconnect(c, run);
  await supersedeMessages(core.store, chatId, [...replaced]);
  return sseResponse(c, core.store, run.runId, 'ai-sdk', null, {
    namespace: core.namespace,
    messageMetadata: true,
    signal: requestSignal(c),
    headers: runHeaders(run.runId, chatId),
  });
}

/**
 * `GET /api/chat/:id/stream`: `useChat({ resume: true })` calls it on every mount. As the AI SDK's
 * convention has it, 204 (nothing to resume) when no run is in progress, also for a chat this server has
 * never seen (a brand-new chat) and for one the caller cannot see (so the answer tells nothing about
 * other people's chats).
 */
export async function resumeChat(c: GatewayContext): Promise<Response> {
  const core = c.get('core');
  const chatId = c.req.param('id') as string;
  if (!canSee(c.get('principal'), await storeRead(core.store.getChat(chatId)))) return new Response(null, { status: 204 });
  const last = lastEventIdOf(c);
  if (!last.ok) return last.response;
  const run = await storeRead(activeRun(core.store, chatId));
  if (!run) return new Response(null, { status: 204 });
  return sseResponse(c, core.store, run.id, 'ai-sdk', last.id, {
    namespace: core.namespace,
    messageMetadata: true,
    signal: requestSignal(c),
    headers: runHeaders(run.id, chatId),
  });
}
