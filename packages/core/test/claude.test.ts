import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, types } from './helpers.ts';

const ev = (type: string, data: Record<string, unknown> = {}) => ({ type, data });

const AGENT_RUN = [
  ev('start', { prompt_preview: 'hi', model: 'demo-1' }),
  ev('status', { message: 'Analyzing…' }),
  ev('status', { message: 'Planning' }),
  ev('todo_create', { items: [{ content: 'Look up weather', status: 'pending' }, 'Answer'] }),
  ev('thinking', { content: 'Let me ' }),
  ev('thinking', { content: 'think.' }),
  ev('think', { thought: 'Key insight.' }),
  ev('subagent_spawn', { agent: 'researcher', task: 'Find sources' }),
  ev('tool_use', { id: 't1', name: 'get_weather', input: { city: 'Paris' } }),
  ev('tool_result', { tool_use_id: 't1', content: '18°C' }),
  ev('todo_done', { index: 0 }),
  ev('text', { content: 'It is ' }),
  ev('text', { content: '18°C.' }),
  ev('result', {
    session_id: 's1',
    duration_ms: 1234,
    total_cost_usd: 0.01,
    usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3 },
  }),
  ev('done'),
];

describe('simplified Claude agent format', () => {
  const events = decodeObjects(AGENT_RUN, 'claude');

  test('decodes into a valid canonical stream', () => {
    assert.deepEqual(validate(events).issues, []);
    assert.equal(events[0]?.type === 'run-start' && events[0].model, 'demo-1');
  });

  test('the block rules: status → processing, thinking closes it, text closes all reasoning', () => {
    const blocks = events
      .filter((e) => e.type === 'reasoning-start' || e.type === 'reasoning-end' || e.type === 'text-start' || e.type === 'text-end')
      .map((e) => (e.type === 'reasoning-start' ? `open:${e.variant}` : e.type));
    assert.deepEqual(blocks, [
      'open:processing',
      'reasoning-end',
      'open:thinking',
      'reasoning-end',
      'open:processing', // subagent_spawn is a status line
      'reasoning-end', // tool calls close open blocks
      'text-start',
      'text-end',
    ]);
    const deltas = (variant: string) => {
      const ids = new Set(
        events.filter((e) => e.type === 'reasoning-start' && e.variant === variant).map((e) => (e as { blockId: string }).blockId),
      );
      return events
        .filter((e) => e.type === 'reasoning-delta' && ids.has(e.blockId))
        .map((e) => (e as { delta: string }).delta)
        .join('');
    };
    assert.equal(deltas('processing'), 'Analyzing…\nPlanningSubagent researcher: Find sources');
    assert.equal(deltas('thinking'), 'Let me think.\n\nKey insight.');
  });

  test('tools, todos, subagents and usage', () => {
    const tool = events.find((e) => e.type === 'tool-input-end');
    assert.ok(tool?.type === 'tool-input-end' && tool.toolName === 'get_weather');
    assert.deepEqual(tool.input, { city: 'Paris' });
    const out = events.find((e) => e.type === 'tool-output');
    assert.ok(out?.type === 'tool-output' && out.toolCallId === 't1' && out.toolName === 'get_weather' && out.output === '18°C');
    const todos = events.filter((e) => e.type === 'todos');
    assert.deepEqual(
      todos.map((t) => t.type === 'todos' && [t.change, t.todos.map((x) => x.status)]),
      [
        ['create', ['pending', 'pending']],
        ['done', ['completed', 'pending']],
      ],
    );
    const sub = events.find((e) => e.type === 'subagent-start');
    assert.ok(sub?.type === 'subagent-start' && sub.name === 'researcher' && sub.task === 'Find sources');
    const usage = events.find((e) => e.type === 'usage');
    assert.ok(usage?.type === 'usage');
    assert.deepEqual(
      [usage.usage.inputTokens, usage.usage.outputTokens, usage.usage.cacheReadTokens, usage.usage.costUsd, usage.durationMs],
      [13, 5, 3, 0.01, 1234], // inputTokens counts the cached ones too
    );
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish' && finish.finishReason === 'stop');
    assert.deepEqual(finish.providerMetadata?.claude?.result, AGENT_RUN[13]?.data, 'the result is kept whole');
  });

  test('TodoWrite tool calls become todo snapshots', () => {
    const events = decodeObjects(
      [
        ev('tool_use', { id: 'tw', name: 'TodoWrite', input: { todos: [{ content: 'a', status: 'in_progress', activeForm: 'Doing a' }] } }),
        ev('done'),
      ],
      'claude',
    );
    const todos = events.find((e) => e.type === 'todos');
    assert.ok(todos?.type === 'todos');
    assert.deepEqual(todos.todos, [{ id: 'todo-1', content: 'a', status: 'in_progress', activeForm: 'Doing a' }]);
  });

  test('chunk boundaries: the same JSON lines split anywhere give identical events', () => {
    const body = `${AGENT_RUN.map((o) => JSON.stringify(o)).join('\n')}\n`;
    const bytes = new TextEncoder().encode(body);
    const whole = decodeChunks([bytes], 'claude');
    assert.deepEqual(
      whole,
      events.map((e) => ({ ...e })),
      'bytes and objects agree',
    );
    assertSplitInvariant(bytes, (chunks) => decodeChunks(chunks, 'claude'), { expected: whole, maxCuts: 30, numRuns: 200 });
  });
});

