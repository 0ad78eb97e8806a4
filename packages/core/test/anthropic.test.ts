import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createConverter, createSseEncoder } from '../src/index.ts';
import { validate } from '../src/schema.ts';
import { accumulate, assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES, fixture, types } from './helpers.ts';

const SSE_FIXTURES = ['text-basic', 'thinking-text-tool-use', 'error-overloaded'];

describe('Anthropic decoder: against the official SDK accumulator', () => {
  for (const name of ['text-basic', 'thinking-text-tool-use']) {
    test(`${name}: same content, stop reason and usage as @anthropic-ai/sdk finalMessage()`, () => {
      const events = decodeChunks([fixture(`anthropic/${name}.sse`)], 'anthropic');
      const expected = JSON.parse(fixture(`anthropic/${name}.final.json`).toString()).final;
      const got = accumulate(events);
      assert.deepEqual(got.content, expected.content);
      assert.equal(got.stopReason, expected.stop_reason);
      assert.deepEqual(got.usage, expected.usage, 'usage is kept whole (cache tokens, service tier)');
      assert.deepEqual(validate(events).issues, []);
    });
  }

  test('usage: cache tokens are counted and broken out', () => {
    const events = decodeChunks([fixture('anthropic/thinking-text-tool-use.sse')], 'anthropic');
    const finish = events.find((e) => e.type === 'run-finish');
    assert.ok(finish?.type === 'run-finish');
    assert.equal(finish.finishReason, 'tool-calls');
    assert.equal(finish.rawFinishReason, 'tool_use');
    assert.equal(finish.usage?.cacheReadTokens, 20480);
    assert.equal(finish.usage?.cacheWriteTokens, 1536);
    assert.equal(finish.usage?.inputTokens, 412 + 1536 + 20480);
    assert.equal(finish.usage?.outputTokens, 187);
  });

  test('error-overloaded: the text before the error is kept, then a fatal located error and a clean end', () => {
    const events = decodeChunks([fixture('anthropic/error-overloaded.sse')], 'anthropic');
    const got = accumulate(events);
    const snapshot = JSON.parse(fixture('anthropic/error-overloaded.final.json').toString()).snapshot;
    assert.deepEqual(got.content, snapshot.content);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error');
    assert.equal(err.code, 'overloaded_error');
    assert.equal(err.message, 'Overloaded');
    assert.equal(err.fatal, true);
    assert.deepEqual(err.where, { event: 5, sseEvent: 'error' });
    assert.deepEqual(err.providerMetadata, { anthropic: { request_id: 'req_011CQJ4Wb3tQ6wKJ2y7N4s' } });
    assert.deepEqual(types(events).slice(-3), ['text-end', 'step-finish', 'run-finish']);
    const last = events.at(-1);
    assert.equal(last?.type === 'run-finish' && last.finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('every recorded Anthropic capture decodes into a valid canonical stream', () => {
    const dir = `${FIXTURES}recorded/anthropic/`;
    for (const file of readdirSync(dir)) {
      const events = decodeChunks([fixture(`recorded/anthropic/${file}`)], 'auto');
      assert.equal(events[0]?.type === 'run-start' && events[0].provider, 'anthropic', file);
      assert.deepEqual(validate(events).issues, [], file);
      assert.equal(events.at(-1)?.type, 'run-finish', file);
    }
  });
});

describe('Anthropic decoder: chunk boundaries', () => {
  for (const name of SSE_FIXTURES) {
    test(`${name}: the same bytes split at random boundaries give identical events`, () => {
      const bytes = new Uint8Array(fixture(`anthropic/${name}.sse`));
      const whole = decodeChunks([bytes], 'anthropic');
      assertSplitInvariant(bytes, (chunks) => decodeChunks(chunks, 'anthropic'), { expected: whole, maxCuts: 40, numRuns: 200 });
    });
  }

  test('one byte at a time, including inside multi-byte UTF-8 characters', () => {
    const bytes = new Uint8Array(fixture('anthropic/text-basic.sse'));
    const whole = decodeChunks([bytes], 'anthropic');
    const singles = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(decodeChunks(singles, 'anthropic'), whole);
    const text = whole
      .filter((e) => e.type === 'text-delta')
      .map((e) => (e.type === 'text-delta' ? e.delta : ''))
      .join('');
    assert.match(text, /°/);
  });

  test('JSON lines and SSE of the same stream give the same events', () => {
    const sse = fixture('anthropic/thinking-text-tool-use.sse').toString();
    const jsonl = sse
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    const strip = (events: ReturnType<typeof decodeChunks>) => events.map(({ type, seq }) => ({ type, seq }));
    assert.deepEqual(strip(decodeChunks([jsonl], 'anthropic')), strip(decodeChunks([sse], 'anthropic')));
  });

  test('the converter gives one string per input chunk, the same text as the SSE encoder event by event', () => {
    const bytes = new Uint8Array(fixture('anthropic/thinking-text-tool-use.sse'));
    const options = { runId: 'run', now: () => 0 } as const;
    const converter = createConverter({ ...options, from: 'anthropic', to: 'ai-sdk' });
    const halves = [bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length >> 1)];
    const outputs = [...halves.map((h) => converter.push(h)), converter.end()];
    for (const out of outputs) assert.ok(out.length <= 1, `${out.length} strings for one chunk`);
    const sse = createSseEncoder('ai-sdk', { ids: false });
    const perEvent = [...decodeChunks([bytes], 'anthropic').flatMap((e) => sse.push(e)), ...sse.end()];
    assert.equal(outputs.flat().join(''), perEvent.join(''));
  });
});

describe('Anthropic decoder: bad input never throws and keeps what came before', () => {
  const start = { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 1, output_tokens: 1 } } };
  const textStart = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
  const hello = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } };
  const lines = (...objs: unknown[]) => objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n');
  const text = (events: ReturnType<typeof decodeChunks>) =>
    events
      .filter((e) => e.type === 'text-delta')
      .map((e) => (e.type === 'text-delta' ? e.delta : ''))
      .join('');

  test('truncated stream: a fatal "truncated" error, open blocks closed, the run ends with error', () => {
    const events = decodeChunks([lines(start, textStart, hello)], 'anthropic');
    assert.equal(text(events), 'Hello');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated' && err.fatal);
    assert.deepEqual(types(events).slice(-4), ['error', 'text-end', 'step-finish', 'run-finish']);
    assert.deepEqual(validate(events).issues, []);
  });

  test('truncated mid-line: the partial JSON line is a located invalid_json error', () => {
    const body = `${lines(start, textStart, hello)}\n{"type":"content_block_delta","index":0,"delta":{"type":"text_de`;
    const events = decodeChunks([body], 'anthropic');
    assert.equal(text(events), 'Hello');
    const err = events.find((e) => e.type === 'error' && e.code === 'invalid_json');
    assert.ok(err?.type === 'error');
    assert.deepEqual(err.where, { line: 4, expected: 'JSON' });
    assert.match(err.message, /^line 4: expected a JSON value/);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON line in the middle: located error, decoding goes on', () => {
    const more = { ...hello, delta: { type: 'text_delta', text: ' world' } };
    const events = decodeChunks(
      [lines(start, textStart, hello, 'this is not json', more, { type: 'content_block_stop', index: 0 }, { type: 'message_stop' })],
      'anthropic',
    );
    assert.equal(text(events), 'Hello world');
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'invalid_json' && !err.fatal);
    assert.equal(err.where?.line, 4);
    const last = events.at(-1);
    assert.equal(last?.type === 'run-finish' && last.finishReason, 'other');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON SSE event is located by its SSE event number', () => {
    const body = `event: message_start\ndata: ${JSON.stringify(start)}\n\nevent: content_block_start\ndata: {oops\n\n`;
    const events = decodeChunks([body], 'anthropic');
    const err = events.find((e) => e.type === 'error' && e.code === 'invalid_json');
    assert.ok(err?.type === 'error');
    assert.deepEqual(err.where, { event: 2, sseEvent: 'content_block_start', expected: 'JSON' });
  });

  test('an unknown event type becomes a raw event, untouched', () => {
    const odd = { type: 'message_future_feature', payload: { x: 1 } };
    const events = decodeObjects([start, odd, { type: 'message_stop' }], 'anthropic');
    const raw = events.find((e) => e.type === 'raw');
    assert.ok(raw?.type === 'raw');
    assert.deepEqual(raw.event, odd);
    assert.equal(raw.source, 'anthropic');
    assert.deepEqual(raw.where, { line: 2 });
    assert.match(raw.reason ?? '', /unknown event type "message_future_feature"/);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a delta for a block index that was never started: located error, nothing lost', () => {
    const stray = { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'lost?' } };
    const events = decodeObjects(
      [start, textStart, hello, stray, { type: 'content_block_stop', index: 0 }, { type: 'message_stop' }],
      'anthropic',
    );
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'unknown_block' && !err.fatal);
    assert.deepEqual(err.where, { line: 4, field: 'index', expected: 'the index of an open content block' });
    assert.match(err.message, /block index 7, which was never started/);
    assert.equal(text(events), 'Hello');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an oversized line: located error, skipped, decoding goes on', () => {
    const big = { ...hello, delta: { type: 'text_delta', text: 'x'.repeat(5000) } };
    const after = { ...hello, delta: { type: 'text_delta', text: '!' } };
    const body = lines(start, textStart, hello, big, after, { type: 'content_block_stop', index: 0 }, { type: 'message_stop' });
    // Split so the oversized line arrives in pieces, as it would from a socket.
    const chunks = body.match(/[\s\S]{1,300}/g) ?? [];
    const events = decodeChunks(chunks, 'anthropic', { maxLineLength: 1000 });
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'line_too_long');
    assert.equal(err.where?.line, 4);
    assert.equal(text(events), 'Hello!');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an oversized SSE event: located error, decoding goes on', () => {
    const sse = (o: { type: string }) => `event: ${o.type}\ndata: ${JSON.stringify(o)}\n\n`;
    const big = { ...hello, delta: { type: 'text_delta', text: 'x'.repeat(5000) } };
    const body = [start, textStart, hello, big, { type: 'content_block_stop', index: 0 }, { type: 'message_stop' }].map(sse).join('');
    const events = decodeChunks(body.match(/[\s\S]{1,300}/g) ?? [], 'anthropic', { maxLineLength: 1000 });
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'line_too_long', JSON.stringify(events.map((e) => e.type)));
    assert.equal(text(events), 'Hello');
    assert.equal(events.at(-1)?.type, 'run-finish');
  });

  test('values that are not event objects: located errors', () => {
    const events = decodeObjects([start, 42, { no: 'type' }, [1], { type: 'content_block_delta', delta: {} }], 'anthropic');
    const errors = events.filter((e) => e.type === 'error');
    assert.deepEqual(
      errors.map((e) => e.type === 'error' && e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'type', expected: 'string' },
        { line: 4, expected: 'object' },
        { line: 5, field: 'index', expected: 'integer' },
        undefined,
      ],
    );
  });

  test('empty input: one fatal error and a finished run', () => {
    const events = decodeChunks([''], 'anthropic');
    assert.deepEqual(types(events), ['run-start', 'error', 'run-finish']);
  });
});

