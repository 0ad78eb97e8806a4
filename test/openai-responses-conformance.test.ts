/**
 * The OpenAI Responses and OpenAI Agents decoders against the official paths:
 * - every Responses capture through our decoder + AI SDK encoder passes the official UI chunk schema and
 *   assembles (official `readUIMessageStream`) into the same text, reasoning and tool calls as the official
 *   `@ai-sdk/openai` Responses provider + `streamText` builds from the same bytes; the differences are
 *   listed below with their reason (and in docs/frameworks/openai-responses.md);
 * - the development fixtures match the reference renderings `*.aisdk-ref.sse` written by the official AI SDK;
 * - every step holds what the official `openai` SDK's `responses.stream()` accumulator assembled;
 * - the recorded Agents SDK runs encode to valid AI SDK streams.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { UIMessage } from 'ai';
import { type CanonicalEvent, createAiSdkEncoder, type Decoder, framed, pipe, sseFramer } from '../packages/core/src/index.ts';
import { createOpenAIAgentsDecoder } from '../packages/core/src/inputs/openai-agents.ts';
import { createOpenAIResponsesDecoder } from '../packages/core/src/inputs/openai-responses.ts';
import {
  assembleChunks,
  assembleUIMessage,
  type MessageSummary,
  parseAiSdkSse,
  summarizeMessage,
  type ToolSummary,
} from './support/ai-sdk-oracle.ts';
import { officialResponsesResult, openaiSdkFinalResponses, responsesInputToSse } from './support/openai-responses-oracle.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
const RECORDED = `${FIXTURES}recorded/openai-responses/`;
const DEV = `${FIXTURES}openai-responses/`;
const LOCAL = new URL('../packages/core/test/fixtures/openai-responses/', import.meta.url).pathname;
const AGENTS = new URL('../packages/core/test/fixtures/openai-agents/', import.meta.url).pathname;

const CAPTURES = [
  ...readdirSync(RECORDED).map((f) => RECORDED + f),
  ...['function-call.sse', 'reasoning-summary-text.sse'].map((f) => DEV + f),
  `${LOCAL}parallel-function-calls.sse`,
];
const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);

function run(decoder: Decoder, body: string): { sse: string; events: CanonicalEvent[] } {
  const events: CanonicalEvent[] = [];
  const decode = framed(decoder);
  const encode = pipe(createAiSdkEncoder(), sseFramer('ai-sdk'));
  const out: string[] = [];
  for (const e of [...decode.push(body), ...decode.end()]) {
    events.push(e);
    out.push(...encode.push(e));
  }
  out.push(...encode.end());
  return { sse: out.join(''), events };
}

/** Our path: Responses decoder → AI SDK encoder → SSE (what `createConverter({from:'openai-responses', to:'ai-sdk'})` will do). */
function ours(body: string) {
  return run(createOpenAIResponsesDecoder({ runId: 'run', now: () => 0 }), body);
}

type Difference = { reason: string; normalize: (ours: MessageSummary, official: MessageSummary) => void };

const dropTool = (s: MessageSummary, toolName: string) => {
  s.tools = s.tools.filter((t) => t.toolName !== toolName);
};
const onlyNameAndInput = (tools: ToolSummary[]) => tools.map((t) => ({ toolName: t.toolName, input: t.input }));

/** Where our assembled message legitimately differs from the official one, and why. */
const DIFFERENCES: Record<string, Difference[]> = {};
const MCP_LIST = {
  reason:
    'mcp_list_tools is a provider-executed tool part for us (what the server offered is part of the run); @ai-sdk/openai drops the item',
  normalize: (o: MessageSummary) => dropTool(o, 'mcp_list_tools'),
};
const APPROVAL = {
  reason:
    'an MCP approval request: @ai-sdk/openai emits a tool-approval-request with a random tool call id and approval id; ours keeps the request item id as the approval id (what the mcp_approval_response needs) and the call its item id',
  normalize: (o: MessageSummary, off: MessageSummary) => {
    o.tools = onlyNameAndInput(o.tools) as ToolSummary[];
    off.tools = onlyNameAndInput(off.tools) as ToolSummary[];
  },
};
for (const f of ['openai-mcp-tool.1.chunks.txt', 'openai-mcp-tool-approval.2.chunks.txt', 'openai-mcp-tool-approval.4.chunks.txt'])
  DIFFERENCES[f] = [MCP_LIST];
