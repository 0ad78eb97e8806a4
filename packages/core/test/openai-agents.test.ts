import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { type CanonicalEvent, framed } from '../src/index.ts';
import { detectOpenAIAgents } from '../src/inputs/openai-agents.ts';
import { createOpenAIResponsesDecoder } from '../src/inputs/openai-responses.ts';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES, ofType } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

/** Real `run(agent, input, { stream: true })` streams of @openai/agents 0.20.0 (see the folder's README). */
const DIR = new URL('./fixtures/openai-agents/', import.meta.url).pathname;
const CAPTURES = readdirSync(DIR).filter((f) => f.endsWith('.jsonl'));
const read = (file: string) => readFileSync(DIR + file, 'utf8');

const decode = (chunks: (string | Uint8Array)[]): CanonicalEvent[] => decodeChunks(chunks, 'openai-agents');

const types = (events: CanonicalEvent[]) => events.map((e) => e.type);
const text = (events: CanonicalEvent[]) =>
  ofType(events, 'text-delta')
    .map((e) => e.delta)
    .join('');
const finishOf = (events: CanonicalEvent[]) => {
  const last = events.at(-1);
  assert.ok(last?.type === 'run-finish');
  return last;
};

/** The events between each step-start and its step-finish, by step id. */
function stepEvents(events: CanonicalEvent[]): Map<string, CanonicalEvent[]> {
  const steps = new Map<string, CanonicalEvent[]>();
  let current: CanonicalEvent[] | undefined;
  for (const e of events) {
    if (e.type === 'step-start') {
      current = [];
      steps.set(e.stepId, current);
    } else if (e.type === 'step-finish') current = undefined;
    else current?.push(e);
  }
  return steps;
}

