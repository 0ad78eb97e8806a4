import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '../src/index.ts';
import { createOpenAIResponsesDecoder, detectOpenAIResponses, type OpenAIResponsesDecoderOptions } from '../src/inputs/openai-responses.ts';
import { validate } from '../src/schema.ts';
import { assertSplitInvariant, decodeChunks, decodeObjects, FIXTURES } from './helpers.ts';
import { missingLeaves } from './lossless.ts';

const RECORDED = `${FIXTURES}recorded/openai-responses/`;
const DEV = `${FIXTURES}openai-responses/`;
/** Our own SDK-verified streams (see record.ts there): parallel function calls; hosted-MCP approval loops (record-mcp-approval.ts). */
const LOCAL = new URL('./fixtures/openai-responses/', import.meta.url).pathname;

/** Every Responses capture: the recorded ones and the SDK-verified development set. */
const CAPTURES = [
  ...readdirSync(RECORDED).map((f) => RECORDED + f),
  ...readdirSync(DEV)
    .filter((f) => f.endsWith('.sse') && !f.includes('aisdk-ref'))
    .map((f) => DEV + f),
  ...readdirSync(LOCAL)
    .filter((f) => f.endsWith('.sse') || f.endsWith('.jsonl'))
    .map((f) => LOCAL + f),
];
const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const read = (path: string) => readFileSync(path);

const decode = (chunks: (string | Uint8Array)[], options: OpenAIResponsesDecoderOptions = {}): CanonicalEvent[] =>
  decodeChunks(chunks, (o) => createOpenAIResponsesDecoder({ ...o, ...options }));

/** The parsed input values of a capture (SSE data payloads or JSON lines; unparsable ones skipped). */
function inputsOf(text: string): Record<string, unknown>[] {
  const first = text.split(/\r?\n/).find((l) => l.trim()) ?? '';
  const lines = /^(event:|data:|:)/.test(first)
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .filter((l) => l !== '[DONE]')
    : text.split(/\r?\n/).filter((l) => l.trim());
  return lines.flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
}

interface StepContent {
  text: string;
  reasoning: string[];
  calls: { id: string; name: string; input: unknown }[];
}

/** Tool names of the Responses built-in items (the rest are function and custom tool calls). */
const BUILT_IN = new Set(['apply_patch', 'local_shell', 'shell', 'computer', 'tool_search', 'programmatic_tool_calling']);

/** What each step of a canonical stream amounts to: text, reasoning blocks and function / custom tool calls. */
function stepsOf(events: CanonicalEvent[]): (StepContent & { finishReason?: string; usage?: unknown; stepId: string })[] {
  const steps: (StepContent & { finishReason?: string; usage?: unknown; stepId: string })[] = [];
  const blocks = new Map<string, { kind: 'text' | 'reasoning'; text: string }>();
  let current: (typeof steps)[number] | undefined;
  for (const e of events) {
    if (e.type === 'step-start') {
      current = { stepId: e.stepId, text: '', reasoning: [], calls: [] };
      steps.push(current);
    } else if (!current) continue;
    else if (e.type === 'text-start') blocks.set(e.blockId, { kind: 'text', text: '' });
    else if (e.type === 'reasoning-start') blocks.set(e.blockId, { kind: 'reasoning', text: '' });
    else if (e.type === 'text-delta' || e.type === 'reasoning-delta') (blocks.get(e.blockId) as { text: string }).text += e.delta;
    else if (e.type === 'text-end') current.text += blocks.get(e.blockId)?.text ?? '';
    else if (e.type === 'reasoning-end') current.reasoning.push(blocks.get(e.blockId)?.text ?? '');
    else if (e.type === 'tool-input-end' && !e.providerExecuted && !BUILT_IN.has(e.toolName))
      current.calls.push({ id: e.toolCallId, name: e.toolName, input: e.input });
    else if (e.type === 'step-finish') {
      current.finishReason = e.finishReason;
      current.usage = e.usage?.raw;
    }
  }
  return steps;
}

/** The same from a final `response.output` (what the API itself says the response held). */
function contentOfOutput(output: Record<string, unknown>[]): StepContent {
  const c: StepContent = { text: '', reasoning: [], calls: [] };
  for (const item of output) {
    if (item.type === 'message') for (const p of item.content as Record<string, unknown>[]) c.text += (p.text ?? p.refusal ?? '') as string;
    if (item.type === 'reasoning') {
      const summary = (item.summary as { text: string }[]).map((s) => s.text);
      const content = ((item.content as { text: string }[] | undefined) ?? []).map((s) => s.text);
      const parts = [...summary, ...content];
      c.reasoning.push(...(parts.length > 0 ? parts : ['']));
    }
    if (item.type === 'function_call')
      c.calls.push({ id: item.call_id as string, name: item.name as string, input: JSON.parse((item.arguments as string) || '{}') });
    if (item.type === 'custom_tool_call') c.calls.push({ id: item.call_id as string, name: item.name as string, input: item.input });
  }
  return c;
}

