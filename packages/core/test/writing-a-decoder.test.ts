/**
 * The walk-through of docs/writing-a-decoder.md is real: its decoder is example/tiny-agent.ts, the
 * doc quotes that file verbatim, and the decoder passes the checks every decoder passes (a full run,
 * bad input located, the end of input handled, chunk boundaries, valid canonical events).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { validate } from '../src/schema.ts';
import { createTinyAgentDecoder } from './example/tiny-agent.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, types } from './helpers.ts';

const RUN = [
  { event: 'start', model: 'tiny-1', session: 's1' },
  { event: 'token', text: 'Hel' },
  { event: 'token', text: 'lo' },
  { event: 'tool', id: 't1', name: 'search', args: '{"q":"x"}' },
  { event: 'result', id: 't1', output: 'found' },
  { event: 'end', reason: 'done', usage: { in: 12, out: 3 } },
];

describe('docs/writing-a-decoder.md', () => {
  test('quotes example/tiny-agent.ts verbatim', () => {
    const doc = readFileSync(new URL('../../../docs/writing-a-decoder.md', import.meta.url), 'utf8');
    const file = readFileSync(new URL('./example/tiny-agent.ts', import.meta.url), 'utf8');
    assert.ok(doc.includes(`\`\`\`ts\n${file}\`\`\``), 'the doc holds the example file as one ts block: copy it in again');
  });

  test('a full run', () => {
    const events = decodeObjects(RUN, createTinyAgentDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(types(events), [
      'run-start',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-output',
      'run-finish',
    ]);
    const start = events[0];
    assert.ok(start?.type === 'run-start' && start.model === 'tiny-1');
    assert.deepEqual(start.providerMetadata, { 'tiny-agent': { session: 's1' } });
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end' && end.toolName === 'search');
    assert.deepEqual(end.input, { q: 'x' });
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    assert.equal(finish.finishReason, 'stop');
    assert.equal(finish.rawFinishReason, 'done');
    assert.equal(finish.usage?.totalTokens, 15);
  });

  test('bad input is located and nothing before it is lost', () => {
    const events = decodeObjects([RUN[0], [1, 2], { event: 'token', text: 7 }, { event: 'wave' }, RUN[1], RUN[5]], createTinyAgentDecoder);
    assert.deepEqual(validate(events).issues, []);
    const errors = events.filter((e) => e.type === 'error');
    assert.deepEqual(
      errors.map((e) => e.type === 'error' && [e.code, e.where?.line, e.where?.field]),
      [
        ['invalid_event', 2, undefined],
        ['invalid_field', 3, 'text'],
      ],
    );
    assert.match(errors[0]?.type === 'error' ? errors[0].message : '', /^line 2: expected a JSON object with an "event", got an array$/);
    const raw = events.find((e) => e.type === 'raw');
    assert.ok(raw?.type === 'raw' && raw.where?.line === 4 && raw.reason === 'unknown event type "wave"');
    assert.ok(events.some((e) => e.type === 'text-delta' && e.delta === 'Hel'));
  });

  test('arguments that are not JSON are kept as text, with the reason', () => {
    const events = decodeObjects([{ event: 'tool', id: 't', name: 'run', args: 'ls -l' }, RUN[5]], createTinyAgentDecoder);
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end' && end.input === 'ls -l');
    assert.match(end.inputError ?? '', /^tool input is not valid JSON/);
  });

  test('an input cut short ends with a fatal truncated error and finishReason error', () => {
    const events = decodeObjects(RUN.slice(0, 3), createTinyAgentDecoder);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(types(events).slice(-3), ['error', 'text-end', 'run-finish']);
    const error = events.find((e) => e.type === 'error');
    assert.ok(error?.type === 'error' && error.code === 'truncated' && error.fatal);
    assert.ok(events.at(-1)?.type === 'run-finish' && (events.at(-1) as { finishReason: string }).finishReason === 'error');
  });

  test('the same bytes split anywhere give the same events', () => {
    const bytes = new TextEncoder().encode(RUN.map((o) => JSON.stringify(o)).join('\n'));
    assertSplitInvariant(bytes, (chunks) => decodeChunks(chunks, createTinyAgentDecoder), { numRuns: 50 });
  });
});
