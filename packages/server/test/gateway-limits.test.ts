/**
 * The gateway's limits and guards: one run per chat under concurrency, the per-caller cap on runs
 * in progress, the failed-authentication limit, the `Host` allow-list (DNS rebinding) on HTTP and
 * on the WebSocket upgrade. Agents are gated (held mid-run until the test opens them), so "in
 * progress" is a state the test controls, not a timing.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, test } from 'node:test';

import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, Gate, gatedAgent, quietLogger, testConfig, userMessage } from './gateway-support.ts';

/** A raw HTTP request with a chosen Host header (fetch will not set one): status, headers, body. */
function rawRequest(
  url: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    // No `host` given: the request goes without one.
    const req = request({ host: u.hostname, port: u.port, path, method, headers, setHost: 'host' in headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => {
        body += s;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A WebSocket upgrade with a chosen Host: the HTTP status it is refused with (101 when accepted). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      host: u.hostname,
      port: u.port,
      path: '/ws',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

async function withServer<T>(
  file: Record<string, unknown>,
  agents: NonNullable<Parameters<typeof startServer>[0]>['agents'],
  fn: (s: RunningServer) => Promise<T>,
): Promise<T> {
  const server = await startServer({ port: 0, config: testConfig(file), agents, runOptions: { logger: quietLogger() } });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

describe('one run per chat', () => {
  test('10 simultaneous POSTs with one chat id: never two runs at once, exactly one runs to the end, losers get 409 run_in_progress', async () => {
    const gate = new Gate();
    const { spec } = gatedAgent('gated', gate);
    await withServer({}, [spec], async (server) => {
      const chatId = crypto.randomUUID();
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api(server.url, '/api/chat?agent=gated', {
            json: { id: chatId, messages: [userMessage(`message ${i}`)] },
            headers: { 'x-switchboard-on-disconnect': 'continue' },
          }),
        ),
      );
      for (const r of responses) assert.ok(r.status === 200 || r.status === 409, `status ${r.status}`);
      for (const r of responses.filter((r) => r.status === 409)) {
        const body = (await r.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'run_in_progress');
        assert.match(body.error.message, /has a run in progress/);
      }
      // Every request has been answered: whatever superseded whatever, one run is running now.
      const store = server.core.store;
      assert.equal((await store.listRuns(chatId)).filter((r) => r.status === 'running').length, 1);
      gate.open();
      await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.text()));
      const runs = await store.listRuns(chatId);
      assert.equal(runs.filter((r) => r.status === 'complete').length, 1, JSON.stringify(runs.map((r) => r.status)));
      assert.ok(runs.every((r) => r.status === 'complete' || r.status === 'aborted'));
    });
  });
});

describe('per-caller cap', () => {
  test('a caller over runsPerCaller gets 429 with Retry-After; another caller is not affected; a finished run frees a slot', async () => {
    const gate = new Gate();
    const { spec } = gatedAgent('gated', gate);
    const tokens = [
      { token: 'token-a', name: 'alice' },
      { token: 'token-b', name: 'bob' },
    ];
    await withServer({ tokens, limits: { runsPerCaller: 2 } }, [spec], async (server) => {
      const post = (token: string) =>
        api(server.url, '/api/chat?agent=gated', {
          token,
          json: { id: crypto.randomUUID(), messages: [userMessage('hi')] },
          headers: { 'x-switchboard-on-disconnect': 'continue' },
        });
      const first = [await post('token-a'), await post('token-a')];
      for (const r of first) assert.equal(r.status, 200);
      const over = await post('token-a');
      assert.equal(over.status, 429);
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
      assert.equal(((await over.json()) as { error: { code: string } }).error.code, 'too_many_runs');
      const other = await post('token-b');
      assert.equal(other.status, 200);
      gate.open();
      await Promise.all([...first, other].map((r) => r.text()));
      // The runs are stored; their slots are released once the pump is done.
      await Promise.all([...first, other].map((r) => server.core.runs.get(r.headers.get('x-switchboard-run-id') ?? '')?.done));
      const again = await post('token-a');
      assert.equal(again.status, 200);
      await again.text();
    });
  });
});

describe('failed authentication', () => {
  test('after authFailuresPerMinute failures an address gets 429 with Retry-After, on HTTP and on the WebSocket upgrade; a good token still works', async () => {
    await withServer({ tokens: [{ token: 'good-token', name: 'alice' }], limits: { authFailuresPerMinute: 3 } }, [], async (server) => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await api(server.url, '/api/chats', { token: `wrong-${i}` })).status);
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      const limited = await api(server.url, '/api/chats', { token: 'wrong-again' });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal(await upgradeStatus(server.url, { host: new URL(server.url).host, authorization: 'Bearer wrong' }), 429);
      assert.equal((await api(server.url, '/api/chats', { token: 'good-token' })).status, 200);
    });
  });
});

