/**
 * The Gemini decoders: `gemini` (generateContent stream, REST `?alt=sse`, and Live API server
 * messages), `gemini-interactions` (Interactions API stream) and `gemini-simple` (the simple
 * Gemini dialect of the `{"type","data"}` agent lines), against every recorded capture in fixtures/recorded/gemini/.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type CanonicalEvent, type Decoder, type DecoderOptions, detectFramework } from '../src/index.ts';
import { createGeminiDecoder, detectGemini } from '../src/inputs/gemini.ts';
import { createGeminiInteractionsDecoder, detectGeminiInteractions, interactionsUsage } from '../src/inputs/gemini-interactions.ts';
import { createGeminiSimpleDecoder, detectGeminiSimple } from '../src/inputs/gemini-simple.ts';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES, fixture, types } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

type Make = (options?: DecoderOptions) => Decoder;
type Obj = Record<string, unknown>;

const DIR = `${FIXTURES}recorded/gemini/`;
const FILES = readdirSync(DIR).sort();

function isSse(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return first.startsWith('data:');
}

/** The JSON values of a capture (JSONL chunk file or raw SSE body). */
function values(text: string): Obj[] {
  return isSse(text)
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)))
    : text
        .split(/\r?\n/)
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
}

/** The wire body: chunk files replayed as `data: <line>\r\n\r\n` (generateContent) or `\n\n` (Interactions). */
function wire(text: string, interactions: boolean): string {
  if (isSse(text)) return text;
  const sep = interactions ? '\n\n' : '\r\n\r\n';
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .map((l) => `data: ${l}${sep}`)
    .join('');
}

const read = (file: string) => fixture(`recorded/gemini/${file}`).toString();
const isInteractions = (file: string) => detectGeminiInteractions(values(read(file))[0]);
const GENERATE = FILES.filter((f) => !isInteractions(f));
const INTERACTIONS = FILES.filter(isInteractions);

function joined(events: CanonicalEvent[], type: 'text-delta' | 'reasoning-delta'): string {
  return events.map((e) => (e.type === type ? e.delta : '')).join('');
}

function calls(events: CanonicalEvent[], providerExecuted = false) {
  return events
    .filter((e) => e.type === 'tool-input-end' && (e.providerExecuted ?? false) === providerExecuted)
    .map((e) => (e.type === 'tool-input-end' ? { id: e.toolCallId, name: e.toolName, input: e.input } : undefined));
}

function byType<T extends CanonicalEvent['type']>(events: CanonicalEvent[], type: T): Extract<CanonicalEvent, { type: T }>[] {
  return events.filter((e): e is Extract<CanonicalEvent, { type: T }> => e.type === type);
}

const decodeFile = (file: string) =>
  isInteractions(file) ? decodeChunks([read(file)], createGeminiInteractionsDecoder) : decodeChunks([read(file)], createGeminiDecoder);

// ---------------------------------------------------------------------------------------------

describe('Gemini captures: which decoder reads which file', () => {
  test('every capture is claimed by exactly one detector, from its first value', () => {
    const interactions = ['basic', 'google-search', 'multi-turn-stateful-turn1', 'multi-turn-stateful-turn2'];
    interactions.push('multi-turn-stateless-turn1', 'multi-turn-stateless-turn2', 'tool-call-step1', 'tool-call-step2');
    assert.deepEqual(
      INTERACTIONS,
      interactions.map((n) => `${n}.chunks.txt`),
    );
    assert.equal(GENERATE.length, FILES.length - interactions.length);
    for (const file of FILES) {
      const first = values(read(file))[0];
      assert.equal(detectGemini(first) !== detectGeminiInteractions(first), true, file);
      assert.equal(detectGeminiSimple(first), false, file);
      // Until the Gemini decoders are registered detectFramework says undefined; afterwards, the right one.
      const found: string | undefined = detectFramework(first);
      const own = detectGemini(first) ? 'gemini' : 'gemini-interactions';
      assert.ok(found === undefined || found === own, `${file}: claimed by ${found}`);
    }
  });

  test('the detectors never claim Anthropic events or the {"type","data"} agent formats', () => {
    const others = [
      { type: 'message_start', message: { id: 'm', candidates: [] } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } },
      { type: 'start', data: { model: 'gemini-pro' } },
      { type: 'content', data: { text: 'Hello' } },
      { type: 'function_call', data: { name: 'f', args: {} } },
      { type: 'done', data: { usage: {} } },
      { type: 'error', error: { message: 'x' } },
      { type: 'x', candidates: [], event_type: 'step.start' },
      'text',
      null,
      [],
    ];
    for (const v of others) {
      assert.equal(detectGemini(v), false, JSON.stringify(v));
      assert.equal(detectGeminiInteractions(v), false, JSON.stringify(v));
      assert.equal(detectGeminiSimple(v), false, JSON.stringify(v));
    }
    // Not every Gemini-ish object is unmistakable: a bare error chunk is left undetected.
    assert.equal(detectGemini({ error: { code: 429, message: 'quota' } }), false);
    assert.equal(detectGemini({ usageMetadata: {}, modelVersion: 'gemini-2.5-flash' }), true);
    assert.equal(detectGemini({ serverContent: { turnComplete: true } }), true);
    assert.equal(detectGeminiInteractions({ event_type: 'interaction.created', interaction: {} }), true);
  });
});

// ---------------------------------------------------------------------------------------------

/** What a capture amounts to, read straight from the JSON (the reference for the fixture tests). */
function reference(vals: Obj[]) {
  let text = '';
  let reasoning = '';
  const calls: { name: string; input: unknown }[] = [];
  let usage: unknown;
  let finish: string | undefined;
  for (const v of vals) {
    const c = (v.candidates as Obj[] | undefined)?.[0];
    for (const p of ((c?.content as Obj | undefined)?.parts as Obj[] | undefined) ?? []) {
      if (typeof p.text === 'string') {
        if (p.thought === true) reasoning += p.text;
        else text += p.text;
      }
      const f = p.functionCall as Obj | undefined;
      if (f && typeof f.name === 'string' && !f.willContinue && !f.partialArgs) calls.push({ name: f.name, input: f.args ?? {} });
    }
    if (typeof c?.finishReason === 'string') finish = c.finishReason;
    if (v.usageMetadata) usage = v.usageMetadata;
  }
  return { text, reasoning, calls, usage, finish };
}

