/**
 * `POST /api/agui`: AG-UI's RunAgentInput (what `@ag-ui/client`'s HttpAgent and CopilotKit post)
 * in, the run's AG-UI events out as SSE (`createSseResponse(…, 'ag-ui')` framing, with ids).
 *
 * - the thread is the chat (`threadId` = chat id), the client's `runId` is the run id;
 * - the agent comes from `?agent=` or `forwardedProps.agent` (default: the server's default agent);
 * - the conversation the agent answers is the input's `messages`, turned into AI SDK UIMessages
 *   (text, files, tool calls with their results); the last user message is stored;
 * - posting a `runId` that already exists in the thread again (a retry) does not start anything: it
 *   answers that run's stream (after `Last-Event-ID` when given); a `runId` the caller cannot see
 *   (another thread's or caller's) answers as a new id would: a new run, with an id of the gateway's.
 */
import { storeRead, supersedeMessages } from '@switchboard/store';
import { z } from 'zod';

import { canSee } from './auth.ts';
import { abortOnDisconnect, lastEventIdOf, runHeaders, startErrorResponse } from './chat.ts';
import { checkUserMessageId, clientToolSchema, clientToolsOf, parseRequestJson, requestIdSchema } from './chat-request.ts';
import type { GatewayContext } from './context.ts';
import { agUiContinuation } from './continuation.ts';
import { errorResponse, type Issue, jsonError } from './errors.ts';
import { regeneratedIds } from './regenerate.ts';
import { requestBody, requestSignal } from './request-io.ts';
import type { LocalRun } from './runs.ts';
import { sseResponse } from './sse-response.ts';

const ID = requestIdSchema;

const contentPart = z.looseObject({ type: z.string() });
const toolCall = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
const message = z
  .looseObject({
    id: z.string(),
    role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'reasoning', 'activity']),
    content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
    toolCalls: z.array(toolCall).optional(),
    toolCallId: z.string().optional(),
    error: z.string().optional(),
  })
  .superRefine(checkUserMessageId);

/** RunAgentInput, validated loosely (only what the server reads; unknown keys pass). */
export const runAgentInputSchema = z.looseObject({
  threadId: ID,
  runId: ID,
  parentRunId: z.string().optional(),
  state: z.unknown().optional(),
  messages: z.array(message),
  tools: z.array(clientToolSchema).optional(),
  context: z.array(z.unknown()).optional(),
  forwardedProps: z.unknown().optional(),
  /** Sent by @ag-ui/client 1.x; its absence marks a client before 1.0 (its stream gets the outcomes it accepts). */
  protocolVersion: z.string().optional(),
  /** Answers to the interrupts (approvals included) the thread's previous run ended with. */
  resume: z
    .array(z.looseObject({ interruptId: z.string(), status: z.enum(['resolved', 'cancelled']), payload: z.unknown().optional() }))
    .optional(),
});

export type RunAgentInput = z.infer<typeof runAgentInputSchema>;
type AgUiMessage = RunAgentInput['messages'][number];

type Part = Record<string, unknown> & { type: string };
export interface UIMessageLike {
  id: string;
  role: 'system' | 'user' | 'assistant';
  parts: Part[];
}

function textOf(content: AgUiMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}

function partsOf(content: AgUiMessage['content']): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: Part[] = [];
  for (const p of content) {
    if (p.type === 'text' && typeof p.text === 'string') out.push({ type: 'text', text: p.text });
    else if (p.type === 'binary' || p.type === 'image' || p.type === 'file') {
      const mediaType = typeof p.mimeType === 'string' ? p.mimeType : 'application/octet-stream';
      const url = typeof p.url === 'string' ? p.url : typeof p.data === 'string' ? `data:${mediaType};base64,${p.data}` : undefined;
      if (url) out.push({ type: 'file', mediaType, url, ...(typeof p.filename === 'string' ? { filename: p.filename } : {}) });
    }
  }
  return out;
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * AG-UI messages as AI SDK UIMessages: system / developer → system, user → user (text and files),
 * assistant → text plus one `tool-<name>` part per call, with the output of the matching `tool`
 * message. Reasoning and activity messages are not part of the conversation sent to an agent.
 */
export function toUIMessages(messages: readonly AgUiMessage[]): UIMessageLike[] {
  const results = new Map<string, AgUiMessage>();
  for (const m of messages) if (m.role === 'tool' && m.toolCallId) results.set(m.toolCallId, m);
  const out: UIMessageLike[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer')
      out.push({ id: m.id, role: 'system', parts: [{ type: 'text', text: textOf(m.content) }] });
    else if (m.role === 'user') out.push({ id: m.id, role: 'user', parts: partsOf(m.content) });
    else if (m.role === 'assistant') {
      const parts = partsOf(m.content);
      for (const call of m.toolCalls ?? []) {
        const result = results.get(call.id);
        const part: Part = { type: `tool-${call.function.name}`, toolCallId: call.id, input: parseArgs(call.function.arguments) };
        if (!result) part.state = 'input-available';
        else if (typeof result.error === 'string') Object.assign(part, { state: 'output-error', errorText: result.error });
        else Object.assign(part, { state: 'output-available', output: parseArgs(textOf(result.content)) });
        parts.push(part);
      }
      out.push({ id: m.id, role: 'assistant', parts });
    }
  }
  return out;
}

