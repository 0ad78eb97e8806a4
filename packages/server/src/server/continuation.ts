/**
 * Continuation runs (a person in the loop): a run that ended waiting (run-finish `pending`: tool
 * approvals, client tool calls, interrupts) is continued by the chat's next run, which starts with
 * the answers the request carries:
 *
 * - AI SDK (`POST /api/chat`): the last message is the assistant message the client continues, with
 *   `approval-responded` tool parts (`addToolApprovalResponse`) or outputs of the pending client tool
 *   calls (`addToolOutput`);
 * - AG-UI (`POST /api/agui`): `resume` entries (an approval's payload `{ approved, reason? }`, status
 *   `cancelled` = a denial; any other interrupt's answer goes to the agent as `resume`) and `tool`
 *   messages answering the pending client tool calls;
 * - WebSocket (`/ws`): `tool_approval_response`, `tool_result` and `interrupt_response` messages.
 *
 * The gateway checks every answer against the stored run before anything starts (an unknown,
 * stale or already answered approval id is a located 4xx), then the continuation run writes the
 * answers as canonical events right after its run-start (`tool-approval-response` with `by`,
 * `tool-output` / `tool-error`, `interrupt-response`) and adds to the same assistant message
 * (run-start.messageId = its id). The agent gets the conversation with the answers in the
 * continued message's tool parts, in AI SDK shapes (docs/agents.md, "A person in the loop").
 */
import type { EventInit, Json } from '@switchboard/core';
import { type AssistantMessage, loadHistory, type PersistedMessage, type Store, type UIPartLike } from '@switchboard/store';

import type { ResumeAnswer, RunMessage } from '../runner/types.ts';
import { canSee, ownerOf, type Principal } from './auth.ts';
import { jsonError } from './errors.ts';

/** What a continuation run is started with. */
export interface Continuation {
  /** The assistant message it continues (its run-start.messageId). */
  messageId: string;
  /** The answers, emitted right after run-start. */
  prelude: EventInit[];
  /** The conversation for the agent, the continued message carrying the answers. */
  messages: RunMessage[];
  /** AG-UI resume entries that answer interrupts (not approvals). */
  resume?: ResumeAnswer[];
}

/** A continuation, none (an ordinary run), or the 4xx that refuses the request. */
export type ContinuationResult = { ok: true; value: Continuation | undefined } | { ok: false; response: Response };

type Approval = { at: string; approvalId: string; approved: boolean; reason?: string };
/** A client tool's output; `messageId`: the AG-UI tool message that carries it (the client's id for it). */
type Output = { at: string; toolCallId: string; output?: Json; errorText?: string; messageId?: string };
type Interrupt = { at: string; answer: ResumeAnswer };

/** What the caller answers: approvals, client tool outputs and interrupt answers, each located in the request. */
interface Answers {
  approvals: Approval[];
  outputs: Output[];
  interrupts: Interrupt[];
}

const NONE: ContinuationResult = { ok: true, value: undefined };

function refuse(status: number, code: string, at: string, message: string): ContinuationResult {
  return { ok: false, response: jsonError(status, `${at}: ${message}`, { code, issues: [{ path: at, message }] }) };
}

/** The chat's stored messages, when the caller may answer in it. */
async function storedChat(store: Store, chatId: string, principal: Principal): Promise<PersistedMessage[] | undefined> {
  const chat = await store.getChat(chatId);
  if (!canSee(principal, chat)) return undefined;
  return store.listMessages(chatId);
}

/** The chat's last message when it is an assistant message whose run ended waiting. */
function waiting(messages: readonly PersistedMessage[]): AssistantMessage | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || last.persistenceState !== 'persisted' || !last.metadata.pending) return undefined;
  return last;
}

