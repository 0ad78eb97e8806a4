/**
 * Claude Agent SDK decoder: the `query()` message stream (SDKMessage JSON lines).
 *
 * The captures in fixtures/claude-agent-sdk/ were recorded from the real SDK (see the README there).
 * Two oracles: the SDK's own `assistant` messages (the content Claude Code assembled: our events must
 * carry exactly that content, once, whether it arrived whole or as partial stream events), and the
 * official `@ai-sdk/anthropic` provider fed the `stream_event`s of each API message.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  assembleChunks,
  assembleUIMessage,
  officialAnthropicMessage,
  parseAiSdkSse,
  summarizeMessage,
} from '../../../test/support/ai-sdk-oracle.ts';
import { addUsage, anthropicUsage, type CanonicalEvent, createAiSdkEncoder, framed, pipe, sseFramer, type Usage } from '../src/index.ts';
import { createClaudeAgentSdkDecoder, detectClaudeAgentSdk } from '../src/inputs/claude-agent-sdk.ts';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, ofType } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const DIR = new URL('./fixtures/claude-agent-sdk/', import.meta.url).pathname;
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
/** The captures of query() runs that reached their result (the permission prompt left unanswered did not). */
const FINISHED = FIXTURES.filter((f) => f !== 'permission-pending.jsonl');

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON captures, read field by field
type Msg = Record<string, any>;

const read = (name: string) => readFileSync(DIR + name);
const lines = (name: string): Msg[] =>
  read(name)
    .toString()
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

const decode = (chunks: (string | Uint8Array)[]): CanonicalEvent[] => decodeChunks(chunks, 'claude-agent-sdk');

