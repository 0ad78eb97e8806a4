/**
 * The gateway's HTTP application (Hono): the UI protocol endpoints (AI SDK, AG-UI), the REST routes
 * over the store, health, the OpenAPI description and the web UI. Every error answers JSON; nothing
 * a client sends can take the server down.
 *
 * Middleware, in order: errors → CORS (configured origins) → bearer auth (`/api/*`) → per-caller
 * rate limit (`/api/*`) → route. The WebSocket endpoint lives on the HTTP server's upgrade event
 * (ws.ts); `GET /ws` without an upgrade answers 426.
 */

import { StoreReadError } from '@switchboard/store';
import { Hono } from 'hono';
import { cors } from 'hono/cors';

import type { AgentFactory } from '../agents/agent.ts';
import { resolveConfig } from '../config/load.ts';
import type { SwitchboardConfig } from '../config/types.ts';
import type { RunOptions } from '../runner/types.ts';
import { AgentRegistry, fromAgentFactory, type InProcessAgentSpec, LEGACY_AGENT_NAME } from './agent-registry.ts';
import { postAgUi } from './agui.ts';
import { Authenticator } from './auth.ts';
import { postChat, resumeChat } from './chat.ts';
import type { DisconnectPolicy, GatewayCore, GatewayEnv } from './context.ts';
import { jsonError, storeFaultResponse } from './errors.ts';
import type { RedisFanout } from './fanout.ts';
import { authFailureLimited, callerKey, hostChecker, hostRejection, originAllowed } from './guard.ts';
import { openApiDocument } from './openapi.ts';
import { memoryLimiter, type RateLimiter, redisLimiter } from './rate-limit.ts';
import {
  abortRun,
  chatMessages,
  deleteChat,
  getChat,
  getRun,
  listAgents,
  listChats,
  renameChat,
  runEvents,
  runStream,
  stopChat,
} from './rest.ts';
import { RunManager } from './runs.ts';
import { FrameCounts } from './session.ts';
import { mountWebApp } from './static.ts';

/** Request headers every CORS origin may send: the ones the gateway itself reads. */
const CORS_HEADERS = ['content-type', 'authorization', 'last-event-id', 'x-switchboard-on-disconnect'];

/** Options of `createGateway` / `createApp`. */
export interface AppOptions {
  /** Agents and server settings (tokens, CORS, limits). Default: the built-in agents, no auth, default limits. */
  config?: SwitchboardConfig;
  /** The store. Default: a private in-memory SQLite database (closed with the gateway). */
  store?: import('@switchboard/store').Store;
  /** The Redis fan-out (aborts across instances, shared rate limit); pass the one the store was wrapped with. */
  fanout?: RedisFanout;
  /** Agents given in code, added to (and winning over) the configured ones. */
  agents?: InProcessAgentSpec[];
  /** Legacy: an agent-line factory, registered as `default` and made the default agent. */
  agent?: AgentFactory;
  /** The agent of requests that name none. Default: `default` with `agent`, else `demo`. */
  defaultAgent?: string;
  /** Pause between the demo agent's events in ms (overrides the config; 0 in tests). */
  delayMs?: number;
  /** providerMetadata key of the reasoning variant and our fields (default `switchboard`). */
  namespace?: string;
  /** Largest accepted request body / WebSocket message in bytes (default: the config's, 8 MiB). */
  maxBodyBytes?: number;
  /** What a run does when the request that started it goes away (default `continue`: it goes on, a client may resume it). */
  onDisconnect?: DisconnectPolicy;
  /** Requests per minute per caller (default: the config's; 0 = unlimited). */
  rateLimitPerMinute?: number;
  /** Options of the runner (environment, logger, kill grace…). */
  runOptions?: RunOptions;
  /** The host the server is bound to (for the default `Host` allow-list; startServer sets it). */
  host?: string;
  /** Lease of the runs started here in ms (default: the config's `runLeaseMs`; 0: none). */
  runLeaseMs?: number;
  /** This instance's id in run leases (default: a random UUID). */
  instanceId?: string;
  /** The waits between retries of an append the store failed, in ms (default about 11 s in all: docs/gateway.md). */
  appendRetryMs?: readonly number[];
  /** Re-check interval of WebSocket session followers in ms (default 2000). */
  pollIntervalMs?: number;
  /** Told about unexpected errors (default `console.error`). */
  onError?: (err: unknown) => void;
}

