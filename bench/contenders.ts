/**
 * The in-process contenders: each turns the same fixture into an AI SDK UI message stream and keeps
 * its output so that run.ts can check, outside the timed region, that it did the whole job.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createConverter } from '@switchboard/core';
import { simulateReadableStream, streamText, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { type AnthropicFixture, byteStream, chunksOf, languageModelParts } from './fixtures.ts';

/** What one timed run produced. */
export interface RunOutput {
  /** UI message stream bytes produced (0 when the contender stops at chunk objects). */
  bytes: number;
  /** Output frames (SSE byte chunks or UI message chunk objects), kept for the correctness check. */
  output: Uint8Array[] | UIMessageChunk[];
}

export interface Contender {
  key: string;
  name: string;
  /** One full conversion of the fixture. */
  run(): Promise<RunOutput>;
}

/** Reads a byte stream to the end, keeping the chunks. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<RunOutput> {
  const reader = stream.getReader();
  const output: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes, output };
    bytes += value.byteLength;
    output.push(value);
  }
}

/** (a) Ours: the fused synchronous converter, 64 KiB byte chunks in, SSE strings out, UTF-8 encoded. */
export function ours(f: AnthropicFixture): Contender {
  const chunks = chunksOf(f.bytes);
  return {
    key: 'ours',
    name: '(a) ours: createConverter anthropic→ai-sdk, bytes→SSE bytes',
    async run() {
      const converter = createConverter({ from: 'anthropic', to: 'ai-sdk' });
      const utf8 = new TextEncoder();
      const output: Uint8Array[] = [];
      let bytes = 0;
      for (const chunk of chunks) {
        for (const s of converter.push(chunk)) {
          const b = utf8.encode(s);
          bytes += b.byteLength;
          output.push(b);
        }
      }
      for (const s of converter.end()) {
        const b = utf8.encode(s);
        bytes += b.byteLength;
        output.push(b);
      }
      return { bytes, output };
    },
  };
}

function mockStreamText(f: AnthropicFixture) {
  const parts = languageModelParts(f);
  const model = new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }) }),
  });
  return () => streamText({ model, prompt: 'hi', maxRetries: 0 });
}

/** (b1) Official, mock model: streamText → toUIMessageStream(), chunk objects consumed. */
export function officialMockObjects(f: AnthropicFixture): Contender {
  const start = mockStreamText(f);
  return {
    key: 'official_mock_objects',
    name: '(b1) official: mock model + streamText → toUIMessageStream() objects',
    async run() {
      const reader = start().toUIMessageStream({ sendReasoning: true }).getReader();
      const output: UIMessageChunk[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { bytes: 0, output };
        output.push(value);
      }
    },
  };
}

/** (b2) Official, mock model: streamText → toUIMessageStreamResponse(), body bytes read. */
export function officialMockResponse(f: AnthropicFixture): Contender {
  const start = mockStreamText(f);
  return {
    key: 'official_mock_response',
    name: '(b2) official: mock model + streamText → toUIMessageStreamResponse() bytes',
    async run() {
      const body = start().toUIMessageStreamResponse({ sendReasoning: true }).body;
      if (!body) throw new Error('toUIMessageStreamResponse() has no body');
      return readAll(body);
    },
  };
}

/** (c) Official end to end: @ai-sdk/anthropic over a fetch returning the same bytes → streamText → response bytes. */
export function officialAnthropic(f: AnthropicFixture): Contender {
  const chunks = chunksOf(f.bytes);
  const anthropic = createAnthropic({
    apiKey: 'x',
    baseURL: 'http://127.0.0.1:1/v1',
    fetch: async () => new Response(byteStream(chunks), { headers: { 'content-type': 'text/event-stream' } }),
  });
  return {
    key: 'official_anthropic',
    name: '(c) official: @ai-sdk/anthropic + streamText → toUIMessageStreamResponse() bytes',
    async run() {
      const result = streamText({ model: anthropic('claude-sonnet-4-5'), prompt: 'hi', maxRetries: 0 });
      const body = result.toUIMessageStreamResponse({ sendReasoning: true }).body;
      if (!body) throw new Error('toUIMessageStreamResponse() has no body');
      return readAll(body);
    },
  };
}

/**
 * (d) The floor: per text delta, JSON.parse of its data line, JSON.stringify of the equivalent
 * output chunk, `data: …\n\n` framing and UTF-8 encoding. No SSE splitting, no state, no other events.
 */
export function floor(f: AnthropicFixture): Contender {
  const lines = f.textDeltaData;
  const id = `${f.messageId}:1`;
  return {
    key: 'floor',
    name: '(d) floor: JSON.parse + JSON.stringify + framing + encode per delta',
    async run() {
      const utf8 = new TextEncoder();
      const output: Uint8Array[] = [];
      let bytes = 0;
      for (const line of lines) {
        const ev = JSON.parse(line);
        const b = utf8.encode(`data: ${JSON.stringify({ type: 'text-delta', id, delta: ev.delta.text })}\n\n`);
        bytes += b.byteLength;
        output.push(b);
      }
      return { bytes, output };
    },
  };
}