describe('simplified Claude agent format: bad input', () => {
  test('agent died without done: located truncated error, partial content kept', () => {
    const events = decodeObjects([ev('start'), ev('text', { content: 'partial' })], 'claude');
    assert.deepEqual(types(events).slice(-5), ['text-delta', 'error', 'text-end', 'step-finish', 'run-finish']);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated' && err.fatal);
    assert.deepEqual(validate(events).issues, []);
  });

  test('an agent error event: fatal error, run finishes with error', () => {
    const events = decodeObjects([ev('text', { content: 'a' }), ev('error', { message: 'boom' }), ev('done')], 'claude');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.message === 'boom' && err.fatal && err.where?.line === 2);
    const last = events.at(-1);
    assert.ok(last?.type === 'run-finish' && last.finishReason === 'error');
  });

  test('non-JSON line, bad data, unknown type: located, nothing lost', () => {
    const body = [
      '{"type":"text","data":{"content":"a"}}',
      'garbage',
      '{"type":"text","data":"not an object"}',
      '{"type":"mystery","data":{"x":1}}',
      '{"type":"text","data":{"content":"b"}}',
      '{"type":"done","data":{}}',
    ].join('\n');
    const events = decodeChunks([body], 'claude');
    const problems = events.filter((e) => e.type === 'error' || e.type === 'raw').map((e) => [e.type, (e as { where?: unknown }).where]);
    assert.deepEqual(problems, [
      ['error', { line: 2, expected: 'JSON' }],
      ['error', { line: 3, field: 'data', expected: 'object' }],
      ['raw', { line: 4 }],
    ]);
    const text = events
      .filter((e) => e.type === 'text-delta')
      .map((e) => (e as { delta: string }).delta)
      .join('');
    assert.equal(text, 'ab');
    assert.deepEqual(validate(events).issues, []);
  });
});

describe('auto detection', () => {
  test('recognises the agent format and the Anthropic stream from the first line', () => {
    const agent = decodeChunks(['{"type":"start","data":{}}\n{"type":"done","data":{}}\n'], 'auto');
    assert.equal(agent[0]?.type === 'run-start' && agent[0].provider, 'claude');
    const anthropic = decodeChunks(['{"type":"message_start","message":{"id":"m"}}\n{"type":"message_stop"}\n'], 'auto');
    assert.equal(anthropic[0]?.type === 'run-start' && anthropic[0].provider, 'anthropic');
  });
});

describe('simplified Claude agent format: lossless', () => {
  test('every field of the input is found in the canonical output', async () => {
    const { missingLeaves } = await import('./lossless.ts');
    const events = decodeObjects(AGENT_RUN, 'claude');
    assert.deepEqual(missingLeaves(AGENT_RUN, events, { ignore: (path) => path === 'type' }), []);
  });
});
