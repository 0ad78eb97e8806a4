/**
 * A person in the loop in the canonical model: the sequence rules `validate` checks for approvals,
 * client tool calls and interrupts, and the emitter's `run-finish.pending`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CanonicalEvent, Emitter, type EventInit } from '../src/index.ts';
import { validate } from '../src/schema.ts';

function run(inits: EventInit[], runId = 'r'): CanonicalEvent[] {
  return [{ type: 'run-start', version: 2, messageId: 'm' } as EventInit, ...inits].map(
    (e, seq) => ({ ...e, runId, seq, ts: 0 }) as CanonicalEvent,
  );
}
const call = (toolCallId: string, toolName = 'delete_file'): EventInit[] => [
  { type: 'tool-input-start', toolCallId, toolName },
  { type: 'tool-input-end', toolCallId, toolName, input: {} },
];
const messages = (events: CanonicalEvent[]) => validate(events, { complete: true }).issues.map((i) => `${i.index} ${i.path}: ${i.message}`);

describe('validate: approvals, client tool calls, interrupts', () => {
  test('a run that asks and ends waiting is valid', () => {
    const events = run([
      ...call('c1'),
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
      ...call('c2', 'get_location'),
      { type: 'client-tool-call', toolCallId: 'c2' },
      { type: 'interrupt', interruptId: 'i1', reason: 'input_required' },
      { type: 'run-finish', finishReason: 'tool-calls', pending: { approvalIds: ['a1'], toolCallIds: ['c2'], interruptIds: ['i1'] } },
    ]);
    assert.deepEqual(messages(events), []);
  });

  test('a continuation run answers what an earlier run asked', () => {
    const events = run([
      { type: 'tool-approval-response', approvalId: 'a1', toolCallId: 'c1', approved: true },
      { type: 'tool-output', toolCallId: 'c1', output: 'ok' },
      { type: 'tool-output', toolCallId: 'c2', output: 'Paris' },
      { type: 'interrupt-response', interruptId: 'i1', status: 'resolved', payload: 'Paris' },
      { type: 'text-start', blockId: 't' },
      { type: 'text-end', blockId: 't' },
      { type: 'run-finish', finishReason: 'stop' },
    ]);
    assert.deepEqual(messages(events), []);
  });

  test('an approval request or client tool call for an unknown call, asked twice, a denied tool run, bad pending', () => {
    const events = run([
      { type: 'text-start', blockId: 't' },
      { type: 'text-end', blockId: 't' },
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'nope' },
      ...call('c1'),
      { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c1' },
      { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c1' },
      { type: 'client-tool-call', toolCallId: 'ghost' },
      { type: 'tool-approval-response', approvalId: 'a2', toolCallId: 'c9', approved: false },
      { type: 'tool-output', toolCallId: 'c1', output: 'ran anyway' },
      { type: 'interrupt', interruptId: 'i1', reason: 'x' },
      { type: 'interrupt', interruptId: 'i1', reason: 'x' },
      { type: 'run-finish', finishReason: 'tool-calls', pending: { approvalIds: ['a2', 'zz'], toolCallIds: ['c1'], interruptIds: ['i2'] } },
    ]);
    assert.deepEqual(messages(events), [
      '3 toolCallId: expected a tool call "nope" of this run (tool-input-end) before this tool-approval-request',
      '7 approvalId: approval "a2" was already requested in this run',
      '8 toolCallId: expected a tool call "ghost" of this run (tool-input-end) before this client-tool-call',
      '9 toolCallId: approval "a2" was requested for tool call "c1", not "c9"',
      '10 toolCallId: tool call "c1" was denied: a denied tool does not run',
      '12 interruptId: interrupt "i1" was already raised in this run',
      '13 pending.approvalIds[0]: approval "a2" was answered in this run',
      '13 pending.approvalIds[1]: expected an approval requested in this run, got "zz"',
      '13 pending.toolCallIds[0]: expected a client-tool-call of this run, got "c1"',
      '13 pending.interruptIds[0]: expected an interrupt raised in this run, got "i2"',
    ]);
  });

  test('version 1 runs still validate', () => {
    const events = run([{ type: 'run-finish', finishReason: 'stop' }]).map((e) => (e.type === 'run-start' ? { ...e, version: 1 } : e));
    assert.deepEqual(messages(events as CanonicalEvent[]), []);
  });
});

describe('Emitter: a run that ends waiting', () => {
  const finish = (inits: EventInit[], reason: 'stop' | 'error' = 'stop') => {
    const out = new Emitter({ runId: 'r', now: () => 0 }, 'test');
    for (const e of inits) out.emit(e);
    out.emit({ type: 'run-finish', finishReason: reason });
    return out.take().at(-1) as Extract<CanonicalEvent, { type: 'run-finish' }>;
  };

  test('names what is left unanswered, finishReason tool-calls', () => {
    const f = finish([
      ...call('c1'),
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
      ...call('c2'),
      { type: 'client-tool-call', toolCallId: 'c2' },
      ...call('c3'),
      { type: 'client-tool-call', toolCallId: 'c3' },
      { type: 'tool-output', toolCallId: 'c3', output: 1 },
    ]);
    assert.equal(f.finishReason, 'tool-calls');
    assert.deepEqual(f.pending, { approvalIds: ['a1'], toolCallIds: ['c2'] });
  });

  test('only interrupts: other; answered ones are not pending; a failed run keeps error', () => {
    assert.equal(finish([{ type: 'interrupt', interruptId: 'i', reason: 'x' }]).finishReason, 'other');
    const answered = finish([
      ...call('c1'),
      { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' },
      { type: 'tool-approval-response', approvalId: 'a1', approved: true },
    ]);
    assert.deepEqual([answered.finishReason, answered.pending], ['stop', undefined]);
    const failed = finish([{ type: 'interrupt', interruptId: 'i', reason: 'x' }], 'error');
    assert.deepEqual([failed.finishReason, failed.pending], ['error', undefined]);
  });
});
