/**
 * On Node's HTTP server the gateway reads request bodies and disconnects from Node's own objects
 * (request-io.ts): no web `Request` is built for a chat, its stream or its resume, and the body reads
 * as the web path reads it (cap, BOM, malformed bytes, a client that leaves mid-body).
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';

import { readBody, readIncomingBody } from '../src/server/body.ts';

// Counts every web Request built in this process. Installed before @hono/node-server loads (it
// captures the global Request class then), so the Requests it builds behind `c.req.raw` count too.
let built = 0;
const WebRequest = globalThis.Request;
globalThis.Request = class CountedRequest extends WebRequest {
  constructor(...args: ConstructorParameters<typeof WebRequest>) {
    super(...args);
    built++;
  }
};
const { startServer } = await import('../src/server/start.ts');

let server: Awaited<ReturnType<typeof startServer>>;
before(async () => {
  server = await startServer({ port: 0, delayMs: 0, maxBodyBytes: 4096 });
});
after(() => server.close());

interface Answer {
  status: number;
  runId: string | undefined;
  text: string;
}

/** A request on a plain Node connection (fetch would build Requests of its own in this process). */
function send(
  method: 'GET' | 'POST',
  path: string,
  body: string | Uint8Array[] = [],
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { port } = server;
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/json', ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const runId = res.headers['x-switchboard-run-id'];
      res.on('end', () => resolve({ status: res.statusCode ?? 0, runId: typeof runId === 'string' ? runId : undefined, text }));
    });
    for (const piece of typeof body === 'string' ? [body] : body) req.write(piece);
    req.end();
  });
}

const post = (path: string, body: string | Uint8Array[], headers: Record<string, string> = {}) => send('POST', path, body, headers);

const chatBody = (id: string, text: string) =>
  JSON.stringify({ id, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] });

test('a chat, an AG-UI run and a resume build no web Request', async () => {
  built = 0;
  const first = await post('/api/chat', chatBody('io-1', 'hello from node'));
  assert.equal(first.status, 200);
  assert.match(first.text, /node”/, 'the demo echoes the prompt');
  assert.match(first.text, /data: \[DONE\]/);

  // The body in three pieces: read whole.
  const body = chatBody('io-2', 'in pieces');
  const pieces = [body.slice(0, 10), body.slice(10, 40), body.slice(40)].map((s) => new TextEncoder().encode(s));
  const second = await post('/api/chat', pieces);
  assert.equal(second.status, 200);
  assert.match(second.text, /pieces”/);

  const agui = await post(
    '/api/agui',
    JSON.stringify({
      threadId: 'io-3',
      runId: 'io-3-run',
      messages: [{ id: 'u1', role: 'user', content: 'hi ag-ui' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  );
  assert.equal(agui.status, 200);
  assert.match(agui.text, /RUN_FINISHED/);

  const resumed = await send('GET', `/api/runs/${second.runId}/stream`);
  assert.equal(resumed.status, 200);
  assert.equal(resumed.text, second.text, 'the finished run replayed whole');
  assert.equal(built, 0, 'no web Request was built for the requests above');
});

test('a body over the limit gets a 413 on the Node path too', async () => {
  const big = chatBody('io-big', 'x'.repeat(5000));
  // Without content-length (chunked): the cap is met while reading.
  const res = await post('/api/chat', [new TextEncoder().encode(big)], { 'transfer-encoding': 'chunked' });
  assert.equal(res.status, 413);
  assert.match(res.text, /too large/);
  assert.equal(await server.core.store.getChat('io-big'), undefined);
});

/** Runs `read` on the body of one request to a bare Node server, sending `pieces`, then ending or leaving. */
async function readOnNode(pieces: Uint8Array[], end: boolean, read: (incoming: IncomingMessage) => Promise<unknown>): Promise<unknown> {
  const bare = createServer();
  await new Promise<void>((listening) => bare.listen(0, '127.0.0.1', listening));
  const req = httpRequest({
    host: '127.0.0.1',
    port: (bare.address() as AddressInfo).port,
    method: 'POST',
    headers: { 'transfer-encoding': 'chunked' },
  });
  const outcome = new Promise<unknown>((resolve) => {
    bare.once('request', (incoming: IncomingMessage, outgoing) => {
      void read(incoming)
        .then(
          (value) => ({ value }),
          (error: Error) => ({ error: error.message }),
        )
        .then((result) => {
          resolve(result);
          outgoing.end();
        });
      // The client leaves once the server is reading: the body never ends.
      if (!end) req.destroy();
    });
  });
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  for (const p of pieces) req.write(p);
  if (end) req.end();
  const result = await outcome;
  bare.closeAllConnections();
  await new Promise((closed) => bare.close(closed));
  return result;
}

test('the Node reader returns what the web reader returns: BOM dropped, malformed bytes replaced, split characters joined', async () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0xe6, 0x97, 0xa5, 0xff, 0x7d]);
  const split = [bytes.slice(0, 2), bytes.slice(2, 5), bytes.slice(5)];
  const web = await readBody(new Request('http://x/', { method: 'POST', body: bytes }), 100);
  const node = await readOnNode(split, true, (incoming) => readIncomingBody(incoming, 100));
  assert.deepEqual(node, { value: web });
  assert.deepEqual(web, { ok: true, text: '{日\ufffd}' });
});

test('the Node reader stops at the cap and rejects a body cut by the client', async () => {
  const capped = await readOnNode([new Uint8Array(64), new Uint8Array(64)], true, (incoming) => readIncomingBody(incoming, 100));
  assert.deepEqual(capped, { value: { ok: false, reason: 'too-large' } });
  const cut = (await readOnNode([new Uint8Array(8)], false, (incoming) => readIncomingBody(incoming, 100))) as { error?: string };
  assert.ok(cut.error, `rejected: ${JSON.stringify(cut)}`);
});
