import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type CanonicalEvent, createDecoder, framed, jsonlFramer, pipe } from '../src/index.ts';
import { createSmolagentsDecoder } from '../src/inputs/smolagents.ts';
import { createWsEncoder, type WsEncoderOptions, type WsEvent } from '../src/protocols/ws/encoder.ts';
import { createWsDecoder, detectWs } from '../src/protocols/ws/reader.ts';
import { validateWsEvents, WS_SEED_TYPES, wsEventSchema } from '../src/protocols/ws/schema.ts';
import { validate } from '../src/schema.ts';
import { FIXTURES, fixture } from './helpers.ts';

const SMOL = new URL('./fixtures/smolagents/', import.meta.url).pathname;

/** Every canonical stream we have: the Anthropic captures (SDK-verified and recorded) and the smolagents ones. */
function corpus(): { name: string; events: CanonicalEvent[] }[] {
  const out: { name: string; events: CanonicalEvent[] }[] = [];
  const decode = (bytes: Uint8Array, make: () => ReturnType<typeof createDecoder>) => {
    const m = framed(make());
    return [...m.push(bytes), ...m.end()];
  };
  const opts = { runId: 'run', now: () => 1763870000000 };
  for (const f of readdirSync(`${FIXTURES}anthropic/`).filter((f) => f.endsWith('.sse') && !f.includes('aisdk-ref')))
    out.push({ name: `anthropic/${f}`, events: decode(fixture(`anthropic/${f}`), () => createDecoder('anthropic', opts)) });
  for (const f of readdirSync(`${FIXTURES}recorded/anthropic/`))
    out.push({ name: `recorded/anthropic/${f}`, events: decode(fixture(`recorded/anthropic/${f}`), () => createDecoder('auto', opts)) });
  for (const f of readdirSync(SMOL).filter((f) => f.endsWith('.jsonl')))
    out.push({ name: `smolagents/${f}`, events: decode(readFileSync(SMOL + f), () => createSmolagentsDecoder(opts)) });
  return out;
}

function encode(events: CanonicalEvent[], options: WsEncoderOptions = {}): WsEvent[] {
  const enc = createWsEncoder(options);
  const out: WsEvent[] = [];
  for (const e of events) out.push(...enc.push(e));
  out.push(...enc.end());
  return out;
}

/** Reads frames back as they would arrive: JSON text, one per line. */
function read(frames: unknown[]): CanonicalEvent[] {
  const d = createWsDecoder({ runId: 'run', now: () => 0 });
  const out: CanonicalEvent[] = [];
  frames.forEach((f, i) => {
    out.push(...d.push(JSON.parse(JSON.stringify(f)), { line: i + 1 }));
  });
  out.push(...d.end());
  return out;
}

type Loose = Record<string, unknown> & { type: string };

/** JSON-normal form without the run id and seq (the reader numbers its own). */
function normal(events: readonly object[]): Loose[] {
  return events.map((e) => {
    const { runId: _r, seq: _s, ...rest } = JSON.parse(JSON.stringify(e));
    return rest;
  });
}

/**
 * What a round trip through the WebSocket contract gives back (docs/protocols/ws.md, "lost"):
 * tool-input-delta is not sent, so tool-input-start comes back right before its tool-input-end (at its
 * time, with providerExecuted of either); a block's start and citations come back with its next chunk
 * (or its final frame), empty deltas not at all; a tool call's second tool-input-end and its second
 * final output are not sent; a tool output without a name gets the call's; a tool-error whose output is
 * its error text comes back without output.
 */
function expected(events: CanonicalEvent[]): Loose[] {
  const out: Loose[] = [];
  const held = new Map<string, Loose[]>();
  const starts = new Map<string, Loose>();
  const names = new Map<string, string>();
  const used = new Set<string>();
  const answered = new Set<string>();
  for (const e of normal(events)) {
    const block = e.blockId as string;
    const call = e.toolCallId as string;
    switch (e.type) {
      case 'text-start':
      case 'reasoning-start':
        held.set(block, [e]);
        continue;
      case 'citation':
        held.get(block)?.push(e);
        continue;
      case 'text-delta':
      case 'reasoning-delta':
      case 'text-end':
      case 'reasoning-end': {
        for (const h of held.get(block) ?? []) out.push({ ...h, ts: e.ts });
        held.set(block, []);
        if (e.type.endsWith('-end')) held.delete(block);
        if (e.delta !== '') out.push(e);
        continue;
      }
      case 'tool-input-start':
        names.set(call, e.toolName as string);
        if (!starts.has(call)) starts.set(call, e);
        continue;
      case 'tool-input-delta':
        continue;
      case 'tool-input-end': {
        names.set(call, e.toolName as string);
        if (used.has(call)) continue;
        used.add(call);
        const s = starts.get(call);
        const pe = e.providerExecuted === true || s?.providerExecuted === true;
        const start: Loose = { type: 'tool-input-start', ts: e.ts, toolCallId: call, toolName: e.toolName };
        if (pe) start.providerExecuted = true;
        if (s?.providerMetadata) start.providerMetadata = s.providerMetadata;
        if (e.subagentId !== undefined) start.subagentId = e.subagentId;
        out.push(start, pe ? { ...e, providerExecuted: true } : e);
        continue;
      }
      case 'tool-output':
      case 'tool-error': {
        if (!e.preliminary) {
          if (answered.has(call)) continue;
          answered.add(call);
        }
        const x = { ...e };
        if (x.toolName === undefined && names.has(call)) x.toolName = names.get(call);
        if (x.type === 'tool-error' && x.output === x.error) delete x.output;
        out.push(x);
        continue;
      }
      default:
        out.push(e);
    }
  }
  return out;
}

