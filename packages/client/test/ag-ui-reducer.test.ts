/**
 * createAgUiReducer against the official apply step of `@ag-ui/client` 1.x:
 * - the recorded AG-UI traces (grouped by journey) and our encoder's output for every Anthropic
 *   capture, through the client's whole pipeline (`runAgUi`: HttpAgent → enforce → chunks → verify →
 *   defaultApplyEvents): the reducer fed the same events ends with the same messages and state;
 * - random event sequences (unknown ids, reused ids, activity collisions, snapshots, state patches,
 *   metadata everywhere) straight through `defaultApplyEvents`, bypassing the verifier: same result;
 * - linear: the string work for 80,000 one-character text deltas is counted, not timed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultApplyEvents } from '@ag-ui/client';
import type { BaseEvent, Message, RunAgentInput } from '@ag-ui/core';
import { type AgUiEventLike, type AgUiMessageLike, createAgUiEncoder, createAgUiReducer } from '@switchboard/core';
import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { runAgUi } from '../../../test/support/ag-ui-oracle.ts';
import { ANTHROPIC_CAPTURES, agUiJourneys, agUiSse, convertCapture, quietly } from './helpers.ts';

describe('AG-UI reducer equals the official pipeline', () => {
  for (const { name, events } of agUiJourneys()) {
    test(`recorded trace ${name}`, async () => {
      const run = await runAgUi(agUiSse(events));
      assert.equal(run.error, undefined, String(run.error));
      const warnings: string[] = [];
      const reducer = createAgUiReducer({ warn: (w) => warnings.push(w) }).applyAll(events as AgUiEventLike[]);
      assert.deepEqual(reducer.messages, run.messages);
      assert.deepEqual(reducer.state, run.state);
      assert.deepEqual(warnings, []);
      // The same on the events the client's subscribers saw (after enforce / chunks / verify).
      assert.deepEqual(createAgUiReducer().applyAll(run.events as unknown as AgUiEventLike[]).messages, run.messages);
    });
  }

  test('our encoder, every Anthropic capture, with history and a MESSAGES_SNAPSHOT', async () => {
    const history = [{ id: 'u1', role: 'user', content: 'What is the weather?' }];
    for (const name of ANTHROPIC_CAPTURES) {
      for (const options of [{}, { messagesSnapshot: true, history }]) {
        const events = convertCapture(name, createAgUiEncoder(options));
        const initialMessages = 'history' in options ? (history as Message[]) : [];
        const run = await runAgUi(agUiSse(events), { initialMessages });
        assert.equal(run.error, undefined, `${name}: ${String(run.error)}`);
        const reducer = createAgUiReducer({ messages: initialMessages as AgUiMessageLike[] }).applyAll(events as AgUiEventLike[]);
        assert.deepEqual(reducer.messages, run.messages, name);
        assert.deepEqual(reducer.state, run.state, name);
      }
    }
  });
});

/** The official apply step alone: defaultApplyEvents with no subscribers, as the agent runs it. */
async function officialApply(initialMessages: AgUiMessageLike[], initialState: unknown, events: AgUiEventLike[]) {
  const agent = { messages: structuredClone(initialMessages), state: structuredClone(initialState), pendingInterrupts: [] };
  const input = {
    threadId: 'thread',
    runId: 'run',
    state: structuredClone(initialState),
    messages: [],
    tools: [],
    context: [],
    forwardedProps: {},
  } as unknown as RunAgentInput;
  const mutations = await quietly(() =>
    lastValueFrom(defaultApplyEvents(input, from(structuredClone(events) as unknown as BaseEvent[]), agent as never, []).pipe(toArray())),
  );
  let messages: unknown = agent.messages;
  let state: unknown = initialState;
  for (const m of mutations) {
    if (m.messages) messages = m.messages;
    if (m.state !== undefined) state = m.state;
  }
  return { messages, state };
}

