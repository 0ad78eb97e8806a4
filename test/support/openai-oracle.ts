/**
 * Correctness oracle for the OpenAI Chat Completions decoder, built on the OFFICIAL AI SDK providers:
 * a recorded Chat Completions body is replayed through `@ai-sdk/openai` (`createOpenAI({ fetch })
 * .chat(…)`, or `.completion(…)` for legacy `text_completion` streams), `@ai-sdk/deepseek`,
 * `@ai-sdk/groq`, `@ai-sdk/xai` or `@ai-sdk/openai-compatible` with a fake `fetch`, then `streamText`
 * (tools declared without execute) → `toUIMessageStream` → `readUIMessageStream`.
 *
 * The DeepSeek, Groq and xAI packages implement the v3 provider specification; `ai` 7 runs them
 * through its v3 adapter (checked by the conformance tests, which replay every capture with them).
 */
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGroq } from '@ai-sdk/groq';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createXai } from '@ai-sdk/xai';
import { jsonSchema, type LanguageModel, streamText, type ToolSet, tool, type UIMessageChunk } from 'ai';
import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CanonicalEvent } from '../../packages/core/src/index.ts';
import { type AssembledUIMessage, assembleChunks } from './ai-sdk-oracle.ts';

/** The official provider packages a Chat Completions capture can be replayed through. */
export type OpenAIChatProvider = 'openai' | 'openai-completion' | 'deepseek' | 'groq' | 'xai' | 'openai-compatible';

/**
 * Normalises a Chat Completions fixture to its wire format: raw SSE bodies (first non-empty line
 * starts with `data:` or `event:`) are returned unchanged; JSON lines (vercel/ai `*.chunks.txt`,
 * one chunk per line) become `data: <line>\n\n` per line and a final `data: [DONE]\n\n`.
 */
