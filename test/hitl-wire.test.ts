/**
 * A person in the loop on the wire (issue 15): seed 000's agent lines `approval_request`,
 * `client_tool_call` and `interrupt` decoded to canonical events, and encoded for the stock clients —
 * the AI SDK stream assembled by the official `readUIMessageStream` (continuation runs continue the
 * same message, as `useChat` does) and checked by `uiMessageChunkSchema` and `validateUIMessages`;
 * the AG-UI stream run through the official `HttpAgent` pipeline (schemas and `verifyEvents`).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readUIMessageStream, type UIMessage, type UIMessageChunk, validateUIMessages } from 'ai';
import {
  type CanonicalEvent,
  createAgUiEncoder,
  createAiSdkEncoder,
  createDecoder,
  type EventInit,
  type Machine,
} from '../packages/core/src/index.ts';
import { validate } from '../packages/core/src/model/validate.ts';
import { validateAiSdkChunks } from '../packages/core/src/protocols/ai-sdk/schema.ts';
import { runAgUi, schemaIssues } from './support/ag-ui-oracle.ts';
import { parseAiSdkSse } from './support/ai-sdk-oracle.ts';

/** Decodes agent lines (claude dialect) with fixed ids and clock. */
function lines(values: object[], runId = 'run_1', messageId = 'msg_1'): CanonicalEvent[] {
  const d = createDecoder('claude', { runId, messageId, now: () => 0 });
  const out: CanonicalEvent[] = [];
  values.forEach((v, i) => {
    out.push(...d.push(v, { line: i + 1 }));
  });
  out.push(...d.end());
  return out;
}

/** A canonical run built from event inits (what the gateway emits for a continuation, then the agent). */
function run(runId: string, messageId: string, inits: EventInit[]): CanonicalEvent[] {
  const events = [{ type: 'run-start', version: 2, messageId } as EventInit, ...inits];
  return events.map((e, seq) => ({ ...e, runId, seq, ts: 0 }) as CanonicalEvent);
}

/** Canonical events → the SSE body of an encoder (`[DONE]` for the AI SDK). */
function sse(events: CanonicalEvent[], protocol: 'ai-sdk' | 'ag-ui'): string {
  const enc: Machine<CanonicalEvent, object> = protocol === 'ai-sdk' ? createAiSdkEncoder() : createAgUiEncoder();
  const frames = [...events.flatMap((e) => enc.push(e)), ...enc.end()];
  return frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') + (protocol === 'ai-sdk' ? 'data: [DONE]\n\n' : '');
}

/** What the stock client holds after a stream: readUIMessageStream, continuing `message` when given (as useChat does). */
async function assemble(body: string, message?: UIMessage): Promise<UIMessage> {
  const chunks = await parseAiSdkSse(body); // the official chunk schema
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let last: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const m of readUIMessageStream({
    stream,
    ...(message ? { message: structuredClone(message) } : {}),
    onError: (e) => errors.push(e),
  }))
    last = m;
  assert.deepEqual(errors, []);
  return last as UIMessage;
}

type ToolPart = { type: string; toolCallId: string; state: string; input?: unknown; output?: unknown; approval?: Record<string, unknown> };
const toolPart = (m: UIMessage, id: string): ToolPart => m.parts.find((p) => (p as ToolPart).toolCallId === id) as ToolPart;
const text = (m: UIMessage): string =>
  m.parts
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('');

/** What `addToolApprovalResponse` does to the client's message. */
function answerApproval(m: UIMessage, approvalId: string, approved: boolean): UIMessage {
  const out = structuredClone(m);
  for (const p of out.parts as ToolPart[])
    if (p.approval?.id === approvalId) {
      p.state = 'approval-responded';
      p.approval = { ...p.approval, approved };
    }
  return out;
}

/** What `addToolOutput` does to the client's message. */
function answerTool(m: UIMessage, toolCallId: string, output: unknown): UIMessage {
  const out = structuredClone(m);
  for (const p of out.parts as ToolPart[])
    if (p.toolCallId === toolCallId) {
      p.state = 'output-available';
      p.output = output;
    }
  return out;
}

