/**
 * The gateway's small edges: HEAD on a live stream answers its head at once, the stream id
 * assistant-ui's resumable transport stores and resumes with, body limits on every
 * method that takes a body, a bound on one WebSocket's work, `/healthz` checking the store for real, and answers that tell one caller nothing about another caller's ids.
 * Agents are gated (held mid-run until the test opens them), so "live" is a state the test controls.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openSqliteStore } from '@switchboard/store';

import { type RunningServer, startServer } from '../src/server/start.ts';
import { MAX_IN_PROGRESS } from '../src/server/ws.ts';
import { api, BodyReader, Gate, gatedAgent, quietLogger, sseData, testConfig, userMessage, WsClient } from './gateway-support.ts';

async function withServer<T>(
  file: Record<string, unknown>,
  agents: NonNullable<Parameters<typeof startServer>[0]>['agents'],
  fn: (s: RunningServer) => Promise<T>,
  options: { maxBodyBytes?: number } = {},
): Promise<T> {
  const server = await startServer({ port: 0, config: testConfig(file), agents, runOptions: { logger: quietLogger() }, ...options });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

describe('HEAD on a live stream', () => {
  test('/api/runs/:id/stream and /api/chat/:id/stream answer their head while the run is still held mid-way', async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    await withServer({}, [spec], async (server) => {
      const chatId = crypto.randomUUID();
      const started = await api(server.url, '/api/chat?agent=gated', {
        json: { id: chatId, messages: [userMessage('hi')] },
        headers: { 'x-switchboard-on-disconnect': 'continue' },
      });
      const runId = started.headers.get('x-switchboard-run-id') as string;
      await waiting;
      // The agent waits at the gate: these answer before it is opened, or the test never ends.
      for (const path of [`/api/runs/${runId}/stream`, `/api/runs/${runId}/stream?protocol=ag-ui`, `/api/chat/${chatId}/stream`]) {
        const head = await api(server.url, path, { method: 'HEAD' });
        assert.equal(head.status, 200, path);
        assert.match(String(head.headers.get('content-type')), /text\/event-stream/, path);
        assert.equal(head.headers.get('x-switchboard-run-id'), runId, path);
        assert.equal(await head.text(), '', path);
      }
      assert.equal((await server.core.store.getRun(runId))?.status, 'running');
      gate.open();
      await started.text();
    });
  });
});

describe("assistant-ui's resumable stream id", () => {
  test('x-resumable-stream-id is the run id on every AI SDK stream; its resume route replays the run with the same start.messageId', async () => {
    const origin = 'https://app.example';
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    await withServer({ cors: { origins: [origin] } }, [spec], async (server) => {
      const chatId = crypto.randomUUID();
      const started = await api(server.url, '/api/chat?agent=gated', {
        json: { id: chatId, messages: [userMessage('hi')] },
        headers: { origin },
      });
      const runId = started.headers.get('x-switchboard-run-id') as string;
      assert.equal(started.headers.get('x-resumable-stream-id'), runId);
      // A page on another origin reads it only when it is exposed.
      assert.match(started.headers.get('access-control-expose-headers') ?? '', /(^|,\s*)x-resumable-stream-id(,|$)/);
      const first = new BodyReader(started);
      await waiting;
      await first.until((t) => t.includes('the first half'));
      await first.cancel(); // the page reloads

      // What the transport's `resumeApi` names: the run's stream, from its start, while it is still held.
      const resumed = await api(server.url, `/api/runs/${runId}/stream?protocol=ai-sdk`);
      assert.equal(resumed.headers.get('x-resumable-stream-id'), runId);
      const chatStream = await api(server.url, `/api/chat/${chatId}/stream`);
      assert.equal(chatStream.headers.get('x-resumable-stream-id'), runId);
      gate.open();
      const [replayed] = await Promise.all([resumed.text().then(sseData), chatStream.text()]);
      // The replay keeps the message id, so AI SDK 7's resume writes the message instead of adding a second.
      const start = replayed[0] as { type: string; messageId: string };
      assert.equal(start.type, 'start');
      assert.equal(start.messageId, (await server.core.store.getRun(runId))?.messageId);
      assert.equal((sseData(first.text)[0] as { messageId: string }).messageId, start.messageId);
      // Its `finish` is what clears the stored id (the transport's finish detector).
      assert.equal((replayed.at(-2) as { type: string }).type, 'finish');
      assert.equal(replayed.at(-1), '[DONE]');
    });
  });
});

describe('body limits', () => {
  test('PATCH /api/chats/:id over the limit is a JSON 413, as POST is', async () => {
    await withServer(
      {},
      [],
      async (server) => {
        const chatId = crypto.randomUUID();
        const first = await api(server.url, '/api/chat?agent=demo', { json: { id: chatId, messages: [userMessage('hi')] } });
        await first.text();
        const big = { title: 'x'.repeat(5000) };
        for (const [method, path] of [
          ['PATCH', `/api/chats/${chatId}`],
          ['POST', '/api/chat'],
          ['POST', '/api/agui'],
        ]) {
          const r = await api(server.url, path, { method, json: big });
          assert.equal(r.status, 413, `${method} ${path}`);
          assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'too_large');
        }
        const ok = await api(server.url, `/api/chats/${chatId}`, { method: 'PATCH', json: { title: 'short' } });
        assert.equal(ok.status, 200);
      },
      { maxBodyBytes: 4096 },
    );
  });
});

describe('/healthz', () => {
  /** A gateway on the SQLite file `path`: its health answer after `damage` was done to the file, then closed. */
  async function healthAfter(path: string, damage: () => void): Promise<{ before: number; after: number; message: string }> {
    const store = await openSqliteStore({ path });
    const server = await startServer({ port: 0, store, runOptions: { logger: quietLogger() } });
    try {
      const before = (await api(server.url, '/healthz')).status;
      damage();
      const res = await api(server.url, '/healthz');
      const body = (await res.json()) as { error?: { message: string } };
      return { before, after: res.status, message: body.error?.message ?? '' };
    } finally {
      await server.close();
      await store.close().catch(() => {});
    }
  }

  test('503 with the reason once the SQLite file is deleted or overwritten; 200 again after a restart on a good file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-healthz-'));
    try {
      const path = join(dir, 'switchboard.db');
      const deleted = await healthAfter(path, () => {
        for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
      });
      assert.deepEqual([deleted.before, deleted.after], [200, 503]);
      assert.match(deleted.message, /was deleted/);

      const corrupt = await healthAfter(path, () => writeFileSync(path, Buffer.alloc(8192, 0x5a), { flag: 'r+' }));
      assert.deepEqual([corrupt.before, corrupt.after], [200, 503]);
      assert.match(corrupt.message, /corrupt/);

      unlinkSync(path);
      for (const f of [`${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
      const good = await healthAfter(path, () => {});
      assert.deepEqual([good.before, good.after], [200, 200]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('WebSocket work per socket', () => {
  test(`past ${MAX_IN_PROGRESS} messages in progress a socket gets "busy", and the store is not read for them`, async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    const server = await startServer({ port: 0, store, runOptions: { logger: quietLogger() } });
    const client = new WsClient(`${server.url.replace('http', 'ws')}/ws`);
    try {
      await client.opened;
      // Every subscribe's store read waits at the gate: all of them are in progress at once.
      const gate = new Gate();
      let reads = 0;
      const getChat = store.getChat.bind(store);
      store.getChat = async (id) => {
        reads++;
        await gate.opened;
        return getChat(id);
      };
      const total = MAX_IN_PROGRESS + 100;
      for (let i = 0; i < total; i++) client.send({ type: 'subscribe', sessionId: `s${i % 8}`, requestId: `r${i}` });
      const busy = await client.until((e) => e.event === 'error' && e.data?.requestId === `r${total - 1}`);
      assert.equal(busy.length, 100);
      assert.ok(busy.every((e) => e.event === 'error' && e.data?.code === 'busy'));
      assert.equal(reads, MAX_IN_PROGRESS);
      gate.open();
      const answered = await client.until((e) => e.event === 'subscribed' && e.data?.requestId === `r${MAX_IN_PROGRESS - 1}`);
      assert.equal(answered.filter((e) => e.event === 'subscribed').length, MAX_IN_PROGRESS);
      // The socket works on: once answered, new messages are handled.
      client.send({ type: 'ping', requestId: 'after' });
      await client.until((e) => e.event === 'pong');
    } finally {
      client.close();
      await server.close();
      await store.close();
    }
  });
});
