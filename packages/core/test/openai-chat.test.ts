import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { chatCompletionOf } from '../../../test/support/openai-oracle.ts';
import { type CanonicalEvent, createFramer } from '../src/index.ts';
import { createOpenAIChatDecoder, detectOpenAIChat, openaiChatUsage } from '../src/inputs/openai-chat.ts';
import { createOpenAISimpleDecoder, detectOpenAISimple } from '../src/inputs/openai-simple.ts';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES, fixture, types } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

/** The Chat Completions decoder (without the think wrapper of the `openai-chat` framework), or the agent lines' simple OpenAI dialect. */
const chat = (simple: boolean) => (simple ? createOpenAISimpleDecoder : createOpenAIChatDecoder);
const decode = (chunks: (string | Uint8Array)[], options: { maxLineLength?: number } = {}, simple = false) =>
  decodeChunks(chunks, chat(simple), options);
const decodeValues = (values: unknown[], simple = false) => decodeObjects(values, chat(simple));

/** The parsed values of a fixture body (SSE or JSON lines), as the decoder sees them. */
function inputsOf(bytes: Uint8Array): unknown[] {
  const f = createFramer();
  return [...f.push(bytes), ...f.end()].flatMap((x) => (x.kind === 'value' ? [x.value] : []));
}

const RECORDED = ['recorded/openai-chat/', 'recorded/openai-compatible/'].flatMap((dir) =>
  readdirSync(FIXTURES + dir).map((file) => dir + file),
);
const DEV = ['openai-chat/text-usage.sse', 'openai-chat/tool-calls.sse'];
/** Not a Chat Completions stream: Realtime API translation-session events, filed with vercel/ai's OpenAI fixtures. */
const REALTIME = 'recorded/openai-chat/openai-realtime-speech-translation.chunks.txt';
const bin = (prefix: string) => {
  const found = RECORDED.find((f) => f.includes(`/${prefix}`));
  assert.ok(found, prefix);
  return found;
};

const text = (events: CanonicalEvent[]) =>
  events
    .filter((e) => e.type === 'text-delta')
    .map((e) => (e.type === 'text-delta' ? e.delta : ''))
    .join('');
const last = (events: CanonicalEvent[]) => events.at(-1) as CanonicalEvent;
const finishOf = (events: CanonicalEvent[]) => {
  const e = last(events);
  assert.equal(e.type, 'run-finish');
  return e as Extract<CanonicalEvent, { type: 'run-finish' }>;
};
const stepFinish = (events: CanonicalEvent[]) =>
  events.find((e) => e.type === 'step-finish') as Extract<CanonicalEvent, { type: 'step-finish' }>;
const stepStart = (events: CanonicalEvent[]) =>
  events.find((e) => e.type === 'step-start') as Extract<CanonicalEvent, { type: 'step-start' }>;

