/**
 * History reload against the official implementations, for every capture of every registered
 * decoder (Anthropic, OpenAI Chat / Responses, Gemini, LangChain, AG-UI), the demo agent's commands
 * and a run that uses every canonical event kind:
 * - AI SDK: the reloaded `UIMessage[]` passes `ai`'s `validateUIMessages` and `convertToModelMessages`,
 *   and its parts equal what `readUIMessageStream` assembled from our live stream (modulo `state`);
 * - AG-UI: the MESSAGES_SNAPSHOT passes `@ag-ui/core`'s schema, and its messages equal what the
 *   official `HttpAgent` built from our live AG-UI stream;
 * - the thinking timeline, with `<think>` tags in stored text deduplicated against streamed thinking.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Message } from '@ag-ui/core';
import { MessagesSnapshotEventSchema } from '@ag-ui/core/schemas';
import { type CanonicalEvent, createSseEncoder, isProtocol, type Protocol } from '@switchboard/core';
import { convertToModelMessages, type UIMessage, validateUIMessages } from 'ai';

import { runAgUi } from '../../../test/support/ag-ui-oracle.ts';
import { assembleChunks, parseAiSdkSse } from '../../../test/support/ai-sdk-oracle.ts';
import { extractThinkTags, loadHistory, toAgUiHistory, toAgUiMessages, toAgUiSnapshot, toTimeline, toUIMessages } from '../src/history.ts';
import { type AssistantMessage, type PersistedMessage, project, type UserMessage } from '../src/projection.ts';
import { openSqliteStore } from '../src/sqlite.ts';
import { anthropicFixtures, decodeText, demoRun, kitchenSink, otherCaptureRuns } from './support.ts';

const DEMO_PROMPTS = ['hello there', 'step', 'tool Rome', 'text just text', 'code let x = 1;', 'error'];

function sse(events: readonly CanonicalEvent[], protocol: Protocol): string {
  const enc = createSseEncoder(protocol);
  return [...events.flatMap((e) => enc.push(e)), ...enc.end()].join('');
}

/** What the official client assembles from our live AI SDK stream. */
async function liveUIMessage(events: readonly CanonicalEvent[]): Promise<UIMessage> {
  return (await assembleChunks(await parseAiSdkSse(sse(events, 'ai-sdk')))).message;
}

/** Parts compared without `state` (streaming/done, and the stored durationMs the live stream has no field for). */
function comparable(parts: readonly unknown[]): unknown {
  const clean = JSON.parse(JSON.stringify(parts)) as Record<string, unknown>[];
  for (const p of clean) {
    delete p.state;
    const ours = (p.providerMetadata as Record<string, Record<string, unknown>> | undefined)?.switchboard;
    if (ours) delete ours.durationMs;
  }
  return clean;
}

function user(id: string, content: string, chatId = 'chat'): UserMessage {
  return { id, chatId, role: 'user', content, metadata: {}, persistenceState: 'persisted', createdAt: 0, updatedAt: 0 };
}

function runs(): { name: string; events: CanonicalEvent[] }[] {
  const out = anthropicFixtures().map((f) => ({ name: f.name, events: decodeText(f.text, 'anthropic', 'run') }));
  out.push(...otherCaptureRuns('run'));
  for (const p of DEMO_PROMPTS) out.push({ name: `demo: ${p}`, events: demoRun(p, 'run') });
  out.push({ name: 'kitchen sink', events: kitchenSink('run') });
  return out;
}

