import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '../src/index.ts';
import { createLangchainDecoder, detectLangchain } from '../src/inputs/langchain.ts';
import { detectLanggraph } from '../src/inputs/langgraph.ts';
import { validate } from '../src/schema.ts';
import { officialMessage, oursMessage, summarizeMessage } from './fixtures/langchain/official.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES, ofType } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const SHARED = `${FIXTURES}langchain/`;
const OWN = new URL('./fixtures/langchain/', import.meta.url).pathname;
/** Every streamEvents capture: the shared development set and the ones record.ts made. */
const CAPTURES = [
  ...readdirSync(SHARED)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => SHARED + f),
  ...readdirSync(OWN)
    .filter((f) => f.endsWith('.jsonl') && !f.startsWith('graph-'))
    .map((f) => OWN + f),
];
const name = (path: string) => path.split('/').at(-1) as string;

const decode = (chunks: (string | Uint8Array)[]): CanonicalEvent[] => decodeChunks(chunks, 'langchain');

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

type Ev<T extends CanonicalEvent['type']> = Extract<CanonicalEvent, { type: T }>;

/** Per model step: its text, reasoning, tool calls and usage, as the canonical stream tells it. */
function modelSteps(events: CanonicalEvent[]) {
  const steps: {
    text: string;
    reasoning: string;
    tools: { id: string; name: string; args: unknown }[];
    usage: unknown;
    step: Ev<'step-finish'>;
    name: string | undefined;
  }[] = [];
  let cur = { text: '', reasoning: '', tools: [] as { id: string; name: string; args: unknown }[] };
  const names = new Map<string, string | undefined>();
  for (const e of events) {
    if (e.type === 'step-start') names.set(e.stepId, e.name);
    if (e.type === 'text-delta') cur.text += e.delta;
    if (e.type === 'reasoning-delta') cur.reasoning += e.delta;
    if (e.type === 'tool-input-end' && !e.providerExecuted) cur.tools.push({ id: e.toolCallId, name: e.toolName, args: e.input });
    if (e.type === 'step-finish') {
      if (e.usage || e.finishReason) steps.push({ ...cur, usage: e.usage?.raw ?? null, step: e, name: names.get(e.stepId) });
      cur = { text: '', reasoning: '', tools: [] };
    }
  }
  return steps;
}

