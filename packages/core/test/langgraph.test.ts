import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '../src/index.ts';
import { detectLangchain } from '../src/inputs/langchain.ts';
import { createLanggraphDecoder, detectLanggraph } from '../src/inputs/langgraph.ts';
import { validate } from '../src/schema.ts';
import { officialMessage, oursMessage, summarizeMessage } from './fixtures/langchain/official.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES, ofType } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const RECORDED = `${FIXTURES}recorded/langchain/`;
const OWN = new URL('./fixtures/langchain/', import.meta.url).pathname;
/** Every LangGraph capture: the recorded ones (vercel/ai) and the ones record.ts made. */
const CAPTURES = [
  ...readdirSync(RECORDED)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => RECORDED + f),
  ...readdirSync(OWN)
    .filter((f) => f.startsWith('graph-') && f.endsWith('.jsonl'))
    .map((f) => OWN + f),
];
const name = (path: string) => path.split('/').at(-1) as string;

const decode = (chunks: (string | Uint8Array)[]): CanonicalEvent[] => decodeChunks(chunks, 'langgraph');

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown[]);

type Ev<T extends CanonicalEvent['type']> = Extract<CanonicalEvent, { type: T }>;
const text = (events: CanonicalEvent[]) =>
  ofType(events, 'text-delta')
    .map((e) => e.delta)
    .join('');

/** What the last values snapshot holds: the AI text and tool calls of the messages this run added. */
function lastState(path: string) {
  const all = lines(path);
  const values = all.filter((l) => l.at(-2) === 'values' && !('__interrupt__' in (l.at(-1) as object)));
  const first = values[0]?.at(-1) as { messages: { id: string[]; kwargs: Record<string, unknown> }[] };
  const last = values.at(-1)?.at(-1) as typeof first;
  const before = new Set(first.messages.map((m) => m.kwargs.id));
  const added = last.messages.filter((m) => !before.has(m.kwargs.id));
  let t = '';
  const calls: [string, string, unknown][] = [];
  const outputs: [string, unknown][] = [];
  for (const m of added) {
    const k = m.kwargs;
    const cls = m.id.at(-1) as string;
    if (cls.startsWith('AIMessage')) {
      if (typeof k.content === 'string') t += k.content;
      else for (const b of k.content as { type: string; text?: string }[]) if (b.type === 'text' && b.text) t += b.text;
      for (const c of (k.tool_calls ?? []) as { id: string; name: string; args: unknown }[]) calls.push([c.id, c.name, c.args]);
    }
    if (cls.startsWith('ToolMessage')) outputs.push([k.tool_call_id as string, k.content]);
  }
  return { text: t, calls, outputs };
}