const text = (events: CanonicalEvent[]) =>
  events
    .filter((e) => e.type === 'text-delta')
    .map((e) => (e.type === 'text-delta' ? e.delta : ''))
    .join('');
const types = (events: CanonicalEvent[]) => events.map((e) => e.type);
const ofType = <T extends CanonicalEvent['type']>(events: CanonicalEvent[], t: T) =>
  events.filter((e): e is Extract<CanonicalEvent, { type: T }> => e.type === t);

const baseResponse = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'response',
  created_at: 1767000000,
  status: 'in_progress',
  model: 'gpt-5-2025-08-07',
  output: [],
  usage: null,
  ...extra,
});

describe('OpenAI Responses decoder: against the official openai SDK (final.json)', () => {
  for (const fixture of [`${DEV}function-call`, `${DEV}reasoning-summary-text`, `${LOCAL}parallel-function-calls`]) {
    test(`${name(fixture)}: same text, reasoning summaries, function calls and usage as responses.stream().finalResponse()`, () => {
      const events = decode([read(`${fixture}.sse`)]);
      const final = JSON.parse(readFileSync(`${fixture}.final.json`, 'utf8')).final;
      const [step] = stepsOf(events);
      assert.deepEqual({ text: step?.text, reasoning: step?.reasoning, calls: step?.calls }, contentOfOutput(final.output));
      assert.equal(step?.text, final.output_text ?? '');
      assert.deepEqual(step?.usage, final.usage, 'usage is kept whole');
      assert.deepEqual(validate(events).issues, []);
    });
  }

  test('usage: cached and reasoning tokens are broken out; input tokens include the cached ones', () => {
    const events = decode([read(`${DEV}reasoning-summary-text.sse`)]);
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    assert.deepEqual(
      [finish.finishReason, finish.rawFinishReason, finish.usage?.inputTokens, finish.usage?.cacheReadTokens, finish.usage?.outputTokens],
      ['stop', 'completed', 1200, 1024, 240],
    );
    assert.equal(finish.usage?.reasoningTokens, 192);
    assert.equal(finish.usage?.totalTokens, 1440);
  });

  test('reasoning: one block per summary part; item id and encrypted content travel as @ai-sdk/openai sends them', () => {
    const events = decode([read(`${DEV}reasoning-summary-text.sse`)]);
    const starts = ofType(events, 'reasoning-start');
    const ends = ofType(events, 'reasoning-end');
    assert.deepEqual(
      starts.map((e) => [e.blockId, e.variant, e.providerMetadata]),
      [
        ['rs_0a1:0', 'thinking', { openai: { itemId: 'rs_0a1', reasoningEncryptedContent: null } }],
        ['rs_0a1:1', 'thinking', { openai: { itemId: 'rs_0a1', reasoningEncryptedContent: null } }],
      ],
    );
    assert.deepEqual(
      ends.map((e) => e.providerMetadata),
      [{ openai: { itemId: 'rs_0a1' } }, { openai: { itemId: 'rs_0a1', reasoningEncryptedContent: 'gAAAAABo_enc_blob' } }],
    );
    const textStart = ofType(events, 'text-start')[0];
    assert.deepEqual(textStart?.providerMetadata, { openai: { itemId: 'msg_0a2' } });
  });

  test('function call: call_id is the tool call id, the arguments stream as deltas, the item id is on tool-input-end', () => {
    const events = decode([read(`${DEV}function-call.sse`)]);
    const deltas = ofType(events, 'tool-input-delta').map((e) => e.delta);
    assert.equal(deltas.join(''), '{"city":"São Paulo","days":3,"flags":["a\\\\b","c\\"d"]}');
    const end = ofType(events, 'tool-input-end')[0];
    assert.deepEqual(
      [end?.toolCallId, end?.toolName, end?.input],
      ['call_Q1w2E3', 'get_forecast', { city: 'São Paulo', days: 3, flags: ['a\\b', 'c"d'] }],
    );
    assert.deepEqual(end?.providerMetadata, { openai: { itemId: 'fc_0b1', status: 'completed' } });
    const finish = events.at(-1);
    assert.equal(finish?.type === 'run-finish' && finish.finishReason, 'tool-calls');
  });
});

