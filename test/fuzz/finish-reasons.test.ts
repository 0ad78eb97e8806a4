/**
 * Arbitrary provider finish reasons through every decoder that reads one: the canonical finish reason
 * is always one of FINISH_REASONS (`other` for a value the provider's table does not know, even
 * `__proto__` or `toString`), the provider value is kept in `rawFinishReason`, and the AI SDK
 * stream made from it passes the official `ai` chunk schema.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  anthropicFinishReason,
  type CanonicalEvent,
  createConverter,
  decode,
  finishReasonFrom,
  isFinishReason,
  openaiChatFinishReason,
  openaiResponsesFinishReason,
} from '../../packages/core/src/index.ts';
import { geminiFinishReason } from '../../packages/core/src/inputs/gemini.ts';
import { interactionsFinishReason } from '../../packages/core/src/inputs/gemini-interactions.ts';
import { langchainFinishReason } from '../../packages/core/src/inputs/langchain.ts';
import { parseAiSdkSse } from '../support/ai-sdk-oracle.ts';

const HOSTILE = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'weird', '', 'STOP', 'stop'];
const reasons = fc.oneof(fc.constantFrom(...HOSTILE), fc.string(), fc.string({ unit: 'grapheme' }));

const sse = (...values: unknown[]) => values.map((v) => `data: ${JSON.stringify(v)}\n\n`).join('');
const lines = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join('');

/** A minimal stream of each framework whose finish reason is `r`. */
const STREAMS = {
  'openai-chat': (r: string) =>
    `${sse({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: r }] })}data: [DONE]\n\n`,
  anthropic: (r: string) =>
    sse(
      { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], usage: {} } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: r }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ),
  gemini: (r: string) => sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: r }] }),
  'gemini-simple': (r: string) => lines({ type: 'content', data: { text: 'hi' } }, { type: 'done', data: { finish_reason: r } }),
  openai: (r: string) => lines({ type: 'delta', data: { content: 'hi' } }, { type: 'done', data: { finish_reason: r } }),
} as const;

const finishes = (events: CanonicalEvent[]) =>
  events.filter(
    (e): e is Extract<CanonicalEvent, { type: 'run-finish' | 'step-finish' }> => e.type === 'run-finish' || e.type === 'step-finish',
  );

test('every provider finish-reason mapping answers a canonical reason, `other` for an unknown one', () => {
  const maps = [
    anthropicFinishReason,
    openaiChatFinishReason,
    geminiFinishReason,
    langchainFinishReason,
    (r: string) => interactionsFinishReason(r, false),
    (r: string) => openaiResponsesFinishReason(r, false),
  ];
  fc.assert(
    fc.property(reasons, (r) => {
      for (const map of maps) assert.ok(isFinishReason(map(r)), `${map.name}(${JSON.stringify(r)})`);
    }),
    { seed: 20261207, numRuns: 300 },
  );
  for (const map of maps) for (const r of ['__proto__', 'constructor', 'toString', 'weird']) assert.equal(map(r), 'other');
  assert.equal(finishReasonFrom({ stop: 'stop' }, 'stop'), 'stop');
  assert.equal(finishReasonFrom({ stop: 'stop' }, undefined), 'other');
});

for (const [from, stream] of Object.entries(STREAMS)) {
  test(`${from}: an arbitrary finish reason is canonical, kept raw, and the AI SDK stream passes the official schema`, async () => {
    await fc.assert(
      fc.asyncProperty(reasons, async (r) => {
        const input = stream(r);
        const events: CanonicalEvent[] = [];
        for await (const e of decode([input], from as keyof typeof STREAMS, { runId: 'run', now: () => 0 })) events.push(e);
        const ends = finishes(events);
        assert.ok(
          ends.some((e) => e.type === 'run-finish'),
          'a run-finish',
        );
        for (const e of ends) {
          assert.ok(e.finishReason === undefined || isFinishReason(e.finishReason), `${e.type}.finishReason ${String(e.finishReason)}`);
          // The run's finish keeps the provider value (a step finish may carry no reason at all).
          if (e.type === 'run-finish' && r !== '' && e.finishReason !== 'error') assert.equal(e.rawFinishReason, r);
        }
        if (HOSTILE.slice(0, 5).includes(r))
          assert.ok(ends.every((e) => e.finishReason === undefined || e.finishReason === 'other' || e.finishReason === 'error'));
        const m = createConverter({ from: from as keyof typeof STREAMS, to: 'ai-sdk', runId: 'run', now: () => 0 });
        const chunks = await parseAiSdkSse([...m.push(input), ...m.end()].join(''));
        for (const c of chunks) if (c.type === 'finish' && c.finishReason !== undefined) assert.ok(isFinishReason(c.finishReason));
      }),
      { seed: 20261207, numRuns: 60 },
    );
  });
}