describe('LangGraph decoder: captures', () => {
  for (const path of CAPTURES) {
    test(`${name(path)}: valid; text, tool calls and outputs are what the final state holds, each once`, () => {
      const events = decode([readFileSync(path)]);
      assert.deepEqual(validate(events).issues, []);
      assert.equal(events.at(-1)?.type, 'run-finish');
      const hasValues = lines(path).some((l) => l.at(-2) === 'values' && !('__interrupt__' in (l.at(-1) as object)));
      const starts = ofType(events, 'tool-input-start').map((e) => e.toolCallId);
      assert.equal(new Set(starts).size, starts.length, 'no tool call twice');
      const outs = [...ofType(events, 'tool-output'), ...ofType(events, 'tool-error')].filter((e) => !e.providerExecuted);
      assert.equal(new Set(outs.map((o) => o.toolCallId)).size, outs.length, 'no tool output twice');
      if (!hasValues || lines(path).filter((l) => l.at(-2) === 'values').length < 2) return;
      const state = lastState(path);
      assert.equal(text(events), state.text, 'the text, once (streamed and in the snapshot)');
      const calls = ofType(events, 'tool-input-end')
        .filter((e) => !e.providerExecuted)
        .map((e) => [e.toolCallId, e.toolName, e.input]);
      const expectedCalls = state.calls;
      for (const c of expectedCalls)
        assert.ok(
          calls.some((x) => JSON.stringify(x) === JSON.stringify(c)),
          `tool call ${JSON.stringify(c)}`,
        );
      assert.deepEqual(
        outs.map((o) => [o.toolCallId, o.type === 'tool-output' ? o.output : o.output]),
        state.outputs,
      );
    });
  }

  test('REACT_AGENT_TOOL_CALLING: reasoning, 2 parallel tool calls, 2 outputs, the answer; steps follow langgraph_step', () => {
    const events = decode([readFileSync(`${RECORDED}langgraph.REACT_AGENT_TOOL_CALLING.jsonl`)]);
    assert.deepEqual(
      ofType(events, 'step-start').map((s) => [s.name, s.number, s.kind]),
      [
        ['model_request', 1, 'model'],
        ['tools', 2, 'action'],
        ['model_request', 3, 'model'],
      ],
    );
    assert.deepEqual(
      ofType(events, 'tool-input-end').map((e) => [e.toolCallId, e.toolName, e.input, e.providerMetadata]),
      [
        [
          'call_lxFuvuhpu9gvtx04WrmXZF9h',
          'get_weather',
          { city: 'Tokyo', units: 'celsius' },
          { openai: { itemId: 'fc_07c65bfd34e192ce006941ac4bcf588196805e5b21f968823c' } },
        ],
        [
          'call_U3RijXRN09TXMyKWFZwqWjnJ',
          'get_datetime',
          { timezone: 'Asia/Tokyo', format: 'full' },
          { openai: { itemId: 'fc_07c65bfd34e192ce006941ac4bd6d48196bffae6d6221f982c' } },
        ],
      ],
    );
    const reasoning = ofType(events, 'reasoning-delta')
      .map((e) => e.delta)
      .join('');
    assert.match(reasoning, /^\*\*Getting weather and time\*\*/);
    const finishes = ofType(events, 'step-finish');
    assert.deepEqual(
      finishes.map((s) => s.finishReason),
      ['tool-calls', undefined, 'stop'],
    );
    assert.equal(finishes[0]?.usage?.reasoningTokens, 64);
    const run = events.at(-1) as Ev<'run-finish'>;
    assert.deepEqual([run.finishReason, run.usage?.inputTokens, run.usage?.outputTokens], ['stop', 346 + 879, 126 + 48]);
  });

  test('LANGGRAPH_RESPONSE_1: the HumanInTheLoop interrupt is a tool-approval-request for its call; the run ends waiting', () => {
    const events = decode([readFileSync(`${RECORDED}langgraph.LANGGRAPH_RESPONSE_1.jsonl`)]);
    const [request] = ofType(events, 'tool-approval-request');
    assert.deepEqual(
      [request?.approvalId, request?.toolCallId, request?.toolName],
      ['32af76067f247461dd16d63e49c49e88', 'call_LOd3dMxgYxmNLWZVWXra9xWQ', 'delete_file'],
    );
    assert.match(request?.reason ?? '', /Action requires approval/);
    assert.deepEqual(request?.providerMetadata?.langgraph?.reviewConfig, {
      actionName: 'delete_file',
      allowedDecisions: ['approve', 'reject'],
    });
    assert.equal(ofType(events, 'interrupt').length, 0);
    const status = ofType(events, 'status')[0];
    assert.equal(status?.status, 'interrupted');
    assert.match(status?.message ?? '', /Action requires approval/);
    const finish = events.at(-1) as Ev<'run-finish'>;
    assert.deepEqual([finish.finishReason, finish.pending], ['tool-calls', { approvalIds: ['32af76067f247461dd16d63e49c49e88'] }]);
    // The tool call that waits for approval is there, with its input, and no output.
    assert.deepEqual(
      ofType(events, 'tool-input-end').map((e) => [e.toolCallId, e.input]),
      [['call_LOd3dMxgYxmNLWZVWXra9xWQ', { filename: 'report.pdf' }]],
    );
    assert.equal(ofType(events, 'tool-output').length, 0);
  });

  test('LANGGRAPH_RESPONSE_2 (resume): the earlier call shown with its input before its output; old messages are not repeated', () => {
    const events = decode([readFileSync(`${RECORDED}langgraph.LANGGRAPH_RESPONSE_2.jsonl`)]);
    assert.deepEqual(
      events.filter((e) => e.type.startsWith('tool-')).map((e) => e.type),
      ['tool-input-start', 'tool-input-end', 'tool-output'],
    );
    assert.equal(ofType(events, 'reasoning-delta').length, 0, 'the reasoning of the first turn is history');
    assert.match(text(events), /^The file "report.pdf" has been queued/);
  });

  test('graph-all-modes: every mode; tools mode and ToolMessages give one output per call; custom status; traces are raw', () => {
    const events = decode([readFileSync(`${OWN}graph-all-modes.jsonl`)]);
    assert.deepEqual(
      ofType(events, 'status').map((s) => s.status),
      ['thinking', 'thinking'],
    );
    const raws = ofType(events, 'raw');
    assert.ok(raws.length > 0 && raws.every((r) => /"(debug|tasks|checkpoints)" stream/.test(r.reason ?? '')));
    assert.ok(ofType(events, 'state-snapshot').length >= 3);
    assert.ok(ofType(events, 'state-delta').length >= 3);
    assert.deepEqual(
      ofType(events, 'tool-output').map((o) => o.toolCallId),
      ['toolu_01Paris', 'toolu_01Tokyo', 'srvtoolu_01Search'],
    );
    assert.equal(
      ofType(events, 'reasoning-end')[0]?.providerMetadata?.anthropic?.signature,
      'EqQBCkYIBxgCKkBz1Xq5V9bY0xw3PjcTgR2h6u6pK1sQvE0Zr8',
    );
    assert.equal(ofType(events, 'step-finish')[0]?.usage?.cacheReadTokens, 20480);
  });

  test('graph-values-only: the messages exist only in snapshots and are shown once, whole', () => {
    const events = decode([readFileSync(`${OWN}graph-values-only.jsonl`)]);
    assert.equal(text(events), 'Checking both cities now.Paris is sunny, 21°C; Tokyo has light rain, 18°C.');
    assert.deepEqual(
      ofType(events, 'tool-output').map((o) => o.toolCallId),
      ['toolu_01Paris', 'toolu_01Tokyo', 'srvtoolu_01Search'],
    );
    assert.equal(ofType(events, 'reasoning-delta').length, 1);
  });

  test('graph-updates: node updates are steps named after the node, with state deltas', () => {
    const events = decode([readFileSync(`${OWN}graph-updates.jsonl`)]);
    assert.deepEqual(
      ofType(events, 'step-start').map((s) => [s.name, s.kind]),
      [
        ['agent', 'model'],
        ['tools', 'action'],
        ['agent', 'model'],
      ],
    );
    const delta = ofType(events, 'state-delta')[0];
    assert.equal(delta?.patch[0]?.path, '/messages');
    assert.equal(text(events), 'Checking both cities now.Paris is sunny, 21°C; Tokyo has light rain, 18°C.');
  });

  test('graph-subgraph-interrupt: the subgraph is a subagent; todos from state; the interrupt ends the run', () => {
    const events = decode([readFileSync(`${OWN}graph-subgraph-interrupt.jsonl`)]);
    const start = ofType(events, 'subagent-start')[0];
    assert.equal(start?.name, 'researcher');
    const inside = events.filter((e) => e.subagentId === start?.subagentId && e.type !== 'subagent-start');
    assert.ok(inside.some((e) => e.type === 'text-delta'));
    assert.ok(inside.some((e) => e.type === 'custom' && e.name === 'progress'));
    assert.equal(ofType(events, 'subagent-finish')[0]?.subagentId, start?.subagentId);
    assert.deepEqual(
      ofType(events, 'todos').map((t) => t.todos.map((x) => x.status)),
      [['in_progress', 'pending']],
    );
    const interrupts = ofType(events, 'interrupt');
    assert.equal(interrupts.length, 1, 'one interrupt, though updates and values both carry it');
    assert.deepEqual(
      [interrupts[0]?.interruptId, interrupts[0]?.reason, interrupts[0]?.message, interrupts[0]?.value],
      ['f48a9c3de5a048bda75d4470243a5f7c', 'input_required', 'Send the answer?', { question: 'Send the answer?', options: ['yes', 'no'] }],
    );
    const finish = events.at(-1) as Ev<'run-finish'>;
    assert.deepEqual([finish.finishReason, finish.pending], ['other', { interruptIds: ['f48a9c3de5a048bda75d4470243a5f7c'] }]);
  });

  test('graph-resume: the approve update changes the todos; the answer streams', () => {
    const events = decode([readFileSync(`${OWN}graph-resume.jsonl`)]);
    assert.deepEqual(
      ofType(events, 'todos').map((t) => t.todos.map((x) => x.status)),
      [['completed', 'completed']],
    );
    assert.equal(text(events), 'Oslo will be cloudy.');
    assert.equal((events.at(-1) as Ev<'run-finish'>).finishReason, 'stop');
  });
});