describe('OpenAI Agents decoder: recorded runs', () => {
  test('every capture decodes into a valid canonical stream; no item is decoded twice', () => {
    for (const file of CAPTURES) {
      const events = decode([read(file)]);
      assert.equal(events[0]?.type === 'run-start' && events[0].provider, 'openai-agents', file);
      assert.deepEqual(validate(events).issues, [], file);
      assert.equal(events.at(-1)?.type, 'run-finish', file);
      const starts = ofType(events, 'tool-input-start').map((e) => e.toolCallId);
      assert.equal(new Set(starts).size, starts.length, `${file}: one tool-input-start per call`);
      const outputs = ofType(events, 'tool-output')
        .filter((e) => !e.preliminary)
        .map((e) => e.toolCallId);
      assert.equal(new Set(outputs).size, outputs.length, `${file}: one output per call`);
    }
  });

  test('parallel tools: one step holds the reasoning, both calls and both tool outputs; then the answer', () => {
    const events = decode([read('responses-parallel-tools.jsonl')]);
    const steps = stepEvents(events);
    assert.deepEqual([...steps.keys()], ['resp_agents_1', 'resp_agents_2']);
    const first = steps.get('resp_agents_1') as CanonicalEvent[];
    assert.deepEqual(
      ofType(first, 'tool-input-end').map((e) => [e.toolCallId, e.toolName, e.input]),
      [
        ['call_weather_paris', 'get_weather', { city: 'Paris' }],
        ['call_time_tokyo', 'get_time', { city: 'Tokyo' }],
      ],
    );
    assert.deepEqual(
      ofType(first, 'tool-output').map((e) => [e.toolCallId, e.toolName, e.output]),
      [
        ['call_weather_paris', 'get_weather', { city: 'Paris', temperature: 18, unit: 'celsius' }],
        ['call_time_tokyo', 'get_time', 'It is 14:05 in Tokyo.'],
      ],
    );
    assert.equal(
      ofType(first, 'reasoning-delta')
        .map((e) => e.delta)
        .join(''),
      '**Checking both cities**\n\nI will look up the weather in Paris and the time in Tokyo.',
    );
    assert.equal(text(events), 'Paris is 18 °C right now, and it is 14:05 in Tokyo.');
    const [f1, f2] = ofType(events, 'step-finish');
    assert.deepEqual([f1?.finishReason, f2?.finishReason], ['tool-calls', 'stop']);
    assert.equal(f1?.providerMetadata?.openaiAgents?.requestId, 'req_1', 'the SDK request id is kept');
    const second = ofType(events, 'step-start')[1];
    assert.equal(second?.name, 'Weather agent');
    const finish = finishOf(events);
    assert.deepEqual(
      [finish.finishReason, finish.usage?.inputTokens, finish.usage?.outputTokens, finish.usage?.cacheReadTokens],
      ['stop', 380, 80, 128],
    );
  });

  test('the model events are decoded exactly as the Responses decoder decodes the same stream', () => {
    // responses-web-search replays the recorded openai-web-search-tool.1 capture as the model's response.
    const agents = decode([read('responses-web-search.jsonl')]);
    const responses = framed(createOpenAIResponsesDecoder({ runId: 'run', now: () => 0 }));
    const direct = [
      ...responses.push(readFileSync(`${FIXTURES}recorded/openai-responses/openai-web-search-tool.1.chunks.txt`)),
      ...responses.end(),
    ];
    const content = (events: CanonicalEvent[]) =>
      events
        .filter((e) => !['run-start', 'run-finish', 'raw'].includes(e.type) && !(e.type === 'status' && e.status === 'agent'))
        .map(({ seq, ts, runId, ...e }) => ({ ...e, where: undefined, providerMetadata: undefined }));
    assert.deepEqual(content(agents), content(direct));
  });

  test('handoff: the handoff call and its output, a handoff status, the next step carries the new agent', () => {
    const events = decode([read('responses-handoff.jsonl')]);
    const out = ofType(events, 'tool-output')[0];
    assert.deepEqual(
      [out?.toolCallId, out?.toolName, out?.output],
      ['call_handoff_1', 'transfer_to_Spanish_agent', { assistant: 'Spanish agent' }],
    );
    assert.deepEqual(
      ofType(events, 'status')
        .filter((s) => s.status !== 'in_progress')
        .map((s) => [s.status, s.message]),
      [
        ['agent', 'Triage agent'],
        ['handoff', 'Triage agent → Spanish agent'],
        ['agent', 'Spanish agent'],
      ],
    );
    assert.deepEqual(
      ofType(events, 'step-start').map((s) => s.name),
      [undefined, 'Spanish agent'],
    );
    assert.equal(text(events), '¡Hola! ¿En qué puedo ayudarte hoy?');
  });

  test('approval: a tool-approval-request after the call, no output; the run ends waiting for it', () => {
    const events = decode([read('responses-approval.jsonl')]);
    const [request] = ofType(events, 'tool-approval-request');
    assert.deepEqual([request?.approvalId, request?.toolCallId, request?.toolName], ['call_delete_1', 'call_delete_1', 'delete_file']);
    assert.equal(request?.providerMetadata?.openaiAgents?.functionToolStateKey, '["bare","delete_file"]');
    const end = events.findIndex((e) => e.type === 'tool-input-end');
    assert.ok(end >= 0 && end < events.indexOf(request as CanonicalEvent), 'the request comes after the call');
    assert.equal(ofType(events, 'tool-output').length, 0);
    assert.equal(ofType(events, 'custom').length, 0);
    const finish = finishOf(events);
    assert.deepEqual(
      [finish.finishReason, finish.rawFinishReason, finish.pending],
      ['tool-calls', 'tool_approval_requested', { approvalIds: ['call_delete_1'] }],
    );
  });

  test('the resumed run: approved, the tool output then the answer; rejected, a denial and no output', () => {
    const approved = decode([read('responses-approval-approved.jsonl')]);
    assert.deepEqual(
      ofType(approved, 'tool-output').map((e) => [e.toolCallId, e.toolName, e.output]),
      [['call_delete_1', 'delete_file', 'deleted']],
    );
    assert.equal(text(approved), 'Deleted notes.txt.');
    assert.equal(finishOf(approved).finishReason, 'stop');
    const rejected = decode([read('responses-approval-rejected.jsonl')]);
    assert.equal(ofType(rejected, 'tool-output').length, 0);
    const [denial] = ofType(rejected, 'tool-approval-response');
    assert.deepEqual(
      [denial?.approvalId, denial?.toolCallId, denial?.approved, denial?.reason],
      ['call_delete_1', 'call_delete_1', false, 'Tool execution was not approved.'],
    );
    assert.equal(text(rejected), 'Left notes.txt alone.');
    assert.equal(finishOf(rejected).pending, undefined);
  });

  test('a failed response: one fatal error from response.failed, the run finishes with error', () => {
    const events = decode([read('responses-failed.jsonl')]);
    const errors = ofType(events, 'error');
    assert.deepEqual(
      errors.map((e) => [e.code, e.message, e.fatal, e.where]),
      [['server_error', 'The server had an error processing your request.', true, { line: 4 }]],
    );
    assert.deepEqual(types(events).slice(-3), ['error', 'step-finish', 'run-finish']);
    assert.equal(finishOf(events).finishReason, 'error');
  });

  test('Chat Completions model: steps from the normalized events, calls from response_done, raw chunks kept', () => {
    const events = decode([read('chat-completions-tool.jsonl')]);
    assert.deepEqual(
      ofType(events, 'step-start').map((s) => [s.stepId, s.model]),
      [
        ['chatcmpl-1', 'gpt-4.1-2025-04-14'],
        ['chatcmpl-2', 'gpt-4.1-2025-04-14'],
      ],
    );
    const end = ofType(events, 'tool-input-end')[0];
    assert.deepEqual([end?.toolCallId, end?.toolName, end?.input], ['call_chat_weather', 'get_weather', { city: 'Paris' }]);
    assert.deepEqual(ofType(events, 'tool-output')[0]?.output, { city: 'Paris', temperature: 18, unit: 'celsius' });
    assert.equal(text(events), 'It is 18 °C in Paris.');
    assert.deepEqual(
      ofType(events, 'step-finish').map((s) => [s.finishReason, s.rawFinishReason, s.usage?.cacheReadTokens]),
      [
        ['tool-calls', 'tool_calls', 0],
        ['stop', 'stop', 64],
      ],
    );
    const raws = ofType(events, 'raw');
    assert.equal(raws.length, 10, 'one raw event per chat.completion.chunk');
    assert.match(raws[0]?.reason ?? '', /raw openai-chat-completions event/);
  });

  test('run items without a model stream (another server, a filtered stream) are decoded from the items', () => {
    const agent = { name: 'Solo' };
    const events = decodeObjects(
      [
        {
          type: 'run_item_stream_event',
          name: 'tool_called',
          item: {
            type: 'tool_call_item',
            agent,
            rawItem: { type: 'function_call', id: 'fc_1', callId: 'c1', name: 'lookup', arguments: '{"q":"x"}', status: 'completed' },
          },
        },
        {
          type: 'run_item_stream_event',
          name: 'tool_output',
          item: {
            type: 'tool_call_output_item',
            agent,
            rawItem: {
              type: 'function_call_result',
              name: 'lookup',
              callId: 'c1',
              status: 'completed',
              output: { type: 'text', text: '[1,2]' },
            },
            output: '[1,2]',
          },
        },
        {
          type: 'run_item_stream_event',
          name: 'message_output_created',
          item: {
            type: 'message_output_item',
            agent,
            rawItem: {
              id: 'm1',
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'Found 2.' }],
            },
          },
        },
      ],
      'openai-agents',
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(ofType(events, 'tool-input-end')[0]?.input, { q: 'x' });
    assert.deepEqual(ofType(events, 'tool-output')[0]?.output, [1, 2]);
    assert.equal(text(events), 'Found 2.');
    const start = events[0];
    assert.equal(start?.type === 'run-start' && start.agent, 'Solo');
  });
});

