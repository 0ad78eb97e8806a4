/**
 * The string-work meter that the linearity tests use (test/support/work-meter.ts): it tells linear
 * from quadratic by counting, and leaves the built-ins as they were.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { measureStringWork, stringWork } from './support/work-meter.ts';

/** Splits lines out of one-character chunks, keeping the unfinished line. */
function linear(chunks: string[]): number {
  let buf = '';
  let lines = 0;
  for (const c of chunks) {
    buf += c;
    const nl = buf.indexOf('\n', buf.length - c.length);
    if (nl >= 0) {
      lines++;
      buf = buf.slice(nl + 1);
    }
  }
  return lines;
}

/** The same, searching the whole text again on every chunk (the classic quadratic bug). */
function quadratic(chunks: string[]): number {
  let text = '';
  let lines = 0;
  for (const c of chunks) {
    text += c;
    lines = text.split('\n').length - 1;
  }
  return lines;
}

const input = (n: number) => [
  ...'x'
    .repeat(99)
    .concat('\n')
    .repeat(n / 100),
];

test('linear code counts ~4x the work for 4x the input; quadratic code ~16x', () => {
  const ratio = (f: (c: string[]) => number) => stringWork(() => f(input(16_000))) / stringWork(() => f(input(4_000)));
  assert.ok(ratio(linear) < 4.5, `linear: ${ratio(linear)}`);
  assert.ok(ratio(quadratic) > 12, `quadratic: ${ratio(quadratic)}`);
});

test('global expressions count from lastIndex; JSON.parse counts its input; results pass through', () => {
  const text = 'a1b2c3'.repeat(1000);
  const { result, work } = measureStringWork(() => [...text.matchAll(/\d/g)].length);
  assert.equal(result, 3000);
  assert.ok(work < 3 * text.length, String(work));
  assert.equal(
    stringWork(() => JSON.parse('{"a":[1,2,3]}')),
    13,
  );
});

test('the built-ins are restored, also when the measured code throws', () => {
  const before = [String.prototype.indexOf, String.prototype.slice, RegExp.prototype.exec, JSON.parse, Array.prototype.join];
  assert.throws(() => stringWork(() => JSON.parse('{')));
  assert.deepEqual([String.prototype.indexOf, String.prototype.slice, RegExp.prototype.exec, JSON.parse, Array.prototype.join], before);
});