describe('LangGraph decoder: against the official @ai-sdk/langchain path', () => {
  for (const path of CAPTURES.filter((p) => !/graph-(updates|subgraph|resume)/.test(p))) {
    test(`${name(path)}: same text and client tool calls`, async () => {
      const official = summarizeMessage((await officialMessage(path)).message);
      const ours = summarizeMessage(await oursMessage(path, createLanggraphDecoder({ runId: 'run', now: () => 0 })));
      if (name(path) === 'graph-values-only.jsonl') {
        // With values only, the official adapter shows tool calls and reasoning from the snapshots
        // but no text; we show the new messages of each snapshot whole.
        assert.equal(official.text, '');
        assert.equal(ours.text, lastState(path).text);
        return;
      }
      assert.equal(ours.text, official.text);
      const client = (tools: typeof ours.tools) =>
        tools.filter((t) => !t.providerExecuted).map((t) => ({ id: t.toolCallId, name: t.toolName, input: t.input, output: t.output }));
      assert.deepEqual(client(ours.tools), client(official.tools));
      // We also show Anthropic's server tools (web_search), which the official adapter drops.
      assert.equal(official.tools.filter((t) => t.providerExecuted).length, 0);
      // The official adapter repeats a reasoning summary that streamed and is also in the next
      // values snapshot (it keys it by the reasoning item id on one side and the message on the other);
      // we show it once.
      assert.deepEqual(
        official.reasoning,
        ours.reasoning.map((r) => (/graph-/.test(name(path)) ? r : r + r)),
      );
    });
  }

  for (const path of CAPTURES.filter((p) => /graph-(updates|subgraph|resume)/.test(p))) {
    test(`${name(path)}: our AI SDK stream passes the official schema and assembles`, async () => {
      const ours = summarizeMessage(await oursMessage(path, createLanggraphDecoder({ runId: 'run', now: () => 0 })));
      assert.ok(ours.text.length > 0);
    });
  }

  test('HITL: like the official adapter, the interrupt is a tool approval request (state approval-requested)', async () => {
    const path = `${RECORDED}langgraph.LANGGRAPH_RESPONSE_1.jsonl`;
    const official = summarizeMessage((await officialMessage(path)).message);
    const ours = summarizeMessage(await oursMessage(path, createLanggraphDecoder({ runId: 'run', now: () => 0 })));
    assert.equal(official.tools[0]?.state, 'approval-requested');
    assert.equal(ours.tools[0]?.state, 'approval-requested');
    assert.equal(ours.tools[0]?.toolCallId, official.tools[0]?.toolCallId);
  });
});

