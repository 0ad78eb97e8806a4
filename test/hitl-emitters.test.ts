/**
 * The agent emitters' person-in-the-loop helpers: the TypeScript `Emitter` and the Python
 * `switchboard_emitter` print the same `approval_request`, `client_tool_call` and `interrupt`
 * lines, which the agent-line decoder reads as a run that ends waiting.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createDecoder } from '../packages/core/src/index.ts';
import { Emitter } from '../packages/server/emitters/emitter.ts';

const EMITTERS = new URL('../packages/server/emitters/', import.meta.url).pathname;
const PYTHON = spawnSync('python3', ['--version'], { encoding: 'utf8' });

const EXPECTED = [
  {
    type: 'approval_request',
    data: { id: 'call_1', name: 'delete_file', input: { path: 'notes.txt' }, approval_id: 'appr_1', reason: 'Sure?' },
  },
  { type: 'client_tool_call', data: { id: 'call_2', name: 'get_location', input: {} } },
  { type: 'interrupt', data: { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 } } },
  { type: 'done', data: {} },
];

function decode(lines: unknown[]): CanonicalEvent[] {
  const d = createDecoder('claude', { runId: 'r', now: () => 0 });
  return [...lines.flatMap((l, i) => d.push(l, { line: i + 1 })), ...d.end()];
}

describe('emitter helpers: approval_request, client_tool_call, interrupt', () => {
  test('TypeScript', async () => {
    let text = '';
    const write = (chunk: string): boolean => {
      text += chunk;
      return true;
    };
    const e = new Emitter({ write, once: () => undefined });
    e.approvalRequest('call_1', 'delete_file', { path: 'notes.txt' }, { approvalId: 'appr_1', reason: 'Sure?' });
    e.clientToolCall('call_2', 'get_location');
    e.interrupt('int_1', 'input_required', { message: 'Which city?', value: { q: 1 } });
    await e.done();
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines, EXPECTED);
    const finish = decode(lines).at(-1) as Extract<CanonicalEvent, { type: 'run-finish' }>;
    assert.deepEqual(
      [finish.finishReason, finish.pending],
      ['tool-calls', { approvalIds: ['appr_1'], toolCallIds: ['call_2'], interruptIds: ['int_1'] }],
    );
  });

  test('Python', { skip: PYTHON.status !== 0 ? 'python3 is not installed' : false }, () => {
    const code = [
      'from switchboard_emitter import emit_approval_request, emit_client_tool_call, emit_interrupt, emit_done',
      'emit_approval_request("call_1", "delete_file", {"path": "notes.txt"}, approval_id="appr_1", reason="Sure?")',
      'emit_client_tool_call("call_2", "get_location")',
      'emit_interrupt("int_1", "input_required", message="Which city?", value={"q": 1})',
      'emit_done()',
    ].join('\n');
    const r = spawnSync('python3', ['-c', code], { cwd: EMITTERS, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
      EXPECTED,
    );
  });
});
