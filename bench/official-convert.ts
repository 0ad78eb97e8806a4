/**
 * The official whole-process equivalent of `switchboard convert --from anthropic --to ai-sdk <file>`:
 * reads a recorded Anthropic Messages SSE body from a file, replays it through @ai-sdk/anthropic
 * (fetch returns the file's bytes) + streamText, and writes the `toUIMessageStreamResponse()` body
 * (AI SDK UI message stream SSE) to stdout.
 *
 * Usage: node bench/official-convert.ts <file>
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createAnthropic } from '@ai-sdk/anthropic';
import { streamText } from 'ai';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/official-convert.ts <file>\n');
  process.exit(2);
}

const anthropic = createAnthropic({
  apiKey: 'x',
  baseURL: 'http://127.0.0.1:1/v1',
  fetch: async () =>
    new Response(Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>, {
      headers: { 'content-type': 'text/event-stream' },
    }),
});
const result = streamText({ model: anthropic('claude-sonnet-4-5'), prompt: 'hi', maxRetries: 0 });
const body = result.toUIMessageStreamResponse({ sendReasoning: true }).body;
if (!body) throw new Error('toUIMessageStreamResponse() has no body');
await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), process.stdout);