function invalid(error: z.ZodError): Response {
  const issues: Issue[] = error.issues.map((i) => ({ path: i.path.length ? i.path.join('.') : 'body', message: i.message }));
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return errorResponse(400, `Invalid RunAgentInput: ${issues[0].path}: ${issues[0].message}${more}`, issues);
}

/** `POST /api/agui`. */
export async function postAgUi(c: GatewayContext): Promise<Response> {
  const core = c.get('core');
  const body = await requestBody(c, core.maxBodyBytes);
  if (!body.ok) return jsonError(413, `Request body too large: the limit is ${core.maxBodyBytes} bytes`);
  const read = parseRequestJson(body.text);
  if (!read.ok) return errorResponse(400, `Invalid RunAgentInput: ${read.issue.path}: ${read.issue.message}`, [read.issue]);
  const parsed = runAgentInputSchema.safeParse(read.value);
  if (!parsed.success) return invalid(parsed.error);
  const input = parsed.data;
  const principal = c.get('principal');
  const chatId = input.threadId;

  // A retry of a run that exists: its stream, not a new run — unless it carries answers to the run
  // (CopilotKit's useInterrupt re-posts the interrupted run's id with `resume`): that continues it,
  // as a new run (run ids are unique in the store), below.
  // A run the caller cannot see (another thread's, another caller's) is not there for it: the
  // request starts a new run, which gets an id of its own (RUN_STARTED and X-Switchboard-Run-Id carry it).
  const found = await storeRead(core.store.getRun(input.runId));
  const existing = found && found.chatId === chatId && canSee(principal, await core.store.getChat(chatId)) ? found : undefined;
  const resumesExisting = existing !== undefined && existing.status !== 'running' && (input.resume?.length ?? 0) > 0;
  if (existing && !resumesExisting) {
    const last = lastEventIdOf(c);
    if (!last.ok) return last.response;
    return sseResponse(c, core.store, existing.id, 'ag-ui', last.id, {
      namespace: core.namespace,
      legacyOutcomes: input.protocolVersion === undefined,
      signal: requestSignal(c),
      headers: runHeaders(existing.id, chatId),
    });
  }

  const props = (typeof input.forwardedProps === 'object' && input.forwardedProps !== null ? input.forwardedProps : {}) as Record<
    string,
    unknown
  >;
  const agent = c.req.query('agent') ?? (typeof props.agent === 'string' && props.agent ? props.agent : core.agents.defaultAgent);
  // Resume entries and tool messages answering the previous run (continuation.ts): checked first.
  const continuation = await agUiContinuation(core.store, core.namespace, chatId, principal, input, (content) =>
    textOf(content as AgUiMessage['content']),
  );
  if (!continuation.ok) return continuation.response;
  const continues = continuation.value;
  const messages = toUIMessages(input.messages);
  const lastUser = input.messages.findLast((m) => m.role === 'user');
  const last = messages.at(-1);
  const userMessage =
    !continues && lastUser && last?.id === lastUser.id
      ? { id: lastUser.id, content: textOf(lastUser.content), parts: last.parts as never }
      : undefined;
  const tools = clientToolsOf(input.tools);
  // A regenerate, as an AG-UI client makes one (it has no trigger): it drops the answer after its
  // last question and runs again, so what the store holds after that question is superseded.
  const mine = canSee(principal, await storeRead(core.store.getChat(chatId)));
  const replaced = !continues && mine ? await regeneratedIds(core.store, chatId, 'regenerate-message', messages) : new Set<string>();

  let run: LocalRun;
  try {
    run = await core.runs.start({
      chatId,
      ...(resumesExisting || found ? {} : { runId: input.runId }),
      agent,
      messages: continues?.messages ?? messages,
      principal,
      caller: c.get('caller'),
      ...(userMessage ? { userMessage } : {}),
      ...(continues ? { continues } : {}),
      ...(continues?.resume ? { resume: continues.resume } : {}),
      ...(tools.length ? { tools } : {}),
    });
  } catch (err) {
    return startErrorResponse(err);
  }
  abortOnDisconnect(c, run);
  await supersedeMessages(core.store, chatId, [...replaced]);
  return sseResponse(c, core.store, run.runId, 'ag-ui', null, {
    namespace: core.namespace,
    // @ag-ui/client 1.x sends its protocol version; a client before 1.0 (CopilotKit pins 0.0.x) sends
    // none, and its strict schema rejects 1.x's outcomes (`pendingToolCallIds`, `cancelled`).
    legacyOutcomes: input.protocolVersion === undefined,
    signal: requestSignal(c),
    headers: runHeaders(run.runId, chatId),
  });
}
