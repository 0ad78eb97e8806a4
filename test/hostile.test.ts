/**
 * The hostile-input rules at their choke points (docs/hostile-input.md): the decoder guard, framing's
 * depth limit, the key / number sanitizer, the duplicate tool call id rule, the encoder guard,
 * validate() and the store append. The fuzz suite (test/fuzz) checks the same at random.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  type CanonicalEvent,
  createDecoder,
  createEncoder,
  createFramer,
  type Decoder,
  framed,
  idProblem,
  MAX_DEPTH,
  type Machine,
  tooDeepAt,
} from '../packages/core/src/index.ts';
import { guard } from '../packages/core/src/inputs/guard.ts';
import { Emitter } from '../packages/core/src/model/emitter.ts';
import { validate, validateAiSdkChunks } from '../packages/core/src/schema.ts';
import { openSqliteStore, StoreError } from '../packages/store/src/index.ts';
import { matrixInputs } from './matrix/inputs.ts';
import { detectInput } from './matrix/matrix.ts';
import { runAgUi } from './support/ag-ui-oracle.ts';
import { assembleChunks, parseAiSdkSse } from './support/ai-sdk-oracle.ts';

const OPTIONS = { runId: 'run', now: () => 0 };

function drain<I, O>(m: Machine<I, O>, inputs: I[]): O[] {
  const out: O[] = [];
  for (const i of inputs) out.push(...m.push(i));
  out.push(...m.end());
  return out;
}

const deep = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);
const lines = (...values: string[]) => `${values.join('\n')}\n`;

describe('decoder guard', () => {
  test('a decoder that throws: a located decoder_error, the text before and after kept, a clean end', () => {
    const inner = createDecoder('claude', OPTIONS);
    let calls = 0;
    const flaky: Decoder = {
      push(value, where) {
        if (++calls === 2) throw new TypeError('list.push is not a function');
        return inner.push(value, where);
      },
      fault: (c, m, w) => inner.fault(c, m, w),
      end: () => inner.end(),
    };
    const events = drain(framed(guard(flaky)), [
      lines(
        '{"type":"text","data":{"text":"a"}}',
        '{"type":"text","data":{"text":"b"}}',
        '{"type":"text","data":{"text":"c"}}',
        '{"type":"done","data":{}}',
      ),
    ]);
    assert.deepEqual(
      events.filter((e) => e.type === 'text-delta').map((e) => e.delta),
      ['a', 'c'],
    );
    const error = events.find((e) => e.type === 'error');
    assert.equal(error?.code, 'decoder_error');
    assert.equal(error?.fatal, false);
    assert.deepEqual(error?.where, { line: 2 });
    assert.match(error?.message ?? '', /^line 2: the decoder failed on this value \(list\.push is not a function\); skipped$/);
    assert.equal(validate(events, { complete: true }).ok, true);
  });

  test('a decoder whose end throws still ends the run', () => {
    const inner = createDecoder('claude', OPTIONS);
    const broken: Decoder = {
      push: (v, w) => inner.push(v, w),
      fault: (c, m, w) => inner.fault(c, m, w),
      end: () => {
        throw new Error('boom');
      },
    };
    const events = drain(framed(guard(broken)), ['{"type":"text","data":{"text":"a"}}\n']);
    assert.equal(events.at(-1)?.type, 'run-finish');
    assert.equal(validate(events, { complete: true }).ok, true);
  });

  test(`values nested deeper than ${MAX_DEPTH}: a located too_deep error, by bytes and by objects`, () => {
    const text = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const bytes = drain(framed(createDecoder('openai-chat', OPTIONS)), [`${text}\n`]);
    assert.deepEqual(bytes.find((e) => e.type === 'error')?.where, { line: 1, expected: `at most ${MAX_DEPTH} levels of nesting` });
    const d = createDecoder('anthropic', OPTIONS);
    const objects = [...d.push(deep(10_000), { event: 1 }), ...d.end()];
    assert.equal(objects.find((e) => e.type === 'error')?.code, 'too_deep');
    assert.equal(validate(objects).ok, true);
  });

  test('tooDeepAt: undefined at the limit, the path of the first field past it', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 1; i < levels; i++) v = i % 2 ? { a: v } : [v];
      return v;
    };
    // nest(n) holds n − 1 levels of objects and arrays; the outer object adds one.
    assert.equal(tooDeepAt(nest(MAX_DEPTH + 1)), undefined);
    assert.equal(tooDeepAt({ ok: [1, { b: 2 }], deep: nest(MAX_DEPTH) }), undefined);
    assert.equal(tooDeepAt({ ok: [1, { b: 2 }], deep: nest(MAX_DEPTH + 1) }), 'deep[0].a[0].a[0].a[0]…');
    assert.match(tooDeepAt({ ok: [1, { b: 2 }], deep: nest(MAX_DEPTH + 2) }) ?? '', /^deep(\.a|\[0\])+…$/);
    assert.equal(tooDeepAt({ x: [{ y: nest(3) }] }, 3), 'x[0].y');
    assert.equal(tooDeepAt({ x: [{ y: 1 }] }, 3), undefined);
  });

  test('__proto__ keys: removed with a warning that keeps the value; null-prototype objects read', () => {
    const d = createDecoder('anthropic', OPTIONS);
    const start = Object.assign(Object.create(null), {
      type: 'message_start',
      message: Object.assign(Object.create(null), { id: 'm', model: 'x' }),
    });
    const value = JSON.parse(
      '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""},"__proto__":{"polluted":1}}',
    );
    const events = [...d.push(start, { event: 1 }), ...d.push(value, { event: 2 }), ...d.end()];
    const warning = events.find((e) => e.type === 'error' && e.code === 'unsafe_input');
    assert.ok(warning && warning.type === 'error');
    assert.match(warning.message, /^SSE event 2: unsafe for JSON clients: __proto__ removed/);
    assert.deepEqual(warning.providerMetadata, {
      switchboard: { removed: [{ path: '__proto__', action: 'removed', json: '{"polluted":1}' }] },
    });
    assert.equal(events.find((e) => e.type === 'run-start')?.type, 'run-start');
    assert.equal(({} as { polluted?: number }).polluted, undefined);
    assert.equal(validate(events).ok, true);
  });

  test('non-finite numbers (1e400): null in the input, the event passes validate', () => {
    const body = lines(
      '{"id":"a","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}',
      '{"id":"a","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1e400,"completion_tokens":2}}',
    );
    const events = drain(framed(createDecoder('openai-chat', OPTIONS)), [body]);
    assert.equal(validate(events, { complete: true }).ok, true, JSON.stringify(validate(events).issues));
    const warning = events.find((e) => e.type === 'error' && e.code === 'unsafe_input');
    assert.match(warning?.type === 'error' ? warning.message : '', /usage\.prompt_tokens \(Infinity\) replaced by null/);
  });

  test('a reused tool call id: the second call is renamed <id>~2, with a warning', () => {
    const call = '{"type":"tool_use","data":{"id":"t1","name":"x","input":{"a":1}}}';
    const events = drain(framed(createDecoder('claude', OPTIONS)), [lines(call, call, '{"type":"done","data":{}}')]);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool-input-end').map((e) => e.toolCallId),
      ['t1', 't1~2'],
    );
    assert.ok(events.some((e) => e.type === 'error' && /tool call id "t1" was already used/.test(e.message)));
  });

  test('an approval asked twice (a repeated line): the second request is dropped with a warning; the run validates', () => {
    const call = '{"type":"tool_use","data":{"id":"t1","name":"rm","input":{"path":"a"}}}';
    const ask = '{"type":"approval_request","data":{"approval_id":"a1","tool_id":"t1"}}';
    const events = drain(framed(createDecoder('claude', OPTIONS)), [lines(call, ask, ask, '{"type":"done","data":{}}')]);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool-approval-request').map((e) => e.approvalId),
      ['a1'],
    );
    assert.ok(events.some((e) => e.type === 'error' && /approval "a1" was already requested in this run; dropped/.test(e.message)));
    assert.deepEqual(validate(events, { complete: true }).issues, []);
  });

  test('AI SDK: an answer to an approval the stream did not ask is sent only as a continuation run starts', () => {
    const ev = (e: object, seq: number) => ({ runId: 'run', seq, ts: 0, ...e }) as CanonicalEvent;
    const encode = (events: CanonicalEvent[]) => drain(createEncoder('ai-sdk'), events) as { type: string }[];
    const start = ev({ type: 'run-start', version: 2, messageId: 'm1', continues: true }, 0);
    const answer = (seq: number) => ev({ type: 'tool-approval-response', approvalId: 'a9', toolCallId: 't9', approved: true }, seq);
    const finish = (seq: number) => ev({ type: 'run-finish', finishReason: 'stop' }, seq);
    // First thing after run-start: the continued message holds the approval, so the answer goes out.
    assert.ok(encode([start, answer(1), finish(2)]).some((c) => c.type === 'tool-approval-response'));
    // The same first thing in a run that continues nothing: no client holds a part for it.
    const fresh = ev({ type: 'run-start', version: 2, messageId: 'm1' }, 0);
    assert.ok(!encode([fresh, answer(1), finish(2)]).some((c) => c.type === 'tool-approval-response'));
    // After the run's own content: no client holds a part for it (the stock client would reject it).
    const text = [
      ev({ type: 'text-start', blockId: 'b' }, 1),
      ev({ type: 'text-delta', blockId: 'b', delta: 'hi' }, 2),
      ev({ type: 'text-end', blockId: 'b' }, 3),
    ];
    assert.ok(!encode([start, ...text, answer(4), finish(5)]).some((c) => c.type === 'tool-approval-response'));
  });

  test('an output before its call at the start of a run that continues nothing (swapped lines): the stock AI SDK client keeps it on a part of its own', async () => {
    const capture = readFileSync(new URL('../packages/core/test/fixtures/claude-agent-sdk/parallel-tools.jsonl', import.meta.url), 'utf8');
    const swapped = capture.split('\n');
    // The CHANGELOG read's tool_result (line 6) before the first assistant line (line 2).
    [swapped[1], swapped[5]] = [swapped[5] as string, swapped[1] as string];
    const call = 'toolu_01ParB3cD4eF5gH6iJ7kL8mN';
    const toAiSdk = (options: object) => {
      const events = drain(framed(createDecoder('claude-agent-sdk', { ...OPTIONS, ...options })), [swapped.join('\n')]);
      assert.deepEqual(validate(events, { complete: true }).issues, []);
      return drain(createEncoder('ai-sdk') as Machine<CanonicalEvent, object>, events) as { type: string; toolCallId?: string }[];
    };
    const chunks = toAiSdk({});
    assert.deepEqual(validateAiSdkChunks([...chunks, '[DONE]'], { complete: true }).issues, []);
    const body = `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
    const { message } = await assembleChunks(await parseAiSdkSse(body));
    const parts = message.parts.filter((p) => 'toolCallId' in p && p.toolCallId === call) as { state: string; errorText?: string }[];
    // The output on a part of its own (nothing is lost), then the call itself when it comes.
    assert.deepEqual(
      parts.map((p) => p.state),
      ['output-error', 'input-available'],
    );
    assert.match(parts[0]?.errorText ?? '', /File does not exist/);
    // In a run that continues a message, the same output is a bare answer for that message's call.
    const continued = toAiSdk({ messageId: 'msg_earlier', continues: true });
    assert.deepEqual(
      continued.slice(0, 2).map((c) => [c.type, c.toolCallId]),
      [
        ['start', undefined],
        ['tool-output-error', call],
      ],
    );
  });

  test('an object with an own toString that is not a function (a message names it by its kind, no decoder_error)', () => {
    const start = '{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"x","usage":{}}}';
    const stop = '{"type":"content_block_stop","index":{"toString":{},"valueOf":{}}}';
    const events = drain(framed(createDecoder('anthropic', OPTIONS)), [lines(start, stop, '{"type":"message_stop"}')]);
    assert.ok(!events.some((e) => e.type === 'error' && e.code === 'decoder_error'));
    assert.ok(events.some((e) => e.type === 'error' && /block index object, which is not open/.test(e.message)));
  });

  test('an answer that comes before its question (reordered lines): the run does not end waiting for it', () => {
    const out = new Emitter(OPTIONS, 'test');
    out.emit({ type: 'tool-input-start', toolCallId: 't1', toolName: 'rm' });
    out.emit({ type: 'tool-input-end', toolCallId: 't1', toolName: 'rm', input: {} });
    out.emit({ type: 'tool-approval-response', approvalId: 'a1', toolCallId: 't1', approved: false });
    out.emit({ type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' });
    out.emit({ type: 'run-finish', finishReason: 'stop' });
    const events = out.take();
    const finish = events.at(-1) as { pending?: unknown; finishReason: string };
    assert.equal(finish.pending, undefined);
    assert.equal(finish.finishReason, 'stop');
  });

  test('a reused tool call id: the deltas of the second call follow the new id, whole and by the id alone', () => {
    let seq = 0;
    const ev = (type: string, fields: Record<string, unknown>) => ({ type, runId: 'run', seq: ++seq, ts: 0, ...fields }) as CanonicalEvent;
    const call = (toolCallId: string, delta: string): CanonicalEvent[] => [
      ev('tool-input-start', { toolCallId, toolName: 'x' }),
      ev('tool-input-delta', { toolCallId, delta }),
      ev('tool-input-end', { toolCallId, toolName: 'x', input: { a: delta } }),
    ];
    // One value per event, so the deltas come in calls of their own (the hot path).
    const script: CanonicalEvent[][] = [...call('t1', 'a').map((e) => [e]), ...call('t1', 'b').map((e) => [e])];
    const g = guard({ push: () => script.shift() ?? [], fault: () => [], end: () => [ev('run-finish', { finishReason: 'stop' })] });
    const events = drain(g, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool-input-delta').map((e) => [e.toolCallId, e.delta]),
      [
        ['t1', 'a'],
        ['t1~2', 'b'],
      ],
    );
  });

  test('a repeated call after its approval was asked: the answer stays with the call the approval was asked for', () => {
    let seq = 0;
    const ev = (type: string, fields: Record<string, unknown>) => ({ type, runId: 'run', seq: seq++, ts: 0, ...fields }) as CanonicalEvent;
    const call = () => [
      ev('tool-input-start', { toolCallId: 't1', toolName: 'x' }),
      ev('tool-input-end', { toolCallId: 't1', toolName: 'x', input: {} }),
    ];
    // As a duplicated response.completed line gives it (the call repeated; the request once).
    const script: CanonicalEvent[][] = [
      [ev('run-start', { version: 2, messageId: 'm' })],
      call(),
      [ev('tool-approval-request', { approvalId: 'a1', toolCallId: 't1' })],
      call(),
      [ev('tool-approval-response', { approvalId: 'a1', toolCallId: 't1', approved: true })],
    ];
    const g = guard({ push: () => script.shift() ?? [], fault: () => [], end: () => [ev('run-finish', { finishReason: 'stop' })] });
    const events = drain(g, [1, 2, 3, 4, 5]);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool-input-end').map((e) => e.toolCallId),
      ['t1', 't1~2'],
    );
    const answer = events.find((e) => e.type === 'tool-approval-response');
    assert.equal(answer?.type === 'tool-approval-response' && answer.toolCallId, 't1');
    assert.deepEqual(validate(events, { complete: true }).issues, []);
  });

  test("the hot path: a safe value gives back the decoder's own array, unchanged", () => {
    const out = [{ type: 'text-delta', runId: 'run', seq: 1, ts: 0, blockId: 't', delta: 'hi' } as CanonicalEvent];
    const g = guard({ push: () => out, fault: () => [], end: () => [] });
    assert.equal(g.push({ type: 'x', data: { text: 'hi', n: [1, 2.5, null] } }, { line: 1 }), out);
    assert.deepEqual(out, [{ type: 'text-delta', runId: 'run', seq: 1, ts: 0, blockId: 't', delta: 'hi' }]);
  });

  test('a value whose getter throws: a located decoder_error, no throw', () => {
    const value = {
      get type(): string {
        throw new Error('no');
      },
    };
    const events = createDecoder('claude', OPTIONS).push(value, { line: 3 });
    const error = events.find((e) => e.type === 'error');
    assert.equal(error?.code, 'decoder_error');
    assert.deepEqual(error?.where, { line: 3 });
  });

  test('a subagent that finishes twice: the second is a new subagent run, and the AG-UI verifier accepts the output', async () => {
    const start = '{"type":"subagent_start","data":{"id":"s1","agent":"researcher","task":"look"}}';
    const end = '{"type":"subagent_end","data":{"id":"s1","agent":"researcher","summary":"done"}}';
    const events = drain(framed(createDecoder('claude', OPTIONS)), [lines(start, end, end, '{"type":"done","data":{}}')]);
    assert.deepEqual(
      events.filter((e) => e.type === 'subagent-finish').map((e) => e.subagentId),
      ['s1', 's1~2'],
    );
    const frames = drain(createEncoder('ag-ui') as Machine<CanonicalEvent, object>, events);
    const run = await runAgUi(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(''));
    assert.equal(run.error, undefined, String(run.error));
  });
});

describe('encoders, validate() and the store never throw', () => {
  const start: CanonicalEvent = { type: 'run-start', version: 1, messageId: 'm', runId: 'r', seq: 0, ts: 0 };
  const bad = { type: 'custom', name: 'x', value: deep(8000), runId: 'r', seq: 1, ts: 0 } as unknown as CanonicalEvent;
  const end: CanonicalEvent = { type: 'run-finish', finishReason: 'stop', runId: 'r', seq: 2, ts: 0 };

  test('every encoder: a too-deep event becomes an error frame, the rest encodes', () => {
    for (const protocol of ['ai-sdk', 'ag-ui', 'ws', 'dsagent', 'canonical'] as const) {
      const frames = drain(createEncoder(protocol) as Machine<CanonicalEvent, object>, [
        start,
        bad,
        null as unknown as CanonicalEvent,
        end,
      ]);
      assert.ok(frames.length > 0, protocol);
      assert.doesNotThrow(() => JSON.stringify(frames), protocol);
    }
  });

  test('validate(): an issue for the deep event, no throw', () => {
    const r = validate([start, bad, end]);
    assert.deepEqual(r.issues, [{ index: 1, path: '', message: `expected at most ${MAX_DEPTH} levels of nesting` }]);
  });

  test('store append: a StoreError, not a stack overflow', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    try {
      await store.startRun({ chatId: 'c', runId: 'r' });
      await store.append(start);
      await assert.rejects(store.append(bad), (err: unknown) => err instanceof StoreError && err.code === 'invalid');
    } finally {
      await store.close();
    }
  });
});

test('decoders do not change the values they read (every capture, through auto)', () => {
  // The object API gets the caller's values; the langchain decoder once merged later chunks'
  // additional_kwargs into the first chunk's object (the fuzz saw it: its decoders share frames).
  for (const input of matrixInputs()) {
    const framer = createFramer();
    const frames = [...framer.push(input.body), ...framer.end()];
    const before = structuredClone(frames);
    const d = createDecoder('auto', { runId: 'run', now: () => 0 });
    for (const f of frames) if (f.kind === 'value') d.push(f.value, f.where);
    d.end();
    assert.deepEqual(frames, before, input.name);
  }
});

test('the id rule: any Unicode, no control characters or lone surrogates', () => {
  assert.equal(idProblem('日本語-chat'), undefined);
  assert.equal(idProblem('chat 🎉'), undefined);
  assert.match(idProblem('a\nb') ?? '', /control character U\+000A at 1/);
  assert.match(idProblem('a\ud800') ?? '', /lone surrogate/);
  assert.match(idProblem('') ?? '', /non-empty/);
  assert.match(idProblem('x'.repeat(513)) ?? '', /at most 512/);
});

describe('field names like Object.prototype members', () => {
  /** Names an object inherits: a decoder that keeps input fields in a plain object must not find these. */
  const INHERITED = ['toString', 'valueOf', 'hasOwnProperty', 'constructor', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString'];

  /** The value with every inherited name added as a field of every object in it (values of several types). */
  function withInheritedNames(value: unknown, depth = 0): unknown {
    if (Array.isArray(value)) return value.map((v) => withInheritedNames(v, depth + 1));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withInheritedNames(v, depth + 1);
    INHERITED.forEach((name, i) => {
      out[name] = [`x${depth}`, i, [i], { n: i }][i % 4];
    });
    return out;
  }

  /** The capture with the names added to every object of every line (SSE `data:` payloads or JSON lines). */
  function hostileCopy(body: Uint8Array): string {
    const text = new TextDecoder().decode(body);
    const sse = text.includes('data:');
    return text
      .split('\n')
      .map((line) => {
        const json = sse ? (line.startsWith('data:') ? line.slice(5).trim() : undefined) : line.trim();
        if (!json || !(json.startsWith('{') || json.startsWith('['))) return line;
        let value: unknown;
        try {
          value = JSON.parse(json);
        } catch {
          return line;
        }
        const changed = JSON.stringify(withInheritedNames(value));
        return sse ? `data: ${changed}` : changed;
      })
      .join('\n');
  }

  // Every capture of the matrix, through the decoder `auto` picks for it, one test per framework.
  const byFramework = new Map<string, { name: string; body: Uint8Array }[]>();
  for (const input of matrixInputs()) {
    const framework = detectInput(input.body);
    if (framework) byFramework.set(framework, [...(byFramework.get(framework) ?? []), input]);
  }
  for (const [framework, inputs] of byFramework) {
    test(`${framework} (${inputs.length} captures): no decoder_error, a clean end`, () => {
      for (const input of inputs) {
        const out = hostileCopy(input.body);
        const events = drain(framed(createDecoder(framework as Parameters<typeof createDecoder>[0], OPTIONS)), [out]);
        const failed = events.filter((e) => e.type === 'error' && e.code === 'decoder_error');
        assert.deepEqual(
          failed.map((e) => `${input.name}: ${(e as { message: string }).message}`),
          [],
        );
        assert.equal(events.at(-1)?.type, 'run-finish', input.name);
      }
    });
  }
});
