/**
 * The SDK agents (anthropic, openai, gemini, langchain) with a person in the loop, against a loopback
 * server on 127.0.0.1 that replays recorded provider streams: the frontend tools the client declared
 * (`RunRequest.tools`) reach the provider as its tool definitions; the conversation's tool calls and
 * their answers (a client output, a denial) reach it in the provider's own format; a call the model
 * makes to a frontend tool is left for the client (`client-tool-call`) and the run ends waiting.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CanonicalEvent, EventOf } from '@switchboard/core';
import { validate } from '@switchboard/core/schema';
import { runAgent } from '../src/agents/run.ts';
import { findAgent, resolveConfig } from '../src/config/load.ts';
import type { RunRequest } from '../src/runner/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = new URL('../../../test/fixtures', import.meta.url).pathname;
const now = () => 1_700_000_000_000;

/** JSON-lines chunk captures (vercel/ai's Gemini ones) as the SSE body the API sends. */
const asSse = (file: string) =>
  Buffer.from(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => `data: ${l}\n\n`)
      .join(''),
  );

const weather = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A chat that continues: the client answered get_location with "Paris" and denied delete_file. */
function request(tools: RunRequest['tools']): RunRequest {
  return {
    runId: 'run-tools',
    chatId: 'chat-tools',
    tools,
    messages: [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Where am I? Then delete notes.txt.' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-get_location', toolCallId: 'call_loc', state: 'output-available', input: {}, output: 'Paris' },
          {
            type: 'tool-delete_file',
            toolCallId: 'call_del',
            state: 'approval-responded',
            input: { path: 'notes.txt' },
            approval: { id: 'appr_1', approved: false, reason: 'Not that file' },
          },
          // Unanswered: not sent (a provider rejects a call without its result).
          { type: 'tool-get_time', toolCallId: 'call_time', state: 'input-available', input: {} },
          { type: 'step-start' },
          { type: 'text', text: 'You are in Paris.' },
        ],
      },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'What is the weather there?' }] },
    ],
  };
}

const DENIED = 'The user denied this tool call: Not that file.';