const decodeLines = (values: unknown[]) => decode([values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n')]);

/**
 * The messages query() yields: the permission captures are the CLI's stdio transcript, which also has
 * the control protocol and the host-only session state messages.
 */
const sdkMessages = (name: string): Msg[] => lines(name).filter((m) => !m.type.startsWith('control_') && m.sdk_host_only !== true);

/** Our events as content blocks, per agent ('' = main): what the SDK's assistant messages should contain. */
function contentOf(events: CanonicalEvent[]): Map<string, Msg[]> {
  const agents = new Map<string, Msg[]>();
  const open = new Map<string, Msg>();
  const list = (e: CanonicalEvent) => {
    const key = e.type.startsWith('subagent') ? '-' : (e.subagentId ?? '');
    if (!agents.has(key)) agents.set(key, []);
    return agents.get(key) as Msg[];
  };
  for (const e of events) {
    if (e.type === 'text-start') open.set(e.blockId, list(e)[list(e).push({ type: 'text', text: '' }) - 1] as Msg);
    else if (e.type === 'reasoning-start') open.set(e.blockId, list(e)[list(e).push({ type: 'thinking', thinking: '' }) - 1] as Msg);
    else if (e.type === 'text-delta') (open.get(e.blockId) as Msg).text += e.delta;
    else if (e.type === 'reasoning-delta') (open.get(e.blockId) as Msg).thinking += e.delta;
    else if (e.type === 'reasoning-end' && e.providerMetadata?.anthropic?.signature !== undefined)
      (open.get(e.blockId) as Msg).signature = e.providerMetadata.anthropic.signature;
    else if (e.type === 'tool-input-end') list(e).push({ type: 'tool_use', id: e.toolCallId, name: e.toolName, input: e.input });
  }
  agents.delete('-');
  return agents;
}

/** The content blocks of the SDK's own assistant messages, per agent. */
function sdkContent(msgs: Msg[]): Map<string, Msg[]> {
  const agents = new Map<string, Msg[]>();
  for (const m of msgs) {
    if (m.type !== 'assistant') continue;
    const key = m.parent_tool_use_id ?? '';
    if (!agents.has(key)) agents.set(key, []);
    for (const b of m.message.content) {
      const list = agents.get(key) as Msg[];
      if (b.type === 'thinking') list.push(b.signature ? { type: 'thinking', thinking: b.thinking, signature: b.signature } : b);
      else if (b.type === 'tool_use') list.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
      else list.push(b);
    }
  }
  return agents;
}

/** Our path to the AI SDK UI message stream (SSE text). */
function toAiSdk(chunks: (string | Uint8Array)[]): string {
  const m = pipe(pipe(framed(createClaudeAgentSdkDecoder({ runId: 'run', now: () => 0 })), createAiSdkEncoder()), sseFramer('ai-sdk'));
  const out: string[] = [];
  for (const c of chunks) out.push(...m.push(c));
  out.push(...m.end());
  return out.join('');
}

describe('Claude Agent SDK decoder: recorded captures', () => {
  for (const name of FINISHED) {
    test(`${name}: a valid run with exactly the content of the SDK's assistant messages`, () => {
      const msgs = sdkMessages(name);
      const events = decode([read(name)]);
      assert.deepEqual(validate(events).issues, []);
      const start = events[0];
      assert.ok(start?.type === 'run-start');
      assert.equal(start.provider, 'claude-agent-sdk');
      assert.equal(start.model, msgs[0]?.model);
      assert.equal(start.providerMetadata?.['claude-agent-sdk']?.session_id, msgs[0]?.session_id);
      assert.equal(events.at(-1)?.type, 'run-finish');
      assert.deepEqual(contentOf(events), sdkContent(msgs), 'text, thinking (+signature) and tool calls, once each, per agent');

      // One step per API message, named by its id.
      const ids = [...new Set(msgs.filter((m) => m.type === 'assistant').map((m) => m.message.id))];
      assert.deepEqual(
        ofType(events, 'step-start').map((e) => e.stepId),
        ids,
      );
      assert.equal(ofType(events, 'step-finish').length, ids.length);

      // Every tool result, with its output and error flag; a denied call's result is the denial, not an output.
      const denied = new Set(
        lines(name)
          .filter((m) => m.type === 'control_response' && m.response.response?.behavior === 'deny')
          .map((m) => m.response.response.toolUseID),
      );
      const toolResults = msgs.flatMap((m) =>
        m.type === 'user' && Array.isArray(m.message.content)
          ? m.message.content.filter((b: Msg) => b.type === 'tool_result' && !denied.has(b.tool_use_id))
          : [],
      );
      const outputs = events.filter((e) => e.type === 'tool-output' || e.type === 'tool-error');
      assert.deepEqual(
        outputs.map((e) => [e.toolCallId, e.type === 'tool-error', e.output]),
        toolResults.map((b: Msg) => [b.tool_use_id, b.is_error === true, b.content]),
      );

      // The result(s): total usage over the turns (cache tokens counted), cumulative cost, duration, finish.
      const results = msgs.filter((m) => m.type === 'result');
      const result = results.at(-1) as Msg;
      const finish = events.at(-1);
      assert.ok(finish?.type === 'run-finish');
      const total = results.reduce<Usage | undefined>((sum, r) => addUsage(sum, anthropicUsage(r.usage)), undefined);
      assert.deepEqual(finish.usage, { ...total, costUsd: result.total_cost_usd });
      const usage = ofType(events, 'usage').at(-1);
      assert.equal(usage?.durationMs, result.duration_ms);
      assert.equal(usage?.usage.costUsd, result.total_cost_usd);
      assert.equal(finish.finishReason, result.is_error ? 'error' : 'stop');
      assert.equal(finish.providerMetadata?.['claude-agent-sdk']?.num_turns, result.num_turns);
    });
  }

  test('partial messages: streamed deltas, the thinking signature, todos from TodoWrite', () => {
    const events = decode([read('partial-thinking-todos.jsonl')]);
    // The text arrived in several stream deltas and is not repeated by the whole assistant messages.
    assert.ok(ofType(events, 'text-delta').length > 10);
    const reasoning = ofType(events, 'reasoning-start');
    assert.equal(reasoning.length, 1);
    assert.equal(reasoning[0]?.variant, 'thinking');
    const todos = ofType(events, 'todos');
    assert.deepEqual(
      todos.map((e) => [e.change, e.todos.map((t) => t.status)]),
      [
        ['create', ['in_progress', 'pending']],
        ['update', ['completed', 'in_progress']],
      ],
    );
    assert.deepEqual(todos[0]?.todos[0], {
      id: 'todo-1',
      content: 'Find where the retry limit is configured',
      status: 'in_progress',
      activeForm: 'Finding where the retry limit is configured',
    });
    // Steps finish with the stream's stop reason; the tool results sit inside the step that called them.
    const finishes = ofType(events, 'step-finish');
    assert.deepEqual(
      finishes.map((e) => e.rawFinishReason),
      ['tool_use', 'tool_use', 'tool_use', 'end_turn'],
    );
    const firstOutput = events.findIndex((e) => e.type === 'tool-output');
    assert.ok(firstOutput < events.indexOf(finishes[0] as CanonicalEvent));
    // The envelope of each SDK message is kept on the step (stream event uuids, ttft, assistant uuids).
    const meta = finishes[0]?.providerMetadata?.['claude-agent-sdk'] as Msg;
    assert.equal(meta.streamEvent.ttft_ms, lines('partial-thinking-todos.jsonl')[2]?.ttft_ms);
    assert.equal(meta.messages.length, 3);
    assert.equal(finishes[0]?.usage?.outputTokens, 212, 'usage from message_delta, not the stale assistant snapshot');
  });

  test('subagent: start with type and task, its events carry subagentId, finish with its report', () => {
    const msgs = lines('subagent.jsonl');
    const events = decode([read('subagent.jsonl')]);
    const spawn = 'toolu_01AgentX5yZ6aB7cD8eF9gH0i';
    const start = ofType(events, 'subagent-start');
    assert.deepEqual(
      start.map(({ subagentId, name, task, parentToolCallId }) => ({ subagentId, name, task, parentToolCallId })),
      [{ subagentId: spawn, name: 'Explore', task: 'Survey TypeScript sources', parentToolCallId: spawn }],
    );
    const finish = ofType(events, 'subagent-finish');
    const notification = msgs.find((m) => m.subtype === 'task_notification') as Msg;
    assert.equal(finish.length, 1);
    assert.equal(finish[0]?.result, notification.summary);
    const from = events.indexOf(start[0] as CanonicalEvent);
    const to = events.indexOf(finish[0] as CanonicalEvent);
    const inside = events.slice(from + 1, to).filter((e) => e.type !== 'raw');
    assert.ok(inside.length > 10);
    for (const e of inside) assert.equal(e.subagentId, spawn, `${e.type} inside the subagent`);
    for (const e of events.slice(to + 1)) assert.equal(e.subagentId, undefined, `${e.type} after the subagent`);
    // The Agent tool call itself belongs to the main agent and gets the hand-back as output.
    const out = ofType(events, 'tool-output').find((e) => e.toolCallId === spawn);
    assert.equal(out?.toolName, 'Agent');
    assert.equal(out?.subagentId, undefined);
  });

  test('a background subagent outlives the first result; the follow-up turn belongs to the same run', () => {
    const msgs = lines('subagent-background.jsonl');
    const events = decode([read('subagent-background.jsonl')]);
    const spawn = 'toolu_01AgentX5yZ6aB7cD8eF9gH0i';
    // The Agent call returns at once (async_launched): it does not finish the subagent.
    const launched = events.findIndex((e) => e.type === 'tool-output' && e.toolCallId === spawn);
    const finished = events.findIndex((e) => e.type === 'subagent-finish');
    const firstResult = events.findIndex((e) => e.type === 'usage');
    assert.ok(launched < firstResult && firstResult < finished);
    assert.equal((events[finished] as Msg).result, msgs.find((m) => m.subtype === 'task_notification')?.summary);
    // Both turns' messages are steps of the one run; both results are kept.
    assert.equal(ofType(events, 'run-start').length, 1);
    assert.equal(ofType(events, 'step-start').at(-1)?.stepId, 'msg_01MsBgFollow1x2Y3z4A5b6');
    const finish = events.at(-1) as Msg;
    assert.equal(finish.providerMetadata['claude-agent-sdk'].earlierResults.length, 1);
    assert.equal(finish.providerMetadata['claude-agent-sdk'].result, msgs.at(-1)?.result);
  });

  test('partial messages of a subagent (parent_tool_use_id on stream events) decode into the subagent', () => {
    const capture = lines('partial-thinking-todos.jsonl');
    const parent = 'toolu_01Parent0000000000000000';
    const tagged = capture.map((m) => (m.type === 'stream_event' || m.type === 'assistant' ? { ...m, parent_tool_use_id: parent } : m));
    const events = decodeLines(tagged.filter((m) => m.type !== 'user'));
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(contentOf(events).get(parent), sdkContent(capture).get(''));
    assert.equal(ofType(events, 'subagent-start')[0]?.subagentId, parent);
    for (const e of ofType(events, 'step-start')) assert.equal(e.subagentId, parent);
  });

  test('parallel tool calls: three calls in one step, one of them fails', () => {
    const events = decode([read('parallel-tools.jsonl')]);
    const firstStep = events.slice(0, events.findIndex((e) => e.type === 'step-finish') + 1);
    assert.equal(ofType(firstStep, 'tool-input-end').length, 3);
    const failed = ofType(events, 'tool-error');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.toolCallId, 'toolu_01ParB3cD4eF5gH6iJ7kL8mN');
    assert.match(failed[0]?.error ?? '', /^File does not exist/);
    assert.equal(ofType(events, 'step-finish')[0]?.finishReason, 'tool-calls', 'whole assistant messages have no stop_reason');
  });

  test('error_max_turns: a fatal error with the SDK message, the run ends with error', () => {
    const events = decode([read('error-max-turns.jsonl')]);
    const errors = ofType(events, 'error');
    assert.deepEqual(
      errors.map(({ code, message, fatal }) => ({ code, message, fatal })),
      [{ code: 'error_max_turns', message: 'Reached maximum number of turns (1)', fatal: true }],
    );
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    assert.deepEqual([finish.finishReason, finish.rawFinishReason], ['error', 'error_max_turns']);
  });

  test('an API error: the synthetic assistant message is a non-fatal error, the error result a fatal one', () => {
    const events = decode([read('error-api-prompt-too-long.jsonl')]);
    const errors = ofType(events, 'error');
    assert.deepEqual(
      errors.map((e) => [e.code, e.fatal]),
      [
        ['invalid_request', false],
        ['invalid_request_error', true],
      ],
    );
    assert.match(errors[1]?.message ?? '', /^Prompt is too long/);
    assert.deepEqual(errors[0]?.where, { line: 3 });
  });

  test('TaskCreate / TaskUpdate (the Claude Code 2.1 task list) become todos', () => {
    const events = decode([read('task-tools.jsonl')]);
    const todos = ofType(events, 'todos');
    assert.deepEqual(todos.at(-1)?.todos, [
      { id: '1', content: 'Read the retry helper', status: 'completed', activeForm: 'Reading the retry helper' },
      { id: '2', content: 'Explain the backoff', status: 'completed', activeForm: 'Explaining the backoff' },
    ]);
    assert.deepEqual(
      todos.map((e) => e.todos.map((t) => t.status).join(',')),
      ['pending', 'pending,pending', 'in_progress,pending', 'completed,pending', 'completed,completed'],
    );
  });

  test('every line of every capture is recognised by detectClaudeAgentSdk; other formats are not', () => {
    for (const name of FIXTURES) for (const m of lines(name)) assert.ok(detectClaudeAgentSdk(m), `${name}: ${m.type}`);
    assert.equal(detectClaudeAgentSdk({ type: 'message_start', message: { id: 'm' } }), false);
    assert.equal(detectClaudeAgentSdk({ type: 'result', data: { session_id: 's' } }), false);
    assert.equal(detectClaudeAgentSdk({ type: 'assistant', message: {} }), false);
    assert.equal(detectClaudeAgentSdk({ type: 'ActionStep', step_number: 1 }), false);
  });
});

describe('Claude Agent SDK decoder: the stream events against the official @ai-sdk/anthropic provider', () => {
  for (const name of ['partial-thinking-todos.jsonl', 'error-max-turns.jsonl']) {
    test(`${name}: each streamed API message assembles to the same text, reasoning and tool calls`, async () => {
      const msgs = lines(name);
      const ids = [
        ...new Set(msgs.filter((m) => m.type === 'stream_event' && m.event.type === 'message_start').map((m) => m.event.message.id)),
      ];
      assert.ok(ids.length > 0);
      for (const id of ids) {
        // Only this message's lines (stream events and the assistant messages it produced).
        const own = msgs.filter(
          (m) => (m.type === 'stream_event' && m.api_message_id === id) || (m.type === 'assistant' && m.message.id === id),
        );
        const sse = own
          .map((m) => `event: ${m.event?.type}\ndata: ${JSON.stringify(m.event)}\n\n`)
          .filter((s) => !s.startsWith('event: undefined'));
        const official = await officialAnthropicMessage(sse.join(''));
        // Ours has no result line here (a truncated run: an error chunk, which assembly reports, not throws).
        const ours = await assembleUIMessage(toAiSdk([own.map((m) => JSON.stringify(m)).join('\n')]));
        assert.deepEqual(summarizeMessage(ours), summarizeMessage(official), id);
      }
    });
  }
});

describe('Claude Agent SDK decoder: the AI SDK UI message stream of each capture', () => {
  for (const name of FINISHED) {
    test(`${name}: accepted by the official client schema and assembled by readUIMessageStream`, async () => {
      const sse = toAiSdk([read(name)]);
      const { message, errorTexts, finishReason } = await assembleChunks(await parseAiSdkSse(sse));
      const msgs = sdkMessages(name);
      const result = msgs.at(-1) as Msg;
      assert.equal(finishReason, result.is_error ? 'error' : 'stop');
      assert.equal(result.type, 'result');
      const summary = summarizeMessage(message);
      // The main agent's last text is the result text (error results: the synthetic error message).
      if (!result.is_error) assert.ok(summary.text.endsWith(result.result), 'the final text');
      if (result.is_error) assert.ok(errorTexts.length > 0);
      for (const t of summary.tools)
        assert.ok(['output-available', 'output-error', 'output-denied', 'input-available'].includes(t.state), t.state);
    });
  }

  test('partial-thinking-todos: reasoning with its signature, tools with outputs, the todo list', async () => {
    const m = await assembleUIMessage(toAiSdk([read('partial-thinking-todos.jsonl')]));
    const kinds = m.parts.map((p) => p.type);
    assert.deepEqual(
      kinds.filter((k) => k !== 'step-start' && !k.startsWith('data-')),
      ['reasoning', 'text', 'tool-TodoWrite', 'tool-Read', 'tool-TodoWrite', 'text'],
    );
    const reasoning = m.parts.find((p) => p.type === 'reasoning') as { providerMetadata?: Msg };
    assert.equal(reasoning.providerMetadata?.switchboard?.variant, 'thinking');
    assert.match(reasoning.providerMetadata?.anthropic?.signature, /^EuYB/);
    const todos = m.parts.find((p) => p.type === 'data-todos') as { data: Msg };
    assert.deepEqual(
      todos.data.todos.map((t: Msg) => t.status),
      ['completed', 'in_progress'],
    );
    for (const t of summarizeMessage(m).tools) assert.equal(t.state, 'output-available');
  });

  test('parallel-tools: three tool parts, one output-error', async () => {
    const m = await assembleUIMessage(toAiSdk([read('parallel-tools.jsonl')]));
    assert.deepEqual(
      summarizeMessage(m).tools.map((t) => t.state),
      ['output-available', 'output-available', 'output-error'],
    );
  });

  test('subagent: the Agent tool part has the hand-back, the subagent is a data part', async () => {
    const m = await assembleUIMessage(toAiSdk([read('subagent.jsonl')]));
    const agent = summarizeMessage(m).tools.find((t) => t.toolName === 'Agent');
    assert.equal(agent?.state, 'output-available');
    const sub = m.parts.find((p) => p.type === 'data-subagent') as { data: Msg };
    assert.equal(sub.data.event, 'subagent-finish');
  });
});

describe('Claude Agent SDK decoder: chunk boundaries', () => {
  for (const name of ['partial-thinking-todos.jsonl', 'subagent.jsonl']) {
    test(`${name}: the same bytes split at random points give identical events`, () => {
      const bytes = new Uint8Array(read(name));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 30, numRuns: 60 });
    });
  }
});

