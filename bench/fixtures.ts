/**
 * Deterministic, in-memory benchmark fixtures: a realistic Anthropic Messages SSE body (what
 * `POST /v1/messages` with `stream: true` sends) and the equivalent AI SDK LanguageModelV4 stream
 * parts, built from the same deltas so every contender does the same work.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';

/** Default chunk size the body is fed in (what a socket / file stream typically hands over). */
export const CHUNK_SIZE = 64 * 1024;

export interface FixtureOptions {
  /** Number of `text_delta` events in the text block. */
  textDeltas: number;
  /** Number of `thinking_delta` events in the thinking block (default 40). */
  thinkingDeltas?: number;
  /** PRNG seed (default 1). */
  seed?: number;
}

export interface AnthropicFixture {
  /** The SSE body, `event: <type>\ndata: <json>\n\n` per event. */
  body: string;
  /** The body as UTF-8 bytes. */
  bytes: Uint8Array;
  /** The text deltas, in order. */
  textDeltas: string[];
  /** The thinking deltas, in order. */
  thinkingDeltas: string[];
  /** The `data:` payload of every text_delta event (for the JSON floor). */
  textDeltaData: string[];
  /** Concatenated text of the text block. */
  text: string;
  /** Concatenated thinking text. */
  reasoning: string;
  /** Thinking block signature. */
  signature: string;
  messageId: string;
  model: string;
  usage: { input_tokens: number; output_tokens: number };
}

/** mulberry32: tiny deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the stream of events arrives in small pieces and each piece carries a few characters of text ' +
  'so a converter has to parse frame and re-encode every one of them quickly without losing ' +
  'anything along the way including unicode like café naïve résumé — “quotes” and emoji 🚀 ✨ ' +
  'plus code such as const x = { "a": [1, 2, 3] }; and newlines\nand tabs\tand backslashes \\ too'
).split(' ');

/** Model-like token stream: words split into 1–6 character deltas, some with a leading space. */
function deltas(count: number, rand: () => number): string[] {
  const out: string[] = [];
  let pending = '';
  while (out.length < count) {
    if (pending === '') pending = `${out.length === 0 ? '' : ' '}${WORDS[Math.floor(rand() * WORDS.length)]}`;
    // Split on code points, never inside a surrogate pair.
    const cps = Array.from(pending);
    const n = Math.min(cps.length, 1 + Math.floor(rand() * 6));
    out.push(cps.slice(0, n).join(''));
    pending = cps.slice(n).join('');
  }
  return out;
}

function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Builds the Anthropic SSE body: message_start, ping, thinking block (+ signature), text block, message_delta, message_stop. */
export function anthropicFixture(options: FixtureOptions): AnthropicFixture {
  const rand = prng(options.seed ?? 1);
  const thinkingDeltas = deltas(options.thinkingDeltas ?? 40, rand);
  const textDeltas = deltas(options.textDeltas, rand);
  const messageId = 'msg_01XFDUDYJgAACzvnptvVoYEL';
  const model = 'claude-sonnet-4-5-20250929';
  let signature = 'Eq';
  while (signature.length < 344) signature += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(rand() * 64)];
  const usage = { input_tokens: 472, output_tokens: Math.ceil(textDeltas.length * 1.1 + thinkingDeltas.length) };

  const parts: string[] = [];
  parts.push(
    sse('message_start', {
      type: 'message_start',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 3,
          service_tier: 'standard',
        },
      },
    }),
  );
  parts.push(
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  );
  parts.push(sse('ping', { type: 'ping' }));
  for (const thinking of thinkingDeltas) {
    parts.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } }));
  }
  parts.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } }));
  parts.push(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
  parts.push(sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }));
  const textDeltaData: string[] = [];
  for (const text of textDeltas) {
    const data = JSON.stringify({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } });
    textDeltaData.push(data);
    parts.push(`event: content_block_delta\ndata: ${data}\n\n`);
  }
  parts.push(sse('content_block_stop', { type: 'content_block_stop', index: 1 }));
  parts.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  parts.push(sse('message_stop', { type: 'message_stop' }));
  const body = parts.join('');
  return {
    body,
    bytes: new TextEncoder().encode(body),
    textDeltas,
    thinkingDeltas,
    textDeltaData,
    text: textDeltas.join(''),
    reasoning: thinkingDeltas.join(''),
    signature,
    messageId,
    model,
    usage,
  };
}

/** Splits bytes into views of at most `size` bytes (no copies). */
export function chunksOf(bytes: Uint8Array, size = CHUNK_SIZE): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, Math.min(i + size, bytes.length)));
  return out;
}

/** A fresh byte stream over the chunks (what a fetch Response body would hand over). */
export function byteStream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

/**
 * The LanguageModelV4 stream parts an AI SDK provider would emit for the fixture: stream-start,
 * response-metadata, the reasoning block (signature in providerMetadata, as @ai-sdk/anthropic does),
 * the text block with the same deltas, and finish with usage.
 */
export function languageModelParts(f: AnthropicFixture): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: f.messageId, modelId: f.model },
    { type: 'reasoning-start', id: '0' },
  ];
  for (const delta of f.thinkingDeltas) parts.push({ type: 'reasoning-delta', id: '0', delta });
  parts.push({ type: 'reasoning-end', id: '0', providerMetadata: { anthropic: { signature: f.signature } } });
  parts.push({ type: 'text-start', id: '1' });
  for (const delta of f.textDeltas) parts.push({ type: 'text-delta', id: '1', delta });
  parts.push({ type: 'text-end', id: '1' });
  parts.push({
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: {
      inputTokens: { total: f.usage.input_tokens, noCache: f.usage.input_tokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: f.usage.output_tokens, text: undefined, reasoning: undefined },
    },
  });
  return parts;
}
