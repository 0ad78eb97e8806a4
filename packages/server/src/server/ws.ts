/**
 * WebSocket `/ws` with the `agent:event` contract, on the `ws` package (attached to the HTTP server's
 * `upgrade` event, so authentication, the origin check and the rate limit answer with a plain HTTP
 * status before any WebSocket exists).
 *
 * Every message is one JSON text frame. Client → server:
 *
 * | message | what it does |
 * |---|---|
 * | `{type:'subscribe', sessionId, lastSequenceNumber?, lastEventId?}` | replays the session's stored frames after that position, then live (every later run too) |
 * | `{type:'unsubscribe', sessionId}` | stops following |
 * | `{type:'message', sessionId?, content, agent?, messageId?, requestId?}` | starts a run in the session (a new one without `sessionId`); the socket follows the session from there if it did not already |
 * | `{type:'abort', sessionId? , runId?}` | aborts the run (or the session's run in progress) |
 * | `{type:'tool_approval_response', sessionId, approvalId, approved, reason?}` | answers an approval: the session's next run continues the waiting message |
 * | `{type:'tool_result', sessionId, toolCallId, output? \| error?}` | answers a client tool call the same way |
 * | `{type:'interrupt_response', sessionId, interruptId, status, payload?}` | answers an interrupt (`resolved` / `cancelled`) |
 * | `{type:'ping'}` | `{event:'pong'}` |
 *
 * Server → client: `{event, data}` envelopes — `agent:event` (data: one frame of the ws encoder,
 * the contract's AgentEvent), `subscribed`, `unsubscribed`, `run:started`, `aborted`, `error`
 * (`{code, message, requestId?, sessionId?}`), `pong`. A socket that closes does not abort its
 * runs (it may reconnect and resubscribe); `abort` does. A store read that fails under a
 * subscription ends it with an `error` of code `store_unavailable` (`store read failed: …`); the
 * client subscribes again from its last frame once the store is back.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { idProblem, type Json, type WsEvent } from '@switchboard/core';
import { activeRun, loadHistory, STORE_FAULT_CODE, StoreReadError, storeRead, type UIMessageLike } from '@switchboard/store';
import { type WebSocket, WebSocketServer } from 'ws';

import { canSee, type Principal } from './auth.ts';
import type { GatewayCore } from './context.ts';
import { type WsAnswer, wsContinuation } from './continuation.ts';
import { endWithError } from './errors.ts';
import { authFailureLimited, callerKey, hostRejection, originAllowed } from './guard.ts';
import { RunStartError } from './runs.ts';
import { followSession, SessionError, type SessionPosition, sessionLength } from './session.ts';

/** The path the WebSocket endpoint answers on. */
export const WS_PATH = '/ws';

/** Buffered bytes at which sending waits for the socket to drain. */
const HIGH_WATER_MARK = 1024 * 1024;
/** Sessions one socket may follow at once. */
const MAX_SUBSCRIPTIONS = 64;
/**
 * Messages one socket may have in progress at once (twice the subscriptions, so resubscribing to
 * every session in one burst fits). One more is answered `busy` before any store read: a client
 * that floods its socket gets errors, not a share of the store and the event loop.
 */
export const MAX_IN_PROGRESS = 2 * MAX_SUBSCRIPTIONS;
const HEARTBEAT_MS = 30_000;
/** The one id rule (docs/hostile-input.md): 1–200 characters, any Unicode, no control characters or lone surrogates. */
const ID = { test: (id: string) => idProblem(id, 200) === undefined };

type Envelope = { event: string; data?: unknown };

/** A running WebSocket endpoint. */
export interface WsEndpoint {
  /** Open sockets. */
  readonly clients: number;
  /** Closes every socket (1001 going away) and stops following. */
  close(): Promise<void>;
}

