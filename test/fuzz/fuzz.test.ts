/**
 * The fuzz smoke run inside `npm test`: a fixed seed and a bounded number of hostile inputs, each
 * through every decoder (bytes, bytes split in two, objects), validate(), every encoder, the official
 * AI SDK and AG-UI clients and a SQLite append. Nothing may throw or be rejected.
 * Long runs: `npm run fuzz -- --runs 100000`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatReport, runFuzz } from './run.ts';

test('fuzz smoke: hostile inputs through every decoder, encoder, official client and the store', async () => {
  const result = await runFuzz({ runs: 120, seed: 20261124, workers: 2 });
  const detail = result.examples.map((e) => `#${e.index} ${e.framework} ${e.kind}: ${e.note} (${e.case})`).join('\n');
  assert.equal(result.examples.length, 0, `${formatReport(result)}\n${detail}`);
  assert.equal(result.cases, 120);
});