for (const f of ['openai-mcp-tool-approval.1.chunks.txt', 'openai-mcp-tool-approval.3.chunks.txt']) DIFFERENCES[f] = [MCP_LIST, APPROVAL];
DIFFERENCES['openai-phase.1.chunks.txt'] = [
  {
    reason:
      "the recorder dropped most text deltas; we complete each text from response.output_text.done (the API's final text), @ai-sdk/openai only shows the deltas",
    normalize: (o, off) => {
      assert.ok(o.text.startsWith('Got it') && o.text.length > off.text.length);
      o.text = off.text;
    },
  },
];
DIFFERENCES['test_openai_responses_raw_cot_stream_openrouter.i0.sse.txt'] = [
  {
    reason: 'gpt-oss raw reasoning (response.reasoning_text.delta): @ai-sdk/openai ignores it (an empty reasoning part), we show it',
    normalize: (o, off) => {
      assert.deepEqual(off.reasoning, ['']);
      assert.match(o.reasoning[0] ?? '', /^The user asks/);
      o.reasoning = off.reasoning;
    },
  },
];

/** Captures the official path cannot assemble. */
const OFFICIAL_BROKEN: Record<string, string> = {
  'programmatic-tool-calling.3.chunks.txt':
    'the program_output answers a call made in an earlier response: @ai-sdk/openai emits a tool-result without its call and readUIMessageStream throws "No tool invocation found"; we emit the output (the encoder adds the missing tool part)',
};

/**
 * Provider-executed tool outputs: ours is the output item as the API sent it (lossless, snake_case),
 * @ai-sdk/openai reshapes it per tool (camelCase, subsets). Client tool outputs do not occur (no execute).
 */
function comparable(s: MessageSummary): MessageSummary {
  return { ...s, tools: s.tools.map(({ output: _o, errorText: _e, ...t }) => t) };
}

describe('OpenAI Responses: our AI SDK stream against the official @ai-sdk/openai path', () => {
  for (const path of CAPTURES) {
    const file = name(path);
    test(file, async () => {
      const body = responsesInputToSse(readFileSync(path, 'utf8'));
      const { sse } = ours(body);
      assert.ok(sse.endsWith('data: [DONE]\n\n'));
      const chunks = await parseAiSdkSse(sse); // throws on any chunk the official schema rejects
      const mine = summarizeMessage((await assembleChunks(chunks)).message);
      if (OFFICIAL_BROKEN[file]) {
        await assert.rejects(officialResponsesResult(body), /No tool invocation found/);
        assert.ok(mine.tools.length > 0);
        return;
      }
      const official = await officialResponsesResult(body);
      const theirs = summarizeMessage(official.message);
      for (const d of DIFFERENCES[file] ?? []) d.normalize(mine, theirs);
      assert.deepEqual(comparable(mine), comparable(theirs));
    });
  }

  test('errors: the official provider fails the call with the stream error; we send the same text as an error chunk', async () => {
    const body = responsesInputToSse(readFileSync(`${RECORDED}openai-error.1.chunks.txt`, 'utf8'));
    const official = await officialResponsesResult(body);
    const mine = await assembleChunks(await parseAiSdkSse(ours(body).sse));
    assert.deepEqual(mine.errorTexts, official.errorTexts);
    assert.equal(mine.finishReason, 'error');
  });

  test('finish reasons: the same as the official path on every capture', async () => {
    for (const path of CAPTURES) {
      const file = name(path);
      // The wrapper capture is not valid JSON; on openai-error the official provider throws before any output (no finish chunk).
      if (OFFICIAL_BROKEN[file] || file.startsWith('parallel-tool-call-wrapper') || file.startsWith('openai-error')) continue;
      // Several responses in one body: @ai-sdk/openai reads them as one model call whose function-call flag never resets
      // (tool-calls); each response is a step for us and the run ends with the last one's reason (stop: it answered).
      if (file === 'openai-reasoning-encrypted-content.1.chunks.txt') continue;
      const body = responsesInputToSse(readFileSync(path, 'utf8'));
      const official = await officialResponsesResult(body);
      const mine = await assembleChunks(await parseAiSdkSse(ours(body).sse));
      // An unanswered mcp_approval_request: @ai-sdk/openai finishes stop; our run ends waiting for the answer (tool-calls).
      const waiting = file === 'openai-mcp-tool-approval.1.chunks.txt' || file === 'openai-mcp-tool-approval.3.chunks.txt';
      assert.equal(mine.finishReason, waiting ? 'tool-calls' : official.finishReason, file);
    }
  });
});

