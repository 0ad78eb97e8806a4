/**
 * Hono: the gateway's routes mounted under a base path of your own Hono app with `app.route`. The
 * same app runs on Node (here, through `@hono/node-server`), Bun or Deno.
 *
 * The web UI expects to be served at the root of its origin; under a base path you get the API
 * (`/switchboard/api/chat`, `/switchboard/api/agui`, `/switchboard/api/chats/…`, `/switchboard/healthz`).
 *
 * Run: node examples/hono/server.ts (PORT, default 3000; HOST, default 127.0.0.1).
 */
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createGateway } from '@switchboard/server';
import { Hono } from 'hono';

export const gateway = createGateway();

export const app = new Hono();
app.get('/', (c) => c.text('My app. Switchboard is at /switchboard/api/chat.\n'));
app.route('/switchboard', gateway.app);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Loopback unless told otherwise (HOST=0.0.0.0 to listen on every interface).
  const hostname = process.env.HOST || '127.0.0.1';
  const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname }, (info) => console.log('listening on', info));
  process.once('SIGINT', () => server.close(() => void gateway.close()));
}
