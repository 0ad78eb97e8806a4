/**
 * Self-test of the AI SDK oracle (test/support/ai-sdk-oracle.ts): the official `ai` /
 * `@ai-sdk/anthropic` packages must reproduce the reference renderings and reject malformed
 * UI message streams.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UIMessageStreamError } from 'ai';
import {
  anthropicInputToSse,
  anthropicToolNames,
  assembleChunks,
  assembleUIMessage,
  type ChunkVerdicts,
  officialAnthropicMessage,
  officialAnthropicResult,
  officialAnthropicSse,
  parseAiSdkChunkTexts,
  parseAiSdkSse,
  summarizeMessage,
} from './support/ai-sdk-oracle.ts';

const DEV_DIR = new URL('./fixtures/anthropic', import.meta.url).pathname;
const RECORDED_DIR = new URL('./fixtures/recorded/anthropic', import.meta.url).pathname;
const DEV_FIXTURES = ['text-basic', 'thinking-text-tool-use', 'error-overloaded'];

const read = (path: string): string => readFileSync(path, 'utf8');
const devSse = (name: string): string => read(join(DEV_DIR, `${name}.sse`));
const devRef = (name: string): string => read(join(DEV_DIR, `${name}.aisdk-ref.sse`));

/**
 * Recorded files on which the official path itself throws. Currently EMPTY: every file in
 * test/fixtures/recorded/anthropic/ replays without throwing. Files that behave oddly but
 * do not throw (asserted below):
 * - spliced-message-start: second message_start while the first is open → the provider emits an
 *   InvalidResponseDataError `error` chunk, drops the rest, finishReason "error".
 * - duplicate-message-start: a repeated message_start with the SAME id is silently ignored.
 * - tool_use_response.txt (no blank line after the final message_stop, so the SSE parser drops
 *   that event) and incomplete_partial_json_response.txt (truncated) → finishReason "interrupted".
 * - anthropic-programmatic-tool-calling.1 (15 message_start…message_stop runs in one body) →
 *   still ONE step (one start-step/finish-step/finish); the last message's stop_reason wins.
 */
const OFFICIAL_PATH_THROWS: ReadonlyMap<string, string> = new Map();

test('parseAiSdkSse accepts every *.aisdk-ref.sse and skips [DONE]', async () => {
  for (const name of DEV_FIXTURES) {
    const chunks = await parseAiSdkSse(devRef(name));
    assert.ok(chunks.length > 0, name);
    assert.deepEqual(chunks[0], { type: 'start', messageId: 'msg_ref' }, name);
    assert.equal(chunks.at(-1)?.type, 'finish', name);
  }
});