const approvalLines = [
  { type: 'start', data: {} },
  {
    type: 'approval_request',
    data: { id: 'call_1', name: 'delete_file', input: { path: 'notes.txt' }, reason: 'Deleting cannot be undone.' },
  },
  { type: 'done', data: {} },
];
const locationLines = [
  { type: 'start', data: {} },
  { type: 'client_tool_call', data: { id: 'call_2', name: 'get_location', input: {} } },
  { type: 'done', data: {} },
];

describe('agent lines: approval_request, client_tool_call, interrupt', () => {
  test('an approval request: the tool call, then tool-approval-request; the run ends waiting (tool-calls)', () => {
    const events = lines(approvalLines);
    assert.deepEqual(validate(events, { complete: true }).issues, []);
    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(2, 5), ['tool-input-start', 'tool-input-end', 'tool-approval-request']);
    const req = events.find((e) => e.type === 'tool-approval-request');
    assert.deepEqual(
      { approvalId: req?.approvalId, toolCallId: req?.toolCallId, toolName: req?.toolName, reason: req?.reason },
      { approvalId: 'approval_call_1', toolCallId: 'call_1', toolName: 'delete_file', reason: 'Deleting cannot be undone.' },
    );
    const finish = events.at(-1) as Extract<CanonicalEvent, { type: 'run-finish' }>;
    assert.equal(finish.finishReason, 'tool-calls');
    assert.deepEqual(finish.pending, { approvalIds: ['approval_call_1'] });
  });

  test('approval_id, a client tool call and an interrupt: all pending; extra fields kept in providerMetadata', () => {
    const events = lines([
      { type: 'approval_request', data: { id: 'c1', name: 'rm', input: '{"a":1}', approval_id: 'appr_1', risk: 'high' } },
      { type: 'client_tool_call', data: { id: 'c2', name: 'get_location' } },
      {
        type: 'interrupt',
        data: { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 }, response_schema: { type: 'string' } },
      },
      { type: 'done', data: {} },
    ]);
    assert.deepEqual(validate(events, { complete: true }).issues, []);
    const req = events.find((e) => e.type === 'tool-approval-request');
    assert.equal(req?.approvalId, 'appr_1');
    assert.deepEqual(req?.providerMetadata, { claude: { risk: 'high' } });
    assert.deepEqual(events.find((e) => e.type === 'tool-input-end')?.input, { a: 1 });
    assert.deepEqual(
      events.filter((e) => e.type === 'client-tool-call').map((e) => [e.toolCallId, e.toolName]),
      [['c2', 'get_location']],
    );
    const int = events.find((e) => e.type === 'interrupt');
    assert.deepEqual(
      { id: int?.interruptId, reason: int?.reason, message: int?.message, value: int?.value, schema: int?.responseSchema },
      { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 }, schema: { type: 'string' } },
    );
    const finish = events.at(-1) as Extract<CanonicalEvent, { type: 'run-finish' }>;
    assert.equal(finish.finishReason, 'tool-calls');
    assert.deepEqual(finish.pending, { approvalIds: ['appr_1'], toolCallIds: ['c2'], interruptIds: ['int_1'] });
  });

  test('only an interrupt: finishReason other; the end of input after it is no truncation', () => {
    const events = lines([{ type: 'interrupt', data: { reason: 'input_required' } }]);
    assert.deepEqual(validate(events, { complete: true }).issues, []);
    assert.equal(events.filter((e) => e.type === 'error').length, 0);
    const finish = events.at(-1) as Extract<CanonicalEvent, { type: 'run-finish' }>;
    assert.equal(finish.finishReason, 'other');
    assert.deepEqual(finish.pending, { interruptIds: ['interrupt_1'] });
  });

  test('a client tool call answered in the same run (a tool_result) is not pending', () => {
    const events = lines([
      { type: 'client_tool_call', data: { id: 'c2', name: 'get_location' } },
      { type: 'tool_result', data: { tool_use_id: 'c2', content: 'Paris' } },
      { type: 'text', data: { content: 'You are in Paris' } },
      { type: 'done', data: {} },
    ]);
    const finish = events.at(-1) as Extract<CanonicalEvent, { type: 'run-finish' }>;
    assert.equal(finish.finishReason, 'stop');
    assert.equal(finish.pending, undefined);
  });

  test('a bad line is a located error, and the decoder goes on', () => {
    const events = lines([{ type: 'approval_request', data: 'nope' }, ...approvalLines]);
    const err = events.find((e) => e.type === 'error');
    assert.equal(err?.where?.line, 1);
    assert.equal(events.at(-1)?.type, 'run-finish');
  });
});

