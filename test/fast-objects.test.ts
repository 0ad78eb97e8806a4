/**
 * No decoder emits, and no encoder frames, objects that V8 keeps as dictionaries (see
 * test/support/fast-objects.ts): a performance property, checked by V8 itself, not by a clock.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

test('every matrix input decodes to fast objects, and every encoder frames them as fast objects', () => {
  const script = new URL('./support/fast-objects.ts', import.meta.url).pathname;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const counts = JSON.parse(out) as Record<string, { events: number; frames: number; slow: string[] }>;
  assert.ok(Object.keys(counts).length >= 10, `decoders seen: ${Object.keys(counts).join(', ')}`);
  for (const [framework, c] of Object.entries(counts)) {
    assert.ok(c.events > 0, `${framework}: no events`);
    assert.deepEqual(c.slow.slice(0, 10), [], `${framework}: ${c.slow.length} of ${c.events} events / ${c.frames} frames are dictionaries`);
  }
});
