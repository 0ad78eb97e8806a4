/**
 * A bare web-standard `fetch` handler for Deno, Bun, Cloudflare Workers, Vercel Edge and any other
 * runtime with `Request` / `Response`: your backend calls the model (here Anthropic's Messages API)
 * and answers the AI SDK UI message stream `useChat` reads. Only `@switchboard/core`, which uses web
 * standards alone: no Node built-ins, no store, no agent processes.
 *
 *   Deno:  deno serve examples/fetch/handler.ts        Bun:  bun examples/fetch/handler.ts
 *   Workers / edge: `export default` below is the module worker shape.
 */
import { createSseResponse, decode } from '@switchboard/core';

/** What the handler needs to call Anthropic: the key, and where (a proxy, or a test server). */
export interface HandlerOptions {
  apiKey: string;
  baseUrl?: string;
  model?: string;
}

/** AI SDK UI messages (what `useChat` posts) → Anthropic messages: the text parts of each. */
function toAnthropicMessages(messages: { role: string; parts?: { type: string; text?: string }[] }[]) {
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role, content: (m.parts ?? []).flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n') }));
}

/** `POST { messages }` → the model's answer as an AI SDK UI message stream. */
export function createChatHandler(options: HandlerOptions): (req: Request) => Promise<Response> {
  const { apiKey, baseUrl = 'https://api.anthropic.com', model = 'claude-sonnet-4-5' } = options;
  return async (req) => {
    if (req.method !== 'POST') return new Response('Use POST', { status: 405, headers: { allow: 'POST' } });
    const { messages = [] } = (await req.json().catch(() => ({}))) as { messages?: Parameters<typeof toAnthropicMessages>[0] };
    const upstream = await fetch(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, max_tokens: 1024, stream: true, messages: toAnthropicMessages(messages) }),
      signal: req.signal,
    });
    if (!upstream.ok || !upstream.body) return Response.json({ error: `upstream answered ${upstream.status}` }, { status: 502 });
    // Anthropic's SSE bytes → canonical events → the AI SDK UI message stream, pulled as the client reads.
    return createSseResponse(decode(upstream.body, 'anthropic'), 'ai-sdk');
  };
}

/** The module-worker shape (Deno `serve`, Bun, Workers): the key from the environment. */
export default {
  fetch(req: Request, env?: { ANTHROPIC_API_KEY?: string }): Promise<Response> {
    const apiKey =
      env?.ANTHROPIC_API_KEY ?? (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.ANTHROPIC_API_KEY;
    if (!apiKey) return Promise.resolve(Response.json({ error: 'set ANTHROPIC_API_KEY' }, { status: 500 }));
    return createChatHandler({ apiKey })(req);
  },
};
