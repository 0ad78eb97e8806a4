/**
 * A stand-in for the gateway routes the UI reads but this repository's server may not have yet
 * (history, run events, AG-UI, agent and chat lists), written to the contracts the UI is
 * designed against. The browser suite runs against it (contract.test.ts) so every UI path is tested
 * today; against the real server (browser.test.ts) the same suite reports the missing routes as
 * todos until they land.
 *
 * Contracts (docs/web-ui.md):
 * - GET /api/agents → [{ name, description, framework }]
 * - GET /api/chats → [{ id, title, metadata: { agent }, createdAt, updatedAt }], most recent first
 * - GET /api/chats/:id → { chat, runs } (no run ever stays running here); PATCH /api/chats/:id { title }
 * - GET /api/chats/:id/messages?protocol=ai-sdk → UIMessage[]; reasoning parts carry
 *   providerMetadata.switchboard.{variant, durationMs}; assistant messages metadata.switchboard.{runId, error}
 * - GET /api/chats/:id/messages?protocol=canonical → the chat's canonical events
 * - GET /api/runs/:runId/events → the run's canonical events
 * - POST /api/chat (AI SDK body + `agent`), POST /api/agui (RunAgentInput, forwardedProps.agent)
 *
 * The conversion to UIMessages uses the official `readUIMessageStream` over our AI SDK encoder, so
 * the stored message is what the client assembled live.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type CanonicalEvent, createEncoder, createSseResponse, decode } from '@switchboard/core';
import { readUIMessageStream, type UIMessage } from 'ai';
import { Hono } from 'hono';

import { demoAgent } from '../../../packages/server/src/agents/demo.ts';
import { mountWebApp } from '../../../packages/server/src/server/static.ts';

interface StoredChat {
  id: string;
  title: string;
  /** The agent of its latest run (what the gateway keeps in `metadata.agent`). */
  metadata: { agent?: string };
  createdAt: number;
  updatedAt: number;
  /** Per run: the user message that started it and the run's canonical events. */
  runs: { user: UIMessage; events: CanonicalEvent[] }[];
}

async function toUIMessage(events: CanonicalEvent[]): Promise<UIMessage> {
  const encoder = createEncoder('ai-sdk');
  const chunks = [...events.flatMap((e) => encoder.push(e)), ...encoder.end()];
  const stream = new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: stream as never })) message = m as UIMessage;
  const out: UIMessage = message ?? { id: events[0]?.runId ?? 'm', role: 'assistant', parts: [] };
  // Durations from the events' server timestamps, in block order.
  const durations: number[] = [];
  const started = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'reasoning-start') started.set(e.blockId, e.ts);
    if (e.type === 'reasoning-end') durations.push(e.ts - (started.get(e.blockId) ?? e.ts));
  }
  let k = 0;
  for (const p of out.parts) {
    if (p.type !== 'reasoning') continue;
    const d = durations[k++];
    const pm = (p.providerMetadata ?? {}) as Record<string, Record<string, unknown>>;
    p.providerMetadata = { ...pm, switchboard: { ...pm.switchboard, ...(d !== undefined ? { durationMs: d } : {}) } } as never;
  }
  const fatal = events.find((e) => e.type === 'error' && e.fatal);
  // As @switchboard/store's history puts it: our fields under metadata.switchboard.
  out.metadata = {
    switchboard: { runId: events[0]?.runId, ...(fatal?.type === 'error' ? { error: { message: fatal.message, code: fatal.code } } : {}) },
  };
  return out;
}

async function* recordInto(list: CanonicalEvent[], events: AsyncIterable<CanonicalEvent>): AsyncGenerator<CanonicalEvent> {
  for await (const e of events) {
    list.push(e);
    yield e;
  }
}

