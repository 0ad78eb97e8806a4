/**
 * @switchboard/server — the gateway (HTTP, AG-UI, WebSocket, REST over the store), its agents and
 * runner, and the `switchboard` CLI.
 */
export type { AgentEvent, AgentFactory, AgentRequest } from './agents/agent.ts';
export { createDemoAgent, DEMO_DELAY_MS, demoAgent, demoScript } from './agents/demo.ts';
export type { AgentInfo, InProcessAgentSpec } from './server/agent-registry.ts';
export { AgentRegistry } from './server/agent-registry.ts';
export type { AppOptions, Gateway } from './server/app.ts';
export { createApp, createGateway } from './server/app.ts';
export type { Principal, TokenEntry } from './server/auth.ts';
export { Authenticator } from './server/auth.ts';
export type { Booted, BootOptions } from './server/boot.ts';
export { bootGateway, runGateway } from './server/boot.ts';
export { postChat, resumeChat } from './server/chat.ts';
export type { DisconnectPolicy, GatewayCore } from './server/context.ts';
export type { FanoutOptions } from './server/fanout.ts';
export { FanoutStore, openRedisFanout, RedisFanout, withFanout } from './server/fanout.ts';
export type { GatewayStore, StoreSettings } from './server/gateway-store.ts';
export { openGatewayStore } from './server/gateway-store.ts';
export { openApiDocument } from './server/openapi.ts';
export type { RateLimiter } from './server/rate-limit.ts';
export { memoryLimiter, redisLimiter } from './server/rate-limit.ts';
export type { LocalRun, StartRunInput } from './server/runs.ts';
export { RunManager, RunStartError } from './server/runs.ts';
export type { SessionPosition } from './server/session.ts';
export { followSession } from './server/session.ts';
export type { RunningServer, ServerOptions } from './server/start.ts';
export { startServer } from './server/start.ts';
export { attachWebSocket, WS_PATH } from './server/ws.ts';
