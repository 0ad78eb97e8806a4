/**
 * Correctness oracle built on the OFFICIAL Vercel AI SDK (`ai` 7.x, `@ai-sdk/anthropic` 4.x).
 *
 * Two directions:
 * - client side: parse/validate an AI SDK UI message stream SSE body exactly like
 *   `DefaultChatTransport.processResponseStream` (`parseJsonEventStream` + `uiMessageChunkSchema`)
 *   and assemble it with the official `readUIMessageStream`;
 * - server side: replay a recorded Anthropic Messages SSE body through the official provider
 *   (`createAnthropic` with a fake `fetch`) + `streamText` + `toUIMessageStream(Response)`.
 *
 * Everything used here is a public export of `ai` (main entry point) and `@ai-sdk/anthropic`;
 * nothing is imported from `ai/internal`.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import type { ParseResult } from '@ai-sdk/provider-utils';
import {
  getToolName,
  isToolUIPart,
  jsonSchema,
  parseJsonEventStream,
  readUIMessageStream,
  streamText,
  type ToolSet,
  tool,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';

// ---------------------------------------------------------------------------------------------
// Client side: parse + assemble
// ---------------------------------------------------------------------------------------------

/** Turns a string into the byte stream a `fetch` Response body would be. */
function toByteStream(body: string): ReadableStream<Uint8Array> {
  const stream = new Response(body).body;
  if (stream == null) throw new Error('ai-sdk-oracle: could not create a body stream');
  return stream;
}

/** Reads every value of a web stream into an array. */
async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const out: T[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/**
 * Parses an AI SDK UI message stream SSE body the way the official client does
 * (`DefaultChatTransport.processResponseStream`: `parseJsonEventStream({ stream, schema:
 * uiMessageChunkSchema })`, `data: [DONE]` skipped). Throws on the first chunk that is not JSON or
 * fails the official schema; the error message contains the offending chunk. Returns the
 * schema-validated chunks in order.
 */
export async function parseAiSdkSse(body: string): Promise<UIMessageChunk[]> {
  const results = await drain(parseJsonEventStream({ stream: toByteStream(body), schema: uiMessageChunkSchema }));
  return results.map((result, index) => chunkOf(result, index));
}

/** What the official parse made of one chunk text. */
type ChunkResult = ParseResult<UIMessageChunk>;

/** The chunk of a parse result; throws the official schema's rejection (with the offending chunk). */
function chunkOf(result: ChunkResult, index: number): UIMessageChunk {
  if (!result.success) {
    const raw = typeof result.rawValue === 'string' ? result.rawValue : JSON.stringify(result.rawValue);
    throw new Error(
      `ai-sdk-oracle: UI message chunk #${index} rejected by the official uiMessageChunkSchema: ${raw}\n${result.error.message}`,
      { cause: result.error },
    );
  }
  return result.value;
}

/** Freezes a value and everything in it (iteratively: chunks can nest deep). */
function deepFreeze(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
  }
}

/** Official parse results by chunk text (see `parseAiSdkChunkTexts`). */
export type ChunkVerdicts = Map<string, ChunkResult>;

/**
 * `parseAiSdkSse` for the SSE body `data: <text>\n\n` per text (JSON text holds no line break, so
 * that body's events are exactly these texts), with the official parse of each text kept in
 * `known`: the parse (secure JSON parse + uiMessageChunkSchema) is per event and pure, and the same
 * chunk recurs across streams. The texts not seen yet go through `parseJsonEventStream` together.
 * Each stream gets its own copy of a kept chunk (`readUIMessageStream` keeps a data chunk as the
 * message part itself and updates it in place); what is inside is shared, and frozen, so a client
 * that changed it would fail instead of changing the next stream's chunk.
 */
export async function parseAiSdkChunkTexts(texts: readonly string[], known: ChunkVerdicts = new Map()): Promise<UIMessageChunk[]> {
  const missing = [...new Set(texts.filter((t) => !known.has(t)))];
  if (missing.length > 0) {
    const body = missing.map((t) => `data: ${t}\n\n`).join('');
    const results = await drain(parseJsonEventStream({ stream: toByteStream(body), schema: uiMessageChunkSchema }));
    if (results.length !== missing.length)
      throw new Error(`ai-sdk-oracle: ${missing.length} chunk texts parsed as ${results.length} events`);
    missing.forEach((t, i) => {
      const result = results[i] as ChunkResult;
      if (result.success) deepFreeze(result.value);
      known.set(t, result);
    });
  }
  return texts.map((t, index) => ({ ...chunkOf(known.get(t) as ChunkResult, index) }));
}