describe('OpenAI Responses: the reference renderings of the official AI SDK (*.aisdk-ref.sse)', () => {
  for (const fixture of ['function-call', 'reasoning-summary-text']) {
    test(fixture, async () => {
      const ref = await assembleUIMessage(readFileSync(`${DEV}${fixture}.aisdk-ref.sse`, 'utf8'));
      const message = await assembleUIMessage(ours(readFileSync(`${DEV}${fixture}.sse`, 'utf8')).sse);
      assert.deepEqual(summarizeMessage(message), summarizeMessage(ref));
      // Reasoning and text parts carry the same openai provider metadata (plus our reasoning variant). The client
      // keeps the start metadata merged under the end's: an earlier summary part keeps reasoningEncryptedContent: null
      // where the official part has none (the same for the provider, which reads it as null).
      const meta = (m: UIMessage) =>
        m.parts
          .filter((p) => p.type === 'reasoning' || p.type === 'text')
          .map((p) => {
            const o = { ...(p as { providerMetadata?: { openai?: Record<string, unknown> } }).providerMetadata?.openai };
            if (o.reasoningEncryptedContent === null) delete o.reasoningEncryptedContent;
            return o;
          });
      assert.deepEqual(meta(message), meta(ref));
    });
  }
});

describe('OpenAI Responses: every step holds what the openai SDK accumulator assembled', () => {
  /** The openai SDK (7.x) rejects these bodies; our decoder reads them (see the core tests). */
  const REJECTED: Record<string, RegExp> = {
    'github-copilot-id-rotation.1.chunks.txt': /Lifecycle response identity changed/, // ids rotated by the proxy
    'openai-apply-patch-tool.1.chunks.txt': /Unhandled response stream event/, // apply_patch diff events are newer than openai 7.57
    'openai-error.1.chunks.txt': /You exceeded your current quota/, // the stream error itself
    'parallel-tool-call-wrapper.1.chunks.txt': /malformed server-sent event JSON/, // invalid JSON lines
  };

  test('text, reasoning summaries and function calls per response', async () => {
    for (const path of CAPTURES) {
      const file = name(path);
      const body = responsesInputToSse(readFileSync(path, 'utf8'));
      const finals = await openaiSdkFinalResponses(body);
      const steps = stepContents(ours(body).events);
      if (REJECTED[file]) {
        assert.ok(
          finals.some((f) => 'error' in f && REJECTED[file]?.test(f.error)),
          `${file}: ${JSON.stringify(finals.map((f) => ('error' in f ? f.error : 'ok')))}`,
        );
        continue;
      }
      assert.equal(steps.length, finals.length, file);
      finals.forEach((f, i) => {
        assert.ok('response' in f, file);
        const output = f.response.output as Record<string, unknown>[];
        if (output.length === 0) return;
        if (file === 'openai-shell-container.1.chunks.txt') return; // hand-written: deltas are not a prefix of the final text
        assert.deepEqual(steps[i], outputContent(output), `${file} response ${i + 1}`);
      });
    }
  });
});

/** Resumed runs (after an approval) and the paused run whose message they continue. */
const CONTINUES: Record<string, string> = {
  'responses-approval-approved.jsonl': 'responses-approval.jsonl',
  'responses-approval-rejected.jsonl': 'responses-approval.jsonl',
};

