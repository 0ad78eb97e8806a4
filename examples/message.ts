import { readFileSync } from 'node:fs';
import { createMessageFold, decode, toAgUiHistory, toTimeline, toUIMessages } from '@switchboard/core';

const body = readFileSync(new URL('./anthropic-stream.sse', import.meta.url));

// Canonical events → the assistant message, folded as they arrive (the fold the store and the client use).
const fold = createMessageFold({ clock: Date.now });
for await (const event of decode([body], 'anthropic')) {
  fold.apply(event);
}
const message = fold.snapshot('persisted');
console.log('assistant:', message.content);
console.log('parts:', message.metadata.parts.map((p) => p.type).join(', '));

// The stored message → each protocol's history: pure views, no run log re-read.
const history = [message];
const [uiMessage] = toUIMessages(history);
const { messages: agUiMessages } = toAgUiHistory(history);
console.log('AI SDK UIMessage parts:', uiMessage?.parts.length);
console.log('AG-UI MESSAGES_SNAPSHOT:', agUiMessages.map((m) => m.role).join(', '));
const timeline = toTimeline(history);
console.log('timeline items:', timeline.map((i) => i.type).join(', '));