/** Result of assembling a UI message stream with the official `readUIMessageStream`. */
export interface AssembledUIMessage {
  /** Final message snapshot (the last one `readUIMessageStream` yielded). */
  message: UIMessage;
  /** `errorText` of every `error` chunk, in order (these are stream data, not assembly failures). */
  errorTexts: string[];
  /** `finishReason` of the last `finish` chunk, if any. */
  finishReason: string | undefined;
}

/** An `Error` created by `processUIMessageStream` for an `error` chunk: a plain Error. */
function isPlainError(error: unknown): error is Error {
  return error instanceof Error && Object.getPrototypeOf(error) === Error.prototype;
}

/**
 * Feeds already-parsed chunks to the official `readUIMessageStream` and returns the final
 * snapshot. Assembly failures (e.g. `UIMessageStreamError` for a delta without start) are thrown;
 * `error` chunks are reported in `errorTexts` instead.
 *
 * `readUIMessageStream` routes BOTH kinds through `onError` (error chunks as `new Error(errorText)`),
 * and `terminateOnError: true` would also abort on a legitimate `error` chunk, so errors are
 * collected via `onError` (terminateOnError stays false) and classified here: a plain `Error` whose
 * message equals the next pending `error` chunk's text is that chunk; anything else is fatal.
 *
 * `previous`: the assistant message a continuation run continues (as `useChat` passes its last
 * message); the stream's `start` must carry its id.
 */
export async function assembleChunks(chunks: readonly UIMessageChunk[], previous?: UIMessage): Promise<AssembledUIMessage> {
  const pendingErrorTexts: string[] = [];
  let finishReason: string | undefined;
  for (const chunk of chunks) {
    if (chunk.type === 'error') pendingErrorTexts.push(chunk.errorText);
    if (chunk.type === 'finish' && chunk.finishReason != null) finishReason = chunk.finishReason;
  }
  const errorTexts: string[] = [];
  const fatal: unknown[] = [];
  const onError = (error: unknown): void => {
    if (pendingErrorTexts.length > 0 && isPlainError(error) && error.message === pendingErrorTexts[0]) {
      errorTexts.push(pendingErrorTexts.shift() as string);
      return;
    }
    fatal.push(error);
  };

  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const messages = readUIMessageStream<UIMessage>({
    stream,
    onError,
    terminateOnError: false,
    ...(previous ? { message: structuredClone(previous) } : {}),
  });
  last = previous;
  for (const snapshot of await drain(messages)) last = snapshot;

  if (fatal.length > 0) throw fatal[0];
  return {
    message: last ?? { id: '', role: 'assistant', parts: [] },
    errorTexts,
    finishReason,
  };
}

/**
 * Parses (see `parseAiSdkSse`) and assembles an AI SDK UI message stream SSE body with the
 * official `readUIMessageStream`; returns the final message. Schema and assembly errors throw;
 * `error` chunks do not (use `assembleChunks` to see them).
 */
export async function assembleUIMessage(body: string): Promise<UIMessage> {
  return (await assembleChunks(await parseAiSdkSse(body))).message;
}

// ---------------------------------------------------------------------------------------------
// Anthropic input handling
// ---------------------------------------------------------------------------------------------

/**
 * Normalises an Anthropic fixture to a wire-format SSE body. Raw SSE bodies (first non-empty line
 * starts with `event:` or `data:`) are returned unchanged; JSONL (one stream event per line, empty
 * lines skipped) becomes `event: <obj.type>\ndata: <line>\n\n` per line.
 */
export function anthropicInputToSse(text: string): string {
  const lines = text.split(/\r?\n/);
  const first = lines.find((line) => line.trim() !== '');
  if (first === undefined) return text;
  if (first.startsWith('event:') || first.startsWith('data:')) return text;
  let out = '';
  for (const line of lines) {
    if (line.trim() === '') continue;
    const obj: unknown = JSON.parse(line);
    const type = typeof obj === 'object' && obj !== null && 'type' in obj && typeof obj.type === 'string' ? obj.type : undefined;
    if (type === undefined) throw new Error(`ai-sdk-oracle: JSONL line without a string "type": ${line}`);
    out += `event: ${type}\ndata: ${line}\n\n`;
  }
  return out;
}