/** Inputs of the calls whose arguments stream (Gemini 3 partialArgs), read off the captures by hand. */
const STREAMED_INPUTS: Record<string, { name: string; input: unknown }[]> = {
  'google-stream-no-args-tool-call.chunks.txt': [
    { name: 'read_theme', input: {} },
    { name: 'read_screen', input: { id: 'A' } },
    { name: 'read_screen', input: { id: 'B' } },
    { name: 'read_screen', input: { id: 'C' } },
  ],
  'google-stream-tool-call-arguments.chunks.txt': [
    { name: 'getWeather', input: { location: 'Boston' } },
    { name: 'getWeather', input: { location: 'San Francisco' } },
  ],
  'google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt': [
    {
      name: 'writeItems',
      input: {
        operations: [
          { action: 'add', description: 'Fresh red apple', itemid: 'apple_001', price: 0.5 },
          { action: 'add', description: 'Ripe yellow banana', itemid: 'banana_001', price: 0.3 },
        ],
      },
    },
  ],
};

const FINISH: Record<string, string> = {
  'google-live-speech-translation.chunks.txt': 'error',
  'google-stream-no-args-tool-call.chunks.txt': 'tool-calls',
  'google-stream-tool-call-arguments.chunks.txt': 'tool-calls',
  'google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt': 'tool-calls',
  'google-tool-call-gemini3.chunks.txt': 'tool-calls',
  'google-tool-call.chunks.txt': 'tool-calls',
  'google-vertex-stream-tool-call-arguments-nested.1.chunks.txt': 'tool-calls',
  'issue-10781.1.chunks.txt': 'tool-calls',
  'streaming-success-thinking-function-call-thought-summary-signature.txt': 'tool-calls',
  'test_google_model_iter_stream.i0.sse.txt': 'tool-calls',
  'test_google_streaming_tool_call_thought_signature.i0.sse.txt': 'tool-calls',
};