describe('OpenAI Agents SDK runs through the AI SDK encoder', () => {
  for (const file of readdirSync(AGENTS).filter((f) => f.endsWith('.jsonl'))) {
    test(`${file}: valid official UI chunks that assemble`, async () => {
      const earlier = CONTINUES[file];
      const previous = earlier
        ? await assembleUIMessage(
            run(createOpenAIAgentsDecoder({ runId: 'run0', now: () => 0 }), readFileSync(AGENTS + earlier, 'utf8')).sse,
          )
        : undefined;
      const decoder = createOpenAIAgentsDecoder({ runId: 'run', now: () => 0, ...(previous ? { messageId: previous.id } : {}) });
      const { sse } = run(decoder, readFileSync(AGENTS + file, 'utf8'));
      const { message, finishReason, errorTexts } = await assembleChunks(await parseAiSdkSse(sse), previous);
      assert.ok(message.parts.length > 0 || errorTexts.length > 0, file);
      assert.ok(finishReason, file);
    });
  }

  test('responses-parallel-tools: the tool parts carry the outputs the SDK computed; the answer follows', async () => {
    const { sse } = run(
      createOpenAIAgentsDecoder({ runId: 'run', now: () => 0 }),
      readFileSync(`${AGENTS}responses-parallel-tools.jsonl`, 'utf8'),
    );
    const summary = summarizeMessage(await assembleUIMessage(sse));
    assert.deepEqual(
      summary.tools.map((t) => [t.toolCallId, t.state, t.output]),
      [
        ['call_weather_paris', 'output-available', { city: 'Paris', temperature: 18, unit: 'celsius' }],
        ['call_time_tokyo', 'output-available', 'It is 14:05 in Tokyo.'],
      ],
    );
    assert.equal(summary.text, 'Paris is 18 °C right now, and it is 14:05 in Tokyo.');
    assert.equal(summary.reasoning.length, 1);
  });

  test('responses-web-search: the same message as the official Responses path builds from the replayed capture', async () => {
    const { sse } = run(
      createOpenAIAgentsDecoder({ runId: 'run', now: () => 0 }),
      readFileSync(`${AGENTS}responses-web-search.jsonl`, 'utf8'),
    );
    const mine = summarizeMessage(await assembleUIMessage(sse));
    const body = responsesInputToSse(readFileSync(`${RECORDED}openai-web-search-tool.1.chunks.txt`, 'utf8'));
    const official = summarizeMessage((await officialResponsesResult(body)).message);
    assert.deepEqual(comparable(mine), comparable(official));
  });
});

// -------------------------------------------------------------------------------------------------

interface StepContent {
  text: string;
  reasoning: string[];
  calls: { id: string; name: string; input: unknown }[];
}

const BUILT_IN = new Set(['apply_patch', 'local_shell', 'shell', 'computer', 'tool_search', 'programmatic_tool_calling']);

function stepContents(events: CanonicalEvent[]): StepContent[] {
  const steps: StepContent[] = [];
  const blocks = new Map<string, string>();
  let current: StepContent | undefined;
  for (const e of events) {
    if (e.type === 'step-start') {
      current = { text: '', reasoning: [], calls: [] };
      steps.push(current);
    } else if (!current) continue;
    else if (e.type === 'text-start' || e.type === 'reasoning-start') blocks.set(e.blockId, '');
    else if (e.type === 'text-delta' || e.type === 'reasoning-delta') blocks.set(e.blockId, (blocks.get(e.blockId) ?? '') + e.delta);
    else if (e.type === 'text-end') current.text += blocks.get(e.blockId) ?? '';
    else if (e.type === 'reasoning-end') current.reasoning.push(blocks.get(e.blockId) ?? '');
    else if (e.type === 'tool-input-end' && !e.providerExecuted && !BUILT_IN.has(e.toolName))
      current.calls.push({ id: e.toolCallId, name: e.toolName, input: e.input });
  }
  return steps;
}

function outputContent(output: Record<string, unknown>[]): StepContent {
  const c: StepContent = { text: '', reasoning: [], calls: [] };
  for (const item of output) {
    if (item.type === 'message') for (const p of item.content as Record<string, unknown>[]) c.text += (p.text ?? p.refusal ?? '') as string;
    if (item.type === 'reasoning') {
      const parts = [
        ...(item.summary as { text: string }[]).map((s) => s.text),
        ...((item.content as { text: string }[] | undefined) ?? []).map((s) => s.text),
      ];
      c.reasoning.push(...(parts.length > 0 ? parts : ['']));
    }
    if (item.type === 'function_call')
      c.calls.push({ id: item.call_id as string, name: item.name as string, input: JSON.parse((item.arguments as string) || '{}') });
    if (item.type === 'custom_tool_call') c.calls.push({ id: item.call_id as string, name: item.name as string, input: item.input });
  }
  return c;
}