describe('OpenAI Chat decoder: against the official SDK accumulator (*.final.json)', () => {
  for (const name of ['text-usage', 'tool-calls']) {
    test(`${name}: same content, tool calls, finish reason and usage as openai finalChatCompletion()`, () => {
      const events = decode([fixture(`openai-chat/${name}.sse`)]);
      assert.deepEqual(validate(events).issues, []);
      const expected = JSON.parse(fixture(`openai-chat/${name}.final.json`).toString()).final;
      const got = chatCompletionOf(events);
      assert.equal(got.id, expected.id);
      assert.equal(got.model, expected.model);
      assert.equal(got.choices.length, 1);
      const [choice] = got.choices;
      const want = expected.choices[0];
      assert.equal(choice?.message.content, want.message.content);
      assert.equal(choice?.message.refusal, want.message.refusal);
      assert.deepEqual(choice?.message.tool_calls, want.message.tool_calls);
      for (const call of want.message.tool_calls ?? [])
        assert.deepEqual(choice?.inputs[call.id], JSON.parse(call.function.arguments), 'tool-input-end carries the parsed input');
      assert.equal(choice?.finish_reason, want.finish_reason);
      assert.deepEqual(got.usage, expected.usage, 'usage is kept whole');
      assert.equal(stepStart(events).providerMetadata?.openai?.service_tier, expected.service_tier);
    });
  }

  test('usage: prompt_tokens is inputTokens, cached and reasoning tokens are broken out', () => {
    const events = decode([fixture('recorded/openai-compatible/deepseek-tool-call.chunks.txt')]);
    const { raw, ...usage } = finishOf(events).usage ?? {};
    assert.deepEqual(usage, { inputTokens: 339, outputTokens: 83, totalTokens: 422, reasoningTokens: 39, cacheReadTokens: 320 });
    assert.equal((raw as Record<string, unknown>).prompt_cache_hit_tokens, 320);
    assert.deepEqual(stepFinish(events).usage, finishOf(events).usage);
  });

  test('usage: xAI leaves reasoning tokens out of completion_tokens; they are added to outputTokens; cost ticks become USD', () => {
    const { raw: _raw, ...usage } = finishOf(decode([fixture('recorded/openai-compatible/xai-text.chunks.txt')])).usage ?? {};
    assert.deepEqual(usage, {
      inputTokens: 12,
      outputTokens: 2 + 340,
      totalTokens: 354,
      reasoningTokens: 340,
      cacheReadTokens: 11,
      costUsd: 1721250 / 1e10,
    });
    assert.deepEqual(openaiChatUsage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost: 0.5 }), {
      raw: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost: 0.5 },
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      costUsd: 0.5,
    });
  });
});