describe('LangChain streamEvents decoder: captures', () => {
  for (const path of CAPTURES) {
    test(`${name(path)}: valid, and each model step has what LangChain merged (text, tool calls, usage)`, () => {
      const events = decode([readFileSync(path)]);
      assert.deepEqual(validate(events).issues, []);
      assert.equal(events[0]?.type, 'run-start');
      assert.equal(events.at(-1)?.type, 'run-finish');
      const final = JSON.parse(readFileSync(path.replace(/\.jsonl$/, '.final.json'), 'utf8'));
      const runs = final.modelRuns as {
        text: string;
        tool_calls: { id: string; name: string; args: unknown }[];
        usage_metadata: unknown;
      }[];
      if (final.error) return; // no model run ended (model-error: its own test below)
      // LLM (non-chat) runs are steps too; LangChain's modelRuns lists chat models only.
      const chat = modelSteps(events).filter((s) => s.step.finishReason !== undefined && !s.name?.includes('LLM'));
      assert.equal(chat.length, runs.length, 'one step per model run');
      runs.forEach((r, i) => {
        const s = chat[i] as (typeof chat)[number];
        assert.equal(s.text, r.text, `run ${i} text`);
        assert.deepEqual(
          s.tools,
          r.tool_calls.map((t) => ({ id: t.id, name: t.name, args: t.args })),
          `run ${i} tool calls`,
        );
        // LangChain's merge adds an empty output_token_details; the numbers are what matter.
        const dropEmpty = (u: unknown) =>
          JSON.parse(
            JSON.stringify(u ?? null, (_k, v) =>
              v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? undefined : v,
            ),
          );
        assert.deepEqual(dropEmpty(s.usage), dropEmpty(r.usage_metadata), `run ${i} usage (summed once, never twice)`);
      });
    });
  }

  test('anthropic-agent: thinking with its signature, cache usage, parallel tools matched to the model’s ids, server search with sources and citations', () => {
    const events = decode([readFileSync(`${OWN}anthropic-agent.jsonl`)]);
    const final = JSON.parse(readFileSync(`${OWN}anthropic-agent.final.json`, 'utf8'));
    const thinking = final.modelRuns[0].content[0];
    const rEnd = ofType(events, 'reasoning-end')[0];
    assert.deepEqual(rEnd?.providerMetadata, { anthropic: { signature: thinking.signature } });
    assert.equal(
      ofType(events, 'reasoning-delta')
        .map((e) => e.delta)
        .join(''),
      thinking.thinking,
    );
    // Two model steps; tool outputs between them carry the model's tool call ids, not the tool run ids.
    const stepsFinished = ofType(events, 'step-finish');
    assert.equal(stepsFinished.length, 2);
    assert.deepEqual(
      stepsFinished.map((s) => [s.finishReason, s.rawFinishReason]),
      [
        ['tool-calls', 'tool_use'],
        ['stop', 'end_turn'],
      ],
    );
    const first = stepsFinished[0]?.usage;
    assert.equal(first?.inputTokens, 412 + 1536 + 20480);
    assert.equal(first?.cacheReadTokens, 20480);
    assert.equal(first?.cacheWriteTokens, 1536);
    assert.equal(first?.outputTokens, 187);
    // service tier and the cache TTL breakdown (the fields the WebSocket contract's backend loses) are kept.
    const lc = stepsFinished[0]?.providerMetadata?.langchain as { response_metadata: { usage: Record<string, unknown> } } | undefined;
    const rm = lc?.response_metadata ?? { usage: {} };
    assert.equal(rm.usage.service_tier, 'standard');
    assert.deepEqual(rm.usage.cache_creation, { ephemeral_5m_input_tokens: 1536, ephemeral_1h_input_tokens: 0 });
    const outputs = ofType(events, 'tool-output');
    assert.deepEqual(
      outputs.map((o) => [o.toolCallId, o.providerExecuted ?? false]),
      [
        ['toolu_01Paris', false],
        ['toolu_01Tokyo', false],
        ['srvtoolu_01Search', true],
      ],
    );
    const starts = ofType(events, 'tool-input-start').map((e) => e.toolCallId);
    assert.equal(new Set(starts).size, starts.length, 'no tool call is emitted twice');
    assert.deepEqual(
      ofType(events, 'source').map((s) => s.url),
      ['https://weather.example/tokyo'],
    );
    const cite = ofType(events, 'citation')[0];
    assert.equal(cite?.citation.citedText, 'Tokyo: 18°C, light rain.');
    assert.equal(cite?.citation.kind, 'url');
    assert.deepEqual(
      ofType(events, 'status').map((s) => [s.status, s.message]),
      [['tools', 'Running 2 tools']],
    );
    const finish = events.at(-1) as Ev<'run-finish'>;
    assert.equal(finish.finishReason, 'stop');
    assert.equal(finish.usage?.cacheReadTokens, 20480 + 22016);
  });

  test('openai-chain: reasoning_content, a failing tool, todos, retriever sources, custom events, an LLM step', () => {
    const events = decode([readFileSync(`${OWN}openai-chain.jsonl`)]);
    assert.equal(
      ofType(events, 'reasoning-delta')
        .map((e) => e.delta)
        .join(''),
      'The user asks for a forecast; call the tool.',
    );
    const err = ofType(events, 'tool-error')[0];
    assert.equal(err?.toolCallId, 'call_fc1', 'matched to the model’s call by name and arguments');
    assert.equal(err?.error, 'forecast service unavailable for Oslo');
    const todos = ofType(events, 'todos');
    assert.deepEqual(
      todos.map((t) => [t.change, t.todos.map((x) => x.status)]),
      [
        ['create', ['in_progress', 'pending']],
        ['update', ['completed', 'completed']],
      ],
    );
    assert.equal(todos[0]?.todos[0]?.activeForm, 'Looking up the forecast');
    const sources = ofType(events, 'source');
    assert.deepEqual(
      sources.map((s) => [s.kind, s.url ?? s.title]),
      [
        ['url', 'https://met.example/oslo'],
        ['document', 'notes.md'],
      ],
    );
    assert.deepEqual(
      ofType(events, 'custom').map((c) => [c.name, c.value]),
      [['progress', { done: 1, total: 2 }]],
    );
    const usage = ofType(events, 'step-finish').find((s) => s.rawFinishReason === 'tool_calls')?.usage;
    assert.deepEqual([usage?.reasoningTokens, usage?.cacheReadTokens], [31, 64]);
    const text = ofType(events, 'text-delta')
      .map((e) => e.delta)
      .join('');
    assert.equal(text, 'okOslo: cloudy tomorrow.', 'the LLM run and the chat model run');
  });

  test('langgraph-agent-events: LangGraph nodes are steps (agent → tools → agent), with their numbers', () => {
    const events = decode([readFileSync(`${OWN}langgraph-agent-events.jsonl`)]);
    assert.deepEqual(
      ofType(events, 'step-start').map((s) => [s.name, s.number, s.kind]),
      [
        ['agent', 1, 'model'],
        ['tools', 2, 'action'],
        ['agent', 3, 'model'],
      ],
    );
    assert.deepEqual(
      ofType(events, 'tool-output')
        .filter((o) => !o.providerExecuted)
        .map((o) => o.toolCallId),
      ['toolu_01Paris', 'toolu_01Tokyo'],
    );
  });

  test('model-error: the model failed mid-stream — what came is kept, a fatal truncated error, the run ends with error', () => {
    const events = decode([readFileSync(`${OWN}model-error.jsonl`)]);
    assert.deepEqual(validate(events).issues, []);
    assert.equal(
      ofType(events, 'text-delta')
        .map((e) => e.delta)
        .join(''),
      'Checking both cities',
    );
    assert.deepEqual(ofType(events, 'reasoning-end')[0]?.providerMetadata, {
      anthropic: { signature: 'EqQBCkYIBxgCKkBz1Xq5V9bY0xw3PjcTgR2h6u6pK1sQvE0Zr8' },
    });
    const err = ofType(events, 'error')[0];
    assert.ok(err?.fatal && err.code === 'truncated');
    assert.deepEqual(
      events.slice(-4).map((e) => e.type),
      ['error', 'text-end', 'step-finish', 'run-finish'],
    );
    assert.equal((events.at(-1) as Ev<'run-finish'>).finishReason, 'error');
    assert.equal(ofType(events, 'step-finish')[0]?.usage?.cacheReadTokens, 20480, 'usage so far is kept');
  });
});