describe('Anthropic decoder: block kinds', () => {
  test('redacted thinking keeps its data; citations, server tools and web search results map', () => {
    const events = decodeObjects(
      [
        { type: 'message_start', message: { id: 'm1', model: 'x', usage: {} } },
        { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'ENCRYPTED' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":"q"}' } },
        { type: 'content_block_stop', index: 1 },
        {
          type: 'content_block_start',
          index: 2,
          content_block: {
            type: 'web_search_tool_result',
            tool_use_id: 'srv_1',
            content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A', page_age: '1d', encrypted_content: 'E' }],
          },
        },
        { type: 'content_block_stop', index: 2 },
        { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '', citations: [] } },
        {
          type: 'content_block_delta',
          index: 3,
          delta: {
            type: 'citations_delta',
            citation: {
              type: 'web_search_result_location',
              url: 'https://a.example',
              title: 'A',
              cited_text: 'quote',
              encrypted_index: 'I',
            },
          },
        },
        { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'Answer' } },
        { type: 'content_block_stop', index: 3 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } },
        { type: 'message_stop' },
      ],
      'anthropic',
    );
    assert.deepEqual(validate(events).issues, []);
    const byType = (t: string) => events.filter((e) => e.type === t);
    assert.deepEqual((byType('reasoning-start')[0] as { providerMetadata: unknown }).providerMetadata, {
      anthropic: { redactedData: 'ENCRYPTED' },
    });
    const toolEnd = byType('tool-input-end')[0];
    assert.ok(toolEnd?.type === 'tool-input-end');
    assert.deepEqual(
      [toolEnd.toolCallId, toolEnd.toolName, toolEnd.input, toolEnd.providerExecuted],
      ['srv_1', 'web_search', { query: 'q' }, true],
    );
    const out = byType('tool-output')[0];
    assert.ok(out?.type === 'tool-output' && out.providerExecuted && out.toolCallId === 'srv_1');
    const source = byType('source')[0];
    assert.ok(source?.type === 'source' && source.url === 'https://a.example' && source.title === 'A');
    const citation = byType('citation')[0];
    assert.ok(citation?.type === 'citation');
    assert.equal(citation.citation.kind, 'url');
    assert.equal(citation.citation.citedText, 'quote');
    assert.deepEqual((citation.citation.raw as { encrypted_index: string }).encrypted_index, 'I', 'provider fields are kept');
  });

  test('incomplete tool input JSON is reported on tool-input-end; whole members are kept, the text stays in the deltas', () => {
    const events = decodeObjects(
      [
        { type: 'message_start', message: { id: 'm1', model: 'x' } },
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_stop' },
      ],
      'anthropic',
    );
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end');
    assert.deepEqual(end.input, {});
    assert.match(end.inputError ?? '', /not complete JSON/);
    assert.deepEqual(
      events.filter((e) => e.type === 'tool-input-delta').map((e) => (e.type === 'tool-input-delta' ? e.delta : '')),
      ['{"a":'],
    );
  });

  test('a no-argument tool (only an empty input_json_delta) has input {}', () => {
    const events = decodeObjects(
      [
        { type: 'message_start', message: { id: 'm1', model: 'x' } },
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't1', name: 'now', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_stop' },
      ],
      'anthropic',
    );
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.ok(end?.type === 'tool-input-end');
    assert.deepEqual(end.input, {});
    assert.equal(events.filter((e) => e.type === 'tool-input-delta').length, 0);
  });

  test('several messages in one body are steps of one run; the total usage adds up', () => {
    const msg = (id: string, out: number) => [
      { type: 'message_start', message: { id, model: 'x', usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: id } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: out } },
      { type: 'message_stop' },
    ];
    const events = decodeObjects([...msg('a', 5), ...msg('b', 7)], 'anthropic');
    assert.deepEqual(validate(events).issues, []);
    assert.equal(events.filter((e) => e.type === 'step-start').length, 2);
    assert.equal(events.filter((e) => e.type === 'run-start').length, 1);
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    assert.equal(finish.usage?.outputTokens, 12);
    assert.equal(finish.usage?.inputTokens, 20);
  });
});

describe('Anthropic decoder: lossless', () => {
  test('every field of every recorded Anthropic event is found in the canonical output', async () => {
    const { missingLeaves } = await import('./lossless.ts');
    const dir = `${FIXTURES}recorded/anthropic/`;
    for (const file of readdirSync(dir)) {
      const text = fixture(`recorded/anthropic/${file}`).toString();
      const inputs = text.trimStart().startsWith('{')
        ? text
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l))
        : text
            .split(/\r?\n/)
            .filter((l) => l.startsWith('data:'))
            .map((l) => JSON.parse(l.slice(5)));
      const events = decodeChunks([text], 'anthropic');
      // Structural: event / block / delta type names become event kinds, indexes become block ids, and
      // a Messages stream always produces an assistant message.
      const structural = (path: string) => /(^|\.)type$/.test(path) || /(^|\.)index$/.test(path) || path === 'message.role';
      assert.deepEqual(missingLeaves(inputs, events, { ignore: structural }), [], file);
    }
  });
});
