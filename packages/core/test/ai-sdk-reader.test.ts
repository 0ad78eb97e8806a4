/**
 * The AI SDK UI message stream reader (`protocols/ai-sdk/reader.ts`): the official server's output
 * (`*.aisdk-ref.sse`) reads into valid canonical streams that assemble, through our encoder, into the
 * same message the official client assembles from the reference; canonical → ai-sdk → canonical is the
 * identity up to the documented losses (every Anthropic capture, split at random points); bad input;
 * detection; linear time.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { assembleUIMessage, summarizeMessage } from '../../../test/support/ai-sdk-oracle.ts';
import { stringWork } from '../../../test/support/work-meter.ts';
import {
  type CanonicalEvent,
  type Citation,
  createAiSdkEncoder,
  createDecoder,
  Emitter,
  type EventInit,
  framed,
  type Json,
  type ProviderMetadata,
  pipe,
  sseFramer,
} from '../src/index.ts';
import { type AiSdkDecoderOptions, createAiSdkDecoder, detectAiSdk } from '../src/protocols/ai-sdk/reader.ts';
import { validate } from '../src/schema.ts';
import { FIXTURES, types } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const OPTS = { runId: 'run', now: () => 0 };

/** Reads an SSE / JSON-lines body given in chunks. */
function read(chunks: (string | Uint8Array)[], options: AiSdkDecoderOptions = {}): CanonicalEvent[] {
  const m = framed(createAiSdkDecoder({ ...OPTS, ...options }));
  const out: CanonicalEvent[] = [];
  for (const c of chunks) out.push(...m.push(c));
  out.push(...m.end());
  return out;
}

/** Reads chunk objects. */
function readObjects(values: unknown[], options: AiSdkDecoderOptions = {}): CanonicalEvent[] {
  const d = createAiSdkDecoder({ ...OPTS, ...options });
  const out: CanonicalEvent[] = [];
  values.forEach((v, i) => {
    out.push(...d.push(v, { line: i + 1 }));
  });
  out.push(...d.end());
  return out;
}

/** Our encoder's SSE body for canonical events. */
function toSse(events: CanonicalEvent[], namespace?: string): string {
  const m = pipe(createAiSdkEncoder(namespace ? { namespace } : {}), sseFramer('ai-sdk'));
  const out: string[] = [];
  for (const e of events) out.push(...m.push(e));
  out.push(...m.end());
  return out.join('');
}

/** The chunk objects of an SSE body. */
function chunksOf(sse: string): Record<string, unknown>[] {
  return sse
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)));
}

function split<T extends { length: number; slice(a: number, b: number): T }>(whole: T, cuts: number[]): T[] {
  const sorted = [...new Set(cuts)].sort((a, b) => a - b);
  const parts: T[] = [];
  let last = 0;
  for (const c of [...sorted, whole.length]) {
    parts.push(whole.slice(last, c));
    last = c;
  }
  return parts;
}

const text = (events: CanonicalEvent[]) => events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join('');

// ---------------------------------------------------------------------------------------------
// The official server's output
// ---------------------------------------------------------------------------------------------

const REFS = ['anthropic', 'openai-chat', 'openai-responses'].flatMap((dir) =>
  readdirSync(`${FIXTURES}${dir}`)
    .filter((f) => f.endsWith('.aisdk-ref.sse'))
    .map((f) => `${dir}/${f}`),
);