describe('LangChain streamEvents decoder: against the official @ai-sdk/langchain path', () => {
  for (const path of CAPTURES.filter((p) => !p.endsWith('model-error.jsonl'))) {
    test(`${name(path)}: same text and reasoning; tools carry the model's ids, inputs and outputs`, async () => {
      const official = summarizeMessage((await officialMessage(path)).message);
      const ours = summarizeMessage(await oursMessage(path, createLangchainDecoder({ runId: 'run', now: () => 0 })));
      // The official adapter ignores on_llm_* (non-chat LLM) runs; we show their text ("ok" in openai-chain).
      assert.equal(ours.text, name(path) === 'openai-chain.jsonl' ? `ok${official.text}` : official.text);
      if (name(path) === 'openai-chain.jsonl') {
        // The official streamEvents path reads reasoning from content blocks only and drops the
        // OpenAI-compatible additional_kwargs.reasoning_content (DeepSeek and the like).
        assert.deepEqual(official.reasoning, []);
        assert.deepEqual(ours.reasoning, ['The user asks for a forecast; call the tool.']);
      } else assert.deepEqual(ours.reasoning, official.reasoning);
      // The official adapter keys tools by the tool *run* id, without input, and outputs the whole
      // ToolMessage; we use the model's tool call id and input and output the message content.
      const officialClient = official.tools.map((t) => ({
        name: t.toolName,
        output: (t.output as { content?: unknown } | undefined)?.content ?? t.output,
      }));
      const oursClient = ours.tools
        .filter((t) => !t.providerExecuted)
        .map((t) => ({ name: t.toolName, output: t.state === 'output-error' ? undefined : t.output }));
      assert.deepEqual(
        oursClient.filter((t) => t.output !== undefined),
        officialClient.filter((t) => t.output !== undefined),
      );
      for (const t of ours.tools)
        assert.ok(!/^[0-9a-f]{8}-/.test(t.toolCallId) || t.toolName !== 'get_weather', 'tool ids are the model’s');
    });
  }
});

