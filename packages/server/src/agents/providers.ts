/**
 * The SDK agents: Anthropic Messages, OpenAI Chat Completions and Gemini streamGenerateContent,
 * called with `fetch` (no SDK at run time). Each posts the conversation with `stream: true` and
 * pipes the SSE body through core's decoder for that API, so the run's events are exactly what
 * `decode(body, '<framework>')` makes of the provider's stream. The API key is read from the
 * server's environment at run time and sent only to the configured base URL.
 */
import { type CanonicalEvent, decode } from '@switchboard/core';
import { apiKeyFrom, PROVIDER_FRAMEWORK } from '../config/defaults.ts';
import type { Provider, ProviderSettings } from '../config/types.ts';
import { AgentError, decoderOptions, type InProcessContext } from '../runner/in-process.ts';
import { toTurns } from './messages.ts';

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
  const { system, turns } = toTurns(ctx.request.messages);
  if (turns.length === 0) throw new AgentError('invalid_request', 'the conversation has no user message to answer');
  const sys = [settings.system, system].filter(Boolean).join('\n\n');
  return { system: sys || undefined, turns };
}

/** Builds the Messages API request (`POST /v1/messages`, `stream: true`). */
export function anthropicRequest(ctx: InProcessContext, settings: ProviderSettings, key: string): ProviderRequest {
  const { system, turns } = conversation(ctx, settings);
  const base = trimSlash(settings.baseUrl);
  const body: Record<string, unknown> = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    stream: true,
    messages: turns.map((t) => ({ role: t.role, content: [{ type: 'text', text: t.text }] })),
  };
  if (system) body.system = system;
  return {
    url: `${base}${base.endsWith('/v1') ? '' : '/v1'}/messages`,
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body,
  };
}

/** Builds the Chat Completions request (`POST /chat/completions`, `stream: true` with usage). */
export function openaiRequest(ctx: InProcessContext, settings: ProviderSettings, key: string): ProviderRequest {
  const { system, turns } = conversation(ctx, settings);
  const messages = [...(system ? [{ role: 'system', content: system }] : []), ...turns.map((t) => ({ role: t.role, content: t.text }))];
  return {
    url: `${trimSlash(settings.baseUrl)}/chat/completions`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: {
      model: settings.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: settings.maxTokens,
    },
  };
}

/** Builds the Gemini request (`POST /models/<model>:streamGenerateContent?alt=sse`). */
export function geminiRequest(ctx: InProcessContext, settings: ProviderSettings, key: string): ProviderRequest {
  const { system, turns } = conversation(ctx, settings);
  const base = trimSlash(settings.baseUrl);
  const root = /\/v1(beta\d*|alpha)?$/.test(base) ? base : `${base}/v1beta`;
  const body: Record<string, unknown> = {
    contents: turns.map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: [{ text: t.text }] })),
    generationConfig: { maxOutputTokens: settings.maxTokens },
  };
  if (system) body.systemInstruction = { parts: [{ text: system }] };
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