const ids = fc.constantFrom('m1', 'm2', 'm3', 't1');
const toolIds = fc.constantFrom('t1', 't2', 't3');
const metadata = fc.option(fc.dictionary(fc.constantFrom('a', 'b', 'usage'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), {
  nil: undefined,
});
const subagent = fc.option(fc.constantFrom('sa', null), { nil: undefined });
const smallJson = fc.jsonValue({ maxDepth: 2 });
const pointer = fc.constantFrom('', '/a', '/a/b', '/a/0', '/a/-', '/a/1', '/b', '/b/0', '/b/-', '/c', '/a/x~1y', '/b/01', '/todos');
const patchOp = fc.record(
  {
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'),
    path: pointer,
    from: pointer.filter((p) => p !== ''),
    value: smallJson,
  },
  { requiredKeys: ['op', 'path'] },
);
const stateValue = fc.oneof(
  fc.record(
    { a: fc.oneof(fc.record({ b: smallJson }), fc.array(smallJson, { maxLength: 3 })), b: fc.array(smallJson, { maxLength: 3 }) },
    { requiredKeys: [] },
  ),
  smallJson,
);
const toolCall = fc.record({
  id: toolIds,
  type: fc.constant('function'),
  function: fc.record({ name: fc.constantFrom('f', 'g'), arguments: fc.string({ maxLength: 4 }) }),
});
const message: fc.Arbitrary<AgUiMessageLike> = fc.oneof(
  fc.record({
    id: ids,
    role: fc.constantFrom('user', 'system', 'developer'),
    content: fc.oneof(fc.string({ maxLength: 4 }), fc.constant([{ type: 'text', text: 'x' }])),
  }),
  fc.record(
    {
      id: ids,
      role: fc.constant('assistant'),
      content: fc.string({ maxLength: 4 }),
      toolCalls: fc.array(toolCall, { maxLength: 2 }),
      subagentRunId: subagent,
    },
    { requiredKeys: ['id', 'role'] },
  ),
  fc.record({ id: ids, role: fc.constant('reasoning'), content: fc.string({ maxLength: 4 }) }),
  fc.record({ id: ids, role: fc.constant('tool'), content: fc.string({ maxLength: 4 }), toolCallId: toolIds }),
  fc.record({ id: ids, role: fc.constant('activity'), activityType: fc.constantFrom('x', 'y'), content: fc.record({ n: fc.integer() }) }),
) as fc.Arbitrary<AgUiMessageLike>;

const event: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record(
    {
      type: fc.constant('TEXT_MESSAGE_START'),
      messageId: ids,
      role: fc.constantFrom('assistant', 'user', 'system', 'developer'),
      name: fc.constantFrom('n'),
      subagentRunId: subagent,
      metadata,
    },
    { requiredKeys: ['type', 'messageId'] },
  ),
  fc.record(
    { type: fc.constant('TEXT_MESSAGE_CONTENT'), messageId: ids, delta: fc.string({ minLength: 1, maxLength: 3 }), metadata },
    { requiredKeys: ['type', 'messageId', 'delta'] },
  ),
  fc.record({ type: fc.constant('TEXT_MESSAGE_END'), messageId: ids, metadata }, { requiredKeys: ['type', 'messageId'] }),
  fc.record(
    { type: fc.constant('REASONING_MESSAGE_START'), messageId: ids, role: fc.constant('reasoning'), subagentRunId: subagent, metadata },
    { requiredKeys: ['type', 'messageId', 'role'] },
  ),
  fc.record(
    { type: fc.constant('REASONING_MESSAGE_CONTENT'), messageId: ids, delta: fc.string({ minLength: 1, maxLength: 3 }), metadata },
    { requiredKeys: ['type', 'messageId', 'delta'] },
  ),
  fc.record({ type: fc.constant('REASONING_MESSAGE_END'), messageId: ids, metadata }, { requiredKeys: ['type', 'messageId'] }),
  fc.record(
    {
      type: fc.constant('TOOL_CALL_START'),
      toolCallId: toolIds,
      toolCallName: fc.constantFrom('f', 'g'),
      parentMessageId: ids,
      subagentRunId: subagent,
      metadata,
    },
    { requiredKeys: ['type', 'toolCallId', 'toolCallName'] },
  ),
  fc.record(
    { type: fc.constant('TOOL_CALL_ARGS'), toolCallId: toolIds, delta: fc.string({ minLength: 1, maxLength: 3 }), metadata },
    { requiredKeys: ['type', 'toolCallId', 'delta'] },
  ),
  fc.record({ type: fc.constant('TOOL_CALL_END'), toolCallId: toolIds, metadata }, { requiredKeys: ['type', 'toolCallId'] }),
  fc.record(
    {
      type: fc.constant('TOOL_CALL_RESULT'),
      messageId: fc.constantFrom('r1', 'r2', 'm1'),
      toolCallId: toolIds,
      content: fc.oneof(fc.string({ maxLength: 4 }), fc.constant([{ type: 'text', text: 'y' }])),
      role: fc.constant('tool'),
      subagentRunId: subagent,
      metadata,
    },
    { requiredKeys: ['type', 'messageId', 'toolCallId', 'content'] },
  ),
  fc.record({ type: fc.constant('STATE_SNAPSHOT'), snapshot: stateValue }),
  fc.record({ type: fc.constant('STATE_DELTA'), delta: fc.array(patchOp, { maxLength: 3 }) }),
  fc.record(
    {
      type: fc.constant('MESSAGES_SNAPSHOT'),
      messages: fc.array(message, { maxLength: 4 }),
      metadata: fc.option(
        fc.constantFrom(
          { '@ag-ui/client': { authoritativeActivityTypes: null } },
          { '@ag-ui/client': { authoritativeActivityTypes: ['x'] } },
        ),
        {
          nil: undefined,
        },
      ),
    },
    { requiredKeys: ['type', 'messages'] },
  ),
  fc.record(
    {
      type: fc.constant('ACTIVITY_SNAPSHOT'),
      messageId: ids,
      activityType: fc.constantFrom('x', 'y'),
      content: fc.record({ n: fc.integer() }),
      replace: fc.boolean(),
      subagentRunId: subagent,
      metadata,
    },
    { requiredKeys: ['type', 'messageId', 'activityType', 'content'] },
  ),
  fc.record({
    type: fc.constant('ACTIVITY_DELTA'),
    messageId: ids,
    activityType: fc.constantFrom('x', 'y'),
    patch: fc.array(
      fc.record({ op: fc.constantFrom('replace', 'add', 'remove'), path: fc.constantFrom('/n', '/m'), value: fc.integer() }),
      { maxLength: 2 },
    ),
  }),
  fc.record({
    type: fc.constant('REASONING_ENCRYPTED_VALUE'),
    subtype: fc.constantFrom('message', 'tool-call'),
    entityId: fc.oneof(ids, toolIds),
    encryptedValue: fc.constantFrom('e1', 'e2'),
  }),
  fc.record(
    {
      type: fc.constant('RUN_STARTED'),
      threadId: fc.constant('th'),
      runId: fc.constant('r'),
      input: fc.record({ messages: fc.array(message, { maxLength: 2 }) }),
    },
    { requiredKeys: ['type', 'threadId', 'runId'] },
  ),
  fc.record({
    type: fc.constantFrom('RUN_FINISHED', 'STEP_STARTED', 'STEP_FINISHED', 'CUSTOM', 'RAW', 'REASONING_START', 'REASONING_END'),
    threadId: fc.constant('th'),
    runId: fc.constant('r'),
  }),
);

