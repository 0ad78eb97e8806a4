/**
 * What every route and the WebSocket handler share: the store, the runs, the agents, the security
 * settings. Built once per gateway (see app.ts).
 */
import type { Store } from '@switchboard/store';
import type { Context } from 'hono';

import type { AgentRegistry } from './agent-registry.ts';
import type { Authenticator, Principal } from './auth.ts';
import type { RedisFanout } from './fanout.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { RunManager } from './runs.ts';
import type { FrameCounts } from './session.ts';

/** What happens to a run when the HTTP request that started it goes away. */
export type DisconnectPolicy = 'abort' | 'continue';

export interface GatewayCore {
  store: Store;
  runs: RunManager;
  agents: AgentRegistry;
  auth: Authenticator;
  /** Per-caller rate limit; undefined = unlimited. */
  limiter?: RateLimiter;
  fanout?: RedisFanout;
  frameCounts: FrameCounts;
  /** providerMetadata / metadata key of our fields in the AI SDK and AG-UI streams and history. */
  namespace: string;
  /** Largest request body (and WebSocket message) in bytes. */
  maxBodyBytes: number;
  onDisconnect: DisconnectPolicy;
  /** Allowed browser origins (`*` = any); empty = same origin only. */
  corsOrigins: string[];
  /** Re-check interval of WebSocket session followers (ms). */
  pollIntervalMs: number;
  /** The `Host` check (true: allowed); applied while authentication is off. */
  hostAllowed: (host: string | undefined) => boolean;
  /** Failed authentications per client address; undefined = unlimited. */
  authFailures?: RateLimiter;
  onError: (err: unknown) => void;
}

/** Hono environment of the gateway's routes. */
export interface GatewayEnv {
  Variables: { core: GatewayCore; principal: Principal; caller: string };
  /** @hono/node-server's bindings (absent under `app.request`). */
  Bindings: { incoming?: { socket?: { remoteAddress?: string } } };
}

export type GatewayContext = Context<GatewayEnv>;
