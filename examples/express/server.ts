/**
 * Express: the gateway as Node request/response middleware under `/switchboard`, next to the app's
 * own routes. `@hono/node-server` turns the gateway's web-standard `fetch` into a Node listener;
 * Express strips the mount path, so the gateway sees `/api/chat`, `/healthz`, … as it expects.
 *
 * Run: node examples/express/server.ts (PORT, default 3000; HOST, default 127.0.0.1), then
 *   curl -N localhost:3000/switchboard/api/chat -H 'content-type: application/json' \
 *     -d '{"messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"hi"}]}]}'
 */
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createGateway } from '@switchboard/server';
import express from 'express';

export const gateway = createGateway();

export const app = express();
app.get('/', (_req, res) => {
  res.type('text').send('My app. Switchboard is at /switchboard/api/chat.\n');
});
// Mount it before any body parser: the gateway reads the request body itself. Leave the
// process-wide Request/Response alone (this is someone else's program).
app.use('/switchboard', getRequestListener(gateway.app.fetch, { overrideGlobalObjects: false }));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Loopback unless told otherwise (HOST=0.0.0.0 to listen on every interface).
  const host = process.env.HOST || '127.0.0.1';
  const server = app.listen(Number(process.env.PORT ?? 3000), host, () => console.log('listening on', server.address()));
  process.once('SIGINT', () => server.close(() => void gateway.close()));
}