describe('AG-UI reducer equals defaultApplyEvents on random event sequences', () => {
  test('messages and state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { maxLength: 3 }),
        stateValue,
        fc.array(event, { maxLength: 25 }),
        async (initial, initialState, rawEvents) => {
          // JSON round trip: events and messages are JSON on the wire (drops undefined-valued keys).
          const events = JSON.parse(JSON.stringify(rawEvents)) as AgUiEventLike[];
          const messages = JSON.parse(JSON.stringify(initial)) as AgUiMessageLike[];
          const state = JSON.parse(JSON.stringify(initialState ?? null));
          const official = await officialApply(messages, state, events);
          const reducer = createAgUiReducer({ messages, state, warn: () => {} });
          // Read the messages part-way too: snapshots must not disturb the result.
          events.forEach((e, i) => {
            reducer.apply(e);
            if (i % 3 === 0) void reducer.messages;
          });
          assert.deepEqual(reducer.messages, official.messages);
          assert.deepEqual(reducer.state, official.state);
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
  });

  test('CHUNK events must be expanded first, as in the official step', () => {
    assert.throws(() => createAgUiReducer().apply({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'x' }), /must be transformed/);
  });
});

describe('AG-UI reducer is linear', () => {
  function textRun(n: number): AgUiEventLike[] {
    const events: AgUiEventLike[] = [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
    ];
    for (let i = 0; i < n; i++) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'x' });
    events.push({ type: 'TEXT_MESSAGE_END', messageId: 'm' }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' });
    return events;
  }

  test('80,000 one-character deltas: every character joined once, even when the messages are read every 100 events', (t) => {
    for (const n of [20_000, 80_000]) {
      const started = performance.now();
      const reducer = createAgUiReducer();
      textRun(n).forEach((e, i) => {
        reducer.apply(e);
        if (i % 100 === 0) void reducer.messages;
      });
      assert.equal(reducer.messages[0].content, 'x'.repeat(n));
      // String work is proportional to the stream (a quadratic step would join ~n²/2 characters).
      assert.ok(reducer.work.joinedChars <= n, `${reducer.work.joinedChars} characters joined for ${n} deltas`);
      t.diagnostic(
        `${n} AG-UI text deltas applied and read back: ${(performance.now() - started).toFixed(1)} ms (informative, not asserted)`,
      );
    }
  });

  test('reading the messages returns the same array until something changes; unchanged messages keep their identity', () => {
    const reducer = createAgUiReducer({ messages: [{ id: 'u', role: 'user', content: 'hi' }] });
    const a = reducer.messages;
    assert.equal(reducer.messages, a);
    reducer.apply({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' });
    reducer.apply({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'x' });
    const b = reducer.messages;
    assert.notEqual(b, a);
    assert.equal(b[0], a[0]);
    reducer.apply({ type: 'STATE_SNAPSHOT', snapshot: { a: { b: 1 }, c: [1, 2] } });
    const s1 = reducer.state as { a: object; c: number[] };
    reducer.apply({ type: 'STATE_DELTA', delta: [{ op: 'add', path: '/c/-', value: 3 }] });
    const s2 = reducer.state as { a: object; c: number[] };
    assert.notEqual(s2, s1);
    assert.equal(s2.a, s1.a, 'an untouched branch of the state is shared');
    assert.deepEqual(s1.c, [1, 2], 'the previous state is not modified');
    assert.deepEqual(s2.c, [1, 2, 3]);
  });
});