describe('AI SDK: the stock client states across a continuation', () => {
  const first = lines(approvalLines);

  test('approval asked: approval-requested, finish tool-calls', async () => {
    const body = sse(first, 'ai-sdk');
    assert.match(body, /"type":"finish","finishReason":"tool-calls"/);
    const m = await assemble(body);
    const p = toolPart(m, 'call_1');
    assert.equal(p.type, 'tool-delete_file');
    assert.equal(p.state, 'approval-requested');
    assert.deepEqual(p.approval, { id: 'approval_call_1', requestReason: 'Deleting cannot be undone.' });
    await validateUIMessages({ messages: [m] });
  });

  for (const approved of [true, false]) {
    test(`approved: ${approved} → ${approved ? 'output-available' : 'output-denied'} in the same message`, async () => {
      const live = answerApproval(await assemble(sse(first, 'ai-sdk')), 'approval_call_1', approved);
      const answer: EventInit = { type: 'tool-approval-response', approvalId: 'approval_call_1', toolCallId: 'call_1', approved };
      const agent: EventInit[] = approved
        ? [
            { type: 'tool-output', toolCallId: 'call_1', output: 'deleted' },
            { type: 'step-start', stepId: 's2', kind: 'model' },
            { type: 'text-start', blockId: 't' },
            { type: 'text-delta', blockId: 't', delta: 'Deleted notes.txt' },
            { type: 'text-end', blockId: 't' },
            { type: 'step-finish', stepId: 's2' },
          ]
        : [
            { type: 'step-start', stepId: 's2', kind: 'model' },
            { type: 'text-start', blockId: 't' },
            { type: 'text-delta', blockId: 't', delta: 'Left notes.txt alone' },
            { type: 'text-end', blockId: 't' },
            { type: 'step-finish', stepId: 's2' },
          ];
      const second = run('run_2', 'msg_1', [answer, ...agent, { type: 'run-finish', finishReason: 'stop' }]);
      assert.deepEqual(validate(second, { complete: true }).issues, []);
      const body = sse(second, 'ai-sdk');
      assert.deepEqual(validateAiSdkChunks(await parseAiSdkSse(body), { continuation: true }).issues, []);
      const m = await assemble(body, live);
      const p = toolPart(m, 'call_1');
      assert.equal(p.state, approved ? 'output-available' : 'output-denied');
      assert.deepEqual(p.input, { path: 'notes.txt' });
      assert.equal(p.approval?.approved, approved);
      assert.equal(text(m), approved ? 'Deleted notes.txt' : 'Left notes.txt alone');
      assert.equal(m.parts.filter((x) => (x as ToolPart).toolCallId === 'call_1').length, 1);
      await validateUIMessages({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'approval' }] }, m] });
    });
  }

  test('a client tool call: input-available (onToolCall), then its output continues the message in a new step', async () => {
    const events = lines(locationLines);
    const body = sse(events, 'ai-sdk');
    assert.match(body, /"type":"finish","finishReason":"tool-calls"/);
    const live = await assemble(body);
    assert.equal(toolPart(live, 'call_2').state, 'input-available');
    const answered = answerTool(live, 'call_2', 'Paris');
    const second = run('run_2', 'msg_1', [
      { type: 'tool-output', toolCallId: 'call_2', output: 'Paris' },
      { type: 'step-start', stepId: 's2', kind: 'model' },
      { type: 'text-start', blockId: 't' },
      { type: 'text-delta', blockId: 't', delta: 'You are in Paris' },
      { type: 'text-end', blockId: 't' },
      { type: 'step-finish', stepId: 's2' },
      { type: 'run-finish', finishReason: 'stop' },
    ]);
    const m = await assemble(sse(second, 'ai-sdk'), answered);
    assert.equal(toolPart(m, 'call_2').state, 'output-available');
    assert.equal(toolPart(m, 'call_2').output, 'Paris');
    assert.equal(text(m), 'You are in Paris');
    assert.deepEqual(
      m.parts.map((p) => p.type),
      ['step-start', 'tool-get_location', 'step-start', 'text'],
    );
  });

  test('interrupts are data parts kept in the message', async () => {
    const events = lines([
      { type: 'interrupt', data: { id: 'int_1', reason: 'input_required', message: 'Which city?' } },
      { type: 'done' },
    ]);
    const body = sse(events, 'ai-sdk');
    assert.match(body, /"type":"finish","finishReason":"other"/);
    const m = await assemble(body);
    assert.deepEqual(
      m.parts.filter((p) => p.type === 'data-interrupt'),
      [{ type: 'data-interrupt', id: 'int_1', data: { interruptId: 'int_1', reason: 'input_required', message: 'Which city?' } }],
    );
  });
});