/** The finish reason of a run's last event. */
function finishReason(events: CanonicalEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.type === 'run-finish' ? last.finishReason : undefined;
}

/** The frames of a session, as a list of `type` values. */
const kinds = (frames: WsEvent[]) => frames.map((f) => f.type);

describe('WebSocket encoder: every fixture gives frames that pass the `agent:event` schemas and the contract rules', () => {
  for (const { name, events } of corpus()) {
    test(name, () => {
      const frames = encode(events);
      assert.deepEqual(validateWsEvents(frames).issues, [], 'schemas, eventIndex, sequenceNumber, persistenceState, dedupe, accumulation');
      for (const f of frames) assert.ok(wsEventSchema.safeParse(f).success);
      assert.equal(frames[0]?.type, 'session_start');
      assert.equal(frames.at(-1)?.type, 'complete');
      // Accumulated content equals the joined chunks (also checked by validateWsEvents, here explicitly).
      const chunks = new Map<string, string[]>();
      for (const f of frames) {
        if (f.type === 'thinking_chunk' || f.type === 'message_chunk') chunks.set(f.blockId, [...(chunks.get(f.blockId) ?? []), f.content]);
        if (f.type === 'thinking' || f.type === 'message') assert.equal(f.content, (chunks.get(f.blockId) ?? []).join(''));
      }
      // eventIndex counts every frame from 0; sequenceNumber increases; chunks are transient.
      frames.forEach((f, i) => {
        assert.equal(f.eventIndex, i);
      });
      const seqs = frames.flatMap((f) => (f.sequenceNumber === undefined ? [] : [f.sequenceNumber]));
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
      );
      for (const f of frames) if (f.type.endsWith('_chunk')) assert.equal(f.persistenceState, 'transient');
      // One tool_use per call.
      const ids = frames.flatMap((f) => (f.type === 'tool_use' ? [f.tool_call_id] : []));
      assert.equal(ids.length, new Set(ids).size);
    });
  }
});

