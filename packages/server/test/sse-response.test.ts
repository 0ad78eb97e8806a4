/**
 * A run's SSE response (server/sse-response.ts): on Node's HTTP server written straight to Node's
 * response, the head in the same write as the first page; elsewhere the web Response. Same bytes
 * either way, the middleware's headers (CORS) on both.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createAdaptorServer } from '@hono/node-server';
import { openStore, type Store } from '@switchboard/store';
import type { AgentEvent } from '../src/agents/agent.ts';
import { createGateway, type Gateway } from '../src/server/app.ts';
import { HEAD_WAIT_MS } from '../src/server/sse-response.ts';
import { api, Gate, linesAgent, quietLogger, testConfig, userMessage } from './gateway-support.ts';

const ORIGIN = 'https://app.example.com';

describe('the SSE response on Node and elsewhere', () => {
  let store: Store;
  let gateway: Gateway;
  let server: Server;
  let url: string;
  /** What the server's sockets wrote to the kernel, write by write, in order. */
  const writes: string[] = [];
  let gate = new Gate();

  before(async () => {
    store = await openStore('memory:');
    gateway = createGateway({
      store,
      config: testConfig({ cors: { origins: [ORIGIN] } }),
      runOptions: { logger: quietLogger() },
      onError: () => {},
      agents: [
        linesAgent('held', async function* (): AsyncGenerator<AgentEvent> {
          await gate.opened;
          yield { type: 'text', data: { content: 'after the gate' } };
          yield { type: 'done', data: {} };
        }),
      ],
    });
    await gateway.ready();
    server = createAdaptorServer({ fetch: gateway.app.fetch, overrideGlobalObjects: false }) as Server;
    // Each call of the socket's `_write` / `_writev` is one write to the kernel (the writes made
    // while the socket is corked arrive together in one `_writev`).
    server.on('connection', (socket: Socket) => {
      const seen = writes;
      const text = (chunk: unknown) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const raw = socket as unknown as {
        _write: (chunk: unknown, encoding: string, cb: () => void) => void;
        _writev: (chunks: { chunk: unknown }[], cb: () => void) => void;
      };
      const one = raw._write;
      const many = raw._writev;
      raw._write = function (this: unknown, chunk, encoding, cb) {
        seen.push(text(chunk));
        return one.call(this, chunk, encoding, cb);
      };
      raw._writev = function (this: unknown, chunks, cb) {
        seen.push(chunks.map((c) => text(c.chunk)).join(''));
        return many.call(this, chunks, cb);
      };
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
    await store.close();
  });

  const chat = (agent: string, headers: Record<string, string> = {}) =>
    api(url, `/api/chat?agent=${agent}`, { json: { messages: [userMessage('text hello there')] }, headers });

  test('the head goes out in the same write as the first page of the stream', async () => {
    const from = writes.length;
    const res = await chat('demo');
    const body = await res.text();
    assert.match(body, /data: \{"type":"start"/);
    const first = writes.slice(from).find((w) => w.startsWith('HTTP/1.1')) ?? '';
    assert.match(first, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(first, /\r\n\r\n[\s\S]*data: \{"type":"start"/, 'the head and the first frame in one write');
  });

  test(`a first page that takes longer than ${HEAD_WAIT_MS} ms: the head goes out alone, the stream follows`, async () => {
    gate = new Gate();
    // The agent waits at its gate: the response's head arrives anyway (the server's timer).
    const res = await chat('held');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    gate.open();
    assert.match(await res.text(), /after the gate[\s\S]*data: \[DONE\]/);
  });

  test("the middleware's headers (CORS) and the run's are on the response", async () => {
    const res = await chat('demo', { origin: ORIGIN });
    await res.text();
    assert.equal(res.headers.get('access-control-allow-origin'), ORIGIN);
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /x-switchboard-run-id/);
    assert.match(res.headers.get('vary') ?? '', /Origin/);
    assert.ok(res.headers.get('x-switchboard-run-id'));
    assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    assert.equal(res.headers.has('x-hono-already-sent'), false);
    // A finished run's stream: its first page is read at once, its head still waits for the middleware.
    const runId = res.headers.get('x-switchboard-run-id') ?? '';
    const replay = await fetch(`${url}/api/runs/${runId}/stream`, { headers: { origin: ORIGIN } });
    assert.match(await replay.text(), /data: \[DONE\]/);
    assert.equal(replay.headers.get('access-control-allow-origin'), ORIGIN);
    assert.match(replay.headers.get('vary') ?? '', /Origin/);
  });

  test("a new run's stream never reads the store: its tail waits for the first commit and gets what is committed", async () => {
    const target = store as unknown as { dbReadEvents: (...args: unknown[]) => Promise<unknown[]> };
    const read = target.dbReadEvents;
    let reads = 0;
    target.dbReadEvents = function (this: unknown, ...args: unknown[]) {
      reads++;
      return read.apply(this, args);
    };
    try {
      const responses = await Promise.all(Array.from({ length: 5 }, () => chat('demo')));
      for (const res of responses) assert.match(await res.text(), /data: \[DONE\]/);
    } finally {
      target.dbReadEvents = read;
    }
    assert.equal(reads, 0);
  });

  test('the same bytes as the web Response (app.request), whole and resumed', async () => {
    const res = await chat('demo');
    await res.text();
    const runId = decodeURIComponent(res.headers.get('x-switchboard-run-id') ?? '');
    for (const protocol of ['ai-sdk', 'ag-ui', 'canonical']) {
      const path = `/api/runs/${encodeURIComponent(runId)}/stream?protocol=${protocol}`;
      const node = await (await fetch(`${url}${path}`)).text();
      const web = await (await gateway.app.request(path, { headers: { host: 'localhost' } })).text();
      assert.equal(node, web, protocol);
      const resumedNode = await (await fetch(`${url}${path}`, { headers: { 'last-event-id': '3' } })).text();
      const resumedWeb = await (await gateway.app.request(path, { headers: { host: 'localhost', 'last-event-id': '3' } })).text();
      assert.equal(resumedNode, resumedWeb, `${protocol} after 3`);
      assert.ok(node.endsWith(resumedNode), `${protocol}: the resumed stream is the rest of the whole one`);
    }
  });
});
