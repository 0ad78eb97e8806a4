import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { messageSchemaText, schemaText } from '../scripts/write-schema.ts';
import { canonicalEventSchema, validate } from '../src/schema.ts';

const DOC = new URL('../../../docs/events.md', import.meta.url);

test('docs/events.md has one valid example for every event type', () => {
  const blocks = [...readFileSync(DOC, 'utf8').matchAll(/```json\n(.*?)\n```/gs)].map((m) => JSON.parse(m[1] as string));
  for (const [i, block] of blocks.entries()) {
    const r = canonicalEventSchema.safeParse(block);
    assert.ok(r.success, `example ${i} (${block.type}): ${r.error?.message}`);
  }
  const documented = new Set(blocks.map((b) => b.type));
  const all = canonicalEventSchema.options.map((o) => o.shape.type.value);
  assert.deepEqual(
    all.filter((t) => !documented.has(t)),
    [],
  );
});

test('the committed JSON Schema is up to date (run `npm run schema` after changing the model)', () => {
  const committed = readFileSync(new URL('../schema/canonical-event.schema.json', import.meta.url), 'utf8');
  assert.equal(committed, schemaText());
  const message = readFileSync(new URL('../schema/assistant-message.schema.json', import.meta.url), 'utf8');
  assert.equal(message, messageSchemaText());
});

test('validate locates problems by event index and field path', () => {
  const ok = { type: 'run-start', runId: 'r', seq: 0, ts: 0, version: 1, messageId: 'm' };
  const result = validate([
    ok,
    { type: 'text-delta', runId: 'r', seq: 1, ts: 0, blockId: 'b1', delta: 'x' },
    { type: 'text-start', runId: 'r', seq: 1, ts: 0, blockId: 'b2' },
    { type: 'tool-input-end', runId: 'r', seq: 3, ts: 0, toolCallId: 't', toolName: 5, input: {} },
    { type: 'nonsense', runId: 'r', seq: 4, ts: 0 },
    { type: 'run-finish', runId: 'other', seq: 5, ts: 0, finishReason: 'stop' },
    { type: 'text-end', runId: 'other', seq: 6, ts: 0, blockId: 'b2' },
  ]);
  assert.equal(result.ok, false);
  const got = result.issues.map((i) => `${i.index} ${i.path}: ${i.message}`);
  assert.deepEqual(got, [
    '1 blockId: expected an open block "b1" (no text-start before it)',
    '2 seq: expected seq greater than 1, got 1',
    '3 toolName: Invalid input: expected string, received number',
    "4 type: Invalid discriminator value. Expected 'run-start' | 'run-finish' | 'run-abort' | 'error' | 'step-start' | 'step-finish' | 'text-start' | 'text-delta' | 'text-end' | 'citation' | 'reasoning-start' | 'reasoning-delta' | 'reasoning-end' | 'tool-input-start' | 'tool-input-delta' | 'tool-input-end' | 'tool-output' | 'tool-error' | 'tool-approval-request' | 'tool-approval-response' | 'client-tool-call' | 'interrupt' | 'interrupt-response' | 'todos' | 'subagent-start' | 'subagent-finish' | 'source' | 'file' | 'usage' | 'status' | 'state-snapshot' | 'state-delta' | 'custom' | 'raw'",
    '5 runId: expected runId "r" (one run per stream), got "other"',
    '6 runId: expected runId "r" (one run per stream), got "other"',
    '6 type: expected nothing after the run ended, got "text-end"',
  ]);
});

test('unknown keys are rejected: extra data belongs in providerMetadata', () => {
  const r = validate([{ type: 'run-start', runId: 'r', seq: 0, ts: 0, version: 1, messageId: 'm', extra: 1 }]);
  assert.deepEqual(r.issues, [{ index: 0, path: '', message: 'Unrecognized key: "extra"' }]);
});

test('the name lists match the registries', async () => {
  const { FRAMEWORK_NAMES, PROTOCOL_NAMES } = await import('../src/names.ts');
  const { FRAMEWORKS, PROTOCOLS } = await import('../src/index.ts');
  assert.deepEqual([...FRAMEWORK_NAMES].sort(), Object.keys(FRAMEWORKS).sort());
  assert.deepEqual([...PROTOCOL_NAMES].sort(), Object.keys(PROTOCOLS).sort());
});
