/**
 * The decoder kit (src/inputs/kit/) and the model's helpers (src/model/), on their own: what every
 * framework decoder relies on.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createAgentLineDecoder, Kit, kindOf, num, parseToolInput, rest, str, sub } from '../src/inputs/kit/index.ts';
import { encryptedReasoningOf, mergeProviderMetadata } from '../src/model/metadata.ts';
import { todoStatus, toTodos } from '../src/model/todos.ts';
import { addUsage, sumCounts, usageOf } from '../src/model/usage.ts';
import { FINISH_REASONS, isFinishReason, isPatchOperation, isTodoStatus, TODO_STATUSES } from '../src/model/vocabulary.ts';
import { finishReasonSchema, todoSchema } from '../src/schema.ts';
import { types } from './helpers.ts';

describe('kit readers', () => {
  test('str / num take the first key that holds the type; num accepts any value', () => {
    assert.equal(str({ a: 1, b: 'x', c: 'y' }, 'a', 'b', 'c'), 'x');
    assert.equal(str({ a: 1 }, 'a'), undefined);
    assert.equal(num({ a: '1', b: 2 }, 'a', 'b'), 2);
    assert.equal(num(undefined, 'a'), undefined);
    assert.equal(num([1], '0'), undefined);
  });

  test('rest keeps everything but the known keys, undefined values dropped; undefined when empty', () => {
    assert.deepEqual(rest({ a: 1, b: null, c: undefined, d: 'x' }, ['a']), { b: null, d: 'x' });
    assert.equal(rest({ a: 1, c: undefined }, ['a']), undefined);
  });

  test('parseToolInput: blank is {}, JSON parsed, anything else kept as text with the reason', () => {
    assert.deepEqual(parseToolInput('  '), { input: {} });
    assert.deepEqual(parseToolInput('{"q":1}'), { input: { q: 1 } });
    const bad = parseToolInput('{"q":', 'function arguments');
    assert.equal(bad.input, '{"q":');
    assert.match(bad.inputError ?? '', /^function arguments is not valid JSON: /);
  });

  test('kindOf and sub', () => {
    assert.deepEqual([kindOf([]), kindOf(null), kindOf(1), kindOf('s')], ['an array', 'null', 'number', 'string']);
    assert.deepEqual(sub({ line: 2, field: 'a' }, 'b', 'x'), { line: 2, field: 'a.b', expected: 'x' });
    assert.deepEqual(sub({ line: 2, field: 'a' }, '[0]'), { line: 2, field: 'a[0]' });
    assert.deepEqual(sub({ line: 2 }, ''), { line: 2 });
  });
});

describe('Kit', () => {
  const kit = () => new Kit({ runId: 'r', now: () => 0 }, { source: 'x-source', provider: 'x', metaKey: 'xm' });

  test('the envelope guard reports a located error and returns undefined; objects pass through', () => {
    const k = kit();
    assert.equal(k.object([1], { line: 3 }), undefined);
    assert.deepEqual(k.object({ a: 1 }, { line: 4 }), { a: 1 });
    const [start, err] = k.out.take();
    assert.ok(start?.type === 'run-start' && start.provider === 'x');
    assert.ok(err?.type === 'error');
    assert.equal(err.message, 'line 3: expected a JSON object with a "type", got an array');
    assert.deepEqual(err.where, { line: 3, expected: 'object' });
    assert.equal(err.fatal, false);
  });

  test('error metadata goes under metaKey; raw events name the source', () => {
    const k = kit();
    k.error('c', 'm', undefined, true, { a: 1 }, 'sub');
    k.raw({ v: 1 }, 'why', { line: 1 });
    const [, err, raw] = k.out.take();
    assert.ok(err?.type === 'error' && err.fatal && err.subagentId === 'sub');
    assert.deepEqual(err.providerMetadata, { xm: { a: 1 } });
    assert.ok(raw?.type === 'raw' && raw.source === 'x-source' && raw.reason === 'why');
  });

  test('invalid and mismatch locate the field and say what was expected', () => {
    const k = kit();
    k.invalid({ line: 1 }, 'a.b', 'a string');
    k.mismatch({ line: 2 }, 'c', 'an array', {});
    const errors = k.out.take().filter((e) => e.type === 'error');
    assert.deepEqual(
      errors.map((e) => e.type === 'error' && [e.message, e.where]),
      [
        ['line 1, field a.b: expected a string', { line: 1, field: 'a.b', expected: 'a string' }],
        ['line 2, field c: expected an array, got object', { line: 2, field: 'c', expected: 'an array' }],
      ],
    );
  });

  test('the decoder shell: fault is a located error; finish runs once, only while the run is open', () => {
    let finishes = 0;
    const k = kit();
    const d = k.decoder({
      push: (value) => {
        if (value === 'done') k.out.emit({ type: 'run-finish', finishReason: 'stop' });
      },
      finish: () => {
        finishes++;
        k.out.emit({ type: 'run-finish', finishReason: 'error' });
      },
    });
    assert.deepEqual(types(d.fault('invalid_json', 'line 1: bad', { line: 1 })), ['run-start', 'error']);
    assert.deepEqual(types(d.end()), ['run-finish']);
    assert.equal(finishes, 1);
    const k2 = kit();
    const d2 = k2.decoder({
      push: (v) => v === 'done' && k2.out.emit({ type: 'run-finish', finishReason: 'stop' }),
      finish: () => finishes++,
    });
    d2.push('done');
    assert.deepEqual(d2.end(), []);
    assert.equal(finishes, 1);
  });
});

describe('the agent-line skeleton', () => {
  const dialect = {
    source: 'lines',
    truncated: 'no done line',
    errorCode: ['code'],
    errorKnown: ['message', 'code'],
    handlers: ({ blocks, out }: Parameters<Parameters<typeof createAgentLineDecoder>[0]['handlers']>[0]) => ({
      on: { text: (d: Record<string, unknown>) => blocks.textDelta(String(d.t)) },
      finish: () => {
        blocks.closeAll();
        out.emit({ type: 'run-finish', finishReason: 'stop' });
      },
    }),
  };

  test('dispatches on type; unknown types are raw; inherited names are not handlers', () => {
    const d = createAgentLineDecoder(dialect, { runId: 'r', now: () => 0 });
    const events = [
      ...d.push({ type: 'text', data: { t: 'hi' } }, { line: 1 }),
      ...d.push({ type: 'constructor' }, { line: 2 }),
      ...d.push({ type: 'done' }, { line: 3 }),
      ...d.end(),
    ];
    assert.deepEqual(types(events), [
      'run-start',
      'step-start',
      'text-start',
      'text-delta',
      'raw',
      'text-end',
      'step-finish',
      'run-finish',
    ]);
  });

  test('error lines are fatal, located, with the rest of the line as metadata; the end without done is truncated', () => {
    const d = createAgentLineDecoder(dialect, { runId: 'r', now: () => 0 });
    const events = [...d.push({ type: 'error', data: { code: 'E', message: 'boom', extra: 1 } }, { line: 1 }), ...d.end()];
    const errors = events.filter((e) => e.type === 'error');
    assert.equal(errors.length, 1, 'no truncated error after a failed run');
    assert.ok(errors[0]?.type === 'error' && errors[0].code === 'E' && errors[0].fatal && errors[0].where?.line === 1);
    assert.deepEqual(errors[0].providerMetadata, { lines: { extra: 1 } });
    const cut = createAgentLineDecoder(dialect, { runId: 'r', now: () => 0 });
    const truncated = [...cut.push({ type: 'text', data: { t: 'a' } }), ...cut.end()].find((e) => e.type === 'error');
    assert.ok(truncated?.type === 'error' && truncated.code === 'truncated' && truncated.message === 'no done line');
  });
});

describe('the model vocabulary and helpers', () => {
  test('the schema uses the vocabulary lists', () => {
    assert.deepEqual(finishReasonSchema.options, [...FINISH_REASONS]);
    assert.deepEqual(todoSchema.shape.status.options, [...TODO_STATUSES]);
    assert.ok(isFinishReason('tool-calls') && !isFinishReason('tool_calls'));
    assert.ok(isTodoStatus('cancelled') && !isTodoStatus('done'));
    assert.ok(isPatchOperation('move') && !isPatchOperation('merge'));
  });

  test('usage: usageOf fills the total, sumCounts and addUsage add', () => {
    assert.deepEqual(usageOf({ i: 1 }, { inputTokens: 1, outputTokens: undefined }), { raw: { i: 1 }, inputTokens: 1, totalTokens: 1 });
    assert.deepEqual(usageOf({}, { inputTokens: 1, totalTokens: 5 }), { raw: {}, inputTokens: 1, totalTokens: 5 });
    assert.equal(sumCounts(undefined, undefined), undefined);
    assert.equal(sumCounts(undefined, 2, 3), 5);
    assert.deepEqual(addUsage({ inputTokens: 1 }, { inputTokens: 2, outputTokens: 1 }), { inputTokens: 3, outputTokens: 1 });
  });

  test('providerMetadata merge and encrypted reasoning lookup', () => {
    assert.deepEqual(mergeProviderMetadata({ a: { x: 1 } }, { a: { y: 2 }, b: { z: 3 } }), { a: { x: 1, y: 2 }, b: { z: 3 } });
    assert.equal(mergeProviderMetadata(undefined, undefined), undefined);
    assert.equal(encryptedReasoningOf({ openai: { reasoningEncryptedContent: 'enc' } }), 'enc');
    assert.equal(encryptedReasoningOf({ anthropic: { signature: '' }, google: { thoughtSignature: 'g' } }), 'g');
  });

  test("todos: agents' status words, previous items filling the gaps", () => {
    assert.equal(todoStatus('done'), 'completed');
    assert.equal(todoStatus('toString'), undefined);
    const previous = toTodos(['a', { content: 'b', status: 'active', activeForm: 'Doing b' }]);
    assert.deepEqual(previous[1], { id: 'todo-2', content: 'b', status: 'in_progress', activeForm: 'Doing b' });
    assert.deepEqual(toTodos([{ status: 'done' }], previous), [{ id: 'todo-1', content: 'a', status: 'completed' }]);
  });
});
