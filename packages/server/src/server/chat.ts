/**
 * `POST /api/chat` for AI SDK clients (`useChat` / `DefaultChatTransport`), as a plain web handler:
 * request body → agent → `claude` decoder → canonical events → AI SDK encoder → SSE response.
 * The agent never writes protocol chunks itself; everything goes through the canonical model.
 */
import { createSseResponse, decode } from '@switchboard/core';

import type { AgentFactory } from '../agents/agent.ts';
import { guardAgent } from './agent-stream.ts';
import { readBody } from './body.ts';
import { lastUserText, parseChatRequest } from './chat-request.ts';
import { errorResponse } from './errors.ts';

/** Default cap on a chat request body: long conversations fit, runaway uploads do not. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** What the chat handler needs. */
export interface ChatHandlerOptions {
  /** Starts the agent that answers. */
  agent: AgentFactory;
  /** providerMetadata key of the reasoning variant in the AI SDK stream (default `switchboard`). */
  namespace?: string;
  /** Largest accepted body in bytes (default `DEFAULT_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
  /** Told about agents that throw. */
  onError?: (err: unknown) => void;
}

/** Answers one chat request with an AI SDK UI message stream, or a JSON error (400, 413) for a bad body. */
export async function handleChat(request: Request, options: ChatHandlerOptions): Promise<Response> {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const body = await readBody(request, maxBytes);
  if (!body.ok) return errorResponse(413, `Request body too large: the limit is ${maxBytes} bytes`);
  const parsed = parseChatRequest(body.text);
  if (!parsed.ok) return errorResponse(400, parsed.message, parsed.issues);

  const { id, messages } = parsed.value;
  // Aborted when the client disconnects: stops the agent (see guardAgent).
  const signal = request.signal;
  const agentEvents = options.agent({ prompt: lastUserText(messages), messages, signal, ...(id ? { chatId: id } : {}) });
  const events = decode(guardAgent(agentEvents, signal, options.onError), 'claude', id ? { chatId: id } : {});
  return createSseResponse(events, 'ai-sdk', options.namespace ? { namespace: options.namespace } : {});
}