describe('OpenAI Responses decoder: recorded captures', () => {
  test('every capture decodes into a valid canonical stream that starts and finishes the run', () => {
    for (const path of CAPTURES) {
      const events = decode([read(path)]);
      assert.equal(events[0]?.type === 'run-start' && events[0].provider, 'openai-responses', name(path));
      assert.deepEqual(validate(events).issues, [], name(path));
      assert.equal(events.at(-1)?.type, 'run-finish', name(path));
    }
  });

  // Captures the fixture authors edited so that the streamed deltas and the final output disagree.
  const EDITED: Record<string, string> = {
    'openai-shell-container.1.chunks.txt':
      'hand-written: the text deltas are not a prefix of the final text (kept as streamed, the final text is a raw event)',
    'parallel-tool-call-wrapper.1.chunks.txt':
      'hand-written with invalid JSON on the first and last line (no response.completed to compare with)',
  };

  test('each step holds what the API says the response held (response.completed output): text, reasoning, function calls', () => {
    for (const path of CAPTURES) {
      if (EDITED[name(path)]) continue;
      const inputs = inputsOf(readFileSync(path, 'utf8'));
      const finals = inputs.filter((v) => typeof v.type === 'string' && /^response\.(completed|incomplete|failed)$/.test(v.type as string));
      const steps = stepsOf(decode([read(path)]));
      assert.equal(steps.length, finals.length, name(path));
      finals.forEach((f, i) => {
        const output = (f.response as { output: Record<string, unknown>[] }).output;
        if (output.length === 0) return; // the recorder dropped the final output (openai-phase, …)
        const { text: t, reasoning, calls } = steps[i] as StepContent;
        assert.deepEqual({ text: t, reasoning, calls }, contentOfOutput(output), `${name(path)} step ${i + 1}`);
      });
    }
  });

  const FINISH: Record<string, string> = {
    'openai-error.1.chunks.txt': 'error',
    'parallel-tool-call-wrapper.1.chunks.txt': 'error',
    'openai-reasoning-encrypted-content.1.chunks.txt': 'stop',
    'test_openai_responses_stream.i0.sse.txt': 'tool-calls',
    'openai-custom-tool.1.chunks.txt': 'tool-calls',
    'openai-apply-patch-tool.1.chunks.txt': 'tool-calls',
    'openai-local-shell-tool.1.chunks.txt': 'stop',
    'openai-web-search-tool.1.chunks.txt': 'stop',
    // @ai-sdk/openai says stop; the run ends waiting for the approval (run-finish.pending).
    'openai-mcp-tool-approval.1.chunks.txt': 'tool-calls',
  };
  test('finish reasons follow @ai-sdk/openai (client function calls → tool-calls, built-in tools → stop)', () => {
    for (const [file, reason] of Object.entries(FINISH)) {
      const last = decode([read(RECORDED + file)]).at(-1);
      assert.equal(last?.type === 'run-finish' && last.finishReason, reason, file);
    }
  });

  test('openai-error: one fatal located error (the error event), not a second one for response.failed', () => {
    const events = decode([read(`${RECORDED}openai-error.1.chunks.txt`)]);
    const errors = ofType(events, 'error');
    assert.equal(errors.length, 1);
    assert.deepEqual([errors[0]?.code, errors[0]?.fatal, errors[0]?.where], ['insufficient_quota', true, { line: 3 }]);
    assert.match(errors[0]?.message ?? '', /^You exceeded your current quota/);
    assert.deepEqual(types(events).slice(-3), ['error', 'step-finish', 'run-finish']);
    const stepFinish = ofType(events, 'step-finish')[0];
    assert.equal(stepFinish?.finishReason, 'error');
    assert.deepEqual((stepFinish!.providerMetadata!.openai!.response as { status: string }).status, 'failed');
  });

  test('several responses in one body are steps of one run; the total usage adds up', () => {
    const events = decode([read(`${RECORDED}openai-reasoning-encrypted-content.1.chunks.txt`)]);
    const steps = stepsOf(events);
    assert.equal(steps.length, 4);
    assert.deepEqual(
      steps.map((s) => s.finishReason),
      ['tool-calls', 'tool-calls', 'tool-calls', 'stop'],
    );
    assert.deepEqual(
      steps.flatMap((s) => s.calls.map((c) => c.input)),
      [
        { a: 12, b: 7, op: 'add' },
        { a: 19, b: 3, op: 'multiply' },
        { a: 57, b: 10, op: 'multiply' },
      ],
    );
    assert.equal(steps[3]?.text, 'The final result is **570**.');
    assert.equal(ofType(events, 'run-start').length, 1);
    const finish = events.at(-1);
    assert.ok(finish?.type === 'run-finish');
    const sum = (k: 'input_tokens' | 'output_tokens') =>
      steps.reduce((n, s) => n + ((s.usage as Record<string, number> | undefined)?.[k] ?? 0), 0);
    assert.equal(finish.usage?.inputTokens, sum('input_tokens'));
    assert.equal(finish.usage?.outputTokens, sum('output_tokens'));
  });

  test('parallel function calls: two calls in one step, each with its own id, deltas and input', () => {
    const events = decode([read(`${LOCAL}parallel-function-calls.sse`)]);
    assert.deepEqual(validate(events).issues, []);
    const [step] = stepsOf(events);
    assert.deepEqual(step?.calls, [
      { id: 'call_paris', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
      { id: 'call_tokyo', name: 'get_time', input: { city: 'Tokyo' } },
    ]);
    assert.equal(step?.finishReason, 'tool-calls');
    const deltas = (id: string) =>
      ofType(events, 'tool-input-delta')
        .filter((e) => e.toolCallId === id)
        .map((e) => e.delta)
        .join('');
    assert.equal(deltas('call_tokyo'), '{"city":"Tokyo"}');
    assert.deepEqual(
      ofType(events, 'tool-input-end').map((e) => e.providerMetadata?.openai?.itemId),
      ['fc_par_1', 'fc_par_2'],
    );
    const end = ofType(events, 'reasoning-end')[0];
    assert.deepEqual(end?.providerMetadata, { openai: { itemId: 'rs_par', reasoningEncryptedContent: 'gAAAAABpar_enc' } });
  });

  test('the model\'s internal "parallel" wrapper call is expanded into its calls, as @ai-sdk/openai does', () => {
    const events = decode([read(`${RECORDED}parallel-tool-call-wrapper.1.chunks.txt`)]);
    const ends = ofType(events, 'tool-input-end');
    assert.deepEqual(
      ends.map((e) => [e.toolCallId, e.toolName, e.input]),
      [
        ['call_parallel_0', 'weather', { location: 'San Francisco' }],
        ['call_parallel_1', 'cityAttractions', { city: 'Rome' }],
      ],
    );
    const meta = ends[0]?.providerMetadata?.openai?.parallelToolCall as Record<string, unknown>;
    assert.deepEqual(
      [meta.toolCallId, meta.toolName, meta.index, meta.count, meta.itemId],
      ['call_parallel', 'parallel', 0, 2, 'fc_parallel'],
    );
    // The capture's first and last lines are not valid JSON: located errors, and the response never completes.
    const errors = ofType(events, 'error');
    assert.deepEqual(
      errors.map((e) => [e.code, e.where?.line]),
      [
        ['invalid_json', 1],
        ['invalid_json', 6],
        ['truncated', undefined],
      ],
    );
    const off = decode([read(`${RECORDED}parallel-tool-call-wrapper.1.chunks.txt`)], { expandParallelToolCalls: false });
    assert.deepEqual(
      ofType(off, 'tool-input-end').map((e) => [e.toolCallId, e.toolName]),
      [['call_parallel', 'parallel']],
    );
  });
});

describe('OpenAI Responses decoder: item kinds', () => {
  test('web search: provider-executed calls with the whole item as output, url sources and citations', () => {
    const events = decode([read(`${RECORDED}openai-web-search-tool.1.chunks.txt`)]);
    const calls = ofType(events, 'tool-input-end');
    assert.equal(calls.length, 6);
    assert.ok(calls.every((c) => c.toolName === 'web_search' && c.providerExecuted && JSON.stringify(c.input) === '{}'));
    const outputs = ofType(events, 'tool-output');
    assert.equal(outputs.length, 6);
    const first = outputs[0]?.output as { type: string; action: { query: string } };
    assert.deepEqual([first.type, first.action.query], ['web_search_call', 'tech news today December 5 2025']);
    const citations = ofType(events, 'citation');
    assert.equal(citations.length, 12);
    assert.equal(citations[0]?.citation.kind, 'url');
    assert.ok(citations.every((c) => typeof c.citation.url === 'string' && c.citation.startIndex !== undefined));
    assert.deepEqual(
      ofType(events, 'status')
        .slice(1, 4)
        .map((e) => e.status),
      ['web_search_call.in_progress', 'web_search_call.searching', 'web_search_call.completed'],
    );
    const urls = ofType(events, 'source').map((s) => s.url);
    assert.equal(new Set(urls).size, urls.length, 'one source per url');
    assert.ok(urls.includes(citations[0]?.citation.url));
  });

  test('file search: document sources for the results and the file citations', () => {
    const events = decode([read(`${RECORDED}openai-file-search-tool.2.chunks.txt`)]);
    const sources = ofType(events, 'source');
    assert.ok(sources.length > 0);
    assert.ok(sources.every((s) => s.kind === 'document' && s.title));
    const citation = ofType(events, 'citation')[0];
    assert.equal(citation?.citation.kind, 'document');
    assert.equal((citation!.citation.raw as { type: string }).type, 'file_citation');
  });

  test('image generation: partial images are preliminary outputs, the final image is also a file', () => {
    const events = decode([read(`${RECORDED}openai-image-generation-tool.1.chunks.txt`)]);
    const outputs = ofType(events, 'tool-output');
    assert.deepEqual(
      outputs.map((o) => o.preliminary ?? false),
      [true, false],
    );
    const file = ofType(events, 'file')[0];
    assert.equal(file?.mediaType, 'image/webp');
    assert.ok(file?.url.startsWith('data:image/webp;base64,UklGR'));
  });

  test('code interpreter: the code streams into a valid JSON input; the outputs are the item', () => {
    const events = decode([read(`${RECORDED}openai-code-interpreter-tool.1.chunks.txt`)]);
    const id = ofType(events, 'tool-input-start')[0]?.toolCallId as string;
    const streamed = ofType(events, 'tool-input-delta')
      .filter((e) => e.toolCallId === id)
      .map((e) => e.delta)
      .join('');
    const end = ofType(events, 'tool-input-end').find((e) => e.toolCallId === id);
    assert.deepEqual(JSON.parse(streamed), end?.input);
    assert.match((end!.input as { code: string }).code, /^import random, math/);
    const out = ofType(events, 'tool-output').find((e) => e.toolCallId === id);
    assert.deepEqual((out!.output as { outputs: unknown }).outputs, [{ type: 'logs', logs: '(2, 12, 69868, 6.9868)' }]);
    const source = ofType(events, 'source')[0];
    assert.deepEqual(source?.providerMetadata?.openai?.type, 'container_file_citation');
  });

  test('apply_patch: the diff streams into the input JSON; custom tools keep their text input', () => {
    const patch = decode([read(`${RECORDED}openai-apply-patch-tool.1.chunks.txt`)]);
    const streamed = ofType(patch, 'tool-input-delta')
      .map((e) => e.delta)
      .join('');
    const end = ofType(patch, 'tool-input-end')[0];
    assert.deepEqual(JSON.parse(streamed), end?.input);
    assert.equal((end!.input as { operation: { path: string } }).operation.path, 'shopping-checklist.md');
    const custom = decode([read(`${RECORDED}openai-custom-text-tool.1.chunks.txt`)]);
    const input = ofType(custom, 'tool-input-end')[0]?.input;
    assert.equal(input, '<main><h1>Streaming custom tool input</h1><p>This must arrive progressively.</p></main>');
    assert.equal(ofType(custom, 'tool-input-delta').length, 24);
  });

  test('MCP: list_tools and calls are provider-executed; an approval request is a tool-approval-request', () => {
    const events = decode([read(`${RECORDED}openai-mcp-tool-approval.1.chunks.txt`)]);
    const names = ofType(events, 'tool-input-end').map((e) => [e.toolName, e.providerExecuted]);
    assert.deepEqual(names, [
      ['mcp_list_tools', true],
      ['mcp.create_short_url', true],
    ]);
    const [request] = ofType(events, 'tool-approval-request');
    assert.equal(request?.approvalId, 'mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe');
    assert.equal(request?.toolCallId, ofType(events, 'tool-input-end')[1]?.toolCallId);
    const finish = events.at(-1);
    assert.deepEqual(finish?.type === 'run-finish' && finish.pending, { approvalIds: [request?.approvalId] });
    const call = decode([read(`${RECORDED}openai-mcp-tool-approval.4.chunks.txt`)]);
    const out = ofType(call, 'tool-output').find((o) => o.toolName === 'mcp.create_short_url');
    assert.match((out!.output as { output: string }).output, /Short URL created/);
  });

  test('shell: container calls are provider-executed with their output; local shell calls are for the client', () => {
    const container = decode([read(`${RECORDED}openai-shell-skills.1.chunks.txt`)]);
    assert.ok(ofType(container, 'tool-input-end').every((e) => e.toolName === 'shell' && e.providerExecuted));
    assert.equal(ofType(container, 'tool-output').length, 2);
    const local = decode([read(`${RECORDED}openai-local-shell-tool.1.chunks.txt`)]);
    const end = ofType(local, 'tool-input-end')[0];
    assert.deepEqual(
      [end?.toolName, end?.providerExecuted, end?.input],
      ['local_shell', undefined, { action: { type: 'exec', command: ['ls', '-a', '~'], env: {} } }],
    );
  });

  test('gpt-oss raw reasoning (reasoning_text deltas) is a thinking block; OpenRouter framing is read', () => {
    const events = decode([read(`${RECORDED}test_openai_responses_raw_cot_stream_openrouter.i0.sse.txt`)]);
    const [step] = stepsOf(events);
    assert.deepEqual(step?.reasoning, ['The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.']);
    assert.equal(step?.text, '4');
  });

  test('rotated item ids (a proxy): items are followed by output_index, one block each', () => {
    const events = decode([read(`${RECORDED}github-copilot-id-rotation.1.chunks.txt`)]);
    assert.equal(ofType(events, 'text-start').length, 1);
    assert.equal(ofType(events, 'reasoning-start').length, 1);
    assert.match(text(events), /^There are \*\*3\*\* letter/);
    assert.deepEqual(ofType(events, 'text-start')[0]?.providerMetadata, { openai: { itemId: 'capture-id-9', phase: 'final_answer' } });
  });

  test('compaction is a custom event carrying the encrypted content; phases travel on the text blocks', () => {
    const compaction = ofType(decode([read(`${RECORDED}openai-compaction.1.chunks.txt`)]), 'custom')[0];
    assert.equal(compaction?.name, 'openai.compaction');
    assert.match((compaction!.value as { encryptedContent: string }).encryptedContent, /^gAAAAA/);
    const phases = ofType(decode([read(`${RECORDED}openai-phase.1.chunks.txt`)]), 'text-start').map(
      (e) => e.providerMetadata?.openai?.phase,
    );
    assert.deepEqual(phases, ['commentary', 'final_answer']);
  });

  test('deltas a recorder dropped are completed from the done events; the sequence gaps are kept', () => {
    const events = decode([read(`${RECORDED}openai-phase.1.chunks.txt`)]);
    const inputs = inputsOf(readFileSync(`${RECORDED}openai-phase.1.chunks.txt`, 'utf8'));
    const finalTexts = inputs.filter((v) => v.type === 'response.output_text.done').map((v) => v.text);
    assert.equal(text(events), finalTexts.join(''));
    const gaps = ofType(events, 'step-finish')[0]?.providerMetadata?.openai?.sequenceGaps as unknown[];
    assert.ok(gaps.length > 0);
  });

  test('refusal, incomplete (max_output_tokens, content_filter) and queued responses', () => {
    const message = (content: unknown[]) => ({ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content });
    const refusal = decodeObjects(
      [
        { type: 'response.created', response: baseResponse('r1') },
        { type: 'response.output_item.added', output_index: 0, item: { ...message([]), status: 'in_progress' } },
        {
          type: 'response.content_part.added',
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'refusal', refusal: '' },
        },
        { type: 'response.refusal.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: "I can't help with that." },
        { type: 'response.refusal.done', item_id: 'msg_1', output_index: 0, content_index: 0, refusal: "I can't help with that." },
        { type: 'response.output_item.done', output_index: 0, item: message([{ type: 'refusal', refusal: "I can't help with that." }]) },
        { type: 'response.completed', response: baseResponse('r1', { status: 'completed' }) },
      ],
      'openai-responses',
    );
    assert.equal(text(refusal), "I can't help with that.");
    assert.deepEqual(ofType(refusal, 'text-start')[0]?.providerMetadata, { openai: { itemId: 'msg_1', refusal: true } });
    const refusalEnd = refusal.at(-1);
    assert.equal(refusalEnd?.type === 'run-finish' && refusalEnd.finishReason, 'content-filter');

    for (const [reason, expected] of [
      ['max_output_tokens', 'length'],
      ['content_filter', 'content-filter'],
    ]) {
      const events = decodeObjects(
        [
          { type: 'response.queued', response: baseResponse('r2', { status: 'queued' }) },
          { type: 'response.in_progress', response: baseResponse('r2') },
          {
            type: 'response.incomplete',
            response: baseResponse('r2', {
              status: 'incomplete',
              incomplete_details: { reason },
              usage: { input_tokens: 3, output_tokens: 9 },
            }),
          },
        ],
        'openai-responses',
      );
      const finish = events.at(-1);
      assert.ok(finish?.type === 'run-finish');
      assert.deepEqual([finish.finishReason, finish.rawFinishReason], [expected, reason]);
      assert.deepEqual(
        ofType(events, 'status').map((s) => s.status),
        ['queued', 'in_progress'],
      );
      assert.deepEqual(validate(events).issues, []);
    }
  });

  test('an item that only appears in the final response output is decoded whole', () => {
    const item = {
      id: 'msg_9',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'late', annotations: [] }],
    };
    const events = decodeObjects(
      [
        { type: 'response.created', response: baseResponse('r3') },
        { type: 'response.completed', response: baseResponse('r3', { status: 'completed', output: [item] }) },
      ],
      'openai-responses',
    );
    assert.equal(text(events), 'late');
    assert.deepEqual(validate(events).issues, []);
  });
});

