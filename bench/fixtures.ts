/**
 * Deterministic, in-memory benchmark fixtures: a realistic Anthropic Messages SSE body (what
 * `POST /v1/messages` with `stream: true` sends) and the equivalent AI SDK LanguageModelV4 stream
 * parts, built from the same deltas so every contender does the same work.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';

/** Default chunk size the body is fed in (what a socket / file stream typically hands over). */
export const CHUNK_SIZE = 64 * 1024;

export interface FixtureOptions {
  /** Number of `text_delta` events in the text block. */
  textDeltas: number;
  /** Number of `thinking_delta` events in the thinking block (default 40). */
  thinkingDeltas?: number;
  /** PRNG seed (default 1). */
  seed?: number;
}

export interface AnthropicFixture {
  /** The SSE body, `event: <type>\ndata: <json>\n\n` per event. */
  body: string;
  /** The body as UTF-8 bytes. */
  bytes: Uint8Array;
  /** The text deltas, in order. */
  textDeltas: string[];
  /** The thinking deltas, in order. */
  thinkingDeltas: string[];
  /** The `data:` payload of every text_delta event (for the JSON floor). */
  textDeltaData: string[];
  /** Concatenated text of the text block. */
  text: string;
  /** Concatenated thinking text. */
  reasoning: string;
  /** Thinking block signature. */
  signature: string;
  messageId: string;
  model: string;
  usage: { input_tokens: number; output_tokens: number };
}

/** mulberry32: tiny deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the stream of events arrives in small pieces and each piece carries a few characters of text ' +
  'so a converter has to parse frame and re-encode every one of them quickly without losing ' +
  'anything along the way including unicode like café naïve résumé — “quotes” and emoji 🚀 ✨ ' +
  'plus code such as const x = { "a": [1, 2, 3] }; and newlines\nand tabs\tand backslashes \\ too'
).split(' ');

/** Model-like token stream: words split into 1–6 character deltas, some with a leading space. */
function deltas(count: number, rand: () => number): string[] {
  const out: string[] = [];
  let pending = '';
  while (out.length < count) {
    if (pending === '') pending = `${out.length === 0 ? '' : ' '}${WORDS[Math.floor(rand() * WORDS.length)]}`;
    // Split on code points, never inside a surrogate pair.
    const cps = Array.from(pending);
    const n = Math.min(cps.length, 1 + Math.floor(rand() * 6));
    out.push(cps.slice(0, n).join(''));
    pending = cps.slice(n).join('');
  }
  return out;
}

function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Builds the Anthropic SSE body: message_start, ping, thinking block (+ signature), text block, message_delta, message_stop. */
export function anthropicFixture(options: FixtureOptions): AnthropicFixture {
  const rand = prng(options.seed ?? 1);
  const thinkingDeltas = deltas(options.thinkingDeltas ?? 40, rand);
  const textDeltas = deltas(options.textDeltas, rand);
  const messageId = 'msg_01XFDUDYJgAACzvnptvVoYEL';
  const model = 'claude-sonnet-4-5-20250929';
  let signature = 'Eq';
  while (signature.length < 344) signature += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(rand() * 64)];
  const usage = { input_tokens: 472, output_tokens: Math.ceil(textDeltas.length * 1.1 + thinkingDeltas.length) };

  const parts: string[] = [];
  parts.push(
    sse('message_start', {
      type: 'message_start',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 3,
          service_tier: 'standard',
        },
      },
    }),
  );
  parts.push(
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  );
  parts.push(sse('ping', { type: 'ping' }));
  for (const thinking of thinkingDeltas) {
    parts.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking } }));
  }
  parts.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } }));
  parts.push(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
  parts.push(sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }));
  const textDeltaData: string[] = [];
  for (const text of textDeltas) {
    const data = JSON.stringify({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } });
    textDeltaData.push(data);
    parts.push(`event: content_block_delta\ndata: ${data}\n\n`);
  }
  parts.push(sse('content_block_stop', { type: 'content_block_stop', index: 1 }));
  parts.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  parts.push(sse('message_stop', { type: 'message_stop' }));
  const body = parts.join('');
  return {
    body,
    bytes: new TextEncoder().encode(body),
    textDeltas,
    thinkingDeltas,
    textDeltaData,
    text: textDeltas.join(''),
    reasoning: thinkingDeltas.join(''),
    signature,
    messageId,
    model,
    usage,
  };
}

/** Splits bytes into views of at most `size` bytes (no copies). */
export function chunksOf(bytes: Uint8Array, size = CHUNK_SIZE): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, Math.min(i + size, bytes.length)));
  return out;
}

/** A fresh byte stream over the chunks (what a fetch Response body would hand over). */
export function byteStream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

/**
 * The LanguageModelV4 stream parts an AI SDK provider would emit for the fixture: stream-start,
 * response-metadata, the reasoning block (signature in providerMetadata, as @ai-sdk/anthropic does),
 * the text block with the same deltas, and finish with usage.
 */
