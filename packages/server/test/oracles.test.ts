/**
 * As two users: Bob probes Alice's run id through every route that takes a client run id, and gets
 * the answer a never-seen id gets (status and body, with the fresh random ids and times masked).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, quietLogger, testConfig, WsClient } from './gateway-support.ts';

const config = testConfig({
  tokens: [
    { token: 'token-alice', name: 'alice' },
    { token: 'token-bob', name: 'bob' },
  ],
});

/** The body with the probed id, random UUIDs / message ids and times masked. */
function masked(text: string, probe: string): string {
  return text
    .replaceAll(probe, '<probe>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/msg_[0-9a-f]{32}/g, '<msg>')
    .replace(/\b\d{13}\b/g, '<ts>')
    .replace(/t-bob-\d/g, '<thread>')
    .replace(/"(durationMs|duration_ms)":\d+/g, '"$1":0')
    .replace(/"(createdAt|updatedAt|timestamp|ts)":\d+/g, '"$1":0');
}

async function answer(s: RunningServer, path: string, probe: string, init: Parameters<typeof api>[2] = {}) {
  const res = await api(s.url, path, { token: 'token-bob', ...init });
  return { status: res.status, body: masked(await res.text(), probe) };
}

describe('existence oracles', () => {
  let s: RunningServer;
  let aliceRun: string;
  before(async () => {
    s = await startServer({ port: 0, config, runOptions: { logger: quietLogger() }, onError: () => {} });
    aliceRun = `run-${crypto.randomUUID()}`;
    const res = await api(s.url, '/api/agui', {
      token: 'token-alice',
      json: { threadId: 't-alice', runId: aliceRun, messages: [{ id: 'alice-q', role: 'user', content: 'hello' }] },
    });
    assert.equal(res.status, 200);
    await res.text();
  });
  after(() => s.close());

  test("Bob's answers for Alice's run id are a never-seen id's", async () => {
    const never = `run-${crypto.randomUUID()}`;
    for (const path of ['/api/runs/ID', '/api/runs/ID/events', '/api/runs/ID/stream', '/api/runs/ID/stream?protocol=ag-ui']) {
      const a = await answer(s, path.replace('ID', aliceRun), aliceRun);
      const b = await answer(s, path.replace('ID', never), never);
      assert.equal(a.status, 404, path);
      assert.deepEqual(a, b, path);
    }
    const abort = (id: string) => answer(s, `/api/runs/${id}/abort`, id, { method: 'POST' });
    assert.deepEqual(await abort(aliceRun), await abort(never));
    // The WebSocket's abort by run id.
    const ws = new WsClient(`${s.url.replace(/^http/, 'ws')}/ws?access_token=token-bob`);
    await ws.opened;
    const wsAbort = async (runId: string) => {
      ws.send({ type: 'abort', runId });
      return masked(JSON.stringify((await ws.until((e) => e.event === 'error')).at(-1)), runId);
    };
    assert.equal(await wsAbort(aliceRun), await wsAbort(never));
    ws.close();
  });

  test("POST /api/agui with Alice's run id starts Bob a run as a never-seen id does", async () => {
    let n = 0;
    const post = async (runId: string, threadId: string) =>
      answer(s, '/api/agui', runId, {
        json: { threadId, runId, messages: [{ id: `q-${n++}`, role: 'user', content: 'probe' }] },
      });
    // In Bob's own thread: a new run either way.
    const taken = await post(aliceRun, 't-bob-1');
    const fresh = await post(`run-${crypto.randomUUID()}`, 't-bob-2');
    assert.equal(taken.status, 200);
    // The one difference: the run's id is the gateway's, not the one asked for (docs/gateway.md, Security).
    assert.deepEqual(taken, { ...fresh, body: fresh.body.replaceAll('<probe>', '<uuid>') });
    // In Alice's thread: 404 either way (the thread is not Bob's).
    const inAlice = await post(aliceRun, 't-alice');
    const inAliceNever = await post(`run-${crypto.randomUUID()}`, 't-alice');
    assert.equal(inAlice.status, 404);
    assert.deepEqual(inAlice, inAliceNever);
    // Alice's run is untouched.
    const run = await api(s.url, `/api/runs/${aliceRun}`, { token: 'token-alice' });
    assert.equal(((await run.json()) as { chatId: string }).chatId, 't-alice');
  });
});