describe('AG-UI: RUN_FINISHED outcomes through the official client', () => {
  test('an approval: outcome interrupt (id = approvalId, reason tool_approval, toolCallId, message)', async () => {
    const body = sse(lines(approvalLines), 'ag-ui');
    const r = await runAgUi(body);
    assert.equal(r.error, undefined);
    assert.deepEqual(schemaIssues(r.events), []);
    const finished = r.events.at(-1) as { type: string; outcome?: unknown };
    assert.equal(finished.type, 'RUN_FINISHED');
    assert.deepEqual(finished.outcome, {
      type: 'interrupt',
      interrupts: [
        {
          id: 'approval_call_1',
          reason: 'tool_approval',
          message: 'Deleting cannot be undone.',
          toolCallId: 'call_1',
          metadata: { toolName: 'delete_file' },
        },
      ],
    });
    const calls = r.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
    assert.deepEqual(
      calls.map((c) => [c.id, c.function.name, c.function.arguments]),
      [['call_1', 'delete_file', '{"path":"notes.txt"}']],
    );
  });

  test('an interrupt: its reason, message, responseSchema and value (metadata)', async () => {
    const events = lines([
      {
        type: 'interrupt',
        data: { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 }, response_schema: { type: 'string' } },
      },
      { type: 'done' },
    ]);
    const r = await runAgUi(sse(events, 'ag-ui'));
    assert.equal(r.error, undefined);
    assert.deepEqual((r.events.at(-1) as { outcome?: unknown }).outcome, {
      type: 'interrupt',
      interrupts: [
        {
          id: 'int_1',
          reason: 'input_required',
          message: 'Which city?',
          responseSchema: { type: 'string' },
          metadata: { value: { q: 1 } },
        },
      ],
    });
  });

  test('a client tool call: outcome success with pendingToolCallIds', async () => {
    const r = await runAgUi(sse(lines(locationLines), 'ag-ui'));
    assert.equal(r.error, undefined);
    assert.deepEqual(schemaIssues(r.events), []);
    assert.deepEqual((r.events.at(-1) as { outcome?: unknown }).outcome, { type: 'success', pendingToolCallIds: ['call_2'] });
  });

  test('a continuation run (answers first, then the agent) is a valid AG-UI run', async () => {
    const second = run('run_2', 'msg_1', [
      { type: 'tool-approval-response', approvalId: 'approval_call_1', toolCallId: 'call_1', approved: true },
      { type: 'tool-output', toolCallId: 'call_1', output: 'deleted' },
      { type: 'text-start', blockId: 't' },
      { type: 'text-delta', blockId: 't', delta: 'Deleted notes.txt' },
      { type: 'text-end', blockId: 't' },
      { type: 'run-finish', finishReason: 'stop' },
    ]);
    const first = await runAgUi(sse(lines(approvalLines), 'ag-ui'));
    const r = await runAgUi(sse(second, 'ag-ui'), { initialMessages: first.messages });
    assert.equal(r.error, undefined);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(schemaIssues(r.events), []);
    assert.deepEqual((r.events.at(-1) as { outcome?: unknown }).outcome, { type: 'success' });
    // The call is not opened again: the client keeps its name and input, and gets the result.
    const calls = r.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
    assert.deepEqual(
      calls.map((c) => [c.id, c.function.name, c.function.arguments]),
      [['call_1', 'delete_file', '{"path":"notes.txt"}']],
    );
    assert.deepEqual(
      r.messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content]),
      [['call_1', 'deleted']],
    );
    assert.equal(r.messages.at(-1)?.content, 'Deleted notes.txt');
  });
});
