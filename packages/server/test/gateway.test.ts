/**
 * The gateway's HTTP and WebSocket surface on one instance with an in-memory store: routes and
 * their errors, the OpenAPI description against the routes, history in every protocol, resume byte
 * for byte, the disconnect policies, stop and abort, auth, rate limit, CORS, and the WebSocket
 * `agent:event` contract.
 * Agents that must be "mid-run" wait at a gate the test opens: no sleeps, no timing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Hono } from 'hono';

import { createGateway } from '../src/server/app.ts';
import { openApiDocument } from '../src/server/openapi.ts';
import { type RunningServer, type ServerOptions, startServer } from '../src/server/start.ts';
import { mountWebApp } from '../src/server/static.ts';
import {
  api,
  BodyReader,
  completeEvents,
  Gate,
  gatedAgent,
  isComplete,
  quietLogger,
  sseData,
  testConfig,
  userMessage,
  WsClient,
} from './gateway-support.ts';

async function server(options: ServerOptions = {}): Promise<RunningServer> {
  return startServer({ port: 0, config: testConfig(), runOptions: { logger: quietLogger() }, onError: () => {}, ...options });
}

const wsUrl = (s: RunningServer, query = '') => `${s.url.replace(/^http/, 'ws')}/ws${query}`;

async function chat(base: string, chatId: string, text: string, init: { agent?: string; token?: string } = {}) {
  const res = await api(base, `/api/chat${init.agent ? `?agent=${init.agent}` : ''}`, {
    json: { id: chatId, messages: [userMessage(text)], trigger: 'submit-message' },
    ...(init.token ? { token: init.token } : {}),
  });
  return { res, body: await res.text() };
}

describe('routes', () => {
  let s: RunningServer;
  before(async () => {
    s = await server();
  });
  after(() => s.close());

  test('errors are JSON with a message, the server stays up', async () => {
    const unknown = await api(s.url, '/api/nope');
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).error.message, /\/api\/nope/);

    const wrong = await api(s.url, '/api/chats', { method: 'POST' });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'GET');
    assert.equal((await wrong.json()).error.code, 'method_not_allowed');

    const malformed = await api(s.url, '/api/chat', { method: 'POST', body: '{"messages": [' });
    assert.equal(malformed.status, 400);
    assert.equal((await malformed.json()).error.issues[0].path, 'body');

    const noAgent = await api(s.url, '/api/chat?agent=ghost', { json: { messages: [userMessage('hi')] } });
    assert.equal(noAgent.status, 400);
    assert.match((await noAgent.json()).error.message, /unknown agent "ghost"/);

    const disabled = await api(s.url, '/api/chat?agent=anthropic', { json: { messages: [userMessage('hi')] } });
    assert.equal(disabled.status, 503);
    assert.match((await disabled.json()).error.message, /ANTHROPIC_API_KEY/);

    const badAgUi = await api(s.url, '/api/agui', { json: { threadId: 't', messages: 'no' } });
    assert.equal(badAgUi.status, 400);
    const badAgUiBody = await badAgUi.json();
    assert.deepEqual(
      badAgUiBody.error.issues.map((i: { path: string }) => i.path),
      ['runId', 'messages'],
    );

    const protocol = await api(s.url, '/api/chats/x/messages?protocol=html');
    assert.equal(protocol.status, 400);
    assert.match((await protocol.json()).error.message, /ai-sdk, ag-ui, timeline, dsagent, canonical/);

    const after = await api(s.url, '/api/runs/x/events?after=abc');
    assert.equal(after.status, 400);

    const lastId = await api(s.url, '/api/chat/x/stream', { headers: { 'last-event-id': 'yesterday' } });
    assert.equal(lastId.status, 204, 'an unknown chat has nothing to resume, before anything else (the AI SDK convention)');

    const ws = await api(s.url, '/ws');
    assert.equal(ws.status, 426);
    assert.equal((await ws.json()).error.code, 'upgrade_required');

    assert.deepEqual(await (await api(s.url, '/healthz')).json(), { ok: true });
  });

  test('GET /api/agents lists the agents that can run', async () => {
    const agents = (await (await api(s.url, '/api/agents')).json()) as { name: string; framework: string }[];
    const names = agents.map((a) => a.name);
    assert.ok(names.includes('demo') && names.includes('echo-py') && names.includes('replay'));
    assert.ok(!names.includes('anthropic'), 'agents without their key are left out');
    const all = (await (await api(s.url, '/api/agents?all=true')).json()) as { name: string; enabled: boolean; disabledReason?: string }[];
    const anthropic = all.find((a) => a.name === 'anthropic');
    assert.equal(anthropic?.enabled, false);
    assert.match(anthropic?.disabledReason ?? '', /ANTHROPIC_API_KEY/);
  });

  test('the OpenAPI description names exactly the routes of the app, and docs/openapi.json is it', async () => {
    const doc = (await (await api(s.url, '/openapi.json')).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    assert.equal(doc.openapi, '3.1.0');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths))
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);

    // The app's routes, minus the web UI's (static.ts) and the 405 catch-alls.
    const web = new Hono();
    mountWebApp(web);
    const staticPaths = new Set(web.routes.map((r) => r.path));
    const routed = new Set<string>();
    for (const r of createGateway({ config: testConfig() }).app.routes) {
      if (r.method === 'ALL' || staticPaths.has(r.path)) continue;
      routed.add(`${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    }
    assert.deepEqual([...routed].sort(), [...documented].sort());
    assert.deepEqual(JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')), openApiDocument());
  });
});

describe('a chat, its history and its runs', () => {
  let s: RunningServer;
  before(async () => {
    s = await server();
  });
  after(() => s.close());

  test('POST /api/chat records the run; every history protocol returns the conversation', async () => {
    const { res, body } = await chat(s.url, 'c-hist', 'text hello world');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    const runId = res.headers.get('x-switchboard-run-id') as string;
    assert.ok(runId);
    assert.equal(res.headers.get('x-switchboard-chat-id'), 'c-hist');
    assert.ok(body.endsWith('data: [DONE]\n\n'));
    for (const event of body.split('\n\n').filter((e) => e && !e.endsWith('[DONE]'))) assert.match(event, /^id: \d+(\.\d+)?\n/);

    const chats = (await (await api(s.url, '/api/chats')).json()).chats as { id: string; title?: string }[];
    assert.equal(chats.find((c) => c.id === 'c-hist')?.title, 'text hello world');

    const ui = (await (await api(s.url, '/api/chats/c-hist/messages?protocol=ai-sdk')).json()) as {
      role: string;
      parts: { type: string; text?: string }[];
    }[];
    assert.deepEqual(
      ui.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(
      ui[1].parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join(''),
      'hello world',
    );

    const snapshot = await (await api(s.url, '/api/chats/c-hist/messages?protocol=ag-ui')).json();
    assert.equal(snapshot.type, 'MESSAGES_SNAPSHOT');
    assert.equal(snapshot.messages[0].role, 'user');
    assert.ok(snapshot.messages.some((m: { role: string; content?: string }) => m.role === 'assistant' && m.content === 'hello world'));

    const timeline = (await (await api(s.url, '/api/chats/c-hist/messages?protocol=timeline')).json()) as { type: string }[];
    assert.deepEqual([timeline[0].type, timeline.at(-1)?.type], ['user_message', 'agent_message']);

    const canonical = (await (await api(s.url, '/api/chats/c-hist/messages?protocol=canonical')).json()) as {
      kind: string;
      runId?: string;
    }[];
    assert.ok(canonical.some((i) => i.kind === 'run' && i.runId === runId));

    const events = (await (await api(s.url, `/api/runs/${runId}/events`)).json()) as { seq: number; type: string }[];
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
    );
    assert.equal(events[0].type, 'run-start');
    assert.equal(events.at(-1)?.type, 'run-finish');
    const tail = (await (await api(s.url, `/api/runs/${runId}/events?after=${events.length - 3}`)).json()) as { seq: number }[];
    assert.deepEqual(
      tail.map((e) => e.seq),
      [events.length - 2, events.length - 1],
    );

    const run = await (await api(s.url, `/api/runs/${runId}`)).json();
    assert.equal(run.status, 'complete');
    const detail = await (await api(s.url, '/api/chats/c-hist')).json();
    assert.deepEqual(
      detail.runs.map((r: { id: string }) => r.id),
      [runId],
    );

    // Nothing in progress: the AI SDK reconnect gets 204.
    assert.equal((await api(s.url, '/api/chat/c-hist/stream')).status, 204);
    // A chat this server has never seen (useChat({ resume: true }) on a new chat): 204 as well, not 404.
    const unseen = await api(s.url, '/api/chat/never-seen-chat/stream');
    assert.equal(unseen.status, 204);
    assert.equal(await unseen.text(), '');

    // The finished run replays in any protocol, byte for byte the same as it streamed.
    const replayed = await (await api(s.url, `/api/runs/${runId}/stream?protocol=ai-sdk`)).text();
    assert.equal(replayed, body);
    const agui = sseData(await (await api(s.url, `/api/runs/${runId}/stream?protocol=ag-ui`)).text()) as { type: string }[];
    assert.deepEqual([agui[0].type, agui.at(-1)?.type], ['RUN_STARTED', 'RUN_FINISHED']);

    const deleted = await api(s.url, '/api/chats/c-hist', { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    // A deleted chat's history is empty, as a never-seen chat's is.
    const gone = await api(s.url, '/api/chats/c-hist/messages');
    assert.equal(gone.status, 200);
    assert.deepEqual(await gone.json(), []);
    assert.equal((await api(s.url, `/api/runs/${runId}/events`)).status, 404);
  });

  test("a never-seen chat's history is 200 and empty in every protocol", async () => {
    const empty: Record<string, unknown> = {
      'ai-sdk': [],
      'ag-ui': { type: 'MESSAGES_SNAPSHOT', messages: [], state: {} },
      timeline: [],
      canonical: [],
    };
    for (const [protocol, expected] of Object.entries(empty)) {
      const r = await api(s.url, `/api/chats/never-seen/messages?protocol=${protocol}`);
      assert.equal(r.status, 200, protocol);
      assert.deepEqual(await r.json(), expected, protocol);
    }
    // The chat is not created by asking.
    assert.equal((await api(s.url, '/api/chats/never-seen')).status, 404);
  });

  test('a second turn in the same chat is appended to the history', async () => {
    await chat(s.url, 'c-two', 'text one');
    await chat(s.url, 'c-two', 'text two');
    const ui = (await (await api(s.url, '/api/chats/c-two/messages')).json()) as { role: string }[];
    assert.deepEqual(
      ui.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
  });
});

describe('resume and disconnect', () => {
  test('GET /api/chat/:id/stream with Last-Event-ID continues a live run byte for byte', async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    const s = await server({ agents: [spec] });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: { id: 'c-resume', messages: [userMessage('go')] } });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      const first = new BodyReader(res);
      await waiting;
      await first.until((t) => t.includes('first half'));
      const { prefix, lastId } = completeEvents(first.text);
      assert.ok(lastId, 'an id on every event');
      await first.cancel();
      // Still running: the first connection going away did not stop it (the default, onDisconnect: continue).
      assert.equal((await (await api(s.url, `/api/runs/${runId}`)).json()).status, 'running');

      const resumed = await api(s.url, '/api/chat/c-resume/stream', { headers: { 'last-event-id': lastId as string } });
      assert.equal(resumed.status, 200);
      assert.equal(resumed.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
      const rest = new BodyReader(resumed);
      gate.open();
      await rest.all();

      const whole = await (await api(s.url, `/api/runs/${runId}/stream`)).text();
      assert.equal(prefix + rest.text, whole);
      assert.ok(whole.includes('the second ') && whole.endsWith('data: [DONE]\n\n'));

      // From every event of the finished run, too.
      const events = whole.split('\n\n').filter(Boolean);
      let sent = '';
      for (const event of events) {
        sent += `${event}\n\n`;
        const id = /^id: (\S+)/.exec(event)?.[1];
        if (!id) continue;
        const more = await (await api(s.url, `/api/runs/${runId}/stream`, { headers: { 'last-event-id': id } })).text();
        assert.equal(sent + more, whole, `resumed after ${id}`);
      }
    } finally {
      await s.close();
    }
  });

  test("with onDisconnect: 'abort', the client going away aborts the run: the agent stops, the partial message is stored as aborted", async () => {
    const gate = new Gate();
    let stopped!: () => void;
    const agentStopped = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    const { spec, waiting } = gatedAgent('gated', gate, { onStop: stopped });
    const s = await server({ agents: [spec], onDisconnect: 'abort' });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: { id: 'c-abort', messages: [userMessage('go')] } });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      const local = s.core.runs.get(runId);
      assert.ok(local);
      const reader = new BodyReader(res);
      await waiting;
      await reader.until((t) => t.includes('first half'));
      await reader.cancel();
      await agentStopped;
      await local.done;
      const run = await (await api(s.url, `/api/runs/${runId}`)).json();
      assert.equal(run.status, 'aborted');
      const [, assistant] = (await (await api(s.url, '/api/chats/c-abort/messages?protocol=canonical')).json()) as {
        kind: string;
        message?: { content: string; metadata: { status: string } };
      }[];
      assert.ok(assistant);
      const stored = await s.core.store.getMessage(run.messageId);
      assert.equal(stored?.metadata.status, 'aborted');
      assert.equal(stored?.content, 'Hello from the first half. ');
    } finally {
      await s.close();
    }
  });

  test('POST /api/runs/:runId/abort stops a run that continues without its client', async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    const s = await server({ agents: [spec], onDisconnect: 'continue' });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: { id: 'c-stop', messages: [userMessage('go')] } });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      await waiting;
      const stop = await api(s.url, `/api/runs/${runId}/abort`, { method: 'POST' });
      assert.equal(stop.status, 202);
      const body = await res.text();
      const chunks = sseData(body) as { type: string }[];
      assert.equal(chunks.at(-2)?.type, 'abort');
      assert.equal((await (await api(s.url, `/api/runs/${runId}`)).json()).status, 'aborted');
      const again = await api(s.url, `/api/runs/${runId}/abort`, { method: 'POST' });
      assert.equal(again.status, 409);
    } finally {
      await s.close();
    }
  });

  test("POST /api/chat/:id/stop stops the chat's run in progress with only the chat id; 204 when nothing runs", async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    const s = await server({ agents: [spec] });
    try {
      assert.equal((await api(s.url, '/api/chat/c-never/stop', { method: 'POST' })).status, 204, 'a chat never seen');
      const res = await api(s.url, '/api/chat?agent=gated', { json: { id: 'c-stop-chat', messages: [userMessage('go')] } });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      await waiting;
      const stop = await api(s.url, '/api/chat/c-stop-chat/stop', { method: 'POST' });
      assert.equal(stop.status, 202);
      assert.deepEqual(await stop.json(), { runId, aborting: true });
      const chunks = sseData(await res.text()) as { type: string }[];
      assert.equal(chunks.at(-2)?.type, 'abort');
      await s.core.runs.get(runId)?.done;
      const run = await (await api(s.url, `/api/runs/${runId}`)).json();
      assert.equal(run.status, 'aborted');
      assert.equal((await s.core.store.getMessage(run.messageId))?.metadata.status, 'aborted');
      const again = await api(s.url, '/api/chat/c-stop-chat/stop', { method: 'POST' });
      assert.equal(again.status, 204, 'the run has ended: nothing to stop');
      assert.equal(await again.text(), '');
    } finally {
      await s.close();
    }
  });

  test('a new message in a chat supersedes the run in progress', async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    const s = await server({ agents: [spec], onDisconnect: 'continue' });
    try {
      const first = await api(s.url, '/api/chat?agent=gated', { json: { id: 'c-super', messages: [userMessage('go')] } });
      await waiting;
      const { res: second, body } = await chat(s.url, 'c-super', 'text next');
      assert.equal(second.status, 200);
      assert.ok(body.includes('next'));
      const firstChunks = sseData(await first.text()) as { type: string }[];
      assert.equal(firstChunks.at(-2)?.type, 'abort', 'the first run ends aborted');
      const runs = (await (await api(s.url, '/api/chats/c-super')).json()).runs as { status: string }[];
      assert.deepEqual(
        runs.map((r) => r.status),
        ['aborted', 'complete'],
      );
    } finally {
      await s.close();
    }
  });
});

describe('security', () => {
  const config = testConfig({
    tokens: [
      { token: 'token-alice', name: 'alice' },
      { token: 'token-bob', name: 'bob' },
    ],
    cors: { origins: ['https://app.example.com'] },
  });

  test('token A can neither list, read, resume, abort nor delete token B’s chats', async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    const s = await server({ config, agents: [spec], onDisconnect: 'continue' });
    try {
      assert.equal((await api(s.url, '/api/chats')).status, 401);
      assert.equal((await api(s.url, '/api/chats', { token: 'nope' })).status, 401);
      assert.equal((await api(s.url, '/api/chats', { headers: { authorization: 'Basic abc' } })).status, 401);
      assert.equal((await api(s.url, '/healthz')).status, 200, 'health needs no token');

      const res = await api(s.url, '/api/chat?agent=gated', {
        token: 'token-bob',
        json: { id: 'c-bob', messages: [userMessage('secret')] },
      });
      assert.equal(res.status, 200);
      const runId = res.headers.get('x-switchboard-run-id') as string;
      await waiting;

      // Alice sees nothing of it…
      const aliceChats = (await (await api(s.url, '/api/chats', { token: 'token-alice' })).json()).chats;
      assert.deepEqual(aliceChats, []);
      // …its history reads as a never-seen chat's: empty, nothing that says the chat exists…
      for (const path of ['/api/chats/c-bob/messages', '/api/chats/c-bob/messages?protocol=canonical']) {
        const r = await api(s.url, path, { token: 'token-alice' });
        assert.equal(r.status, 200, path);
        assert.deepEqual(await r.json(), [], path);
      }
      for (const path of ['/api/chats/c-bob', `/api/runs/${runId}`, `/api/runs/${runId}/events`, `/api/runs/${runId}/stream`]) {
        const r = await api(s.url, path, { token: 'token-alice' });
        assert.equal(r.status, 404, path);
        await r.body?.cancel();
      }
      // The AI SDK reconnect says "nothing to resume", as for a chat that does not exist.
      const reconnect = await api(s.url, '/api/chat/c-bob/stream', { token: 'token-alice' });
      assert.equal(reconnect.status, 204);
      assert.equal(await reconnect.text(), '');
      assert.equal((await api(s.url, `/api/runs/${runId}/abort`, { method: 'POST', token: 'token-alice' })).status, 404);
      // Stopping it answers as for a chat never seen: nothing to stop (and Bob's run goes on, below).
      for (const chatId of ['c-bob', 'c-never-seen']) {
        const stop = await api(s.url, `/api/chat/${chatId}/stop`, { method: 'POST', token: 'token-alice' });
        assert.equal(stop.status, 204, chatId);
        assert.equal(await stop.text(), '', chatId);
      }
      assert.equal((await api(s.url, '/api/chats/c-bob', { method: 'DELETE', token: 'token-alice' })).status, 404);
      const hijack = await api(s.url, '/api/chat', { token: 'token-alice', json: { id: 'c-bob', messages: [userMessage('mine now')] } });
      assert.equal(hijack.status, 404);
      const aguiHijack = await api(s.url, '/api/agui', {
        token: 'token-alice',
        json: { threadId: 'c-bob', runId, messages: [] },
      });
      assert.equal(aguiHijack.status, 404, 'as for a run id never seen');

      // …not on the WebSocket either.
      const alice = new WsClient(wsUrl(s, '?access_token=token-alice'));
      await alice.opened;
      alice.send({ type: 'subscribe', sessionId: 'c-bob' });
      const [err] = await alice.until((e) => e.event === 'error');
      assert.equal(err.data?.code, 'not_found');
      alice.send({ type: 'abort', runId });
      assert.equal((await alice.until((e) => e.event === 'error')).at(-1)?.data?.code, 'not_found');
      alice.close();

      const anonymous = new WsClient(wsUrl(s));
      await assert.rejects(anonymous.opened);

      // Bob still has it all, and resumes it.
      const bobChats = (await (await api(s.url, '/api/chats', { token: 'token-bob' })).json()).chats as {
        id: string;
        metadata?: unknown;
      }[];
      assert.deepEqual(
        bobChats.map((c) => c.id),
        ['c-bob'],
      );
      assert.deepEqual(bobChats[0].metadata, { agent: 'gated' }, 'the owner bookkeeping is not shown; the agent of its run is');
      assert.equal((await (await api(s.url, `/api/runs/${runId}`, { token: 'token-bob' })).json()).status, 'running');
      const resume = await api(s.url, '/api/chat/c-bob/stream', { token: 'token-bob' });
      assert.equal(resume.status, 200);
      gate.open();
      assert.ok((await resume.text()).includes('the second '));
      await res.text();
    } finally {
      await s.close();
    }
  });

  test('the rate limit answers 429 with Retry-After', async () => {
    const s = await server({ config, rateLimitPerMinute: 3 });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await api(s.url, '/api/agents', { token: 'token-alice' })).status, 200);
      const limited = await api(s.url, '/api/agents', { token: 'token-alice' });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      assert.equal((await limited.json()).error.code, 'rate_limited');
      assert.equal((await api(s.url, '/api/agents', { token: 'token-bob' })).status, 200, 'buckets are per token');
    } finally {
      await s.close();
    }
  });

  test('CORS: a transport’s own request headers are allowed when configured (cors.headers)', async () => {
    const preflight = async (s: { url: string }) =>
      (
        await api(s.url, '/api/chat', {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'x-request-id',
          },
        })
      ).headers.get('access-control-allow-headers') ?? '';
    const plain = await server({ config });
    try {
      assert.doesNotMatch(await preflight(plain), /x-request-id/);
    } finally {
      await plain.close();
    }
    const withHeaders = await server({
      config: testConfig({
        tokens: [{ token: 'token-alice', name: 'alice' }],
        cors: { origins: ['https://app.example.com'], headers: ['X-Request-Id'] },
      }),
    });
    try {
      const allowed = await preflight(withHeaders);
      assert.match(allowed, /x-request-id/);
      assert.match(allowed, /authorization/, 'the built-in ones stay');
    } finally {
      await withHeaders.close();
    }
  });

  test('CORS: configured origins only; a WebSocket from another origin is refused', async () => {
    const s = await server({ config });
    try {
      const preflight = await api(s.url, '/api/chat', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
      const other = await api(s.url, '/api/agents', { token: 'token-alice', headers: { origin: 'https://evil.example.com' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
      // A preflight from another origin is refused with the JSON error, not an empty 204.
      const refusedPreflight = await api(s.url, '/api/chat', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
      });
      assert.equal(refusedPreflight.status, 403);
      assert.equal(refusedPreflight.headers.get('access-control-allow-origin'), null);
      assert.match(((await refusedPreflight.json()) as { error: { message: string } }).error.message, /cors\.origins/);

      const { WebSocket: Ws } = await import('ws');
      const refused = new Ws(wsUrl(s, '?access_token=token-alice'), { headers: { origin: 'https://evil.example.com' } });
      const status = await new Promise<number | undefined>((resolve) => {
        refused.on('unexpected-response', (_req, response) => resolve(response.statusCode));
        refused.on('open', () => resolve(101));
      });
      assert.equal(status, 403);
      const allowed = new Ws(wsUrl(s), { headers: { origin: 'https://app.example.com', authorization: 'Bearer token-alice' } });
      await new Promise<void>((resolve, reject) => {
        allowed.on('open', () => resolve());
        allowed.on('error', reject);
      });
      allowed.close();
    } finally {
      await s.close();
    }
  });
});

describe('WebSocket /ws (the agent:event contract)', () => {
  let s: RunningServer;
  before(async () => {
    s = await server();
  });
  after(() => s.close());

  type Frame = { event: string; data?: Record<string, unknown> };
  const frames = (list: Frame[]) => list.filter((e) => e.event === 'agent:event').map((e) => e.data as Record<string, unknown>);

  test('message → run:started and agent:event frames; a second run continues the numbering; resume by sequence number or event id', async () => {
    const ws = new WsClient(wsUrl(s));
    await ws.opened;
    ws.send({ type: 'bogus' });
    assert.equal((await ws.until((e) => e.event === 'error')).at(-1)?.data?.code, 'bad_request');
    ws.ws.send('not json');
    assert.match(String((await ws.until((e) => e.event === 'error')).at(-1)?.data?.message), /Not valid JSON/);
    ws.send({ type: 'ping', requestId: 'p1' });
    assert.deepEqual((await ws.until((e) => e.event === 'pong')).at(-1), { event: 'pong', data: { requestId: 'p1' } });

    ws.send({ type: 'message', sessionId: 's-1', content: 'text first run', requestId: 'm1' });
    const run1 = await ws.until(isComplete);
    const started = run1.find((e) => e.event === 'run:started');
    assert.equal(started?.data?.sessionId, 's-1');
    assert.equal(started?.data?.requestId, 'm1');
    ws.send({ type: 'message', sessionId: 's-1', content: 'text second run' });
    const run2 = await ws.until(isComplete);
    const all = [...frames(run1), ...frames(run2)];
    assert.equal(all[0].type, 'session_start');
    assert.ok(all.some((f) => f.type === 'message' && f.content === 'first run'));
    assert.ok(frames(run2).some((f) => f.type === 'message' && f.content === 'second run'));
    assert.deepEqual(
      all.map((f) => f.eventIndex),
      all.map((_, i) => i),
      'eventIndex counts every frame of the session',
    );
    const numbers = all.flatMap((f) => (typeof f.sequenceNumber === 'number' ? [f.sequenceNumber] : []));
    assert.ok(numbers.length > 4);
    for (let i = 1; i < numbers.length; i++) assert.ok(numbers[i] > numbers[i - 1], `sequenceNumber increases: ${numbers}`);
    for (const f of all) assert.equal(f.sessionId, 's-1');
    ws.close();

    // A new socket resumes after any frame's eventId: exactly the frames after it.
    for (const k of [0, 3, frames(run1).length - 1, all.length - 5, all.length - 2]) {
      const again = new WsClient(wsUrl(s));
      await again.opened;
      again.send({ type: 'subscribe', sessionId: 's-1', lastEventId: all[k].eventId });
      const want = all.length - k - 1;
      let count = 0;
      const got = frames(await again.until((e) => e.event === 'agent:event' && ++count === want));
      assert.deepEqual(got, all.slice(k + 1), `after frame ${k}`);
      again.close();
    }

    // By sequence number (the contract's resume): the persisted frames after it are all there, and nothing before it.
    const n = numbers[Math.floor(numbers.length / 2)];
    const bySeq = new WsClient(wsUrl(s));
    await bySeq.opened;
    bySeq.send({ type: 'subscribe', sessionId: 's-1', lastSequenceNumber: n });
    const resumed = frames(await bySeq.until((e) => isComplete(e) && (e.data?.sequenceNumber as number) === numbers.at(-1)));
    const persisted = (list: Record<string, unknown>[]) => list.filter((f) => typeof f.sequenceNumber === 'number');
    assert.deepEqual(
      persisted(resumed),
      persisted(all).filter((f) => (f.sequenceNumber as number) > n),
    );
    bySeq.close();
  });

  test('a subscriber sees runs started over HTTP live; abort stops one', async () => {
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate);
    const g = await server({ agents: [spec], onDisconnect: 'continue' });
    try {
      const ws = new WsClient(wsUrl(g));
      await ws.opened;
      ws.send({ type: 'subscribe', sessionId: 's-http' });
      await ws.until((e) => e.event === 'subscribed');
      const res = await api(g.url, '/api/chat?agent=gated', { json: { id: 's-http', messages: [userMessage('go')] } });
      await waiting;
      await ws.until((e) => e.event === 'agent:event' && e.data?.type === 'message_chunk');
      ws.send({ type: 'abort', sessionId: 's-http' });
      const end = await ws.until(isComplete);
      assert.ok(end.some((e) => e.event === 'aborted'));
      assert.equal(end.at(-1)?.data?.aborted, true);
      await res.text();
      ws.close();
    } finally {
      await g.close();
    }
  });
});
