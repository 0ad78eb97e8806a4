/**
 * The AG-UI encoder against the official AG-UI client (`@ag-ui/client` 1.x): for every capture we
 * can decode, every event passes `@ag-ui/core`'s schemas, our SSE framing is byte for byte what
 * `@ag-ui/encoder` writes, the official pipeline (`HttpAgent`: transport → enforce → chunks →
 * verify → apply) accepts the stream without a warning, and the messages it builds have the same
 * text, reasoning and tool calls as the official AI SDK client builds from our AI SDK output of the
 * same capture. The recorded AG-UI traces read back (AG-UI → canonical → AG-UI) into streams the
 * official client accepts and applies to the same assistant messages.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createConverter, createDecoder, framed, type Machine, pipe } from '../packages/core/src/index.ts';
import { type AgUiEncoderOptions, createAgUiEncoder } from '../packages/core/src/protocols/ag-ui/encoder.ts';
import { createAgUiDecoder } from '../packages/core/src/protocols/ag-ui/reader.ts';
import type { AgUiEvent } from '../packages/core/src/protocols/ag-ui/schema.ts';
import { validate } from '../packages/core/src/schema.ts';
import { officialSse, runAgUi, schemaIssues, summarizeAgUi } from './support/ag-ui-oracle.ts';
import { assembleUIMessage, summarizeMessage } from './support/ai-sdk-oracle.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

/**
 * Every capture an input decoder reads: the SDK-verified Anthropic bodies and every recorded
 * Anthropic capture. (`anthropic/*.aisdk-ref.sse` are AI SDK outputs, not Anthropic input: `auto`
 * reads them as an unrecognisable stream, an error-only run; both encoders must still agree on it.)
 */
const CAPTURES = [
  ...readdirSync(`${FIXTURES}anthropic`)
    .filter((f) => f.endsWith('.sse'))
    .map((f) => `anthropic/${f}`),
  ...readdirSync(`${FIXTURES}recorded/anthropic`).map((f) => `recorded/anthropic/${f}`),
];

function drain<I, O>(m: Machine<I, O>, inputs: I[]): O[] {
  const out: O[] = [];
  for (const i of inputs) out.push(...m.push(i));
  out.push(...m.end());
  return out;
}

function toAgUi(input: Uint8Array | string, options: AgUiEncoderOptions = {}): AgUiEvent[] {
  return drain(pipe(framed(createDecoder('auto', { runId: 'run', now: () => 0 })), createAgUiEncoder(options)), [input]);
}

/** Our SSE framing: what `sseFramer('ag-ui')` writes once the protocol is registered. */
function sse(events: readonly object[]): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
}

function toAiSdk(input: Uint8Array | string): string {
  return drain(createConverter({ from: 'auto', to: 'ai-sdk', runId: 'run', now: () => 0 }), [input]).join('');
}

/** The AI SDK summary in the shape of the AG-UI one. */
async function aiSdkSummary(input: Uint8Array) {
  const s = summarizeMessage(await assembleUIMessage(toAiSdk(input)));
  return {
    text: s.text,
    reasoning: s.reasoning,
    tools: s.tools.map((t) => ({ toolCallId: t.toolCallId, toolName: t.toolName, input: t.input })),
    outputs: s.tools.filter((t) => t.state === 'output-available' || t.state === 'output-error'),
  };
}

describe('AG-UI encoder: every capture through the official client, against the AI SDK path', () => {
  for (const name of CAPTURES) {
    test(name, async () => {
      const input = readFileSync(FIXTURES + name);
      const events = toAgUi(input);
      assert.deepEqual(schemaIssues(events), [], 'every event passes @ag-ui/core EventSchemas');
      const body = sse(events);
      assert.equal(body, officialSse(events), 'framing is EventEncoder.encodeSSE');
      const run = await runAgUi(body);
      assert.equal(run.error, undefined, `the official pipeline accepts the stream: ${String(run.error)}`);
      assert.deepEqual(run.warnings, [], 'nothing stripped or dropped by the client');

      const ours = summarizeAgUi(run.messages);
      const official = await aiSdkSummary(input);
      assert.equal(ours.text, official.text);
      assert.deepEqual(ours.reasoning, official.reasoning);
      assert.deepEqual(ours.tools, official.tools);
      // Tool results: a tool message per result, content = the output (JSON text unless a string) or the error text.
      for (const t of official.outputs) {
        // The AI SDK shows a tool input that is not JSON as an output-error part; AG-UI has no such
        // state: the text is the call's arguments and the reason rides on TOOL_CALL_END's metadata.
        const end = events.find((e) => e.type === 'TOOL_CALL_END' && e.toolCallId === t.toolCallId);
        if (
          t.state === 'output-error' &&
          end?.metadata?.switchboard &&
          (end.metadata.switchboard as { inputError?: string }).inputError === t.errorText
        )
          continue;
        const result = ours.results.find((r) => r.toolCallId === t.toolCallId);
        assert.ok(result, `a tool message for ${t.toolCallId}`);
        if (t.state === 'output-error') assert.equal(result.content, t.errorText);
        else assert.deepEqual(typeof t.output === 'string' ? result.content : JSON.parse(result.content as string), t.output);
      }
    });
  }
});