describe('OpenAI Responses decoder: chunk boundaries', () => {
  const samples = [
    `${DEV}reasoning-summary-text.sse`,
    `${DEV}function-call.sse`,
    `${RECORDED}test_openai_responses_raw_cot_stream_openrouter.i0.sse.txt`,
    `${RECORDED}openai-custom-tool.1.chunks.txt`,
  ];
  for (const path of samples) {
    test(`${name(path)}: the same bytes split at random boundaries give identical events`, () => {
      const bytes = new Uint8Array(read(path));
      const whole = decode([bytes]);
      assertSplitInvariant(bytes, (chunks) => decode(chunks), { expected: whole, maxCuts: 40, numRuns: 150 });
    });
  }

  test('one byte at a time, through multi-byte UTF-8 characters', () => {
    const bytes = new Uint8Array(read(`${DEV}function-call.sse`));
    const singles = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(decode(singles), decode([bytes]));
  });

  test('JSON lines and SSE of the same stream give the same events', () => {
    const sse = readFileSync(`${DEV}reasoning-summary-text.sse`, 'utf8');
    const jsonl = sse
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    const strip = (events: CanonicalEvent[]) => events.map(({ seq, ts, ...e }) => ({ ...e, where: undefined }));
    assert.deepEqual(strip(decode([jsonl])), strip(decode([sse])));
  });
});

