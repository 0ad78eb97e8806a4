/**
 * The Gemini decoders + the AI SDK encoder against the official path: every recorded capture is
 * replayed through `@ai-sdk/google` (`createGoogleGenerativeAI({ fetch })('gemini-2.5-flash')` for
 * generateContent, `.interactions('gemini-2.5-flash')` for the Interactions API) + `streamText` +
 * `toUIMessageStream`, and through our decoder + `createAiSdkEncoder()`; both are assembled with the
 * official `readUIMessageStream` and must hold the same text, reasoning and tool calls.
 *
 * Documented differences (see docs/frameworks/gemini.md):
 * - tool call ids: where Gemini sends none, the official provider generates random ids and we derive
 *   deterministic ones (`<responseId>-<n>`), so ids are compared only where the capture has them;
 * - Interactions `google_search_call`: the official provider drops the queries of the call's delta
 *   (input `{}`); we keep them as the tool input;
 * - `citationMetadata.citationSources` (Firebase capture): the official provider ignores them; we
 *   emit citations, which the encoder turns into `source-url` parts;
 * - file-search document sources: the official title is "Unknown Document", ours is the store name;
 * - the Live API capture is not a generateContent stream: the official language model reads nothing
 *   from it; ours decodes transcripts, audio and usage (and reports the capture as truncated).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UIMessage, UIMessageChunk } from 'ai';
import { createAiSdkEncoder, type Decoder, type DecoderOptions, framed, pipe, sseFramer } from '../packages/core/src/index.ts';
import { createGeminiDecoder } from '../packages/core/src/inputs/gemini.ts';
import { createGeminiInteractionsDecoder, detectGeminiInteractions } from '../packages/core/src/inputs/gemini-interactions.ts';
import { createGeminiSimpleDecoder } from '../packages/core/src/inputs/gemini-simple.ts';
import { assembleChunks, type MessageSummary, parseAiSdkSse, summarizeMessage } from './support/ai-sdk-oracle.ts';
import { geminiCaptureValues, geminiWireBody, officialGeminiResult } from './support/gemini-oracle.ts';

const DIR = new URL('./fixtures/recorded/gemini/', import.meta.url).pathname;
const FILES = readdirSync(DIR).sort();

type Make = (options?: DecoderOptions) => Decoder;

/** Our path: decoder → AI SDK encoder → SSE, as a server would send it. */
function ours(make: Make, body: string): string {
  const m = pipe(pipe(framed(make({ runId: 'run', now: () => 0 })), createAiSdkEncoder()), sseFramer('ai-sdk'));
  return [...m.push(body), ...m.end()].join('');
}

interface Replay {
  api: 'generate' | 'interactions';
  body: string;
  sse: string;
  chunks: UIMessageChunk[];
  message: UIMessage;
}

async function replay(file: string): Promise<Replay> {
  const text = readFileSync(DIR + file, 'utf8');
  const api = detectGeminiInteractions(geminiCaptureValues(text)[0]) ? 'interactions' : 'generate';
  const body = geminiWireBody(text, api);
  const sse = ours(api === 'interactions' ? createGeminiInteractionsDecoder : createGeminiDecoder, body);
  const chunks = await parseAiSdkSse(sse); // throws on any chunk the official schema rejects
  const { message } = await assembleChunks(chunks);
  return { api, body, sse, chunks, message };
}

/** Tool call ids compared only where the capture carries them (the official ones are random otherwise). */
function normalizeIds(summary: MessageSummary, captureText: string): MessageSummary {
  return {
    ...summary,
    tools: summary.tools.map((t, i) => (captureText.includes(`"${t.toolCallId}"`) ? t : { ...t, toolCallId: `#${i}` })),
  };
}

const finishOf = (chunks: UIMessageChunk[]) => chunks.find((c) => c.type === 'finish')?.finishReason;
const sourcesOf = (chunks: UIMessageChunk[]) =>
  chunks
    .filter((c) => c.type === 'source-url')
    .map((c) => (c.type === 'source-url' ? `${c.url} ${c.title ?? ''}` : ''))
    .sort();

/** The `google.thoughtSignature` / `google.signature` of each part, in order, for comparison. */
function signatures(m: UIMessage): string[] {
  const out: string[] = [];
  for (const p of m.parts) {
    const meta =
      (p as { providerMetadata?: Record<string, Record<string, unknown>> }).providerMetadata ??
      (p as { callProviderMetadata?: Record<string, Record<string, unknown>> }).callProviderMetadata;
    const sig = meta?.google?.thoughtSignature ?? meta?.google?.signature;
    // The canonical model has no `dynamic` flag: Gemini 3 server tools are `tool-server:<TYPE>` parts on
    // our side and `dynamic-tool` parts on the official side.
    const type = p.type === 'dynamic-tool' ? `tool-${p.toolName}` : p.type;
    if (typeof sig === 'string' && sig) out.push(`${type}:${sig.slice(0, 16)}`);
  }
  return out;
}

