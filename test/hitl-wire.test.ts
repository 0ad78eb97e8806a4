/**
 * A person in the loop on the wire: the simplified Claude agent format's lines `approval_request`,
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
  createDsAgentEncoder,
  createWsEncoder,
  type EventInit,
  framed,
  type Machine,
} from '../packages/core/src/index.ts';
import { validate } from '../packages/core/src/model/validate.ts';
import { validateAiSdkChunks } from '../packages/core/src/protocols/ai-sdk/schema.ts';
import { validateDsAgentMessages, validateWsEvents } from '../packages/core/src/schema.ts';
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

/** A continuation run built from event inits (what the gateway emits for one, then the agent). */
function run(runId: string, messageId: string, inits: EventInit[]): CanonicalEvent[] {
  const events = [{ type: 'run-start', version: 2, messageId, continues: true } as EventInit, ...inits];
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

describe('readers: the same wire back to canonical', () => {
  const HITL = new Set(['tool-approval-request', 'tool-approval-response', 'client-tool-call', 'interrupt', 'interrupt-response']);
  /** The person-in-the-loop events and the run-finish's pending, without envelope or metadata. */
  const waits = (events: CanonicalEvent[]) =>
    events
      .filter((e) => HITL.has(e.type) || e.type === 'run-finish')
      .map((e) => {
        const {
          runId: _r,
          seq: _s,
          ts: _t,
          providerMetadata: _pm,
          usage: _u,
          ...rest
        } = e as CanonicalEvent & { usage?: unknown; providerMetadata?: unknown };
        return rest;
      });
  const read = (body: string, from: 'ai-sdk' | 'ag-ui') => {
    const m = framed(createDecoder(from, { runId: 'x', now: () => 0 }));
    return [...m.push(body), ...m.end()];
  };
  const mixed = lines([
    { type: 'approval_request', data: { id: 'c1', name: 'rm', input: {}, approval_id: 'appr_1', reason: 'Sure?' } },
    { type: 'client_tool_call', data: { id: 'c2', name: 'get_location' } },
    { type: 'interrupt', data: { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 } } },
    { type: 'done' },
  ]);
  const continuation = run('run_2', 'msg_1', [
    { type: 'tool-approval-response', approvalId: 'appr_1', toolCallId: 'c1', approved: false, reason: 'no' },
    { type: 'tool-output', toolCallId: 'c2', output: 'Paris' },
    { type: 'interrupt-response', interruptId: 'int_1', status: 'resolved', payload: 'Paris' },
    { type: 'run-finish', finishReason: 'stop' },
  ]);

  for (const protocol of ['ai-sdk', 'ag-ui'] as const) {
    test(`${protocol}: approvals, client tool calls and interrupts asked come back, with the run's pending`, () => {
      const back = read(sse(mixed, protocol), protocol);
      assert.deepEqual(validate(back, { complete: true }).issues, []);
      const expected = waits(mixed);
      const got = waits(back);
      if (protocol === 'ag-ui') {
        // AG-UI carries them in RUN_FINISHED: approvals, then interrupts, then client calls.
        assert.deepEqual(got, [expected[0], expected[2], expected[1], expected[3]]);
        return;
      }
      // The AI SDK wire has no chunk for a client tool call (a tool-input-available the client's
      // onToolCall answers): the reader does not invent one, so pending lacks it.
      const finish = expected[3] as { pending: Record<string, unknown> };
      assert.deepEqual(got, [expected[0], expected[2], { ...finish, pending: { approvalIds: ['appr_1'], interruptIds: ['int_1'] } }]);
    });
  }

  test('ai-sdk: a continuation comes back (the denial once, interrupt answer as data)', () => {
    const back = read(sse(continuation, 'ai-sdk'), 'ai-sdk');
    assert.deepEqual(validate(back, { complete: true }).issues, []);
    assert.deepEqual(
      waits(back).map((e) => e.type),
      ['tool-approval-response', 'interrupt-response', 'run-finish'],
    );
    assert.deepEqual(
      back.filter((e) => e.type === 'tool-output').map((e) => e.type === 'tool-output' && [e.toolCallId, e.output]),
      [['c2', 'Paris']],
    );
  });

  test('ag-ui: RunAgentInput.resume on RUN_STARTED → approval answers (cancelled: denied) and interrupt answers', () => {
    const events = [
      {
        type: 'RUN_STARTED',
        threadId: 't',
        runId: 'r2',
        input: {
          threadId: 't',
          runId: 'r2',
          messages: [],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
          resume: [
            { interruptId: 'appr_1', status: 'resolved', payload: { approved: true } },
            { interruptId: 'appr_2', status: 'cancelled', payload: { approved: true } },
            { interruptId: 'int_1', status: 'resolved', payload: 'Paris' },
          ],
        },
      },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r2' },
    ];
    const back = read(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), 'ag-ui');
    assert.deepEqual(validate(back, { complete: true }).issues, []);
    assert.deepEqual(waits(back).slice(0, 3), [
      { type: 'tool-approval-response', approvalId: 'appr_1', approved: true },
      { type: 'tool-approval-response', approvalId: 'appr_2', approved: false },
      { type: 'interrupt-response', interruptId: 'int_1', status: 'resolved', payload: 'Paris' },
    ]);
  });
});

