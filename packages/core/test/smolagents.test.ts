/**
 * smolagents decoder: `agent.run(task, stream=True)` events as JSON lines.
 *
 * The captures in fixtures/smolagents/ were recorded from real smolagents agents with a scripted model
 * (see the README there). The oracle is the capture itself: the complete steps smolagents yields
 * (PlanningStep / ActionStep / FinalAnswerStep) say what the streamed parts before them add up to.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { assembleChunks, assembleUIMessage, parseAiSdkSse, summarizeMessage } from '../../../test/support/ai-sdk-oracle.ts';
import { type CanonicalEvent, createAiSdkEncoder, framed, pipe, sseFramer } from '../src/index.ts';
import { detectClaudeAgentSdk } from '../src/inputs/claude-agent-sdk.ts';
import { createSmolagentsDecoder, detectSmolagents } from '../src/inputs/smolagents.ts';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, ofType } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const DIR = new URL('./fixtures/smolagents/', import.meta.url).pathname;
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON captures, read field by field
type Msg = Record<string, any>;

const read = (name: string) => readFileSync(DIR + name);
const lines = (name: string): Msg[] =>
  read(name)
    .toString()
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

const decode = (chunks: (string | Uint8Array)[]): CanonicalEvent[] => decodeChunks(chunks, 'smolagents');

const decodeLines = (values: unknown[]) => decode([values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n')]);

function toAiSdk(chunks: (string | Uint8Array)[]): string {
  const m = pipe(pipe(framed(createSmolagentsDecoder({ runId: 'run', now: () => 0 })), createAiSdkEncoder()), sseFramer('ai-sdk'));
  const out: string[] = [];
  for (const c of chunks) out.push(...m.push(c));
  out.push(...m.end());
  return out.join('');
}

/** Per step (in order): what the capture says it contains. */
function expectedSteps(msgs: Msg[]) {
  const steps: Msg[] = [];
  let deltas = '';
  const done = new Set<number>();
  for (const m of msgs) {
    if (m.type === 'ChatMessageStreamDelta') deltas += m.content ?? '';
    else if (m.type === 'PlanningStep') {
      steps.push({ kind: 'planning', thinking: deltas || m.model_output_message.content, usage: m.token_usage, timing: m.timing });
      deltas = '';
    } else if (m.type === 'ActionStep' && !done.has(m.step_number)) {
      done.add(m.step_number);
      steps.push({
        kind: 'action',
        number: m.step_number,
        thinking: deltas || m.model_output || '',
        usage: m.token_usage,
        timing: m.timing,
      });
      deltas = '';
    } else if (m.type === 'FinalAnswerStep') steps.push({ kind: 'final-answer', thinking: '' });
  }
  return steps;
}

/** Per step (in order): what our events contain. */
function ourSteps(events: CanonicalEvent[]) {
  const steps: Msg[] = [];
  let cur: Msg | undefined;
  for (const e of events) {
    if (e.type === 'step-start') {
      cur = { kind: e.kind, thinking: '' };
      if (e.number !== undefined) cur.number = e.number;
      steps.push(cur);
    } else if (e.type === 'reasoning-delta' && cur) cur.thinking += e.delta;
    else if (e.type === 'step-finish' && cur) {
      if (e.usage) cur.usage = e.usage.raw;
      if (e.durationMs !== undefined) cur.durationMs = e.durationMs;
    }
  }
  return steps;
}

/** Tool calls as smolagents reports them: ToolCall events (CodeAgent's code string as `{code}`). */
function expectedCalls(msgs: Msg[]) {
  return msgs
    .filter((m) => m.type === 'ToolCall')
    .map((m) => ({ id: m.id, name: m.name, input: m.name === 'python_interpreter' ? { code: m.arguments } : m.arguments }));
}

