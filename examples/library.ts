import { readFileSync } from 'node:fs';
import { createSseResponse, decode, encode, toSse, utf8Stream } from '@switchboard/core';

// An Anthropic Messages stream as the API sends it (in a backend: `upstream.body`).
const body = readFileSync(new URL('./anthropic-stream.sse', import.meta.url));

// Framework in → canonical events.
for await (const event of decode([body], 'anthropic')) {
  if (event.type === 'tool-input-end') console.log('tool call:', event.toolName, event.input);
}

// Canonical events → AI SDK UI message stream chunks.
for await (const chunk of encode(decode([body], 'anthropic'), 'ai-sdk')) {
  if (chunk.type === 'text-delta') process.stdout.write(String(chunk.delta));
}

// …or straight into a web Response that `useChat` reads.
const response = createSseResponse(decode([body], 'anthropic'), 'ai-sdk');
console.log('\n', response.headers.get('x-vercel-ai-ui-message-stream'), (await response.text()).split('\n\n').length - 1, 'SSE events');

// The same edge for a body of your own: any async sequence of strings, pulled as UTF-8 bytes.
const agUi = new Response(utf8Stream(toSse(decode([body], 'anthropic'), 'ag-ui')), { headers: { 'content-type': 'text/event-stream' } });
console.log((await agUi.text()).includes('RUN_FINISHED') ? 'AG-UI run finished' : 'AG-UI run cut');