describe('LangChain streamEvents decoder: chunk boundaries', () => {
  for (const file of ['tool-agent-loop.jsonl', 'chain-prompt-model-parser.jsonl']) {
    test(`${file}: the same bytes split at random points give identical events`, () => {
      const bytes = new Uint8Array(readFileSync(SHARED + file));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 30, numRuns: 100 });
    });
  }

  test('anthropic-agent one byte at a time (multi-byte characters split)', () => {
    const bytes = new Uint8Array(readFileSync(`${OWN}anthropic-agent.jsonl`));
    const whole = decode([bytes]);
    assert.deepEqual(decode(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))), whole);
  });
});

/**
 * Structural input fields, not looked up: `event` (the event name becomes the canonical event kind),
 * content-block `type` and `index` (block kinds and ids), the `lc` / `type` / `id` path of LangChain's
 * serialized constructor form, and `invalid_tool_calls` (LangChain re-derives them on every chunk
 * from the partial `tool_call_chunks`, whose text we keep).
 */
export const STRUCTURAL = (path: string) =>
  path === 'event' ||
  /(^|\.)type$/.test(path) ||
  /(^|\.)index$/.test(path) ||
  /(^|\.)id\[\d+\]$/.test(path) ||
  /(^|\.)lc$/.test(path) ||
  /invalid_tool_calls/.test(path);

describe('LangChain streamEvents decoder: lossless', () => {
  for (const path of CAPTURES) {
    test(`${name(path)}: every input field is found in the canonical output`, () => {
      const events = decode([readFileSync(path)]);
      assert.deepEqual(missingLeaves(lines(path), events, { ignore: STRUCTURAL }), []);
    });
  }
});

