/**
 * The SDK agents: Anthropic Messages, OpenAI Chat Completions and Gemini streamGenerateContent,
 * called with `fetch` (no SDK at run time). Each posts the conversation with `stream: true` and
 * pipes the SSE body through core's decoder for that API, so the run's events are exactly what
 * `decode(body, '<framework>')` makes of the provider's stream. The API key is read from the
 * server's environment at run time and sent only to the configured base URL.
 *
 * The request carries the frontend tools the client declared (`RunRequest.tools`) as the provider's
 * tool definitions, and the conversation's tool calls with their answers in the provider's own
 * format (Anthropic tool_use / tool_result blocks, OpenAI tool_calls / tool messages, Gemini
 * functionCall / functionResponse parts).
 */
import { type CanonicalEvent, decode } from '@switchboard/core';
import { apiKeyFrom, PROVIDER_FRAMEWORK } from '../config/defaults.ts';
import type { Provider, ProviderSettings } from '../config/types.ts';
import { AgentError, decoderOptions, type InProcessContext } from '../runner/in-process.ts';
import type { ClientTool } from '../runner/types.ts';
import { resultText, toConversation } from './messages.ts';

/** One provider request, before the key is added. */
export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function conversation(ctx: InProcessContext, settings: ProviderSettings) {
  const { system, items } = toConversation(ctx.request.messages);
  if (items.length === 0) throw new AgentError('invalid_request', 'the conversation has no user message to answer');
  const sys = [settings.system, system].filter(Boolean).join('\n\n');
  return { system: sys || undefined, items, tools: ctx.request.tools ?? [] };
}

/** Messages with neighbours of the same role merged into one (their content lists joined). */
function mergeRoles<M extends { role: string }>(messages: M[], key: keyof M): M[] {
  const out: M[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (last && last.role === m.role) (last[key] as unknown[]).push(...(m[key] as unknown[]));
    else out.push({ ...m, [key]: [...(m[key] as unknown[])] });
  }
  return out;
}

/** A tool's input schema: the declared one, or an object with no properties. */
function schemaOf(tool: ClientTool): Record<string, unknown> {
  return tool.parameters ?? { type: 'object', properties: {} };
}

/** Tool call input as a JSON object (providers take objects only). */
function objectInput(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/** Builds the Messages API request (`POST /v1/messages`, `stream: true`). */
export function anthropicRequest(ctx: InProcessContext, settings: ProviderSettings, key: string): ProviderRequest {
  const { system, items, tools } = conversation(ctx, settings);
  const base = trimSlash(settings.baseUrl);
  type Message = { role: 'user' | 'assistant'; content: Record<string, unknown>[] };
  const messages: Message[] = items.map((it) => {
    if (it.role === 'user') return { role: 'user', content: [{ type: 'text', text: it.text }] };
    if (it.role === 'assistant')
      return {
        role: 'assistant',
        content: [
          ...(it.text ? [{ type: 'text', text: it.text }] : []),
          ...it.calls.map((c) => ({ type: 'tool_use', id: c.toolCallId, name: c.toolName, input: objectInput(c.input) })),
        ],
      };
    return {
      role: 'user',
      content: it.results.map((r) => ({
        type: 'tool_result',
        tool_use_id: r.toolCallId,
        content: resultText(r.output),
        ...(r.isError ? { is_error: true } : {}),
      })),
    };
  });
  const body: Record<string, unknown> = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    stream: true,
    messages: mergeRoles(messages, 'content'),
  };
  if (system) body.system = system;
  if (tools.length > 0)
    body.tools = tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: schemaOf(t) }));
  return {
    url: `${base}${base.endsWith('/v1') ? '' : '/v1'}/messages`,
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body,
  };
}

/** Builds the Chat Completions request (`POST /chat/completions`, `stream: true` with usage). */
export function openaiRequest(ctx: InProcessContext, settings: ProviderSettings, key: string): ProviderRequest {
  const { system, items, tools } = conversation(ctx, settings);
  const messages: Record<string, unknown>[] = system ? [{ role: 'system', content: system }] : [];
  for (const it of items) {
    if (it.role === 'user') messages.push({ role: 'user', content: it.text });
    else if (it.role === 'assistant') {
      const m: Record<string, unknown> = { role: 'assistant', content: it.text || null };
      if (it.calls.length > 0)
        m.tool_calls = it.calls.map((c) => ({
          id: c.toolCallId,
          type: 'function',
          function: { name: c.toolName, arguments: JSON.stringify(objectInput(c.input)) },
        }));
      messages.push(m);
    } else for (const r of it.results) messages.push({ role: 'tool', tool_call_id: r.toolCallId, content: resultText(r.output) });
  }
  const body: Record<string, unknown> = {
    model: settings.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: settings.maxTokens,
  };
  if (tools.length > 0)
    body.tools = tools.map((t) => ({
      type: 'function',
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: schemaOf(t) },
    }));
  return {
    url: `${trimSlash(settings.baseUrl)}/chat/completions`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
  };
}