describe('LangGraph decoder: chunk boundaries', () => {
  for (const file of [`${RECORDED}langgraph.REACT_AGENT_TOOL_CALLING.jsonl`, `${OWN}graph-subgraph-interrupt.jsonl`]) {
    test(`${name(file)}: the same bytes split at random points give identical events`, () => {
      const bytes = new Uint8Array(readFileSync(file));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 30, numRuns: 60 });
    });
  }
});

/**
 * Structural input fields, not looked up: the stream mode of each tuple (it becomes the canonical
 * event kind), the `event` name of `tools` mode events, content-block `type` / `index`, the `lc` /
 * `type` / `id` path of LangChain's serialized form, `invalid_tool_calls` (re-derived by LangChain
 * on every chunk from the partial tool_call_chunks), and a `tools` mode `input`, which is the model's
 * tool call arguments again as JSON text (the decoder compares them as JSON).
 */
const STRUCTURAL = (path: string, value: string | number) =>
  (/^\[[01]\]$/.test(path) && typeof value === 'string') ||
  path === '[1].event' ||
  path === '[1].input' ||
  /(^|\.)type$/.test(path) ||
  /(^|\.)index$/.test(path) ||
  /(^|\.)id\[\d+\]$/.test(path) ||
  /(^|\.)lc$/.test(path) ||
  /invalid_tool_calls/.test(path);