describe('AG-UI encoder: MESSAGES_SNAPSHOT equals what the client built from the stream', () => {
  for (const name of CAPTURES.filter((n) => !n.endsWith('.aisdk-ref.sse'))) {
    test(name, async () => {
      const input = readFileSync(FIXTURES + name);
      const withSnapshot = toAgUi(input, { messagesSnapshot: true });
      assert.deepEqual(schemaIssues(withSnapshot), []);
      const run = await runAgUi(sse(withSnapshot));
      assert.equal(run.error, undefined, String(run.error));
      assert.deepEqual(run.warnings, []);
      assert.equal(run.snapshots.length, 1);
      assert.deepEqual(run.snapshots[0].snapshot, run.snapshots[0].before);
      const without = await runAgUi(sse(toAgUi(input)));
      assert.deepEqual(run.messages, without.messages);
    });
  }

  test('history passed to the encoder is kept in front of the run', async () => {
    const history = [{ id: 'u1', role: 'user', content: 'What is the weather?' }];
    const events = toAgUi(readFileSync(`${FIXTURES}anthropic/text-basic.sse`), { messagesSnapshot: true, history });
    const run = await runAgUi(sse(events), { initialMessages: history as never });
    assert.equal(run.error, undefined);
    assert.deepEqual(run.snapshots[0].snapshot, run.snapshots[0].before);
    assert.equal(run.messages[0].id, 'u1');
  });
});

