/**
 * createMessageAccumulator and readStream:
 * - every Anthropic capture: the accumulated message has the text, reasoning and tool calls the
 *   official AI SDK client (`readUIMessageStream`) builds from our AI SDK output of the capture;
 * - readStream reads every protocol's output back (bytes split anywhere) into the same message;
 * - linear: 4,000 one-character tool-input deltas and 80,000 text deltas, with the message read after
 *   every event, do string work proportional to the stream (counted, not timed);
 * - snapshots are immutable and structurally shared; duplicates (a resumed stream) are ignored;
 *   live durations come from the client clock, final ones from the server's timestamps.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createSseEncoder, type Protocol } from '@switchboard/core';
import fc from 'fast-check';
import { assembleUIMessage, summarizeMessage } from '../../../test/support/ai-sdk-oracle.ts';
import { createMessageAccumulator, elapsedMs, type ReasoningPart, type ToolPart } from '../src/accumulator.ts';
import { readStream } from '../src/read.ts';
import { ANTHROPIC_CAPTURES, decodeCapture, drain } from './helpers.ts';

function summarize(events: CanonicalEvent[]) {
  const m = createMessageAccumulator().applyAll(events).message;
  return {
    text: m.content,
    reasoning: m.metadata.parts.filter((p) => p.type === 'reasoning').map((p) => p.text),
    tools: m.metadata.parts
      .filter((p): p is ToolPart => p.type === 'tool')
      .map((p) => {
        const t: Record<string, unknown> = { toolCallId: p.toolCallId, toolName: p.toolName, input: p.input, state: p.state };
        if (p.state === 'output-available') t.output = p.output;
        if (p.state === 'output-error') t.errorText = p.errorText;
        if (p.providerExecuted !== undefined) t.providerExecuted = p.providerExecuted;
        return t;
      }),
  };
}

function sse(events: CanonicalEvent[], protocol: Protocol): string {
  return drain(createSseEncoder(protocol), events).join('');
}

describe('accumulator: the same message as the official AI SDK client', () => {
  test('every Anthropic capture', async () => {
    for (const name of ANTHROPIC_CAPTURES) {
      const events = decodeCapture(name);
      const official = summarizeMessage(await assembleUIMessage(sse(events, 'ai-sdk')));
      const ours = summarize(events);
      assert.equal(ours.text, official.text, name);
      assert.deepEqual(ours.reasoning, official.reasoning, name);
      assert.deepEqual(JSON.parse(JSON.stringify(ours.tools)), official.tools, name);
    }
  });
});

/** Splits text into chunks at the given cut points (as bytes, so multi-byte characters split too). */
function chunked(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const p of points) {
    parts.push(bytes.subarray(at, p));
    at = p;
  }
  parts.push(bytes.subarray(at));
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('readStream: every protocol reads back into the same message', () => {
  for (const protocol of ['ai-sdk', 'ag-ui', 'ws', 'canonical'] as const) {
    test(`${protocol}: every Anthropic capture, bytes split anywhere`, async () => {
      for (const name of ANTHROPIC_CAPTURES) {
        const events = decodeCapture(name);
        const body = sse(events, protocol);
        const expected = summarize(events);
        await fc.assert(
          fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
            const read = await collect(readStream(chunked(body, cuts), protocol, { runId: 'run', now: () => 0 }));
            const got = summarize(read);
            assert.equal(got.text, expected.text);
            assert.deepEqual(got.reasoning, expected.reasoning);
            assert.deepEqual(
              got.tools.map((t) => [t.toolCallId, t.toolName, JSON.stringify(t.input)]),
              expected.tools.map((t) => [t.toolCallId, t.toolName, JSON.stringify(t.input)]),
            );
          }),
          { numRuns: 4 },
        );
      }
    });
  }

  test('a Response; a non-2xx Response throws with its status', async () => {
    const events = decodeCapture('anthropic/text-basic.sse');
    const ok = new Response(sse(events, 'ai-sdk'), { headers: { 'content-type': 'text/event-stream' } });
    assert.equal(summarize(await collect(readStream(ok, 'ai-sdk'))).text, summarize(events).text);
    const bad = new Response('{"error":"nope"}', { status: 404 });
    await assert.rejects(collect(readStream(bad, 'ai-sdk')), /HTTP 404.*nope/);
  });

  test('canonical lines that are not canonical events throw a located error', async () => {
    await assert.rejects(collect(readStream(['{"type":"text-delta"}\n'], 'canonical')), /line 1: expected a canonical event/);
  });
});

