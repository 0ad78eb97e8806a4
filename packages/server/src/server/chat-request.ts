/**
 * The body `DefaultChatTransport` (AI SDK `useChat`) posts: `{ id, messages, trigger, messageId }`
 * plus whatever extra `body` the app configured. Validated loosely: only what the server reads is
 * checked, unknown keys pass, so newer clients keep working.
 */
import { idProblem, MAX_DEPTH, tooDeepAt } from '@switchboard/core';
import { z } from 'zod';

import type { ClientTool } from '../runner/types.ts';
import type { Issue } from './errors.ts';

const partSchema = z.looseObject({ type: z.string() }).superRefine((part, ctx) => {
  if (part.type === 'text' && typeof part.text !== 'string') {
    ctx.addIssue({ code: 'custom', path: ['text'], message: 'a text part needs a string "text"' });
  }
});

/**
 * The one id rule for ids a client names (chat / thread ids, run ids, user message ids, `messageId`):
 * 1–200 characters, any Unicode, no control characters, no lone surrogates (core's `idProblem`). Such
 * an id is stored as is and sent back percent-encoded in the `x-switchboard-*-id` headers.
 */
export const requestIdSchema = z
  .string()
  .min(1)
  .max(200)
  .superRefine((id, ctx) => {
    const problem = idProblem(id, 200);
    if (problem) ctx.addIssue({ code: 'custom', message: `not a usable id: ${problem}` });
  });

/**
 * A user message's id follows the id rule (the gateway stores the message under it); the ids of the
 * other messages a client sends back are only compared, so any string passes.
 */
export function checkUserMessageId(m: { id: string; role: string }, ctx: z.RefinementCtx): void {
  if (m.role !== 'user') return;
  const checked = requestIdSchema.safeParse(m.id);
  if (!checked.success) ctx.addIssue({ code: 'custom', path: ['id'], message: checked.error.issues[0].message });
}

const messageSchema = z
  .looseObject({
    id: z.string(),
    role: z.enum(['system', 'user', 'assistant']),
    parts: z.array(partSchema),
  })
  .superRefine(checkUserMessageId);

/** A frontend tool the client declares (AI SDK body `tools`, AG-UI `RunAgentInput.tools`): RunRequest.tools. */
export const clientToolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

/** Declared tools as RunRequest.tools: name, description and parameters (nothing else goes to the agent). */
export function clientToolsOf(tools: readonly z.infer<typeof clientToolSchema>[] | undefined): ClientTool[] {
  return (tools ?? []).map(({ name, description, parameters }) => ({
    name,
    ...(description !== undefined ? { description } : {}),
    ...(parameters !== undefined ? { parameters } : {}),
  }));
}

/** Schema of the chat request body. */
export const chatRequestSchema = z.looseObject({
  id: requestIdSchema.optional(),
  messages: z.array(messageSchema).min(1),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: requestIdSchema.optional(),
  /** The agent to run (also `?agent=`); default: the server's default agent. */
  agent: z.string().min(1).optional(),
  /**
   * Frontend tools the client runs itself (the agent may call them; the run then waits for their
   * output): a list, or — as assistant-ui's transport sends them — a record by name (`{}` with none).
   */
  tools: z
    .union([
      z.array(clientToolSchema),
      z
        .record(
          z.string().min(1),
          z.looseObject({ description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
        )
        .transform((byName) => Object.entries(byName).map(([name, tool]) => ({ ...tool, name }))),
    ])
    .optional(),
});

/** A validated chat request body. */
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** Outcome of reading a request body: the request, or what is wrong with it. */
export type ChatRequestResult = { ok: true; value: ChatRequest } | { ok: false; message: string; issues: Issue[] };

function fail(issues: Issue[]): ChatRequestResult {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return { ok: false, message: `Invalid request body: ${first.path}: ${first.message}${more}`, issues };
}

/**
 * Parses a request body's JSON text, refusing values nested deeper than the depth limit (before any
 * schema walks them): the value, or a located issue.
 */
export function parseRequestJson(text: string): { ok: true; value: unknown } | { ok: false; issue: Issue } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, issue: { path: 'body', message: `not valid JSON (${(err as Error).message})` } };
  }
  const deep = tooDeepAt(json, MAX_DEPTH);
  if (deep !== undefined) return { ok: false, issue: { path: deep, message: `nested deeper than ${MAX_DEPTH} levels` } };
  return { ok: true, value: json };
}

/** Reads and validates a chat request body from its JSON text. */
export function parseChatRequest(text: string): ChatRequestResult {
  const read = parseRequestJson(text);
  if (!read.ok) return fail([read.issue]);
  const json = read.value;
  const result = chatRequestSchema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return fail(result.error.issues.map((i) => ({ path: i.path.length ? i.path.join('.') : 'body', message: i.message })));
}

/** Text of the last user message (its text parts joined), or '' when there is none. */
export function lastUserText(messages: ChatRequest['messages']): string {
  const message = messages.findLast((m) => m.role === 'user');
  if (!message) return '';
  return message.parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}