/** Why an approval id that is not waiting cannot be answered: answered before, stale, or unknown. */
function approvalProblem(messages: readonly PersistedMessage[], approvalId: string, at: string): ContinuationResult {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    for (const p of m.metadata.parts) {
      if (p.type !== 'tool' || p.approval?.id !== approvalId) continue;
      if (p.approval.approved !== undefined)
        return refuse(409, 'approval_answered', at, `approval ${JSON.stringify(approvalId)} has already been answered`);
      return refuse(
        409,
        'approval_stale',
        at,
        `approval ${JSON.stringify(approvalId)} is no longer waiting for an answer (the chat went on without it)`,
      );
    }
  }
  return refuse(404, 'unknown_approval', at, `no approval ${JSON.stringify(approvalId)} was asked for in this chat`);
}

/**
 * Checks the answers against the waiting message and builds the continuation. `continued`: the id
 * of the message the request continues (AI SDK), undefined for AG-UI (the chat's last message).
 */
async function build(
  store: Store,
  namespace: string,
  chatId: string,
  principal: Principal,
  answers: Answers,
  continued: { id: string; at: string } | undefined,
  conversation: (stored: RunMessage[], message: RunMessage) => RunMessage[],
): Promise<ContinuationResult> {
  const messages = await storedChat(store, chatId, principal);
  const first = answers.approvals[0]?.at ?? answers.interrupts[0]?.at ?? answers.outputs[0]?.at ?? 'body';
  if (!messages) return refuse(404, 'not_found', first, `no chat ${JSON.stringify(chatId)} to answer in`);
  const message = waiting(messages);
  const pending = message && (!continued || continued.id === message.id) ? message.metadata.pending : undefined;
  for (const a of answers.approvals)
    if (!pending?.approvalIds?.includes(a.approvalId)) return approvalProblem(messages, a.approvalId, a.at);
  for (const i of answers.interrupts)
    if (!pending?.interruptIds?.includes(i.answer.interruptId))
      return refuse(404, 'unknown_interrupt', i.at, `no interrupt ${JSON.stringify(i.answer.interruptId)} is waiting for an answer`);
  const outputs = answers.outputs.filter((o) => pending?.toolCallIds?.includes(o.toolCallId));
  // Outputs of calls nothing waits for (a client re-sending earlier results) make an ordinary run.
  if (!message || !pending || answers.approvals.length + answers.interrupts.length + outputs.length === 0) return NONE;

  const by = ownerOf(principal);
  const tools = new Map<string, { toolName: string; approvalId?: string }>();
  for (const p of message.metadata.parts)
    if (p.type === 'tool') tools.set(p.toolCallId, { toolName: p.toolName, ...(p.approval ? { approvalId: p.approval.id } : {}) });
  const callOf = (approvalId: string) => [...tools].find(([, t]) => t.approvalId === approvalId)?.[0];
  const prelude: EventInit[] = [];
  for (const a of answers.approvals) {
    const toolCallId = callOf(a.approvalId);
    prelude.push({
      type: 'tool-approval-response',
      approvalId: a.approvalId,
      ...(toolCallId !== undefined ? { toolCallId } : {}),
      approved: a.approved,
      ...(a.reason !== undefined ? { reason: a.reason } : {}),
      ...(by !== undefined ? { by } : {}),
    });
  }
  for (const o of outputs) {
    const toolName = tools.get(o.toolCallId)?.toolName;
    // Marked as the client's own (it has the result already: an AG-UI client its tool message, by id).
    const providerMetadata = { [namespace]: { fromClient: true, ...(o.messageId !== undefined ? { messageId: o.messageId } : {}) } };
    const call = { toolCallId: o.toolCallId, ...(toolName ? { toolName } : {}), providerMetadata };
    prelude.push(
      o.errorText !== undefined
        ? { type: 'tool-error', ...call, error: o.errorText }
        : { type: 'tool-output', ...call, output: o.output ?? null },
    );
  }
  for (const i of answers.interrupts) {
    const { interruptId, status, payload } = i.answer;
    prelude.push({
      type: 'interrupt-response',
      interruptId,
      status,
      ...(payload !== undefined ? { payload: payload as Json } : {}),
      ...(by !== undefined ? { by } : {}),
    });
  }

  // The agent reads the stored message (not the client's copy of it) with the answers in place.
  const history = (await loadHistory(store, chatId, 'ai-sdk', { namespace, metadata: false })) as RunMessage[];
  const stored = history.find((m) => m.id === message.id) ?? { id: message.id, role: 'assistant', parts: [] };
  const answered: RunMessage = { ...stored, parts: stored.parts.map((p) => withAnswers(p as UIPartLike, answers.approvals, outputs)) };
  return {
    ok: true,
    value: {
      messageId: message.id,
      prelude,
      messages: conversation(history, answered),
      ...(answers.interrupts.length ? { resume: answers.interrupts.map((i) => i.answer) } : {}),
    },
  };
}