describe('LangGraph decoder: lossless', () => {
  for (const path of CAPTURES) {
    test(`${name(path)}: every input field is found in the canonical output`, () => {
      const events = decode([readFileSync(path)]);
      assert.deepEqual(missingLeaves(lines(path), events, { ignore: STRUCTURAL }), []);
    });
  }
});

describe('LangGraph decoder: bad input never throws and keeps what came before', () => {
  const meta = { langgraph_node: 'agent', langgraph_step: 1 };
  const hi = ['messages', [{ type: 'AIMessageChunk', id: 'a1', content: 'Hi' }, meta]];

  test('a non-JSON line: located error, decoding goes on', () => {
    const body = [
      JSON.stringify(hi),
      '{oops',
      JSON.stringify(['messages', [{ type: 'AIMessageChunk', id: 'a1', content: '!' }, meta]]),
    ].join('\n');
    const events = decode([body]);
    const err = ofType(events, 'error')[0];
    assert.ok(err && err.code === 'invalid_json' && err.where?.line === 2);
    assert.equal(text(events), 'Hi!');
    assert.deepEqual(validate(events).issues, []);
  });

  test('wrong shapes: located errors; unknown modes: raw', () => {
    const events = decodeObjects(
      [
        hi,
        { not: 'a tuple' },
        [1, 2],
        ['messages', 'x'],
        ['messages', [{ nope: true }, {}]],
        ['updates', 5],
        ['telepathy', {}],
        ['messages', [{ type: 'AIMessageChunk', id: 'a1', content: 7 }, meta]],
      ],
      'langgraph',
    );
    assert.deepEqual(
      ofType(events, 'error').map((e) => e.where),
      [
        { line: 2, expected: 'array' },
        { line: 3, expected: '[mode, payload]' },
        { line: 4, field: '[1]', expected: '[message, metadata]' },
        { line: 5, field: '[1][0]', expected: 'message' },
        { line: 6, field: 'payload', expected: 'object' },
        { line: 8, field: '[1][0].content', expected: 'string or array' },
      ],
    );
    assert.match(ofType(events, 'raw')[0]?.reason ?? '', /unknown stream mode "telepathy"/);
    assert.equal(text(events), 'Hi');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a stream cut mid-message: blocks and the step are closed, the run finishes', () => {
    const events = decodeObjects([hi], 'langgraph');
    assert.deepEqual(
      events.map((e) => e.type),
      ['run-start', 'step-start', 'text-start', 'text-delta', 'text-end', 'step-finish', 'run-finish'],
    );
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(
      decode(['']).map((e) => e.type),
      ['run-start', 'error', 'run-finish'],
    );
  });

  test('custom writes: todos and status are recognised, the rest is custom', () => {
    const events = decodeObjects(
      [
        ['custom', { type: 'todos', todos: [{ content: 'a', status: 'pending' }] }],
        ['custom', { type: 'status', status: 'searching', message: 'Searching' }],
        ['custom', { anything: 1 }],
      ],
      'langgraph',
    );
    assert.deepEqual(
      events.slice(1, -1).map((e) => e.type),
      ['todos', 'status', 'custom'],
    );
  });
});

describe('LangGraph detection', () => {
  test('claims [mode, payload] tuples and nothing else', () => {
    for (const path of CAPTURES) for (const l of lines(path)) assert.ok(detectLanggraph(l), name(path));
    assert.equal(detectLanggraph({ type: 'message_start' }), false);
    assert.equal(detectLanggraph({ type: 'text', data: {} }), false);
    assert.equal(detectLanggraph([1, 2]), false);
    assert.equal(detectLangchain(lines(CAPTURES[0] as string)[0]), false);
  });
});
