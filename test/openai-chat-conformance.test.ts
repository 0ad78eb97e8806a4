/**
 * The openai-chat decoder against the official implementations, on every Chat Completions capture:
 * - the official AI SDK path (`@ai-sdk/openai` `.chat()`, `@ai-sdk/deepseek`, `@ai-sdk/groq`,
 *   `@ai-sdk/xai`, `@ai-sdk/openai-compatible`; `.completion()` for the legacy Completions capture) +
 *   `streamText` + `toUIMessageStream` assembles the same text, reasoning and tool calls as our path
 *   (decoder → AI SDK encoder → SSE → official schema → `readUIMessageStream`), with the same finish reason;
 * - the `openai` SDK's `finalChatCompletion()` assembles, per choice, the same content, refusal, tool
 *   calls, finish reason, logprobs and usage as our canonical events;
 * - the `.aisdk-ref.sse` renderings of the development set assemble to the same message as ours.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UIMessage } from 'ai';
import { type CanonicalEvent, createAiSdkEncoder, framed, pipe, sseFramer } from '../packages/core/src/index.ts';
import { createOpenAIChatDecoder } from '../packages/core/src/inputs/openai-chat.ts';
import { createOpenAISimpleDecoder } from '../packages/core/src/inputs/openai-simple.ts';
import { assembleChunks, assembleUIMessage, parseAiSdkSse, summarizeMessage } from './support/ai-sdk-oracle.ts';
import {
  chatCompletionOf,
  type OpenAIChatProvider,
  officialOpenAIChatResult,
  openaiChatInputToSse,
  openaiSdkFinalCompletion,
} from './support/openai-oracle.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
// The legacy Completions model warns that it ignores the declared tools' toolChoice: expected here.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const CAPTURES = ['recorded/openai-chat/', 'recorded/openai-compatible/', 'openai-chat/']
  .flatMap((dir) => readdirSync(FIXTURES + dir).map((file) => dir + file))
  .filter((f) => !/\.(json|md)$|\.aisdk-ref\.sse$/.test(f))
  // Realtime API translation-session events, not a Chat Completions stream (see the core tests).
  .filter((f) => !f.includes('openai-realtime-speech-translation'));
const MULTI_CHOICE = CAPTURES.find((f) => f.includes('test_parse_pydantic_model_multiple_choices')) as string;
const LEGACY_COMPLETIONS = 'recorded/openai-chat/openai-completion-text.chunks.txt';

/** The official provider package for a capture (by the provider that recorded it). */
function providerOf(file: string): OpenAIChatProvider {
  const name = file.split('/').pop() ?? '';
  if (name.startsWith('deepseek-')) return 'deepseek';
  if (name.startsWith('groq-')) return 'groq';
  if (name.startsWith('xai-')) return 'xai';
  if (file === LEGACY_COMPLETIONS) return 'openai-completion';
  return 'openai';
}

function body(file: string): string {
  return openaiChatInputToSse(readFileSync(FIXTURES + file, 'utf8'));
}

function ourEvents(input: string): CanonicalEvent[] {
  const m = framed(createOpenAIChatDecoder({ runId: 'run', now: () => 0 }));
  return [...m.push(input), ...m.end()];
}

/** Our path: decoder → AI SDK encoder → SSE text. */
function ourAiSdkSse(input: string): string {
  const m = pipe(pipe(framed(createOpenAIChatDecoder({ runId: 'run', now: () => 0 })), createAiSdkEncoder()), sseFramer('ai-sdk'));
  return [...m.push(input), ...m.end()].join('');
}

/** The parts of choice 0 (the message): other choices' parts carry `{openai:{choiceIndex}}`. */
function choiceZero(m: UIMessage): UIMessage {
  const index = (p: UIMessage['parts'][number]) => {
    const pm = (p as { providerMetadata?: Record<string, Record<string, unknown>> }).providerMetadata;
    const call = (p as { callProviderMetadata?: Record<string, Record<string, unknown>> }).callProviderMetadata;
    return (pm ?? call)?.openai?.choiceIndex ?? 0;
  };
  return { ...m, parts: m.parts.filter((p) => index(p) === 0) };
}

