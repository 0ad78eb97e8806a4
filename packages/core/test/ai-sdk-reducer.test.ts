/**
 * The AI SDK message reducer (`protocols/ai-sdk/reducer.ts`) against the official
 * `readUIMessageStream` of `ai`: the same final message for our encoder's output of every recorded
 * Anthropic capture, whole and read part-way after every chunk.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UIMessageChunk } from 'ai';
import { matrixInputs } from '../../../test/matrix/inputs.ts';
import { detectInput } from '../../../test/matrix/matrix.ts';
import { assembleChunks, parseAiSdkSse } from '../../../test/support/ai-sdk-oracle.ts';
import { createConverter, type Framework } from '../src/index.ts';
import { type AiSdkChunkLike, createAiSdkReducer } from '../src/protocols/ai-sdk/reducer.ts';

const FIXTURES = new URL('../../../test/fixtures/anthropic/', import.meta.url).pathname;

/** JSON as the client would send it on: undefined fields dropped. */
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/**
 * A streaming tool input is compared by its raw text: its parsed form is core's `parsePartialJson`
 * (an unfinished literal such as `tr` is left out; the official parser completes it to `true`).
 */
function streamingInputAside(message: unknown): unknown {
  const m = json(message) as { parts: Record<string, unknown>[] };
  for (const p of m.parts) if (p.state === 'input-streaming') delete p.input;
  return m;
}

function aiSdkBody(file: string): string {
  const conv = createConverter({ from: 'anthropic', to: 'ai-sdk' });
  return [...conv.push(readFileSync(file)), ...conv.end()].join('');
}

describe('AI SDK reducer equals readUIMessageStream', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.sse'));
  test('there are captures', () => assert.ok(files.length > 5));
  for (const name of files) {
    test(name, async () => {
      const chunks = await parseAiSdkSse(aiSdkBody(`${FIXTURES}${name}`));
      const official = await assembleChunks(chunks);
      const reducer = createAiSdkReducer().applyAll(chunks as unknown as AiSdkChunkLike[]);
      assert.deepEqual(json(reducer.message), json(official.message));
      assert.equal(reducer.finishReason, official.finishReason);
      assert.deepEqual(reducer.errors, official.errorTexts);
    });
  }
  test('read part-way, after every chunk, it equals the official message of that prefix', async () => {
    const chunks = await parseAiSdkSse(aiSdkBody(`${FIXTURES}thinking-text-tool-use.sse`));
    const reducer = createAiSdkReducer();
    for (let i = 0; i < chunks.length; i++) {
      reducer.apply(chunks[i] as unknown as AiSdkChunkLike);
      const official = await assembleChunks(chunks.slice(0, i + 1) as UIMessageChunk[]);
      assert.deepEqual(streamingInputAside(reducer.message), streamingInputAside(official.message), `after chunk ${i} (${chunks[i].type})`);
    }
  });
});

describe('AI SDK reducer equals readUIMessageStream on every matrix input', () => {
  for (const input of matrixInputs()) {
    test(input.name, async () => {
      const from = (detectInput(input.body) ?? 'auto') as Framework | 'auto';
      // A run that continues an earlier one: the earlier run's chunks first, then this run's, on the same message.
      const before = input.continues ? createConverter({ from, to: 'ai-sdk' }) : undefined;
      const earlier = before && input.continues ? await parseAiSdkSse([...before.push(input.continues), ...before.end()].join('')) : [];
      const start = earlier[0];
      const messageId = start?.type === 'start' ? start.messageId : undefined;
      const conv = createConverter({ from, to: 'ai-sdk', ...(messageId ? { messageId } : {}) });
      const chunks = [...earlier, ...(await parseAiSdkSse([...conv.push(input.body), ...conv.end()].join('')))];
      const official = await assembleChunks(chunks);
      const reducer = createAiSdkReducer().applyAll(chunks as unknown as AiSdkChunkLike[]);
      assert.deepEqual(json(reducer.message), json(official.message));
      assert.equal(reducer.finishReason, official.finishReason);
    });
  }
});

test('AI SDK reducer: parts that did not change keep their identity', () => {
  const r = createAiSdkReducer();
  r.applyAll([
    { type: 'start', messageId: 'm' },
    { type: 'start-step' },
    { type: 'reasoning-start', id: 'r' },
    { type: 'reasoning-delta', id: 'r', delta: 'plan' },
    { type: 'reasoning-end', id: 'r' },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Hel' },
  ]);
  const first = r.message.parts;
  r.apply({ type: 'text-delta', id: 't', delta: 'lo' });
  const second = r.message.parts;
  assert.notEqual(first, second);
  assert.equal(second[0], first[0]);
  assert.equal(second[1], first[1]);
  assert.notEqual(second[2], first[2]);
  assert.equal(second[2].text, 'Hello');
  assert.equal(first[2].text, 'Hel');
  assert.equal(r.message.parts[2], second[2]);
});
