/**
 * The AI SDK encoder against the official `ai` package: every stream we produce passes its chunk
 * schema, and its `readUIMessageStream` assembles the message we expect — the same text, reasoning
 * and tool calls as the official `@ai-sdk/anthropic` + `streamText` path assembles from the same bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UIMessage } from 'ai';
import { createConverter } from '../packages/core/src/index.ts';
import { assembleUIMessage, officialAnthropicMessage, parseAiSdkSse, summarizeMessage } from './support/ai-sdk-oracle.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

function toAiSdk(input: string | Uint8Array, from: 'anthropic' | 'claude' | 'auto', namespace?: string): string {
  const m = createConverter({ from, to: 'ai-sdk', runId: 'run', now: () => 0, ...(namespace ? { namespace } : {}) });
  return [...m.push(input), ...m.end()].join('');
}

type Part = UIMessage['parts'][number];
const variant = (p: Part, ns = 'switchboard') =>
  (p as { providerMetadata?: Record<string, { variant?: string }> }).providerMetadata?.[ns]?.variant;

describe('AI SDK encoder: Anthropic fixtures against the official path', () => {
  for (const name of ['text-basic', 'thinking-text-tool-use', 'error-overloaded']) {
    test(name, async () => {
      const body = readFileSync(`${FIXTURES}anthropic/${name}.sse`, 'utf8');
      const ours = toAiSdk(body, 'anthropic');
      assert.ok(ours.endsWith('data: [DONE]\n\n'));
      await parseAiSdkSse(ours); // throws on any chunk the official schema rejects
      const message = await assembleUIMessage(ours);
      const official = await officialAnthropicMessage(body);
      assert.deepEqual(summarizeMessage(message), summarizeMessage(official));
      for (const p of message.parts) if (p.type === 'reasoning') assert.equal(variant(p), 'thinking');
    });
  }

  test('the thinking signature survives into the assembled reasoning part', async () => {
    const body = readFileSync(`${FIXTURES}anthropic/thinking-text-tool-use.sse`, 'utf8');
    const message = await assembleUIMessage(toAiSdk(body, 'anthropic'));
    const reasoning = message.parts.find((p) => p.type === 'reasoning');
    assert.deepEqual((reasoning as { providerMetadata?: unknown }).providerMetadata, {
      switchboard: { variant: 'thinking', durationMs: 0 },
      anthropic: { signature: 'EqQBCkYIBxgCKkBz1Xq5V9bY0xw3PjcTgR2h6u6pK1sQvE0Zr8' },
    });
  });

  test('finish reasons match the official mapping', async () => {
    const finish = (sse: string) => sse.match(/"type":"finish","finishReason":"([^"]+)"/)?.[1];
    assert.equal(finish(toAiSdk(readFileSync(`${FIXTURES}anthropic/text-basic.sse`), 'anthropic')), 'stop');
    assert.equal(finish(toAiSdk(readFileSync(`${FIXTURES}anthropic/thinking-text-tool-use.sse`), 'anthropic')), 'tool-calls');
    assert.equal(finish(toAiSdk(readFileSync(`${FIXTURES}anthropic/error-overloaded.sse`), 'anthropic')), 'error');
  });
});

describe('AI SDK encoder: the simplified agent format', () => {
  const run = [
    { type: 'start', data: {} },
    { type: 'status', data: { message: 'Working' } },
    { type: 'thinking', data: { content: 'Hmm.' } },
    { type: 'todo_create', data: { items: ['a', 'b'] } },
    { type: 'tool_use', data: { id: 't1', name: 'search', input: { q: 'x' } } },
    { type: 'tool_result', data: { tool_use_id: 't1', content: { hits: 1 } } },
    { type: 'tool_use', data: { id: 't2', name: 'fail', input: {} } },
    { type: 'tool_result', data: { tool_use_id: 't2', content: 'nope', is_error: true } },
    { type: 'text', data: { content: 'Done.' } },
    { type: 'done', data: {} },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n');

  test('assembles processing and thinking reasoning, tools with output and error, todos and text', async () => {
    const sse = toAiSdk(run, 'claude');
    await parseAiSdkSse(sse);
    const m = await assembleUIMessage(sse);
    const kinds = m.parts.map((p) => (p.type === 'reasoning' ? `reasoning:${variant(p)}` : p.type));
    // A step per model call, as the official server makes them: content after tool results opens the next.
    assert.deepEqual(kinds, [
      'step-start',
      'reasoning:processing',
      'reasoning:thinking',
      'data-todos',
      'tool-search',
      'step-start',
      'tool-fail',
      'step-start',
      'text',
    ]);
    const search = m.parts.find((p) => p.type === 'tool-search') as { state: string; input: unknown; output: unknown };
    assert.deepEqual([search.state, search.input, search.output], ['output-available', { q: 'x' }, { hits: 1 }]);
    const fail = m.parts.find((p) => p.type === 'tool-fail') as { state: string; errorText: string };
    assert.deepEqual([fail.state, fail.errorText], ['output-error', 'nope']);
    for (const p of m.parts) if (p.type === 'reasoning' || p.type === 'text') assert.equal(p.state, 'done');
  });

  test("the variant namespace is configurable (mobox for the simplified Claude agent format's UI)", async () => {
    const m = await assembleUIMessage(toAiSdk(run, 'claude', 'mobox'));
    const reasoning = m.parts.filter((p) => p.type === 'reasoning');
    // The todos are processing text too (that UI's formatter), closing the thinking block.
    assert.deepEqual(
      reasoning.map((p) => variant(p, 'mobox')),
      ['processing', 'thinking', 'processing'],
    );
    assert.equal(variant(reasoning[0] as Part), undefined);
  });

  test("mobox: that UI's formatter conventions — todos as processing text, tool calls not closing the processing block", async () => {
    const lines = [
      { type: 'status', data: { message: 'Planning' } },
      { type: 'todo_create', data: { items: ['Search', 'Answer'] } },
      { type: 'tool_use', data: { id: 't1', name: 'search', input: { q: 'x' } } },
      { type: 'status', data: { message: 'Searching' } },
      { type: 'tool_result', data: { tool_use_id: 't1', content: { hits: 1 } } },
      { type: 'todo_done', data: { index: 0 } },
      { type: 'text', data: { content: 'Done.' } },
      { type: 'done', data: {} },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n');
    const sse = toAiSdk(lines, 'claude', 'mobox');
    await parseAiSdkSse(sse);
    const m = await assembleUIMessage(sse);
    const kinds = m.parts.map((p) => (p.type === 'reasoning' ? `reasoning:${variant(p, 'mobox')}` : p.type));
    // One processing block across the tool call and its result (a status after the call continues it,
    // the todos go in as text); the step the text opens closes it.
    assert.deepEqual(kinds, ['step-start', 'reasoning:processing', 'data-todos', 'tool-search', 'step-start', 'text']);
    const [processing] = m.parts.filter((p) => p.type === 'reasoning').map((p) => (p as { text: string }).text);
    assert.equal(processing, 'Planning\nTodos (0/2 done):\n☐ Search\n☐ Answer\nSearching\nTodos (1/2 done):\n☑ Search\n☐ Answer');
    for (const p of m.parts) if (p.type === 'reasoning' || p.type === 'text') assert.equal(p.state, 'done');
    // The default namespace keeps Switchboard's block rules.
    const plain = await assembleUIMessage(toAiSdk(lines, 'claude'));
    assert.equal(plain.parts.filter((p) => p.type === 'reasoning').length, 2);
  });

  test('an agent that dies mid-text still gives a stream the official client accepts, with an error', async () => {
    const sse = toAiSdk('{"type":"text","data":{"content":"par"}}\n{"type":"text","data":{"content":"tial"', 'claude');
    await parseAiSdkSse(sse);
    const m = await assembleUIMessage(sse);
    assert.equal(summarizeMessage(m).text, 'par');
    // The bad line is not fatal: a transient data part a stock client reads on through…
    assert.match(sse, /"type":"data-error","data":\{"message":"line 2: expected a JSON value/);
    // …the end without "done" is: its error chunk comes after the text part is closed.
    assert.match(
      sse,
      /"type":"text-end","id":"b1"\}\n\ndata: \{"type":"error","errorText":"the agent output ended without a \\"done\\" event"\}/,
    );
    assert.equal(m.parts.find((p) => p.type === 'text')?.state, 'done', 'the text part is settled');
    assert.match(sse, /"finishReason":"error"/);
  });
});