/** Attaches `/ws` to an HTTP server. `core` is awaited per connection (the gateway may still be opening). */
export function attachWebSocket(server: Server, getCore: () => Promise<GatewayCore>): WsEndpoint {
  // Created with the first connection: its message size limit is the gateway's body limit.
  let wss: WebSocketServer | undefined;
  const sockets = new Set<WebSocket>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== WS_PATH) return endWithError(socket, 404, `Not found: ${url.pathname} (the WebSocket endpoint is ${WS_PATH})`);
      let core: GatewayCore;
      try {
        core = await getCore();
      } catch {
        return endWithError(socket, 503, 'The server is not ready');
      }
      if (!core.hostAllowed(req.headers.host)) return endWithError(socket, 403, hostRejection(req.headers.host));
      if (!originAllowed(req.headers.origin, req.headers.host, core.corsOrigins))
        return endWithError(socket, 403, `Origin ${req.headers.origin} is not allowed`);
      const auth = core.auth.check(req.headers.authorization, url.searchParams.get('access_token'));
      if (!auth.ok) {
        const limited = await authFailureLimited(core, req.socket.remoteAddress);
        if (limited)
          return endWithError(socket, 429, 'Too many failed authentication attempts', {
            'retry-after': limited.headers.get('retry-after') ?? '60',
          });
        return endWithError(socket, 401, auth.message, { 'www-authenticate': 'Bearer' });
      }
      const caller = callerKey(auth.principal, req.socket.remoteAddress);
      if (core.limiter) {
        const taken = await core.limiter.take(caller);
        if (!taken.ok)
          return endWithError(socket, 429, 'Too many requests', {
            'retry-after': String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000))),
          });
      }
      wss ??= new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: core.maxBodyBytes });
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        ws.on('close', () => sockets.delete(ws));
        new Connection(ws, core, auth.principal, caller).start();
      });
    })().catch(() => socket.destroy());
  };
  server.on('upgrade', onUpgrade);

  return {
    get clients() {
      return sockets.size;
    },
    async close() {
      server.off('upgrade', onUpgrade);
      for (const ws of sockets) ws.close(1001, 'server shutting down');
      const closing = [...sockets].map(
        (ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve()))),
      );
      // A peer that does not answer the close handshake is cut.
      const timer = setTimeout(() => {
        for (const ws of sockets) ws.terminate();
      }, 2000);
      await Promise.all(closing);
      clearTimeout(timer);
      const open = wss;
      if (open) await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}

/** One socket: its subscriptions and what it sends. */
class Connection {
  private readonly ws: WebSocket;
  private readonly core: GatewayCore;
  private readonly principal: Principal;
  private readonly caller: string;
  private readonly subs = new Map<string, AbortController>();
  private alive = true;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Messages being handled now (at most MAX_IN_PROGRESS). */
  private inProgress = 0;

  constructor(ws: WebSocket, core: GatewayCore, principal: Principal, caller: string) {
    this.ws = ws;
    this.core = core;
    this.principal = principal;
    this.caller = caller;
  }