describe('openai-chat → AI SDK: the same message as the official provider + streamText', () => {
  for (const file of CAPTURES) {
    const provider = providerOf(file);
    test(`${file.split('/').pop()?.slice(0, 60)} (${provider})`, async () => {
      const input = body(file);
      const sse = ourAiSdkSse(input);
      assert.ok(sse.endsWith('data: [DONE]\n\n'));
      const ours = await assembleChunks(await parseAiSdkSse(sse)); // the official schema accepts every chunk
      const official = await officialOpenAIChatResult(input, { provider });
      assert.deepEqual(official.streamErrors, []);
      assert.equal(ours.finishReason, official.finishReason, 'finish reason');
      if (file === MULTI_CHOICE) {
        // @ai-sdk/openai reads `choices[0]` of every chunk, whatever its `index`: with n=3 the three
        // choices' deltas interleave into one garbled text part. Ours keeps choice 0 as the message and
        // the other choices apart; all our text deltas in order are exactly the official text.
        const all = ourEvents(input)
          .map((e) => (e.type === 'text-delta' ? e.delta : ''))
          .join('');
        assert.equal(summarizeMessage(official.message).text, all);
        assert.equal(summarizeMessage(choiceZero(ours.message)).text, '{"city":"San Francisco","temperature":65,"units":"f"}');
        return;
      }
      assert.deepEqual(summarizeMessage(choiceZero(ours.message)), summarizeMessage(official.message));
    });
  }

  test('compatible captures: @ai-sdk/openai-compatible assembles the same text, reasoning and tools', async () => {
    for (const file of CAPTURES.filter((f) => f.startsWith('recorded/openai-compatible/'))) {
      const input = body(file);
      const ours = await assembleUIMessage(ourAiSdkSse(input));
      const official = await officialOpenAIChatResult(input, { provider: 'openai-compatible' });
      assert.deepEqual(summarizeMessage(ours), summarizeMessage(official.message), file);
    }
  });

  test('@ai-sdk/openai on a DeepSeek capture drops reasoning_content (why compatible captures use their own provider)', async () => {
    const input = body('recorded/openai-compatible/deepseek-reasoning.chunks.txt');
    const viaOpenAI = summarizeMessage((await officialOpenAIChatResult(input, { provider: 'openai' })).message);
    const ours = summarizeMessage(await assembleUIMessage(ourAiSdkSse(input)));
    assert.deepEqual(viaOpenAI.reasoning, []);
    assert.equal(ours.reasoning.length, 1);
    assert.equal(ours.text, viaOpenAI.text);
  });
});

describe('openai-chat canonical events: the same completion as the openai SDK finalChatCompletion()', () => {
  for (const file of CAPTURES) {
    if (file === LEGACY_COMPLETIONS) continue; // text_completion chunks: not a chat.completions stream for the SDK
    test(file.split('/').pop()?.slice(0, 60) ?? file, async () => {
      const input = body(file);
      const sdk = await openaiSdkFinalCompletion(input);
      const ours = chatCompletionOf(ourEvents(input));
      assert.equal(ours.id, sdk.id);
      assert.equal(ours.model, sdk.model);
      assert.equal(ours.choices.length, sdk.choices.length, 'one entry per choice');
      for (const [i, want] of sdk.choices.entries()) {
        const got = ours.choices[i];
        assert.ok(got, `choice ${i}`);
        assert.equal(got.index, want.index);
        // The SDK keeps an empty `content: ""` delta as ""; we open no block for empty text.
        assert.equal(got.message.content ?? '', want.message.content ?? '', `choice ${i} content`);
        assert.equal(got.message.refusal ?? null, want.message.refusal ?? null, `choice ${i} refusal`);
        const calls = (want.message.tool_calls ?? []).map((c) =>
          c.type === 'function' ? { id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } } : c,
        );
        assert.deepEqual(got.message.tool_calls ?? [], calls, `choice ${i} tool calls`);
        assert.equal(got.finish_reason, want.finish_reason, `choice ${i} finish_reason`);
        const logprobs = want.logprobs as { content?: unknown[] | null; refusal?: unknown[] | null } | null;
        const ourLogprobs = got.logprobs as { content?: unknown[]; refusal?: unknown[] } | null;
        assert.deepEqual(ourLogprobs?.content ?? [], logprobs?.content ?? [], `choice ${i} content logprobs`);
        assert.deepEqual(ourLogprobs?.refusal ?? [], logprobs?.refusal ?? [], `choice ${i} refusal logprobs`);
      }
      if (file.includes('test_openai_moderation_stream')) {
        // The moderation chunk after the usage chunk has `usage: null`, which the SDK copies over the
        // usage; we keep the last usage object (null means "no usage in this chunk").
        assert.equal(sdk.usage, null);
        assert.equal((ours.usage as { total_tokens: number }).total_tokens, 24);
      } else assert.deepEqual(ours.usage, sdk.usage, 'usage');
    });
  }
});

