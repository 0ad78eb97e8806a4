/**
 * History of a person in the loop: after an approval is asked, answered (approved or denied), or a
 * client tool call is answered, the reloaded message shows the states the stock client holds live —
 * AI SDK `approval-requested` / `approval-responded` / `output-denied` / `output-available` (equal
 * to `readUIMessageStream` continuing the same message, as `useChat` does, and valid for
 * `validateUIMessages`), and AG-UI messages equal to what `HttpAgent` built, with the approval in
 * the tool call's metadata.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createSseEncoder, type EventInit, type Protocol } from '@switchboard/core';
import { readUIMessageStream, type UIMessage, type UIMessageChunk, validateUIMessages } from 'ai';

import { runAgUi } from '../../../test/support/ag-ui-oracle.ts';
import { parseAiSdkSse } from '../../../test/support/ai-sdk-oracle.ts';
import { toAgUiMessages, toUIMessages } from '../src/history.ts';
import { type AssistantMessage, Projector, project } from '../src/projection.ts';

function sse(events: readonly CanonicalEvent[], protocol: Protocol): string {
  const enc = createSseEncoder(protocol);
  return [...events.flatMap((e) => enc.push(e)), ...enc.end()].join('');
}

/** A run of message msg_1; `continues` for the runs after the first (as the gateway's run-start says). */
function run(runId: string, inits: EventInit[], continues = false): CanonicalEvent[] {
  const start = { type: 'run-start', version: 2, messageId: 'msg_1', chatId: 'chat', ...(continues ? { continues } : {}) } as EventInit;
  return [start, ...inits].map((e, seq) => ({ ...e, runId, seq, ts: 1000 + seq }) as CanonicalEvent);
}

/** The stock client's message after a stream, continuing `message` when given. */
async function live(events: readonly CanonicalEvent[], message?: UIMessage): Promise<UIMessage> {
  const chunks = await parseAiSdkSse(sse(events, 'ai-sdk'));
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, ...(message ? { message: structuredClone(message) } : {}) })) last = m;
  return last as UIMessage;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v));
type Part = Record<string, unknown> & { approval?: Record<string, unknown> };

const asked = run('run_1', [
  { type: 'step-start', stepId: 's1', kind: 'model' },
  { type: 'tool-input-start', toolCallId: 'call_1', toolName: 'delete_file' },
  { type: 'tool-input-end', toolCallId: 'call_1', toolName: 'delete_file', input: { path: 'notes.txt' } },
  { type: 'tool-approval-request', approvalId: 'appr_1', toolCallId: 'call_1', reason: 'Cannot be undone.' },
  { type: 'step-finish', stepId: 's1' },
  { type: 'run-finish', finishReason: 'tool-calls', pending: { approvalIds: ['appr_1'] } },
]);

/** The message of a run and the run that continues it (what the store projects for a continuation). */
function continued(first: readonly CanonicalEvent[], second: readonly CanonicalEvent[]): AssistantMessage {
  return new Projector({ chatId: 'chat' }).applyAll(first).continueWith().applyAll(second).snapshot('persisted');
}

function answered(approved: boolean): CanonicalEvent[] {
  const text = approved ? 'Deleted notes.txt' : 'Left notes.txt alone';
  return run(
    'run_2',
    [
      { type: 'tool-approval-response', approvalId: 'appr_1', toolCallId: 'call_1', approved, by: 'user_1' },
      ...(approved ? [{ type: 'tool-output', toolCallId: 'call_1', toolName: 'delete_file', output: 'ok' } as EventInit] : []),
      { type: 'step-start', stepId: 's2', kind: 'model' },
      { type: 'text-start', blockId: 't' },
      { type: 'text-delta', blockId: 't', delta: text },
      { type: 'text-end', blockId: 't' },
      { type: 'step-finish', stepId: 's2' },
      { type: 'run-finish', finishReason: 'stop' },
    ],
    true,
  );
}

/** What addToolApprovalResponse does to the client's message. */
function answer(m: UIMessage, approved: boolean): UIMessage {
  const out = structuredClone(m);
  for (const p of out.parts as Part[])
    if (p.approval) Object.assign(p, { state: 'approval-responded', approval: { ...p.approval, approved } });
  return out;
}