describe('WebSocket encoder: the contract in detail', () => {
  const events = corpus().find((c) => c.name === 'anthropic/thinking-text-tool-use.sse')?.events ?? [];

  test('thinking → text → tool use: the contract sequence, accumulated blocks, tool_use with its whole input', () => {
    const frames = encode(events, { userId: 'user-1' });
    const seed = frames.filter((f) => (WS_SEED_TYPES as readonly string[]).includes(f.type));
    assert.deepEqual(kinds(seed), [
      'session_start',
      'thinking_chunk',
      'thinking_chunk',
      'thinking_chunk',
      'thinking',
      'message_chunk',
      'message_chunk',
      'message',
      'tool_use',
      'complete',
    ]);
    const start = frames[0];
    assert.ok(start?.type === 'session_start');
    assert.equal(start.userId, 'user-1');
    assert.equal(start.sessionId, 'run');
    assert.deepEqual(start.modelConfig, { model: 'claude-sonnet-5-5', provider: 'anthropic' });
    const thinking = frames.find((f) => f.type === 'thinking');
    assert.ok(thinking?.type === 'thinking');
    assert.equal(thinking.content, 'The user asks about the weather in SF. I should call get_weather with celsius.');
    assert.equal(thinking.blockIndex, 0);
    assert.equal(thinking.messageId, 'msg_01ThinkTool');
    assert.deepEqual(thinking.providerMetadata, { anthropic: { signature: 'EqQBCkYIBxgCKkBz1Xq5V9bY0xw3PjcTgR2h6u6pK1sQvE0Zr8' } });
    assert.equal(thinking.persistenceState, 'persisted');
    const message = frames.find((f) => f.type === 'message');
    assert.ok(message?.type === 'message');
    assert.equal(message.content, "I'll check the current weather for you.");
    assert.equal(message.role, 'assistant');
    assert.equal(message.blockIndex, 1);
    const tool = frames.find((f) => f.type === 'tool_use');
    assert.ok(tool?.type === 'tool_use');
    assert.equal(tool.tool_call_id, 'toolu_01A09q90qw90lq917835lq9');
    assert.equal(tool.tool_name, 'get_weather');
    assert.deepEqual(tool.tool_input, {
      location: 'San Francisco, CA',
      note: 'café "quoted" \\ back\nslash',
      unit: 'celsius',
      days: 12.5,
      include_hourly: true,
    });
    assert.equal(tool.blockIndex, 2);
  });

  test('complete: stop_reason and usage with the cache tokens and the provider extras', () => {
    const frames = encode(events);
    const complete = frames.at(-1);
    assert.ok(complete?.type === 'complete');
    assert.equal(complete.stop_reason, 'tool_use');
    assert.equal(complete.finishReason, 'tool-calls');
    assert.equal(complete.reason, 'success');
    assert.equal(complete.usage?.input_tokens, 412, 'uncached input, as Anthropic counts it');
    assert.equal(complete.usage?.cache_creation_input_tokens, 1536);
    assert.equal(complete.usage?.cache_read_input_tokens, 20480);
    assert.equal(complete.usage?.output_tokens, 187);
    assert.equal(complete.usage?.service_tier, 'standard');
    assert.deepEqual(complete.usage?.cache_creation, { ephemeral_5m_input_tokens: 1536, ephemeral_1h_input_tokens: 0 });
  });

  test('a service_tier that is not a string stays in raw only; an empty chat id gives way to the run id (both found by the fuzz)', () => {
    let seq = 0;
    const ev = (e: Record<string, unknown>) => ({ runId: 'r', seq: seq++, ts: 1000 + seq, ...e }) as CanonicalEvent;
    const raw = { input_tokens: 3, output_tokens: 2, service_tier: true, region: 'eu' };
    const frames = encode([
      ev({ type: 'run-start', version: 2, messageId: 'm', chatId: '' }),
      ev({ type: 'usage', scope: 'total', usage: { inputTokens: 3, outputTokens: 2, raw } }),
      ev({ type: 'run-finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2, raw } }),
    ]);
    assert.deepEqual(validateWsEvents(frames).issues, []);
    assert.deepEqual(new Set(frames.map((f) => f.sessionId)), new Set(['r']));
    const complete = frames.at(-1);
    assert.ok(complete?.type === 'complete');
    assert.equal(complete.usage?.service_tier, undefined);
    assert.equal(complete.usage?.region, 'eu', 'the other extras still sit beside');
    assert.deepEqual(complete.usage?.raw, raw, 'lossless: the provider object as received');
  });

  test('complete carries the usage of an agent that reports it apart from the finish; reading back adds nothing', () => {
    // The simplified Claude agent line format: the run's usage comes in its `result` line, the finish has none.
    const lines = [
      { type: 'start', data: { model: 'claude' } },
      { type: 'text', data: { content: 'hi' } },
      { type: 'result', data: { usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 2 }, duration_ms: 12 } },
      { type: 'done', data: {} },
    ];
    const d = framed(createDecoder('claude', { runId: 'run', now: () => 0 }));
    const events = [...d.push(lines.map((l) => `${JSON.stringify(l)}\n`).join('')), ...d.end()];
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish' && finish.usage === undefined, 'the decoder reports usage apart');
    const frames = encode(events);
    assert.deepEqual(validateWsEvents(frames).issues, []);
    for (const f of frames) assert.ok(wsEventSchema.safeParse(f).success, f.type);
    const complete = frames.at(-1);
    assert.ok(complete?.type === 'complete');
    assert.equal(complete.stop_reason, 'end_turn');
    assert.equal(complete.usage?.input_tokens, 7);
    assert.equal(complete.usage?.output_tokens, 3);
    assert.equal(complete.usage?.cache_read_input_tokens, 2);
    assert.equal(complete.derivedUsage, true);
    // Live == reloaded: the frames read back give the canonical events back, and those the same frames.
    const back = read(frames);
    assert.deepEqual(normal(back), expected(events));
    assert.deepEqual(encode(back), frames);
  });

  test('persistenceState: transient for chunks, persisted with a sequenceNumber, pending without one', () => {
    // A store that numbers persisted events from 1001 and has not stored the tool_use yet.
    let counter = 1000;
    const frames = encode(events, { sequenceNumber: (e) => (e.type === 'tool-input-end' ? undefined : ++counter) });
    assert.deepEqual(validateWsEvents(frames).issues, []);
    for (const f of frames) {
      if (f.type.endsWith('_chunk')) assert.equal(f.persistenceState, 'transient');
      else if (f.type === 'tool_use') assert.deepEqual([f.persistenceState, f.sequenceNumber], ['pending', undefined]);
      else assert.equal(f.persistenceState, 'persisted');
    }
    assert.equal(frames[0]?.sequenceNumber, 1001);
    // A number that would not increase is not used.
    const stuck = encode(events, { sequenceNumber: () => 7 });
    assert.deepEqual(
      stuck.filter((f) => f.persistenceState === 'persisted').map((f) => f.type),
      ['session_start'],
    );
    assert.deepEqual(validateWsEvents(stuck).issues, []);
  });

  test('blockIndex restarts with each message; messageId is the message (step) the block belongs to', () => {
    const multi = corpus().find((c) => c.name === 'recorded/anthropic/anthropic-tool-search-bm25.1.chunks.txt')?.events ?? [];
    const frames = encode(multi);
    const steps = frames.filter((f) => f.type === 'step_start');
    assert.equal(steps.length, 2);
    const first = new Map<string, number>();
    for (const f of frames)
      if ('blockIndex' in f && typeof f.blockIndex === 'number' && !first.has(f.messageId)) first.set(f.messageId, f.blockIndex);
    assert.equal(first.size, 2);
    for (const index of first.values()) assert.equal(index, 0);
  });

  test('dedupe: a replayed tool-input-end and a repeated output send one tool_use and one tool_result', () => {
    let seq = 0;
    const ev = (e: Record<string, unknown>) => ({ runId: 'r', seq: seq++, ts: 1000 + seq, ...e }) as CanonicalEvent;
    const stream = [
      ev({ type: 'run-start', version: 2, messageId: 'm' }),
      ev({ type: 'tool-input-start', toolCallId: 'c1', toolName: 'search' }),
      ev({ type: 'tool-input-delta', toolCallId: 'c1', delta: '{"q":"x"}' }),
      ev({ type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }),
      ev({ type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }),
      ev({ type: 'tool-output', toolCallId: 'c1', output: 'partial', preliminary: true }),
      ev({ type: 'tool-output', toolCallId: 'c1', output: 'done' }),
      ev({ type: 'tool-output', toolCallId: 'c1', output: 'done again' }),
      ev({ type: 'run-finish', finishReason: 'stop' }),
    ];
    const frames = encode(stream, { aliases: true });
    assert.deepEqual(kinds(frames), ['session_start', 'tool_use', 'tool_result', 'tool_result', 'complete']);
    assert.deepEqual(validateWsEvents(frames).issues, []);
    const [, use, prelim, result] = frames;
    assert.ok(use?.type === 'tool_use' && prelim?.type === 'tool_result' && result?.type === 'tool_result');
    assert.deepEqual([use.toolUseId, use.toolName, use.args], ['c1', 'search', { q: 'x' }], 'the prototype names too');
    assert.equal(prelim.preliminary, true);
    assert.deepEqual([result.result, result.isError, result.tool_name, result.success], ['done', false, 'search', true]);
  });

  test('processing reasoning is a thinking block with variant "processing"', () => {
    const lines = [
      { type: 'status', data: { message: 'Searching' } },
      { type: 'thinking', data: { content: 'Hmm.' } },
      { type: 'text', data: { content: 'Done.' } },
      { type: 'done', data: {} },
    ];
    const m = framed(createDecoder('claude', { runId: 'r', now: () => 0 }));
    const canonical = [...m.push(lines.map((l) => JSON.stringify(l)).join('\n')), ...m.end()];
    const frames = encode(canonical);
    const thinking = frames.filter((f) => f.type === 'thinking');
    assert.deepEqual(
      thinking.map((f) => (f.type === 'thinking' ? [f.content, f.variant] : [])),
      [
        ['Searching', 'processing'],
        ['Hmm.', undefined],
      ],
    );
  });

  test('every canonical kind has a frame: the extensions', () => {
    let seq = 0;
    const ev = (e: Record<string, unknown>) => ({ runId: 'r', seq: seq++, ts: 1000, ...e }) as CanonicalEvent;
    const frames = encode([
      ev({ type: 'run-start', version: 2, messageId: 'm' }),
      ev({ type: 'step-start', stepId: 's', kind: 'model' }),
      ev({ type: 'todos', change: 'create', todos: [{ id: '1', content: 'a', status: 'pending' }] }),
      ev({ type: 'subagent-start', subagentId: 'sa', name: 'researcher' }),
      ev({ type: 'status', status: 'searching', subagentId: 'sa' }),
      ev({ type: 'subagent-finish', subagentId: 'sa', result: 'ok' }),
      ev({ type: 'source', sourceId: 'x', kind: 'url', url: 'https://a.example' }),
      ev({ type: 'file', url: 'data:,', mediaType: 'text/plain' }),
      ev({ type: 'usage', scope: 'increment', usage: { inputTokens: 1 } }),
      ev({ type: 'state-snapshot', state: { a: 1 } }),
      ev({ type: 'state-delta', patch: [{ op: 'replace', path: '/a', value: 2 }] }),
      ev({ type: 'custom', name: 'x', value: null }),
      ev({ type: 'raw', source: 'y', event: { z: 1 }, reason: 'unknown', where: { line: 2 } }),
      ev({ type: 'error', message: 'oops', code: 'c', fatal: true }),
      ev({ type: 'step-finish', stepId: 's' }),
      ev({ type: 'run-abort', reason: 'client gone' }),
    ]);
    assert.deepEqual(kinds(frames), [
      'session_start',
      'step_start',
      'todos',
      'subagent_start',
      'status',
      'subagent_finish',
      'source',
      'file',
      'usage',
      'state_snapshot',
      'state_delta',
      'custom',
      'raw',
      'error',
      'step_finish',
      'complete',
    ]);
    assert.deepEqual(validateWsEvents(frames).issues, []);
    const status = frames[4];
    assert.equal(status?.subagentId, 'sa');
    const complete = frames.at(-1);
    assert.ok(complete?.type === 'complete');
    assert.deepEqual(
      [complete.reason, complete.aborted, complete.abortReason, complete.stop_reason],
      ['user_cancelled', true, 'client gone', null],
    );
  });

  test('switchboard convert --to ws: one frame per line (JSON lines)', () => {
    const m = pipe(pipe(framed(createDecoder('anthropic', { runId: 'r', now: () => 0 })), createWsEncoder()), jsonlFramer());
    const text = [...m.push(fixture('anthropic/thinking-text-tool-use.sse')), ...m.end()].join('');
    const lines = text.trimEnd().split('\n');
    const frames = lines.map((l) => JSON.parse(l));
    assert.equal(frames.length, encode(corpus().find((c) => c.name === 'anthropic/thinking-text-tool-use.sse')?.events ?? []).length);
    assert.deepEqual(validateWsEvents(frames).issues, []);
  });
});

describe('WebSocket reader: round trips', () => {
  for (const { name, events } of corpus()) {
    test(`${name}: canonical → ws → canonical gives the input back, up to the documented losses`, () => {
      const back = read(encode(events));
      assert.deepEqual(validate(back).issues, []);
      assert.deepEqual(normal(back), expected(events));
    });
  }

  test('property: any well-formed canonical run', () => {
    fc.assert(
      fc.property(canonicalRun(), (run) => {
        const frames = encode(run);
        assert.deepEqual(validateWsEvents(frames).issues, []);
        const back = read(frames);
        assert.deepEqual(validate(back).issues, []);
        assert.deepEqual(normal(back), expected(run));
      }),
      { numRuns: Number(process.env.RT_RUNS ?? 300) },
    );
  });

  test('long streams read back whole (parts joined once per block)', () => {
    let seq = 0;
    const ev = (e: Record<string, unknown>) => ({ runId: 'r', seq: seq++, ts: 0, ...e }) as CanonicalEvent;
    const run = [ev({ type: 'run-start', version: 2, messageId: 'm' }), ev({ type: 'text-start', blockId: 'b' })];
    for (let i = 0; i < 20000; i++) run.push(ev({ type: 'text-delta', blockId: 'b', delta: String(i % 10) }));
    run.push(ev({ type: 'text-end', blockId: 'b' }), ev({ type: 'run-finish', finishReason: 'stop' }));
    const frames = encode(run);
    const message = frames.at(-2);
    assert.ok(message?.type === 'message');
    assert.equal(message.content.length, 20000);
    const back = read(frames);
    assert.equal(back.filter((e) => e.type === 'text-delta').length, 20000);
  });
});

describe('WebSocket reader: the prototype and bad input', () => {
  const base = (i: number) => ({ eventId: `e${i}`, timestamp: '2025-12-17T00:00:00.000Z', persistenceState: 'persisted' });

  test('frames of the BC-Claude-Agent prototype (camelCase names, no block ids) read as the same conversation', () => {
    const frames = [
      { type: 'session_start', sessionId: 's1', userId: 'u1', ...base(0) },
      { type: 'thinking_chunk', content: 'Let me ', blockIndex: 0, messageId: 'msg_1', ...base(1), persistenceState: 'transient' },
      { type: 'thinking_chunk', content: 'look.', blockIndex: 0, messageId: 'msg_1', ...base(2), persistenceState: 'transient' },
      { type: 'thinking', content: 'Let me look.', messageId: 'msg_1', ...base(3), sequenceNumber: 5 },
      {
        type: 'message_chunk',
        content: 'Based on the document',
        citations: [
          { type: 'char_location', cited_text: 'q', document_index: 0, document_title: 'Doc', start_char_index: 1, end_char_index: 5 },
        ],
        blockIndex: 1,
        messageId: 'msg_1',
        ...base(4),
        persistenceState: 'transient',
      },
      { type: 'message', content: 'Based on the document', messageId: 'msg_1', role: 'assistant', stopReason: 'tool_use', ...base(5) },
      { type: 'tool_use', toolUseId: 'toolu_1', toolName: 'search', args: { q: 'x' }, ...base(6), persistenceState: 'pending' },
      { type: 'tool_result', toolUseId: 'toolu_1', toolName: 'search', result: { hits: 2 }, success: true, ...base(7) },
      { type: 'tool_use', toolUseId: 'toolu_1', toolName: 'search', args: { q: 'x' }, ...base(8) },
      { type: 'approval_requested', approvalId: 'a1', toolName: 'x', args: {}, changeSummary: 'c', priority: 'low', ...base(9) },
      { type: 'complete', reason: 'success', ...base(10) },
    ];
    const events = read(frames);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'run-start',
        'reasoning-start',
        'reasoning-delta',
        'reasoning-delta',
        'reasoning-end',
        'text-start',
        'citation',
        'text-delta',
        'text-end',
        'tool-input-start',
        'tool-input-end',
        'tool-output',
        'raw',
        'run-finish',
      ],
    );
    const citation = events.find((e) => e.type === 'citation');
    assert.ok(citation?.type === 'citation');
    assert.deepEqual(
      { ...citation.citation, raw: undefined },
      { kind: 'document', title: 'Doc', citedText: 'q', documentIndex: 0, startIndex: 1, endIndex: 5, raw: undefined },
    );
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end');
    assert.deepEqual([end.toolCallId, end.toolName, end.input], ['toolu_1', 'search', { q: 'x' }]);
    assert.equal(events[0]?.type === 'run-start' && events[0].messageId, 's1');
    assert.equal(events[0]?.ts, Date.parse('2025-12-17T00:00:00.000Z'), 'event times are the frames');
    const finish = events.at(-1);
    assert.equal(finish?.type === 'run-finish' && finish.finishReason, 'stop');
  });

  const good = encode(corpus().find((c) => c.name === 'anthropic/text-basic.sse')?.events ?? []);
  const lines = (frames: unknown[]) => frames.map((f) => (typeof f === 'string' ? f : JSON.stringify(f))).join('\n');
  const readText = (text: string) => {
    const m = framed(createWsDecoder({ runId: 'run', now: () => 0 }));
    return [...m.push(text), ...m.end()];
  };
  const textOf = (events: CanonicalEvent[]) => events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');
  const fullText = textOf(read(good));

  test('truncated stream: what came is kept, a fatal "truncated" error, open blocks closed, the run ends with error', () => {
    const cut = good.slice(
      0,
      good.findIndex((f) => f.type === 'message'),
    );
    const events = readText(lines(cut));
    assert.equal(textOf(events), fullText);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated' && err.fatal);
    assert.deepEqual(
      events.slice(-4).map((e) => e.type),
      ['error', 'text-end', 'step-finish', 'run-finish'],
    );
    assert.equal(finishReason(events), 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON line, an array, a frame without type: located errors, reading goes on', () => {
    const [first, ...rest] = good;
    const events = readText(lines([first, 'not json', [1, 2], { content: 'x' }, ...rest]));
    const errors = events.filter((e) => e.type === 'error');
    assert.deepEqual(
      errors.map((e) => (e.type === 'error' ? [e.code, e.where] : [])),
      [
        ['invalid_json', { line: 2, expected: 'JSON' }],
        ['invalid_event', { line: 3, expected: 'object' }],
        ['invalid_field', { line: 4, field: 'type', expected: 'the event type as a string' }],
      ],
    );
    assert.match((errors[2] as { message: string }).message, /^line 4, field type: expected the event type as a string/);
    assert.equal(textOf(events), fullText);
    assert.equal(finishReason(events), 'stop');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a chunk whose content is not a string, an unknown type: located error and raw, nothing lost', () => {
    const i = good.findIndex((f) => f.type === 'message_chunk');
    const bad = { ...good[i], content: 42 };
    const odd = { type: 'future_event', x: 1, eventId: 'z', persistenceState: 'pending' };
    const events = readText(lines([...good.slice(0, i), bad, odd, ...good.slice(i)]));
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error');
    assert.deepEqual([err.code, err.where], ['invalid_field', { line: i + 1, field: 'content', expected: 'a string' }]);
    const raw = events.find((e) => e.type === 'raw');
    assert.ok(raw?.type === 'raw');
    assert.deepEqual([raw.event, raw.where, raw.source], [odd, { line: i + 2 }, 'ws']);
    assert.equal(textOf(events), fullText);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a final frame that disagrees with its chunks: located error, the chunks are kept', () => {
    const frames = good.map((f) => (f.type === 'message' ? { ...f, content: 'something else' } : f));
    const events = readText(lines(frames));
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'content_mismatch');
    assert.equal(err.where?.field, 'content');
    assert.equal(textOf(events), fullText);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a final frame with more than its chunks: the rest arrives as one last delta', () => {
    const frames = good.map((f) => (f.type === 'message' ? { ...f, content: `${f.content}!` } : f));
    assert.equal(textOf(readText(lines(frames))), `${fullText}!`);
  });
});