describe('LangChain streamEvents decoder: merging chunks and the end message', () => {
  const agent = () => lines(`${OWN}anthropic-agent.jsonl`);
  const kw = (e: Record<string, unknown>, key: 'chunk' | 'output') =>
    ((e.data as Record<string, Record<string, unknown>>)[key] as { kwargs: Record<string, unknown> }).kwargs;

  test('usage only on on_chat_model_end is taken from there', () => {
    const input = agent();
    for (const e of input) if (e.event === 'on_chat_model_stream') delete kw(e, 'chunk').usage_metadata;
    const events = decodeObjects(input, 'langchain');
    const usage = ofType(events, 'step-finish').map((s) => s.usage?.outputTokens);
    assert.deepEqual(usage, [187, 63]);
  });

  test('tool calls only on the end message are not lost', () => {
    const input = agent();
    for (const e of input)
      if (e.event === 'on_chat_model_stream') {
        const k = kw(e, 'chunk');
        k.tool_call_chunks = [];
        delete k.tool_calls;
        delete k.invalid_tool_calls;
        k.content = (k.content as Record<string, unknown>[]).filter((c) => c.type !== 'tool_use' && c.type !== 'input_json_delta');
      }
    const events = decodeObjects(input, 'langchain');
    assert.deepEqual(
      ofType(events, 'tool-input-end')
        .filter((e) => !e.providerExecuted)
        .map((e) => [e.toolCallId, e.input]),
      [
        ['toolu_01Paris', { city: 'Paris' }],
        ['toolu_01Tokyo', { city: 'Tokyo' }],
      ],
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('a model that only returns its whole message (no stream events) still gives its text', () => {
    const input = lines(`${SHARED}tool-agent-loop.jsonl`).filter((e) => e.event !== 'on_chat_model_stream');
    const events = decodeObjects(input, 'langchain');
    assert.equal(
      ofType(events, 'text-delta')
        .map((e) => e.delta)
        .join(''),
      'Sunny, 21°C.',
    );
    assert.deepEqual(
      ofType(events, 'tool-input-end').map((e) => e.toolCallId),
      ['call_w1'],
    );
  });

  test('thinking deltas of one index merge; a signature-only chunk ends up on the block', () => {
    const chunk = (content: unknown) => ({
      event: 'on_chat_model_stream',
      run_id: 'm',
      name: 'ChatAnthropic',
      data: { chunk: { type: 'AIMessageChunk', content } },
    });
    const events = decodeObjects(
      [
        { event: 'on_chat_model_start', run_id: 'm', name: 'ChatAnthropic', metadata: { ls_model_name: 'claude' }, data: {} },
        chunk([{ index: 0, type: 'thinking', thinking: 'a' }]),
        chunk([{ index: 0, type: 'thinking', thinking: 'b' }]),
        chunk([{ index: 0, type: 'thinking', signature: 'SIG' }]),
        chunk([{ index: 1, type: 'redacted_thinking', data: 'ENC' }]),
        chunk([{ index: 2, type: 'reasoning', reasoning: 'std' }]),
        chunk([{ index: 3, type: 'text', text: 'Hi', annotations: [{ type: 'citation', url: 'https://a.example', title: 'A' }] }]),
        { event: 'on_chat_model_end', run_id: 'm', name: 'ChatAnthropic', data: { output: { type: 'ai', content: '' } } },
      ],
      'langchain',
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      ofType(events, 'reasoning-end').map((e) => e.providerMetadata),
      [{ anthropic: { signature: 'SIG' } }, { anthropic: { redactedData: 'ENC' } }, undefined],
    );
    assert.deepEqual(
      ofType(events, 'reasoning-delta').map((e) => e.delta),
      ['a', 'b', 'std'],
    );
    assert.equal(ofType(events, 'citation')[0]?.citation.url, 'https://a.example');
    assert.equal(ofType(events, 'step-start')[0]?.model, 'claude');
  });
});

describe('LangChain streamEvents decoder: bad input never throws and keeps what came before', () => {
  const start = { event: 'on_chat_model_start', run_id: 'r1', name: 'M', metadata: {}, data: {} };
  const hi = { event: 'on_chat_model_stream', run_id: 'r1', name: 'M', data: { chunk: { type: 'AIMessageChunk', content: 'Hi' } } };
  const end = { event: 'on_chat_model_end', run_id: 'r1', name: 'M', data: { output: { type: 'ai', content: 'Hi' } } };
  const text = (events: CanonicalEvent[]) =>
    ofType(events, 'text-delta')
      .map((e) => e.delta)
      .join('');

  test('a non-JSON line: located error, decoding goes on', () => {
    const body = [JSON.stringify(start), 'not json', JSON.stringify(hi), JSON.stringify(end)].join('\n');
    const events = decode([body]);
    const err = ofType(events, 'error')[0];
    assert.ok(err && err.code === 'invalid_json' && !err.fatal);
    assert.equal(err.where?.line, 2);
    assert.equal(text(events), 'Hi');
    assert.equal((events.at(-1) as Ev<'run-finish'>).finishReason, 'stop');
    assert.deepEqual(validate(events).issues, []);
  });

  test('values of the wrong shape: located errors; an unknown event name: raw', () => {
    const events = decodeObjects(
      [
        start,
        42,
        { no: 'event' },
        { event: 'on_chat_model_stream', run_id: 7 },
        { event: 'on_chat_model_stream', run_id: 'r1', data: { chunk: { content: 5 } } },
        { event: 'on_chat_model_stream', run_id: 'r1', data: 'x' },
        { event: 'on_future_thing', run_id: 'r1', data: {} },
        hi,
        end,
      ],
      'langchain',
    );
    const errors = ofType(events, 'error');
    assert.deepEqual(
      errors.map((e) => e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'event', expected: 'string' },
        { line: 4, field: 'run_id', expected: 'string' },
        { line: 5, field: 'data.chunk', expected: 'AIMessageChunk' },
        { line: 6, field: 'data', expected: 'object' },
      ],
    );
    const raw = ofType(events, 'raw')[0];
    assert.deepEqual(raw?.where, { line: 7 });
    assert.match(raw?.reason ?? '', /unknown event "on_future_thing"/);
    assert.equal(text(events), 'Hi');
    assert.deepEqual(validate(events).issues, []);
  });

  test('content of the wrong type is a located error', () => {
    const bad = { ...hi, data: { chunk: { type: 'AIMessageChunk', content: 5 } } };
    const events = decodeObjects([start, bad, hi, end], 'langchain');
    const err = ofType(events, 'error')[0];
    assert.deepEqual(err?.where, { line: 2, field: 'data.chunk.content', expected: 'string or array' });
    assert.equal(text(events), 'Hi');
  });

  test('a stream event for a run that never started: located error', () => {
    const events = decodeObjects([start, { ...hi, run_id: 'ghost' }, hi, end], 'langchain');
    const err = ofType(events, 'error')[0];
    assert.equal(err?.code, 'unknown_run');
    assert.deepEqual(err?.where, { line: 2, field: 'run_id', expected: 'the run_id of a started run' });
    assert.equal(text(events), 'Hi');
  });

  test('truncated: open blocks closed, fatal error, run finishes with error', () => {
    const events = decodeObjects([start, hi], 'langchain');
    assert.equal(text(events), 'Hi');
    assert.deepEqual(
      events.slice(-4).map((e) => e.type),
      ['error', 'text-end', 'step-finish', 'run-finish'],
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('empty input: one fatal error and a finished run', () => {
    const events = decode(['']);
    assert.deepEqual(
      events.map((e) => e.type),
      ['run-start', 'error', 'run-finish'],
    );
  });

  test('an unknown content block type is raw, inside the message', () => {
    const odd = { ...hi, data: { chunk: { type: 'AIMessageChunk', content: [{ type: 'hologram', x: 1 }] } } };
    const events = decodeObjects([start, odd, hi, end], 'langchain');
    const raw = ofType(events, 'raw')[0];
    assert.deepEqual(raw?.event, { type: 'hologram', x: 1 });
    assert.equal(text(events), 'Hi');
  });
});

describe('LangChain detection', () => {
  test('claims streamEvents events and nothing else', () => {
    for (const path of CAPTURES) for (const l of lines(path)) assert.ok(detectLangchain(l), name(path));
    assert.equal(detectLangchain({ type: 'message_start', message: {} }), false);
    assert.equal(detectLangchain({ type: 'text', data: { content: 'x' } }), false);
    assert.equal(detectLangchain(['values', {}]), false);
    assert.equal(detectLanggraph(lines(CAPTURES[0] as string)[0]), false);
  });
});