describe('AI SDK history: approvals', () => {
  test('asked: approval-requested with the approval id and reason, as live', async () => {
    const stored = project(asked, { chatId: 'chat' });
    const [history] = toUIMessages([stored]) as UIMessage[];
    const liveMessage = await live(asked);
    assert.deepEqual(json(history.parts), json(liveMessage.parts));
    const tool = history.parts.find((p) => p.type === 'tool-delete_file') as Part;
    assert.equal(tool.state, 'approval-requested');
    assert.deepEqual(tool.approval, { id: 'appr_1', requestReason: 'Cannot be undone.' });
    await validateUIMessages({ messages: [history] });
  });

  for (const approved of [true, false]) {
    test(`answered (approved: ${approved}): one message, ${approved ? 'output-available' : 'output-denied'}, as the client continuing it`, async () => {
      const [history] = toUIMessages([continued(asked, answered(approved))]) as UIMessage[];
      const liveMessage = await live(answered(approved), answer(await live(asked), approved));
      assert.deepEqual(json(history.parts), json(liveMessage.parts));
      const tool = history.parts.find((p) => p.type === 'tool-delete_file') as Part;
      assert.equal(tool.state, approved ? 'output-available' : 'output-denied');
      assert.deepEqual(tool.approval, { id: 'appr_1', requestReason: 'Cannot be undone.', approved });
      await validateUIMessages({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'approval' }] }, history] });
    });
  }

  test('a client tool call answered: output-available, then the new step', async () => {
    const first = run('run_1', [
      { type: 'tool-input-start', toolCallId: 'call_2', toolName: 'get_location' },
      { type: 'tool-input-end', toolCallId: 'call_2', toolName: 'get_location', input: {} },
      { type: 'client-tool-call', toolCallId: 'call_2', toolName: 'get_location' },
      { type: 'run-finish', finishReason: 'tool-calls', pending: { toolCallIds: ['call_2'] } },
    ]);
    const second = run(
      'run_2',
      [
        { type: 'tool-output', toolCallId: 'call_2', output: 'Paris' },
        { type: 'text-start', blockId: 't' },
        { type: 'text-delta', blockId: 't', delta: 'You are in Paris' },
        { type: 'text-end', blockId: 't' },
        { type: 'run-finish', finishReason: 'stop' },
      ],
      true,
    );
    const stored1 = project(first, { chatId: 'chat' });
    const [h1] = toUIMessages([stored1]) as UIMessage[];
    const live1 = await live(first);
    assert.deepEqual(json(h1.parts), json(live1.parts));
    assert.equal((h1.parts[1] as Part).state, 'input-available');
    const withOutput = structuredClone(live1);
    Object.assign(withOutput.parts[1], { state: 'output-available', output: 'Paris' });
    const [h2] = toUIMessages([continued(first, second)]) as UIMessage[];
    assert.deepEqual(json(h2.parts), json((await live(second, withOutput)).parts));
    assert.deepEqual(
      h2.parts.map((p) => [p.type, (p as Part).state]),
      [
        ['step-start', undefined],
        ['tool-get_location', 'output-available'],
        ['step-start', undefined],
        ['text', 'done'],
      ],
    );
  });

  test('an interrupt and its answer are data parts', async () => {
    const events = run('run_1', [
      { type: 'interrupt', interruptId: 'int_1', reason: 'input_required', message: 'Which city?' },
      { type: 'run-finish', finishReason: 'other', pending: { interruptIds: ['int_1'] } },
    ]);
    const [h] = toUIMessages([project(events, { chatId: 'chat' })]) as UIMessage[];
    assert.deepEqual(json(h.parts), json((await live(events)).parts));
    assert.deepEqual(h.parts, [
      { type: 'data-interrupt', id: 'int_1', data: { interruptId: 'int_1', reason: 'input_required', message: 'Which city?' } },
    ]);
  });
});

describe('AG-UI history: approvals', () => {
  /** The messages without metadata (carried differently live, as in history.test.ts). */
  function plain(messages: unknown): unknown {
    const out = json(messages) as { metadata?: unknown; toolCalls?: { metadata?: unknown }[] }[];
    for (const m of out) {
      delete m.metadata;
      for (const c of m.toolCalls ?? []) delete c.metadata;
    }
    return out;
  }

  test('asked, then approved: the messages HttpAgent built, the approval state in the call metadata', async () => {
    const first = project(asked, { chatId: 'chat' });
    const r1 = await runAgUi(sse(asked, 'ag-ui'));
    assert.equal(r1.error, undefined);
    const h1 = toAgUiMessages([first]) as { toolCalls?: { metadata?: unknown }[] }[];
    assert.deepEqual(plain(h1), plain(r1.messages));
    // Beside the live metadata (`whole`: the input arrived in one piece), the approval and its state.
    assert.deepEqual(h1[0].toolCalls?.[0].metadata, {
      switchboard: { whole: true, approval: { id: 'appr_1', requestReason: 'Cannot be undone.', state: 'approval-requested' } },
    });

    const second = continued(asked, answered(true));
    const r2 = await runAgUi(sse(answered(true), 'ag-ui'), { initialMessages: r1.messages });
    assert.equal(r2.error, undefined);
    const h2 = toAgUiMessages([second]) as { toolCalls?: { metadata?: unknown }[] }[];
    assert.deepEqual(plain(h2), plain(r2.messages));
    assert.deepEqual(h2[0].toolCalls?.[0].metadata, {
      switchboard: {
        whole: true,
        approval: { id: 'appr_1', requestReason: 'Cannot be undone.', approved: true, by: 'user_1', state: 'output-available' },
      },
    });
  });
});
