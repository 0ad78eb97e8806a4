/**
 * The web UI's side of a person in the loop, without a browser: when the AI SDK chat sends by
 * itself (once per answer, never in a loop), `get_location` and its fallback, the AG-UI builder
 * continuing a message, and the AG-UI conversation with tool calls and results.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { AgUiMessageBuilder, toAgUiMessages } from '../src/chat/agui.ts';
import { continueAfterAnswers, FALLBACK_PLACE, FRONTEND_TOOLS, locate, runFrontendTool } from '../src/chat/client-tools.ts';
import type { ChatMessage } from '../src/lib/types.ts';
import { toolOf } from '../src/render/parts.ts';

const user: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go' }] };
const assistant = (parts: Record<string, unknown>[]): ChatMessage => ({
  id: 'a1',
  role: 'assistant',
  parts: parts as ChatMessage['parts'],
});
const deleteFile = (state: string, approval: Record<string, unknown>) => ({
  type: 'tool-delete_file',
  toolCallId: 'call_1',
  input: { path: 'notes.txt' },
  state,
  approval,
});

test('sendAutomaticallyWhen: an approval answered here sends once', () => {
  const answered = new Set(['approval_call_1']);
  const when = continueAfterAnswers(answered);
  const messages = [
    user,
    assistant([{ type: 'step-start' }, deleteFile('approval-responded', { id: 'approval_call_1', approved: false })]),
  ];
  assert.equal(when({ messages }), true);
  assert.equal(when({ messages }), false, 'the answer was sent: not again');
  // Still waiting for the answer: not sent.
  const asking = [user, assistant([{ type: 'step-start' }, deleteFile('approval-requested', { id: 'approval_call_1' })])];
  assert.equal(continueAfterAnswers(new Set(['approval_call_1']))({ messages: asking }), false);
});

test('sendAutomaticallyWhen: a frontend tool output added here sends once; a finished reply never does', () => {
  const answered = new Set(['call_2']);
  const when = continueAfterAnswers(answered);
  const located = [
    user,
    assistant([
      { type: 'step-start' },
      { type: 'tool-get_location', toolCallId: 'call_2', state: 'output-available', input: {}, output: 'Paris' },
    ]),
  ];
  assert.equal(when({ messages: located }), true);
  assert.equal(when({ messages: located }), false);
  // The demo's own tool with text after it in the same step: complete by the stock rule, but not
  // answered here, so no request (the stock rule alone would send it again and again).
  const reply = [
    user,
    assistant([
      { type: 'step-start' },
      { type: 'tool-get_weather', toolCallId: 'c9', state: 'output-available', input: {}, output: 'sunny' },
      { type: 'text', text: 'Sunny.', state: 'done' },
    ]),
  ];
  assert.equal(continueAfterAnswers(new Set(['c9']))({ messages: reply }), true, 'the stock rule says complete');
  assert.equal(continueAfterAnswers(new Set())({ messages: reply }), false);
  // An approved tool that ran, with its text after it: done, nothing to send.
  const done = [
    user,
    assistant([
      { type: 'step-start' },
      { ...deleteFile('output-available', { id: 'approval_call_1', approved: true }), output: { deleted: 'notes.txt' } },
      { type: 'text', text: 'Deleted notes.txt', state: 'done' },
    ]),
  ];
  assert.equal(continueAfterAnswers(new Set(['approval_call_1']))({ messages: done }), false);
});

test('get_location: the position, or Paris when the browser cannot or will not tell', async () => {
  const at = (lat: number, lon: number) => ({
    getCurrentPosition: (ok: PositionCallback) => ok({ coords: { latitude: lat, longitude: lon } } as GeolocationPosition),
  });
  assert.equal(await locate(at(48.85661, 2.35222)), '48.8566, 2.3522');
  assert.equal(await locate(undefined), FALLBACK_PLACE);
  const refused = { getCurrentPosition: (_: PositionCallback, no?: PositionErrorCallback | null) => no?.({} as GeolocationPositionError) };
  assert.equal(await locate(refused), FALLBACK_PLACE);
  const broken = {
    getCurrentPosition: () => {
      throw new Error('not allowed');
    },
  };
  assert.equal(await locate(broken), FALLBACK_PLACE);
  // A prompt nobody answers: the fallback once the time is up.
  assert.equal(await locate({ getCurrentPosition: () => {} }, 0), FALLBACK_PLACE);
  assert.equal(runFrontendTool('delete_file', {}), undefined, 'not a frontend tool');
  assert.deepEqual(
    FRONTEND_TOOLS.map((t) => t.name),
    ['get_location'],
  );
});

test('tool parts: the approval, its answer and its reason', () => {
  assert.deepEqual(toolOf(deleteFile('approval-requested', { id: 'a1', requestReason: 'Deletes a file' }))?.approval, {
    id: 'a1',
    requestReason: 'Deletes a file',
  });
  assert.deepEqual(toolOf(deleteFile('output-denied', { id: 'a1', approved: false, reason: 'no' }))?.approval, {
    id: 'a1',
    approved: false,
    reason: 'no',
  });
  assert.equal(toolOf({ type: 'tool-x', toolCallId: 'c', state: 'input-available' })?.approval, undefined);
});

type Ev = { type: string } & Record<string, unknown>;
const run = (builder: AgUiMessageBuilder, events: Ev[]) => {
  for (const e of events) builder.apply(e);
  return builder;
};

test('AG-UI builder: a continuation run adds to the message it continues and settles its calls', () => {
  const waiting = assistant([
    { type: 'step-start' },
    { type: 'tool-get_location', toolCallId: 'call_2', state: 'output-available', input: {}, output: 'Paris' },
    deleteFile('approval-responded', { id: 'approval_call_1', approved: true }),
  ]);
  const b = run(new AgUiMessageBuilder('fallback', waiting), [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r2' },
    { type: 'TOOL_CALL_RESULT', messageId: 'tr1', toolCallId: 'call_1', content: '{"deleted":"notes.txt"}' },
    { type: 'TEXT_MESSAGE_START', messageId: 'other', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'other', delta: 'Deleted notes.txt' },
    { type: 'TEXT_MESSAGE_END', messageId: 'other' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r2' },
  ]);
  assert.equal(b.id, 'a1', 'the continued message keeps its id');
  const parts = b.message.parts as unknown as Ev[];
  assert.deepEqual(
    parts.map((p) => `${p.type}${p.state ? `:${p.state}` : ''}`),
    ['step-start', 'tool-get_location:output-available', 'tool-delete_file:output-available', 'step-start', 'text:done'],
  );
  // Content without Switchboard's JSON flag stays text (as the AG-UI reader reads it).
  assert.equal(parts[2].output, '{"deleted":"notes.txt"}');
  assert.equal(b.waiting, false);
});

test('AG-UI builder: a run that leaves get_location to the client says so', () => {
  const b = run(new AgUiMessageBuilder('fallback'), [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r1' },
    { type: 'TOOL_CALL_START', toolCallId: 'call_2', toolCallName: 'get_location' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'call_2', delta: '{}' },
    { type: 'TOOL_CALL_END', toolCallId: 'call_2' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r1' },
  ]);
  assert.deepEqual(b.pendingFrontendCalls, [{ toolCallId: 'call_2', toolName: 'get_location', input: {} }]);
  assert.equal(b.waiting, true);
  assert.equal(b.waitingForApproval, false);
});

test('AG-UI conversation: tool calls, and a result for each settled one', () => {
  const messages = [
    user,
    assistant([
      { type: 'tool-get_location', toolCallId: 'call_2', state: 'output-available', input: {}, output: 'Paris' },
      { type: 'tool-lookup', toolCallId: 'call_3', state: 'output-available', input: { q: 1 }, output: { a: 1 } },
      { type: 'tool-fail', toolCallId: 'call_4', state: 'output-error', input: {}, errorText: 'boom' },
      deleteFile('approval-requested', { id: 'approval_call_1' }),
      { type: 'text', text: 'Working.' },
    ]),
  ];
  assert.deepEqual(toAgUiMessages(messages), [
    { id: 'u1', role: 'user', content: 'go' },
    {
      id: 'a1',
      role: 'assistant',
      content: 'Working.',
      toolCalls: [
        { id: 'call_2', type: 'function', function: { name: 'get_location', arguments: '{}' } },
        { id: 'call_3', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
        { id: 'call_4', type: 'function', function: { name: 'fail', arguments: '{}' } },
        { id: 'call_1', type: 'function', function: { name: 'delete_file', arguments: '{"path":"notes.txt"}' } },
      ],
    },
    { id: 'a1:call_2', role: 'tool', toolCallId: 'call_2', content: 'Paris' },
    { id: 'a1:call_3', role: 'tool', toolCallId: 'call_3', content: '{"a":1}' },
    { id: 'a1:call_4', role: 'tool', toolCallId: 'call_4', content: '', error: 'boom' },
  ]);
});