describe('OpenAI Agents decoder: chunk boundaries', () => {
  for (const file of ['responses-parallel-tools.jsonl', 'chat-completions-tool.jsonl']) {
    test(`${file}: the same bytes split at random boundaries give identical events`, () => {
      const bytes = new Uint8Array(Buffer.from(read(file)));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 40, numRuns: 100 });
    });
  }
});

describe('OpenAI Agents decoder: lossless', () => {
  const structural = (path: string, value: string | number) =>
    // event / item / part type names become canonical event kinds, and a run item event's name is its kind;
    /(^|\.)type$/.test(path) ||
    path === 'name' ||
    // which model produced a raw event selects how it is decoded (Responses events or normalized ones);
    path === 'source' ||
    path === 'data.providerData.rawModelEventSource' ||
    // indexes of the Responses events place items, parts and annotations;
    /(^|\.)(output_index|content_index|summary_index|annotation_index)$/.test(path) ||
    // contiguous per response (first and last kept on the step), and random padding;
    /(^|\.)(sequence_number|obfuscation)$/.test(path) ||
    // assistant messages only, and the transient state before an item's final status.
    (/(^|\.)role$/.test(path) && value === 'assistant') ||
    (/(^|\.)status$/.test(path) && value === 'in_progress');

  test('every field of every capture is found in the canonical output', () => {
    for (const file of CAPTURES) {
      const source = read(file);
      const inputs = source
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
      assert.deepEqual(missingLeaves(inputs, decode([source]), { ignore: structural }), [], file);
    }
  });
});

