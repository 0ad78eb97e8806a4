/**
 * The conformance matrix as a test: every input (every fixture, shared and our own) through every
 * encoder, each output checked by the official implementation of its protocol, and the AG-UI and
 * AI SDK outputs of the same input compared. `npm run matrix` prints the same as a table.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matrixInputs } from './matrix/inputs.ts';
import { runRow } from './matrix/matrix.ts';

describe('conformance matrix: every input × every output', { concurrency: 4 }, () => {
  for (const input of matrixInputs()) {
    test(input.name, async () => {
      const row = await runRow(input);
      const failures = Object.entries(row.cells)
        .filter(([, c]) => !c.ok)
        .map(([name, c]) => `${name}: ${c.note}`);
      assert.deepEqual(failures, [], `${input.name} (${row.framework})`);
      assert.notEqual(row.framework, '?', 'a decoder recognised the input');
    });
  }
});