function ev(seq: number, e: Record<string, unknown>, ts = 1000 + seq): CanonicalEvent {
  return { runId: 'r', seq, ts, ...e } as CanonicalEvent;
}

describe('accumulator is linear', () => {
  /** A run with one tool call whose input streams one character at a time. */
  function toolRun(n: number): CanonicalEvent[] {
    const input = JSON.stringify({ text: 'y'.repeat(Math.max(0, n - 11)) });
    const events = [
      ev(0, { type: 'run-start', version: 2, messageId: 'm' }),
      ev(1, { type: 'tool-input-start', toolCallId: 't', toolName: 'write' }),
    ];
    for (const ch of input) events.push(ev(events.length, { type: 'tool-input-delta', toolCallId: 't', delta: ch }));
    return events;
  }

  test('4,000 one-character tool-input deltas: the partial input is parsed only when read, once per length', (t) => {
    const counts: number[] = [];
    for (const n of [1_000, 4_000]) {
      const started = performance.now();
      const acc = createMessageAccumulator();
      for (const e of toolRun(n)) {
        acc.apply(e);
        void acc.message; // a UI that re-renders after every delta (without reading the input)
      }
      const part = acc.message.metadata.parts[1] as ToolPart; // after the step the encoder opens
      assert.equal((part.input as { text: string }).text.length, n - 11);
      void part.input; // cached: no second parse
      void acc.message.metadata.parts[1]; // same snapshot
      assert.equal(acc.work.partialJsonParses, 1);
      assert.equal(acc.work.partialJsonChars, n);
      assert.ok(acc.work.joinedChars <= n, `${acc.work.joinedChars} characters joined for ${n} deltas`);
      counts.push(acc.work.joinedChars + acc.work.partialJsonChars);
      t.diagnostic(
        `${n} tool-input deltas, message read after each: ${(performance.now() - started).toFixed(1)} ms (informative, not asserted)`,
      );
    }
    // Not a speed threshold: an operation count. 4× the deltas → 4× the work (a quadratic reader: 16×).
    assert.ok(counts[1] / counts[0] <= 4.5, `work ratio ${counts[1] / counts[0]}`);
  });

  test('80,000 text deltas, the message read after every one: every character joined a bounded number of times', (t) => {
    const counts: number[] = [];
    for (const n of [20_000, 80_000]) {
      const started = performance.now();
      const acc = createMessageAccumulator();
      acc.apply(ev(0, { type: 'run-start', version: 2, messageId: 'm' }));
      acc.apply(ev(1, { type: 'text-start', blockId: 'b' }));
      for (let i = 0; i < n; i++) {
        acc.apply(ev(2 + i, { type: 'text-delta', blockId: 'b', delta: 'x' }));
        void acc.message;
      }
      acc.apply(ev(2 + n, { type: 'text-end', blockId: 'b' }));
      const m = acc.message;
      assert.equal(m.content.length, n);
      assert.equal((m.metadata.parts[1] as { text: string }).text.length, n);
      // Twice: once into the block's text, once into the message's text.
      assert.ok(acc.work.joinedChars <= 2 * n, `${acc.work.joinedChars} characters joined for ${n} deltas`);
      counts.push(acc.work.joinedChars);
      t.diagnostic(`${n} text deltas, message read after each: ${(performance.now() - started).toFixed(1)} ms (informative, not asserted)`);
    }
    assert.ok(counts[1] / counts[0] <= 4.5, `work ratio ${counts[1] / counts[0]}`);
  });
});