describe('gemini decoder: every generateContent capture', () => {
  for (const file of GENERATE.filter((f) => !f.startsWith('google-live'))) {
    test(`${file}: text, reasoning, calls, finish reason and usage match the capture`, () => {
      const text = read(file);
      const events = decodeChunks([text], createGeminiDecoder);
      assert.deepEqual(validate(events).issues, []);
      const ref = reference(values(text));
      assert.equal(joined(events, 'text-delta'), ref.text);
      assert.equal(joined(events, 'reasoning-delta'), ref.reasoning);
      const got = calls(events).map((c) => ({ name: c?.name, input: c?.input }));
      // The nested recipe call is checked field by field in 'streamed arguments' below.
      if (file.includes('nested'))
        assert.deepEqual(
          got.map((c) => c.name),
          ['cookRecipe'],
        );
      else assert.deepEqual(got, STREAMED_INPUTS[file] ?? ref.calls);
      const finish = byType(events, 'step-finish').at(-1);
      assert.ok(finish);
      assert.equal(finish.rawFinishReason, ref.finish);
      assert.equal(finish.finishReason, FINISH[file] ?? 'stop');
      assert.deepEqual(finish.usage?.raw, ref.usage, 'the last usageMetadata is kept whole');
      const run = events.at(-1);
      assert.ok(run?.type === 'run-finish');
      assert.equal(run.finishReason, finish.finishReason);
      assert.equal(byType(events, 'error').length, 0);
    });
  }

  test('the same bytes as JSON lines, as the CRLF SSE wire body and as LF SSE give the same events', () => {
    for (const file of GENERATE.filter((f) => f.endsWith('.chunks.txt'))) {
      const text = read(file);
      const a = decodeChunks([text], createGeminiDecoder);
      const b = decodeChunks([wire(text, false)], createGeminiDecoder);
      const c = decodeChunks([wire(text, true)], createGeminiDecoder);
      const strip = (events: CanonicalEvent[]) => events.map(({ ...e }) => ('where' in e ? { ...e, where: undefined } : e));
      assert.deepEqual(strip(b), strip(a), file);
      assert.deepEqual(strip(c), strip(a), file);
    }
  });

  test('usage: input = prompt + tool-use prompt tokens, output = candidates + thoughts, cache and reasoning broken out', () => {
    const events = decodeFile('streaming-success-code-execution.txt');
    const usage = byType(events, 'step-finish')[0]?.usage;
    assert.deepEqual(
      { ...usage, raw: undefined },
      { inputTokens: 21 + 243, outputTokens: 126 + 95, totalTokens: 485, reasoningTokens: 95, raw: undefined },
    );
    const cached = decodeObjects(
      [
        {
          candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 80, candidatesTokenCount: 2, totalTokenCount: 102 },
          responseId: 'r',
        },
      ],
      createGeminiDecoder,
    );
    const u = byType(cached, 'step-finish')[0]?.usage;
    assert.equal(u?.inputTokens, 100, 'promptTokenCount already counts the cached tokens');
    assert.equal(u?.cacheReadTokens, 80);
  });

  test('thought signatures: on an empty text part, on a text part, on a function call, alone after a call', () => {
    const text = decodeFile('google-text.chunks.txt');
    const end = byType(text, 'text-end')[0];
    assert.match(String(end?.providerMetadata?.google?.thoughtSignature), /^EqsFCqgFAb4/);
    assert.equal(byType(text, 'text-start').length, 1, 'the empty signature part continues the text block');

    const iter = decodeFile('test_google_model_thinking_part_iter.i0.sse.txt');
    assert.equal(byType(iter, 'reasoning-end')[0]?.providerMetadata, undefined);
    assert.match(String(byType(iter, 'text-end')[0]?.providerMetadata?.google?.thoughtSignature), /^CiIB0e2Kb6Syj1a/);

    const call = decodeFile('issue-10781.1.chunks.txt');
    const tool = byType(call, 'tool-input-end')[0];
    assert.equal(tool?.toolCallId, 'g1bmv6il', 'the provider id is kept');
    assert.match(String(tool?.providerMetadata?.google?.thoughtSignature), /^EqsGCqgGARFNMg/);
    assert.match(String(byType(call, 'tool-input-start')[0]?.providerMetadata?.google?.thoughtSignature), /^EqsGCqgGARFNMg/);

    // A signature-only part with no block open gets its own empty block (kept in position).
    const alone = decodeObjects(
      [
        { candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] } }], responseId: 'r' },
        { candidates: [{ content: { parts: [{ text: '', thoughtSignature: 'SIG' }] } }], responseId: 'r' },
        { candidates: [{ content: { parts: [{ text: 'after' }] }, finishReason: 'STOP' }], responseId: 'r' },
      ],
      createGeminiDecoder,
    );
    assert.deepEqual(
      types(alone).filter((t) => t.startsWith('text')),
      ['text-start', 'text-end', 'text-start', 'text-delta', 'text-end'],
    );
    assert.deepEqual(byType(alone, 'text-end')[0]?.providerMetadata, { google: { thoughtSignature: 'SIG' } });
    assert.deepEqual(validate(alone).issues, []);
  });

  test('generated tool call ids are deterministic: <responseId>-<n>', () => {
    const events = decodeFile('google-stream-no-args-tool-call.chunks.txt');
    assert.deepEqual(
      calls(events).map((c) => c?.id),
      ['_vr4aYiWEJnYodAPkujX0QM-1', '_vr4aYiWEJnYodAPkujX0QM-2', '_vr4aYiWEJnYodAPkujX0QM-3', '_vr4aYiWEJnYodAPkujX0QM-4'],
    );
  });

  test('streamed arguments: the deltas spell out exactly the final JSON, for nested objects and arrays too', () => {
    for (const file of Object.keys(STREAMED_INPUTS).concat('google-vertex-stream-tool-call-arguments-nested.1.chunks.txt')) {
      const events = decodeFile(file);
      for (const end of byType(events, 'tool-input-end')) {
        const deltas = events.map((e) => (e.type === 'tool-input-delta' && e.toolCallId === end.toolCallId ? e.delta : '')).join('');
        if (deltas) assert.equal(deltas, JSON.stringify(end.input), `${file} ${end.toolCallId}`);
      }
    }
    const nested = calls(decodeFile('google-vertex-stream-tool-call-arguments-nested.1.chunks.txt'))[0]?.input as {
      recipe: { name: string; ingredients: unknown[]; steps: string[] };
    };
    assert.equal(nested.recipe.name, 'Lasagna');
    assert.equal(nested.recipe.ingredients.length, 10);
    assert.deepEqual(nested.recipe.ingredients[0], { amount: '16 oz', name: 'Lasagna noodles' });
    assert.equal(nested.recipe.steps.length, 10);
    assert.equal(nested.recipe.steps[4], 'In a 9x13 baking dish, spread a thin layer of meat sauce.');
  });

  test('streamed arguments: booleans, nulls, empty arrays, escaped strings and a new call ending the previous one', () => {
    const fc_ = (f: Obj) => ({ candidates: [{ content: { parts: [{ functionCall: f }] } }], responseId: 'r' });
    const events = decodeObjects(
      [
        fc_({ name: 'a', willContinue: true }),
        fc_({ partialArgs: [{ jsonPath: '$.s', stringValue: 'say "hi"\n', willContinue: true }], willContinue: true }),
        fc_({ partialArgs: [{ jsonPath: '$.s', stringValue: 'bye' }], willContinue: true }),
        fc_({
          partialArgs: [
            { jsonPath: '$.ok', boolValue: true },
            { jsonPath: '$.none', nullValue: 'NULL_VALUE' },
          ],
          willContinue: true,
        }),
        fc_({ partialArgs: [{ jsonPath: '$.list[]' }, { jsonPath: "$['odd key'].x", numberValue: 1 }], willContinue: true }),
        fc_({ name: 'b', willContinue: true }), // no terminal {} for a: b ends it
        fc_({ partialArgs: [{ jsonPath: '$.n', numberValue: 2 }] }),
        { candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'STOP' }], responseId: 'r' },
      ],
      createGeminiDecoder,
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(calls(events), [
      { id: 'r-1', name: 'a', input: { s: 'say "hi"\nbye', ok: true, none: null, list: [], 'odd key': { x: 1 } } },
      { id: 'r-2', name: 'b', input: { n: 2 } },
    ]);
    for (const end of byType(events, 'tool-input-end')) {
      const deltas = events.map((e) => (e.type === 'tool-input-delta' && e.toolCallId === end.toolCallId ? e.delta : '')).join('');
      assert.equal(deltas, JSON.stringify(end.input));
    }
  });

  test('code execution: provider-executed code_execution calls with their results; finish stays stop', () => {
    const events = decodeFile('test_google_model_builtin_code_execution_stream.i0.sse.txt');
    const code = calls(events, true);
    assert.equal(code.length, 2);
    assert.equal(code[0]?.name, 'code_execution');
    assert.deepEqual(Object.keys(code[0]?.input as object), ['language', 'code']);
    const outputs = byType(events, 'tool-output');
    assert.deepEqual(
      outputs.map((o) => [o.toolCallId, o.providerExecuted, o.output]),
      code.map((c) => [c?.id, true, { outcome: 'OUTCOME_OK', output: '-428330955.97745\n' }]),
    );
    assert.deepEqual(byType(events, 'tool-input-end')[0]?.providerMetadata, { google: { thought: true } }, 'thought-phase code is marked');
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'stop');
  });

  test('a failed code execution is a tool-error', () => {
    const events = decodeObjects(
      [
        { candidates: [{ content: { parts: [{ executableCode: { language: 'PYTHON', code: '1/0' } }] } }], responseId: 'r' },
        {
          candidates: [{ content: { parts: [{ codeExecutionResult: { outcome: 'OUTCOME_FAILED', output: 'ZeroDivisionError' } }] } }],
          responseId: 'r',
        },
        { candidates: [{ content: { parts: [{ text: 'Oops.' }] }, finishReason: 'STOP' }], responseId: 'r' },
      ],
      createGeminiDecoder,
    );
    const err = byType(events, 'tool-error')[0];
    assert.deepEqual([err?.toolCallId, err?.error, err?.providerExecuted], ['r-1', 'ZeroDivisionError', true]);
  });

  test('Gemini 3 server tools: toolCall / toolResponse are provider-executed server:<TYPE> calls', () => {
    const events = decodeFile('test_google_model_file_search_grounding_gemini_3[True].i3.sse.txt');
    const call = byType(events, 'tool-input-end')[0];
    assert.deepEqual([call?.toolCallId, call?.toolName, call?.providerExecuted, call?.input], ['tju3qkc9', 'server:FILE_SEARCH', true, {}]);
    assert.equal(call?.providerMetadata?.google?.serverToolType, 'FILE_SEARCH');
    const out = byType(events, 'tool-output')[0];
    assert.equal(out?.toolCallId, 'tju3qkc9');
    assert.match(String(out?.providerMetadata?.google?.thoughtSignature), /^EtoGCtcGCAIS/);
    const source = byType(events, 'source')[0];
    assert.equal(source?.kind, 'document');
    assert.equal(source?.filename, 'testfilesearchgroundingstre-p2hcv3cs2i69');
  });

  test('grounding: sources from groundingChunks, citations from groundingSupports with byte offsets turned into characters', () => {
    const events = decodeFile('test_google_model_web_search_tool_stream.i0.sse.txt');
    assert.deepEqual(
      byType(events, 'source').map((s) => s.title),
      ['Weather information for San Francisco, CA, US', 'timeanddate.com', 'weather.gov', 'wunderground.com', 'accuweather.com'],
    );
    const text = joined(events, 'text-delta');
    const citations = byType(events, 'citation');
    assert.equal(citations.length, 9, '8 supports, one of them cites two chunks');
    for (const c of citations) {
      const { startIndex, endIndex, citedText } = c.citation;
      assert.equal(text.slice(startIndex, endIndex), citedText, 'offsets point at the cited text (° is 2 bytes)');
    }
    assert.equal(citations[0]?.citation.url, byType(events, 'source')[0]?.url);
    const finish = byType(events, 'step-finish')[0];
    const gm = finish?.providerMetadata?.google?.groundingMetadata as Obj;
    assert.deepEqual(gm.webSearchQueries, ['weather in San Francisco today']);
    assert.match(String((gm.searchEntryPoint as Obj).renderedContent), /^<style>/);
  });

  test('urlContextMetadata and citationMetadata are kept; citation sources become citations', () => {
    const url = byType(decodeFile('streaming-success-url-context.txt'), 'step-finish')[0];
    assert.deepEqual(url?.providerMetadata?.google?.urlContextMetadata, {
      urlMetadata: [{ retrievedUrl: 'https://google.com', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS' }],
    });
    const cites = byType(decodeFile('streaming-success-citations.txt'), 'citation');
    assert.equal(cites.length, 1);
    assert.deepEqual([cites[0]?.citation.kind, cites[0]?.citation.startIndex, cites[0]?.citation.endIndex], ['url', 111, 236]);
  });

  test('finishReason is not the end: chunks after it are still decoded (code execution capture)', () => {
    const events = decodeFile('test_google_model_builtin_code_execution_stream.i0.sse.txt');
    assert.equal(joined(events, 'text-delta'), 'The result is -428,330,955.97745.');
    assert.deepEqual(types(events).slice(-3), ['text-end', 'step-finish', 'run-finish']);
  });

  test('a multi-step run with parallel function calls and their responses', () => {
    const step1 = values(read('google-stream-no-args-tool-call.chunks.txt'));
    const responses = {
      candidates: [
        {
          content: {
            role: 'user',
            parts: [
              { functionResponse: { name: 'read_theme', response: { theme: 'dark' } } },
              { functionResponse: { name: 'read_screen', response: { id: 'A', title: 'Home' } } },
              { functionResponse: { name: 'read_screen', response: { id: 'B', title: 'Settings' } } },
              { functionResponse: { name: 'read_screen', response: { id: 'C', title: 'Profile' } } },
            ],
          },
        },
      ],
    };
    const step2 = values(read('google-text.chunks.txt'));
    const events = decodeObjects([...step1, responses, ...step2], createGeminiDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      byType(events, 'step-start').map((s) => s.stepId),
      ['_vr4aYiWEJnYodAPkujX0QM', 'bH6LaZW8Fp_3nsEPqtaSwQ4'],
    );
    assert.deepEqual(
      byType(events, 'step-finish').map((s) => s.finishReason),
      ['tool-calls', 'stop'],
    );
    const ids = calls(events).map((c) => c?.id);
    assert.deepEqual(
      byType(events, 'tool-output').map((o) => [o.toolCallId, o.toolName, (o.output as Obj).title ?? (o.output as Obj).theme]),
      [
        [ids[0], 'read_theme', 'dark'],
        [ids[1], 'read_screen', 'Home'],
        [ids[2], 'read_screen', 'Settings'],
        [ids[3], 'read_screen', 'Profile'],
      ],
      'responses match the pending calls by name, in order',
    );
    const run = events.at(-1);
    assert.ok(run?.type === 'run-finish');
    assert.equal(run.finishReason, 'stop');
    assert.deepEqual(run.usage, { inputTokens: 249 + 9, outputTokens: 241 + 208, totalTokens: 490 + 217, reasoningTokens: 183 + 185 });
  });

  test('several candidates: the first is decoded, the others are kept in raw events', () => {
    const events = decodeObjects(
      [
        {
          candidates: [
            { content: { parts: [{ text: 'one' }] }, index: 0, finishReason: 'STOP' },
            { content: { parts: [{ text: 'two' }] }, index: 1, finishReason: 'STOP' },
          ],
          responseId: 'r',
        },
      ],
      createGeminiDecoder,
    );
    assert.equal(joined(events, 'text-delta'), 'one');
    const raw = byType(events, 'raw')[0];
    assert.deepEqual(raw?.event, { content: { parts: [{ text: 'two' }] }, index: 1, finishReason: 'STOP' });
    assert.deepEqual(raw?.where, { line: 1, field: 'candidates[1]' });
  });

  test('inline and file data become file events; finish reasons map like @ai-sdk/google', () => {
    const events = decodeObjects(
      [
        {
          candidates: [
            {
              content: {
                parts: [
                  { text: 'Here:' },
                  { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' }, thoughtSignature: 'S' },
                  { fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/f.pdf', displayName: 'f.pdf' } },
                ],
              },
              finishReason: 'MAX_TOKENS',
            },
          ],
          responseId: 'r',
        },
      ],
      createGeminiDecoder,
    );
    const files = byType(events, 'file');
    assert.deepEqual(
      files.map((f) => [f.url, f.mediaType, f.filename, f.providerMetadata]),
      [
        ['data:image/png;base64,iVBORw0KGgo=', 'image/png', undefined, { google: { thoughtSignature: 'S' } }],
        ['gs://b/f.pdf', 'application/pdf', 'f.pdf', undefined],
      ],
    );
    assert.equal(types(events).indexOf('text-end') < types(events).indexOf('file'), true, 'a file closes the text block');
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'length');
    const reasons = ['SAFETY', 'RECITATION', 'SPII', 'MALFORMED_FUNCTION_CALL', 'OTHER', 'LANGUAGE'].map(
      (r) =>
        byType(
          decodeObjects([{ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: r }] }], createGeminiDecoder),
          'run-finish',
        )[0]?.finishReason,
    );
    assert.deepEqual(reasons, ['content-filter', 'content-filter', 'content-filter', 'error', 'other', 'other']);
  });
});