export function languageModelParts(f: AnthropicFixture): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: f.messageId, modelId: f.model },
    { type: 'reasoning-start', id: '0' },
  ];
  for (const delta of f.thinkingDeltas) parts.push({ type: 'reasoning-delta', id: '0', delta });
  parts.push({ type: 'reasoning-end', id: '0', providerMetadata: { anthropic: { signature: f.signature } } });
  parts.push({ type: 'text-start', id: '1' });
  for (const delta of f.textDeltas) parts.push({ type: 'text-delta', id: '1', delta });
  parts.push({ type: 'text-end', id: '1' });
  parts.push({
    type: 'finish',
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: {
      inputTokens: { total: f.usage.input_tokens, noCache: f.usage.input_tokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: f.usage.output_tokens, text: undefined, reasoning: undefined },
    },
  });
  return parts;
}

// ---------------------------------------------------------------------------------------------
// Reader fixtures: UI protocol streams (AI SDK UI message stream, AG-UI) as their servers send them
// ---------------------------------------------------------------------------------------------

/** A UI protocol stream to read back, and what it carries. */
export interface ReaderFixture {
  protocol: 'ai-sdk' | 'ag-ui';
  kind: 'text' | 'tool';
  /** Number of text deltas (kind text) or tool-input deltas (kind tool). */
  deltas: number;
  /** The SSE body, `data: <json>\n\n` per event (plus `data: [DONE]` for the AI SDK). */
  body: string;
  bytes: Uint8Array;
  /** The body in 64 KiB chunks. */
  chunks: Uint8Array[];
  /** Concatenated text (kind text; empty for kind tool). */
  text: string;
  /** Kind tool: the streamed tool input, its JSON text (the concatenated deltas), the call's id and tool name. */
  tool?: { input: { path: string; content: string }; json: string; toolCallId: string; toolName: string };
}

export const READER_IDS = {
  messageId: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  threadId: 'thread_bench',
  runId: 'run_bench',
  textId: 'txt_0',
  toolCallId: 'call_01D7FLrfh4GYq7yT1ULFeyMV',
  toolName: 'write_file',
} as const;

function readerFixture(
  protocol: ReaderFixture['protocol'],
  kind: ReaderFixture['kind'],
  events: object[],
  extra: Partial<ReaderFixture>,
): ReaderFixture {
  let body = '';
  for (const e of events) body += `data: ${JSON.stringify(e)}\n\n`;
  if (protocol === 'ai-sdk') body += 'data: [DONE]\n\n';
  const bytes = new TextEncoder().encode(body);
  return { protocol, kind, deltas: 0, body, bytes, chunks: chunksOf(bytes), text: '', ...extra };
}

/**
 * A text answer of `count` model-like deltas (the same generator as the Anthropic fixture: 1–6
 * characters, non-ASCII, emoji, quotes, backslashes, tabs, newlines), as an AI SDK UI message stream
 * (what `toUIMessageStreamResponse()` sends): start, start-step, text-start, the text-deltas,
 * text-end, finish-step, finish, `[DONE]`.
 */
export function aiSdkTextFixture(count: number, seed = 3): ReaderFixture {
  const ds = deltas(count, prng(seed));
  const { messageId, textId: id } = READER_IDS;
  const events: object[] = [{ type: 'start', messageId }, { type: 'start-step' }, { type: 'text-start', id }];
  for (const delta of ds) events.push({ type: 'text-delta', id, delta });
  events.push({ type: 'text-end', id }, { type: 'finish-step' }, { type: 'finish', finishReason: 'stop' });
  return readerFixture('ai-sdk', 'text', events, { deltas: count, text: ds.join('') });
}

/**
 * The same text as an AG-UI event stream (what `@ag-ui/encoder`'s `encodeSSE` writes): RUN_STARTED,
 * TEXT_MESSAGE_START, the TEXT_MESSAGE_CONTENTs, TEXT_MESSAGE_END, RUN_FINISHED.
 */
export function agUiTextFixture(count: number, seed = 3): ReaderFixture {
  const ds = deltas(count, prng(seed));
  const { messageId, threadId, runId } = READER_IDS;
  const events: object[] = [
    { type: 'RUN_STARTED', threadId, runId },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
  ];
  for (const delta of ds) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta });
  events.push({ type: 'TEXT_MESSAGE_END', messageId }, { type: 'RUN_FINISHED', threadId, runId });
  return readerFixture('ag-ui', 'text', events, { deltas: count, text: ds.join('') });
}

/**
 * A tool input whose JSON text is exactly `count` characters (code points) long: `{"path": …,
 * "content": <model-like text with escapes>}`, padded with dots. Streamed one character per delta,
 * so escape sequences (`\n`, `\"`, `\\`) are split too, as models stream them.
 */
export function toolInput(count: number, seed = 4): { input: { path: string; content: string }; json: string; pieces: string[] } {
  const rand = prng(seed);
  const path = 'notes/plan.md';
  const overhead = Array.from(JSON.stringify({ path, content: '' })).length;
  if (count < overhead) throw new Error(`a tool input needs at least ${overhead} characters, got ${count}`);
  let content = '';
  let length = overhead;
  for (;;) {
    const word = `${content === '' ? '' : ' '}${WORDS[Math.floor(rand() * WORDS.length)]}`;
    const cost = Array.from(JSON.stringify(word)).length - 2;
    if (length + cost > count) break;
    content += word;
    length += cost;
  }
  content += '.'.repeat(count - length);
  const input = { path, content };
  const json = JSON.stringify(input);
  const pieces = Array.from(json);
  if (pieces.length !== count) throw new Error(`tool input: ${pieces.length} characters, expected ${count}`);
  return { input, json, pieces };
}

