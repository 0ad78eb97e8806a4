/**
 * As two users: Bob probes Alice's run id through every route that takes a client run id, and
 * Alice's message ids through every route that takes a client message id, and gets the answer a
 * never-seen id gets (status and body, with the fresh random ids and times masked).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { AgentEvent } from '../src/agents/agent.ts';
import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, linesAgent, quietLogger, testConfig, WsClient } from './gateway-support.ts';

/** An agent that answers with the ids of the conversation it is given. */
const idsAgent = linesAgent('ids', async function* (ctx): AsyncGenerator<AgentEvent> {
  yield { type: 'text', data: { content: JSON.stringify(ctx.request.messages.map((m) => m.id)) } };
  yield { type: 'done', data: {} };
});

const config = testConfig({
  tokens: [
    { token: 'token-alice', name: 'alice' },
    { token: 'token-bob', name: 'bob' },
  ],
});

/** The body with the probed ids (`<probe>`, `<probe-1>`, …), random UUIDs / message ids and times masked. */
function masked(text: string, probe: string | readonly string[]): string {
  const probes = typeof probe === 'string' ? [probe] : probe;
  return (
    probes
      .reduce((t, id, k) => t.replaceAll(id, k === 0 ? '<probe>' : `<probe-${k}>`), text)
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/msg_[0-9a-f]{32}/g, '<msg>')
      // DeepSearchAgents' message ids and timestamps (dsagent history).
      .replace(/msg_[0-9a-f]{20}\b/g, '<ds-msg>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
      .replace(/\b\d{13}\b/g, '<ts>')
      .replace(/t-bob-\d/g, '<thread>')
      .replace(/"(durationMs|duration_ms)":\d+/g, '"$1":0')
      .replace(/"(createdAt|updatedAt|timestamp|ts)":\d+/g, '"$1":0')
  );
}

async function answer(s: RunningServer, path: string, probe: string | readonly string[], init: Parameters<typeof api>[2] = {}) {
  const res = await api(s.url, path, { token: 'token-bob', ...init });
  return { status: res.status, body: masked(await res.text(), probe) };
}