describe('gemini decoder: the Live API capture (google-live-speech-translation)', () => {
  test('transcripts, audio, usage increments and session updates are decoded; the capture stops mid-turn', () => {
    const events = decodeFile('google-live-speech-translation.chunks.txt');
    assert.deepEqual(validate(events).issues, []);
    assert.equal(joined(events, 'text-delta'), 'El zorro marrón rápido salta sobre el perro perezoso.');
    assert.deepEqual(
      byType(events, 'custom')
        .filter((c) => c.name === 'google.inputTranscription')
        .map((c) => (c.value as Obj).text)
        .join(''),
      'The quick brown fox jumps over the lazy dog.',
    );
    assert.deepEqual(
      byType(events, 'file').map((f) => f.url),
      ['data:audio/pcm;rate=24000;base64,AQIDBAUGBwg=', 'data:audio/pcm;rate=24000;base64,AAAAAAAAAAAAAAAA'],
    );
    assert.equal(byType(events, 'text-start').length, 1, 'audio does not split the transcript');
    const usage = byType(events, 'usage');
    assert.deepEqual(
      usage.map((u) => [u.scope, u.usage.inputTokens, u.usage.outputTokens]),
      [
        ['increment', 50, 50],
        ['increment', 25, 25],
        ['increment', 25, 25],
        ['increment', 25, 25],
        ['increment', 25, 25],
      ],
    );
    assert.deepEqual(byType(events, 'custom').at(-1)?.value, { newHandle: 'redacted-fixture-handle', resumable: true });
    // No turnComplete in the capture: reported as truncated, like any stream that stops mid-answer.
    const err = byType(events, 'error')[0];
    assert.equal(err?.code, 'truncated');
    const run = events.at(-1);
    assert.ok(run?.type === 'run-finish');
    assert.deepEqual([run.finishReason, run.usage?.inputTokens, run.usage?.outputTokens], ['error', 150, 150]);
  });

  test('turnComplete ends the turn cleanly; toolCall and toolCallCancellation map to tool events', () => {
    const events = decodeObjects(
      [
        { setupComplete: {} },
        { serverContent: { modelTurn: { parts: [{ text: 'Hi' }] } } },
        { serverContent: { turnComplete: true } },
        { toolCall: { functionCalls: [{ id: 'fc1', name: 'lookup', args: { q: 'x' } }] } },
        { toolCallCancellation: { ids: ['fc1'] } },
        { serverContent: { interrupted: true } },
        { goAway: { timeLeft: '10s' } },
      ],
      createGeminiDecoder,
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      byType(events, 'step-finish').map((s) => [s.stepId, s.finishReason, s.rawFinishReason]),
      [
        ['turn_1', 'stop', 'turnComplete'],
        ['turn_2', 'interrupted', 'interrupted'],
      ],
    );
    assert.deepEqual(calls(events), [{ id: 'fc1', name: 'lookup', input: { q: 'x' } }]);
    assert.equal(byType(events, 'tool-error')[0]?.error, 'cancelled');
    assert.equal(byType(events, 'error').length, 0);
    assert.equal(events.at(-1)?.type, 'run-finish');
  });
});

