/**
 * The AG-UI encoder's state and the helpers its event mapping (`encode-event.ts`) uses: message ids
 * (unique across the conversation, scoped to the run), what is open (text and reasoning messages,
 * tool calls, steps, subagents), the MESSAGES_SNAPSHOT mirror, and opening and closing each of them.
 */
import type { CanonicalEvent, EventOf, Json, JsonObject, ProviderMetadata, Usage } from '../../model/events.ts';
import { encryptedReasoningOf } from '../../model/metadata.ts';
import { createAgUiReducer } from './reducer.ts';
import type { AgUiEvent, AgUiMessage } from './schema.ts';

export interface AgUiEncoderOptions {
  /** `metadata` key that carries the reasoning variant and the other canonical fields. Default `switchboard`. */
  namespace?: string;
  /** `threadId` of RUN_STARTED / RUN_FINISHED. Default: the run's `chatId`, else its run id. */
  threadId?: string;
  /**
   * Send a MESSAGES_SNAPSHOT before RUN_FINISHED / RUN_ERROR with the messages this run built (equal to
   * what the client's apply step builds from the stream). The client *replaces* its message list with a
   * snapshot, so pass the earlier conversation in `history` unless the client starts empty.
   */
  messagesSnapshot?: boolean;
  /** Messages placed before this run's messages in the MESSAGES_SNAPSHOT. */
  history?: AgUiMessage[];
  /** Send reasoning blocks (default true). */
  sendReasoning?: boolean;
  /** Send `source` events (default true). */
  sendSources?: boolean;
}

/** RFC 6901 JSON Pointer, as `@ag-ui/core`'s `JsonPointerSchema` checks it. */
export const POINTER = /^(\/([^/~]|~[01])*)*$/;

/** Drops undefined fields; undefined when nothing is left. */
export function clean(fields: Record<string, unknown>): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k in fields) {
    const v = fields[k];
    if (v === undefined) continue;
    out ??= {};
    out[k] = v as Json;
  }
  return out;
}

export const COUNTS: readonly [keyof Usage, string][] = [
  ['inputTokens', 'inputTokens'],
  ['outputTokens', 'outputTokens'],
  ['totalTokens', 'totalTokens'],
  ['reasoningTokens', 'reasoningTokens'],
  ['cacheReadTokens', 'cachedInputTokens'],
  ['cacheWriteTokens', 'cacheWriteInputTokens'],
];

/** A canonical usage as an AG-UI `TokenUsage[]` (counts must be non-negative integers). */
export function tokenUsage(u: Usage | undefined, provider: string | undefined, model: string | undefined): JsonObject[] | undefined {
  if (!u) return undefined;
  const entry: JsonObject = {};
  let any = false;
  for (const [from, to] of COUNTS) {
    const v = u[from];
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) {
      entry[to] = v;
      any = true;
    }
  }
  if (!any) return undefined;
  return [{ ...(provider !== undefined ? { provider } : {}), ...(model !== undefined ? { model } : {}), ...entry }];
}

export function validPatch(patch: EventOf<'state-delta'>['patch']): boolean {
  for (const op of patch) {
    if (!POINTER.test(op.path)) return false;
    if ((op.op === 'move' || op.op === 'copy') && (op.from === undefined || !POINTER.test(op.from))) return false;
    if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && op.value === undefined) return false;
  }
  return true;
}

/** An AG-UI run outcome carried over from a decoded AG-UI stream (`providerMetadata['ag-ui'].outcome`). */
export function carriedOutcome(pm: ProviderMetadata | undefined): JsonObject | undefined {
  const o = pm?.['ag-ui']?.outcome;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
  if (o.type === 'success') return o;
  if (o.type === 'interrupt' && Array.isArray(o.interrupts) && o.interrupts.length > 0) {
    const ok = o.interrupts.every(
      (i) => typeof i === 'object' && i !== null && !Array.isArray(i) && typeof i.id === 'string' && typeof i.reason === 'string',
    );
    if (ok) return o;
  }
  return undefined;
}