describe('openai-chat → AI SDK: the .aisdk-ref.sse renderings of the development set', () => {
  for (const name of ['text-usage', 'tool-calls']) {
    test(name, async () => {
      const ref = readFileSync(`${FIXTURES}openai-chat/${name}.aisdk-ref.sse`, 'utf8');
      const reference = await assembleChunks(await parseAiSdkSse(ref));
      const ours = await assembleChunks(await parseAiSdkSse(ourAiSdkSse(body(`openai-chat/${name}.sse`))));
      assert.deepEqual(summarizeMessage(ours.message), summarizeMessage(reference.message));
      assert.equal(ours.finishReason, reference.finishReason);
    });
  }

  test('parallel tool calls: both parts are input-available with the parsed input, in index order', async () => {
    const m = await assembleUIMessage(ourAiSdkSse(body('openai-chat/tool-calls.sse')));
    assert.deepEqual(
      summarizeMessage(m).tools.map((t) => [t.toolCallId, t.toolName, t.state, t.input]),
      [
        ['call_Wx9aB3kQ', 'get_weather', 'input-available', { location: 'Zürich', unit: 'celsius', note: 'say "hi"\n' }],
        ['call_Zt7Lm2Pq', 'get_time', 'input-available', { tz: 'Europe/Zurich' }],
      ],
    );
  });

  test('a refusal is a text part that keeps {openai:{refusal:true}}', async () => {
    const file = CAPTURES.find((f) => f.includes('test_parse_pydantic_model_refusal')) as string;
    const m = await assembleUIMessage(ourAiSdkSse(body(file)));
    const part = m.parts.find((p) => p.type === 'text');
    assert.deepEqual((part as { providerMetadata?: unknown }).providerMetadata, { openai: { refusal: true } });
  });
});

describe('the simple OpenAI agent format (framework "openai") → AI SDK', () => {
  test("the dialect's mapping: start, text-delta, tool-input-start/-available, tool-output-available, data-usage, finish", async () => {
    const run = [
      { type: 'start', data: { model: 'gpt-4' } },
      { type: 'delta', data: { content: 'Hello' } },
      { type: 'tool_call', data: { id: 'call_1', name: 'search', arguments: '{"q":"x"}' } },
      { type: 'tool_result', data: { id: 'call_1', content: 'found' } },
      { type: 'done', data: { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n');
    const m = pipe(pipe(framed(createOpenAISimpleDecoder({ runId: 'run', now: () => 0 })), createAiSdkEncoder()), sseFramer('ai-sdk'));
    const chunks = await parseAiSdkSse([...m.push(run), ...m.end()].join(''));
    assert.deepEqual(
      chunks.map((c) => c.type),
      [
        'start',
        'start-step',
        'text-start',
        'text-delta',
        'text-end',
        'tool-input-start',
        'tool-input-delta',
        'tool-input-available',
        'tool-output-available',
        'finish-step',
        'data-usage',
        'finish',
      ],
    );
    const assembled = await assembleChunks(chunks);
    assert.deepEqual(summarizeMessage(assembled.message), {
      text: 'Hello',
      reasoning: [],
      tools: [{ toolCallId: 'call_1', toolName: 'search', input: { q: 'x' }, state: 'output-available', output: 'found' }],
    });
    assert.equal(assembled.finishReason, 'stop');
  });
});
