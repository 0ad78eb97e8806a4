/**
 * @switchboard/server — the HTTP server, its agents and the `switchboard` CLI.
 */
export type { AgentEvent, AgentFactory, AgentRequest } from './agents/agent.ts';
export { createDemoAgent, DEMO_DELAY_MS, demoAgent, demoScript } from './agents/demo.ts';
export type { AppOptions } from './server/app.ts';
export { createApp } from './server/app.ts';
export { handleChat } from './server/chat.ts';
export { startServer } from './server/start.ts';