describe('accumulator: snapshots, duplicates, durations', () => {
  const run: CanonicalEvent[] = [
    ev(0, { type: 'run-start', version: 2, messageId: 'm', model: 'x', chatId: 'c' }),
    ev(1, { type: 'step-start', stepId: 's1', kind: 'model' }),
    ev(2, { type: 'reasoning-start', blockId: 'r1', variant: 'processing' }),
    ev(3, { type: 'reasoning-delta', blockId: 'r1', delta: 'Working' }),
    ev(4, { type: 'reasoning-end', blockId: 'r1' }, 3000),
    ev(5, { type: 'reasoning-start', blockId: 'r2', variant: 'thinking' }, 3000),
    ev(6, { type: 'reasoning-delta', blockId: 'r2', delta: 'Hmm' }, 3100),
    ev(7, { type: 'reasoning-end', blockId: 'r2', providerMetadata: { anthropic: { signature: 'sig' } } }, 7000),
    ev(8, { type: 'todos', change: 'create', todos: [{ id: 't1', content: 'a', status: 'pending' }] }),
    ev(9, { type: 'tool-input-start', toolCallId: 'c1', toolName: 'search' }),
    ev(10, { type: 'tool-input-delta', toolCallId: 'c1', delta: '{"q":' }),
    ev(11, { type: 'tool-input-delta', toolCallId: 'c1', delta: '"x"}' }),
    ev(12, { type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }),
    ev(13, { type: 'tool-output', toolCallId: 'c1', toolName: 'search', output: { hits: 1 } }),
    ev(14, { type: 'source', sourceId: 's', kind: 'url', url: 'https://example.com' }),
    ev(15, { type: 'todos', change: 'update', todos: [{ id: 't1', content: 'a', status: 'completed' }] }),
    ev(16, { type: 'text-start', blockId: 'b' }),
    ev(17, { type: 'text-delta', blockId: 'b', delta: 'Done' }),
    ev(18, { type: 'citation', blockId: 'b', citation: { kind: 'url', url: 'https://example.com' } }),
    ev(19, { type: 'text-delta', blockId: 'b', delta: '.' }),
    ev(20, { type: 'text-end', blockId: 'b' }),
    ev(21, { type: 'step-finish', stepId: 's1', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } }),
    ev(22, { type: 'state-snapshot', state: { a: [1] } }),
    ev(23, { type: 'state-delta', patch: [{ op: 'add', path: '/a/-', value: 2 }] }),
    ev(24, { type: 'run-finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }),
  ];

  test('the whole message', () => {
    let clock = 50_000;
    const acc = createMessageAccumulator({ now: () => clock });
    acc.apply(run[0]);
    acc.apply(run[1]);
    acc.apply(run[2]);
    acc.apply(run[3]);
    const live = acc.message.metadata.parts[1] as ReasoningPart;
    assert.equal(live.state, 'streaming');
    clock += 1_500;
    assert.equal(elapsedMs(live, clock), 1_500, 'a live block times itself on the client clock');
    acc.applyAll(run.slice(4));
    const m = acc.message;
    const { metadata } = m;
    assert.equal(metadata.status, 'complete');
    assert.equal(m.content, 'Done.');
    assert.deepEqual(
      metadata.parts.map((p) => (p.type === 'data' ? `data-${p.name}` : p.type)),
      ['step-start', 'reasoning', 'reasoning', 'data-todos', 'tool', 'source', 'text', 'data-state', 'data-usage'],
    );
    const [, processing, thinking, todos, tool, , text] = metadata.parts as never[] as Record<string, unknown>[];
    assert.deepEqual([processing.variant, processing.text, processing.durationMs], ['processing', 'Working', 3000 - 1002]);
    assert.deepEqual(
      [thinking.variant, thinking.text, thinking.durationMs, thinking.providerMetadata],
      ['thinking', 'Hmm', 4000, { anthropic: { signature: 'sig' } }],
    );
    assert.equal(elapsedMs(thinking as unknown as ReasoningPart, 0), 4000, 'a finished block says its server-measured duration');
    assert.deepEqual(todos.data, { change: 'update', todos: [{ id: 't1', content: 'a', status: 'completed' }] });
    assert.deepEqual([tool.state, tool.input, tool.inputText, tool.output], ['output-available', { q: 'x' }, '{"q":"x"}', { hits: 1 }]);
    assert.deepEqual(text.citations, [{ kind: 'url', url: 'https://example.com', sourceId: 'citation-1' }]);
    assert.deepEqual(
      metadata.steps.map((s) => [s.stepId, s.finishReason, s.durationMs]),
      [['s1', 'stop', 1021 - 1001]],
    );
    assert.deepEqual(metadata.usage, { inputTokens: 3, outputTokens: 2, totalTokens: 5 });
    assert.deepEqual(metadata.state, { a: [1, 2] });
    assert.deepEqual(metadata.todos, [{ id: 't1', content: 'a', status: 'completed' }]);
    assert.equal(metadata.model, 'x');
    assert.equal(m.chatId, 'c');
  });

  test('the latest status event is the activity', () => {
    const acc = createMessageAccumulator().applyAll(run.slice(0, 3));
    acc.apply(ev(3, { type: 'status', status: 'retrying', message: 'overloaded' }));
    assert.deepEqual(acc.message.metadata.activity, { status: 'retrying', message: 'overloaded' });
    acc.apply(ev(4, { type: 'status', status: 'searching' }));
    assert.deepEqual(acc.message.metadata.activity, { status: 'searching' });
  });

  test('snapshots are immutable and share unchanged parts', () => {
    const acc = createMessageAccumulator();
    acc.applyAll(run.slice(0, 11));
    const before = acc.message;
    assert.equal(acc.message, before, 'the same object until something changes');
    const streamingTool = before.metadata.parts[4] as ToolPart;
    assert.equal(streamingTool.state, 'input-streaming');
    assert.equal(streamingTool.inputText, '{"q":');
    acc.apply(run[11]);
    const after = acc.message;
    assert.notEqual(after, before);
    assert.equal(after.metadata.parts[1], before.metadata.parts[1], 'an unchanged part keeps its identity');
    assert.notEqual(after.metadata.parts[4], before.metadata.parts[4]);
    assert.equal(streamingTool.inputText, '{"q":', 'an old snapshot still shows the input as it was');
    assert.equal((after.metadata.parts[4] as ToolPart).inputText, '{"q":"x"}');
    assert.deepEqual((after.metadata.parts[4] as ToolPart).input, { q: 'x' });
  });

  test('duplicates and events of another run are ignored (a resumed stream may repeat)', () => {
    // A fixed client clock: receivedAt would otherwise differ between the two accumulators.
    const now = () => 0;
    const once = createMessageAccumulator({ now }).applyAll(run).message;
    const twice = createMessageAccumulator({ now });
    for (let i = 0; i < run.length; i++) twice.applyAll(run.slice(0, i + 1));
    twice.apply({ ...run[5], runId: 'other', seq: 99 } as CanonicalEvent);
    assert.deepEqual(twice.message, once);
  });

  test('a run that breaks off: open blocks end with the run', () => {
    const acc = createMessageAccumulator().applyAll([
      ...run.slice(0, 4),
      ev(4, { type: 'error', message: 'stream ended', code: 'truncated', fatal: true }),
      ev(5, { type: 'run-finish', finishReason: 'error' }),
    ]);
    const m = acc.message;
    assert.equal(m.metadata.status, 'error');
    assert.equal((m.metadata.parts[1] as ReasoningPart).state, 'done');
    assert.deepEqual(
      m.metadata.errors.map((e) => e.code),
      ['truncated'],
    );
  });
});