describe('AG-UI encoder: canonical features through the official client', () => {
  const T = { runId: 'r1', ts: 1_763_870_000_000 };
  let seq = 0;
  const ev = (e: Record<string, unknown>): CanonicalEvent => ({ ...T, seq: seq++, ...e }) as CanonicalEvent;

  function encode(events: CanonicalEvent[], options: AgUiEncoderOptions = {}): AgUiEvent[] {
    return drain(createAgUiEncoder(options), events);
  }

  test('reasoning variants, signatures, todos, state, subagents, sources and a whole tool input', async () => {
    seq = 0;
    const stream = [
      ev({ type: 'run-start', version: 1, messageId: 'm1', chatId: 'chat-1', provider: 'claude' }),
      ev({ type: 'reasoning-start', blockId: 'b1', variant: 'processing' }),
      ev({ type: 'reasoning-delta', blockId: 'b1', delta: 'Working' }),
      ev({ type: 'reasoning-end', blockId: 'b1' }),
      ev({ type: 'reasoning-start', blockId: 'b2', variant: 'thinking' }),
      ev({ type: 'reasoning-delta', blockId: 'b2', delta: 'Hmm.' }),
      ev({ type: 'reasoning-end', blockId: 'b2', providerMetadata: { anthropic: { signature: 'sig' } } }),
      ev({ type: 'todos', change: 'create', todos: [{ id: 't1', content: 'a', status: 'pending' }] }),
      ev({ type: 'todos', change: 'update', todos: [{ id: 't1', content: 'a', status: 'completed' }] }),
      ev({ type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }),
      ev({ type: 'tool-output', toolCallId: 'c1', toolName: 'search', output: { hits: 1 } }),
      ev({ type: 'subagent-start', subagentId: 'sa', name: 'researcher', task: 'dig', parentToolCallId: 'c1' }),
      ev({ type: 'text-start', blockId: 'b3', subagentId: 'sa' }),
      ev({ type: 'text-delta', blockId: 'b3', delta: 'Found it.', subagentId: 'sa' }),
      ev({ type: 'text-end', blockId: 'b3', subagentId: 'sa' }),
      ev({ type: 'subagent-finish', subagentId: 'sa', result: 'ok' }),
      ev({ type: 'tool-input-end', toolCallId: 'c2', toolName: 'fail', input: {} }),
      ev({ type: 'tool-error', toolCallId: 'c2', toolName: 'fail', error: 'nope' }),
      ev({ type: 'source', sourceId: 's1', kind: 'url', url: 'https://example.com' }),
      ev({ type: 'status', status: 'searching' }),
      ev({ type: 'text-start', blockId: 'b4' }),
      ev({ type: 'text-delta', blockId: 'b4', delta: 'Done.' }),
      ev({ type: 'text-end', blockId: 'b4' }),
      ev({ type: 'run-finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cacheReadTokens: 2 } }),
    ];
    const events = encode(stream);
    assert.deepEqual(schemaIssues(events), []);
    const run = await runAgUi(sse(events));
    assert.equal(run.error, undefined, String(run.error));
    assert.deepEqual(run.warnings, []);
    const reasoning = run.messages.filter((m) => m.role === 'reasoning');
    assert.deepEqual(
      reasoning.map((m) => [m.content, (m.metadata as { switchboard: { variant: string } }).switchboard.variant, m.encryptedValue]),
      [
        ['Working', 'processing', undefined],
        ['Hmm.', 'thinking', 'sig'],
      ],
    );
    assert.deepEqual(run.state, { todos: [{ id: 't1', content: 'a', status: 'completed' }] });
    const roles = run.messages.map((m) => `${m.role}${m.subagentRunId ? `@${m.subagentRunId}` : ''}`);
    assert.deepEqual(roles, ['reasoning', 'reasoning', 'assistant', 'tool', 'assistant@sa', 'assistant', 'tool', 'assistant']);
    const summary = summarizeAgUi(run.messages);
    assert.equal(summary.text, 'Found it.Done.');
    assert.deepEqual(summary.tools, [
      { toolCallId: 'c1', toolName: 'search', input: { q: 'x' } },
      { toolCallId: 'c2', toolName: 'fail', input: {} },
    ]);
    assert.deepEqual(summary.results, [
      { toolCallId: 'c1', content: '{"hits":1}' },
      { toolCallId: 'c2', content: 'nope' },
    ]);
    const finished = events.at(-1);
    assert.deepEqual(
      [finished?.type, finished?.threadId, finished?.outcome, finished?.usage],
      [
        'RUN_FINISHED',
        'chat-1',
        { type: 'success' },
        [{ provider: 'claude', inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 2 }],
      ],
    );
    // With a snapshot: it equals what the client built (reasoning, subagent and tool messages included).
    const snap = await runAgUi(sse(encode(stream, { messagesSnapshot: true })));
    assert.equal(snap.error, undefined, String(snap.error));
    assert.deepEqual(snap.snapshots[0].snapshot, snap.snapshots[0].before);
    assert.deepEqual(snap.messages, run.messages);
    const started = run.events.find((e) => e.type === 'SUBAGENT_STARTED') as unknown as Record<string, unknown>;
    assert.deepEqual([started.parentToolCallId, started.description], ['c1', 'dig']);
    assert.ok(run.events.some((e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === 'switchboard.source'));
  });

  test('a fatal error ends the run with RUN_ERROR, the text before it kept', async () => {
    seq = 0;
    const events = encode([
      ev({ type: 'run-start', version: 1, messageId: 'm1' }),
      ev({ type: 'text-start', blockId: 'b1' }),
      ev({ type: 'text-delta', blockId: 'b1', delta: 'Partial' }),
      ev({ type: 'error', code: 'overloaded_error', message: 'Overloaded', fatal: true }),
      ev({ type: 'text-end', blockId: 'b1' }),
      ev({ type: 'run-finish', finishReason: 'error' }),
    ]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'CUSTOM', 'TEXT_MESSAGE_END', 'RUN_ERROR'],
    );
    assert.deepEqual([events.at(-1)?.message, events.at(-1)?.code], ['Overloaded', 'overloaded_error']);
    const run = await runAgUi(sse(events));
    assert.equal(run.error, undefined);
    assert.equal(summarizeAgUi(run.messages).text, 'Partial');
  });

  test('an aborted run closes what is open and finishes with outcome cancelled', async () => {
    seq = 0;
    const events = encode([
      ev({ type: 'run-start', version: 1, messageId: 'm1' }),
      ev({ type: 'step-start', stepId: 's1', kind: 'model' }),
      ev({ type: 'text-start', blockId: 'b1' }),
      ev({ type: 'text-delta', blockId: 'b1', delta: 'Part' }),
      ev({ type: 'tool-input-start', toolCallId: 'c1', toolName: 't' }),
      ev({ type: 'tool-input-delta', toolCallId: 'c1', delta: '{"a":' }),
      ev({ type: 'run-abort', reason: 'client disconnected' }),
    ]);
    assert.deepEqual(events.at(-1)?.outcome, { type: 'cancelled' });
    const run = await runAgUi(sse(events));
    assert.equal(run.error, undefined, String(run.error));
    assert.equal(summarizeAgUi(run.messages).text, 'Part');
  });

  test('the same step name twice at once, parallel text blocks and an invalid patch stay acceptable', async () => {
    seq = 0;
    const events = encode([
      ev({ type: 'run-start', version: 1, messageId: 'm1' }),
      ev({ type: 'step-start', stepId: 's1', kind: 'action', name: 'search' }),
      ev({ type: 'step-start', stepId: 's2', kind: 'action', name: 'search' }),
      ev({ type: 'text-start', blockId: 'b1' }),
      ev({ type: 'text-start', blockId: 'b2' }),
      ev({ type: 'text-delta', blockId: 'b1', delta: 'one ' }),
      ev({ type: 'text-delta', blockId: 'b2', delta: 'two' }),
      ev({ type: 'text-end', blockId: 'b1' }),
      ev({ type: 'text-end', blockId: 'b2' }),
      ev({ type: 'state-delta', patch: [{ op: 'add', path: 'no-slash', value: 1 }] }),
      ev({ type: 'step-finish', stepId: 's2' }),
      ev({ type: 'step-finish', stepId: 's1' }),
      ev({ type: 'run-finish', finishReason: 'stop' }),
    ]);
    assert.deepEqual(schemaIssues(events), []);
    const run = await runAgUi(sse(events));
    assert.equal(run.error, undefined, String(run.error));
    assert.equal(summarizeAgUi(run.messages).text, 'one two');
    assert.deepEqual(
      events.filter((e) => e.type === 'STEP_STARTED').map((e) => e.stepName),
      ['search', 's2'],
    );
  });
});

describe('AG-UI reader: *_CHUNK streams read like the official client expands them', () => {
  test('text, tool and reasoning chunks', async () => {
    const chunks = [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r1', delta: 'Let me ' },
      { type: 'REASONING_MESSAGE_CHUNK', delta: 'see.' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'lo' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', toolCallName: 'lookup', parentMessageId: 'm1', delta: '{"q":' },
      { type: 'TOOL_CALL_CHUNK', delta: '"x"}' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm2', delta: 'Bye' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ];
    const theirs = await runAgUi(sse(chunks));
    assert.equal(theirs.error, undefined, String(theirs.error));
    const canonical = drain(framed(createAgUiDecoder({ runId: 'run', now: () => 0 })), [sse(chunks)]);
    assert.deepEqual(validate(canonical).issues, []);
    assert.ok(!canonical.some((e) => e.type === 'error'));
    const ours = await runAgUi(sse(drain(createAgUiEncoder(), canonical)));
    assert.equal(ours.error, undefined, String(ours.error));
    const a = summarizeAgUi(ours.messages);
    const b = summarizeAgUi(theirs.messages);
    assert.deepEqual(
      [a.text, a.reasoning, a.tools.map((t) => [t.toolName, t.input])],
      [b.text, b.reasoning, b.tools.map((t) => [t.toolName, t.input])],
    );
    assert.deepEqual([a.text, a.reasoning], ['HelloBye', ['Let me see.']]);
  });
});

/** The journeys of a recorded AG-UI trace, each in seq order. */
function journeys(file: string): Map<string, unknown[]> {
  const byJourney = new Map<string, { seq: number; event: unknown }[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const { journey, seq, event } = JSON.parse(line) as { journey: string; seq: number; event: unknown };
    if (!byJourney.has(journey)) byJourney.set(journey, []);
    byJourney.get(journey)?.push({ seq, event });
  }
  return new Map([...byJourney].map(([j, list]) => [j, list.sort((a, b) => a.seq - b.seq).map((l) => l.event)]));
}

describe('AG-UI reader: recorded AG-UI traces read back and re-encoded', () => {
  const dir = `${FIXTURES}recorded/ag-ui/`;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    for (const [journey, events] of journeys(dir + file)) {
      test(`${file} ${journey}`, async () => {
        const original = sse(events as object[]);
        const canonical = drain(framed(createAgUiDecoder({ runId: 'run', now: () => 0 })), [original]);
        assert.deepEqual(validate(canonical).issues, []);
        assert.ok(!canonical.some((e) => e.type === 'error'), 'no errors reading a valid trace');
        const reEncoded = drain(createAgUiEncoder(), canonical);
        assert.deepEqual(schemaIssues(reEncoded), []);
        const ours = await runAgUi(sse(reEncoded));
        assert.equal(ours.error, undefined, String(ours.error));
        assert.deepEqual(ours.warnings, []);
        // The original, replayed through the same client, builds the same assistant text and tool calls.
        const theirs = await runAgUi(original);
        assert.equal(theirs.error, undefined, String(theirs.error));
        const a = summarizeAgUi(ours.messages);
        const b = summarizeAgUi(theirs.messages);
        assert.equal(a.text, b.text);
        assert.deepEqual(
          a.tools.map((t) => [t.toolName, t.input]),
          b.tools.map((t) => [t.toolName, t.input]),
        );
      });
    }
  }
});