/**
 * A tool call whose input streams as `count` one-character deltas, as an AI SDK UI message stream:
 * start, start-step, tool-input-start, the tool-input-deltas, tool-input-available (the parsed
 * input), finish-step, finish (`tool-calls`), `[DONE]`.
 */
export function aiSdkToolFixture(count: number): ReaderFixture {
  const { input, json, pieces } = toolInput(count);
  const { messageId, toolCallId, toolName } = READER_IDS;
  const events: object[] = [{ type: 'start', messageId }, { type: 'start-step' }, { type: 'tool-input-start', toolCallId, toolName }];
  for (const inputTextDelta of pieces) events.push({ type: 'tool-input-delta', toolCallId, inputTextDelta });
  events.push(
    { type: 'tool-input-available', toolCallId, toolName, input },
    { type: 'finish-step' },
    { type: 'finish', finishReason: 'tool-calls' },
  );
  return readerFixture('ai-sdk', 'tool', events, { deltas: count, tool: { input, json, toolCallId, toolName } });
}

/** The same tool call as AG-UI events: RUN_STARTED, TOOL_CALL_START, the TOOL_CALL_ARGS, TOOL_CALL_END, RUN_FINISHED. */
export function agUiToolFixture(count: number): ReaderFixture {
  const { input, json, pieces } = toolInput(count);
  const { messageId, threadId, runId, toolCallId, toolName } = READER_IDS;
  const events: object[] = [
    { type: 'RUN_STARTED', threadId, runId },
    { type: 'TOOL_CALL_START', toolCallId, toolCallName: toolName, parentMessageId: messageId },
  ];
  for (const delta of pieces) events.push({ type: 'TOOL_CALL_ARGS', toolCallId, delta });
  events.push({ type: 'TOOL_CALL_END', toolCallId }, { type: 'RUN_FINISHED', threadId, runId });
  return readerFixture('ag-ui', 'tool', events, { deltas: count, tool: { input, json, toolCallId, toolName } });
}

// ---------------------------------------------------------------------------------------------
// <think> fixture: an open model's answer with think sections in its text
// ---------------------------------------------------------------------------------------------

export interface ThinkFixture {
  /** The text deltas, tags split anywhere. */
  deltas: string[];
  /** The whole text, tags included. */
  whole: string;
  /** What extraction must give: the answer text (sections removed) and the reasoning (section contents, joined). */
  text: string;
  reasoning: string;
  /** Number of think sections. */
  sections: number;
  /** The same text as OpenAI-compatible Chat Completions chunks (SSE body, in 64 KiB chunks), as vLLM / Ollama send it. */
  chatChunks: Uint8Array[];
  chatBytes: number;
}

function words(count: number, rand: () => number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(' ');
}

/**
 * `count` deltas of text that opens with a think section and then alternates answer paragraphs
 * and further think sections (30–300 words each), split into 1–6 character deltas with no regard
 * for the tags, so `<think>` and `</think>` are cut at every possible position. The last delta
 * holds whatever is left, so the text always ends outside a section.
 */
export function thinkFixture(count: number, seed = 5): ThinkFixture {
  const rand = prng(seed);
  const sectionWords = () => 30 + Math.floor(rand() * 271);
  const parts: string[] = [];
  let reasoning = '';
  let text = '';
  let sections = 0;
  let length = 0;
  // About 3.5 characters per delta; build a little more than needed, ending with an answer paragraph.
  while (length < count * 4.5) {
    const r = words(sectionWords(), rand);
    const a = `\n\n${words(sectionWords(), rand)}\n\n`;
    parts.push(`<think>${r}</think>`, a);
    reasoning += r;
    text += a;
    sections++;
    length += r.length + a.length + 15;
  }
  const whole = parts.join('');
  // Split into 1–6 code point deltas anywhere, tags included.
  const cps = Array.from(whole);
  const ds: string[] = [];
  for (let i = 0; i < cps.length; ) {
    const n = 1 + Math.floor(rand() * 6);
    ds.push(cps.slice(i, i + n).join(''));
    i += n;
  }
  if (ds.length < count) throw new Error(`think fixture: only ${ds.length} deltas for ${count}`);
  const tail = ds.splice(count - 1).join('');
  ds.push(tail);
  let body = '';
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600, model: 'qwen3-32b', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  body += chunk({ role: 'assistant', content: '' }, null);
  for (const content of ds) body += chunk({ content }, null);
  body += chunk({}, 'stop');
  body += 'data: [DONE]\n\n';
  const bytes = new TextEncoder().encode(body);
  return { deltas: ds, whole, text, reasoning, sections, chatChunks: chunksOf(bytes), chatBytes: bytes.byteLength };
}
