import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parsePartialJson } from '../src/transforms/partial-json.ts';

test('complete JSON parses as complete', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v);
      assert.deepEqual(parsePartialJson(text), { value: JSON.parse(text), complete: true });
    }),
  );
});

test('every prefix of an object or array parses without throwing, and never as complete unless it is', () => {
  fc.assert(
    fc.property(fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue())), fc.boolean(), (v, pretty) => {
      const text = JSON.stringify(v, null, pretty ? 2 : undefined);
      for (let cut = 0; cut < text.length; cut++) {
        const r = parsePartialJson(text.slice(0, cut));
        if (r.complete) assert.deepEqual(r.value, JSON.parse(text.slice(0, cut)));
        else if (cut > 0) assert.notEqual(r.value, undefined, `prefix ${JSON.stringify(text.slice(0, cut))}`);
      }
    }),
    { numRuns: 40 },
  );
});

test('keeps whole members, closes an open string value, drops dangling keys and partial literals', () => {
  const cases: [string, unknown][] = [
    ['{"filename":"taxes.txt","lines":["a","Filing tax', { filename: 'taxes.txt', lines: ['a', 'Filing tax'] }],
    ['{"a":1,"b', { a: 1 }],
    ['{"a":1,', { a: 1 }],
    ['{"a":tr', {}],
    ['{"a":12', { a: 12 }],
    ['{"a":"x\\', { a: 'x' }],
    ['{"a":"caf\\u00', { a: 'caf' }],
    ['[1,[2,{"k":[3', [1, [2, { k: [3] }]]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(parsePartialJson(text), { value: expected, complete: false }, text);
  assert.deepEqual(parsePartialJson(''), { value: undefined, complete: false });
});
