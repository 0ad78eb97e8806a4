/**
 * The `thinkTags` decoder option: `<think>` extraction over the text of any framework.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CanonicalEvent, createDecoder, decode, thinkTagsOf } from '../src/index.ts';

const chunk = (content: string) => ({ id: 'a', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content } }] });
const stop = { id: 'a', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };

async function collect(source: AsyncIterable<CanonicalEvent>): Promise<{ text: string; reasoning: string }> {
  let text = '';
  let reasoning = '';
  for await (const e of source) {
    if (e.type === 'text-delta') text += e.delta;
    if (e.type === 'reasoning-delta') reasoning += e.delta;
  }
  return { text, reasoning };
}

test('decode(…, { thinkTags: true }) splits <think> anywhere in the text; off by default', async () => {
  const input = [chunk('Sure. <think>the user'), chunk(' wants a haiku</think>Here.'), stop];
  assert.deepEqual(await collect(decode(input, 'openai-chat', { thinkTags: true })), {
    text: 'Sure. Here.',
    reasoning: 'the user wants a haiku',
  });
  assert.deepEqual(await collect(decode(input, 'openai-chat')), {
    text: 'Sure. <think>the user wants a haiku</think>Here.',
    reasoning: '',
  });
});

test('thinkTags: "thinking" splits <thinking> sections; auto-detection still works under it', async () => {
  const input = [chunk('<thinking>hmm</thinking>Yes.'), stop];
  assert.deepEqual(await collect(decode(input, 'auto', { thinkTags: 'thinking' })), { text: 'Yes.', reasoning: 'hmm' });
});

test('thinkTagsOf: off, the default tag, a named tag (with or without brackets), and a clear error', () => {
  assert.equal(thinkTagsOf(undefined), undefined);
  assert.equal(thinkTagsOf(false), undefined);
  assert.deepEqual(thinkTagsOf(true), {});
  assert.deepEqual(thinkTagsOf('thinking'), { open: '<thinking>', close: '</thinking>' });
  assert.deepEqual(thinkTagsOf('<reasoning>'), { open: '<reasoning>', close: '</reasoning>' });
  assert.throws(() => createDecoder('openai-chat', { thinkTags: 'two words' }), /invalid thinkTags "two words"/);
});