// ---------------------------------------------------------------------------------------------

describe('gemini-interactions decoder: every Interactions capture', () => {
  const expected: Record<string, { finish: string; raw: string; tools: string[] }> = {
    'basic.chunks.txt': { finish: 'stop', raw: 'completed', tools: [] },
    'google-search.chunks.txt': { finish: 'stop', raw: 'completed', tools: ['google_search'] },
    'tool-call-step1.chunks.txt': { finish: 'tool-calls', raw: 'requires_action', tools: ['getWeather'] },
  };
  for (const file of INTERACTIONS) {
    test(`${file}: text, thought signature, calls, finish reason and usage match the capture`, () => {
      const text = read(file);
      const vals = values(text);
      const events = decodeChunks([text], createGeminiInteractionsDecoder);
      assert.deepEqual(validate(events).issues, []);
      const deltaText = vals.map((v) => ((v.delta as Obj | undefined)?.type === 'text' ? (v.delta as Obj).text : '')).join('');
      assert.equal(joined(events, 'text-delta'), deltaText);
      const sig = vals.map((v) => (v.delta as Obj | undefined)?.signature).find((s) => s !== undefined);
      assert.equal(byType(events, 'reasoning-end')[0]?.providerMetadata?.google?.signature, sig);
      const completed = vals.at(-1)?.interaction as Obj;
      const finish = byType(events, 'step-finish')[0];
      const exp = expected[file] ?? { finish: 'stop', raw: 'completed', tools: [] };
      assert.deepEqual([finish?.finishReason, finish?.rawFinishReason], [exp.finish, exp.raw]);
      assert.deepEqual(finish?.usage?.raw, completed.usage);
      assert.deepEqual(
        byType(events, 'tool-input-end').map((t) => t.toolName),
        exp.tools,
      );
      const interactionId = ((vals[0]?.interaction ?? {}) as Obj).id;
      if (interactionId) assert.equal(events[0]?.type === 'run-start' && events[0].messageId, interactionId);
      else assert.equal(byType(events, 'step-start')[0]?.stepId, 'interaction_1', 'stateless: empty id');
    });
  }

  test('function call: arguments_delta text becomes the parsed input; status updates are status events', () => {
    const events = decodeFile('tool-call-step1.chunks.txt');
    assert.deepEqual(calls(events), [{ id: '61nzpsv4', name: 'getWeather', input: { location: 'San Francisco' } }]);
    assert.deepEqual(
      byType(events, 'status').map((s) => s.status),
      ['in_progress'],
    );
  });

  test('google_search: a provider-executed call with its queries and result; annotations become citations', () => {
    const events = decodeFile('google-search.chunks.txt');
    const call = calls(events, true)[0];
    assert.deepEqual(call?.input, {
      queries: [
        'notable AI developments last week May 8-15 2026',
        'AI news May 8 2026',
        'AI breakthroughs May 2026',
        'major AI announcements May 2026',
      ],
    });
    const out = byType(events, 'tool-output')[0];
    assert.equal(out?.toolCallId, '7xveqyd2');
    assert.equal(((out?.output ?? []) as unknown[]).length, 8);
    const citations = byType(events, 'citation');
    assert.equal(citations.length, 14);
    const text = joined(events, 'text-delta');
    assert.equal(text.slice(citations[0]?.citation.startIndex, citations[0]?.citation.endIndex).startsWith('These updates aim'), true);
    assert.equal(citations[0]?.citation.title, 'coaio.com');
    const usage = byType(events, 'step-finish')[0]?.usage;
    assert.deepEqual(
      [usage?.inputTokens, usage?.outputTokens, usage?.totalTokens, usage?.reasoningTokens],
      [22 + 198, 590 + 1173, 1983, 1173],
    );
  });

  test('several interactions in one body are steps of one run (multi-step: call, then answer)', () => {
    const vals = [...values(read('tool-call-step1.chunks.txt')), ...values(read('tool-call-step2.chunks.txt'))];
    const events = decodeObjects(vals, createGeminiInteractionsDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      byType(events, 'step-finish').map((s) => s.finishReason),
      ['tool-calls', 'stop'],
    );
    const run = events.at(-1);
    assert.ok(run?.type === 'run-finish');
    assert.deepEqual([run.finishReason, run.usage?.inputTokens, run.usage?.totalTokens], ['stop', 53 + 161, 133 + 180]);
    assert.equal(new Set(byType(events, 'reasoning-start').map((r) => r.blockId)).size, 2, 'block ids are unique per run');
  });

  test('parallel function calls, images and an error event', () => {
    const events = decodeObjects(
      [
        { event_type: 'interaction.created', interaction: { id: 'i1', model: 'm', status: 'in_progress' } },
        { event_type: 'step.start', index: 0, step: { type: 'function_call', id: 'c1', name: 'a', arguments: {} } },
        { event_type: 'step.start', index: 1, step: { type: 'function_call', id: 'c2', name: 'b', arguments: { fixed: 1 } } },
        { event_type: 'step.delta', index: 0, delta: { type: 'arguments_delta', arguments: '{"x":' } },
        { event_type: 'step.delta', index: 0, delta: { type: 'arguments_delta', arguments: '1}' } },
        { event_type: 'step.stop', index: 0 },
        { event_type: 'step.stop', index: 1 },
        { event_type: 'step.start', index: 2, step: { type: 'model_output' } },
        { event_type: 'step.delta', index: 2, delta: { type: 'image', mime_type: 'image/png', data: 'AAAA' } },
        { event_type: 'step.stop', index: 2 },
        { event_type: 'error', error: { code: 'resource_exhausted', message: 'Quota exceeded' } },
      ],
      createGeminiInteractionsDecoder,
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      calls(events).map((c) => [c?.id, c?.input]),
      [
        ['c1', { x: 1 }],
        ['c2', { fixed: 1 }],
      ],
    );
    assert.equal(byType(events, 'file')[0]?.url, 'data:image/png;base64,AAAA');
    const err = byType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.message, err?.fatal, err?.where], ['resource_exhausted', 'Quota exceeded', true, { line: 11 }]);
    assert.deepEqual(types(events).slice(-2), ['step-finish', 'run-finish']);
    assert.equal(events.at(-1)?.type === 'run-finish' && (events.at(-1) as { finishReason: string }).finishReason, 'error');
  });
});