  start(): void {
    const { ws } = this;
    ws.on('message', (data, isBinary) => {
      if (isBinary) return this.error('bad_request', 'Send JSON text frames');
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer).byteLength;
      if (size > this.core.maxBodyBytes) return this.error('too_large', `Message too large: the limit is ${this.core.maxBodyBytes} bytes`);
      let msg: unknown;
      try {
        msg = JSON.parse(String(data));
      } catch (err) {
        return this.error('bad_request', `Not valid JSON: ${(err as Error).message}`);
      }
      if (this.inProgress >= MAX_IN_PROGRESS) {
        const requestId = (msg as { requestId?: unknown } | null)?.requestId;
        return this.error('busy', `At most ${MAX_IN_PROGRESS} messages in progress per socket: wait for their answers`, {
          ...(typeof requestId === 'string' ? { requestId } : {}),
        });
      }
      this.inProgress++;
      void this.handle(msg)
        .catch((err) => this.fail(err, contextOf(msg)))
        .finally(() => {
          this.inProgress--;
        });
    });
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => this.stop());
    ws.on('error', () => this.stop());
    this.heartbeat = setInterval(() => {
      if (!this.alive) {
        ws.terminate();
        return;
      }
      this.alive = false;
      ws.ping();
    }, HEARTBEAT_MS);
    this.heartbeat.unref?.();
  }

  private stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const ctl of this.subs.values()) ctl.abort();
    this.subs.clear();
  }

  /** Sends an envelope; waits while too much is buffered. */
  private async send(envelope: Envelope): Promise<void> {
    const { ws } = this;
    if (ws.readyState !== ws.OPEN) return;
    const text = JSON.stringify(envelope);
    if (ws.bufferedAmount < HIGH_WATER_MARK) {
      ws.send(text);
      return;
    }
    await new Promise<void>((resolve) => ws.send(text, () => resolve()));
  }

  private error(code: string, message: string, extra: Record<string, unknown> = {}): void {
    void this.send({ event: 'error', data: { code, message, ...extra } });
  }

  /** An unexpected failure: logged once, answered with an `error` (a failed store read's located message). */
  private fail(err: unknown, extra: Record<string, unknown>): void {
    this.core.onError(err);
    if (err instanceof StoreReadError) this.error(STORE_FAULT_CODE, err.message, extra);
    else this.error('internal', 'Internal server error', extra);
  }

  private async handle(msg: unknown): Promise<void> {
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
      return this.error('bad_request', 'Expected a JSON object with a "type"');
    const m = msg as Record<string, unknown>;
    const requestId = typeof m.requestId === 'string' ? m.requestId : undefined;
    const ctx = requestId ? { requestId } : {};
    switch (m.type) {
      case 'ping':
        return this.send({ event: 'pong', ...(requestId ? { data: ctx } : {}) });
      case 'subscribe': {
        if (typeof m.sessionId !== 'string' || !ID.test(m.sessionId))
          return this.error('bad_request', 'subscribe needs a "sessionId"', ctx);
        const position: SessionPosition = {};
        if (m.lastSequenceNumber !== undefined) {
          if (!Number.isInteger(m.lastSequenceNumber) || (m.lastSequenceNumber as number) < -1)
            return this.error('bad_request', '"lastSequenceNumber" must be an integer ≥ -1', ctx);
          position.lastSequenceNumber = m.lastSequenceNumber as number;
        }
        if (m.lastEventId !== undefined) {
          if (typeof m.lastEventId !== 'string') return this.error('bad_request', '"lastEventId" must be a string', ctx);
          position.lastEventId = m.lastEventId;
        }
        return this.subscribe(m.sessionId, position, ctx);
      }
      case 'unsubscribe': {
        if (typeof m.sessionId !== 'string') return this.error('bad_request', 'unsubscribe needs a "sessionId"', ctx);
        this.subs.get(m.sessionId)?.abort();
        this.subs.delete(m.sessionId);
        return this.send({ event: 'unsubscribed', data: { sessionId: m.sessionId, ...ctx } });
      }
      case 'message':
        return this.message(m, ctx);
      case 'abort':
        return this.abort(m, ctx);
      case 'tool_approval_response':
      case 'tool_result':
      case 'interrupt_response':
        return this.answer(m, ctx);
      default:
        return this.error(
          'bad_request',
          `Unknown message type ${JSON.stringify(m.type)}: expected subscribe, unsubscribe, message, abort, ping, tool_approval_response, tool_result or interrupt_response`,
          ctx,
        );
    }
  }

  private async subscribe(sessionId: string, position: SessionPosition, ctx: Record<string, unknown>): Promise<void> {
    const chat = await storeRead(this.core.store.getChat(sessionId));
    if (chat && !canSee(this.principal, chat)) return this.error('not_found', `No session ${sessionId}`, { sessionId, ...ctx });
    this.subs.get(sessionId)?.abort();
    if (!this.subs.has(sessionId) && this.subs.size >= MAX_SUBSCRIPTIONS)
      return this.error('too_many_subscriptions', `At most ${MAX_SUBSCRIPTIONS} sessions per socket`, { sessionId, ...ctx });
    const ctl = new AbortController();
    this.subs.set(sessionId, ctl);
    await this.send({ event: 'subscribed', data: { sessionId, ...position, ...ctx } });
    void followSession({
      store: this.core.store,
      runs: this.core.runs,
      frameCounts: this.core.frameCounts,
      chatId: sessionId,
      principal: this.principal,
      position,
      signal: ctl.signal,
      pollIntervalMs: this.core.pollIntervalMs,
      send: (frame: WsEvent) => this.send({ event: 'agent:event', data: frame }),
    })
      .catch((err) => {
        if (ctl.signal.aborted) return;
        if (err instanceof SessionError) this.error(err.code, err.message, { sessionId });
        else this.fail(err, { sessionId });
      })
      .finally(() => {
        if (this.subs.get(sessionId) === ctl) this.subs.delete(sessionId);
      });
  }

  private async message(m: Record<string, unknown>, ctx: Record<string, unknown>): Promise<void> {
    if (typeof m.content !== 'string') return this.error('bad_request', 'message needs a string "content"', ctx);
    if (m.sessionId !== undefined && (typeof m.sessionId !== 'string' || !ID.test(m.sessionId)))
      return this.error(
        'bad_request',
        '"sessionId" must be an id of 1 to 200 characters, without control characters or lone surrogates',
        ctx,
      );
    if (m.agent !== undefined && typeof m.agent !== 'string') return this.error('bad_request', '"agent" must be a string', ctx);
    if (m.messageId !== undefined && (typeof m.messageId !== 'string' || !ID.test(m.messageId)))
      return this.error(
        'bad_request',
        '"messageId" must be an id of 1 to 200 characters, without control characters or lone surrogates',
        ctx,
      );
    const { core } = this;
    if (core.limiter) {
      const key = 'name' in this.principal ? `token:${this.principal.name}` : 'ws';
      const taken = await core.limiter.take(key);
      if (!taken.ok) return this.error('rate_limited', 'Too many requests', { retryAfterMs: taken.retryAfterMs, ...ctx });
    }
    const sessionId = (m.sessionId as string | undefined) ?? randomUUID();
    const chat = await core.store.getChat(sessionId);
    if (chat && !canSee(this.principal, chat)) return this.error('not_found', `No session ${sessionId}`, { sessionId, ...ctx });
    const history: UIMessageLike[] = chat
      ? await loadHistory(core.store, sessionId, 'ai-sdk', { namespace: core.namespace, includePending: false, metadata: false })
      : [];
    const user = {
      id: (m.messageId as string | undefined) ?? randomUUID(),
      role: 'user' as const,
      parts: [{ type: 'text', text: m.content }],
    };
    if (!this.subs.has(sessionId)) {
      // Follow from the session's current end: this run's frames, and later ones.
      const runs = chat ? await core.store.listRuns(sessionId) : [];
      await this.subscribe(sessionId, { lastSequenceNumber: sessionLength(runs) - 1 }, {});
    }
    const agent = (m.agent as string | undefined) ?? core.agents.defaultAgent;
    try {
      const run = await core.runs.start({
        chatId: sessionId,
        agent,
        messages: [...history, user],
        userMessage: { id: user.id, content: m.content, parts: user.parts },
        principal: this.principal,
        caller: this.caller,
      });
      await this.send({ event: 'run:started', data: { sessionId, runId: run.runId, messageId: run.messageId, agent, ...ctx } });
    } catch (err) {
      if (!(err instanceof RunStartError)) throw err;
      this.error(err.code, err.message, { sessionId, ...ctx });
    }
  }

  /**
   * An answer to what the session's last run ended waiting for (an approval, a client tool call, an
   * interrupt): checked against the stored run (continuation.ts), then a continuation run of the
   * session's agent, whose frames reach the socket like any run's.
   */
  private async answer(m: Record<string, unknown>, ctx: Record<string, unknown>): Promise<void> {
    if (typeof m.sessionId !== 'string' || !ID.test(m.sessionId)) return this.error('bad_request', `${m.type} needs a "sessionId"`, ctx);
    const parsed = wsAnswerOf(m);
    if (typeof parsed === 'string') return this.error('bad_request', parsed, ctx);
    const { core } = this;
    const sessionId = m.sessionId;
    const result = await wsContinuation(core.store, core.namespace, sessionId, this.principal, parsed);
    if (!result.ok) {
      const { error } = (await result.response.json()) as { error: { message: string; code?: string } };
      return this.error(error.code ?? 'bad_request', error.message, { sessionId, ...ctx });
    }
    const continues = result.value as NonNullable<typeof result.value>;
    if (!this.subs.has(sessionId)) {
      const runs = await core.store.listRuns(sessionId);
      await this.subscribe(sessionId, { lastSequenceNumber: sessionLength(runs) - 1 }, {});
    }
    // The agent that asked answers: the one the session's runs ran (kept in the chat's metadata).
    const kept = (await core.store.getChat(sessionId))?.metadata?.agent;
    const agent = typeof kept === 'string' ? kept : core.agents.defaultAgent;
    try {
      const run = await core.runs.start({
        chatId: sessionId,
        agent,
        messages: continues.messages,
        principal: this.principal,
        caller: this.caller,
        continues,
        ...(continues.resume ? { resume: continues.resume } : {}),
      });
      await this.send({ event: 'run:started', data: { sessionId, runId: run.runId, messageId: run.messageId, agent, ...ctx } });
    } catch (err) {
      if (!(err instanceof RunStartError)) throw err;
      this.error(err.code, err.message, { sessionId, ...ctx });
    }
  }

  private async abort(m: Record<string, unknown>, ctx: Record<string, unknown>): Promise<void> {
    const { store, runs } = this.core;
    let runId = typeof m.runId === 'string' ? m.runId : undefined;
    if (runId === undefined) {
      if (typeof m.sessionId !== 'string') return this.error('bad_request', 'abort needs a "runId" or a "sessionId"', ctx);
      const chat = await store.getChat(m.sessionId);
      if (!canSee(this.principal, chat)) return this.error('not_found', `No session ${m.sessionId}`, ctx);
      runId = (await activeRun(store, m.sessionId))?.id;
      if (!runId) return this.error('not_running', `Session ${m.sessionId} has no run in progress`, ctx);
    } else {
      const run = await store.getRun(runId);
      if (!run || !canSee(this.principal, await store.getChat(run.chatId))) return this.error('not_found', `No run ${runId}`, ctx);
      if (run.status !== 'running') return this.error('not_running', `Run ${runId} has already ended (${run.status})`, ctx);
    }
    const sent = await runs.abort(runId, 'aborted by the client');
    if (!sent) return this.error('not_running', `Run ${runId} is not running on a reachable instance`, ctx);
    return this.send({ event: 'aborted', data: { runId, ...ctx } });
  }
}