describe('OpenAI Responses decoder: lossless', () => {
  // Structural input fields, each with its reason:
  const structural = (path: string, value: string | number) =>
    // event / item / part / annotation type names become canonical event kinds;
    /(^|\.)type$/.test(path) ||
    // indexes place items, parts and annotations (block ids and order carry them);
    /(^|\.)(output_index|content_index|summary_index|annotation_index|partial_image_index|command_index)$/.test(path) ||
    // contiguous per response: the first and last are kept on step-start / step-finish, gaps as sequenceGaps;
    /(^|\.)sequence_number$/.test(path) ||
    // random padding against token-length side channels, no information;
    /(^|\.)obfuscation$/.test(path) ||
    // a Responses stream only ever produces assistant messages;
    (/(^|\.)role$/.test(path) && value === 'assistant') ||
    // the transient state of an item before its final status.
    (/(^|\.)status$/.test(path) && value === 'in_progress');

  test('every field of every capture is found in the canonical output', () => {
    for (const path of CAPTURES) {
      const source = readFileSync(path, 'utf8');
      const events = decode([source]);
      // The proxy capture rotates item and response ids on every event (items are followed by output_index).
      const rotated = (p: string) => name(path).startsWith('github-copilot-id-rotation') && /(^|\.)(item_id|id)$/.test(p);
      assert.deepEqual(missingLeaves(inputsOf(source), events, { ignore: (p, v) => structural(p, v) || rotated(p) }), [], name(path));
    }
  });
});