/** Minimal SSE splitter: the JSON payload of every event (data lines joined by `\n`). */
function sseJsonPayloads(body: string): unknown[] {
  const out: unknown[] = [];
  let data: string[] = [];
  const flush = (): void => {
    if (data.length > 0) {
      try {
        out.push(JSON.parse(data.join('\n')));
      } catch {
        // not JSON: ignored here (the official provider reports it itself)
      }
    }
    data = [];
  };
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === '') flush();
    else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  flush();
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names of the tools that occur in an Anthropic stream, split into client and server tools. */
export interface AnthropicToolNames {
  /** `tool_use` names (content_block_start and pre-populated `message_start.message.content`). */
  client: string[];
  /** `server_tool_use` names (web_search, code_execution, bash_code_execution, …). */
  server: string[];
}

/** Scans an Anthropic SSE body for the tool names it uses. */
export function anthropicToolNames(sseBody: string): AnthropicToolNames {
  const client = new Set<string>();
  const server = new Set<string>();
  const visit = (block: unknown): void => {
    if (!isRecord(block) || typeof block.name !== 'string') return;
    if (block.type === 'tool_use') client.add(block.name);
    if (block.type === 'server_tool_use') server.add(block.name);
  };
  for (const event of sseJsonPayloads(sseBody)) {
    if (!isRecord(event)) continue;
    if (event.type === 'content_block_start') visit(event.content_block);
    if (event.type === 'message_start' && isRecord(event.message)) {
      const content = event.message.content;
      if (Array.isArray(content)) for (const block of content) visit(block);
    }
  }
  return { client: [...client], server: [...server] };
}

// ---------------------------------------------------------------------------------------------
// Server side: official @ai-sdk/anthropic + streamText
// ---------------------------------------------------------------------------------------------

type AnthropicProvider = ReturnType<typeof createAnthropic>;

/** `errorText` for UI `error` chunks: the error's own message (matches the reference renderings). */
function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? String(error);
}

/**
 * Provider-defined Anthropic tool for each `server_tool_use` name, keyed by the provider tool
 * name so the provider's tool-name mapping resolves to the same name. Without these declarations
 * `streamText` reports every server tool call as an invalid tool call (NoSuchToolError →
 * `tool-input-error`), because provider-executed calls are only accepted for declared tools
 * (or when the provider marks them `dynamic`, as it does for MCP).
 */
function serverToolFor(anthropic: AnthropicProvider, name: string): [string, ToolSet[string]] | undefined {
  switch (name) {
    case 'web_search':
      return ['web_search', anthropic.tools.webSearch_20250305()];
    case 'web_fetch':
      return ['web_fetch', anthropic.tools.webFetch_20250910()];
    case 'code_execution':
    case 'bash_code_execution':
    case 'text_editor_code_execution':
      return ['code_execution', anthropic.tools.codeExecution_20250825()];
    case 'tool_search_tool_regex':
      return ['tool_search_tool_regex', anthropic.tools.toolSearchRegex_20251119()];
    case 'tool_search_tool_bm25':
      return ['tool_search_tool_bm25', anthropic.tools.toolSearchBm25_20251119()];
    case 'advisor':
      return ['advisor', anthropic.tools.advisor_20260301({ model: 'claude-opus-4-6' })];
    default:
      return undefined;
  }
}

/** Options of the official Anthropic replay. */
export interface OfficialAnthropicOptions {
  /** Model id passed to the provider (default `claude-sonnet-4-5`). */
  modelId?: string;
  /** Declare provider-defined tools for `server_tool_use` names (default true). */
  declareServerTools?: boolean;
  /** Response message id (default `msg_ref`, like the `*.aisdk-ref.sse` fixtures). */
  messageId?: string;
}