/** A tool part of the continued message with its answer, in the AI SDK shape the client sends. */
function withAnswers(part: UIPartLike, approvals: readonly Approval[], outputs: readonly Output[]): UIPartLike {
  if (typeof part.toolCallId !== 'string') return part;
  const approval = part.approval as { id?: string } | undefined;
  const a = approval?.id !== undefined ? approvals.find((x) => x.approvalId === approval.id) : undefined;
  if (a)
    return {
      ...part,
      state: 'approval-responded',
      approval: { ...approval, id: a.approvalId, approved: a.approved, ...(a.reason !== undefined ? { reason: a.reason } : {}) },
    };
  const o = outputs.find((x) => x.toolCallId === part.toolCallId);
  if (!o) return part;
  return o.errorText !== undefined
    ? { ...part, state: 'output-error', errorText: o.errorText }
    : { ...part, state: 'output-available', output: o.output ?? null };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `POST /api/chat`: a continuation when the last message is an assistant message with answered
 * approvals or outputs of pending client tool calls. `messages`: the request's (answers are located
 * in them); `conversation`: what the agent would answer (the stored history before them, if any).
 */
export async function aiSdkContinuation(
  store: Store,
  namespace: string,
  chatId: string,
  principal: Principal,
  messages: readonly RunMessage[],
  conversation: readonly RunMessage[] = messages,
): Promise<ContinuationResult> {
  const n = messages.length - 1;
  const last = messages[n];
  if (last?.role !== 'assistant') return NONE;
  const answers: Answers = { approvals: [], outputs: [], interrupts: [] };
  last.parts.forEach((p, k) => {
    if (!isRecord(p) || typeof p.type !== 'string' || !(p.type.startsWith('tool-') || p.type === 'dynamic-tool')) return;
    const at = `messages.${n}.parts.${k}`;
    const approval = isRecord(p.approval) ? p.approval : undefined;
    if (p.state === 'approval-responded' && typeof approval?.id === 'string' && typeof approval.approved === 'boolean')
      answers.approvals.push({
        at: `${at}.approval.id`,
        approvalId: approval.id,
        approved: approval.approved,
        ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}),
      });
    else if (typeof p.toolCallId === 'string' && p.state === 'output-available')
      answers.outputs.push({ at, toolCallId: p.toolCallId, output: (p.output ?? null) as Json });
    else if (typeof p.toolCallId === 'string' && p.state === 'output-error')
      answers.outputs.push({ at, toolCallId: p.toolCallId, errorText: typeof p.errorText === 'string' ? p.errorText : 'error' });
  });
  if (answers.approvals.length === 0 && answers.outputs.length === 0) return NONE;
  if (answers.approvals.length === 0 && !(await store.getChat(chatId))) return NONE;
  return build(store, namespace, chatId, principal, answers, { id: last.id, at: `messages.${n}.id` }, (_stored, answered) => {
    const i = conversation.findIndex((m) => m.id === answered.id);
    return i === -1 ? [...conversation, answered] : [...conversation.slice(0, i), answered, ...conversation.slice(i + 1)];
  });
}