describe('OpenAI Chat decoder: recorded captures', () => {
  test('every capture decodes into a valid canonical stream that ends the run', () => {
    for (const file of [...RECORDED, ...DEV]) {
      const events = decode([fixture(file)]);
      assert.deepEqual(validate(events).issues, [], file);
      assert.equal(events[0]?.type, 'run-start', file);
      assert.equal(last(events).type, 'run-finish', file);
      if (file === REALTIME) continue;
      assert.equal(events[0]?.type === 'run-start' && events[0].provider, 'openai', file);
      assert.deepEqual(
        events.filter((e) => e.type === 'error' || e.type === 'raw'),
        [],
        `${file}: no errors, nothing unmapped`,
      );
      assert.notEqual(finishOf(events).finishReason, 'error', file);
      assert.ok(finishOf(events).usage?.inputTokens, `${file}: usage`);
    }
  });

  test('the Realtime translation capture is not a chat stream: raw events, then a fatal "empty" error', () => {
    const events = decode([fixture(REALTIME)]);
    const inputs = inputsOf(fixture(REALTIME));
    const raws = events.filter((e) => e.type === 'raw');
    assert.equal(raws.length, inputs.length);
    assert.deepEqual(raws[0]?.type === 'raw' && raws[0].event, inputs[0]);
    assert.match((raws[0]?.type === 'raw' && raws[0].reason) || '', /not a chat completion chunk \(event type "session.created"\)/);
    assert.deepEqual(types(events).slice(-2), ['error', 'run-finish']);
    assert.equal(finishOf(events).finishReason, 'error');
  });

  test('n=3: choice 0 is the message; choices 1 and 2 keep their own blocks marked with choiceIndex', () => {
    const events = decode([fixture(bin('test_parse_pydantic_model_multiple_choices'))]);
    const got = chatCompletionOf(events);
    assert.deepEqual(
      got.choices.map((c) => [c.index, JSON.parse(c.message.content ?? 'null').temperature, c.finish_reason]),
      [
        [0, 65, 'stop'],
        [1, 61, 'stop'],
        [2, 59, 'stop'],
      ],
    );
    const starts = events.filter((e) => e.type === 'text-start');
    assert.deepEqual(
      starts.map((e) => e.type === 'text-start' && e.providerMetadata),
      [undefined, { openai: { choiceIndex: 1 } }, { openai: { choiceIndex: 2 } }],
    );
    assert.deepEqual(stepFinish(events).providerMetadata?.openai?.choices, [
      { index: 1, finish_reason: 'stop' },
      { index: 2, finish_reason: 'stop' },
    ]);
  });

  test('parallel tool calls: merged by index, id and name from the first fragment, input parsed at the finish', () => {
    const events = decode([fixture(bin('test_parse_multiple_pydantic_tools'))]);
    const got = chatCompletionOf(events).choices[0];
    assert.deepEqual(got?.inputs, {
      call_JMW1whyEaYG438VE1OIflxA2: { city: 'Edinburgh', country: 'GB', units: 'c' },
      call_DNYTawLBoN8fj3KN6qU9N1Ou: { ticker: 'AAPL', exchange: 'NASDAQ' },
    });
    // Both inputs end together when the choice finishes, after every delta.
    const kinds = types(events).filter((t) => t.startsWith('tool-input'));
    assert.deepEqual(kinds.slice(-3), ['tool-input-delta', 'tool-input-end', 'tool-input-end']);
    assert.equal(finishOf(events).finishReason, 'tool-calls');
    assert.equal(finishOf(events).rawFinishReason, 'tool_calls');
  });

  test('text before a tool call closes before the call starts (issue-15789)', () => {
    const events = decode([fixture('recorded/openai-chat/issue-15789-step-1.chunks.txt')]);
    assert.deepEqual(
      types(events).filter((t) => t !== 'text-delta'),
      [
        'run-start',
        'step-start',
        'text-start',
        'text-end',
        'tool-input-start',
        'tool-input-delta',
        'tool-input-end',
        'step-finish',
        'run-finish',
      ],
    );
    assert.equal(text(events), 'PRE_TOOL');
  });

  test('refusal: a text block marked {openai:{refusal:true}}, logprobs kept, stop after a refusal is content-filter', () => {
    const events = decode([fixture(bin('test_refusal_logprobs_events'))]);
    const start = events.find((e) => e.type === 'text-start');
    assert.deepEqual(start?.type === 'text-start' && start.providerMetadata, { openai: { refusal: true } });
    assert.equal(chatCompletionOf(events).choices[0]?.message.refusal, "I'm very sorry, but I can't assist with that.");
    assert.equal(finishOf(events).finishReason, 'content-filter');
    assert.equal(finishOf(events).rawFinishReason, 'stop');
    const choices = stepFinish(events).providerMetadata?.openai?.choices as { logprobs: { refusal: { token: string }[] } }[];
    assert.deepEqual(choices[0]?.logprobs.refusal.map((l) => l.token).join(''), "I'm very sorry, but I can't assist with that.");
  });

  test('reasoning: DeepSeek/xAI reasoning_content and Groq reasoning become thinking blocks before the text', () => {
    for (const name of ['deepseek-reasoning', 'groq-reasoning', 'xai-text']) {
      const events = decode([fixture(`recorded/openai-compatible/${name}.chunks.txt`)]);
      const kinds = types(events).filter((t) => t.endsWith('-start') || t.endsWith('-end'));
      assert.deepEqual(kinds, ['run-start', 'step-start', 'reasoning-start', 'reasoning-end', 'text-start', 'text-end'], name);
      const start = events.find((e) => e.type === 'reasoning-start');
      assert.equal(start?.type === 'reasoning-start' && start.variant, 'thinking');
      assert.ok((chatCompletionOf(events).choices[0]?.message.reasoning ?? '').length > 100, name);
    }
  });

  test('Azure: the id-less prompt_filter_results chunk goes to step-start; content_filter_results to step-finish', () => {
    const events = decode([fixture('recorded/openai-chat/azure-model-router.1.chunks.txt')]);
    const start = stepStart(events);
    assert.equal(start.stepId, 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt');
    assert.equal(start.model, 'gpt-5-nano-2025-08-07');
    assert.ok(Array.isArray(start.providerMetadata?.openai?.prompt_filter_results));
    const [choice] = (stepFinish(events).providerMetadata?.openai?.choices ?? []) as { content_filter_results: unknown[] }[];
    assert.equal(choice?.content_filter_results.length, 3, 'each change is kept, repeats are dropped');
  });

  test('chunk fields: first values on step-start, later changes (obfuscation, moderation, created) on step-finish', () => {
    const events = decode([fixture('recorded/openai-chat/test_openai_moderation_stream.i0.sse.txt')]);
    const meta = stepFinish(events).providerMetadata?.openai as Record<string, unknown>;
    assert.equal((meta.moderation as { input: { type: string } }).input.type, 'moderation_results');
    assert.equal((meta.history as { obfuscation: string[] }).obfuscation.length, 5);
    assert.equal(stepStart(events).providerMetadata?.openai?.obfuscation, 'CVQ55DocFW');
    // The moderation chunk carries usage: null after the usage chunk: the usage is kept.
    assert.equal(finishOf(events).usage?.totalTokens, 24);
    const groq = stepFinish(decode([fixture('recorded/openai-compatible/groq-reasoning.chunks.txt')])).providerMetadata?.openai;
    assert.equal(groq?.created, 1770770849);
    assert.ok(groq?.x_groq && typeof groq.x_groq === 'object' && 'usage' in groq.x_groq);
  });

  test('legacy Completions (text_completion): choice text is the answer text', () => {
    const events = decode([fixture('recorded/openai-chat/openai-completion-text.chunks.txt')]);
    assert.match(text(events), /^The holiday is called "Gratitude Day" and it/);
    assert.equal(finishOf(events).finishReason, 'length');
    assert.deepEqual(stepStart(events).providerMetadata?.openai?.object, 'text_completion');
  });
});

describe('OpenAI Chat decoder: chunk boundaries', () => {
  const cases = [...DEV, bin('test_parse_pydantic_model_multiple_choices'), 'recorded/openai-compatible/deepseek-tool-call.chunks.txt'];
  for (const name of cases) {
    test(`${name.split('/').pop()?.slice(0, 50)}: the same bytes split at random boundaries give identical events`, () => {
      const bytes = new Uint8Array(fixture(name));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 40, numRuns: 100 });
    });
  }

  test('one byte at a time, including inside multi-byte UTF-8 characters', () => {
    const bytes = new Uint8Array(fixture('openai-chat/text-usage.sse'));
    const whole = decode([bytes]);
    assert.deepEqual(decode(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))), whole);
    assert.equal(text(whole), 'Grüezi! It is 18°C in Zürich 🇨🇭.');
  });

  test('JSON lines and SSE of the same stream give the same events', () => {
    const sse = fixture('openai-chat/tool-calls.sse').toString();
    const jsonl = sse
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => l.slice(6))
      .join('\n');
    const strip = (events: CanonicalEvent[]) => events.map(({ type, seq }) => ({ type, seq }));
    assert.deepEqual(strip(decode([jsonl])), strip(decode([sse])));
  });
});

