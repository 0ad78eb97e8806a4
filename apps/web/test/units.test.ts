/**
 * The UI's pure parts, without a browser: incremental markdown splitting, chart placeholders,
 * the AG-UI → message builder (checked against the AI SDK path on the same demo run), part helpers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CanonicalEvent, createEncoder, decode } from '@switchboard/core';
import { readUIMessageStream, type UIMessage } from 'ai';
import fc from 'fast-check';
import { Marked } from 'marked';

import { demoScript } from '../../../packages/server/src/agents/demo.ts';
import { AgUiMessageBuilder, toAgUiMessages } from '../src/chat/agui.ts';
import { nonFatalNotice } from '../src/chat/errors.ts';
import type { LoosePart } from '../src/lib/types.ts';
import { parseChart, seriesOf, splitPlaceholders } from '../src/render/chart-spec.ts';
import { reasoningMeta, toolOf } from '../src/render/parts.ts';
import { splitMarkdown, tailOf } from '../src/render/split.ts';

function splitAll(text: string) {
  const s = splitMarkdown(undefined, text);
  return { blocks: s.blocks, tail: tailOf(s) };
}

function splitIncrementally(text: string, cuts: number[]) {
  let s = splitMarkdown(undefined, '');
  for (const cut of [...cuts.filter((c) => c > 0 && c < text.length)].sort((a, b) => a - b)) s = splitMarkdown(s, text.slice(0, cut));
  s = splitMarkdown(s, text);
  return { blocks: s.blocks, tail: tailOf(s) };
}

const mdChar = fc.constantFrom('a', 'b', ' ', '\n', '\n\n', '`', '```', '~~~', '-', '  ', '\t', '#', '*', '1.');

test('split: streaming in any pieces gives the same blocks as splitting the whole text', () => {
  fc.assert(
    fc.property(fc.array(mdChar, { maxLength: 80 }), fc.array(fc.nat(400), { maxLength: 12 }), (chars, cuts) => {
      const text = chars.join('');
      const whole = splitAll(text);
      assert.deepEqual(splitIncrementally(text, cuts), whole);
      assert.equal(whole.blocks.join('') + whole.tail, text, 'blocks and tail are the text');
    }),
    { numRuns: 2000 },
  );
});

test('split: a code fence with blank lines is one block; an indented continuation stays with its list', () => {
  const fence = 'intro\n\n```py\nx = 1\n\n\ny = 2\n```\n\nafter\n';
  assert.deepEqual(splitAll(fence).blocks, ['intro\n\n', '```py\nx = 1\n\n\ny = 2\n```\n\n']);
  const list = '1. item\n\n    more of the item\n\n2. next\n';
  assert.deepEqual(splitAll(list).blocks, ['1. item\n\n    more of the item\n\n']);
  // An unclosed fence keeps everything after it in the tail.
  assert.deepEqual(splitAll('a\n\n~~~\n\nb\n\nc\n').blocks, ['a\n\n']);
});

test('split: rendering the blocks one by one gives the same HTML as rendering the whole text', () => {
  const marked = new Marked({ gfm: true });
  const docs = [
    '# Title\n\nA paragraph with **bold** and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n```ts\nconst x = 1;\n\nconsole.log(x);\n```\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd.\n',
    'Setext\n======\n\ntext\nmore text\n\n---\n\n~~~\nfenced\n~~~\n\nlast\n',
  ];
  for (const doc of docs) {
    const { blocks, tail } = splitAll(doc);
    assert.ok(blocks.length > 3);
    const pieces = [...blocks, tail].map((b) => marked.parse(b, { async: false })).join('');
    assert.equal(pieces.replace(/\n/g, ''), (marked.parse(doc, { async: false }) as string).replace(/\n/g, ''));
  }
});

test('chart placeholders: complete ones become charts, a streaming one is held back', () => {
  assert.deepEqual(splitPlaceholders('a <<{"data":[1]}>> b', false), [
    { kind: 'text', text: 'a ' },
    { kind: 'chart', json: '{"data":[1]}' },
    { kind: 'text', text: ' b' },
  ]);
  assert.deepEqual(splitPlaceholders('a <<{"data":[1', true), [{ kind: 'text', text: 'a ' }, { kind: 'pending' }]);
  assert.deepEqual(splitPlaceholders('a <', true), [{ kind: 'text', text: 'a ' }]);
  assert.deepEqual(splitPlaceholders('a <<{"data":[1', false), [{ kind: 'text', text: 'a <<{"data":[1' }]);
  assert.deepEqual(splitPlaceholders('x {"a":{"b":1}} <<{"a":{"b":1}}>>', false).at(-1), { kind: 'chart', json: '{"a":{"b":1}}' });
});

test('chart specs: inline data, series, and a PromQL result from a tool call', () => {
  const none = () => undefined;
  const inline = parseChart('{"type":"bar","title":"t","data":[3,1,2]}', none);
  assert.ok(!('error' in inline));
  assert.equal(inline.kind, 'bar');
  assert.deepEqual(inline.series[0].points, [
    [0, 3],
    [1, 1],
    [2, 2],
  ]);
  const series = parseChart('{"series":[{"name":"a","data":[[1,2],[2,3]]},{"name":"b","points":[{"x":1,"y":5}]}]}', none);
  assert.ok(!('error' in series));
  assert.deepEqual(
    series.series.map((s) => s.name),
    ['a', 'b'],
  );
  const prom = {
    status: 'success',
    data: {
      resultType: 'matrix',
      result: [
        {
          metric: { __name__: 'up', job: 'api' },
          values: [
            [1700000000, '1'],
            [1700000060, '0'],
          ],
        },
      ],
    },
  };
  const fromTool = parseChart('{"type":"promql","toolCallId":"call_1","query":"up"}', (id) => (id === 'call_1' ? prom : undefined));
  assert.ok(!('error' in fromTool));
  assert.equal(fromTool.time, true);
  assert.equal(fromTool.title, 'up');
  assert.equal(fromTool.series[0].name, 'up{job="api"}');
  assert.deepEqual(fromTool.series[0].points, [
    [1700000000000, 1],
    [1700000060000, 0],
  ]);
  assert.match((parseChart('{"toolCallId":"nope"}', none) as { error: string }).error, /waiting for the output/);
  assert.match((parseChart('{oops', none) as { error: string }).error, /not valid JSON/);
  assert.deepEqual(seriesOf('not json'), []);
});

async function demoEvents(prompt: string): Promise<CanonicalEvent[]> {
  const out: CanonicalEvent[] = [];
  for await (const e of decode(demoScript(prompt), 'claude', { chatId: 'chat_1' })) out.push(e);
  return out;
}

async function aiSdkMessage(events: CanonicalEvent[]): Promise<UIMessage> {
  const enc = createEncoder('ai-sdk');
  const chunks = [...events.flatMap((e) => enc.push(e)), ...enc.end()];
  const stream = new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: stream as never })) last = m as UIMessage;
  assert.ok(last);
  return last;
}

/** What a message shows, part by part (what the renderer switches on). */
function shape(parts: readonly LoosePart[]): string[] {
  return parts
    .filter((p) => p.type !== 'step-start')
    .map((p) => {
      if (p.type === 'reasoning') return `reasoning:${reasoningMeta(p).variant}:${p.text}`;
      if (p.type === 'text') return `text:${p.text}`;
      const tool = toolOf(p);
      if (tool) return `tool:${tool.toolName}:${tool.state}:${JSON.stringify(tool.input)}:${JSON.stringify(tool.output)}`;
      if (p.type === 'data-todos') return `todos:${JSON.stringify((p.data as { todos: unknown }).todos)}`;
      if (p.type === 'data-usage') {
        const { inputTokens, outputTokens } = p.data as Record<string, unknown>;
        return `usage:${inputTokens}/${outputTokens}`;
      }
      return p.type;
    });
}

