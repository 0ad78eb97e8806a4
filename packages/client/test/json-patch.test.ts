/**
 * The copy-on-write JSON Patch against fast-json-patch's `applyPatch(doc, patch, true, false)` (what
 * `@ag-ui/client` applies to STATE_DELTA), on random documents and patches whose paths mostly exist:
 * the same result, or both fail; the input document is never modified; untouched branches are shared.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyJsonPatch, type JsonPatchOperation } from '@switchboard/core';
import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';

/** Every pointer of a document (plus a few that do not exist). */
function pointers(doc: unknown, prefix = ''): string[] {
  const out = [prefix];
  if (Array.isArray(doc)) {
    doc.forEach((v, i) => {
      out.push(...pointers(v, `${prefix}/${i}`));
    });
    out.push(`${prefix}/-`, `${prefix}/${doc.length}`, `${prefix}/${doc.length + 1}`, `${prefix}/01`);
  } else if (doc && typeof doc === 'object') {
    for (const k of Object.keys(doc))
      out.push(...pointers((doc as Record<string, unknown>)[k], `${prefix}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
    out.push(`${prefix}/new`, `${prefix}/x/y`);
  }
  return out;
}

const doc = fc.oneof(
  fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd/e', 'f~g'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }),
);

const scenario = doc.chain((d) => {
  const paths = fc.constantFrom(...pointers(d));
  const op = fc.record(
    {
      op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'),
      path: paths,
      from: paths,
      value: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ['op', 'path'] },
  );
  return fc.tuple(fc.constant(d), fc.array(op, { minLength: 1, maxLength: 4 }));
});

function official(d: unknown, patch: JsonPatchOperation[]): { ok: true; value: unknown } | { ok: false } {
  try {
    return {
      ok: true,
      value: jsonpatch.applyPatch(structuredClone(d), structuredClone(patch) as jsonpatch.Operation[], true, false).newDocument,
    };
  } catch {
    return { ok: false };
  }
}

function ours(d: unknown, patch: JsonPatchOperation[]): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: applyJsonPatch(d, patch) };
  } catch {
    return { ok: false };
  }
}

describe('JSON Patch equals fast-json-patch', () => {
  test('random documents and patches', () => {
    fc.assert(
      fc.property(scenario, ([rawDoc, rawPatch]) => {
        // JSON round trips: states and patches arrive as JSON.
        const d = JSON.parse(JSON.stringify(rawDoc)) as unknown;
        const patch = JSON.parse(JSON.stringify(rawPatch)) as JsonPatchOperation[];
        const before = structuredClone(d);
        const expected = official(d, patch);
        const got = ours(d, patch);
        assert.equal(got.ok, expected.ok, JSON.stringify({ d, patch }));
        if (got.ok && expected.ok) assert.deepEqual(got.value, expected.value);
        assert.deepEqual(d, before, 'the input document is not modified');
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 3000) },
    );
  });

  test('untouched branches are shared, touched paths are copied', () => {
    const d = { a: { big: [1, 2, 3] }, b: { c: [1] } };
    const next = applyJsonPatch(d, [{ op: 'add', path: '/b/c/-', value: 2 }]) as typeof d;
    assert.equal(next.a, d.a);
    assert.notEqual(next.b, d.b);
    assert.deepEqual(next.b.c, [1, 2]);
    assert.deepEqual(d.b.c, [1]);
  });

  test('__proto__ paths are refused', () => {
    assert.throws(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/x', value: 1 }]), /banned/);
  });
});