describe('Gemini captures: our AI SDK stream against the official @ai-sdk/google path', () => {
  for (const file of FILES) {
    test(file, async () => {
      const text = readFileSync(DIR + file, 'utf8');
      const r = await replay(file);
      assert.ok(r.sse.endsWith('data: [DONE]\n\n'));
      const official = await officialGeminiResult(text, { api: r.api });
      const mine = normalizeIds(summarizeMessage(r.message), text);
      const theirs = normalizeIds(summarizeMessage(official.message), text);

      if (file.startsWith('google-live')) {
        // Not a generateContent stream: the official language model finds nothing in it.
        assert.deepEqual(theirs, { text: '', reasoning: [], tools: [] });
        assert.equal(mine.text, 'El zorro marrón rápido salta sobre el perro perezoso.');
        assert.equal(finishOf(r.chunks), 'error');
        return;
      }
      if (file === 'google-search.chunks.txt') {
        // The official provider drops the google_search_call delta (queries); we keep it.
        const search = mine.tools.find((t) => t.toolName === 'google_search');
        assert.deepEqual(Object.keys(search?.input as object), ['queries']);
        for (const t of mine.tools) if (t.toolName === 'google_search') t.input = {};
      }
      assert.deepEqual(mine, theirs);
      assert.equal(finishOf(r.chunks), finishOf(official.chunks), 'finish reason');
      assert.deepEqual(signatures(r.message), signatures(official.message), 'signatures land on the same parts');

      if (file === 'streaming-success-citations.txt') {
        assert.equal(sourcesOf(official.chunks).length, 0);
        assert.equal(sourcesOf(r.chunks).length, 1, 'our citation from citationMetadata');
      } else assert.deepEqual(sourcesOf(r.chunks), sourcesOf(official.chunks), 'url sources');
    });
  }
});

describe('Gemini: multi-step runs through the AI SDK encoder', () => {
  test('generateContent: parallel calls, their responses, then the answer — one message, two steps', async () => {
    const step1 = geminiCaptureValues(readFileSync(`${DIR}google-stream-no-args-tool-call.chunks.txt`, 'utf8'));
    const responses = {
      candidates: [
        {
          content: {
            role: 'user',
            parts: ['A', 'B', 'C'].map((id) => ({ functionResponse: { name: 'read_screen', response: { id } } })),
          },
        },
      ],
    };
    const step2 = geminiCaptureValues(readFileSync(`${DIR}google-text.chunks.txt`, 'utf8'));
    const body = [...step1, responses, ...step2].map((v) => `data: ${JSON.stringify(v)}\r\n\r\n`).join('');
    const chunks = await parseAiSdkSse(ours(createGeminiDecoder, body));
    const { message } = await assembleChunks(chunks);
    assert.deepEqual(
      message.parts.map((p) => p.type).filter((t) => t !== 'data-usage'),
      ['step-start', 'reasoning', 'tool-read_theme', 'tool-read_screen', 'tool-read_screen', 'tool-read_screen', 'step-start', 'text'],
    );
    const tools = summarizeMessage(message).tools;
    assert.deepEqual(
      tools.map((t) => [t.toolName, t.state, t.output]),
      [
        ['read_theme', 'input-available', undefined],
        ['read_screen', 'output-available', { id: 'A' }],
        ['read_screen', 'output-available', { id: 'B' }],
        ['read_screen', 'output-available', { id: 'C' }],
      ],
    );
    assert.equal(finishOf(chunks), 'stop');
  });

  test('Interactions: function call step, then the answer step', async () => {
    const a = readFileSync(`${DIR}tool-call-step1.chunks.txt`, 'utf8');
    const b = readFileSync(`${DIR}tool-call-step2.chunks.txt`, 'utf8');
    const chunks = await parseAiSdkSse(ours(createGeminiInteractionsDecoder, geminiWireBody(a + b, 'interactions')));
    const { message } = await assembleChunks(chunks);
    assert.deepEqual(
      message.parts.map((p) => p.type).filter((t) => t !== 'data-usage'),
      ['step-start', 'reasoning', 'tool-getWeather', 'step-start', 'reasoning', 'text'],
    );
    assert.equal(
      summarizeMessage(message).text,
      'The weather in San Francisco right now is sunny with a temperature of 27 degrees Celsius.',
    );
  });
});

describe('gemini-simple through the AI SDK encoder', () => {
  test("the Gemini dialect's example: text, a tool with its output, thinking, usage", async () => {
    const lines = [
      { type: 'start', data: { model: 'gemini-pro' } },
      { type: 'content', data: { text: 'Looking it up. ' } },
      { type: 'function_call', data: { name: 'search', args: { q: 'x' } } },
      { type: 'function_response', data: { name: 'search', response: { hits: 1 } } },
      { type: 'content', data: { text: 'Found one.' } },
      { type: 'done', data: { usage: { promptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 7 } } },
    ];
    const chunks = await parseAiSdkSse(ours(createGeminiSimpleDecoder, lines.map((l) => JSON.stringify(l)).join('\n')));
    const { message } = await assembleChunks(chunks);
    const summary = summarizeMessage(message);
    assert.equal(summary.text, 'Looking it up. Found one.');
    assert.deepEqual(summary.tools, [
      { toolCallId: 'call_1', toolName: 'search', input: { q: 'x' }, state: 'output-available', output: { hits: 1 } },
    ]);
    const usage = chunks.find((c) => c.type === 'data-usage') as { data: Record<string, unknown> } | undefined;
    assert.deepEqual([usage?.data.inputTokens, usage?.data.outputTokens], [4, 3]);
    assert.equal(finishOf(chunks), 'stop');
  });
});