function startOfficialStream(sseBody: string, options: OfficialAnthropicOptions = {}) {
  const { modelId = 'claude-sonnet-4-5', declareServerTools = true, messageId = 'msg_ref' } = options;
  const anthropic = createAnthropic({
    apiKey: 'test',
    baseURL: 'http://127.0.0.1:1/v1',
    fetch: async () => new Response(sseBody, { headers: { 'content-type': 'text/event-stream' } }),
  });
  const names = anthropicToolNames(sseBody);
  const tools: ToolSet = {};
  if (declareServerTools) {
    for (const name of names.server) {
      const entry = serverToolFor(anthropic, name);
      if (entry !== undefined) tools[entry[0]] = entry[1];
    }
  }
  // Client tools: declared WITHOUT execute, schema accepts any object → plain `tool-<name>` parts.
  for (const name of names.client) tools[name] = tool({ inputSchema: jsonSchema({ type: 'object' }) });

  const streamErrors: unknown[] = [];
  const result = streamText({
    model: anthropic(modelId),
    prompt: 'hi',
    tools,
    // The fake fetch always returns the same body: retrying would only replay it (with backoff).
    maxRetries: 0,
    // Collect instead of console.error; errors still reach the UI stream as `error` chunks.
    onError: ({ error }) => {
      streamErrors.push(error);
    },
  });
  const uiOptions = {
    sendReasoning: true,
    sendSources: true,
    generateMessageId: () => messageId,
    // Surface the provider's message (e.g. "Overloaded") like the reference renderings do,
    // instead of the default "An error occurred."; tool error texts keep their default handling.
    onError: errorText,
    redactToolErrors: false,
  };
  return { result, uiOptions, streamErrors };
}

/** Everything observed while replaying an Anthropic body through the official AI SDK. */
export interface OfficialAnthropicResult extends AssembledUIMessage {
  /** UI message chunks produced by `result.toUIMessageStream(...)`. */
  chunks: UIMessageChunk[];
  /** Errors reported to `streamText({ onError })` (provider/stream errors). */
  streamErrors: unknown[];
}

/**
 * Official path with all intermediate data: fake-fetch `createAnthropic` → `streamText` (client
 * tools declared without execute, server tools as provider-defined tools) →
 * `result.toUIMessageStream({ sendReasoning: true, sendSources: true })` → `readUIMessageStream`.
 */
export async function officialAnthropicResult(sseBody: string, options?: OfficialAnthropicOptions): Promise<OfficialAnthropicResult> {
  const { result, uiOptions, streamErrors } = startOfficialStream(sseBody, options);
  const chunks = await drain<UIMessageChunk>(result.toUIMessageStream(uiOptions));
  const assembled = await assembleChunks(chunks);
  return { ...assembled, chunks, streamErrors };
}

/**
 * The final `UIMessage` the official AI SDK builds from an Anthropic SSE body (see
 * `officialAnthropicResult` for the pipeline). No network access.
 */
export async function officialAnthropicMessage(sseBody: string, options?: OfficialAnthropicOptions): Promise<UIMessage> {
  return (await officialAnthropicResult(sseBody, options)).message;
}

/**
 * The UI message stream SSE body an official AI SDK server would send for an Anthropic SSE body
 * (`result.toUIMessageStreamResponse(...)` then `response.text()`).
 */
export async function officialAnthropicSse(sseBody: string, options?: OfficialAnthropicOptions): Promise<string> {
  const { result, uiOptions } = startOfficialStream(sseBody, options);
  return await result.toUIMessageStreamResponse(uiOptions).text();
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------

/** A tool invocation as compared between implementations. */
export interface ToolSummary {
  toolCallId: string;
  toolName: string;
  input: unknown;
  state: string;
  output?: unknown;
  errorText?: string;
  providerExecuted?: boolean;
}

/** The comparable content of a UI message. */
export interface MessageSummary {
  text: string;
  reasoning: string[];
  tools: ToolSummary[];
}

/** JSON round trip, so in-memory values compare equal to values that went over the wire. */
function jsonNormalize(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/**
 * Reduces a UI message to what tests compare: all text parts joined with '' in order, each
 * reasoning part's text, and the `tool-*` / `dynamic-tool` parts (optional keys only when set).
 * `input` / `output` are JSON-normalised: the official in-memory path leaves keys with value
 * `undefined` (e.g. web_fetch `content.citations`) that disappear once serialised.
 */
export function summarizeMessage(m: UIMessage): MessageSummary {
  let text = '';
  const reasoning: string[] = [];
  const tools: ToolSummary[] = [];
  for (const part of m.parts) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning.push(part.text);
    else if (isToolUIPart(part)) {
      const summary: ToolSummary = {
        toolCallId: part.toolCallId,
        toolName: getToolName(part),
        input: jsonNormalize(part.input),
        state: part.state,
      };
      if (part.state === 'output-available') summary.output = jsonNormalize(part.output);
      if (part.state === 'output-error') summary.errorText = part.errorText;
      if (part.providerExecuted !== undefined) summary.providerExecuted = part.providerExecuted;
      tools.push(summary);
    }
  }
  return { text, reasoning, tools };
}
