/**
 * The HTTP application (Hono): the chat endpoint, a health check and the demo page. Every error
 * answers JSON; nothing a client sends can take the server down.
 */
import { Hono } from 'hono';

import type { AgentFactory } from '../agents/agent.ts';
import { createDemoAgent } from '../agents/demo.ts';
import { handleChat } from './chat.ts';
import { errorResponse } from './errors.ts';
import { mountWebApp } from './static.ts';

/** Options of `createApp`. */
export interface AppOptions {
  /** The agent that answers chats. Default: the built-in demo agent. */
  agent?: AgentFactory;
  /** Pause between the demo agent's events in ms (default 40; 0 in tests). Ignored with `agent`. */
  delayMs?: number;
  /** providerMetadata key of the reasoning variant in the AI SDK stream (default `switchboard`). */
  namespace?: string;
  /** Largest accepted chat request body in bytes (default 8 MiB). */
  maxBodyBytes?: number;
  /** Told about unexpected errors (default `console.error`). */
  onError?: (err: unknown) => void;
}

/** Creates the Switchboard HTTP app: `POST /api/chat`, `GET /healthz`, `GET /`. */
export function createApp(options: AppOptions = {}): Hono {
  const onError = options.onError ?? ((err: unknown) => console.error(err));
  const agent = options.agent ?? createDemoAgent(options.delayMs === undefined ? {} : { delayMs: options.delayMs });
  const app = new Hono();

  // The web UI (apps/web/dist) at / and /c/*, or the minimal page when it is not built.
  mountWebApp(app);
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.post('/api/chat', (c) =>
    handleChat(c.req.raw, {
      agent,
      onError,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    }),
  );
  app.all('/api/chat', (c) =>
    errorResponse(405, `Method ${c.req.method} not allowed on /api/chat: use POST`, undefined, { allow: 'POST' }),
  );

  app.notFound((c) => errorResponse(404, `Not found: ${c.req.method} ${c.req.path}`));
  app.onError((err) => {
    onError(err);
    return errorResponse(500, 'Internal server error');
  });
  return app;
}