describe('OpenAI Chat decoder: lossless', () => {
  /** Structural input fields: discriminators and indexes the canonical structure replaces. */
  const ignore = (path: string, value: string | number) =>
    // the object type of every chunk; other values (text_completion) are kept on step-start
    (path === 'object' && value === 'chat.completion.chunk') ||
    // choice and tool-call indexes become block/tool structure (choiceIndex is kept for choices > 0)
    /^choices\[\d+\]\.index$/.test(path) ||
    /\.tool_calls\[\d+\]\.index$/.test(path) ||
    // every tool call is a function call; other types are kept in providerMetadata
    (/\.tool_calls\[\d+\]\.type$/.test(path) && value === 'function') ||
    // the run is the assistant message; other roles are kept in providerMetadata
    (/\.delta\.role$/.test(path) && value === 'assistant');

  for (const file of [...RECORDED, ...DEV]) {
    test(file.split('/').pop()?.slice(0, 60) ?? file, () => {
      const bytes = fixture(file);
      assert.deepEqual(missingLeaves(inputsOf(bytes), decode([bytes]), { ignore }), []);
    });
  }
});

describe('OpenAI Chat decoder: bad input never throws and keeps what came before', () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, index = 0) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-x',
    choices: [{ index, delta, finish_reason: finish }],
  });
  const hello = chunk({ role: 'assistant', content: 'Hello' });
  const done = chunk({}, 'stop');
  const lines = (...objs: unknown[]) => objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n');

  test('truncated stream (no finish_reason): a fatal "truncated" error, open blocks closed, the run ends with error', () => {
    const events = decode([lines(hello)]);
    assert.equal(text(events), 'Hello');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated' && err.fatal);
    assert.match(err.message, /no finish_reason for choice 0/);
    assert.deepEqual(types(events).slice(-4), ['error', 'text-end', 'step-finish', 'run-finish']);
    assert.equal(finishOf(events).finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a finish chunk without the usage chunk is a complete stream', () => {
    const events = decode([lines(hello, done)]);
    assert.equal(finishOf(events).finishReason, 'stop');
    assert.equal(
      events.some((e) => e.type === 'error'),
      false,
    );
  });

  test('truncated tool call: the partial input is kept as text with an inputError', () => {
    const start = chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] });
    const events = decode([lines(start)]);
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end');
    assert.equal(end.input, '{"a":');
    assert.match(end.inputError ?? '', /not valid JSON/);
    assert.equal(finishOf(events).finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('n>1: a choice without a finish_reason makes the stream truncated', () => {
    const events = decode([lines(hello, chunk({ content: 'Other' }, null, 1), done)]);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated');
    assert.match(err.message, /no finish_reason for choice 1/);
  });

  test('truncated mid-line: the partial JSON line is a located invalid_json error', () => {
    const body = `${lines(hello)}\n{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" wor`;
    const events = decode([body]);
    assert.equal(text(events), 'Hello');
    const err = events.find((e) => e.type === 'error' && e.code === 'invalid_json');
    assert.ok(err?.type === 'error');
    assert.deepEqual(err.where, { line: 2, expected: 'JSON' });
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON line in the middle: located error, decoding goes on', () => {
    const events = decode([lines(hello, 'this is not json', chunk({ content: ' world' }), done)]);
    assert.equal(text(events), 'Hello world');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'invalid_json' && !err.fatal);
    assert.equal(err.where?.line, 2);
    assert.equal(finishOf(events).finishReason, 'stop');
  });

  test('a non-JSON SSE event is located by its SSE event number', () => {
    const events = decode([`data: ${JSON.stringify(hello)}\n\ndata: {oops\n\ndata: ${JSON.stringify(done)}\n\ndata: [DONE]\n\n`]);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error');
    assert.deepEqual(err.where, { event: 2, expected: 'JSON' });
    assert.equal(finishOf(events).finishReason, 'stop');
  });

  test('an error payload mid-stream: a fatal provider error with its fields, the text before it kept', () => {
    const failure = { error: { message: 'The server had an error', type: 'server_error', param: null, code: 'internal_error' } };
    const events = decode([lines(hello, failure)]);
    assert.equal(text(events), 'Hello');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error');
    assert.deepEqual([err.code, err.message, err.fatal], ['internal_error', 'The server had an error', true]);
    assert.deepEqual(err.where, { line: 2 });
    assert.deepEqual(err.providerMetadata, { openai: { error: failure.error } });
    assert.equal(events.filter((e) => e.type === 'error').length, 1, 'no extra truncated error');
    assert.deepEqual(types(events).slice(-5), ['text-delta', 'text-end', 'error', 'step-finish', 'run-finish']);
    assert.equal(finishOf(events).finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an unknown value becomes a raw event, untouched; an unmapped delta field too', () => {
    const odd = { type: 'future.event', payload: { x: 1 } };
    const audio = chunk({ audio: { id: 'audio_1', data: 'AAAA', transcript: 'Hi' } });
    const events = decodeValues([hello, odd, audio, done]);
    const raws = events.filter((e) => e.type === 'raw');
    assert.deepEqual(
      raws.map((e) => e.type === 'raw' && [e.event, e.where, e.source]),
      [
        [odd, { line: 2 }, 'openai-chat'],
        [{ index: 0, delta: { audio: audio.choices[0]?.delta.audio } }, { line: 3 }, 'openai-chat'],
      ],
    );
    assert.equal(text(events), 'Hello');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a tool-call fragment for an index that was never started: located error with the fragment, nothing lost', () => {
    const fragment = { index: 3, function: { arguments: '{"x":1}' } };
    const stray = chunk({ tool_calls: [fragment] });
    const events = decodeValues([hello, stray, done]);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'unknown_tool_call' && !err.fatal);
    assert.deepEqual(err.where, {
      line: 2,
      field: 'choices[0].delta.tool_calls[0].function.name',
      expected: 'the name of a new tool call, or the index of an open one',
    });
    assert.match(err.message, /^line 2, field choices\[0\]\.delta\.tool_calls\[0\]: .*index 3, which was never started/);
    assert.deepEqual(err.providerMetadata?.openai?.fragment, fragment);
    assert.equal(text(events), 'Hello');
    assert.equal(finishOf(events).finishReason, 'stop');
  });

  test('values of the wrong type: located errors, decoding goes on', () => {
    const events = decodeValues([
      42,
      hello,
      { id: 'chatcmpl-1', choices: 'nope' },
      chunk({ content: 5 }),
      { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: 7 }] },
      chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: { a: 1 } } }] }),
      [1],
      done,
    ]);
    assert.deepEqual(
      events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.where),
      [
        { line: 1, expected: 'object' },
        { line: 3, field: 'choices', expected: 'an array' },
        { line: 4, field: 'choices[0].delta.content', expected: 'a string or null' },
        { line: 5, field: 'choices[0].finish_reason', expected: 'a string or null' },
        { line: 6, field: 'choices[0].delta.tool_calls[0].function.arguments', expected: 'a string' },
        { line: 7, expected: 'object' },
      ],
    );
    assert.equal(text(events), 'Hello');
    assert.equal(finishOf(events).finishReason, 'stop');
    assert.deepEqual(validate(events).issues, []);
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(types(decode([''])), ['run-start', 'error', 'run-finish']);
    assert.deepEqual(types(decode(['data: [DONE]\n\n'])), ['run-start', 'error', 'run-finish']);
  });
});