describe('smolagents decoder: recorded captures', () => {
  for (const name of FIXTURES) {
    test(`${name}: a valid run whose steps, reasoning, tool calls and outputs match the capture`, () => {
      const msgs = lines(name);
      const events = decode([read(name)]);
      assert.deepEqual(validate(events).issues, []);
      assert.equal(events[0]?.type === 'run-start' && events[0].provider, 'smolagents');
      const finish = events.at(-1);
      assert.ok(finish?.type === 'run-finish');

      // Steps: kind, number, the reasoning text (streamed or whole, never both), usage and duration.
      const expected = expectedSteps(msgs);
      const ours = ourSteps(events);
      assert.deepEqual(
        ours.map(({ kind, number, thinking }) => ({ kind, number, thinking })),
        expected.map(({ kind, number, thinking }) => ({ kind, number, thinking })),
      );
      ours.forEach((s, i) => {
        const x = expected[i] as Msg;
        if (x.usage) assert.deepEqual(s.usage, x.usage, `usage of step ${i}`);
        if (x.timing) assert.equal(s.durationMs, Math.round(x.timing.duration * 1000), `duration of step ${i}`);
      });

      // Tool calls (id, name, parsed input).
      assert.deepEqual(
        ofType(events, 'tool-input-end').map((e) => ({ id: e.toolCallId, name: e.toolName, input: e.input })),
        expectedCalls(msgs),
      );
      // Outputs: ToolOutput events, else the step's observations; errors with their smolagents type.
      const results = events.filter((e) => e.type === 'tool-output' || e.type === 'tool-error');
      assert.equal(results.length, expectedCalls(msgs).length, 'one result per call');
      for (const m of msgs.filter((x) => x.type === 'ToolOutput')) {
        const out = ofType(events, 'tool-output').find((e) => e.toolCallId === m.id);
        assert.deepEqual(out?.output, m.output);
      }
      let lastCall: string | undefined;
      for (const m of msgs) {
        if (m.type === 'ToolCall') lastCall = m.id;
        if (m.type !== 'ActionStep' || !m.error || lastCall === undefined) continue;
        // The failed call (ToolCallingAgent leaves the failed step's tool_calls empty: the ToolCall before it).
        const err = ofType(events, 'tool-error').find((e) => e.toolCallId === lastCall);
        assert.equal(err?.error, m.error.message);
        assert.deepEqual(err?.providerMetadata?.smolagents?.error, m.error);
        lastCall = undefined;
      }

      // The final answer is the message text; the run's usage is the sum of the steps'.
      const answer = msgs.find((m) => m.type === 'FinalAnswerStep')?.output;
      const text = ofType(events, 'text-delta')
        .map((e) => e.delta)
        .join('');
      assert.equal(text, typeof answer === 'object' ? answer.content : String(answer));
      const sum = (k: string) =>
        msgs
          .filter((m) => (m.type === 'ActionStep' || m.type === 'PlanningStep') && m.token_usage)
          .reduce((n, m) => n + m.token_usage[k], 0);
      const repeated =
        msgs.filter((m) => m.type === 'ActionStep').length >
        new Set(msgs.filter((m) => m.type === 'ActionStep').map((m) => m.step_number)).size;
      const last = msgs.filter((m) => m.type === 'ActionStep').at(-1) as Msg;
      const sumOnce = (k: string) => sum(k) - (repeated ? last.token_usage[k] : 0);
      assert.equal(finish.usage?.inputTokens, sumOnce('input_tokens'));
      assert.equal(finish.usage?.outputTokens, sumOnce('output_tokens'));
    });
  }

  test('code-agent-planning: initial and updated plans, an execution error, a structured final answer with sources', () => {
    const msgs = lines('code-agent-planning.jsonl');
    const events = decode([read('code-agent-planning.jsonl')]);
    const starts = ofType(events, 'step-start');
    assert.deepEqual(
      starts.map((e) => [e.stepId, e.kind, e.name ?? e.number]),
      [
        ['planning-1', 'planning', 'initial'],
        ['step-1', 'action', 1],
        ['step-2', 'action', 2],
        ['planning-2', 'planning', 'update'],
        ['step-3', 'action', 3],
        ['final-answer', 'final-answer', undefined],
      ],
    );
    // The plan is the model's plan (not the "Here are the facts I know…" wrapper, which is kept too).
    const planFinish = ofType(events, 'step-finish')[0];
    assert.equal(planFinish?.providerMetadata?.smolagents?.plan, msgs[0]?.plan);
    assert.equal(planFinish?.providerMetadata?.smolagents?.planning_type, 'initial');
    // Step 2 failed: the python call is a tool-error with the error type, the step finishes with error.
    const failed = ofType(events, 'tool-error')[0];
    assert.equal(failed?.toolCallId, 'call_3');
    assert.equal((failed?.providerMetadata?.smolagents?.error as Msg | undefined)?.type, 'AgentExecutionError');
    assert.equal(ofType(events, 'step-finish')[2]?.finishReason, 'error');
    // CodeAgent: the code is the tool input, the execution logs its output.
    const out = ofType(events, 'tool-output')[0];
    assert.match(out?.output as string, /^Execution logs:\n## Search Results/);
    // The structured answer: content as text, title and sources in providerMetadata, sources as events.
    const start = ofType(events, 'text-start')[0];
    const answer = msgs.at(-1)?.output;
    assert.deepEqual(start?.providerMetadata?.smolagents, { title: answer.title, sources: answer.sources, structured: true });
    assert.deepEqual(
      ofType(events, 'source').map((e) => [e.kind, e.url]),
      answer.sources.map((u: string) => ['url', u]),
    );
    const finish = events.at(-1);
    assert.equal(finish?.type === 'run-finish' && finish.finishReason, 'stop');
  });

  test('code-agent-streaming: deltas stream into the step, the complete step does not repeat them', () => {
    const msgs = lines('code-agent-streaming.jsonl');
    const events = decode([read('code-agent-streaming.jsonl')]);
    // The run starts with deltas: the first line ("## 1. Facts survey") tells a plan from an action.
    assert.deepEqual(
      ofType(events, 'step-start').map((e) => e.kind),
      ['planning', 'action', 'action', 'final-answer'],
    );
    const withText = msgs.filter((m) => m.type === 'ChatMessageStreamDelta' && m.content);
    assert.equal(ofType(events, 'reasoning-delta').length, withText.length);
    // CodeAgent appends the closing code tag the model stopped at: that model_output is kept, not shown twice.
    const step1 = ofType(events, 'step-finish')[1];
    assert.match(step1?.providerMetadata?.smolagents?.model_output as string, /<\/code>$/);
    // Each delta's token usage is an increment.
    const increments = ofType(events, 'usage');
    assert.deepEqual(
      increments.map((e) => [e.scope, e.usage.outputTokens]),
      msgs.filter((m) => m.type === 'ChatMessageStreamDelta' && m.token_usage).map((m) => ['increment', m.token_usage.output_tokens]),
    );
  });

  test('tool-calling-streaming: streamed tool-call arguments, completed by the ToolCall', () => {
    const events = decode([read('tool-calling-streaming.jsonl')]);
    const deltas = ofType(events, 'tool-input-delta').filter((e) => e.toolCallId === 'call_5Xq2mZt8Rk1Vb3Nf');
    assert.equal(deltas.map((e) => e.delta).join(''), '{"query": "Rust 1.0 release date"}');
    assert.equal(ofType(events, 'tool-input-start').length, 2, 'each call starts once');
    const final = ofType(events, 'tool-output').find((e) => e.toolName === 'final_answer');
    assert.equal(final?.providerMetadata?.smolagents?.is_final_answer, true);
  });

  test('tool-calling-parallel: two calls in one step, a failing tool is a tool-error', () => {
    const events = decode([read('tool-calling-parallel.jsonl')]);
    const first = events.slice(
      0,
      events.findIndex((e) => e.type === 'step-finish'),
    );
    assert.equal(ofType(first, 'tool-output').length, 2);
    const failed = ofType(events, 'tool-error')[0];
    assert.equal((failed?.providerMetadata?.smolagents?.error as Msg | undefined)?.type, 'AgentToolExecutionError');
  });

  test('code-agent-max-steps: the repeated last step is kept raw, the run finishes with length', () => {
    const events = decode([read('code-agent-max-steps.jsonl')]);
    const raw = ofType(events, 'raw');
    assert.equal(raw.length, 1);
    assert.match(raw[0]?.reason ?? '', /max_steps/);
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    assert.deepEqual([finish.finishReason, finish.rawFinishReason], ['length', 'max_steps']);
  });

  test('every line of every capture is recognised by detectSmolagents; other formats are not', () => {
    for (const name of FIXTURES) for (const m of lines(name)) assert.ok(detectSmolagents(m), `${name}: ${m.type}`);
    assert.equal(detectSmolagents({ type: 'message_start', message: {} }), false);
    assert.equal(detectSmolagents({ type: 'text', data: { content: 'x' } }), false);
    assert.equal(detectSmolagents({ type: 'ActionStep', data: { step_number: 1 } }), false);
    assert.equal(detectSmolagents({ type: 'assistant', message: {}, parent_tool_use_id: null }), false);
    for (const name of FIXTURES) for (const m of lines(name)) assert.equal(detectClaudeAgentSdk(m), false);
  });
});

describe('smolagents decoder: the AI SDK UI message stream of each capture', () => {
  for (const name of FIXTURES) {
    test(`${name}: accepted by the official client schema and assembled by readUIMessageStream`, async () => {
      const msgs = lines(name);
      const { message, finishReason } = await assembleChunks(await parseAiSdkSse(toAiSdk([read(name)])));
      const answer = msgs.at(-1)?.output;
      const summary = summarizeMessage(message);
      assert.equal(summary.text, typeof answer === 'object' ? answer.content : String(answer));
      assert.equal(finishReason, name.includes('max-steps') ? 'length' : 'stop');
      assert.deepEqual(
        summary.tools.map((t) => t.toolCallId),
        expectedCalls(msgs).map((c) => c.id),
      );
      for (const t of summary.tools) assert.ok(t.state === 'output-available' || t.state === 'output-error');
      for (const p of message.parts) if (p.type === 'reasoning') assert.equal((p.providerMetadata as Msg).switchboard.variant, 'thinking');
    });
  }

  test('code-agent-planning: plans and thoughts as reasoning, python tools, the answer with its sources', async () => {
    const m = await assembleUIMessage(toAiSdk([read('code-agent-planning.jsonl')]));
    assert.deepEqual(
      m.parts.map((p) => p.type).filter((t) => t !== 'step-start' && t !== 'data-usage'),
      [
        'reasoning',
        'tool-python_interpreter',
        'reasoning',
        'tool-python_interpreter',
        'reasoning',
        'reasoning',
        'tool-python_interpreter',
        'reasoning',
        'text',
        'source-url',
        'source-url',
      ],
    );
    assert.deepEqual(
      summarizeMessage(m).tools.map((t) => t.state),
      ['output-available', 'output-error', 'output-available'],
    );
  });
});

describe('smolagents decoder: chunk boundaries', () => {
  for (const name of ['code-agent-streaming.jsonl', 'tool-calling-streaming.jsonl']) {
    test(`${name}: the same bytes split at random points give identical events`, () => {
      const bytes = new Uint8Array(read(name));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 30, numRuns: 60 });
    });
  }
});

