import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const ev = (type: string, data: Record<string, unknown> = {}) => ({ type, data });

/** The DeepAgents dialect's example run, with every event type the format lists. */
const RUN = [
  ev('start', { prompt_preview: 'Research AI safety', architecture: 'orchestrator_subagent' }),
  ev('status', { message: 'DeepAgents Research Agent starting...' }),
  ev('todo_create', { items: [{ content: 'Research topic A', status: 'pending' }] }),
  ev('todos', {
    todos: [
      { content: 'Research topic A', status: 'in_progress' },
      { content: 'Write report', status: 'pending' },
    ],
  }),
  ev('subagent_start', { agent: 'research-agent', task: 'Research AI safety' }),
  ev('search', { id: 's1', query: 'AI safety 2024', topic: 'general' }),
  ev('search_result', { count: 1, results: [{ title: 'Paper', url: 'https://example.com/p' }] }),
  ev('think', { id: 'k1', thought: 'Found 3 relevant sources...' }),
  ev('tool_call_start', { id: 't1', name: 'read_file' }),
  ev('tool_use', { id: 't1', input: { path: 'notes.md' } }),
  ev('tool_result', { tool_use_id: 't1', content: '# Notes' }),
  ev('subagent_complete', { agent: 'research-agent', summary: 'Three sources.' }),
  ev('todo_update', {
    items: [
      { content: 'Research topic A', status: 'completed' },
      { content: 'Write report', status: 'in_progress' },
    ],
  }),
  ev('todo_done', { content: 'Write report' }),
  ev('text', { content: '# Research Report\n\n' }),
  ev('text', { content: 'AI safety is…' }),
  ev('usage', { input_tokens: 1000, output_tokens: 500 }),
  ev('usage_total', { input_tokens: 5000, output_tokens: 2500 }),
  ev('result', { duration_ms: 45000, num_turns: 12 }),
  ev('done'),
];

describe('DeepAgents', () => {
  const events = decodeObjects(RUN, 'deepagents');

  test('a valid canonical stream', () => {
    assert.deepEqual(validate(events).issues, []);
    assert.equal(events[0]?.type === 'run-start' && events[0].provider, 'deepagents');
  });

  test('subagent notes go to the thinking block, status and todos to processing', () => {
    const blocks = events.filter((e) => e.type === 'reasoning-start').map((e) => (e.type === 'reasoning-start' ? e.variant : ''));
    // Tool calls close open blocks, so the search and the file read split the thinking into three.
    assert.deepEqual(blocks, ['processing', 'thinking', 'thinking', 'thinking']);
    const thinking = events
      .filter((e) => e.type === 'reasoning-delta')
      .map((e) => (e.type === 'reasoning-delta' ? e.delta : ''))
      .join('');
    assert.match(thinking, /Subagent research-agent: Research AI safety/);
    assert.match(thinking, /Found 3 relevant sources/);
    assert.match(thinking, /Subagent research-agent finished: Three sources\./);
    const sub = events.filter((e) => e.type === 'subagent-start' || e.type === 'subagent-finish');
    assert.equal(sub.length, 2);
  });

  test('search is an internet_search tool call whose result is the search_result', () => {
    const input = events.find((e) => e.type === 'tool-input-end' && e.toolName === 'internet_search');
    assert.ok(input?.type === 'tool-input-end');
    assert.deepEqual([input.toolCallId, input.input], ['s1', { query: 'AI safety 2024', topic: 'general' }]);
    const output = events.find((e) => e.type === 'tool-output' && e.toolCallId === 's1');
    assert.ok(output?.type === 'tool-output');
    assert.deepEqual(output.output, { count: 1, results: [{ title: 'Paper', url: 'https://example.com/p' }] });
  });

  test('tool_call_start then tool_use is one call', () => {
    assert.equal(events.filter((e) => e.type === 'tool-input-start' && e.toolCallId === 't1').length, 1);
    const end = events.find((e) => e.type === 'tool-input-end' && e.toolCallId === 't1');
    assert.ok(end?.type === 'tool-input-end' && end.toolName === 'read_file');
  });

  test('todos: create, snapshot, update, done', () => {
    const todos = events
      .filter((e) => e.type === 'todos')
      .map((e) => (e.type === 'todos' ? [e.change, e.todos.map((t) => t.status).join()] : []));
    assert.deepEqual(todos, [
      ['create', 'pending'],
      ['snapshot', 'in_progress,pending'],
      ['update', 'completed,in_progress'],
      ['done', 'completed,completed'],
    ]);
  });

  test('usage: incremental and total', () => {
    const usage = events
      .filter((e) => e.type === 'usage')
      .map((e) => (e.type === 'usage' ? [e.scope, e.usage.inputTokens, e.usage.outputTokens] : []));
    assert.deepEqual(usage, [
      ['increment', 1000, 500],
      ['total', 5000, 2500],
      ['total', undefined, undefined],
    ]);
  });

  test('lossless', () => {
    assert.deepEqual(missingLeaves(RUN, events, { ignore: (path) => path === 'type' }), []);
  });

  test('chunk boundaries', () => {
    const bytes = new TextEncoder().encode(RUN.map((o) => JSON.stringify(o)).join('\n'));
    const whole = decodeChunks([bytes], 'deepagents');
    assertSplitInvariant(bytes, (chunks) => decodeChunks(chunks, 'deepagents'), { expected: whole, maxCuts: 30, numRuns: 100 });
  });

  test('a tool announced but never given its input is closed at the end, with the reason', () => {
    const events = decodeObjects([ev('tool_call_start', { id: 'x', name: 'slow' }), ev('done')], 'deepagents');
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end' && end.inputError !== undefined);
    assert.deepEqual(validate(events).issues, []);
  });
});
