/**
 * Official-path oracle for the OpenAI Responses decoder: replays a recorded Responses stream through
 * the OFFICIAL `@ai-sdk/openai` provider (`createOpenAI({ fetch }).responses(model)`) + `streamText` +
 * `toUIMessageStream` + `readUIMessageStream`, and through the `openai` SDK's own `ResponseStream`
 * accumulator. No network access.
 *
 * Tools are declared the way an application would for the recorded scenario: client function tools
 * without `execute` (so calls stay `input-available`), OpenAI provider tools for the built-in items
 * (web_search, file_search, code_interpreter, image_generation, local_shell, shell, apply_patch,
 * tool_search, programmatic_tool_calling, mcp), custom tools as `openai.tools.customTool`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, streamText, type ToolSet, tool, type UIMessage, type UIMessageChunk } from 'ai';
import OpenAI from 'openai';
import { type AssembledUIMessage, assembleChunks } from './ai-sdk-oracle.ts';

type Obj = Record<string, unknown>;

function isRecord(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function drain<T>(stream: ReadableStream<T> | AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of stream as AsyncIterable<T>) out.push(v);
  return out;
}

/** True when the file is a raw SSE body (first non-empty line starts with `event:`, `data:` or a `:` comment). */
export function isSseBody(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return first.startsWith('event:') || first.startsWith('data:') || first.startsWith(':');
}

/**
 * A Responses capture as the wire body api.openai.com sends (NOTES.md): raw SSE bodies unchanged;
 * JSONL (one event per line) becomes `event: <type>\ndata: <line>\n\n` per line, no `[DONE]`.
 * Lines that are not JSON are sent as they are (the providers report them).
 */
export function responsesInputToSse(text: string): string {
  if (isSseBody(text)) return text;
  let out = '';
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    let type = 'message';
    try {
      const v: unknown = JSON.parse(line);
      if (isRecord(v) && typeof v.type === 'string') type = v.type;
    } catch {
      // sent as is
    }
    out += `event: ${type}\ndata: ${line}\n\n`;
  }
  return out;
}