describe('WebSocket contract: tool_approval_request, client_tool_call, interrupt frames', () => {
  test('the frames validate, and read back to the same events and pending', () => {
    const events = [
      ...lines([
        { type: 'approval_request', data: { id: 'c1', name: 'rm', input: {}, approval_id: 'appr_1', reason: 'Sure?' } },
        { type: 'client_tool_call', data: { id: 'c2', name: 'get_location' } },
        { type: 'interrupt', data: { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 } } },
        { type: 'done' },
      ]),
    ];
    const enc = createWsEncoder();
    const frames = [...events.flatMap((e) => enc.push(e)), ...enc.end()];
    assert.deepEqual(validateWsEvents(frames).issues, []);
    const pick = (type: string) => frames.find((f) => f.type === type) as Record<string, unknown>;
    const { type, approval_id, tool_call_id, tool_name, reason } = pick('tool_approval_request');
    assert.deepEqual(
      { type, approval_id, tool_call_id, tool_name, reason },
      { type: 'tool_approval_request', approval_id: 'appr_1', tool_call_id: 'c1', tool_name: 'rm', reason: 'Sure?' },
    );
    assert.deepEqual(pick('complete').pending, { approval_ids: ['appr_1'], tool_call_ids: ['c2'], interrupt_ids: ['int_1'] });
    const d = createDecoder('ws', { runId: 'run_1', messageId: 'msg_1', now: () => 0 });
    const back = [...frames.flatMap((f, i) => d.push(f, { line: i + 1 })), ...d.end()];
    assert.deepEqual(validate(back, { complete: true }).issues, []);
    const strip = (list: CanonicalEvent[]) =>
      list
        .filter(
          (e) => e.type.includes('approval') || e.type.includes('interrupt') || e.type === 'client-tool-call' || e.type === 'run-finish',
        )
        .map(({ seq: _s, ts: _t, ...e }) => e);
    assert.deepEqual(strip(back), strip(events));
  });

  test('answers: tool_approval_response and interrupt_response', () => {
    const second = run('run_2', 'msg_1', [
      { type: 'tool-approval-response', approvalId: 'appr_1', toolCallId: 'c1', approved: false, reason: 'no', by: 'u1' },
      { type: 'interrupt-response', interruptId: 'int_1', status: 'cancelled' },
      { type: 'run-finish', finishReason: 'stop' },
    ]);
    const enc = createWsEncoder();
    const frames = [...second.flatMap((e) => enc.push(e)), ...enc.end()];
    assert.deepEqual(validateWsEvents(frames).issues, []);
    assert.deepEqual(
      frames
        .filter((f) => f.type.endsWith('_response'))
        .map(({ type, ...f }) => [type, (f as { approval_id?: string }).approval_id ?? (f as { interrupt_id?: string }).interrupt_id]),
      [
        ['tool_approval_response', 'appr_1'],
        ['interrupt_response', 'int_1'],
      ],
    );
  });
});

describe('DSAgentRunMessage: approval and interrupt messages to the chat component', () => {
  test('they validate and read back', () => {
    const events = [
      ...lines([
        { type: 'approval_request', data: { id: 'c1', name: 'delete_file', input: { path: 'notes.txt' }, reason: 'Sure?' } },
        { type: 'interrupt', data: { id: 'int_1', reason: 'input_required', message: 'Which city?', value: { q: 1 } } },
        { type: 'done' },
      ]),
    ];
    const enc = createDsAgentEncoder();
    const messages = [...events.flatMap((e) => enc.push(e)), ...enc.end()];
    assert.deepEqual(validateDsAgentMessages(messages).issues, []);
    const approval = messages.find((m) => m.metadata.message_type === 'tool_approval_request');
    assert.deepEqual(approval?.metadata, {
      component: 'chat',
      message_type: 'tool_approval_request',
      approval_id: 'approval_c1',
      tool_id: 'c1',
      tool_name: 'delete_file',
      reason: 'Sure?',
      title: '✋ Approve delete_file?',
      status: 'pending',
    });
    const d = createDecoder('dsagent', { runId: 'run_1', now: () => 0 });
    const back = [...messages.flatMap((m, i) => d.push(m, { line: i + 1 })), ...d.end()];
    const pick = (list: CanonicalEvent[]) =>
      list.filter((e) => e.type === 'tool-approval-request' || e.type === 'interrupt').map(({ runId: _r, seq: _s, ts: _t, ...e }) => e);
    assert.deepEqual(pick(back), pick(events));
    const second = run('run_2', 'msg_1', [
      { type: 'tool-approval-response', approvalId: 'approval_c1', toolCallId: 'c1', approved: false, by: 'u1' },
      { type: 'interrupt-response', interruptId: 'int_1', status: 'resolved', payload: 'Paris' },
      { type: 'run-finish', finishReason: 'stop' },
    ]);
    const enc2 = createDsAgentEncoder();
    const answers = [...second.flatMap((e) => enc2.push(e)), ...enc2.end()];
    assert.deepEqual(validateDsAgentMessages(answers).issues, []);
    assert.deepEqual(
      answers.map((m) => [m.metadata.message_type, (m.metadata as { title?: string }).title]),
      [
        ['tool_approval_response', '🚫 Denied'],
        ['interrupt_response', '✅ Answered'],
      ],
    );
  });
});