describe('smolagents decoder: lossless', () => {
  test('every field of every captured event is found in the canonical output', () => {
    // Structural: the top-level `type` (the event's class name) becomes the kind of step / part.
    for (const name of FIXTURES) {
      const events = decode([read(name)]);
      assert.deepEqual(missingLeaves(lines(name), events, { ignore: (path) => path === 'type' }), [], name);
    }
  });
});

describe('smolagents decoder: input shapes', () => {
  test('`step_type` instead of `type` (DSAgentRunMessage style: planning / action / final_answer) decodes the same', () => {
    const msgs = lines('code-agent-planning.jsonl');
    const STEP: Record<string, string> = { PlanningStep: 'planning', ActionStep: 'action', FinalAnswerStep: 'final_answer' };
    const restyled = msgs.map(({ type, ...rest }) => (STEP[type] ? { step_type: STEP[type], ...rest } : { step_type: type, ...rest }));
    const strip = (events: CanonicalEvent[]) => events.map((e) => (e.type === 'raw' ? { type: e.type } : e));
    assert.deepEqual(strip(decodeLines(restyled)), strip(decodeLines(msgs)));
  });

  test('an action that streams first (no planning) opens an action step; ToolCall in dict() form is accepted', () => {
    const events = decodeLines([
      { type: 'ChatMessageStreamDelta', content: 'Thought: I will compute it.\n', tool_calls: null, token_usage: null },
      { type: 'ChatMessageStreamDelta', content: '<code>\nfinal_answer(4)\n', tool_calls: null, token_usage: null },
      { type: 'ToolCall', id: 'call_1', type_: 'x', function: { name: 'python_interpreter', arguments: 'final_answer(4)' } },
      { type: 'ActionOutput', output: 4, is_final_answer: true },
      {
        type: 'ActionStep',
        step_number: 1,
        timing: { start_time: 1, end_time: 2.5, duration: 1.5 },
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'python_interpreter', arguments: 'final_answer(4)' } }],
        error: null,
        model_output: 'Thought: I will compute it.\n<code>\nfinal_answer(4)\n</code>',
        observations: 'Execution logs:\nLast output from code snippet:\n4',
        action_output: 4,
        token_usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        is_final_answer: true,
      },
      { type: 'FinalAnswerStep', output: 4 },
    ]);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      ofType(events, 'step-start').map((e) => e.kind),
      ['action', 'final-answer'],
    );
    assert.deepEqual(ofType(events, 'tool-input-end')[0]?.input, { code: 'final_answer(4)' });
    assert.equal(ofType(events, 'step-finish')[0]?.durationMs, 1500);
    assert.equal(ofType(events, 'text-delta')[0]?.delta, '4');
  });

  test('a final answer given as a JSON string is structured too (the original string is kept)', () => {
    const output = JSON.stringify({ title: 'T', content: 'Body', sources: [{ url: 'https://a.example', title: 'A' }, 'a book'] });
    const events = decodeLines([{ type: 'FinalAnswerStep', output }]);
    assert.equal(ofType(events, 'text-delta')[0]?.delta, 'Body');
    assert.equal(ofType(events, 'text-start')[0]?.providerMetadata?.smolagents?.output, output);
    assert.deepEqual(
      ofType(events, 'source').map((e) => [e.kind, e.url ?? e.title]),
      [
        ['url', 'https://a.example'],
        ['document', 'a book'],
      ],
    );
  });
});