test('parseAiSdkSse throws on a chunk that fails the official schema, naming the chunk', async () => {
  await assert.rejects(parseAiSdkSse('data: {"type":"bogus"}\n\n'), /\{"type":"bogus"\}/);
  await assert.rejects(parseAiSdkSse('data: {"type":"text-delta","id":"0"}\n\n'), /"type":"text-delta"/);
  await assert.rejects(parseAiSdkSse('data: {not json\n\n'), /\{not json/);
});

test('parseAiSdkChunkTexts gives what parseAiSdkSse gives for the same chunks, kept or not', async () => {
  const known: ChunkVerdicts = new Map();
  for (const name of DEV_FIXTURES) {
    const body = devRef(name);
    const texts = body
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
      .map((l) => l.slice(6));
    const expected = await parseAiSdkSse(body);
    assert.deepEqual(await parseAiSdkChunkTexts(texts, known), expected, name);
    assert.deepEqual(await parseAiSdkChunkTexts(texts, known), expected, `${name}, kept`);
  }
  const bad = ['{"type":"start"}', '{"type":"text-delta","id":"0"}'];
  const full = await parseAiSdkSse(bad.map((t) => `data: ${t}\n\n`).join('')).catch((err: Error) => err.message);
  const kept = await parseAiSdkChunkTexts(bad, known).catch((err: Error) => err.message);
  assert.match(String(full), /chunk #1 rejected/);
  assert.equal(kept, full);
  assert.equal(await parseAiSdkChunkTexts(bad, known).catch((err: Error) => err.message), full, 'kept rejection');
});

test('assembleUIMessage propagates official assembly errors (delta without start)', async () => {
  const body =
    'data: {"type":"start","messageId":"m"}\n\n' +
    'data: {"type":"text-delta","id":"0","delta":"x"}\n\n' +
    'data: {"type":"finish"}\n\ndata: [DONE]\n\n';
  await assert.rejects(assembleUIMessage(body), (error: unknown) => {
    assert.ok(UIMessageStreamError.isInstance(error));
    assert.match(error.message, /text-delta for missing text part/);
    return true;
  });
  await assert.rejects(assembleUIMessage('data: {"type":"tool-input-delta","toolCallId":"t","inputTextDelta":"{"}\n\n'), (error: unknown) =>
    UIMessageStreamError.isInstance(error),
  );
});

test('assembleUIMessage does not throw on `error` chunks; assembleChunks reports them', async () => {
  const message = await assembleUIMessage(devRef('error-overloaded'));
  assert.equal(summarizeMessage(message).text, 'Let me think about');
  const assembled = await assembleChunks(await parseAiSdkSse(devRef('error-overloaded')));
  assert.deepEqual(assembled.errorTexts, ['Overloaded']);
  assert.equal(assembled.finishReason, 'error');
});

test('anthropicInputToSse: raw SSE unchanged, JSONL framed as event/data', () => {
  const raw = devSse('text-basic');
  assert.equal(anthropicInputToSse(raw), raw);
  const jsonl = '{"type":"message_start","message":{}}\n\n{"type": "ping"}\n{"type":"message_stop"   }\n';
  assert.equal(
    anthropicInputToSse(jsonl),
    'event: message_start\ndata: {"type":"message_start","message":{}}\n\n' +
      'event: ping\ndata: {"type": "ping"}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"   }\n\n',
  );
});

test('officialAnthropicMessage on thinking-text-tool-use: reasoning, text and the recorded tool input', async () => {
  const final = JSON.parse(read(join(DEV_DIR, 'thinking-text-tool-use.final.json'))) as {
    final: {
      content: {
        type: string;
        id?: string;
        name?: string;
        input?: unknown;
        text?: string;
        thinking?: string;
        signature?: string;
      }[];
    };
  };
  const toolUse = final.final.content.find((block) => block.type === 'tool_use');
  const thinking = final.final.content.find((block) => block.type === 'thinking');
  const text = final.final.content.find((block) => block.type === 'text');
  assert.ok(toolUse && thinking && text);

  const message = await officialAnthropicMessage(devSse('thinking-text-tool-use'));
  const summary = summarizeMessage(message);
  assert.deepEqual(summary.reasoning, [thinking.thinking]);
  assert.equal(summary.text, text.text);
  assert.deepEqual(summary.tools, [
    {
      toolCallId: toolUse.id,
      toolName: toolUse.name,
      input: toolUse.input,
      state: 'input-available',
    },
  ]);
  // A static `tool-get_weather` part (declared tool), not a `dynamic-tool` / invalid call.
  assert.ok(message.parts.some((p) => p.type === 'tool-get_weather'));
  const reasoningPart = message.parts.find((p) => p.type === 'reasoning');
  assert.deepEqual(reasoningPart?.providerMetadata, {
    anthropic: { signature: thinking.signature },
  });
});

for (const name of DEV_FIXTURES) {
  test(`official path reproduces ${name}.aisdk-ref.sse`, async () => {
    const sse = devSse(name);
    assert.equal(await officialAnthropicSse(sse), devRef(name));
    const fromRef = summarizeMessage(await assembleUIMessage(devRef(name)));
    const official = summarizeMessage(await officialAnthropicMessage(sse));
    assert.deepEqual(official, fromRef);
  });
}

test('officialAnthropicResult on error-overloaded: error chunk, finishReason "error"', async () => {
  const result = await officialAnthropicResult(devSse('error-overloaded'));
  assert.deepEqual(result.errorTexts, ['Overloaded']);
  assert.equal(result.finishReason, 'error');
  assert.equal(result.streamErrors.length, 1);
});

test('official path over every recorded Anthropic stream', async (t) => {
  const files = readdirSync(RECORDED_DIR).sort();
  assert.ok(files.length > 0);
  for (const file of files) {
    await t.test(file, async (st) => {
      const why = OFFICIAL_PATH_THROWS.get(file);
      if (why !== undefined) {
        st.skip(`official path throws: ${why}`);
        return;
      }
      const sse = anthropicInputToSse(read(join(RECORDED_DIR, file)));
      const result = await officialAnthropicResult(sse);
      const summary = summarizeMessage(result.message);

      // Every tool_use block is a plain tool part of the declared tool (no NoSuchToolError).
      const { client } = anthropicToolNames(sse);
      for (const tool of summary.tools) {
        if (client.includes(tool.toolName) && !tool.providerExecuted) {
          assert.notEqual(tool.state, 'output-error', `${tool.toolName}: ${tool.errorText}`);
        }
      }
      // No server tool ends up as an invalid call either.
      for (const tool of summary.tools) assert.doesNotMatch(tool.errorText ?? '', /NoSuchToolError/);

      // The official server's wire output is accepted by the official client and assembles to
      // the same content.
      const wire = await officialAnthropicSse(sse);
      assert.deepEqual(summarizeMessage(await assembleUIMessage(wire)), summary);

      if (file === 'spliced-message-start.chunks.txt') {
        assert.equal(result.finishReason, 'error');
        assert.match(result.errorTexts.join('\n'), /message_start for message "msg_second"/);
      } else {
        assert.deepEqual(result.errorTexts, [], file);
      }
      if (file === 'tool_use_response.txt' || file === 'incomplete_partial_json_response.txt') {
        assert.equal(result.finishReason, 'interrupted');
      }
    });
  }
});
