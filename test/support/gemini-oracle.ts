/**
 * Official-path oracle for the Gemini decoders, built on the OFFICIAL `@ai-sdk/google` provider:
 * a recorded capture is replayed through `createGoogleGenerativeAI({ fetch })` (generateContent
 * stream, `…:streamGenerateContent?alt=sse`) or its `.interactions()` model (Interactions API), then
 * `streamText` (client tools declared WITHOUT execute) → `toUIMessageStream` → `readUIMessageStream`.
 *
 * Captures are replayed in their real wire format (fixtures/recorded/NOTES.md): generateContent
 * chunk files as `data: <line>\r\n\r\n`, Interactions chunk files as `data: <line>\n\n`; raw SSE
 * bodies (Firebase `streaming-*.txt`, pydantic-ai `*.sse.txt`) as they are.
 *
 * Only public exports of `ai` and `@ai-sdk/google` are used.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { jsonSchema, streamText, type ToolSet, tool, type UIMessageChunk } from 'ai';
import { type AssembledUIMessage, assembleChunks } from './ai-sdk-oracle.ts';

/** The JSON values of a capture: JSONL chunk files line by line, SSE bodies by their `data:` lines. */
export function geminiCaptureValues(text: string): unknown[] {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  if (first.startsWith('data:') || first.startsWith('event:')) {
    return text
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter((l) => l !== '[DONE]')
      .map((l) => JSON.parse(l));
  }
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** True when a capture is a raw SSE body (first non-empty line starts with `data:` / `event:`). */
export function isSseBody(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return first.startsWith('data:') || first.startsWith('event:');
}

/**
 * The wire body of a capture: raw SSE bodies unchanged; JSONL chunk files as `data: <line>` events,
 * separated by CRLF blank lines for generateContent (what `?alt=sse` sends) and LF for Interactions.
 */
export function geminiWireBody(text: string, api: 'generate' | 'interactions' = 'generate'): string {
  if (isSseBody(text)) return text;
  const sep = api === 'generate' ? '\r\n\r\n' : '\n\n';
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => `data: ${l}${sep}`)
    .join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names of the client functions a capture calls (generateContent `functionCall.name`, Interactions `function_call`). */
export function geminiFunctionNames(values: unknown[]): string[] {
  const names = new Set<string>();
  for (const v of values) {
    if (!isRecord(v)) continue;
    if (isRecord(v.step) && v.step.type === 'function_call' && typeof v.step.name === 'string') names.add(v.step.name);
    const candidates = Array.isArray(v.candidates) ? v.candidates : [];
    for (const c of candidates) {
      const parts = isRecord(c) && isRecord(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
      for (const p of parts)
        if (isRecord(p) && isRecord(p.functionCall) && typeof p.functionCall.name === 'string') names.add(p.functionCall.name);
    }
  }
  return [...names];
}

/** Built-in tools a capture uses, so the official provider accepts its provider-executed calls. */
function builtinToolNames(values: unknown[]): Set<string> {
  const found = new Set<string>();
  for (const v of values) {
    if (!isRecord(v)) continue;
    if (isRecord(v.step) && typeof v.step.type === 'string' && v.step.type.endsWith('_call') && v.step.type !== 'function_call')
      found.add(v.step.type.replace(/_call$/, ''));
    const candidates = Array.isArray(v.candidates) ? v.candidates : [];
    for (const c of candidates) {
      const parts = isRecord(c) && isRecord(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
      for (const p of parts) if (isRecord(p) && 'executableCode' in p) found.add('code_execution');
    }
  }
  return found;
}

/** Everything observed while replaying a capture through the official AI SDK. */
export interface OfficialGeminiResult extends AssembledUIMessage {
  chunks: UIMessageChunk[];
  streamErrors: unknown[];
}

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
 * Replays a Gemini capture (file text) through the official `@ai-sdk/google` provider and returns
 * the UI message chunks and the assembled message.
 */
export async function officialGeminiResult(
  captureText: string,
  options: { api?: 'generate' | 'interactions'; modelId?: string; messageId?: string } = {},
): Promise<OfficialGeminiResult> {
  const api = options.api ?? 'generate';
  const body = geminiWireBody(captureText, api);
  const google = createGoogleGenerativeAI({
    apiKey: 'test',
    baseURL: 'http://127.0.0.1:1/v1beta',
    fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
  });
  const values = geminiCaptureValues(captureText);
  const tools: ToolSet = {};
  for (const name of builtinToolNames(values)) {
    if (name === 'code_execution') tools.code_execution = google.tools.codeExecution({});
    if (name === 'google_search') tools.google_search = google.tools.googleSearch({});
    if (name === 'url_context') tools.url_context = google.tools.urlContext({});
  }
  for (const name of geminiFunctionNames(values)) tools[name] = tool({ inputSchema: jsonSchema({ type: 'object' }) });
  const modelId = options.modelId ?? 'gemini-2.5-flash';
  const streamErrors: unknown[] = [];
  const result = streamText({
    model: api === 'generate' ? google(modelId) : google.interactions(modelId),
    prompt: 'hi',
    tools,
    maxRetries: 0,
    onError: ({ error }) => {
      streamErrors.push(error);
    },
  });
  const chunks = await drain<UIMessageChunk>(
    result.toUIMessageStream({
      sendReasoning: true,
      sendSources: true,
      generateMessageId: () => options.messageId ?? 'msg_ref',
      onError: (error) => (error instanceof Error ? error.message : String(error)),
    }),
  );
  return { ...(await assembleChunks(chunks)), chunks, streamErrors };
}