describe('OpenAI Agents decoder: bad input never throws and keeps what came before', () => {
  const lines = read('responses-parallel-tools.jsonl').split('\n').filter(Boolean);

  test('a stream cut inside a model response: a fatal truncated error, blocks closed, the run ends with error', () => {
    const cut = lines.findIndex((l) => l.includes('"response.output_item.added"') && l.includes('function_call')) + 3;
    const events = decode([lines.slice(0, cut).join('\n')]);
    const err = ofType(events, 'error')[0];
    assert.ok(err?.code === 'truncated' && err.fatal);
    assert.deepEqual(validate(events).issues, []);
    assert.equal(finishOf(events).finishReason, 'error');
    assert.ok(ofType(events, 'tool-input-end').length > 0, 'the open call is closed');
  });

  test('a stream that ends between model calls is a finished run (the SDK stream has no final event)', () => {
    const cut = lines.findIndex((l) => l.includes('"tool_output"')) + 2;
    const events = decode([lines.slice(0, cut).join('\n')]);
    assert.equal(ofType(events, 'error').length, 0);
    assert.equal(finishOf(events).finishReason, 'tool-calls');
  });

  test('unknown events, bad values, non-JSON lines and bad nested Responses events: located', () => {
    const events = decodeObjects(
      [
        JSON.parse(lines[0] as string),
        JSON.parse(lines[1] as string),
        { type: 'run_future_event', x: 1 },
        { type: 'raw_model_stream_event', data: 'nope' },
        { type: 'run_item_stream_event', name: 'tool_output', item: { type: 'tool_call_output_item' } },
        { type: 'run_item_stream_event', name: 'something_new', item: { type: 'x', rawItem: { a: 1 } } },
        { type: 'agent_updated_stream_event', agent: {} },
        {
          type: 'raw_model_stream_event',
          data: { type: 'model', event: { type: 'response.output_text.delta', output_index: 9, delta: 'x' } },
          source: 'openai-responses',
        },
        [1, 2],
      ],
      'openai-agents',
    );
    const raws = ofType(events, 'raw');
    assert.deepEqual(
      raws.map((r) => [r.where?.line, r.reason]),
      [
        [3, 'unknown event type "run_future_event"'],
        [6, 'unknown run item event "something_new"'],
      ],
    );
    assert.deepEqual(
      ofType(events, 'error').map((e) => [e.code, e.where]),
      [
        ['invalid_field', { line: 4, field: 'data', expected: 'an object with a string "type"' }],
        ['invalid_field', { line: 5, field: 'item.rawItem', expected: 'an object' }],
        ['invalid_field', { line: 7, field: 'agent.name', expected: 'a string' }],
        ['unknown_item', { line: 8, field: 'data.event.output_index', expected: 'the output_index of an open message item' }],
        ['invalid_event', { line: 9, expected: 'object' }],
        ['truncated', undefined],
      ],
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON line: located error, decoding goes on', () => {
    const events = decode([[lines[0], 'not json', ...lines.slice(1)].join('\n')]);
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.where?.line, err?.fatal], ['invalid_json', 2, false]);
    assert.equal(text(events), 'Paris is 18 °C right now, and it is 14:05 in Tokyo.');
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(types(decode([''])), ['run-start', 'error', 'run-finish']);
  });
});

describe('OpenAI Agents decoder: recognition', () => {
  test('claims Agents SDK stream events only', () => {
    assert.ok(detectOpenAIAgents({ type: 'raw_model_stream_event', data: { type: 'response_started' } }));
    assert.ok(detectOpenAIAgents({ type: 'run_item_stream_event', name: 'tool_called', item: {} }));
    assert.ok(detectOpenAIAgents({ type: 'agent_updated_stream_event', agent: { name: 'A' } }));
    assert.ok(!detectOpenAIAgents({ type: 'raw_model_stream_event' }));
    assert.ok(!detectOpenAIAgents({ type: 'response.created', response: {} }));
    assert.ok(!detectOpenAIAgents({ type: 'text', data: { content: 'x' } }), 'the {type, data} agent format');
    assert.ok(!detectOpenAIAgents({ type: 'message_start', message: {} }));
  });
});