/** The ids a client message names (`sessionId`, `requestId`), for the error that answers it. */
function contextOf(msg: unknown): Record<string, unknown> {
  const m = (typeof msg === 'object' && msg !== null ? msg : {}) as Record<string, unknown>;
  return {
    ...(typeof m.sessionId === 'string' ? { sessionId: m.sessionId } : {}),
    ...(typeof m.requestId === 'string' ? { requestId: m.requestId } : {}),
  };
}

/** The answer a client message carries, or what is wrong with it. */
function wsAnswerOf(m: Record<string, unknown>): WsAnswer | string {
  const reason = m.reason === undefined || typeof m.reason === 'string' ? (m.reason as string | undefined) : null;
  switch (m.type) {
    case 'tool_approval_response':
      if (typeof m.approvalId !== 'string') return 'tool_approval_response needs a string "approvalId"';
      if (typeof m.approved !== 'boolean') return 'tool_approval_response needs a boolean "approved"';
      if (reason === null) return '"reason" must be a string';
      return {
        type: 'tool_approval_response',
        approvalId: m.approvalId,
        approved: m.approved,
        ...(reason !== undefined ? { reason } : {}),
      };
    case 'tool_result':
      if (typeof m.toolCallId !== 'string') return 'tool_result needs a string "toolCallId"';
      if (m.error !== undefined && typeof m.error !== 'string') return '"error" must be a string';
      return {
        type: 'tool_result',
        toolCallId: m.toolCallId,
        ...(typeof m.error === 'string' ? { error: m.error } : { output: (m.output ?? null) as Json }),
      };
    default:
      if (typeof m.interruptId !== 'string') return 'interrupt_response needs a string "interruptId"';
      if (m.status !== 'resolved' && m.status !== 'cancelled') return 'interrupt_response needs "status": "resolved" or "cancelled"';
      return {
        type: 'interrupt_response',
        interruptId: m.interruptId,
        status: m.status,
        ...(m.payload !== undefined ? { payload: m.payload as Json } : {}),
      };
  }
}