describe('WebSocket reader: detection', () => {
  test('claims agent:event frames, not Anthropic events nor agent lines', () => {
    for (const f of encode(corpus()[0]?.events ?? [])) assert.equal(detectWs(f), true, f.type);
    assert.equal(detectWs({ type: 'message_start', message: {} }), false);
    assert.equal(detectWs({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), false);
    assert.equal(detectWs({ type: 'text', data: { content: 'x' } }), false);
    assert.equal(detectWs({ type: 'message', content: 'x' }), false);
  });
});

/** Well-formed canonical runs covering every event kind, the dedupe cases and subagents. */
function canonicalRun(): fc.Arbitrary<CanonicalEvent[]> {
  const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
  const json = fc.jsonValue({ maxDepth: 2 });
  const text = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ maxLength: 4, unit: 'grapheme' }));
  const pm = fc.option(fc.record({ anthropic: fc.dictionary(word, json, { maxKeys: 2 }) }), { nil: undefined });
  const usage = fc.record(
    {
      inputTokens: fc.nat(5000),
      outputTokens: fc.nat(500),
      totalTokens: fc.nat(6000),
      reasoningTokens: fc.nat(100),
      cacheReadTokens: fc.nat(100),
      cacheWriteTokens: fc.nat(100),
      costUsd: fc.double({ min: 0, max: 1, noNaN: true }),
      raw: fc.oneof(json, fc.record({ input_tokens: fc.nat(), service_tier: fc.constantFrom('standard', 'priority'), x: json })),
    },
    { requiredKeys: [] },
  );
  const citation = fc.oneof(
    fc.record({ kind: fc.constant('url'), url: fc.webUrl(), title: text, citedText: text, raw: json }, { requiredKeys: ['kind', 'url'] }),
    fc.record(
      {
        kind: fc.constantFrom('document', 'location'),
        title: text,
        citedText: text,
        documentIndex: fc.nat(3),
        startIndex: fc.nat(99),
        endIndex: fc.nat(99),
        raw: fc.record({ type: fc.constantFrom('char_location', 'page_location', 'content_block_location', 'x') }),
      },
      { requiredKeys: ['kind'] },
    ),
  );
  type E = Record<string, unknown>;
  type Piece = (n: () => number, sub?: string) => E[];
  const block: fc.Arbitrary<Piece> = fc
    .record({
      kind: fc.constantFrom('text', 'reasoning'),
      variant: fc.constantFrom('thinking', 'processing'),
      parts: fc.array(
        fc.oneof(
          text.map((d) => ({ d })),
          citation.map((c) => ({ c })),
        ),
        { maxLength: 5 },
      ),
      pm,
      endPm: pm,
    })
    .map((b) => (n, sub) => {
      const blockId = `b${n()}`;
      const t = b.kind === 'text';
      return [
        t
          ? { type: 'text-start', blockId, providerMetadata: b.pm, subagentId: sub }
          : { type: 'reasoning-start', blockId, variant: b.variant, providerMetadata: b.pm, subagentId: sub },
        ...b.parts
          .filter((p) => t || 'd' in p)
          .map((p) =>
            'd' in p
              ? { type: t ? 'text-delta' : 'reasoning-delta', blockId, delta: p.d, subagentId: sub }
              : { type: 'citation', blockId, citation: p.c, subagentId: sub },
          ),
        { type: t ? 'text-end' : 'reasoning-end', blockId, providerMetadata: b.endPm, subagentId: sub },
      ];
    });
  const tool: fc.Arbitrary<Piece> = fc
    .record({
      name: word,
      input: json,
      start: fc.boolean(),
      replay: fc.boolean(),
      providerExecuted: fc.option(fc.constant(true), { nil: undefined }),
      startPm: pm,
      endPm: pm,
      inputError: fc.option(text, { nil: undefined }),
      results: fc.array(
        fc.oneof(
          fc.record({ output: json, named: fc.boolean(), preliminary: fc.option(fc.constant(true), { nil: undefined }), pm }),
          fc.record({ error: text, output: fc.option(fc.oneof(json, text), { nil: undefined }) }),
        ),
        { maxLength: 3 },
      ),
    })
    .map((t) => (n, sub) => {
      const toolCallId = `t${n()}`;
      const events: E[] = [];
      if (t.start)
        events.push({
          type: 'tool-input-start',
          toolCallId,
          toolName: t.name,
          providerExecuted: t.providerExecuted,
          providerMetadata: t.startPm,
          subagentId: sub,
        });
      if (t.start) events.push({ type: 'tool-input-delta', toolCallId, delta: JSON.stringify(t.input), subagentId: sub });
      const end = {
        type: 'tool-input-end',
        toolCallId,
        toolName: t.name,
        input: t.input,
        inputError: t.inputError,
        providerMetadata: t.endPm,
        subagentId: sub,
      };
      events.push(end);
      if (t.replay) events.push({ ...end, input: 'replayed' });
      for (const r of t.results) {
        if ('error' in r) events.push({ type: 'tool-error', toolCallId, error: r.error, output: r.output, subagentId: sub });
        else
          events.push({
            type: 'tool-output',
            toolCallId,
            toolName: r.named ? t.name : undefined,
            output: r.output,
            preliminary: r.preliminary,
            providerMetadata: r.pm,
            subagentId: sub,
          });
      }
      return events;
    });
  const todo = fc.record({ id: word, content: text, status: fc.constantFrom('pending', 'in_progress', 'completed', 'cancelled') });
  const misc: fc.Arbitrary<Piece> = fc.oneof(
    fc
      .record({ change: fc.constantFrom('create', 'update', 'done', 'snapshot'), todos: fc.array(todo, { maxLength: 2 }) })
      .map((t) => () => [{ type: 'todos', ...t }]),
    json.map((state) => () => [{ type: 'state-snapshot', state }]),
    fc
      .record({ op: fc.constantFrom('add', 'replace'), path: fc.constantFrom('/a', '/b/c'), value: json })
      .map((op) => () => [{ type: 'state-delta', patch: [op] }]),
    fc.record({ name: word, value: json }).map((c) => (_n: () => number, sub?: string) => [{ type: 'custom', ...c, subagentId: sub }]),
    fc
      .record({
        url: fc.option(fc.webUrl(), { nil: undefined }),
        title: fc.option(text, { nil: undefined }),
        kind: fc.constantFrom('url', 'document'),
      })
      .map((s) => (n: () => number) => [{ type: 'source', sourceId: `s${n()}`, ...s }]),
    fc
      .record({ mediaType: fc.constantFrom('image/png', 'text/plain'), filename: fc.option(word, { nil: undefined }) })
      .map((f) => () => [{ type: 'file', url: 'data:,', ...f }]),
    fc
      .record({ status: word, message: fc.option(text, { nil: undefined }) })
      .map((s) => (_n: () => number, sub?: string) => [{ type: 'status', ...s, subagentId: sub }]),
    fc
      .record({ scope: fc.constantFrom('increment', 'step', 'total'), usage, durationMs: fc.option(fc.nat(), { nil: undefined }) })
      .map((u) => () => [{ type: 'usage', ...u }]),
    fc
      .record({
        code: fc.option(word, { nil: undefined }),
        message: text,
        where: fc.option(fc.record({ line: fc.integer({ min: 1, max: 9 }), field: word }), { nil: undefined }),
        pm,
      })
      .map((e) => () => [{ type: 'error', code: e.code, message: e.message, fatal: false, where: e.where, providerMetadata: e.pm }]),
    fc
      .record({ event: json, reason: fc.option(text, { nil: undefined }) })
      .map((r) => () => [{ type: 'raw', source: 'elsewhere', ...r, where: { line: 2 } }]),
  );
  const piece = fc.oneof(block, tool, misc);
  const subagent: fc.Arbitrary<Piece> = fc
    .record({
      name: word,
      task: fc.option(text, { nil: undefined }),
      inner: fc.array(piece, { maxLength: 3 }),
      result: fc.option(text, { nil: undefined }),
    })
    .map((s) => (n) => {
      const subagentId = `sa${n()}`;
      return [
        { type: 'subagent-start', subagentId, name: s.name, task: s.task },
        ...s.inner.flatMap((p) => p(n, subagentId)),
        { type: 'subagent-finish', subagentId, result: s.result },
      ];
    });
  const step: fc.Arbitrary<Piece> = fc
    .record({
      kind: fc.constantFrom('model', 'planning', 'action', 'final-answer', 'other'),
      name: fc.option(word, { nil: undefined }),
      number: fc.option(fc.nat(9), { nil: undefined }),
      model: fc.option(word, { nil: undefined }),
      pm,
      inner: fc.array(fc.oneof(piece, subagent), { maxLength: 4 }),
      finishReason: fc.option(fc.constantFrom('stop', 'tool-calls', 'length', 'error', 'other'), { nil: undefined }),
      rawFinishReason: fc.option(fc.constantFrom('end_turn', 'tool_use', 'STOP'), { nil: undefined }),
      usage: fc.option(usage, { nil: undefined }),
      durationMs: fc.option(fc.nat(99999), { nil: undefined }),
      endPm: pm,
    })
    .map((s) => (n) => {
      const stepId = `st${n()}`;
      return [
        { type: 'step-start', stepId, kind: s.kind, name: s.name, number: s.number, model: s.model, providerMetadata: s.pm },
        ...s.inner.flatMap((p) => p(n)),
        {
          type: 'step-finish',
          stepId,
          finishReason: s.finishReason,
          rawFinishReason: s.rawFinishReason,
          usage: s.usage,
          durationMs: s.durationMs,
          providerMetadata: s.endPm,
        },
      ];
    });
  return fc
    .record({
      model: fc.option(word, { nil: undefined }),
      chatId: fc.option(word, { nil: undefined }),
      metadata: fc.option(fc.dictionary(word, json, { maxKeys: 2 }), { nil: undefined }),
      body: fc.array(fc.oneof(step, piece), { maxLength: 5 }),
      end: fc.oneof(
        fc.record({
          type: fc.constant('run-finish'),
          finishReason: fc.constantFrom('stop', 'tool-calls', 'length', 'content-filter', 'error', 'interrupted', 'other'),
          rawFinishReason: fc.option(fc.constantFrom('end_turn', 'max_tokens', 'refusal', 'stop'), { nil: undefined }),
          usage: fc.option(usage, { nil: undefined }),
          providerMetadata: pm,
        }),
        fc.record({ type: fc.constant('run-abort'), reason: fc.option(text, { nil: undefined }) }),
      ),
      ts: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
    })
    .map((r) => {
      let id = 0;
      const n = () => ++id;
      const body: E[] = [
        {
          type: 'run-start',
          version: 2,
          messageId: 'msg_1',
          provider: 'anthropic',
          model: r.model,
          chatId: r.chatId,
          metadata: r.metadata,
        },
        ...r.body.flatMap((p) => p(n)),
        r.end,
      ];
      return body.map((e, seq) => JSON.parse(JSON.stringify({ ...e, runId: 'gen', seq, ts: r.ts + seq * 7 })) as CanonicalEvent);
    });
}