describe('AI SDK history', () => {
  for (const { name, events } of runs()) {
    test(`${name}: validateUIMessages, convertToModelMessages, and the same parts as readUIMessageStream live`, async () => {
      const assistant = project(events, { chatId: 'chat' });
      const history = toUIMessages([user('u1', 'hi'), assistant]) as UIMessage[];
      const validated = await validateUIMessages({ messages: history });
      assert.equal(validated.length, 2);
      await convertToModelMessages(validated);
      const live = await liveUIMessage(events);
      assert.equal(history[1].id, live.id);
      assert.deepEqual(comparable(history[1].parts), comparable(live.parts));
      // Without our metadata the message metadata is the live one too.
      const plain = toUIMessages([assistant], { metadata: false })[0];
      assert.deepEqual(JSON.parse(JSON.stringify(plain.metadata ?? null)), JSON.parse(JSON.stringify(live.metadata ?? null)));
    });
  }

  test('"Thought for 4s" survives a reload: the duration is stored from the server clock, with the variant and the signature', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    try {
      const events = kitchenSink('run-dur', 'chat-dur');
      await store.append(events);
      const [m] = toUIMessages(await store.listMessages('chat-dur'));
      const reasoning = m.parts.filter((p) => p.type === 'reasoning');
      assert.deepEqual(
        reasoning.map((p) => p.providerMetadata),
        [
          { switchboard: { variant: 'processing', durationMs: 3000 } },
          { anthropic: { signature: 'sig-abc' }, switchboard: { variant: 'thinking', durationMs: 3000 } },
          { anthropic: { redactedData: 'opaque==' }, switchboard: { variant: 'thinking', durationMs: 1000 } },
          { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc==' }, switchboard: { variant: 'thinking', durationMs: 2000 } },
        ],
      );
      const stored = (await store.listMessages('chat-dur'))[0] as AssistantMessage;
      assert.deepEqual(
        stored.metadata.processing.map((p) => [p.text, p.durationMs]),
        [['Looking around…', 3000]],
      );
      assert.deepEqual(
        stored.metadata.thinking.map((t) => [t.text, t.durationMs, t.signature, t.redacted]),
        [
          ['Let me think about it.', 3000, 'sig-abc', undefined],
          ['', 1000, undefined, true],
          ['Summary of reasoning.', 2000, undefined, undefined],
        ],
      );
      // The reasoning goes back to the model with its signature / encrypted content.
      const model = await convertToModelMessages(toUIMessages(await store.listMessages('chat-dur')) as UIMessage[]);
      const parts = (model[0] as { content: { type: string; providerOptions?: unknown }[] }).content.filter((p) => p.type === 'reasoning');
      assert.deepEqual(
        parts.map((p) => p.providerOptions),
        reasoning.map((p) => p.providerMetadata),
      );
    } finally {
      await store.close();
    }
  });

  test('the metadata of a persisted message: content, processing, thinking, tools, todos, steps, sources, usage, model, stop reason, errors', () => {
    const events = kitchenSink('run');
    const m = project(events, { chatId: 'c' });
    const tsOf = (type: string, stepId: string) => events.find((e) => e.type === type && 'stepId' in e && e.stepId === stepId)?.ts ?? 0;
    const took = (stepId: string) => tsOf('step-finish', stepId) - tsOf('step-start', stepId);
    assert.equal(m.content, 'Cats are great [1].', 'subagent text is not part of the final text');
    assert.equal(m.persistenceState, 'persisted');
    const md = m.metadata;
    assert.equal(md.status, 'complete');
    assert.equal(md.model, 'm-1');
    assert.equal(md.stopReason, 'stop');
    assert.deepEqual(md.usage, { inputTokens: 30, outputTokens: 13, totalTokens: 43 });
    assert.deepEqual(md.todos, [{ id: 'a', content: 'Search', status: 'completed' }]);
    assert.deepEqual(
      md.steps.map((s) => [s.stepId, s.finishReason, s.durationMs]),
      [
        ['s1', 'tool-calls', took('s1')],
        ['s2', 'stop', took('s2')],
      ],
    );
    assert.deepEqual(
      md.sources.map((s) => s.sourceId),
      ['src1', 'src2', 'citation-1'],
    );
    assert.deepEqual(
      md.errors.map((e) => [e.code, e.fatal]),
      [['invalid_json', false]],
    );
    assert.equal(md.error, undefined);
    const tools = md.parts.filter((p) => p.type === 'tool');
    assert.deepEqual(
      tools.map((t) => [t.toolCallId, t.state, t.output ?? t.errorText, t.providerExecuted]),
      [
        ['c1', 'output-available', { hits: 3 }, undefined],
        ['c2', 'output-available', [{ url: 'https://a.example' }], true],
        ['c3', 'output-error', 'Unexpected end of JSON input', undefined],
        ['c4', 'output-error', 'boom', undefined],
      ],
    );
    const text = md.parts.find((p) => p.type === 'text' && p.blockId === 'x1');
    assert.ok(text?.type === 'text');
    assert.deepEqual(
      text.citations?.map((c) => [c.sourceId, c.kind]),
      [
        ['citation-1', 'url'],
        ['citation-2', 'document'],
      ],
    );
  });
});

