/**
 * The code's shape, checked: no function or class body over 400 lines in `packages/*\/src` and
 * `apps/web/src` unless it is on the justified list (scripts/check-function-length.ts); no import cycle
 * in `packages/*\/src`, no import from core's `inputs/` into its `protocols/`, and no relative import
 * from `apps/web/src` into `packages/` (scripts/check-import-cycles.ts). An entry of either list that
 * no longer applies fails here too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALLOWED, checkFunctionLength, MAX_LINES } from '../scripts/check-function-length.ts';
import { checkImports, layerViolations } from '../scripts/check-import-cycles.ts';

test(`no function or class body over ${MAX_LINES} lines (outside the justified list)`, () => {
  const { over, stale } = checkFunctionLength();
  assert.deepEqual(
    over.map((f) => `${f.file}:${f.line} ${f.name} is ${f.lines} lines`),
    [],
    'shorten these along real seams, or add them to ALLOWED with a one-line justification',
  );
  assert.deepEqual(stale, [], `these justified entries are no longer over ${MAX_LINES} lines: remove them from ALLOWED`);
  assert.ok(Object.keys(ALLOWED).length < 20, 'the justified list stays short');
});

test('no import cycle in packages/*/src; apps/web/src imports the packages by name', () => {
  const r = checkImports();
  assert.deepEqual(r.cycles, [], 'import cycles');
  assert.deepEqual(r.layers, [], 'imports from inputs/ into protocols/');
  assert.deepEqual(r.stale, [], 'allow-listed cycles that are gone: remove them from ALLOWED_CYCLES');
  assert.deepEqual(r.webIntoPackages, [], 'relative imports from apps/web into packages/');
});

test('an import from inputs/ into protocols/ is a layer violation', () => {
  const root = '/repo';
  const graph = new Map([
    [
      '/repo/packages/core/src/inputs/x.ts',
      ['/repo/packages/core/src/protocols/ag-ui/reader.ts', '/repo/packages/core/src/model/events.ts'],
    ],
    ['/repo/packages/core/src/protocols/ag-ui/reader.ts', ['/repo/packages/core/src/inputs/decoder.ts']],
    ['/repo/packages/core/src/frameworks.ts', ['/repo/packages/core/src/protocols/ag-ui/reader.ts']],
  ]);
  assert.deepEqual(layerViolations(graph, root), ['packages/core/src/inputs/x.ts imports packages/core/src/protocols/ag-ui/reader.ts']);
});