describe('Claude Agent SDK decoder: lossless', () => {
  test('every field of every captured message is found in the canonical output', () => {
    // Structural: `type` / `subtype` discriminators (message, event, block and delta kinds become event
    // kinds) and the `role` of messages (an assistant message always yields assistant content, a user
    // message is recognised by its type).
    const structural = (path: string) =>
      /(^|\.)type$/.test(path) || path === 'subtype' || path === 'request.subtype' || /(^|\.)message\.role$/.test(path);
    for (const name of FIXTURES) {
      const events = decode([read(name)]);
      assert.deepEqual(missingLeaves(lines(name), events, { ignore: structural }), [], name);
    }
  });
});

describe('Claude Agent SDK decoder: bad input never throws and keeps what came before', () => {
  const capture = lines('partial-thinking-todos.jsonl');
  const text = (events: CanonicalEvent[]) =>
    ofType(events, 'text-delta')
      .map((e) => e.delta)
      .join('');

  test('a truncated stream: a fatal "truncated" error, open blocks closed, the run ends with error', () => {
    // Cut inside the text block of the first message.
    const cut =
      capture.findIndex((m) => m.type === 'stream_event' && m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta') +
      2;
    const events = decodeLines(capture.slice(0, cut));
    assert.deepEqual(validate(events).issues, []);
    assert.equal(text(events), "I'll track this with a short todo list, then look at the config.".slice(0, text(events).length));
    assert.ok(text(events).length > 0);
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal], ['truncated', true]);
    assert.deepEqual(
      events.slice(-3).map((e) => e.type),
      ['text-end', 'step-finish', 'run-finish'],
    );
    const finish = events.at(-1);
    assert.equal(finish?.type === 'run-finish' && finish.finishReason, 'error');
  });

  test('a non-JSON line in the middle: a located error, decoding goes on', () => {
    const body = capture.map((m) => JSON.stringify(m));
    body.splice(20, 0, 'this is not json');
    const events = decode([body.join('\n')]);
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal, err?.where?.line], ['invalid_json', false, 21]);
    assert.deepEqual(contentOf(events), sdkContent(capture));
    assert.equal(events.at(-1)?.type === 'run-finish' && (events.at(-1) as Msg).finishReason, 'stop');
  });

  test('an unknown message type becomes a raw event, untouched and located', () => {
    const odd = { type: 'future_message', payload: { x: 1 }, session_id: capture[0]?.session_id };
    const events = decodeLines([capture[0], odd, capture.at(-1)]);
    const raw = ofType(events, 'raw')[0];
    assert.deepEqual(raw?.event, odd);
    assert.deepEqual(raw?.where, { line: 2 });
    assert.match(raw?.reason ?? '', /future_message/);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a stream delta for a block that never started: located at event.index, nothing lost', () => {
    const start = capture.find((m) => m.type === 'stream_event' && m.event.type === 'message_start');
    const stray = { ...start, event: { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'lost?' } } };
    const events = decodeLines([capture[0], start, stray]);
    const err = ofType(events, 'error')[0];
    assert.equal(err?.code, 'unknown_block');
    assert.deepEqual(err?.where, { line: 3, field: 'event.index', expected: 'the index of an open content block' });
    assert.match(err?.message ?? '', /^line 3, field event\.index: content_block_delta for block index 7/);
    assert.deepEqual(validate(events).issues, []);
  });

  test('values of the wrong type: located errors', () => {
    const events = decodeLines([
      capture[0],
      42,
      { no: 'type' },
      { type: 'assistant', message: { content: 'not an array' }, parent_tool_use_id: null },
      { type: 'stream_event', event: 'nope', parent_tool_use_id: null },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'x' }] }, parent_tool_use_id: null },
      capture.at(-1),
    ]);
    assert.deepEqual(
      ofType(events, 'error').map((e) => e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'type', expected: 'string' },
        { line: 4, field: 'message.content', expected: 'array of content blocks' },
        { line: 5, field: 'event.type', expected: 'string' },
        { line: 6, field: 'message.content[0].tool_use_id', expected: 'string' },
      ],
    );
    assert.deepEqual(validate(events).issues, []);
    assert.equal(events.at(-1)?.type, 'run-finish');
  });

  test('hook messages before system/init are decoded after run-start, which keeps the init data', () => {
    const hook = {
      type: 'system',
      subtype: 'hook_started',
      hook_id: 'h1',
      hook_name: 'SessionStart:startup',
      hook_event: 'SessionStart',
      uuid: 'u0',
      session_id: capture[0]?.session_id,
    };
    const events = decodeLines([hook, capture[0], capture.at(-1)]);
    assert.equal(events[0]?.type === 'run-start' && events[0].model, capture[0]?.model);
    assert.deepEqual(ofType(events, 'raw')[0]?.event, hook);
  });

  test('an assistant message whose step was already closed: a fresh step id, no duplicate block ids', () => {
    const whole = lines('parallel-tools.jsonl');
    const first = whole[1] as Msg;
    const status = { type: 'system', subtype: 'status', status: 'requesting', session_id: first.session_id, uuid: 'u-status' };
    const events = decodeLines([whole[0], first, status, { ...first, uuid: 'u-again' }, whole.at(-1)]);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      ofType(events, 'step-start').map((e) => e.stepId),
      [first.message.id, `${first.message.id}#2`],
    );
    assert.deepEqual(
      ofType(events, 'text-start').map((e) => e.blockId),
      [`${first.message.id}:0`, `${first.message.id}#2:0`],
    );
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(
      decode(['']).map((e) => e.type),
      ['run-start', 'error', 'run-finish'],
    );
  });
});