function textOf(m: { parts?: { type: string; text?: string }[]; content?: unknown }): string {
  if (typeof m.content === 'string') return m.content;
  return (m.parts ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

export async function startStubGateway(options: { delayMs?: number } = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const chats = new Map<string, StoredChat>();
  const runs = new Map<string, CanonicalEvent[]>();
  const app = new Hono();
  mountWebApp(app);

  const chatFor = (id: string, title: string, agent: string | undefined): StoredChat => {
    let chat = chats.get(id);
    if (!chat) {
      chat = { id, title: title.slice(0, 60), metadata: {}, createdAt: Date.now(), updatedAt: Date.now(), runs: [] };
      chats.set(id, chat);
    }
    if (agent) chat.metadata.agent = agent;
    chat.updatedAt = Date.now();
    return chat;
  };

  const runAgent = (chat: StoredChat, user: UIMessage, signal: AbortSignal) => {
    const events: CanonicalEvent[] = [];
    chat.runs.push({ user, events });
    const canonical = decode(demoAgent(textOf(user as never), { delayMs: options.delayMs ?? 0, signal }), 'claude', { chatId: chat.id });
    return recordInto(events, {
      async *[Symbol.asyncIterator]() {
        for await (const e of canonical) {
          if (e.type === 'run-start') runs.set(e.runId, events);
          yield e;
        }
      },
    });
  };

  app.get('/api/agents', (c) =>
    c.json([
      { name: 'demo', description: 'Built-in demo agent', framework: 'claude' },
      { name: 'replay', description: 'Replays a recorded capture', framework: 'auto' },
    ]),
  );
  app.get('/api/chats', (c) => c.json([...chats.values()].sort((a, b) => b.updatedAt - a.updatedAt).map(({ runs: _r, ...chat }) => chat)));
  app.get('/api/chats/:id', (c) => {
    const chat = chats.get(c.req.param('id'));
    if (!chat) return c.json({ error: { message: 'no such chat' } }, 404);
    const { runs: _r, ...rest } = chat;
    return c.json({ chat: rest, runs: [] });
  });
  app.patch('/api/chats/:id', async (c) => {
    const chat = chats.get(c.req.param('id'));
    const body = (await c.req.json().catch(() => ({}))) as { title?: unknown };
    if (!chat) return c.json({ error: { message: 'no such chat' } }, 404);
    if (typeof body.title !== 'string' || !body.title.trim()) return c.json({ error: { message: 'expected { title }' } }, 400);
    chat.title = body.title.trim();
    return c.json({ chat });
  });
  app.get('/api/chats/:id/messages', async (c) => {
    const chat = chats.get(c.req.param('id'));
    if (!chat) return c.json({ error: { message: 'no such chat' } }, 404);
    if (c.req.query('protocol') === 'canonical') return c.json(chat.runs.flatMap((r) => r.events));
    const out: UIMessage[] = [];
    for (const r of chat.runs) {
      out.push(r.user);
      out.push(await toUIMessage(r.events));
    }
    return c.json(out);
  });
  app.get('/api/runs/:id/events', (c) => {
    const events = runs.get(c.req.param('id'));
    return events ? c.json(events) : c.json({ error: { message: 'no such run' } }, 404);
  });
  app.post('/api/chat', async (c) => {
    const body = (await c.req.json()) as { id: string; messages: UIMessage[]; agent?: string };
    const user = body.messages.at(-1) as UIMessage;
    const chat = chatFor(body.id, textOf(user as never), body.agent);
    return createSseResponse(runAgent(chat, user, c.req.raw.signal), 'ai-sdk');
  });
  app.post('/api/agui', async (c) => {
    const input = (await c.req.json().catch(() => undefined)) as {
      threadId: string;
      messages: { id: string; role: string; content: string }[];
    };
    if (!input?.messages) return c.json({ error: { message: 'expected a RunAgentInput' } }, 400);
    const last = input.messages.at(-1) ?? { id: 'u', role: 'user', content: '' };
    const user: UIMessage = { id: last.id, role: 'user', parts: [{ type: 'text', text: last.content }] };
    const props = (input as { forwardedProps?: { agent?: unknown } }).forwardedProps;
    const chat = chatFor(input.threadId, last.content, typeof props?.agent === 'string' ? props.agent : undefined);
    return createSseResponse(runAgent(chat, user, c.req.raw.signal), 'ag-ui');
  });
  app.notFound((c) => c.json({ error: { message: `Not found: ${c.req.method} ${c.req.path}` } }, 404));

  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }) as Server;
    server.once('listening', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