describe('AI SDK reader: the official server output (*.aisdk-ref.sse)', () => {
  test('there are reference streams to read', () => assert.ok(REFS.length >= 7, REFS.join()));

  for (const ref of REFS) {
    const body = readFileSync(`${FIXTURES}${ref}`, 'utf8');
    const chunks = chunksOf(body);

    test(`${ref}: a valid canonical stream that assembles into the official client's message`, async () => {
      const events = read([body]);
      assert.deepEqual(validate(events).issues, []);
      const start = events[0];
      assert.equal(start?.type === 'run-start' && start.messageId, 'msg_ref');
      const finish = chunks.find((c) => c.type === 'finish');
      const last = events.at(-1);
      assert.equal(last?.type, 'run-finish');
      assert.equal(last?.type === 'run-finish' && last.finishReason, (finish?.finishReason as string | undefined) ?? 'error');
      if (!finish) assert.ok(events.some((e) => e.type === 'error' && e.fatal));
      // Our encoder's rendering of what we read assembles into the same message as the reference.
      const official = summarizeMessage(await assembleUIMessage(body));
      const ours = summarizeMessage(await assembleUIMessage(toSse(events)));
      assert.deepEqual(ours, official);
    });

    test(`${ref}: lossless`, () => {
      const events = read([body]);
      // `type` discriminates chunks (it becomes the event kind); nothing else is structural.
      assert.deepEqual(missingLeaves(chunks, events, { ignore: (path) => path === 'type' }), []);
    });

    test(`${ref}: the same bytes split anywhere give the same events`, () => {
      const bytes = new Uint8Array(readFileSync(`${FIXTURES}${ref}`));
      const whole = read([bytes]);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 30 }), (cuts) => {
          assert.deepEqual(read(split(bytes, cuts)), whole);
        }),
        { numRuns: 60 },
      );
    });
  }

  test('error-overloaded: the error before finish {error} is fatal; the open text is closed; the run ends with error', () => {
    const events = read([readFileSync(`${FIXTURES}anthropic/error-overloaded.aisdk-ref.sse`)]);
    assert.deepEqual(types(events), [
      'run-start',
      'step-start',
      'custom',
      'text-start',
      'text-delta',
      'error',
      'text-end',
      'step-finish',
      'run-finish',
    ]);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error');
    assert.equal(err.message, 'Overloaded');
    assert.equal(err.fatal, true);
    assert.deepEqual(err.where, { event: 6 });
    assert.equal(text(events), 'Let me think about');
  });

  test('thinking-text-tool-use: the signature carried by an empty reasoning-delta lands on reasoning-end', () => {
    const events = read([readFileSync(`${FIXTURES}anthropic/thinking-text-tool-use.aisdk-ref.sse`)]);
    const end = events.find((e) => e.type === 'reasoning-end');
    assert.deepEqual(end?.type === 'reasoning-end' && end.providerMetadata, {
      anthropic: { signature: 'EqQBCkYIBxgCKkBz1Xq5V9bY0xw3PjcTgR2h6u6pK1sQvE0Zr8' },
    });
    assert.equal(events.filter((e) => e.type === 'reasoning-delta').length, 3, 'the empty delta carries no text and is not passed on');
    const custom = events.find((e) => e.type === 'custom');
    assert.equal(custom?.type === 'custom' && custom.name, 'anthropic.message_start');
    const call = events.find((e) => e.type === 'tool-input-end');
    assert.deepEqual(call?.type === 'tool-input-end' && call.input, {
      location: 'San Francisco, CA',
      note: 'café "quoted" \\ back\nslash',
      unit: 'celsius',
      days: 12.5,
      include_hourly: true,
    });
  });

  test('openai-responses reasoning: two reasoning parts, providerMetadata of deltas merged into the end', () => {
    const events = read([readFileSync(`${FIXTURES}openai-responses/reasoning-summary-text.aisdk-ref.sse`)]);
    const ends = events.filter((e) => e.type === 'reasoning-end');
    assert.deepEqual(
      ends.map((e) => e.type === 'reasoning-end' && e.providerMetadata),
      [{ openai: { itemId: 'rs_0a1' } }, { openai: { itemId: 'rs_0a1', reasoningEncryptedContent: 'gAAAAABo_enc_blob' } }],
    );
    const starts = events.filter((e) => e.type === 'reasoning-start');
    assert.deepEqual(
      starts.map((e) => e.type === 'reasoning-start' && e.providerMetadata),
      [
        { openai: { itemId: 'rs_0a1', reasoningEncryptedContent: null } },
        { openai: { itemId: 'rs_0a1', reasoningEncryptedContent: null } },
      ],
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Round trip: canonical → ai-sdk → canonical
// ---------------------------------------------------------------------------------------------

type Loose = Record<string, unknown>;

function mergePm(a: ProviderMetadata | undefined, b: ProviderMetadata | undefined): ProviderMetadata | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: ProviderMetadata = { ...a };
  for (const k in b) out[k] = { ...a[k], ...b[k] };
  return out;
}

/** What the AI SDK citation keeps of a canonical citation. */
function citationAfterTrip(c: Citation): Loose {
  const out: Loose =
    c.kind === 'url' && c.url !== undefined
      ? { kind: 'url', url: c.url, ...(c.title !== undefined ? { title: c.title } : {}) }
      : { kind: 'document', title: c.title ?? 'Document' };
  if (c.citedText !== undefined) out.citedText = c.citedText;
  if (c.startIndex !== undefined) out.startIndex = c.startIndex;
  if (c.endIndex !== undefined) out.endIndex = c.endIndex;
  return out;
}

/**
 * The documented losses of canonical → ai-sdk → canonical (docs/protocols/ai-sdk.md), applied to the
 * original stream; `trip` marks the stream that made the trip (whose extra citation sources go).
 */
function afterTrip(events: CanonicalEvent[], trip: boolean): Loose[] {
  const out: Loose[] = [];
  const startPm = new Map<string, ProviderMetadata | undefined>();
  const citations = new Map<string, Loose[]>();
  const seenUrls = new Set<string>();
  const calls = new Set<string>();
  // A fatal error goes out after the parts closed right after it (the encoder holds it).
  let heldFatal: Loose | undefined;
  const closing = new Set(['text-end', 'reasoning-end', 'tool-input-end', 'citation', 'raw']);
  for (const e of events) {
    const { seq: _s, ts: _t, ...rest } = e as Loose & CanonicalEvent;
    const r = rest as Loose;
    if (heldFatal && !closing.has(e.type)) {
      out.push(heldFatal);
      heldFatal = undefined;
    }
    switch (e.type) {
      case 'raw':
        continue; // the UI stream has no place for unmapped input
      case 'run-start':
        out.push({ type: e.type, runId: e.runId, messageId: e.messageId, ...(e.metadata ? { metadata: e.metadata } : {}) });
        continue;
      case 'step-start':
      case 'step-finish':
        out.push({ type: e.type }); // step ids, model, usage and finish reasons of steps are not sent
        continue;
      case 'run-finish':
        out.push({ type: e.type, finishReason: e.finishReason, ...(e.usage ? { usage: e.usage } : {}) });
        continue;
      case 'error':
        if (e.fatal && !trip) heldFatal = { type: e.type, message: e.message, fatal: e.fatal };
        else out.push({ type: e.type, message: e.message, fatal: e.fatal });
        continue;
      case 'reasoning-start':
        startPm.set(e.blockId, e.providerMetadata);
        break;
      case 'reasoning-end': {
        // The encoder repeats the start's metadata on the end chunk (the client replaces a part's metadata).
        const pm = trip ? e.providerMetadata : mergePm(startPm.get(e.blockId), e.providerMetadata);
        out.push({ type: e.type, runId: e.runId, blockId: e.blockId, ...(pm ? { providerMetadata: pm } : {}) });
        continue;
      }
      case 'citation': {
        // Citations travel on text-end: they come back just before it, without their raw object.
        const list = citations.get(e.blockId) ?? [];
        list.push({ type: e.type, runId: e.runId, blockId: e.blockId, citation: citationAfterTrip(e.citation) });
        citations.set(e.blockId, list);
        if (!trip && e.citation.kind === 'url' && e.citation.url !== undefined) seenUrls.add(e.citation.url);
        continue;
      }
      case 'text-end':
        out.push(...(citations.get(e.blockId) ?? []));
        citations.delete(e.blockId);
        break;
      case 'source':
        // A source per new URL of a citation is added by the encoder; sources repeating a URL are dropped.
        if (trip && /^citation-\d+$/.test(e.sourceId)) continue;
        if (!trip && e.kind === 'url' && e.url !== undefined) {
          if (seenUrls.has(e.url)) continue;
          seenUrls.add(e.url);
        }
        break;
      case 'tool-input-start':
      case 'tool-input-end':
        calls.add(e.toolCallId);
        break;
      case 'tool-output':
      case 'tool-error':
        // The UI chunk has no toolName (the reader takes it from the call); tool-error has no output.
        if (!trip && !calls.has(e.toolCallId)) {
          calls.add(e.toolCallId);
          out.push({ type: 'tool-input-end', runId: e.runId, toolCallId: e.toolCallId, toolName: e.toolName ?? 'unknown', input: {} });
        }
        delete r.toolName;
        if (e.type === 'tool-error') delete r.output;
        break;
    }
    out.push(r);
  }
  if (heldFatal) out.push(heldFatal);
  return out;
}

const ANTHROPIC = [
  ...readdirSync(`${FIXTURES}anthropic`)
    .filter((f) => f.endsWith('.sse') && !f.endsWith('.aisdk-ref.sse'))
    .map((f) => `anthropic/${f}`),
  ...readdirSync(`${FIXTURES}recorded/anthropic`).map((f) => `recorded/anthropic/${f}`),
];

describe('AI SDK reader: canonical → ai-sdk → canonical is the identity up to the documented losses', () => {
  test('there are Anthropic captures', () => assert.ok(ANTHROPIC.length > 50));

  for (const file of ANTHROPIC) {
    test(file, () => {
      const m = framed(createDecoder('anthropic', OPTS));
      const original = [...m.push(readFileSync(`${FIXTURES}${file}`)), ...m.end()];
      const sse = toSse(original);
      const expected = afterTrip(original, false);
      const whole = read([sse]);
      assert.deepEqual(validate(whole).issues, []);
      assert.deepEqual(afterTrip(whole, true), expected);
      // Lossless against what the encoder sent: every chunk leaf is in what we read back.
      // Structural: `type`; the run total's data part id "usage" and its scope "total" (it becomes run-finish usage).
      const structural = (path: string, value: string | number) =>
        path === 'type' || (path === 'id' && value === 'usage') || (path === 'data.scope' && value === 'total');
      assert.deepEqual(missingLeaves(chunksOf(sse), whole, { ignore: structural }), []);
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 1, max: sse.length - 1 }), { maxLength: 25 }), (cuts) => {
          assert.deepEqual(read(split(sse, cuts)), whole);
        }),
        { numRuns: 15 },
      );
    });
  }

  test('every canonical event kind our encoder maps: exact round trip (variant, data parts, abort)', () => {
    const out = new Emitter(OPTS, 'test');
    const inits: EventInit[] = [
      { type: 'step-start', stepId: 'step-1', kind: 'model' },
      { type: 'reasoning-start', blockId: 'p1', variant: 'processing' },
      { type: 'reasoning-delta', blockId: 'p1', delta: 'Searching…' },
      { type: 'reasoning-end', blockId: 'p1' },
      { type: 'reasoning-start', blockId: 'r1', variant: 'thinking', providerMetadata: { anthropic: { redactedData: 'X' } } },
      { type: 'reasoning-end', blockId: 'r1', providerMetadata: { anthropic: { redactedData: 'X' } } },
      { type: 'status', status: 'searching', message: 'Searching the web' },
      { type: 'todos', change: 'create', todos: [{ id: 't1', content: 'Look', status: 'in_progress', activeForm: 'Looking' }] },
      { type: 'subagent-start', subagentId: 's1', name: 'researcher', task: 'Find', parentToolCallId: 'c1' },
      { type: 'subagent-finish', subagentId: 's1', result: 'Found' },
      { type: 'state-snapshot', state: { city: 'Paris' } },
      { type: 'state-delta', patch: [{ op: 'replace', path: '/city', value: 'Rome' }] },
      { type: 'custom', name: 'anthropic.fallback', value: { from: 'a', to: 'b' } },
      { type: 'usage', scope: 'increment', usage: { inputTokens: 3, outputTokens: 1, raw: { x: 1 } }, durationMs: 12 },
      { type: 'tool-input-start', toolCallId: 'c1', toolName: 'search', providerExecuted: true },
      { type: 'tool-input-delta', toolCallId: 'c1', delta: '{"q":' },
      { type: 'tool-input-delta', toolCallId: 'c1', delta: '"x"}' },
      { type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'x' }, providerExecuted: true },
      { type: 'tool-output', toolCallId: 'c1', toolName: 'search', output: [1, 2], providerExecuted: true, preliminary: true },
      { type: 'tool-input-end', toolCallId: 'c2', toolName: 'bad', input: '{oops', inputError: 'not JSON' },
      { type: 'tool-error', toolCallId: 'c2', toolName: 'bad', error: 'failed' },
      { type: 'source', sourceId: 'd1', kind: 'document', title: 'Doc', mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', url: 'data:image/png;base64,AA==', mediaType: 'image/png' },
      { type: 'text-start', blockId: 'x1' },
      { type: 'text-delta', blockId: 'x1', delta: 'Hi' },
      { type: 'text-end', blockId: 'x1' },
      { type: 'step-finish', stepId: 'step-1' },
      { type: 'run-abort', reason: 'client gone' },
    ];
    out.start({ messageId: 'm1', metadata: { user: 'u1' } });
    for (const e of inits) out.emit(e);
    const original = out.take();
    // (`mobox` also adds its formatter's blocks — todos as processing text —, tested in test/ai-sdk-conformance.test.ts.)
    for (const ns of [undefined, 'acme']) {
      const back = read([toSse(original, ns)], ns ? { namespace: ns } : {});
      assert.deepEqual(validate(back).issues, []);
      assert.deepEqual(afterTrip(back, true), afterTrip(original, false), String(ns));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Mapping details
// ---------------------------------------------------------------------------------------------

describe('AI SDK reader: mapping', () => {
  test('reused part ids (one per step in the official Anthropic path) get unique block ids', () => {
    const events = readObjects([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'a' },
      { type: 'text-end', id: '0' },
      { type: 'finish-step' },
      { type: 'start-step' },
      { type: 'reasoning-start', id: '0' },
      { type: 'reasoning-end', id: '0' },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'b' },
      { type: 'text-end', id: '0' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      events.filter((e) => e.type === 'text-start' || e.type === 'reasoning-start').map((e) => 'blockId' in e && e.blockId),
      ['0', '0:2', '0:3'],
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'step-start').map((e) => e.type === 'step-start' && e.stepId),
      ['step-1', 'step-2'],
    );
  });

  test('the reasoning variant: configured namespace, switchboard and mobox; other metadata kept', () => {
    const run = (pm: Json, namespace?: string) =>
      readObjects([{ type: 'reasoning-start', id: 'r', providerMetadata: pm }, { type: 'reasoning-end', id: 'r' }, { type: 'finish' }], {
        ...(namespace ? { namespace } : {}),
      }).find((e) => e.type === 'reasoning-start');
    assert.deepEqual(run({ switchboard: { variant: 'processing' } }), {
      type: 'reasoning-start',
      blockId: 'r',
      variant: 'processing',
      runId: 'run',
      seq: 1,
      ts: 0,
    });
    assert.equal(
      run({ mobox: { variant: 'processing' } })?.type === 'reasoning-start' && run({ mobox: { variant: 'processing' } })?.variant,
      'processing',
    );
    const own = run({ acme: { variant: 'processing', keep: 1 }, anthropic: { signature: 's' } }, 'acme');
    assert.ok(own?.type === 'reasoning-start');
    assert.equal(own.variant, 'processing');
    assert.deepEqual(own.providerMetadata, { acme: { keep: 1 }, anthropic: { signature: 's' } });
    const none = run({ openai: { itemId: 'i' } });
    assert.ok(none?.type === 'reasoning-start');
    assert.equal(none.variant, 'thinking');
    assert.deepEqual(none.providerMetadata, { openai: { itemId: 'i' } });
  });

  test('citations on text-end become citation events inside the block; sources and files map', () => {
    const events = readObjects([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Paris.' },
      { type: 'source-url', sourceId: 's1', url: 'https://a.example', title: 'A', providerMetadata: { anthropic: { pageAge: 'x' } } },
      {
        type: 'text-end',
        id: 't',
        citations: [
          {
            source: { type: 'source', sourceType: 'url', id: 's1', url: 'https://a.example', title: 'A' },
            citedText: 'Paris',
            startIndex: 0,
            endIndex: 5,
          },
          { source: { type: 'source', sourceType: 'document', id: 'd', mediaType: 'text/plain', title: 'Doc' } },
        ],
      },
      { type: 'source-document', sourceId: 'd', mediaType: 'application/pdf', title: 'Doc', filename: 'd.pdf' },
      { type: 'file', url: 'https://a.example/x.png', mediaType: 'image/png' },
      { type: 'reasoning-file', url: 'data:image/png;base64,AA==', mediaType: 'image/png' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(types(events).slice(1, 8), ['text-start', 'text-delta', 'source', 'citation', 'citation', 'text-end', 'source']);
    const c = events.filter((e) => e.type === 'citation');
    assert.deepEqual(
      c.map((e) => e.type === 'citation' && { ...e.citation, raw: undefined }),
      [
        { kind: 'url', url: 'https://a.example', title: 'A', citedText: 'Paris', startIndex: 0, endIndex: 5, raw: undefined },
        { kind: 'document', title: 'Doc', raw: undefined },
      ],
    );
    const doc = events.find((e) => e.type === 'source' && e.kind === 'document');
    assert.deepEqual(doc?.type === 'source' && [doc.mediaType, doc.filename], ['application/pdf', 'd.pdf']);
    const files = events.filter((e) => e.type === 'file');
    assert.deepEqual(
      files.map((e) => e.type === 'file' && e.providerMetadata),
      [undefined, { 'ai-sdk': { type: 'reasoning-file' } }],
    );
  });

  test('tool chunks: input error, output error, denied, approvals, dynamic/title kept; outputs name their tool', () => {
    const events = readObjects([
      { type: 'tool-input-start', toolCallId: 'a', toolName: 'w', dynamic: true, title: 'Weather' },
      { type: 'tool-input-delta', toolCallId: 'a', inputTextDelta: '{"c"' },
      { type: 'tool-input-error', toolCallId: 'a', toolName: 'w', input: '{"c"', errorText: 'bad JSON' },
      { type: 'tool-output-error', toolCallId: 'a', errorText: 'boom' },
      { type: 'tool-input-available', toolCallId: 'b', toolName: 'rm', input: { path: '/' } },
      { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'b' },
      { type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: 'no' },
      { type: 'tool-output-denied', toolCallId: 'b' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    const start = events.find((e) => e.type === 'tool-input-start');
    assert.deepEqual(start?.type === 'tool-input-start' && start.providerMetadata, { 'ai-sdk': { dynamic: true, title: 'Weather' } });
    const ends = events.filter((e) => e.type === 'tool-input-end');
    assert.deepEqual(
      ends.map((e) => e.type === 'tool-input-end' && [e.input, e.inputError]),
      [
        ['{"c"', 'bad JSON'],
        [{ path: '/' }, undefined],
      ],
    );
    const errors = events.filter((e) => e.type === 'tool-error');
    assert.deepEqual(
      errors.map((e) => e.type === 'tool-error' && [e.toolName, e.error, e.providerMetadata]),
      [['w', 'boom', undefined]],
    );
    // Approvals are canonical events; the denial is the approval answer (tool-output-denied adds nothing).
    assert.deepEqual(
      events.filter((e) => e.type.startsWith('tool-approval')).map(({ runId: _r, seq: _s, ts: _t, ...e }) => e),
      [
        { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'b', toolName: 'rm' },
        { type: 'tool-approval-response', approvalId: 'ap1', toolCallId: 'b', approved: false, reason: 'no' },
      ],
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'custom'),
      [],
    );
  });

  test("the official server's bare tool-output-denied (a continuation) is a denial; data-interrupt parts are interrupts", () => {
    const events = readObjects([
      { type: 'start', messageId: 'm' },
      { type: 'tool-output-denied', toolCallId: 'b' },
      { type: 'tool-approval-response', approvalId: 'ap2', approved: false },
      { type: 'tool-output-denied', toolCallId: 'c' },
      { type: 'data-interrupt', id: 'i1', data: { interruptId: 'i1', reason: 'input_required', message: 'Which city?' } },
      { type: 'data-interrupt-response', id: 'i1', data: { interruptId: 'i1', status: 'resolved', payload: 'Paris' } },
      { type: 'data-interrupt', id: 'i2', data: { interruptId: 'i2' } }, // no reason: not our shape
      { type: 'finish', finishReason: 'stop' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(
      events.filter((e) => e.type !== 'run-start' && e.type !== 'run-finish').map(({ runId: _r, seq: _s, ts: _t, ...e }) => e),
      [
        {
          type: 'tool-approval-response',
          approvalId: 'b',
          toolCallId: 'b',
          approved: false,
          providerMetadata: { 'ai-sdk': { deniedOnly: true } },
        },
        { type: 'tool-approval-response', approvalId: 'ap2', approved: false },
        { type: 'interrupt', interruptId: 'i1', reason: 'input_required', message: 'Which city?' },
        { type: 'interrupt-response', interruptId: 'i1', status: 'resolved', payload: 'Paris' },
        { type: 'custom', name: 'data-interrupt', value: { id: 'i2', data: { interruptId: 'i2' } } },
      ],
    );
  });

  test("data parts: our encoder's shapes map back; anything else is a custom event with the chunk as value", () => {
    const events = readObjects([
      { type: 'start', messageId: 'm', messageMetadata: { a: 1 } },
      { type: 'data-weather', id: 'w1', data: { city: 'Paris' } },
      { type: 'data-todos', data: { todos: [] } }, // no "change": not our shape
      { type: 'data-status', data: { status: 'x' }, transient: true },
      { type: 'message-metadata', messageMetadata: { b: 2 } },
      { type: 'custom', kind: 'acme.ping', providerMetadata: { acme: { n: 1 } } },
      { type: 'data-usage', id: 'usage', data: { scope: 'total', inputTokens: 5, outputTokens: 2, totalTokens: 7 } },
      { type: 'finish', finishReason: 'stop', messageMetadata: { c: 3 } },
    ]);
    assert.deepEqual(validate(events).issues, []);
    const start = events[0];
    assert.deepEqual(start?.type === 'run-start' && [start.messageId, start.metadata], ['m', { a: 1 }]);
    assert.deepEqual(
      events.filter((e) => e.type === 'custom').map((e) => e.type === 'custom' && [e.name, e.value]),
      [
        ['data-weather', { id: 'w1', data: { city: 'Paris' } }],
        ['data-todos', { data: { todos: [] } }],
        ['message-metadata', { messageMetadata: { b: 2 } }],
        ['acme.ping', { providerMetadata: { acme: { n: 1 } } }],
      ],
    );
    assert.equal(events.find((e) => e.type === 'status')?.type, 'status');
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    assert.deepEqual(finish.usage, { inputTokens: 5, outputTokens: 2, totalTokens: 7 });
    assert.deepEqual(finish.providerMetadata, { 'ai-sdk': { messageMetadata: { c: 3 } } });
  });

  test('an error followed by more content is not fatal; the run goes on', () => {
    const events = readObjects([
      { type: 'start' },
      { type: 'text-start', id: 't' },
      { type: 'error', errorText: 'tool crashed' },
      { type: 'text-end', id: 't' },
      { type: 'text-start', id: 'u' },
      { type: 'text-delta', id: 'u', delta: 'Recovered.' },
      { type: 'text-end', id: 'u' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && !err.fatal && err.where?.line === 3);
    assert.deepEqual(types(events).slice(2, 5), ['error', 'text-end', 'text-start'], 'held chunks keep their order');
    const last = events.at(-1);
    assert.equal(last?.type === 'run-finish' && last.finishReason, 'stop');
  });

  test("the official 'failed before any step' shape (start, error, [DONE]): one fatal error, no truncation error", () => {
    const events = read([
      'data: {"type":"start","messageId":"m"}\n\ndata: {"type":"error","errorText":"Invalid API key"}\n\ndata: [DONE]\n\n',
    ]);
    assert.deepEqual(types(events), ['run-start', 'error', 'run-finish']);
    const err = events[1];
    assert.ok(err?.type === 'error' && err.fatal && err.message === 'Invalid API key');
    assert.equal(events[2]?.type === 'run-finish' && events[2].finishReason, 'error');
  });

  test('abort closes what is open and ends the run', () => {
    const events = readObjects([
      { type: 'start' },
      { type: 'start-step' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hel' },
      { type: 'tool-input-start', toolCallId: 'c', toolName: 'x' },
      { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{"a":1,"b":' },
      { type: 'abort', reason: 'user stopped' },
      { type: 'text-delta', id: 't', delta: 'lo' },
    ]);
    assert.deepEqual(validate(events).issues, []);
    assert.deepEqual(types(events).slice(-4), ['text-end', 'tool-input-end', 'step-finish', 'run-abort']);
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end');
    assert.deepEqual(end.input, { a: 1 });
    assert.match(end.inputError ?? '', /aborted.*kept the members that arrived whole/);
  });
});

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

describe('AI SDK reader: bad input never throws and keeps what came before', () => {
  const lines = (...objs: unknown[]) => objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n');
  const start = { type: 'start', messageId: 'm' };
  const tStart = { type: 'text-start', id: 't' };
  const hello = { type: 'text-delta', id: 't', delta: 'Hello' };

  test('truncated stream: a fatal "truncated" error, open blocks and calls closed, the run ends with error', () => {
    const events = read([
      lines(start, { type: 'start-step' }, tStart, hello, { type: 'tool-input-start', toolCallId: 'c', toolName: 'x' }),
    ]);
    assert.equal(text(events), 'Hello');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated' && err.fatal);
    assert.deepEqual(types(events).slice(-5), ['error', 'text-end', 'tool-input-end', 'step-finish', 'run-finish']);
    assert.equal(events.at(-1)?.type === 'run-finish' && (events.at(-1) as { finishReason: string }).finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON line: located error, decoding goes on', () => {
    const events = read([
      lines(start, tStart, hello, 'not json', { ...hello, delta: '!' }, { type: 'text-end', id: 't' }, { type: 'finish' }),
    ]);
    assert.equal(text(events), 'Hello!');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'invalid_json' && !err.fatal);
    assert.equal(err.where?.line, 4);
    assert.equal(events.at(-1)?.type, 'run-finish');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an unknown chunk type: a raw event, untouched and located', () => {
    const odd = { type: 'future-chunk', payload: { x: 1 } };
    const events = readObjects([start, odd, { type: 'finish' }]);
    const raw = events.find((e) => e.type === 'raw');
    assert.ok(raw?.type === 'raw');
    assert.deepEqual(raw.event, odd);
    assert.equal(raw.source, 'ai-sdk');
    assert.deepEqual(raw.where, { line: 2 });
    assert.match(raw.reason ?? '', /unknown chunk type "future-chunk"/);
  });

  test('a delta for a part never started: located error, the part is started so the text is kept', () => {
    const events = readObjects([start, hello, { type: 'text-end', id: 't' }, { type: 'finish' }]);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'unknown_block' && !err.fatal);
    assert.deepEqual(err.where, { line: 2, field: 'id', expected: 'the id of an open text part' });
    assert.equal(text(events), 'Hello');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a tool input delta for a call never started; an end for a part not open: located errors', () => {
    const events = readObjects([
      start,
      { type: 'tool-input-delta', toolCallId: 'zz', inputTextDelta: '{' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'finish' },
    ]);
    assert.deepEqual(
      events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && [e.code, e.where]),
      [
        ['unknown_tool_call', { line: 2, field: 'toolCallId', expected: 'the id of a tool call whose input is streaming' }],
        ['unknown_block', { line: 3, field: 'id', expected: 'the id of an open reasoning part' }],
      ],
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('values of the wrong type: located errors', () => {
    const events = readObjects([
      start,
      42,
      { no: 'type' },
      { type: 'text-delta', id: 't', delta: 5 },
      { type: 'reasoning-start', id: 'r', providerMetadata: { anthropic: 'sig' } },
      { type: 'tool-output-available', toolCallId: 'c' },
      { type: 'finish', finishReason: 7 },
    ]);
    assert.deepEqual(
      events.filter((e) => e.type === 'error').map((e) => e.type === 'error' && e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'type', expected: 'a string chunk type' },
        { line: 4, field: 'delta', expected: 'a string' },
        { line: 5, field: 'providerMetadata.anthropic', expected: 'an object' },
        { line: 6, field: 'output', expected: 'the tool output (any JSON value)' },
        { line: 7, field: 'finishReason', expected: 'a finish reason string' },
      ],
    );
    assert.match(
      (events.find((e) => e.type === 'error' && e.where?.line === 4) as { message: string }).message,
      /^line 4, field delta: expected a string, got number/,
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('empty input: one fatal error and a finished run', () => {
    const events = read(['']);
    assert.deepEqual(types(events), ['run-start', 'error', 'run-finish']);
    assert.equal(events[1]?.type === 'error' && events[1].code, 'empty');
  });
});

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

function valuesOf(path: string): unknown[] {
  const body = readFileSync(path, 'utf8');
  const first = body.trimStart()[0];
  if (first === '{' || first === '[') {
    return body
      .split('\n')
      .filter((l) => l.trim() !== '')
      .flatMap((l) => {
        try {
          return [JSON.parse(l)];
        } catch {
          return [];
        }
      });
  }
  return body
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l.slice(5))];
      } catch {
        return [];
      }
    });
}

describe('AI SDK reader: detection', () => {
  test('every chunk of the official reference streams is recognised', () => {
    for (const ref of REFS)
      for (const c of chunksOf(readFileSync(`${FIXTURES}${ref}`, 'utf8'))) assert.ok(detectAiSdk(c), JSON.stringify(c));
  });

  test('no value of any other recorded format is claimed (Anthropic error events, agent lines, Responses, …)', () => {
    const dirs = [
      'recorded/anthropic',
      'recorded/openai-chat',
      'recorded/openai-responses',
      'recorded/gemini',
      'recorded/langchain',
      'recorded/ag-ui',
      'recorded/openai-compatible',
      'langchain',
      'anthropic',
      'openai-chat',
      'openai-responses',
    ];
    let checked = 0;
    for (const dir of dirs) {
      for (const f of readdirSync(`${FIXTURES}${dir}`)) {
        if (f.endsWith('.aisdk-ref.sse') || f.endsWith('.json') || f.endsWith('.md')) continue;
        for (const v of valuesOf(`${FIXTURES}${dir}/${f}`)) {
          checked++;
          assert.equal(detectAiSdk(v), false, `${dir}/${f}: ${JSON.stringify(v).slice(0, 200)}`);
        }
      }
    }
    assert.ok(checked > 1000);
    for (const v of [
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      { type: 'start', data: { model: 'x' } },
      { type: 'error', data: { message: 'x' } },
      { type: 'text', data: { content: 'x' } },
      { type: 'text-delta', id: '0', text: 'x' }, // AI SDK fullStream part
      { type: 'tool-input-start', id: 'c', toolName: 'x' }, // fullStream
      { type: 'finish-step', response: {}, usage: {}, finishReason: 'stop' }, // fullStream
    ])
      assert.equal(detectAiSdk(v), false, JSON.stringify(v));
  });
});

// ---------------------------------------------------------------------------------------------
// Linear time
// ---------------------------------------------------------------------------------------------

function textBody(n: number): string {
  let s = 'data: {"type":"start","messageId":"m"}\n\ndata: {"type":"start-step"}\n\ndata: {"type":"text-start","id":"t"}\n\n';
  for (let i = 0; i < n; i++) s += `data: {"type":"text-delta","id":"t","delta":"w${i % 10} "}\n\n`;
  return `${s}data: {"type":"text-end","id":"t"}\n\ndata: {"type":"finish-step"}\n\ndata: {"type":"finish","finishReason":"stop"}\n\ndata: [DONE]\n\n`;
}

function toolBody(n: number): string {
  // A cut-off call (no tool-input-available) is the one case where the deltas are parsed: once.
  let s =
    'data: {"type":"start"}\n\ndata: {"type":"tool-input-start","toolCallId":"c","toolName":"x"}\n\ndata: {"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{\\"a\\":\\""}\n\n';
  for (let i = 0; i < n; i++)
    s += `data: {"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"${String.fromCharCode(97 + (i % 26))}"}\n\n`;
  return `${s}data: {"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"\\"}"}\n\n`;
}

// Linearity is counted, not timed (test/support/work-meter.ts): 4x the input must not cost 5x the
// string work (quadratic would cost ~16x).
describe('AI SDK reader: linear work', () => {
  for (const [name, body, n] of [
    ['text deltas', textBody, 20_000],
    ['one-character tool input deltas', toolBody, 4_000],
  ] as const) {
    test(`${name}: ${n} vs ${4 * n}`, () => {
      const small = body(n);
      const large = body(4 * n);
      const events = read([large]);
      assert.equal(events.at(-1)?.type, 'run-finish');
      if (name === 'one-character tool input deltas') {
        const end = events.find((e) => e.type === 'tool-input-end');
        assert.equal(end?.type === 'tool-input-end' && (end.input as { a: string }).a.length, 4 * n);
      } else assert.equal(text(events).length, 4 * n * 3);
      const wSmall = stringWork(() => read([small]));
      const wLarge = stringWork(() => read([large]));
      assert.ok(wLarge / wSmall < 5, `${n}: ${wSmall} characters of string work, ${4 * n}: ${wLarge}`);
    });
  }
});