describe('OpenAI Responses decoder: bad input never throws and keeps what came before', () => {
  const created = { type: 'response.created', sequence_number: 0, response: baseResponse('resp_x') };
  const added = {
    type: 'response.output_item.added',
    sequence_number: 1,
    output_index: 0,
    item: { id: 'msg_x', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
  };
  const hello = {
    type: 'response.output_text.delta',
    sequence_number: 2,
    item_id: 'msg_x',
    output_index: 0,
    content_index: 0,
    delta: 'Hello',
  };
  const lines = (...objs: unknown[]) => objs.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n');

  test('truncated stream: a fatal "truncated" error, open blocks closed, the run ends with error', () => {
    const events = decode([lines(created, added, hello)]);
    assert.equal(text(events), 'Hello');
    const err = ofType(events, 'error')[0];
    assert.ok(err?.code === 'truncated' && err.fatal);
    assert.deepEqual(types(events).slice(-4), ['error', 'text-end', 'step-finish', 'run-finish']);
    const last = events.at(-1);
    assert.equal(last?.type === 'run-finish' && last.finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('a non-JSON line in the middle: located error, decoding goes on', () => {
    const more = { ...hello, sequence_number: 3, delta: ' world' };
    const events = decode([lines(created, added, hello, 'not json', more)]);
    assert.equal(text(events), 'Hello world');
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal, err?.where?.line], ['invalid_json', false, 4]);
  });

  test('an unknown event type becomes a raw event, untouched and located', () => {
    const odd = { type: 'response.future_feature', sequence_number: 3, payload: { x: 1 } };
    const events = decodeObjects([created, added, hello, odd], 'openai-responses');
    const raw = ofType(events, 'raw')[0];
    assert.deepEqual([raw?.event, raw?.source, raw?.where], [odd, 'openai-responses', { line: 4 }]);
    assert.match(raw?.reason ?? '', /unknown event type "response.future_feature"/);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a delta for an item that was never added: located error, nothing lost', () => {
    const stray = { ...hello, output_index: 5, item_id: 'msg_nope' };
    const events = decodeObjects([created, added, hello, stray], 'openai-responses');
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.fatal], ['unknown_item', false]);
    assert.deepEqual(err?.where, { line: 4, field: 'output_index', expected: 'the output_index of an open message item' });
    assert.match(err?.message ?? '', /^line 4, field output_index: response.output_text.delta for output_index 5/);
    assert.equal(text(events), 'Hello');
  });

  test('values of the wrong type: located errors', () => {
    const events = decodeObjects(
      [
        created,
        42,
        { no: 'type' },
        { type: 'response.output_item.added', output_index: 'zero', item: {} },
        { type: 'response.output_item.added', output_index: 0 },
        added,
        { ...hello, delta: 7 },
        { type: 'response.created' },
      ],
      'openai-responses',
    );
    assert.deepEqual(
      ofType(events, 'error').map((e) => e.where),
      [
        { line: 2, expected: 'object' },
        { line: 3, field: 'type', expected: 'a string event type' },
        { line: 4, field: 'output_index', expected: 'an integer output index' },
        { line: 5, field: 'item', expected: 'an output item object with a string "type"' },
        { line: 7, field: 'delta', expected: 'a string' },
        { line: 8, field: 'response', expected: 'an object' },
        undefined,
      ],
    );
    assert.deepEqual(validate(events).issues, []);
  });

  test('a response without a terminal event followed by the next one: a located truncated error, that step ends with error', () => {
    const next = { type: 'response.created', sequence_number: 0, response: baseResponse('resp_y') };
    const done = { type: 'response.completed', sequence_number: 1, response: baseResponse('resp_y', { status: 'completed' }) };
    const events = decodeObjects([created, added, hello, next, done], 'openai-responses');
    const err = ofType(events, 'error')[0];
    assert.deepEqual(
      [err?.code, err?.fatal, err?.where],
      ['truncated', false, { line: 4, field: 'type', expected: 'a terminal event (response.completed, .incomplete or .failed) first' }],
    );
    assert.deepEqual(
      ofType(events, 'step-finish').map((e) => [e.stepId, e.finishReason]),
      [
        ['resp_x', 'error'],
        ['resp_y', 'stop'],
      ],
    );
    assert.equal(text(events), 'Hello');
    assert.deepEqual(validate(events).issues, []);
  });

  test('an error event before any response: one fatal error, a finished run', () => {
    const events = decodeObjects(
      [{ type: 'error', sequence_number: 0, code: 'rate_limit_exceeded', message: 'Slow down', param: null }],
      'openai-responses',
    );
    assert.deepEqual(types(events), ['run-start', 'error', 'run-finish']);
    const err = ofType(events, 'error')[0];
    assert.deepEqual([err?.code, err?.message, err?.fatal], ['rate_limit_exceeded', 'Slow down', true]);
  });

  test('empty input: one fatal error and a finished run', () => {
    assert.deepEqual(types(decode([''])), ['run-start', 'error', 'run-finish']);
  });
});

describe('OpenAI Responses decoder: recognition', () => {
  test('claims Responses events only', () => {
    assert.ok(detectOpenAIResponses({ type: 'response.created', sequence_number: 0, response: {} }));
    assert.ok(detectOpenAIResponses({ type: 'response.output_text.delta', item_id: 'm', output_index: 0, delta: 'x' }));
    assert.ok(detectOpenAIResponses({ type: 'error', sequence_number: 2, error: { code: 'x' } }));
    assert.ok(!detectOpenAIResponses({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'Anthropic error');
    assert.ok(!detectOpenAIResponses({ type: 'message_start', message: {} }));
    assert.ok(!detectOpenAIResponses({ type: 'response.created', data: {} }), 'the {type, data} agent format');
    assert.ok(!detectOpenAIResponses({ type: 'raw_model_stream_event', data: {} }));
    assert.ok(!detectOpenAIResponses({ object: 'chat.completion.chunk', choices: [] }));
  });
});