describe('SDK agents with frontend tools and tool answers (loopback server on 127.0.0.1)', () => {
  let server: Server;
  let url = '';
  let body: Buffer = Buffer.alloc(0);
  const received: Record<string, unknown>[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < body.length; i += 7) res.write(body.subarray(i, i + 7));
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  async function run(name: string, env: Record<string, string>, capture: Buffer, tools: RunRequest['tools']) {
    body = capture;
    received.length = 0;
    const def = findAgent(resolveConfig({}, { env, cwd: ROOT }), name);
    assert.ok(def?.enabled, def?.disabledReason);
    const events: CanonicalEvent[] = [];
    for await (const e of runAgent(def, request(tools), { env, now })) events.push(e);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
    );
    assert.equal(received.length, 1);
    return { events, sent: received[0] as Record<string, unknown> };
  }

  /** The frontend call is left for the client and the run ends waiting for its output. */
  function assertLeftForClient(events: CanonicalEvent[], toolName: string): void {
    const calls = events.filter((e): e is EventOf<'client-tool-call'> => e.type === 'client-tool-call');
    const ends = events.filter((e): e is EventOf<'tool-input-end'> => e.type === 'tool-input-end' && e.toolName === toolName);
    assert.ok(ends.length > 0);
    assert.deepEqual(
      calls.map((c) => [c.toolCallId, c.toolName]),
      ends.map((e) => [e.toolCallId, toolName]),
    );
    for (const c of calls) {
      const end = events.findIndex((e) => e.type === 'tool-input-end' && e.toolCallId === c.toolCallId);
      assert.equal(events.indexOf(c), end + 1, 'right after its tool-input-end');
    }
    const finish = events.at(-1) as EventOf<'run-finish'>;
    assert.equal(finish.type, 'run-finish');
    assert.deepEqual([finish.finishReason, finish.pending?.toolCallIds], ['tool-calls', calls.map((c) => c.toolCallId)]);
  }

  test('anthropic: tools with input_schema; tool_use + tool_result blocks (the output, the denial); get_weather left for the client', async () => {
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url, ANTHROPIC_MODEL: 'claude-test' };
    const { events, sent } = await run('anthropic', env, readFileSync(join(FIXTURES, 'anthropic/thinking-text-tool-use.sse')), [weather]);
    assert.deepEqual(sent.tools, [{ name: 'get_weather', description: 'Current weather for a city', input_schema: weather.parameters }]);
    assert.deepEqual(sent.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Where am I? Then delete notes.txt.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'call_loc', name: 'get_location', input: {} },
          { type: 'tool_use', id: 'call_del', name: 'delete_file', input: { path: 'notes.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_loc', content: 'Paris' },
          { type: 'tool_result', tool_use_id: 'call_del', content: DENIED, is_error: true },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'You are in Paris.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is the weather there?' }] },
    ]);
    assertLeftForClient(events, 'get_weather');
  });

  test('openai: function tools; assistant tool_calls + tool messages; get_weather left for the client', async () => {
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${url}/v1` };
    const { events, sent } = await run('openai', env, readFileSync(join(FIXTURES, 'openai-chat/tool-calls.sse')), [weather]);
    assert.deepEqual(sent.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: weather.parameters } },
    ]);
    assert.deepEqual(sent.messages, [
      { role: 'user', content: 'Where am I? Then delete notes.txt.' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'call_loc', type: 'function', function: { name: 'get_location', arguments: '{}' } },
          { id: 'call_del', type: 'function', function: { name: 'delete_file', arguments: '{"path":"notes.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_loc', content: 'Paris' },
      { role: 'tool', tool_call_id: 'call_del', content: DENIED },
      { role: 'assistant', content: 'You are in Paris.' },
      { role: 'user', content: 'What is the weather there?' },
    ]);
    assertLeftForClient(events, 'get_weather');
  });

  test('gemini: functionDeclarations; functionCall + functionResponse parts; the weather call left for the client', async () => {
    const env = { GOOGLE_API_KEY: 'k', GEMINI_BASE_URL: url };
    const tool = { ...weather, name: 'weather' };
    const { events, sent } = await run('gemini', env, asSse(join(FIXTURES, 'recorded/gemini/google-tool-call.chunks.txt')), [tool]);
    assert.deepEqual(sent.tools, [
      { functionDeclarations: [{ name: 'weather', description: 'Current weather for a city', parametersJsonSchema: weather.parameters }] },
    ]);
    assert.deepEqual(sent.contents, [
      { role: 'user', parts: [{ text: 'Where am I? Then delete notes.txt.' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look.' },
          { functionCall: { name: 'get_location', args: {} } },
          { functionCall: { name: 'delete_file', args: { path: 'notes.txt' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_location', response: { output: 'Paris' } } },
          { functionResponse: { name: 'delete_file', response: { error: DENIED } } },
        ],
      },
      { role: 'model', parts: [{ text: 'You are in Paris.' }] },
      { role: 'user', parts: [{ text: 'What is the weather there?' }] },
    ]);
    assertLeftForClient(events, 'weather');
  });

  test('langchain: AIMessage tool calls + ToolMessages reach the provider as tool calls and tool messages', async () => {
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${url}/v1` };
    const { events, sent } = await run('langchain', env, readFileSync(join(FIXTURES, 'openai-chat/tool-calls.sse')), [weather]);
    assert.deepEqual(sent.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: weather.parameters } },
    ]);
    assert.deepEqual(sent.messages, [
      { role: 'user', content: 'Where am I? Then delete notes.txt.' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'call_loc', type: 'function', function: { name: 'get_location', arguments: '{}' } },
          { id: 'call_del', type: 'function', function: { name: 'delete_file', arguments: '{"path":"notes.txt"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_loc', content: 'Paris' },
      { role: 'tool', tool_call_id: 'call_del', content: DENIED },
      { role: 'assistant', content: 'You are in Paris.' },
      { role: 'user', content: 'What is the weather there?' },
    ]);
    assertLeftForClient(events, 'get_weather');
  });

  test('without declared tools nothing is left for the client: the run is the decoded capture', async () => {
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${url}/v1` };
    const { events, sent } = await run('openai', env, readFileSync(join(FIXTURES, 'openai-chat/tool-calls.sse')), undefined);
    assert.equal(sent.tools, undefined);
    assert.equal(events.filter((e) => e.type === 'client-tool-call').length, 0);
    assert.equal((events.at(-1) as EventOf<'run-finish'>).pending, undefined);
  });
});