// ---------------------------------------------------------------------------------------------

describe('Gemini decoders: chunk boundaries', () => {
  const cases: [string, Make, string][] = [
    [
      'test_google_model_web_search_tool_stream.i0.sse.txt (CRLF SSE)',
      createGeminiDecoder,
      read('test_google_model_web_search_tool_stream.i0.sse.txt'),
    ],
    ['streaming-success-url-context.txt (LF SSE)', createGeminiDecoder, read('streaming-success-url-context.txt')],
    [
      'google-vertex-stream-tool-call-arguments-nested (wire body)',
      createGeminiDecoder,
      wire(read('google-vertex-stream-tool-call-arguments-nested.1.chunks.txt'), false),
    ],
    ['google-search (Interactions, wire body)', createGeminiInteractionsDecoder, wire(read('google-search.chunks.txt'), true)],
    ['tool-call-step1 (Interactions, JSON lines)', createGeminiInteractionsDecoder, read('tool-call-step1.chunks.txt')],
  ];
  for (const [name, make, text] of cases) {
    test(`${name}: the same bytes split at random boundaries give identical events`, () => {
      const bytes = new TextEncoder().encode(text);
      const whole = decodeChunks([bytes], make);
      assertSplitInvariant(bytes, (chunks) => decodeChunks(chunks, make), { expected: whole, maxCuts: 40, numRuns: 100 });
    });
  }

  test('one byte at a time through multi-byte UTF-8 (°, á, ó)', () => {
    for (const file of ['test_google_model_web_search_tool_stream.i0.sse.txt', 'google-live-speech-translation.chunks.txt']) {
      const bytes = new Uint8Array(fixture(`recorded/gemini/${file}`));
      const whole = decodeFile(file);
      assert.deepEqual(
        decodeChunks(
          Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)),
          createGeminiDecoder,
        ),
        whole,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Structural leaves, with the reason each is not looked up:
 * - `candidates[0].index`, step `index`: positions that become block ids;
 * - `content.role` ("model"): a generateContent stream always produces the model's turn;
 * - `partialArgs[n].jsonPath`: the path of a streamed argument becomes the key in the tool input;
 * - `event_type`, `type` (step / delta / annotation / content kinds), `interaction.object`: discriminators
 *   that become event kinds;
 * - `willContinue`: a boolean (flags are not looked up).
 */
function structural(path: string): boolean {
  return (
    /(^|\.)index$/.test(path) ||
    /(^|\.)content\.role$/.test(path) ||
    /partialArgs\[\d+\]\.jsonPath$/.test(path) ||
    /(^|\.)event_type$/.test(path) ||
    /(^|\.)type$/.test(path) ||
    path === 'interaction.object'
  );
}

/**
 * `usageMetadata` repeats on every generateContent chunk with running totals; only the last one of a
 * response is the usage (kept whole in step-finish `usage.raw`, as @ai-sdk/google keeps it), so the
 * intermediate snapshots are dropped from the inputs before the check. Live API usage is
 * incremental: every one is kept and checked.
 */
function finalUsageOnly(vals: Obj[]): Obj[] {
  const last = new Map<unknown, number>();
  vals.forEach((v, i) => {
    if (v.usageMetadata && v.candidates) last.set(v.responseId, i);
  });
  return vals.map((v, i) => (v.usageMetadata && v.candidates && last.get(v.responseId) !== i ? { ...v, usageMetadata: undefined } : v));
}

describe('Gemini decoders: lossless', () => {
  for (const file of FILES) {
    test(`${file}: every input field is found in the canonical output`, () => {
      const vals = values(read(file));
      const events = decodeFile(file);
      const inputs = isInteractions(file) ? vals : finalUsageOnly(vals);
      assert.deepEqual(missingLeaves(inputs, events, { ignore: structural }), []);
    });
  }

  test('synthetic values with every mapped field: promptFeedback, safety ratings, logprobs, unknown fields', () => {
    const vals = [
      {
        candidates: [
          {
            content: { parts: [{ text: 'Hi', videoMetadata: { fps: 24 } }], role: 'model' },
            safetyRatings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }],
            avgLogprobs: -0.125,
            finishReason: 'STOP',
            finishMessage: 'done here',
          },
        ],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'resp-1',
        sdkHttpResponse: { headers: { 'x-request-id': 'abc' } },
      },
    ];
    const events = decodeObjects(vals, createGeminiDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(missingLeaves(vals, events, { ignore: structural }), []);
    assert.equal(byType(events, 'raw')[0]?.reason, 'part field(s) videoMetadata have no canonical mapping');
  });
});

// ---------------------------------------------------------------------------------------------

describe('gemini decoder: bad input never throws and keeps what came before', () => {
  const hello = { candidates: [{ content: { parts: [{ text: 'Hello' }] } }], responseId: 'r' };
  const more = { candidates: [{ content: { parts: [{ text: ' world' }] } }], responseId: 'r' };
  const stop = { candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'STOP' }], responseId: 'r' };
  const sse = (...objs: unknown[]) => objs.map((o) => `data: ${typeof o === 'string' ? o : JSON.stringify(o)}\r\n\r\n`).join('');

  test('truncated stream (no finishReason): fatal "truncated", blocks and calls closed, run ends with error', () => {
    const call = { candidates: [{ content: { parts: [{ functionCall: { name: 'f', willContinue: true } }] } }], responseId: 'r' };
    const part = {
      candidates: [
        {
          content: {
            parts: [{ functionCall: { partialArgs: [{ jsonPath: '$.a', stringValue: 'x', willContinue: true }], willContinue: true } }],
          },
        },
      ],
      responseId: 'r',
    };
    const events = decodeChunks([sse(hello, call, part)], createGeminiDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.equal(joined(events, 'text-delta'), 'Hello');
    const err = byType(events, 'error')[0];
    assert.ok(err && err.code === 'truncated' && err.fatal);
    const end = byType(events, 'tool-input-end')[0];
    assert.deepEqual([end?.input, end?.inputError], [{ a: 'x' }, 'the stream ended before the function call arguments were complete']);
    // The closing delta makes the streamed text the JSON of what arrived.
    assert.deepEqual(types(events).slice(-5), ['error', 'tool-input-delta', 'tool-input-end', 'step-finish', 'run-finish']);
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'error');
  });

  test('a non-JSON SSE event in the middle: located error, decoding goes on', () => {
    const events = decodeChunks([sse(hello, '{oops', more, stop)], createGeminiDecoder);
    assert.equal(joined(events, 'text-delta'), 'Hello world');
    const err = byType(events, 'error')[0];
    assert.ok(err && err.code === 'invalid_json' && !err.fatal);
    assert.deepEqual(err.where, { event: 2, expected: 'JSON' });
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'stop');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an unknown part kind and an unknown top-level shape become raw events', () => {
    const odd = { candidates: [{ content: { parts: [{ futurePart: { x: 1 } }] } }], responseId: 'r' };
    const events = decodeObjects([hello, odd, { somethingElse: true, n: 2 }, stop], createGeminiDecoder);
    const raws = byType(events, 'raw');
    assert.deepEqual(
      raws.map((r) => [r.event, r.where]),
      [
        [{ futurePart: { x: 1 } }, { line: 2, field: 'candidates[0].content.parts[0]' }],
        [{ somethingElse: true, n: 2 }, { line: 3 }],
      ],
    );
    assert.equal(raws[0]?.source, 'gemini');
    assert.equal(joined(events, 'text-delta'), 'Hello');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a streamed-arguments fragment with no call in progress: kept in a raw event', () => {
    const stray = {
      candidates: [{ content: { parts: [{ functionCall: { partialArgs: [{ jsonPath: '$.a', numberValue: 1 }] } }] } }],
      responseId: 'r',
    };
    const events = decodeObjects([hello, stray, stop], createGeminiDecoder);
    const raw = byType(events, 'raw')[0];
    assert.match(raw?.reason ?? '', /without a function call in progress/);
    assert.deepEqual(raw?.where, { line: 2, field: 'candidates[0].content.parts[0].functionCall' });
    assert.equal(joined(events, 'text-delta'), 'Hello');
  });

  test('values of the wrong type: located invalid_field errors', () => {
    const events = decodeObjects(
      [
        hello,
        42,
        { candidates: 'nope', responseId: 'r' },
        { candidates: [{ content: { parts: 'nope' } }], responseId: 'r' },
        { candidates: [{ content: { parts: [7] }, finishReason: 3 }], responseId: 'r' },
        stop,
      ],
      createGeminiDecoder,
    );
    assert.deepEqual(
      byType(events, 'error').map((e) => e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'candidates', expected: 'an array of candidates' },
        { line: 4, field: 'candidates[0].content.parts', expected: 'an array of parts' },
        { line: 5, field: 'candidates[0].content.parts[0]', expected: 'a part object' },
        { line: 5, field: 'candidates[0].finishReason', expected: 'a string' },
      ],
    );
    assert.match(byType(events, 'error')[1]?.message ?? '', /^line 3, field candidates: expected an array of candidates/);
    assert.equal(joined(events, 'text-delta'), 'Hello');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a stream error chunk is a fatal provider error; the run finishes with error', () => {
    const events = decodeObjects(
      [hello, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }],
      createGeminiDecoder,
    );
    const err = byType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.message, err?.fatal], ['UNAVAILABLE', 'The model is overloaded.', true]);
    assert.deepEqual(err?.providerMetadata, {
      google: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
    });
    assert.equal(joined(events, 'text-delta'), 'Hello');
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'error');
    assert.equal(byType(events, 'error').length, 1, 'no extra truncated error after a provider error');
  });

  test('a blocked prompt: fatal prompt_blocked error, finish content-filter', () => {
    const events = decodeObjects(
      [
        {
          promptFeedback: { blockReason: 'SAFETY', safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH' }] },
          usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
          modelVersion: 'gemini-2.5-flash',
          responseId: 'blocked-1',
        },
      ],
      createGeminiDecoder,
    );
    assert.deepEqual(validate(events).issues, []);
    const err = byType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal], ['prompt_blocked', true]);
    assert.match(err?.message ?? '', /the prompt was blocked \(SAFETY\)/);
    const run = events.at(-1);
    assert.ok(run?.type === 'run-finish');
    assert.deepEqual([run.finishReason, run.rawFinishReason, run.usage?.inputTokens], ['content-filter', 'SAFETY', 8]);
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(types(decodeChunks([''], createGeminiDecoder)), ['run-start', 'error', 'run-finish']);
  });
});