export type Owner = string | undefined;

/** The state of one AG-UI encoder. */
export type EncoderState = ReturnType<typeof createEncoderState>;

/** Creates an encoder's state. */
export function createEncoderState(options: AgUiEncoderOptions) {
  const ns = options.namespace ?? 'switchboard';
  const sendReasoning = options.sendReasoning ?? true;
  const sendSources = options.sendSources ?? true;
  /** The messages the client's apply step builds (it starts from `history`), for MESSAGES_SNAPSHOT. */
  const mirror = options.messagesSnapshot ? createAgUiReducer({ messages: options.history ?? [], warn: () => {} }) : undefined;

  /** Every AG-UI message id handed out in this run or in `history` (ids must be unique across the conversation). */
  const used = new Set<string>((options.history ?? []).map((m) => m.id));
  /** The assistant message that text and tool calls of an owner (main agent or subagent) go to. */
  const current = new Map<Owner, string>();
  const texts = new Map<string, { messageId: string; owner: Owner }>();
  const openTextMessages = new Set<string>();
  const reasoning = new Map<string, { messageId: string; owner: Owner; variant: string }>();
  const tools = new Map<string, { owner: Owner; name: string; streamed: boolean; args: string[]; meta: Record<string, unknown> }>();
  const toolParents = new Map<string, string>();
  const steps = new Map<string, { name: string; owner: Owner }>();
  const stepNames = new Map<Owner, Set<string>>();
  const openSubagents = new Set<string>();
  const knownSubagents = new Set<string>();
  const resultCount = new Map<string, number>();
  /** The approvals and interrupts this run asked for (id → AG-UI Interrupt), for RUN_FINISHED's outcome. */
  const asked = new Map<string, JsonObject>();
  /** Tool calls of an earlier run this run answers (their result needs no call opened). */
  const earlier = new Set<string>();

  const state = {
    started: false,
    ended: false,
    runId: '',
    threadId: '',
    base: '',
    provider: undefined as string | undefined,
    model: undefined as string | undefined,
    fatal: undefined as EventOf<'error'> | undefined,
    lastTotal: undefined as Usage | undefined,
    ts: undefined as number | undefined,
    messageCount: 0,
    stateSent: false,
    stateIsObject: false,
    /** Whether content (text, reasoning, a tool call) came in this run: answers to an earlier run come before it. */
    content: false,
  };
  const s = Object.assign(state, {
    ns,
    sendReasoning,
    sendSources,
    mirror,
    used,
    current,
    texts,
    openTextMessages,
    reasoning,
    tools,
    toolParents,
    steps,
    stepNames,
    openSubagents,
    knownSubagents,
    resultCount,
    asked,
    earlier,
    continues,
    ask,
    waitingOutcome,
    unique,
    scoped,
    messageFor,
    push,
    pushIf,
    startRun,
    names,
    startStep,
    startText,
    endText,
    startReasoning,
    endReasoning,
    startTool,
    endTool,
    endStep,
    closeAll,
    snapshot,
    custom,
    todos,
  });

  /** An answer to an earlier run came (before any content): this run continues the message `base`, which exists. */
  function continues(): void {
    if (!s.content) used.add(s.base);
  }

  /** Notes an approval or interrupt: an AG-UI Interrupt of RUN_FINISHED's outcome if the run ends waiting for it. */
  function ask(e: EventOf<'tool-approval-request'> | EventOf<'interrupt'>): void {
    if (e.type === 'tool-approval-request') {
      const i = clean({ id: e.approvalId, reason: 'tool_approval', message: e.reason, toolCallId: e.toolCallId }) as JsonObject;
      if (e.toolName !== undefined) i.metadata = { toolName: e.toolName };
      asked.set(e.approvalId, i);
      return;
    }
    const i = clean({
      id: e.interruptId,
      reason: e.reason,
      message: e.message,
      toolCallId: e.toolCallId,
      responseSchema: e.responseSchema,
      expiresAt: e.expiresAt,
    }) as JsonObject;
    if (e.value !== undefined) i.metadata = { value: e.value };
    asked.set(e.interruptId, i);
  }

  /**
   * RUN_FINISHED's outcome for a run that ended waiting: `interrupt` with the approvals and interrupts
   * left unanswered, else `success` with the client tool calls left to the client.
   */
  function waitingOutcome(pending: EventOf<'run-finish'>['pending']): JsonObject | undefined {
    if (!pending) return undefined;
    const interrupts: JsonObject[] = [];
    for (const id of pending.approvalIds ?? []) interrupts.push(asked.get(id) ?? { id, reason: 'tool_approval' });
    for (const id of pending.interruptIds ?? []) interrupts.push(asked.get(id) ?? { id, reason: 'input_required' });
    if (interrupts.length) return { type: 'interrupt', interrupts };
    if (pending.toolCallIds?.length) return { type: 'success', pendingToolCallIds: pending.toolCallIds };
    return undefined;
  }

  function unique(id: string): string {
    let out = id;
    for (let k = 2; used.has(out); k++) out = `${id}~${k}`;
    used.add(out);
    return out;
  }

  /** An id scoped to this run: block ids already derived from the run's message id are kept as they are. */
  function scoped(id: string): string {
    return unique(id.startsWith(`${s.base}:`) ? id : `${s.base}:${id}`);
  }

  function messageFor(owner: Owner): string {
    let id = current.get(owner);
    if (id === undefined) {
      // A run that continues a message goes on counting after the ids it already has (as history does).
      do {
        s.messageCount++;
        id = s.messageCount === 1 ? s.base : `${s.base}-${s.messageCount}`;
      } while (used.has(id));
      used.add(id);
      current.set(owner, id);
    }
    return id;
  }

  function push(out: AgUiEvent[], ev: AgUiEvent, owner: Owner, m?: Record<string, unknown>): void {
    if (owner !== undefined) ev.subagentRunId = owner;
    if (m !== undefined) {
      const fields = clean(m);
      ev.metadata = { [ns]: fields ?? {} };
    }
    if (s.ts !== undefined) ev.timestamp = s.ts;
    mirror?.apply(ev);
    out.push(ev);
  }

  /** Like push, but metadata only when there is something to carry. */
  function pushIf(out: AgUiEvent[], ev: AgUiEvent, owner: Owner, m: Record<string, unknown>): void {
    push(out, ev, owner, clean(m) ? m : undefined);
  }

  function startRun(out: AgUiEvent[], e: CanonicalEvent): void {
    s.started = true;
    s.runId = e.runId;
    const start = e.type === 'run-start' ? e : undefined;
    s.base = start?.messageId ?? e.runId;
    s.threadId = options.threadId ?? start?.chatId ?? e.runId;
    s.provider = start?.provider;
    s.model = start?.model;
    const ev: AgUiEvent = { type: 'RUN_STARTED', threadId: s.threadId, runId: s.runId };
    if (start?.parentRunId !== undefined) ev.parentRunId = start.parentRunId;
    push(out, ev, undefined, {
      messageId: start?.messageId,
      chatId: start?.chatId,
      agent: start?.agent,
      provider: start?.provider,
      model: start?.model,
      metadata: start?.metadata,
      providerMetadata: start?.providerMetadata,
    });
  }

  function names(owner: Owner): Set<string> {
    let set = stepNames.get(owner);
    if (!set) {
      set = new Set();
      stepNames.set(owner, set);
    }
    return set;
  }

  function startStep(out: AgUiEvent[], e: EventOf<'step-start'>): void {
    if (steps.has(e.stepId)) return;
    const owner = e.subagentId;
    const open = names(owner);
    let name = e.name !== undefined && !open.has(e.name) ? e.name : e.stepId;
    for (let k = 2; open.has(name); k++) name = `${e.stepId}~${k}`;
    open.add(name);
    steps.set(e.stepId, { name, owner });
    current.delete(owner);
    push(out, { type: 'STEP_STARTED', stepName: name }, owner, {
      stepId: name === e.stepId ? undefined : e.stepId,
      kind: e.kind,
      name: e.name,
      number: e.number,
      model: e.model,
      providerMetadata: e.providerMetadata,
    });
  }

  function startText(out: AgUiEvent[], blockId: string, owner: Owner, pm: ProviderMetadata | undefined): void {
    let messageId = messageFor(owner);
    // Two text blocks open at once cannot share a message (START of an open id is rejected).
    if (openTextMessages.has(messageId)) messageId = scoped(blockId);
    openTextMessages.add(messageId);
    texts.set(blockId, { messageId, owner });
    push(out, { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }, owner, { blockId, providerMetadata: pm });
  }

  function endText(out: AgUiEvent[], blockId: string, pm: ProviderMetadata | undefined): void {
    const t = texts.get(blockId);
    if (!t) return;
    texts.delete(blockId);
    openTextMessages.delete(t.messageId);
    pushIf(out, { type: 'TEXT_MESSAGE_END', messageId: t.messageId }, t.owner, { providerMetadata: pm });
  }

  function startReasoning(
    out: AgUiEvent[],
    e: { blockId: string; variant: string; subagentId?: string; providerMetadata?: ProviderMetadata },
  ): void {
    const owner = e.subagentId;
    // Text after a reasoning block goes to a new assistant message, so the history keeps the order.
    current.delete(owner);
    const messageId = scoped(e.blockId);
    reasoning.set(e.blockId, { messageId, owner, variant: e.variant });
    push(out, { type: 'REASONING_START', messageId }, owner);
    push(out, { type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' }, owner, {
      blockId: e.blockId,
      variant: e.variant,
      providerMetadata: e.providerMetadata,
    });
  }

  function endReasoning(out: AgUiEvent[], blockId: string, pm: ProviderMetadata | undefined): void {
    const r = reasoning.get(blockId);
    if (!r) return;
    reasoning.delete(blockId);
    const encrypted = encryptedReasoningOf(pm);
    if (encrypted !== undefined)
      push(out, { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: r.messageId, encryptedValue: encrypted }, r.owner);
    // The client merges metadata key by key, so the variant is repeated next to the signature.
    push(
      out,
      { type: 'REASONING_MESSAGE_END', messageId: r.messageId },
      r.owner,
      pm ? { variant: r.variant, providerMetadata: pm } : undefined,
    );
    push(out, { type: 'REASONING_END', messageId: r.messageId }, r.owner);
  }

  function startTool(out: AgUiEvent[], e: EventOf<'tool-input-start'> | EventOf<'tool-input-end'>): void {
    const owner = e.subagentId;
    const parent = messageFor(owner);
    const meta: Record<string, unknown> = {
      providerExecuted: e.providerExecuted,
      providerMetadata: e.type === 'tool-input-start' ? e.providerMetadata : undefined,
      // The canonical call had no tool-input-start (its input arrived whole with tool-input-end).
      noStart: e.type === 'tool-input-end' ? true : undefined,
    };
    tools.set(e.toolCallId, { owner, name: e.toolName, streamed: false, args: [], meta });
    toolParents.set(e.toolCallId, parent);
    push(out, { type: 'TOOL_CALL_START', toolCallId: e.toolCallId, toolCallName: e.toolName, parentMessageId: parent }, owner, meta);
  }

  function endTool(out: AgUiEvent[], e: EventOf<'tool-input-end'> | undefined, toolCallId: string): void {
    const t = tools.get(toolCallId);
    if (!t) return;
    tools.delete(toolCallId);
    let input: Json | undefined;
    if (e) {
      if (!t.streamed) {
        // The input arrived whole: send it as one ARGS.
        const text = typeof e.input === 'string' && e.inputError !== undefined ? e.input : JSON.stringify(e.input);
        // `whole` tells the reader this ARGS stands for no canonical delta; the rest repeats the
        // START's metadata, which the client would otherwise replace on the tool call.
        if (text !== '') push(out, { type: 'TOOL_CALL_ARGS', toolCallId, delta: text }, t.owner, { ...t.meta, whole: true });
      } else {
        // The reader parses the streamed text; say so when that would not give the same input.
        const text = t.args.join('');
        let same: boolean;
        if (e.inputError !== undefined) same = e.input === text;
        else {
          try {
            same = JSON.stringify(JSON.parse(text)) === JSON.stringify(e.input);
          } catch {
            same = false;
          }
        }
        if (!same) input = e.input;
      }
      const encrypted = encryptedReasoningOf(e.providerMetadata);
      if (encrypted !== undefined)
        push(out, { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: toolCallId, encryptedValue: encrypted }, t.owner);
    }
    pushIf(out, { type: 'TOOL_CALL_END', toolCallId }, t.owner, {
      toolName: e && e.toolName !== t.name ? e.toolName : undefined,
      providerExecuted: e?.providerExecuted,
      inputError: e?.inputError,
      input,
      providerMetadata: e?.providerMetadata,
    });
  }

  function endStep(out: AgUiEvent[], stepId: string, e?: EventOf<'step-finish'>): void {
    const step = steps.get(stepId);
    if (!step) return;
    steps.delete(stepId);
    names(step.owner).delete(step.name);
    current.delete(step.owner);
    pushIf(out, { type: 'STEP_FINISHED', stepName: step.name }, step.owner, {
      stepId: step.name === stepId ? undefined : stepId,
      finishReason: e?.finishReason,
      rawFinishReason: e?.rawFinishReason,
      usage: e?.usage,
      durationMs: e?.durationMs,
      providerMetadata: e?.providerMetadata,
    });
  }

  /** Closes everything still open, as RUN_FINISHED requires. */
  function closeAll(out: AgUiEvent[]): void {
    for (const blockId of [...texts.keys()]) endText(out, blockId, undefined);
    for (const blockId of [...reasoning.keys()]) endReasoning(out, blockId, undefined);
    for (const id of [...tools.keys()]) endTool(out, undefined, id);
    for (const stepId of [...steps.keys()]) endStep(out, stepId);
    for (const id of [...openSubagents]) {
      openSubagents.delete(id);
      push(out, { type: 'SUBAGENT_FINISHED', subagentRunId: id }, undefined);
    }
  }

  function snapshot(out: AgUiEvent[]): void {
    if (!mirror) return;
    const messages = structuredClone(mirror.messages) as AgUiMessage[];
    push(out, { type: 'MESSAGES_SNAPSHOT', messages }, undefined, { derived: true });
  }

  function custom(out: AgUiEvent[], e: CanonicalEvent, kind: string): void {
    const { type: _t, runId: _r, seq: _s, ts: _ts, subagentId, ...value } = e;
    push(out, { type: 'CUSTOM', name: `${ns}.${kind}`, value }, subagentId);
  }

  function todos(out: AgUiEvent[], e: EventOf<'todos'>): void {
    const m = { event: 'todos', change: e.change };
    if (s.stateSent && s.stateIsObject) {
      // `add` on an object member replaces it, so this works whether /todos exists or not.
      push(out, { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/todos', value: e.todos }] }, e.subagentId, m);
    } else {
      push(out, { type: 'STATE_SNAPSHOT', snapshot: { todos: e.todos } }, e.subagentId, m);
      s.stateSent = true;
      s.stateIsObject = true;
    }
  }

  return s;
}
