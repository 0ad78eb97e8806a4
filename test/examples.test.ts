/**
 * The embedding examples in examples/ run as a user would run them, and answer what `useChat` reads
 * (each body goes through the official `ai` package's chunk schema and `readUIMessageStream`):
 * - Next.js: the route handler is type-checked against the shape Next.js requires of one (this file
 *   is part of `npm run typecheck`) and called with a `Request`; no Next server is needed.
 * - Express: the gateway mounted under /switchboard, on a real listening server.
 * - Hono: the gateway's routes under a base path of a host app, in process and as
 *   `node examples/hono/server.ts` on @hono/node-server (the major `npm install` picks today), which
 *   like the Express example listens on 127.0.0.1 unless HOST says otherwise.
 * - fetch: the bare web-standard handler against a loopback "Anthropic" replaying a recorded stream.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';

import * as expressExample from '../examples/express/server.ts';
import fetchExample, { createChatHandler } from '../examples/fetch/handler.ts';
import * as honoExample from '../examples/hono/server.ts';
import * as nextRoute from '../examples/nextjs/app/api/chat/route.ts';
import { assembleUIMessage, summarizeMessage } from './support/ai-sdk-oracle.ts';

const chatBody = (text: string) => JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] });
const jsonPost = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** Asserts an AI SDK UI message stream response and returns the assembled message's summary. */
async function aiSdkAnswer(res: Response) {
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  return summarizeMessage(await assembleUIMessage(await res.text()));
}

// What Next.js accepts as an App Router route module (next/dist/build/webpack/plugins/next-types-plugin
// checks the same): handlers take a Request (and a context) and return a Response; `runtime` and
// `dynamic` are among its literal values. A wrong export fails `npm run typecheck`.
type NextRouteContext = { params: Promise<Record<string, string | string[]>> };
interface NextRouteModule {
  POST?: (req: Request, context: NextRouteContext) => Response | Promise<Response>;
  runtime?: 'nodejs' | 'edge';
  dynamic?: 'auto' | 'force-dynamic' | 'error' | 'force-static';
}
const route: NextRouteModule = nextRoute;

describe('Next.js App Router route handler (examples/nextjs/app/api/chat/route.ts)', () => {
  test('POST with a Request answers the demo agent as an AI SDK UI message stream', async () => {
    assert.equal(route.runtime, 'nodejs');
    const res = await nextRoute.POST(new Request('http://localhost:3000/api/chat', jsonPost(chatBody('tool'))));
    const message = await aiSdkAnswer(res);
    assert.ok(message.tools.length > 0, JSON.stringify(message));
  });
});

describe('Express (examples/express/server.ts)', () => {
  const server = expressExample.app.listen(0, '127.0.0.1');
  after(async () => {
    await new Promise((done) => server.close(done));
    await expressExample.gateway.close();
  });

  test('the gateway under /switchboard, the app’s own routes beside it', async () => {
    await new Promise((done) => (server.listening ? done(undefined) : server.once('listening', done)));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    assert.match(await (await fetch(`${base}/`)).text(), /My app/);
    assert.equal((await (await fetch(`${base}/switchboard/healthz`)).json()).ok, true);
    const message = await aiSdkAnswer(await fetch(`${base}/switchboard/api/chat`, jsonPost(chatBody('text hello from express'))));
    assert.match(message.text, /hello from express/);
  });
});

/** Runs an example server as its users do (`node <file>`, PORT=0); its base URL and a stop. */
async function runExample(file: string): Promise<{ base: string; host: string; stop: () => void }> {
  const { HOST: _host, ...env } = process.env;
  const child = spawn(process.execPath, [new URL(file, import.meta.url).pathname], {
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const { host, port } = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`${file} exited ${code}: ${out}`)));
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /address: '([^']+)'.*port: (\d+)/s.exec(out);
      if (m) resolve({ host: m[1] as string, port: Number(m[2]) });
    });
  });
  return { base: `http://127.0.0.1:${port}`, host, stop: () => child.kill('SIGINT') };
}

describe('Hono (examples/hono/server.ts)', () => {
  after(() => honoExample.gateway.close());

  test('run as `node examples/hono/server.ts`: on 127.0.0.1, the stream reaches the client whole', async () => {
    const server = await runExample('../examples/hono/server.ts');
    try {
      assert.equal(server.host, '127.0.0.1');
      const message = await aiSdkAnswer(
        await fetch(`${server.base}/switchboard/api/chat`, jsonPost(chatBody('text hello from node-server'))),
      );
      assert.match(message.text, /hello from node-server/);
    } finally {
      server.stop();
    }
  });

  test('the gateway’s routes under /switchboard of a host app', async () => {
    const { app } = honoExample;
    assert.match(await (await app.request('/')).text(), /My app/);
    assert.equal((await (await app.request('/switchboard/healthz')).json()).ok, true);
    assert.equal((await app.request('/switchboard/openapi.json')).status, 200);
    const message = await aiSdkAnswer(await app.request('/switchboard/api/chat', jsonPost(chatBody('text hello from hono'))));
    assert.match(message.text, /hello from hono/);
    // The chat was recorded: its history is there under the same base path.
    const chats = (await (await app.request('/switchboard/api/chats')).json()) as { chats: unknown[] };
    assert.ok(chats.chats.length > 0);
  });
});

describe('bare fetch handler (examples/fetch/handler.ts)', () => {
  const capture = readFileSync(new URL('./fixtures/anthropic/thinking-text-tool-use.sse', import.meta.url));
  const requests: { path: string; key: string | undefined; body: { stream: boolean; messages: unknown[] } }[] = [];
  const anthropic = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (t) => (body += t));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', key: req.headers['x-api-key'] as string | undefined, body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(capture);
    });
  }).listen(0, '127.0.0.1');
  after(() => new Promise((done) => anthropic.close(done)));

  test('POST → the model’s stream as an AI SDK UI message stream, with web standards only', async () => {
    await new Promise((done) => (anthropic.listening ? done(undefined) : anthropic.once('listening', done)));
    const handler = createChatHandler({ apiKey: 'test-key', baseUrl: `http://127.0.0.1:${(anthropic.address() as AddressInfo).port}` });
    const message = await aiSdkAnswer(await handler(new Request('http://edge.example/api/chat', jsonPost(chatBody('weather?')))));
    assert.deepEqual(requests[0], {
      path: '/v1/messages',
      key: 'test-key',
      body: { ...requests[0].body, stream: true, messages: [{ role: 'user', content: 'weather?' }] },
    });
    assert.ok(message.reasoning.length > 0 && message.tools.length > 0 && message.text.length > 0, JSON.stringify(message));
    assert.equal((await handler(new Request('http://edge.example/api/chat'))).status, 405);
  });

  test('the module-worker export says what is missing without a key', {
    skip: process.env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY is set: this would call the real API' : false,
  }, async () => {
    const res = await fetchExample.fetch(new Request('http://edge.example/', jsonPost(chatBody('hi'))), {});
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: 'set ANTHROPIC_API_KEY' });
  });
});