/** What `POST /api/agui` reads for a continuation. */
export interface AgUiAnswersInput {
  resume?: readonly { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[] | undefined;
  messages: readonly { id: string; role: string; toolCallId?: string | undefined; content?: unknown; error?: string | undefined }[];
}

/**
 * `POST /api/agui`: a continuation when the input has `resume` entries, or `tool` messages that
 * answer the chat's pending client tool calls. An approval's resume entry: payload `{ approved,
 * reason? }`, status `cancelled` a denial.
 */
export async function agUiContinuation(
  store: Store,
  namespace: string,
  chatId: string,
  principal: Principal,
  input: AgUiAnswersInput,
  textOf: (content: unknown) => string,
): Promise<ContinuationResult> {
  const answers: Answers = { approvals: [], outputs: [], interrupts: [] };
  const stored = await storedChat(store, chatId, principal);
  const pending = stored && waiting(stored)?.metadata.pending;
  (input.resume ?? []).forEach((r, i) => {
    const at = `resume.${i}.interruptId`;
    const payload = isRecord(r.payload) ? r.payload : {};
    const isApproval =
      pending?.approvalIds?.includes(r.interruptId) || (!pending?.interruptIds?.includes(r.interruptId) && 'approved' in payload);
    if (isApproval)
      answers.approvals.push({
        at,
        approvalId: r.interruptId,
        approved: r.status === 'resolved' && payload.approved === true,
        ...(typeof payload.reason === 'string' ? { reason: payload.reason } : {}),
      });
    else
      answers.interrupts.push({
        at,
        answer: { interruptId: r.interruptId, status: r.status, ...(r.payload !== undefined ? { payload: r.payload } : {}) },
      });
  });
  input.messages.forEach((m, i) => {
    if (m.role !== 'tool' || m.toolCallId === undefined || !pending?.toolCallIds?.includes(m.toolCallId)) return;
    const at = `messages.${i}`;
    const answer = { at, toolCallId: m.toolCallId, messageId: m.id };
    if (typeof m.error === 'string') answers.outputs.push({ ...answer, errorText: m.error });
    else answers.outputs.push({ ...answer, output: parseOutput(textOf(m.content)) });
  });
  if (answers.approvals.length + answers.interrupts.length + answers.outputs.length === 0) return NONE;
  return build(store, namespace, chatId, principal, answers, undefined, (history, answered) =>
    history.map((m) => (m.id === answered.id ? answered : m)),
  );
}

function parseOutput(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** One answer a WebSocket client sends (ws.ts): to an approval, a client tool call or an interrupt. */
export type WsAnswer =
  | { type: 'tool_approval_response'; approvalId: string; approved: boolean; reason?: string }
  | { type: 'tool_result'; toolCallId: string; output?: Json; error?: string }
  | { type: 'interrupt_response'; interruptId: string; status: 'resolved' | 'cancelled'; payload?: Json };

/** `/ws`: a continuation from one answer message (located at `at`, the message's field). */
export async function wsContinuation(
  store: Store,
  namespace: string,
  chatId: string,
  principal: Principal,
  answer: WsAnswer,
): Promise<ContinuationResult> {
  const answers: Answers = { approvals: [], outputs: [], interrupts: [] };
  if (answer.type === 'tool_approval_response')
    answers.approvals.push({
      at: 'approvalId',
      approvalId: answer.approvalId,
      approved: answer.approved,
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
    });
  else if (answer.type === 'tool_result')
    answers.outputs.push({
      at: 'toolCallId',
      toolCallId: answer.toolCallId,
      ...(answer.error !== undefined ? { errorText: answer.error } : { output: answer.output ?? null }),
    });
  else
    answers.interrupts.push({
      at: 'interruptId',
      answer: {
        interruptId: answer.interruptId,
        status: answer.status,
        ...(answer.payload !== undefined ? { payload: answer.payload } : {}),
      },
    });
  const result = await build(store, namespace, chatId, principal, answers, undefined, (history, answered) =>
    history.map((m) => (m.id === answered.id ? answered : m)),
  );
  // A tool result nothing waits for starts nothing here (there is no user message to answer instead).
  if (result.ok && result.value === undefined)
    return refuse(409, 'not_waiting', answers.outputs[0]?.at ?? 'toolCallId', 'nothing in this session waits for that answer');
  return result;
}