export function openaiChatInputToSse(text: string): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const first = lines[0];
  if (first === undefined || first.startsWith('data:') || first.startsWith('event:')) return text;
  return `${lines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
}

/** The JSON payloads of a data-only SSE body (`[DONE]` and non-JSON payloads skipped). */
export function sseDataPayloads(body: string): unknown[] {
  const out: unknown[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (!data || data === '[DONE]') continue;
    try {
      out.push(JSON.parse(data));
    } catch {
      // the official provider reports it itself
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names of the tools called in a Chat Completions body (`tool_calls[].function.name`, `function_call.name`). */
export function openaiChatToolNames(sseBody: string): string[] {
  const names = new Set<string>();
  for (const chunk of sseDataPayloads(sseBody)) {
    if (!isRecord(chunk) || !Array.isArray(chunk.choices)) continue;
    for (const choice of chunk.choices) {
      const delta = isRecord(choice) && isRecord(choice.delta) ? choice.delta : undefined;
      if (!delta) continue;
      if (Array.isArray(delta.tool_calls))
        for (const call of delta.tool_calls)
          if (isRecord(call) && isRecord(call.function) && typeof call.function.name === 'string') names.add(call.function.name);
      if (isRecord(delta.function_call) && typeof delta.function_call.name === 'string') names.add(delta.function_call.name);
    }
  }
  return [...names];
}

/** Options of the official replay. */
export interface OfficialOpenAIChatOptions {
  /** Provider package (default `openai`). */
  provider?: OpenAIChatProvider;
  /** Model id passed to the provider (default `gpt-4o`). */
  modelId?: string;
  /** Response message id (default `msg_ref`, like the `*.aisdk-ref.sse` fixtures). */
  messageId?: string;
}

function modelFor(provider: OpenAIChatProvider, modelId: string, fetch: typeof globalThis.fetch): LanguageModel {
  const common = { apiKey: 'test', fetch };
  switch (provider) {
    case 'openai':
      return createOpenAI(common).chat(modelId);
    case 'openai-completion':
      return createOpenAI(common).completion(modelId);
    case 'deepseek':
      return createDeepSeek(common)(modelId);
    case 'groq':
      return createGroq(common)(modelId);
    case 'xai':
      return createXai(common).chat(modelId);
    case 'openai-compatible':
      return createOpenAICompatible({ ...common, name: 'compatible', baseURL: 'http://127.0.0.1:1/v1' })(modelId);
  }
}

/** Everything observed while replaying a Chat Completions body through the official AI SDK. */
export interface OfficialOpenAIChatResult extends AssembledUIMessage {
  /** UI message chunks produced by `result.toUIMessageStream(...)`. */
  chunks: UIMessageChunk[];
  /** Errors reported to `streamText({ onError })`. */
  streamErrors: unknown[];
}

/**
 * Official path: fake-fetch provider → `streamText` (the body's tools declared without execute, any
 * object input) → `toUIMessageStream({ sendReasoning, sendSources })` → `readUIMessageStream`.
 * No network access.
 */
export async function officialOpenAIChatResult(
  sseBody: string,
  options: OfficialOpenAIChatOptions = {},
): Promise<OfficialOpenAIChatResult> {
  const { provider = 'openai', modelId = 'gpt-4o', messageId = 'msg_ref' } = options;
  const fetch = (async () => new Response(sseBody, { headers: { 'content-type': 'text/event-stream' } })) as typeof globalThis.fetch;
  const tools: ToolSet = {};
  for (const name of openaiChatToolNames(sseBody)) tools[name] = tool({ inputSchema: jsonSchema({ type: 'object' }) });
  const streamErrors: unknown[] = [];
  const result = streamText({
    model: modelFor(provider, modelId, fetch),
    prompt: 'hi',
    tools,
    maxRetries: 0,
    onError: ({ error }) => {
      streamErrors.push(error);
    },
  });
  const chunks: UIMessageChunk[] = [];
  const stream = result.toUIMessageStream({
    sendReasoning: true,
    sendSources: true,
    generateMessageId: () => messageId,
    onError: (error) => (error instanceof Error ? error.message : String(error)),
  });
  for await (const chunk of stream) chunks.push(chunk);
  return { ...(await assembleChunks(chunks)), chunks, streamErrors };
}

/**
 * What the official `openai` SDK assembles from a Chat Completions body: `chat.completions.stream()`
 * with a fake `fetch` returning the body, then `finalChatCompletion()` (how the `*.final.json` files
 * of the development set were made).
 */
export async function openaiSdkFinalCompletion(sseBody: string): Promise<ChatCompletion> {
  const client = new OpenAI({
    apiKey: 'test',
    baseURL: 'http://127.0.0.1:1/v1',
    maxRetries: 0,
    fetch: (async () => new Response(sseBody, { headers: { 'content-type': 'text/event-stream' } })) as typeof globalThis.fetch,
  });
  const stream = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  return await stream.finalChatCompletion();
}

/** One choice of the completion a canonical stream amounts to (the `openai` SDK's shape). */
export interface AssembledChoice {
  index: number;
  message: {
    content: string | null;
    refusal: string | null;
    reasoning: string | null;
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  };
  /** Parsed tool inputs by call id (from tool-input-end). */
  inputs: Record<string, unknown>;
  finish_reason: string | null;
  logprobs: unknown;
}

/** The `ChatCompletion`-like object a canonical stream of the openai-chat decoder amounts to. */
export interface AssembledCompletion {
  id: string | undefined;
  model: string | undefined;
  choices: AssembledChoice[];
  usage: unknown;
  finishReason: string | undefined;
}

type Meta = Record<string, Record<string, unknown>> | undefined;

/**
 * Rebuilds, per choice, what the `openai` SDK's `finalChatCompletion()` assembles, from our
 * canonical events: blocks and tool calls of choice k carry `{openai:{choiceIndex:k}}` (none for
 * choice 0), refusal text blocks `{openai:{refusal:true}}`; finish reasons and logprobs of the
 * choices are on step-finish (`rawFinishReason`, `providerMetadata.openai.choices`).
 */
export function chatCompletionOf(events: readonly CanonicalEvent[]): AssembledCompletion {
  const choices = new Map<number, AssembledChoice>();
  const choice = (index: number): AssembledChoice => {
    let c = choices.get(index);
    if (!c) {
      c = { index, message: { content: null, refusal: null, reasoning: null }, inputs: {}, finish_reason: null, logprobs: null };
      choices.set(index, c);
    }
    return c;
  };
  const indexOf = (pm: Meta) => (typeof pm?.openai?.choiceIndex === 'number' ? pm.openai.choiceIndex : 0);
  const blocks = new Map<string, { c: AssembledChoice; key: 'content' | 'refusal' | 'reasoning' }>();
  const calls = new Map<string, { function: { arguments: string } }>();
  const out: AssembledCompletion = { id: undefined, model: undefined, choices: [], usage: undefined, finishReason: undefined };
  for (const e of events) {
    switch (e.type) {
      case 'run-start':
        out.id = e.messageId;
        out.model = e.model;
        break;
      case 'text-start':
        blocks.set(e.blockId, { c: choice(indexOf(e.providerMetadata)), key: e.providerMetadata?.openai?.refusal ? 'refusal' : 'content' });
        break;
      case 'reasoning-start':
        blocks.set(e.blockId, { c: choice(indexOf(e.providerMetadata)), key: 'reasoning' });
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const b = blocks.get(e.blockId);
        if (b) b.c.message[b.key] = (b.c.message[b.key] ?? '') + e.delta;
        break;
      }
      case 'tool-input-start': {
        const c = choice(indexOf(e.providerMetadata));
        const call = { id: e.toolCallId, type: 'function' as const, function: { name: e.toolName, arguments: '' } };
        c.message.tool_calls ??= [];
        c.message.tool_calls.push(call);
        calls.set(e.toolCallId, call);
        break;
      }
      case 'tool-input-delta': {
        const call = calls.get(e.toolCallId);
        if (call) call.function.arguments += e.delta;
        break;
      }
      case 'tool-input-end':
        choice(indexOf(e.providerMetadata)).inputs[e.toolCallId] = e.input;
        break;
      case 'step-finish': {
        out.usage = e.usage?.raw;
        out.finishReason = e.finishReason;
        if (e.rawFinishReason !== undefined) choice(0).finish_reason = e.rawFinishReason;
        const list = e.providerMetadata?.openai?.choices;
        if (Array.isArray(list))
          for (const entry of list) {
            if (!isRecord(entry) || typeof entry.index !== 'number') continue;
            const c = choice(entry.index);
            if (typeof entry.finish_reason === 'string') c.finish_reason = entry.finish_reason;
            if (entry.logprobs !== undefined) c.logprobs = entry.logprobs;
          }
        break;
      }
    }
  }
  out.choices = [...choices.values()].sort((a, b) => a.index - b.index);
  return out;
}
