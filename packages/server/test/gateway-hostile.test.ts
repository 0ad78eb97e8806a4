/**
 * The gateway under hostile input (docs/hostile-input.md): a request nested too deep is a located
 * 400 before any chat exists; chat ids follow the one id rule (any Unicode works, control characters
 * and lone surrogates are a 400 before a run) and come back percent-encoded in the id headers; an
 * agent line too deep to read is a located non-fatal error and the run goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, quietLogger, sseData, testConfig, userMessage } from './gateway-support.ts';

// An agent (claude lines) that prints a line nested 6,000 deep between two text lines.
const DEEP_AGENT = [
  "const deep = '['.repeat(6000) + ']'.repeat(6000);",
  "const out = (v) => process.stdout.write(typeof v === 'string' ? v + '\\n' : JSON.stringify(v) + '\\n');",
  "out({ type: 'text', data: { text: 'before ' } });",
  'out(deep);',
  "out({ type: 'text', data: { text: 'after' } });",
  "out({ type: 'done', data: {} });",
].join('\n');

describe('gateway: hostile requests and agent output', () => {
  let s: RunningServer;
  before(async () => {
    const config = testConfig({
      agents: [{ name: 'deep', command: process.execPath, args: ['-e', DEEP_AGENT], framework: 'claude', timeoutMs: 60_000 }],
    });
    s = await startServer({ port: 0, config, runOptions: { logger: quietLogger() }, onError: () => {} });
  });
  after(() => s.close());

  const chats = async () => ((await (await api(s.url, '/api/chats')).json()) as { chats: { id: string }[] }).chats.map((c) => c.id);

  test('a message part nested 10,000 deep: 400 with where, and no chat is created', async () => {
    const data = `${'{"a":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
    const body = `{"id":"deep-chat","messages":[{"id":"u1","role":"user","parts":[{"type":"data-x","data":${data}}]}]}`;
    const res = await api(s.url, '/api/chat?agent=demo', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    const error = (await res.json()).error;
    assert.match(error.message, /^Invalid request body: messages\[0\]\.parts\[0\]\.data\.a\.a\.a…: nested deeper than 256 levels$/);
    assert.ok(!(await chats()).includes('deep-chat'));

    const agui = await api(s.url, '/api/agui', {
      method: 'POST',
      body: `{"threadId":"t","runId":"r","messages":[],"state":${data}}`,
    });
    assert.equal(agui.status, 400);
    assert.match((await agui.json()).error.message, /^Invalid RunAgentInput: state\.a\.a\.a.*nested deeper than 256 levels$/);
  });

  test('a Unicode chat id works; its header is percent-encoded', async () => {
    const res = await api(s.url, '/api/chat?agent=demo', { json: { id: '日本語-chat', messages: [userMessage('hi')] } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-switchboard-chat-id'), encodeURIComponent('日本語-chat'));
    assert.equal(decodeURIComponent(res.headers.get('x-switchboard-chat-id') as string), '日本語-chat');
    const body = await res.text();
    assert.match(body, /data: \[DONE\]\n\n$/);
    assert.ok((await chats()).includes('日本語-chat'));
    const emoji = await api(s.url, '/api/chat?agent=demo', { json: { id: 'chat 🎉', messages: [userMessage('hi')] } });
    assert.equal(emoji.status, 200);
    assert.equal(emoji.headers.get('x-switchboard-chat-id'), 'chat%20%F0%9F%8E%89');
    await emoji.text();
  });

  test('a chat id with a control character or a lone surrogate: 400 before any run', async () => {
    for (const [id, why] of [
      ['line\nbreak', /control character U\+000A at 4/],
      ['bell\u0007', /control character U\+0007/],
      ['half\ud800', /lone surrogate/],
    ] as const) {
      const res = await api(s.url, '/api/chat?agent=demo', { json: { id, messages: [userMessage('hi')] } });
      assert.equal(res.status, 400, JSON.stringify(id));
      const error = (await res.json()).error;
      assert.equal(error.issues[0].path, 'id');
      assert.match(error.message, why);
      assert.ok(!(await chats()).includes(id));
    }
    const agui = await api(s.url, '/api/agui', { json: { threadId: 'a\nb', runId: 'r1', messages: [] } });
    assert.equal(agui.status, 400);
  });

  test('a user message id or a `messageId` outside the id rule: 400 naming the field, before any chat', async () => {
    const user = (id: string) => ({ id, role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    const cases = [
      ['/api/chat?agent=demo', { id: 'ids-1', messages: [user('unit\u001fsep')] }, 'messages.0.id', /U\+001F/],
      ['/api/chat?agent=demo', { id: 'ids-2', messages: [user('')] }, 'messages.0.id', />=1 characters/],
      ['/api/chat?agent=demo', { id: 'ids-3', messages: [user('x'.repeat(201))] }, 'messages.0.id', /200/],
      ['/api/chat?agent=demo', { id: 'ids-4', messageId: 'a\u0085b', messages: [userMessage('hi')] }, 'messageId', /U\+0085/],
      [
        '/api/agui',
        { threadId: 'ids-5', runId: 'r-ids-5', messages: [{ id: 'q\u0000', role: 'user', content: 'hi' }] },
        'messages.0.id',
        /U\+0000/,
      ],
    ] as const;
    for (const [path, json, at, why] of cases) {
      const res = await api(s.url, path, { json });
      assert.equal(res.status, 400, at);
      const error = (await res.json()).error;
      assert.equal(error.issues[0].path, at);
      assert.match(error.message, why);
    }
    assert.ok(!(await chats()).some((id) => id.startsWith('ids-')));
    // The other messages a client sends back are only compared: any string passes.
    const ok = await api(s.url, '/api/chat?agent=demo', {
      json: { id: 'ids-6', messages: [{ id: 'a\u001fb', role: 'assistant', parts: [] }, userMessage('hi')] },
    });
    assert.equal(ok.status, 200);
    await ok.text();
  });

  test('an agent that prints a line 6,000 deep: a located error, and the run finishes with the text after it', async () => {
    const res = await api(s.url, '/api/chat?agent=deep', { json: { id: 'deep-agent', messages: [userMessage('go')] } });
    assert.equal(res.status, 200);
    const chunks = sseData(await res.text()) as { type: string; delta?: string; data?: { message?: string }; finishReason?: string }[];
    assert.equal(
      chunks
        .filter((c) => c.type === 'text-delta')
        .map((c) => c.delta)
        .join(''),
      'before after',
    );
    assert.deepEqual(
      chunks.filter((c) => c.type === 'data-error').map((c) => c.data?.message),
      ['line 2: nested deeper than 256 levels; skipped'],
    );
    assert.equal(chunks.find((c) => c.type === 'finish')?.finishReason, 'stop');
  });
});
