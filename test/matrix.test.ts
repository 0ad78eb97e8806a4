/**
 * The conformance matrix as a test: every input (every fixture, shared and our own) through every
 * encoder, each output checked by the official implementation of its protocol, and the AG-UI and
 * AI SDK outputs of the same input compared. `npm run matrix` prints the same as a table.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matrixInputs } from './matrix/inputs.ts';
import { runRow } from './matrix/matrix.ts';

/** What `--from auto` must recognise, by the folder an input comes from. */
const EXPECTED: [RegExp, string[]][] = [
  [/^shared\/(recorded\/)?anthropic\//, ['anthropic']],
  // The one OpenAI Realtime capture (session.* events) is not Chat Completions: no decoder claims it.
  [/^shared\/recorded\/openai-chat\/openai-realtime-/, []],
  [/^shared\/(recorded\/)?openai-(chat|compatible)\//, ['openai-chat']],
  [/^(shared|own)\/(recorded\/)?openai-responses\//, ['openai-responses']],
  [/^shared\/recorded\/gemini\//, ['gemini', 'gemini-interactions']],
  [/^shared\/langchain\//, ['langchain']],
  [/^shared\/recorded\/langchain\//, ['langgraph']],
  [/^own\/langchain\//, ['langchain', 'langgraph']],
  [/^shared\/recorded\/ag-ui\//, ['ag-ui']],
  [/^own\/claude-agent-sdk\//, ['claude-agent-sdk']],
  [/^own\/openai-agents\//, ['openai-agents']],
  [/^own\/smolagents\//, ['smolagents']],
];

describe('conformance matrix: every input × every output', { concurrency: 4 }, () => {
  for (const input of matrixInputs()) {
    test(input.name, async () => {
      const row = await runRow(input);
      const failures = Object.entries(row.cells)
        .filter(([, c]) => !c.ok)
        .map(([name, c]) => `${name}: ${c.note}`);
      assert.deepEqual(failures, [], `${input.name} (${row.framework})`);
      const expected = EXPECTED.find(([re]) => re.test(input.name))?.[1];
      assert.ok(expected, `no expectation for ${input.name}`);
      if (expected.length === 0) assert.equal(row.detected, undefined);
      else assert.ok(expected.includes(row.detected ?? ''), `auto picked ${row.detected}, expected ${expected.join(' or ')}`);
    });
  }
});