/** Builds the Gemini request (`POST /models/<model>:streamGenerateContent?alt=sse`). */
export function geminiRequest(ctx: InProcessContext, settings: ProviderSettings, key: string): ProviderRequest {
  const { system, items, tools } = conversation(ctx, settings);
  const base = trimSlash(settings.baseUrl);
  const root = /\/v1(beta\d*|alpha)?$/.test(base) ? base : `${base}/v1beta`;
  type Content = { role: 'user' | 'model'; parts: Record<string, unknown>[] };
  const contents: Content[] = items.map((it) => {
    if (it.role === 'user') return { role: 'user', parts: [{ text: it.text }] };
    if (it.role === 'assistant')
      return {
        role: 'model',
        parts: [
          ...(it.text ? [{ text: it.text }] : []),
          ...it.calls.map((c) => ({ functionCall: { name: c.toolName, args: objectInput(c.input) } })),
        ],
      };
    // functionResponse.response is a JSON object: the output under `output`, a failure under `error`.
    return {
      role: 'user',
      parts: it.results.map((r) => ({
        functionResponse: { name: r.toolName, response: r.isError ? { error: resultText(r.output) } : { output: r.output } },
      })),
    };
  });
  const body: Record<string, unknown> = {
    contents: mergeRoles(contents, 'parts'),
    generationConfig: { maxOutputTokens: settings.maxTokens },
  };
  if (system) body.systemInstruction = { parts: [{ text: system }] };
  if (tools.length > 0)
    body.tools = [
      {
        functionDeclarations: tools.map((t) => ({
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          parametersJsonSchema: schemaOf(t),
        })),
      },
    ];
  return {
    url: `${root}/models/${encodeURIComponent(settings.model)}:streamGenerateContent?alt=sse`,
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body,
  };
}

const BUILDERS: Record<Provider, typeof anthropicRequest> = { anthropic: anthropicRequest, openai: openaiRequest, gemini: geminiRequest };

/** Largest error body read from a provider. */
const MAX_ERROR_BODY = 64 * 1024;

async function errorText(res: Response): Promise<string> {
  let text = '';
  try {
    const reader = res.body?.getReader();
    const utf8 = new TextDecoder();
    while (reader && text.length < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      text += utf8.decode(value, { stream: true });
    }
    await reader?.cancel().catch(() => {});
  } catch {
    // What was read is enough.
  }
  try {
    // Anthropic, OpenAI and Gemini all answer { error: { message } }.
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof json.error === 'string' ? json.error : (json.error?.message ?? json.message);
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON.
  }
  const plain = text.trim().replace(/\s+/g, ' ');
  return plain.length > 300 ? `${plain.slice(0, 300)}…` : plain || '(empty body)';
}

/**
 * Runs one provider call and yields its canonical events. HTTP and network failures throw an
 * `AgentError` (the runner turns it into a fatal `error` + `run-finish`).
 */
export async function* providerStream(
  ctx: InProcessContext,
  settings: ProviderSettings,
  agentName: string,
): AsyncGenerator<CanonicalEvent, void, undefined> {
  const provider = settings.provider;
  const key = apiKeyFrom(ctx.env, settings.apiKeyEnv);
  if (!key)
    throw new AgentError('agent_disabled', `agent "${agentName}" needs ${settings.apiKeyEnv.join(' or ')} in the server environment`);
  const request = BUILDERS[provider](ctx, settings, key);
  let res: Response;
  try {
    res = await fetch(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(request.body), signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    throw new AgentError('provider_unreachable', `cannot reach ${provider} at ${new URL(request.url).origin}: ${cause}`, { cause: err });
  }
  if (!res.ok) {
    throw new AgentError('provider_error', `${provider} answered HTTP ${res.status}: ${await errorText(res)}`);
  }
  if (!res.body) throw new AgentError('provider_error', `${provider} answered with an empty body`);
  yield* decode(res.body, PROVIDER_FRAMEWORK[provider], { ...decoderOptions(ctx, agentName), inputFormat: 'sse' });
}