describe('gemini-interactions decoder: bad input', () => {
  const created = { event_type: 'interaction.created', interaction: { id: 'i1', model: 'm', status: 'in_progress' } };
  const start = { event_type: 'step.start', index: 0, step: { type: 'model_output' } };
  const hello = { event_type: 'step.delta', index: 0, delta: { type: 'text', text: 'Hello' } };

  test('truncated stream (no interaction.completed): fatal truncated error, open steps closed', () => {
    const events = decodeObjects([created, start, hello], createGeminiInteractionsDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.equal(joined(events, 'text-delta'), 'Hello');
    assert.deepEqual(types(events).slice(-4), ['error', 'text-end', 'step-finish', 'run-finish']);
    assert.equal(byType(events, 'error')[0]?.code, 'truncated');
  });

  test('a delta for a step index never started, unknown events and delta kinds, wrong types', () => {
    const events = decodeObjects(
      [
        created,
        start,
        hello,
        { event_type: 'step.delta', index: 5, delta: { type: 'text', text: 'lost?' } },
        { event_type: 'interaction.future', x: 1 },
        { event_type: 'step.delta', index: 0, delta: { type: 'hologram', data: 'Z' } },
        { event_type: 'step.start', index: 'one', step: {} },
        { event_type: 'step.stop', index: 9 },
        'not an object',
        { event_type: 'step.stop', index: 0 },
        { event_type: 'interaction.completed', interaction: { id: 'i1', status: 'completed' } },
      ],
      createGeminiInteractionsDecoder,
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      byType(events, 'error').map((e) => [e.code, e.where]),
      [
        ['unknown_block', { line: 4, field: 'index', expected: 'the index of a started step' }],
        ['invalid_field', { line: 7, field: 'index', expected: 'an integer step index' }],
        ['unknown_block', { line: 8, field: 'index', expected: 'the index of a started step' }],
        ['invalid_event', { line: 9, expected: 'object' }],
      ],
    );
    assert.deepEqual(
      byType(events, 'raw').map((r) => [r.where, r.reason]),
      [
        [{ line: 5 }, 'unknown event type "interaction.future"'],
        [{ line: 6 }, 'step.delta of type "hologram" does not fit a output step'],
      ],
    );
    assert.equal(joined(events, 'text-delta'), 'Hello');
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'stop');
  });

  test('a non-JSON line: located error, decoding goes on', () => {
    const text = `${[created, start, hello].map((o) => JSON.stringify(o)).join('\n')}\n{"event_type":\n`;
    const events = decodeChunks([text], createGeminiInteractionsDecoder);
    const err = byType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.where], ['invalid_json', { line: 4, expected: 'JSON' }]);
    assert.equal(joined(events, 'text-delta'), 'Hello');
  });
});