describe('OpenAI Chat decoder: shapes without a capture', () => {
  const base = { id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const c = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ ...base, choices, ...extra });

  test('legacy function_call streams as one tool call; finish_reason function_call is tool-calls', () => {
    const events = decodeValues([
      c([{ index: 0, delta: { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '' } } }]),
      c([{ index: 0, delta: { function_call: { arguments: '{"q":' } } }]),
      c([{ index: 0, delta: { function_call: { arguments: '"x"}' } } }]),
      c([{ index: 0, delta: {}, finish_reason: 'function_call' }]),
    ]);
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end');
    assert.deepEqual([end.toolCallId, end.toolName, end.input], ['chatcmpl-9:call_1', 'lookup', { q: 'x' }]);
    assert.deepEqual(end.providerMetadata, { openai: { type: 'function_call' } });
    assert.equal(finishOf(events).finishReason, 'tool-calls');
    assert.deepEqual(validate(events).issues, []);
  });

  test('parallel calls in one chunk, calls numbered 0 by a compatible server, a custom tool, choice-1 calls', () => {
    const events = decodeValues([
      c([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"n":1}' } },
              { index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{"n":' } },
            ],
          },
        },
      ]),
      c([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '2}' } }] } }]),
      c([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] } }]),
      c([{ index: 0, delta: { tool_calls: [{ index: 2, id: 'd', type: 'custom', custom: { name: 'sh', input: 'ls -la' } }] } }]),
      c([{ index: 1, delta: { tool_calls: [{ index: 0, id: 'e', type: 'function', function: { name: 'f', arguments: '{}' } }] } }]),
      c([
        { index: 0, delta: {}, finish_reason: 'tool_calls' },
        { index: 1, delta: {}, finish_reason: 'tool_calls' },
      ]),
    ]);
    const ends = events.filter((e) => e.type === 'tool-input-end');
    assert.deepEqual(
      ends.map((e) => e.type === 'tool-input-end' && [e.toolCallId, e.toolName, e.input, e.providerMetadata]),
      [
        ['a', 'f', { n: 1 }, undefined],
        ['b', 'g', { n: 2 }, undefined],
        ['c', 'f', {}, undefined],
        ['d', 'sh', 'ls -la', { openai: { type: 'custom' } }],
        ['e', 'f', {}, { openai: { choiceIndex: 1 } }],
      ],
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('OpenRouter reasoning + reasoning_details, url_citation annotations, Gemini thought signatures', () => {
    const details = [{ type: 'reasoning.text', text: 'Think', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }];
    const events = decodeValues([
      c([{ index: 0, delta: { role: 'assistant', content: '', reasoning: 'Think', reasoning_details: details } }], {
        provider: 'Anthropic',
      }),
      c([
        {
          index: 0,
          delta: {
            content: 'Answer',
            annotations: [{ type: 'url_citation', url_citation: { url: 'https://a.example', title: 'A', start_index: 0, end_index: 6 } }],
          },
        },
      ]),
      c([
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                id: 'g1',
                type: 'function',
                function: { name: 'f', arguments: '{}' },
                extra_content: { google: { thought_signature: 'TS' } },
              },
            ],
          },
        },
      ]),
      c([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
    ]);
    const rEnd = events.find((e) => e.type === 'reasoning-end');
    assert.deepEqual(rEnd?.type === 'reasoning-end' && rEnd.providerMetadata, { openrouter: { reasoning_details: details } });
    const source = events.find((e) => e.type === 'source');
    assert.ok(source?.type === 'source');
    assert.deepEqual([source.url, source.title, source.sourceId], ['https://a.example', 'A', 'chatcmpl-9:source_0']);
    const tool = events.find((e) => e.type === 'tool-input-start');
    assert.deepEqual(tool?.type === 'tool-input-start' && tool.providerMetadata, {
      openai: { extra_content: { google: { thought_signature: 'TS' } } },
      google: { thoughtSignature: 'TS' },
    });
    assert.equal(stepStart(events).providerMetadata?.openai?.provider, 'Anthropic');
    assert.deepEqual(validate(events).issues, []);
  });

  test('finish reasons: length, content_filter and unknown values', () => {
    for (const [raw, want] of [
      ['length', 'length'],
      ['content_filter', 'content-filter'],
      ['insufficient_system_resource', 'other'],
    ] as const) {
      const events = decodeValues([c([{ index: 0, delta: { content: 'x' }, finish_reason: raw }])]);
      assert.deepEqual([finishOf(events).finishReason, finishOf(events).rawFinishReason], [want, raw]);
    }
  });
});