/** A gateway: the HTTP app and, once ready, what it runs on. */
export interface Gateway {
  app: Hono<GatewayEnv>;
  /** Opens what is missing (the default store) and starts listening for other instances; idempotent. */
  ready(): Promise<GatewayCore>;
  /** Aborts the runs executing here, waits until they are stored, closes a store the gateway opened. */
  close(): Promise<void>;
}

/** The config used when none is given: built-in agents, no tokens, default limits, no environment. */
function defaultConfig(): SwitchboardConfig {
  return resolveConfig({}, { env: {} });
}

/** The config with the demo agent's pause replaced. */
function withDemoDelay(config: SwitchboardConfig, delayMs: number): SwitchboardConfig {
  return {
    ...config,
    agents: config.agents.map((a) =>
      a.kind === 'builtin' && a.builtin === 'demo' ? { ...a, settings: { ...a.settings, delayMs } } : a,
    ) as SwitchboardConfig['agents'],
  };
}

/** Creates the gateway (nothing is opened until the first request or `ready()`). */
export function createGateway(options: AppOptions = {}): Gateway {
  const onError = options.onError ?? ((err: unknown) => console.error(err));
  let config = options.config ?? defaultConfig();
  if (options.delayMs !== undefined) config = withDemoDelay(config, options.delayMs);
  const settings = config.server;
  const extra = [...(options.agents ?? [])];
  if (options.agent) extra.unshift(fromAgentFactory(LEGACY_AGENT_NAME, options.agent, onError));
  const agents = new AgentRegistry(config, extra, options.defaultAgent ?? (options.agent ? LEGACY_AGENT_NAME : undefined));
  const auth = new Authenticator(settings.tokens);
  const perMinute = options.rateLimitPerMinute ?? settings.limits.rateLimitPerMinute;
  const limiterOf = (perMinute: number): RateLimiter | undefined =>
    perMinute > 0 ? (options.fanout ? redisLimiter(options.fanout, { perMinute }) : memoryLimiter({ perMinute })) : undefined;
  const limiter = limiterOf(perMinute);
  const authFailures = auth.enabled ? limiterOf(settings.limits.authFailuresPerMinute) : undefined;
  const hostAllowed = auth.enabled ? () => true : hostChecker(options.host, settings.allowedHosts);

  let ownedStore: import('@switchboard/store').Store | undefined;
  let opening: Promise<GatewayCore> | undefined;
  let closed = false;
  const ready = (): Promise<GatewayCore> => {
    if (closed) return Promise.reject(new Error('the gateway is closed'));
    opening ??= (async () => {
      let store = options.store;
      if (!store) {
        const { openSqliteStore } = await import('@switchboard/store');
        store = ownedStore = await openSqliteStore({ path: ':memory:' });
      }
      const runs = new RunManager({
        store,
        agents,
        ...(options.fanout ? { fanout: options.fanout } : {}),
        runOptions: options.runOptions ?? {},
        leaseMs: options.runLeaseMs ?? settings.runLeaseMs,
        maxRunsPerCaller: settings.limits.runsPerCaller,
        ...(options.instanceId ? { instanceId: options.instanceId } : {}),
        ...(options.appendRetryMs ? { appendRetryMs: options.appendRetryMs } : {}),
        onError,
      });
      await runs.init();
      const core: GatewayCore = {
        store,
        runs,
        agents,
        auth,
        ...(limiter ? { limiter } : {}),
        ...(options.fanout ? { fanout: options.fanout } : {}),
        frameCounts: new FrameCounts(),
        namespace: options.namespace ?? 'switchboard',
        maxBodyBytes: options.maxBodyBytes ?? settings.limits.requestBytes,
        onDisconnect: options.onDisconnect ?? 'continue',
        corsOrigins: settings.cors.origins,
        pollIntervalMs: options.pollIntervalMs ?? 2000,
        hostAllowed,
        ...(authFailures ? { authFailures } : {}),
        onError,
      };
      return core;
    })();
    return opening;
  };

  const app = new Hono<GatewayEnv>();
  app.onError((err) => {
    onError(err);
    if (err instanceof StoreReadError) return storeFaultResponse(err);
    return jsonError(500, 'Internal server error');
  });
  app.notFound((c) => jsonError(404, `Not found: ${c.req.method} ${c.req.path}`));

  // DNS rebinding: with authentication off, only the allowed host names (health checks excepted).
  app.use('*', async (c, next) => {
    // Node's server builds the URL from the Host header; a Request made in code may have only the URL.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (c.req.path !== '/healthz' && !hostAllowed(host)) return jsonError(403, hostRejection(host));
    await next();
  });

  if (settings.cors.origins.length > 0) {
    // The headers the gateway reads; `cors.headers` adds a transport's own (e.g. DefaultChatTransport's `headers`).
    const origins = settings.cors.origins;
    // A preflight from an origin not allowed: the JSON 403 (the cors middleware would answer an empty 204).
    app.options('*', async (c, next) => {
      const origin = c.req.header('origin');
      if (!c.req.header('access-control-request-method') || originAllowed(origin, c.req.header('host'), origins)) return next();
      return jsonError(403, `Origin ${JSON.stringify(origin)} is not allowed: add it to cors.origins (SWITCHBOARD_CORS_ORIGINS)`);
    });
    app.use(
      '*',
      cors({
        origin: origins.includes('*') ? '*' : origins,
        allowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        allowHeaders: [...CORS_HEADERS, ...settings.cors.headers.map((h) => h.toLowerCase())],
        exposeHeaders: [
          'x-switchboard-run-id',
          'x-switchboard-chat-id',
          'x-resumable-stream-id',
          'x-vercel-ai-ui-message-stream',
          'retry-after',
        ],
        maxAge: 600,
      }),
    );
  }

  // The web UI (the package's web/, built from apps/web) at / and /c/*, or the minimal page when it is not built.
  mountWebApp(app as unknown as Hono);

  app.get('/healthz', async (c) => {
    try {
      const core = await ready();
      await core.store.healthCheck();
      return c.json({ ok: true });
    } catch (err) {
      return jsonError(503, `The store is not available: ${(err as Error).message}`);
    }
  });
  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  app.get('/ws', () =>
    jsonError(426, 'GET /ws is the WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)', {
      headers: { upgrade: 'websocket', connection: 'Upgrade' },
    }),
  );

  // Everything under /api: the gateway's state, who is calling, whether they may.
  app.use('/api/*', async (c, next) => {
    const core = await ready();
    c.set('core', core);
    const address = c.env?.incoming?.socket?.remoteAddress ?? 'local';
    const result = core.auth.check(c.req.header('authorization'));
    if (!result.ok) {
      const limited = await authFailureLimited(core, address);
      if (limited) return limited;
      return jsonError(401, result.message, { headers: { 'www-authenticate': 'Bearer' } });
    }
    c.set('principal', result.principal);
    const key = callerKey(result.principal, address);
    c.set('caller', key);
    if (core.limiter) {
      const taken = await core.limiter.take(key);
      if (!taken.ok)
        return jsonError(429, 'Too many requests: slow down', {
          headers: { 'retry-after': String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000))) },
        });
    }
    await next();
  });

  app.post('/api/chat', postChat);
  app.get('/api/chat/:id/stream', resumeChat);
  app.post('/api/chat/:id/stop', stopChat);
  app.post('/api/agui', postAgUi);
  app.get('/api/chats', listChats);
  app.get('/api/chats/:id', getChat);
  app.patch('/api/chats/:id', renameChat);
  app.delete('/api/chats/:id', deleteChat);
  app.get('/api/chats/:id/messages', chatMessages);
  app.get('/api/runs/:runId', getRun);
  app.get('/api/runs/:runId/events', runEvents);
  app.get('/api/runs/:runId/stream', runStream);
  app.post('/api/runs/:runId/abort', abortRun);
  app.get('/api/agents', listAgents);

  // A known path with a method it does not take: 405 with Allow.
  const allowed = new Map<string, string[]>();
  for (const r of app.routes) {
    if (r.method === 'ALL' || !r.path.startsWith('/api/')) continue;
    allowed.set(r.path, [...(allowed.get(r.path) ?? []), r.method]);
  }
  for (const [path, methods] of allowed) {
    app.all(path, (c) =>
      jsonError(405, `Method ${c.req.method} not allowed on ${c.req.path}: use ${methods.join(' or ')}`, {
        headers: { allow: methods.join(', ') },
      }),
    );
  }

  return {
    app,
    ready,
    close: async () => {
      if (closed) return;
      closed = true;
      if (opening) {
        const core = await opening.catch(() => undefined);
        await core?.runs.close();
      }
      await ownedStore?.close();
    },
  };
}

/** Creates the Switchboard HTTP app (see `createGateway` for one you can close). */
export function createApp(options: AppOptions = {}): Hono<GatewayEnv> {
  return createGateway(options).app;
}