describe('AG-UI history', () => {
  for (const { name, events } of runs()) {
    test(`${name}: MESSAGES_SNAPSHOT passes @ag-ui/core's schema`, () => {
      const snapshot = toAgUiSnapshot([user('u1', 'hi'), project(events, { chatId: 'chat' })]);
      const parsed = MessagesSnapshotEventSchema.safeParse(snapshot);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
    });
  }

  /** What a message list amounts to, without metadata and encrypted values (carried differently live). */
  const shape = (messages: readonly unknown[]) =>
    (messages as Record<string, unknown>[]).map((m) => {
      const out: Record<string, unknown> = { id: m.id, role: m.role, content: m.content ?? '' };
      if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
      if (Array.isArray(m.toolCalls))
        out.toolCalls = (m.toolCalls as { id: string; function: { name: string; arguments: string } }[]).map((c) => [
          c.id,
          c.function.name,
          c.function.arguments,
        ]);
      return out;
    });

  const agUi = isProtocol('ag-ui') ? ('ag-ui' as Protocol) : undefined;
  // History keeps one result per call (the final one); live, each preliminary output is a tool
  // message of its own. Preliminary outputs are left out of this comparison.
  const live = runs().map(({ name, events }) => ({
    name,
    events: events.filter((e) => !(e.type === 'tool-output' && e.preliminary)),
  }));
  for (const { name, events } of live) {
    test(`${name}: the snapshot holds the messages the official HttpAgent built from the live AG-UI stream`, { skip: !agUi }, async () => {
      const run = await runAgUi(sse(events, agUi as Protocol));
      assert.equal(run.error, undefined);
      assert.deepEqual(shape(toAgUiMessages([project(events, { chatId: 'chat' })])), shape(run.messages as Message[]));
    });
    test(`${name}: the history's state is the agent.state the official HttpAgent held after the live AG-UI stream`, {
      skip: !agUi,
    }, async () => {
      const run = await runAgUi(sse(events, agUi as Protocol));
      assert.deepEqual(toAgUiHistory([project(events, { chatId: 'chat' })]).state, JSON.parse(JSON.stringify(run.state ?? {})));
    });
  }

  test('a history load reads no run log: a run of 10 events and one of 10,000 cost the same', async () => {
    const store = await openSqliteStore({ path: ':memory:' });
    try {
      const cost = async (chatId: string, deltas: number) => {
        await store.createChat({ id: chatId });
        const runId = `${chatId}-run`;
        const events: CanonicalEvent[] = [{ type: 'run-start', runId, seq: 0, ts: 0, messageId: `${chatId}-m` } as CanonicalEvent];
        events.push({ type: 'text-start', runId, seq: 1, ts: 0, blockId: 't' } as CanonicalEvent);
        for (let i = 0; i < deltas; i++)
          events.push({ type: 'text-delta', runId, seq: i + 2, ts: 0, blockId: 't', delta: 'x' } as CanonicalEvent);
        events.push({ type: 'text-end', runId, seq: deltas + 2, ts: 0, blockId: 't' } as CanonicalEvent);
        events.push({ type: 'run-finish', runId, seq: deltas + 3, ts: 0, finishReason: 'stop' } as CanonicalEvent);
        await store.startRun({ runId, chatId, userMessage: { id: `${chatId}-u`, content: 'hi' } });
        await store.append(events);
        let read = 0;
        const original = store.read.bind(store);
        store.read = (async (...args: Parameters<typeof store.read>) => {
          const out = await original(...args);
          read += out.length + 1;
          return out;
        }) as typeof store.read;
        try {
          const history = await loadHistory(store, chatId, 'ag-ui');
          assert.equal(history.messages.length, 2);
        } finally {
          store.read = original;
        }
        return read;
      };
      const small = await cost('c10', 6);
      const large = await cost('c10k', 9_996);
      assert.equal(small, large);
      assert.equal(large, 0);
    } finally {
      await store.close();
    }
  });
});