describe('Host allow-list (authentication off)', () => {
  test('default: the bound host, localhost names and loopback addresses pass; any other Host gets 403 on HTTP and on the WebSocket upgrade', async () => {
    await withServer({}, [], async (server) => {
      const port = new URL(server.url).port;
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `app.localhost:${port}`, `[::1]:${port}`, 'localhost'])
        assert.equal((await rawRequest(server.url, '/api/chats', { host })).status, 200, host);
      const evil = await rawRequest(server.url, '/api/chats', { host: `evil.example:${port}`, origin: `http://evil.example:${port}` });
      assert.equal(evil.status, 403);
      assert.match(evil.body, /allowedHosts/);
      assert.equal((await rawRequest(server.url, '/', { host: 'evil.example' })).status, 403);
      assert.equal(await upgradeStatus(server.url, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` }), 403);
      assert.equal(await upgradeStatus(server.url, { host: `127.0.0.1:${port}` }), 101);
      // Health checks come from load balancers with whatever Host.
      assert.equal((await rawRequest(server.url, '/healthz', { host: 'internal.lb' })).status, 200);
    });
  });

  test('a Host the allow-list does not name, or none, gets a JSON error; a malformed request line too', async () => {
    await withServer({}, [], async (server) => {
      const port = new URL(server.url).port;
      // Host names are case-insensitive: `LOCALHOST` is localhost.
      assert.equal((await rawRequest(server.url, '/api/chats', { host: `LOCALHOST:${port}` })).status, 200);
      // Others are refused with the JSON error: 400 without a Host; 403 for a host the allow-list does
      // not name (numeric forms of loopback are not `localhost` or `127.0.0.1`).
      for (const [headers, status] of [
        [{ host: '0x7f000001' }, 403],
        [{ host: '127.1' }, 403],
        [{}, 400],
      ] as [Record<string, string>, number][]) {
        const r = await rawRequest(server.url, '/api/chats', headers);
        assert.equal(r.status, status, JSON.stringify(headers));
        assert.match(String(r.headers['content-type']), /application\/json/);
        assert.ok((JSON.parse(r.body) as { error: { code: string } }).error.code, r.body);
      }
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.end('GET /api/chats HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n'),
        );
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (s: string) => {
          text += s;
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(raw, /^HTTP\/1\.1 400 /);
      assert.match(raw, /content-type: application\/json/);
      assert.equal((JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { error: { code: string } }).error.code, 'bad_request');
    });
  });

  test('configured: only the listed hosts; "*" turns the check off; with tokens it is not applied', async () => {
    await withServer({ allowedHosts: ['chat.example.com'] }, [], async (server) => {
      assert.equal((await rawRequest(server.url, '/api/chats', { host: 'chat.example.com' })).status, 200);
      assert.equal((await rawRequest(server.url, '/api/chats', { host: 'localhost' })).status, 403);
    });
    await withServer({ allowedHosts: ['*'] }, [], async (server) => {
      assert.equal((await rawRequest(server.url, '/api/chats', { host: 'anything.example' })).status, 200);
    });
    await withServer({ tokens: [{ token: 'good-token', name: 'alice' }] }, [], async (server) => {
      const r = await rawRequest(server.url, '/api/chats', { host: 'anything.example', authorization: 'Bearer good-token' });
      assert.equal(r.status, 200);
    });
  });
});