test('AG-UI builder: the demo run shows the same blocks over AG-UI as over the AI SDK stream', async () => {
  for (const prompt of ['hello', 'step', 'tool Oslo', 'code print(1)', 'text **hi**']) {
    const events = await demoEvents(prompt);
    const viaAiSdk = await aiSdkMessage(events);
    const enc = createEncoder('ag-ui');
    const builder = new AgUiMessageBuilder('fallback');
    for (const frame of [...events.flatMap((e) => enc.push(e)), ...enc.end()])
      builder.apply(frame as { type: string } & Record<string, unknown>);
    assert.ok(builder.finished, prompt);
    assert.equal(builder.runId, events[0].runId);
    assert.equal(builder.id, viaAiSdk.id, 'the message id of the run');
    // Todos: the AI SDK keeps one data part updated in place; AG-UI state does the same.
    const a = shape(viaAiSdk.parts as unknown as LoosePart[]);
    const b = shape(builder.parts);
    const order = (xs: string[]) => xs.filter((x) => !x.startsWith('todos:') && !x.startsWith('usage:'));
    assert.deepEqual(order(b), order(a), prompt);
    assert.deepEqual(
      b.filter((x) => x.startsWith('todos:')),
      a.filter((x) => x.startsWith('todos:')),
    );
    assert.deepEqual(
      b.filter((x) => x.startsWith('usage:')),
      a.filter((x) => x.startsWith('usage:')),
    );
  }
});

test('AG-UI builder: a failed run ends its blocks and reports the error', async () => {
  const events = await demoEvents('error');
  const enc = createEncoder('ag-ui');
  const builder = new AgUiMessageBuilder('fallback');
  for (const frame of [...events.flatMap((e) => enc.push(e)), ...enc.end()])
    builder.apply(frame as { type: string } & Record<string, unknown>);
  assert.match(builder.error ?? '', /failed on purpose/);
  assert.ok(builder.parts.every((p) => p.state !== 'streaming'));
  assert.deepEqual(toAgUiMessages([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }]), [
    { id: 'u1', role: 'user', content: 'hi' },
  ]);
});

test('part helpers: variants, stored durations, tool parts', () => {
  assert.deepEqual(reasoningMeta({ type: 'reasoning', providerMetadata: { switchboard: { variant: 'processing', durationMs: 1200 } } }), {
    variant: 'processing',
    durationMs: 1200,
  });
  assert.deepEqual(reasoningMeta({ type: 'reasoning', providerMetadata: { mobox: { variant: 'processing' } } }), { variant: 'processing' });
  assert.deepEqual(reasoningMeta({ type: 'reasoning' }), { variant: 'thinking' });
  const t = toolOf({ type: 'tool-get_weather', toolCallId: 'c1', state: 'output-error', input: { a: 1 }, errorText: 'boom' });
  assert.equal(t?.toolName, 'get_weather');
  assert.equal(t?.errorText, 'boom');
  assert.equal(
    toolOf({ type: 'dynamic-tool', toolName: 'run_code', toolCallId: 'c2', state: 'input-available', input: {} })?.toolName,
    'run_code',
  );
  assert.equal(toolOf({ type: 'text', text: '' }), undefined);
});

test('a non-fatal data-error part is a notice, other parts are not', () => {
  assert.equal(nonFatalNotice({ type: 'data-error', data: { message: 'line 2: not JSON', code: 'invalid_json' } }), 'line 2: not JSON');
  assert.equal(nonFatalNotice({ type: 'data-error', data: 7 }), 'The agent reported a problem.');
  assert.equal(nonFatalNotice({ type: 'data-status', data: { message: 'x' } }), undefined);
});