describe('the thinking timeline', () => {
  test('the demo run: processing as system messages, thinking, tool execution with its result, the answer', () => {
    const m = project(demoRun('hello', 'run'), { chatId: 'c' });
    const items = toTimeline([user('u1', 'hello'), m]);
    assert.deepEqual(
      items.map((i) => i.type),
      ['user_message', 'system_message', 'thinking', 'tool_execution', 'agent_message'],
    );
    const tool = items[3];
    assert.ok(tool.type === 'tool_execution');
    assert.deepEqual(tool.call, { id: 'toolu_demo_weather', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } });
    assert.equal(tool.result?.isError, false);
    assert.equal(typeof items[0].timestamp, 'string');
  });

  const think = (text: string, thinking?: string): PersistedMessage => {
    const events: Record<string, unknown>[] = [{ type: 'run-start', version: 1, messageId: 'm1' }];
    if (thinking !== undefined)
      events.push(
        { type: 'reasoning-start', blockId: 'r', variant: 'thinking' },
        { type: 'reasoning-delta', blockId: 'r', delta: thinking },
        { type: 'reasoning-end', blockId: 'r' },
      );
    events.push(
      { type: 'text-start', blockId: 't' },
      { type: 'text-delta', blockId: 't', delta: text },
      { type: 'text-end', blockId: 't' },
      { type: 'run-finish', finishReason: 'stop' },
    );
    return project(events.map((e, seq) => ({ ...e, runId: 'run', seq, ts: seq * 1000 }) as unknown as CanonicalEvent));
  };

  test('a <think> block in stored text that duplicates the streamed thinking appears once', () => {
    const items = toTimeline([think('<think>Planning...</think>I will help you.', 'Planning...')]);
    assert.deepEqual(
      items.map((i) => [i.type, 'content' in i ? i.content : '']),
      [
        ['thinking', 'Planning...'],
        ['agent_message', 'I will help you.'],
      ],
    );
    assert.ok(items[0].type === 'thinking' && items[0].source === 'stream');
  });

  test('a <think> block without a streamed twin (non-streaming response) is extracted on display', () => {
    const items = toTimeline([think('<think>Planning...</think>I will help you.')]);
    assert.deepEqual(
      items.map((i) => [i.type, 'content' in i ? i.content : '']),
      [
        ['thinking', 'Planning...'],
        ['agent_message', 'I will help you.'],
      ],
    );
    assert.ok(items[0].type === 'thinking' && items[0].source === 'tag');
    const both = toTimeline([think('<think>Other.</think>Done.', 'Planning...')]);
    assert.deepEqual(
      both.map((i) => i.type),
      ['thinking', 'thinking', 'agent_message'],
    );
  });

  test('a live message shows its open blocks as ephemeral messages', () => {
    const events = demoRun('text streaming words here', 'run');
    const cut = events.findIndex((e) => e.type === 'text-delta') + 2;
    const items = toTimeline([project(events.slice(0, cut), { chatId: 'c' })]);
    assert.deepEqual(items.at(-1), {
      type: 'ephemeral_message',
      id: 'run:b1',
      messageType: 'agent_message',
      content: 'streaming words ',
      timestamp: (items.at(-1) as { timestamp: string }).timestamp,
    });
  });

  test('<think> extraction tolerates malformed tags', () => {
    assert.deepEqual(extractThinkTags('a<think>b</think>c'), { content: 'ac', thinking: ['b'], unclosed: false });
    assert.deepEqual(extractThinkTags('<think>unfinished'), { content: '', thinking: ['unfinished'], unclosed: true });
    assert.deepEqual(extractThinkTags('stray</think> close'), { content: 'stray</think> close', thinking: [], unclosed: false });
    assert.deepEqual(extractThinkTags('<THINKING>x <think> y</THINKING>z'), { content: 'z', thinking: ['x <think> y'], unclosed: false });
    assert.deepEqual(extractThinkTags('no tags'), { content: 'no tags', thinking: [], unclosed: false });
  });
});