describe('smolagents decoder: bad input never throws and keeps what came before', () => {
  const capture = lines('code-agent-streaming.jsonl');
  const reasoning = (events: CanonicalEvent[]) =>
    ofType(events, 'reasoning-delta')
      .map((e) => e.delta)
      .join('');

  test('a truncated stream: a fatal "truncated" error, open blocks closed, the run ends with error', () => {
    const events = decodeLines(capture.slice(0, 10));
    assert.deepEqual(validate(events).issues, []);
    const streamed = capture
      .slice(0, 10)
      .map((m) => m.content ?? '')
      .join('');
    assert.equal(reasoning(events), streamed);
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal], ['truncated', true]);
    assert.deepEqual(
      events.slice(-4).map((e) => e.type),
      ['error', 'reasoning-end', 'step-finish', 'run-finish'],
    );
  });

  test('a non-JSON line in the middle: a located error, decoding goes on', () => {
    const body = capture.map((m) => JSON.stringify(m));
    body.splice(5, 0, '{"type": "ChatMessageStreamDelta", "content": "cut');
    const events = decode([body.join('\n')]);
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal, err?.where?.line], ['invalid_json', false, 6]);
    assert.deepEqual(
      ourSteps(events).map((s) => s.thinking),
      expectedSteps(capture).map((s) => s.thinking),
    );
    assert.equal(events.at(-1)?.type === 'run-finish' && (events.at(-1) as Msg).finishReason, 'stop');
  });

  test('an unknown event type, a TaskStep: raw events, untouched and located', () => {
    const odd = { type: 'FutureStep', payload: { x: 1 } };
    const task = { type: 'TaskStep', task: 'Do it', task_images: null };
    const events = decodeLines([task, odd, { type: 'FinalAnswerStep', output: 'ok' }]);
    const raw = ofType(events, 'raw');
    assert.deepEqual(
      raw.map((e) => [e.event, e.where]),
      [
        [task, { line: 1 }],
        [odd, { line: 2 }],
      ],
    );
    assert.match(raw[1]?.reason ?? '', /unknown event type "FutureStep"/);
  });

  test('values of the wrong type: located errors', () => {
    const events = decodeLines([
      { type: 'ActionOutput', output: null, is_final_answer: false },
      42,
      { no: 'type' },
      { type: 'ChatMessageStreamDelta', content: 7, tool_calls: null, token_usage: null },
      { type: 'ChatMessageStreamDelta', content: null, tool_calls: ['x'], token_usage: null },
      { type: 'ActionStep', step_number: 'one', model_output: 'x', token_usage: null },
      { type: 'FinalAnswerStep', output: 'ok' },
    ]);
    assert.deepEqual(
      ofType(events, 'error').map((e) => e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'type', expected: 'string' },
        { line: 4, field: 'content', expected: 'string or null' },
        { line: 5, field: 'tool_calls[0]', expected: 'object' },
        { line: 6, field: 'step_number', expected: 'integer' },
      ],
    );
    assert.deepEqual(validate(events).issues, []);
    assert.equal(events.at(-1)?.type, 'run-finish');
  });

  test('parts of something never started: a ToolOutput without its ToolCall, a tool-call fragment without its first one', () => {
    const events = decodeLines([
      {
        type: 'ChatMessageStreamDelta',
        content: null,
        tool_calls: [{ index: 0, id: null, type: null, function: { arguments: '{"q": 1}', name: '', description: null } }],
        token_usage: null,
      },
      {
        type: 'ToolOutput',
        id: 'call_9',
        output: 'done',
        is_final_answer: false,
        observation: 'done',
        tool_call: { name: 'lookup', arguments: { q: 2 }, id: 'call_9' },
      },
      { type: 'FinalAnswerStep', output: 'ok' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    // The nameless fragment opens a call of its own (an id from the step, name "unknown"), nothing dropped.
    assert.deepEqual(
      ofType(events, 'tool-input-start').map((e) => [e.toolCallId, e.toolName]),
      [
        ['step-1:call0', 'unknown'],
        ['call_9', 'lookup'],
      ],
    );
    assert.deepEqual(
      ofType(events, 'tool-input-end').map((e) => [e.toolCallId, e.input]),
      [
        ['call_9', { q: 2 }],
        ['step-1:call0', { q: 1 }],
      ],
    );
    assert.deepEqual(ofType(events, 'tool-output')[0]?.output, 'done');
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(
      decode(['']).map((e) => e.type),
      ['run-start', 'error', 'run-finish'],
    );
  });
});