/** The JSON payloads of an SSE body (non-JSON data and `[DONE]` skipped). */
export function ssePayloads(body: string): Obj[] {
  const out: Obj[] = [];
  let data: string[] = [];
  const flush = () => {
    if (data.length > 0) {
      try {
        const v: unknown = JSON.parse(data.join('\n'));
        if (isRecord(v)) out.push(v);
      } catch {
        // skipped
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

/** The items a Responses body mentions (output_item.added / done), in order. */
function itemsOf(body: string): Obj[] {
  const items: Obj[] = [];
  for (const ev of ssePayloads(body)) {
    if ((ev.type === 'response.output_item.added' || ev.type === 'response.output_item.done') && isRecord(ev.item)) items.push(ev.item);
  }
  return items;
}

type OpenAIProvider = ReturnType<typeof createOpenAI>;

/** The tools an application would have declared for the recorded stream. */
export function responsesToolSet(openai: OpenAIProvider, body: string): ToolSet {
  const tools: ToolSet = {};
  const fn = () => tool({ inputSchema: jsonSchema({ type: 'object' }) });
  for (const item of itemsOf(body)) {
    const name = typeof item.name === 'string' ? item.name : undefined;
    switch (item.type) {
      case 'function_call':
        if (name === 'parallel' && typeof item.arguments === 'string') {
          // The internal wrapper: the application declared the wrapped functions, not "parallel".
          try {
            const parsed: unknown = JSON.parse(item.arguments);
            if (isRecord(parsed) && Array.isArray(parsed.tool_uses))
              for (const u of parsed.tool_uses)
                if (isRecord(u) && typeof u.recipient_name === 'string') tools[u.recipient_name.replace(/^functions\./, '')] = fn();
          } catch {
            // incomplete arguments (added event)
          }
        } else if (name) tools[name] = fn();
        break;
      case 'custom_tool_call':
        if (name) tools[name] = openai.tools.customTool({});
        break;
      case 'web_search_call':
        tools.web_search = openai.tools.webSearch({});
        break;
      case 'file_search_call':
        tools.file_search = openai.tools.fileSearch({ vectorStoreIds: ['vs_oracle'] });
        break;
      case 'code_interpreter_call':
        tools.code_interpreter = openai.tools.codeInterpreter({});
        break;
      case 'image_generation_call':
        tools.image_generation = openai.tools.imageGeneration({});
        break;
      case 'local_shell_call':
        tools.local_shell = openai.tools.localShell({});
        break;
      case 'shell_call': {
        const env = isRecord(item.environment) ? item.environment : {};
        tools.shell =
          env.type === 'container_reference' && typeof env.container_id === 'string'
            ? openai.tools.shell({ environment: { type: 'containerReference', containerId: env.container_id } })
            : openai.tools.shell({ environment: { type: 'local' } });
        break;
      }
      case 'apply_patch_call':
        tools.apply_patch = openai.tools.applyPatch({});
        break;
      case 'tool_search_call':
        tools.tool_search = openai.tools.toolSearch();
        break;
      case 'program':
        tools.programmatic_tool_calling = openai.tools.programmaticToolCalling();
        break;
      case 'mcp_call':
      case 'mcp_list_tools':
      case 'mcp_approval_request':
        tools.mcp = openai.tools.mcp({
          serverLabel: typeof item.server_label === 'string' ? item.server_label : 'mcp',
          serverUrl: 'https://mcp.example.com/mcp',
        });
        break;
    }
  }
  return tools;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? String(error);
}

/** Everything observed while replaying a Responses body through the official AI SDK. */
export interface OfficialResponsesResult extends AssembledUIMessage {
  chunks: UIMessageChunk[];
  streamErrors: unknown[];
}

/**
 * Official path: fake-fetch `createOpenAI(...).responses(modelId)` → `streamText` (tools from
 * {@link responsesToolSet}) → `toUIMessageStream({ sendReasoning, sendSources })` → `readUIMessageStream`.
 */
export async function officialResponsesResult(sseBody: string, modelId = 'gpt-5'): Promise<OfficialResponsesResult> {
  const openai = createOpenAI({
    apiKey: 'test',
    baseURL: 'http://127.0.0.1:1/v1',
    fetch: async () => new Response(sseBody, { headers: { 'content-type': 'text/event-stream' } }),
  });
  const streamErrors: unknown[] = [];
  const result = streamText({
    model: openai.responses(modelId),
    prompt: 'hi',
    tools: responsesToolSet(openai, sseBody),
    maxRetries: 0,
    onError: ({ error }) => {
      streamErrors.push(error);
    },
  });
  const chunks = await drain<UIMessageChunk>(
    result.toUIMessageStream({
      sendReasoning: true,
      sendSources: true,
      generateMessageId: () => 'msg_ref',
      onError: errorText,
    }),
  );
  const assembled = await assembleChunks(chunks);
  return { ...assembled, chunks, streamErrors };
}

/** The final UIMessage the official AI SDK builds from a Responses SSE body. */
export async function officialResponsesMessage(sseBody: string, modelId?: string): Promise<UIMessage> {
  return (await officialResponsesResult(sseBody, modelId)).message;
}

/**
 * What the `openai` SDK's own `responses.stream()` accumulator (`ResponseStream`) assembles from the
 * body: the final response of each `response.created … response.completed` segment (the SDK handles
 * one response per request, so a multi-response body is split), or the error it raises.
 */
export async function openaiSdkFinalResponses(sseBody: string): Promise<({ response: Obj } | { error: string })[]> {
  const segments: string[] = [];
  let current = '';
  const created = /"type":"response\.created"/;
  for (const block of sseBody.split(/\n\n/)) {
    if (block.trim() === '') continue;
    if (created.test(block) && created.test(current)) {
      segments.push(current);
      current = '';
    }
    current += `${block}\n\n`;
  }
  if (current) segments.push(current);
  const out: ({ response: Obj } | { error: string })[] = [];
  for (const segment of segments) {
    const client = new OpenAI({
      apiKey: 'test',
      baseURL: 'http://127.0.0.1:1/v1',
      maxRetries: 0,
      logLevel: 'off',
      fetch: async () => new Response(segment, { headers: { 'content-type': 'text/event-stream' } }),
    });
    try {
      const stream = client.responses.stream({ model: 'gpt-5', input: 'hi' });
      for await (const _ of stream) {
        // drain
      }
      out.push({ response: (await stream.finalResponse()) as unknown as Obj });
    } catch (err) {
      out.push({ error: errorText(err) });
    }
  }
  return out;
}
