/**
 * The HTTP server end to end: a real listening server, checked with the official AI SDK client
 * pieces (chunk schema, `readUIMessageStream`, `DefaultChatTransport`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DefaultChatTransport, isToolUIPart, readUIMessageStream, type UIMessage } from 'ai';

import { assembleChunks, assembleUIMessage, parseAiSdkSse } from '../../../test/support/ai-sdk-oracle.ts';
import type { AgentEvent, AgentFactory } from '../src/agents/agent.ts';
import { demoAgent } from '../src/agents/demo.ts';
import { createApp } from '../src/server/app.ts';
import { type RunningServer, type ServerOptions, startServer } from '../src/server/start.ts';

const HI = '{"messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"hi"}]}]}';

const userMessage = (text: string) => ({ id: 'u1', role: 'user' as const, parts: [{ type: 'text' as const, text }] });

let server: RunningServer;
before(async () => {
  server = await startServer({ port: 0, delayMs: 0 });
});
after(() => server.close());

function post(base: string, body: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, ...init });
}

async function chat(text: string): Promise<UIMessage> {
  const response = await post(server.url, JSON.stringify({ messages: [userMessage(text)] }));
  assert.equal(response.status, 200);
  return assembleUIMessage(await response.text());
}

const textOf = (m: UIMessage) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/** What the default demo run must show: both reasoning variants, a finished tool call, todos, the echoed text. */
function assertDemoMessage(message: UIMessage, userText: string): void {
  const variants = message.parts.flatMap((p) => (p.type === 'reasoning' ? [p.providerMetadata?.switchboard?.variant] : []));
  assert.ok(variants.includes('processing'), `a processing reasoning part: ${JSON.stringify(variants)}`);
  assert.ok(variants.includes('thinking'), `a thinking reasoning part: ${JSON.stringify(variants)}`);

  const tools = message.parts.filter(isToolUIPart);
  assert.equal(tools.length, 1);
  const [tool] = tools;
  assert.equal(tool.type, 'tool-get_weather');
  assert.equal(tool.state, 'output-available');
  assert.deepEqual(tool.input, { city: 'Paris', unit: 'celsius' });
  assert.equal(tool.state === 'output-available' && (tool.output as { temperature: number }).temperature, 18);

  const todos = message.parts.filter((p) => p.type === 'data-todos');
  assert.equal(todos.length, 1, 'one todo list, updated in place');
  const list = (todos[0] as { data: { todos: { status: string }[] } }).data.todos;
  assert.ok(list.length >= 2 && list.length <= 3);
  assert.ok(list.every((t) => t.status === 'completed'));

  assert.ok(textOf(message).includes(userText), `the answer echoes the user's text: ${textOf(message)}`);
}

test('POST /api/chat answers an AI SDK UI message stream through the canonical model', async () => {
  const response = await post(server.url, HI);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  const body = await response.text();
  assert.ok(body.endsWith('data: [DONE]\n\n'));
  const chunks = await parseAiSdkSse(body);
  assert.equal(chunks[0].type, 'start');
  assert.equal(chunks.at(-1)?.type, 'finish');
  assertDemoMessage(await assembleUIMessage(body), 'hi');
});