describe('detection', () => {
  test('detectOpenAIChat claims chat and legacy completion chunks, and only those', () => {
    for (const file of [...RECORDED, ...DEV]) {
      if (file === REALTIME) continue;
      const [first] = inputsOf(fixture(file));
      assert.equal(detectOpenAIChat(first), true, file);
    }
    for (const other of [
      { type: 'message_start', message: {} },
      { type: 'error', error: { type: 'overloaded_error' } },
      { type: 'delta', data: { content: 'x' } },
      { type: 'response.created', sequence_number: 0, response: {} },
      { type: 'session.created', event_id: 'e' },
      { error: { message: 'x' } },
      { candidates: [], usageMetadata: {} },
      'x',
      null,
    ])
      assert.equal(detectOpenAIChat(other), false, JSON.stringify(other));
  });

  test('detectOpenAISimple never claims input: its envelope is the claude agent format too', () => {
    assert.equal(detectOpenAISimple({ type: 'start', data: { model: 'gpt-4' } }), false);
    assert.equal(detectOpenAISimple({ type: 'delta', data: { content: 'Hello' } }), false);
  });
});

describe('the simple OpenAI agent format (framework "openai")', () => {
  const run = [
    { type: 'start', data: { model: 'gpt-4', id: 'msg_1' } },
    { type: 'delta', data: { content: 'Let me ' } },
    { type: 'delta', data: { content: 'check.' } },
    { type: 'tool_call', data: { id: 'call_1', name: 'search', arguments: '{"q":"x"}' } },
    { type: 'tool_result', data: { id: 'call_1', content: '{"hits":1}' } },
    { type: 'tool_call', data: { id: 'call_2', name: 'fail', arguments: '{}' } },
    { type: 'tool_result', data: { id: 'call_2', content: 'boom', is_error: true } },
    { type: 'delta', data: { content: 'Done.' } },
    { type: 'done', data: { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } } },
  ];

  test('the simple OpenAI lines map to text blocks, tool calls with parsed arguments, outputs, usage and finish', () => {
    const events = decode([lines(run)], {}, true);
    assert.deepEqual(validate(events).issues, []);
    // No step markers in the lines: one step per model call, content after tool results opens the next.
    assert.deepEqual(types(events), [
      'run-start',
      'step-start',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-output',
      'step-finish',
      'step-start',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-error',
      'step-finish',
      'step-start',
      'text-start',
      'text-delta',
      'text-end',
      'step-finish',
      'run-finish',
    ]);
    const start = events[0];
    assert.ok(start?.type === 'run-start');
    assert.deepEqual([start.model, start.messageId, start.provider], ['gpt-4', 'msg_1', 'openai']);
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.deepEqual(end?.type === 'tool-input-end' && end.input, { q: 'x' });
    const out = events.find((e) => e.type === 'tool-output');
    assert.deepEqual(out?.type === 'tool-output' && [out.toolName, out.output], ['search', '{"hits":1}'], 'the result text as sent');
    const err = events.find((e) => e.type === 'tool-error');
    assert.deepEqual(err?.type === 'tool-error' && [err.toolName, err.error], ['fail', 'boom']);
    const finish = finishOf(events);
    assert.equal(finish.finishReason, 'stop');
    assert.deepEqual(finish.usage, { raw: run[8]?.data.usage, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    assert.deepEqual(missingLeaves(run, events, { ignore: (p) => p === 'type' }), []);
  });

  test('bad input: truncated run, invalid arguments, unknown type, wrong data', () => {
    const events = decodeValues(
      [
        { type: 'delta', data: { content: 'Hi' } },
        { type: 'tool_call', data: { id: 'c', name: 'f', arguments: '{oops' } },
        { type: 'mystery', data: { x: 1 } },
        { type: 'delta', data: 'nope' },
        { type: 'delta', data: { content: 3 } },
      ],
      true,
    );
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end' && end.input === '{oops' && /not valid JSON/.test(end.inputError ?? ''));
    const raw = events.find((e) => e.type === 'raw');
    assert.deepEqual(raw?.type === 'raw' && [raw.where, raw.reason], [{ line: 3 }, 'unknown event type "mystery"']);
    assert.deepEqual(
      events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && [e.code, e.where, e.fatal]),
      [
        ['invalid_field', { line: 4, field: 'data', expected: 'object' }, false],
        ['invalid_field', { line: 5, field: 'data.content', expected: 'string' }, false],
        ['truncated', undefined, true],
      ],
    );
    assert.equal(finishOf(events).finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an error event is fatal and the run finishes with error', () => {
    const events = decodeValues(
      [
        { type: 'delta', data: { content: 'Hi' } },
        { type: 'error', data: { message: 'rate limited', code: 'rate_limit' } },
      ],
      true,
    );
    const err = events.find((e) => e.type === 'error');
    assert.deepEqual(err?.type === 'error' && [err.code, err.message, err.fatal], ['rate_limit', 'rate limited', true]);
    assert.equal(finishOf(events).finishReason, 'error');
    assert.equal(events.filter((e) => e.type === 'error').length, 1);
  });
});

function lines(objs: unknown[]): string {
  return objs.map((o) => JSON.stringify(o)).join('\n');
}