describe('existence oracles', () => {
  let s: RunningServer;
  let aliceRun: string;
  before(async () => {
    s = await startServer({ port: 0, config, runOptions: { logger: quietLogger() }, onError: () => {}, agents: [idsAgent] });
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

const HISTORIES = ['ai-sdk', 'ag-ui', 'dsagent', 'timeline', 'canonical'];

/** A chat as its owner sees it: its history in every protocol, the chat with its runs, each run. */
async function views(s: RunningServer, token: string, chatId: string): Promise<{ path: string; status: number; text: string }[]> {
  const out: { path: string; status: number; text: string }[] = [];
  const get = async (path: string) => {
    const res = await api(s.url, path, { token });
    out.push({ path, status: res.status, text: await res.text() });
    return out.at(-1)?.text as string;
  };
  for (const protocol of HISTORIES) await get(`/api/chats/${chatId}/messages?protocol=${protocol}`);
  const { runs } = JSON.parse(await get(`/api/chats/${chatId}`)) as { runs: { id: string }[] };
  for (const run of runs) await get(`/api/runs/${run.id}`);
  return out;
}

type UIMessage = { id: string; role: string; parts: { type: string; state?: string; approval?: object }[] };

/**
 * Bob's conversation in a chat of his, with the ids he chooses: he asks for an approval, approves it
 * (a continuation), regenerates (naming `ids.answer` as the answer), posts AG-UI messages with his
 * ids (an assistant message `ids.answer`, a question `ids.second`), then sends only his newest
 * message (the agent gets the stored conversation). Every answer and every view after each step,
 * masked with his ids as the probes; and his last ai-sdk history and what the agent was given, unmasked.
 */
async function converse(s: RunningServer, chatId: string, ids: { question: string; answer: string; second: string }) {
  const probes = [ids.question, ids.answer, ids.second];
  const answers: { step: string; status: number; body: string }[] = [];
  const step = async (name: string, path: string, json: unknown) => {
    const res = await api(s.url, path, { token: 'token-bob', json });
    const text = await res.text();
    answers.push({ step: name, status: res.status, body: masked(text, probes) });
    for (const v of await views(s, 'token-bob', chatId))
      answers.push({ step: masked(`${name}: ${v.path}`, chatId), status: v.status, body: masked(v.text, probes) });
    return text;
  };
  const question = { id: ids.question, role: 'user', parts: [{ type: 'text', text: 'approval' }] };
  await step('ask', '/api/chat', { id: chatId, messages: [question] });
  const asked = (await (await api(s.url, `/api/chats/${chatId}/messages`, { token: 'token-bob' })).json()) as UIMessage[];
  const approved = {
    ...asked[1],
    parts: asked[1].parts.map((p) =>
      p.state === 'approval-requested' ? { ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } } : p,
    ),
  };
  await step('approve', '/api/chat', { id: chatId, messages: [asked[0], approved] });
  await step('regenerate', '/api/chat', { id: chatId, trigger: 'regenerate-message', messageId: ids.answer, messages: [asked[0]] });
  await step('ag-ui', '/api/agui?agent=ids', {
    threadId: chatId,
    runId: `run-${crypto.randomUUID()}`,
    messages: [
      { id: ids.question, role: 'user', content: 'approval' },
      { id: ids.answer, role: 'assistant', content: 'an answer' },
      { id: ids.second, role: 'user', content: 'and then?' },
    ],
  });
  const given = await step('newest only', '/api/chat?agent=ids', {
    id: chatId,
    messages: [{ id: 'bob-newest', role: 'user', parts: [{ type: 'text', text: 'which ids?' }] }],
  });
  const history = (await (await api(s.url, `/api/chats/${chatId}/messages`, { token: 'token-bob' })).json()) as UIMessage[];
  return { answers, history: history.map((m) => m.id), given };
}

describe('message id oracles', () => {
  let s: RunningServer;
  /** Alice's ids: a user message and its answer (AI SDK), and her AG-UI thread's answer. */
  let alice: { question: string; answer: string; second: string };
  let aliceViews: () => Promise<unknown[]>;
  before(async () => {
    s = await startServer({ port: 0, config, runOptions: { logger: quietLogger() }, onError: () => {}, agents: [idsAgent] });
    const question = 'alice-question';
    const asked = await api(s.url, '/api/chat', {
      token: 'token-alice',
      json: { id: 'alice-chat', messages: [{ id: question, role: 'user', parts: [{ type: 'text', text: 'approval' }] }] },
    });
    assert.equal(asked.status, 200);
    await asked.text();
    const thread = await api(s.url, '/api/agui', {
      token: 'token-alice',
      json: { threadId: 't-alice', runId: `run-${crypto.randomUUID()}`, messages: [{ id: 'alice-q', role: 'user', content: 'hello' }] },
    });
    await thread.text();
    const idsOf = async (chatId: string) =>
      ((await (await api(s.url, `/api/chats/${chatId}/messages`, { token: 'token-alice' })).json()) as UIMessage[]).map((m) => m.id);
    const [, answer] = await idsOf('alice-chat');
    const [, second] = await idsOf('t-alice');
    alice = { question, answer, second };
    aliceViews = async () => [...(await views(s, 'token-alice', 'alice-chat')), ...(await views(s, 'token-alice', 't-alice'))];
  });
  after(() => s.close());

  test("Bob's chat with Alice's message ids answers as with never-used ids, shows his ids, and leaves Alice's chats alone", async () => {
    const aliceBefore = await aliceViews();
    const never = {
      question: `q-${crypto.randomUUID()}`,
      answer: `msg_${crypto.randomUUID().replace(/-/g, '')}`,
      second: `msg_${crypto.randomUUID().replace(/-/g, '')}`,
    };
    const taken = await converse(s, 't-bob-3', alice);
    const fresh = await converse(s, 't-bob-4', never);
    for (const [k, a] of taken.answers.entries()) assert.deepEqual(a, fresh.answers[k], a.step);
    assert.equal(taken.answers.length, fresh.answers.length);
    // His ids, as he sent them, in his history and in the conversation the agent was given.
    for (const id of [alice.question, alice.second]) {
      assert.ok(taken.history.includes(id), `${id} in ${taken.history}`);
      assert.ok(taken.given.includes(JSON.stringify(id).slice(1, -1)), `${id} given to the agent`);
    }
    assert.ok(!taken.answers.some((a) => /~|\\u001f/.test(a.body)), 'no renamed or scoped id shows');
    assert.deepEqual(await aliceViews(), aliceBefore, "Alice's chats are unchanged");
  });
});