test('the official DefaultChatTransport talks to the live server', async () => {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/api/chat` });
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages: [userMessage('hello from the transport')],
    abortSignal: undefined,
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) message = snapshot;
  assert.ok(message);
  assertDemoMessage(message, 'hello from the transport');
});

test('malformed bodies get a 400 naming the field, unknown routes a 404, and the server stays up', async () => {
  const broken = await post(server.url, '{"messages": [');
  assert.equal(broken.status, 400);
  const brokenBody = await broken.json();
  assert.equal(brokenBody.error.issues[0].path, 'body');
  assert.match(brokenBody.error.message, /not valid JSON/);

  const missing = await post(server.url, '{"id":"chat-1"}');
  assert.equal(missing.status, 400);
  const missingBody = await missing.json();
  assert.equal(missingBody.error.issues[0].path, 'messages');
  assert.match(missingBody.error.message, /messages/);

  const nested = await post(server.url, '{"messages":[{"id":"1","role":"robot","parts":[{"type":"text"}]}]}');
  assert.equal(nested.status, 400);
  const nestedPaths = (await nested.json()).error.issues.map((i: { path: string }) => i.path);
  assert.deepEqual(nestedPaths, ['messages.0.role', 'messages.0.parts.0.text']);

  const unknown = await fetch(`${server.url}/no/such/route`);
  assert.equal(unknown.status, 404);
  assert.match((await unknown.json()).error.message, /\/no\/such\/route/);

  const wrongMethod = await fetch(`${server.url}/api/chat`);
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'POST');
  await wrongMethod.body?.cancel();

  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { ok: true });
});

test('the error command yields an error chunk and a finish with finishReason error', async () => {
  const response = await post(server.url, JSON.stringify({ messages: [userMessage('error')] }));
  const body = await response.text();
  assert.ok(body.endsWith('data: [DONE]\n\n'), 'the stream ends cleanly');
  const chunks = await parseAiSdkSse(body);
  const assembled = await assembleChunks(chunks);
  assert.equal(assembled.errorTexts.length, 1);
  assert.match(assembled.errorTexts[0], /failed on purpose/);
  assert.equal(assembled.finishReason, 'error');
  assert.equal(chunks.at(-1)?.type, 'finish');
});

test('the demo commands (step, tool, text, code, error)', async () => {
  assert.equal(textOf(await chat('text hello   streaming world')), 'hello   streaming world');
  assert.equal(textOf(await chat('code console.log(1)')), '```\nconsole.log(1)\n```\n');
  assert.equal(textOf(await chat('code a ``` b')), '````\na ``` b\n````\n');

  const steps = await chat('step');
  const processing = steps.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
  assert.ok(processing.join('\n').includes('Step 3/3 done'), JSON.stringify(processing));
  assert.ok(steps.parts.some((p) => p.type === 'data-todos'));

  const tool = (await chat('tool London')).parts.filter(isToolUIPart);
  assert.equal(tool.length, 1);
  assert.deepEqual(tool[0].input, { city: 'London', unit: 'celsius' });
  assert.equal(tool[0].state, 'output-available');
});

test('GET / serves the page', async () => {
  const response = await fetch(`${server.url}/`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await response.text(), /\/api\/chat/);
});

/** Starts a server whose agent reports, through the returned promise, when its `finally` ran. */
async function withTrackedAgent(
  run: (request: Parameters<AgentFactory>[0]) => AsyncIterable<AgentEvent>,
  options: ServerOptions = {},
): Promise<{ server: RunningServer; stopped: Promise<void> }> {
  const { promise: stopped, resolve } = Promise.withResolvers<void>();
  const agent: AgentFactory = async function* (request) {
    try {
      yield* run(request);
    } finally {
      resolve();
    }
  };
  return { server: await startServer({ port: 0, agent, ...options }), stopped };
}

async function abortAfterFirstChunk(base: string): Promise<void> {
  const controller = new AbortController();
  const response = await post(base, HI, { signal: controller.signal });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const first = await reader.read();
  assert.equal(first.done, false);
  controller.abort();
  await reader.closed.catch(() => {});
}

// The timeouts only turn a regression (an agent that never stops) into a failure instead of a hang.
test("with onDisconnect: 'abort', a client disconnect stops an endless agent", { timeout: 30_000 }, async () => {
  const { server: endless, stopped } = await withTrackedAgent(
    async function* (): AsyncGenerator<AgentEvent> {
      yield { type: 'start', data: {} };
      // Never ends by itself: only backpressure holds it, only the disconnect stops it.
      for (;;) yield { type: 'text', data: { content: 'tick ' } };
    },
    { onDisconnect: 'abort' },
  );
  try {
    await abortAfterFirstChunk(endless.url);
    await stopped;
    assert.deepEqual(await (await fetch(`${endless.url}/healthz`)).json(), { ok: true });
  } finally {
    await endless.close();
  }
});

test("with onDisconnect: 'abort', a client disconnect stops the demo agent in the middle of a pause", { timeout: 30_000 }, async () => {
  // A pause far longer than any test: only the abort signal can end it.
  const { server: slow, stopped } = await withTrackedAgent(
    (request) => demoAgent(request.prompt, { delayMs: 2 ** 31 - 1, signal: request.signal }),
    { onDisconnect: 'abort' },
  );
  try {
    await abortAfterFirstChunk(slow.url);
    await stopped;
  } finally {
    await slow.close();
  }
});

test('an agent that throws ends the message with an error instead of cutting the stream', async () => {
  const errors: unknown[] = [];
  const app = createApp({
    onError: (err) => errors.push(err),
    agent: async function* (): AsyncGenerator<AgentEvent> {
      yield { type: 'start', data: {} };
      yield { type: 'text', data: { content: 'partial ' } };
      throw new Error('boom');
    },
  });
  const response = await app.request('/api/chat', { method: 'POST', body: HI });
  const assembled = await assembleChunks(await parseAiSdkSse(await response.text()));
  assert.equal(textOf(assembled.message), 'partial ');
  assert.deepEqual(assembled.errorTexts, ['The agent failed: boom']);
  assert.equal(assembled.finishReason, 'error');
  assert.equal((errors[0] as Error).message, 'boom');
});

test('a body over the limit gets a 413', async () => {
  const app = createApp({ maxBodyBytes: 16 });
  const response = await app.request('/api/chat', { method: 'POST', body: HI });
  assert.equal(response.status, 413);
  assert.match((await response.json()).error.message, /too large/);
});

test('the demo names its tool calls per turn: a second answer in the chat does not reuse the first one’s ids', async () => {
  const { demoScript } = await import('../src/agents/demo.ts');
  const idsOf = (messages?: { id: string; role: string; parts: object[] }[]) =>
    [...demoScript('hi', () => 0, messages)].flatMap((e) => (e.type === 'tool_use' ? [(e.data as { id: string }).id] : []));
  const first = idsOf([{ id: 'u1', role: 'user', parts: [] }]);
  const second = idsOf([
    { id: 'u1', role: 'user', parts: [] },
    { id: 'a1', role: 'assistant', parts: [] },
    { id: 'u2', role: 'user', parts: [] },
  ]);
  assert.deepEqual(first, ['toolu_demo_weather']);
  assert.deepEqual(second, ['toolu_demo_weather_2']);
});