// ---------------------------------------------------------------------------------------------

describe('gemini-simple decoder (the Gemini dialect of the agent lines)', () => {
  const run = [
    { type: 'start', data: { model: 'gemini-pro' } },
    { type: 'content', data: { text: 'Let me ' } },
    { type: 'content', data: { text: 'check.' } },
    { type: 'function_call', data: { name: 'get_weather', args: { city: 'Paris' } } },
    { type: 'function_call', data: { name: 'get_time', args: '{"tz":"CET"}' } },
    { type: 'function_response', data: { name: 'get_time', response: { time: '10:00' } } },
    { type: 'function_response', data: { name: 'get_weather', response: { temp: 18 } } },
    { type: 'content', data: { text: 'Hmm', thought: true } },
    { type: 'content', data: { text: '18°C at 10:00.' } },
    { type: 'done', data: { usage: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } } },
  ];

  test('text, parallel calls matched to their responses by name, thinking, usage and finish', () => {
    const events = decodeObjects(run, createGeminiSimpleDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.equal(events[0]?.type === 'run-start' && events[0].model, 'gemini-pro');
    assert.equal(joined(events, 'text-delta'), 'Let me check.18°C at 10:00.');
    assert.equal(joined(events, 'reasoning-delta'), 'Hmm');
    assert.deepEqual(calls(events), [
      { id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'call_2', name: 'get_time', input: { tz: 'CET' } },
    ]);
    assert.deepEqual(
      byType(events, 'tool-output').map((o) => [o.toolCallId, o.toolName, o.output]),
      [
        ['call_2', 'get_time', { time: '10:00' }],
        ['call_1', 'get_weather', { temp: 18 }],
      ],
    );
    const fin = events.at(-1);
    assert.ok(fin?.type === 'run-finish');
    assert.deepEqual([fin.finishReason, fin.usage?.inputTokens, fin.usage?.outputTokens], ['stop', 10, 5]);
    assert.deepEqual(missingLeaves(run, events, { ignore: (p) => p === 'type' }), []);
  });

  test('bad input: truncated, unknown type, wrong types, an agent error', () => {
    const events = decodeObjects(
      [
        { type: 'content', data: { text: 'Hi' } },
        { type: 'telemetry', data: { x: 1 } },
        { type: 'content', data: 'nope' },
        { data: {} },
        7,
      ],
      createGeminiSimpleDecoder,
    );
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      byType(events, 'error').map((e) => [e.code, e.where]),
      [
        ['invalid_field', { line: 3, field: 'data', expected: 'object' }],
        ['invalid_field', { line: 4, field: 'type', expected: 'string' }],
        ['invalid_event', { line: 5, expected: 'object' }],
        ['truncated', undefined],
      ],
    );
    assert.equal(byType(events, 'raw')[0]?.reason, 'unknown event type "telemetry"');
    assert.equal(joined(events, 'text-delta'), 'Hi');
    assert.equal(byType(events, 'run-finish')[0]?.finishReason, 'error');

    const failed = decodeObjects(
      [
        { type: 'function_call', data: { id: 't1', name: 'f', args: {} } },
        { type: 'function_response', data: { id: 't1', name: 'f', error: 'boom' } },
        { type: 'error', data: { message: 'quota', code: 'RESOURCE_EXHAUSTED' } },
        { type: 'done', data: {} },
      ],
      createGeminiSimpleDecoder,
    );
    assert.equal(byType(failed, 'tool-error')[0]?.error, 'boom');
    assert.deepEqual(
      byType(failed, 'error').map((e) => [e.code, e.fatal]),
      [['RESOURCE_EXHAUSTED', true]],
    );
    assert.equal(byType(failed, 'run-finish')[0]?.finishReason, 'error');
  });

  test('a call still pending at done finishes with tool-calls; chunk boundaries do not matter', () => {
    const text = `${[run[0], run[3], { type: 'done', data: {} }].map((o) => JSON.stringify(o)).join('\n')}\n`;
    const whole = decodeChunks([text], createGeminiSimpleDecoder);
    assert.equal(byType(whole, 'run-finish')[0]?.finishReason, 'tool-calls');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: text.length - 1 }), (cut) => {
        assert.deepEqual(decodeChunks([text.slice(0, cut), text.slice(cut)], createGeminiSimpleDecoder), whole);
      }),
    );
  });
});

describe('Gemini usage', () => {
  test('Interactions usage: cached tokens, tool-use and thought tokens counted where @ai-sdk/google counts them', () => {
    const u = { total_input_tokens: 10, total_tool_use_tokens: 2, total_output_tokens: 5, total_thought_tokens: 3, total_cached_tokens: 4 };
    assert.deepEqual(interactionsUsage(u), {
      raw: u,
      inputTokens: 12,
      outputTokens: 8,
      totalTokens: 20,
      reasoningTokens: 3,
      cacheReadTokens: 4,
    });
  });
});
