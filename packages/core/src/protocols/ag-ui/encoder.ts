/**
 * Encoder for the AG-UI protocol (1.0; what `@ag-ui/client`'s `HttpAgent` reads). Canonical events
 * in, AG-UI event objects out; `sse.ts` frames them as `data: <json>\n\n` exactly like
 * `@ag-ui/encoder`'s `EventEncoder.encodeSSE` (no `[DONE]`).
 *
 * Shape of the output (see docs/protocols/ag-ui.md for the full table):
 * - one AG-UI run: RUN_STARTED first, RUN_FINISHED (or RUN_ERROR) last, with every text message,
 *   reasoning message, tool call, step and subagent closed before RUN_FINISHED as the official
 *   verifier requires;
 * - text and tool calls go to an assistant message (`messageId` of the run for the first one,
 *   `<messageId>-<n>` after a step boundary, a reasoning block or a tool result), so the client's
 *   apply step builds the history a model would see: assistant → tool → assistant;
 * - each reasoning block is its own `reasoning` message; its variant (thinking / processing)
 *   travels in `metadata[namespace].variant`, signatures / encrypted reasoning also as
 *   REASONING_ENCRYPTED_VALUE;
 * - canonical fields AG-UI has no field for travel in `metadata[namespace]`, so that the AG-UI
 *   reader (`reader.ts`) turns the stream back into the same canonical events.
 */
import type { Machine } from '../../machine.ts';
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
  /**
   * The client is an AG-UI client before 1.0 (it sent no `protocolVersion`; CopilotKit pins
   * `@ag-ui/client` 0.0.x): RUN_FINISHED then carries only the outcomes its strict schema accepts —
   * `success` without `pendingToolCallIds`, `interrupt` — and a cancelled run none (a 0.0.x client
   * reads a RUN_FINISHED without an outcome as a success). Default false: the 1.x outcomes.
   */
  legacyOutcomes?: boolean;
}

/** RFC 6901 JSON Pointer, as `@ag-ui/core`'s `JsonPointerSchema` checks it. */
const POINTER = /^(\/([^/~]|~[01])*)*$/;

/** Drops undefined fields; undefined when nothing is left. */
function clean(fields: Record<string, unknown>): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k in fields) {
    const v = fields[k];
    if (v === undefined) continue;
    out ??= {};
    out[k] = v as Json;
  }
  return out;
}

export /** Canonical usage counts → AG-UI TokenUsage fields. */
const COUNTS: readonly [keyof Usage, string][] = [
  ['inputTokens', 'inputTokens'],
  ['outputTokens', 'outputTokens'],
  ['totalTokens', 'totalTokens'],
  ['reasoningTokens', 'reasoningTokens'],
  ['cacheReadTokens', 'cachedInputTokens'],
  ['cacheWriteTokens', 'cacheWriteInputTokens'],
];

/** A canonical usage as an AG-UI `TokenUsage[]` (counts must be non-negative integers). */
function tokenUsage(u: Usage | undefined, provider: string | undefined, model: string | undefined): JsonObject[] | undefined {
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

/** True when every operation of a patch passes `@ag-ui/core`'s checks. */
function validPatch(patch: EventOf<'state-delta'>['patch']): boolean {
  for (const op of patch) {
    if (!POINTER.test(op.path)) return false;
    if ((op.op === 'move' || op.op === 'copy') && (op.from === undefined || !POINTER.test(op.from))) return false;
    if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && op.value === undefined) return false;
  }
  return true;
}

/** An AG-UI run outcome carried over from a decoded AG-UI stream (`providerMetadata['ag-ui'].outcome`). */
function carriedOutcome(pm: ProviderMetadata | undefined): JsonObject | undefined {
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

/** Who a message belongs to: the main agent (undefined) or a subagent id. */
type Owner = string | undefined;
/** An open text block: the AG-UI text message it streams into, and its subagent. */
interface OpenText {
  messageId: string;
  owner: Owner;
}

/** Events that are content of the run (answers to an earlier run come before any), as the AI SDK encoder counts them. */
const CONTENT: ReadonlySet<CanonicalEvent['type']> = new Set([
  'step-start',
  'text-start',
  'text-delta',
  'reasoning-start',
  'reasoning-delta',
  'tool-input-start',
  'tool-input-end',
]);

/** Response headers of the AG-UI SSE transport (`EventEncoder.getContentType()` is `text/event-stream`). */
export const AG_UI_SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Creates an AG-UI encoder (push canonical events, get AG-UI events). */
export function createAgUiEncoder(options: AgUiEncoderOptions = {}): Machine<CanonicalEvent, AgUiEvent> {
  const ns = options.namespace ?? 'switchboard';
  const sendReasoning = options.sendReasoning ?? true;
  const sendSources = options.sendSources ?? true;
  const legacy = options.legacyOutcomes ?? false;
  /** The messages the client's apply step builds (it starts from `history`), for MESSAGES_SNAPSHOT. */
  const mirror = options.messagesSnapshot ? createAgUiReducer({ messages: options.history ?? [], warn: () => {} }) : undefined;

  /** Every AG-UI message id handed out in this run or in `history` (ids must be unique across the conversation). */
  const used = new Set<string>((options.history ?? []).map((m) => m.id));
  /** The assistant message that text and tool calls of an owner (main agent or subagent) go to. */
  const current = new Map<Owner, string>();
  /** The open text blocks → their AG-UI message, and the text messages open on the wire. */
  const texts = new Map<string, OpenText>();
  const openTextMessages = new Set<string>();
  /** The reasoning blocks → their reasoning message (opened on the first delta). */
  const reasoning = new Map<
    string,
    { messageId: string; owner: Owner; variant: string; pm: ProviderMetadata | undefined; ts: number | undefined; open: boolean }
  >();
  /** The open tool calls (args collected when not streamed), and each call's parent message. */
  const tools = new Map<string, { owner: Owner; name: string; streamed: boolean; args: string[]; meta: Record<string, unknown> }>();
  const toolParents = new Map<string, string>();
  /** The open steps, and the step names open per owner (AG-UI steps are matched by name). */
  const steps = new Map<string, { name: string; owner: Owner }>();
  const stepNames = new Map<Owner, Set<string>>();
  /** Subagents open now / ever started; results per tool call (for unique result message ids). */
  const openSubagents = new Set<string>();
  const knownSubagents = new Set<string>();
  const resultCount = new Map<string, number>();
  /** The approvals and interrupts this run asked for (id → AG-UI Interrupt), for RUN_FINISHED's outcome. */
  const asked = new Map<string, JsonObject>();
  /** Tool calls of an earlier run this run answers (their result needs no call opened). */
  const earlier = new Set<string>();

  /** RUN_STARTED was sent / the run is over (RUN_FINISHED or RUN_ERROR): later events add nothing. */
  let started = false;
  let ended = false;
  /** The run's AG-UI ids, and the base of its message ids. */
  let runId = '';
  let threadId = '';
  let base = '';
  /** The run's provider and model (TokenUsage entries carry them). */
  let provider: string | undefined;
  let model: string | undefined;
  /** The fatal error the run ends with (RUN_ERROR). */
  let fatal: EventOf<'error'> | undefined;
  /** The last total usage, for RUN_FINISHED. */
  let lastTotal: Usage | undefined;
  /** The current event's time, rounded (AG-UI `timestamp`). */
  let ts: number | undefined;
  /** Assistant messages opened (for `<messageId>-<n>`). */
  let messageCount = 0;
  /** A STATE_SNAPSHOT was sent, and whether that state is an object (a JSON Patch needs one). */
  let stateSent = false;
  let stateIsObject = false;
  /** Whether content (text, reasoning, a tool call) came in this run: answers to an earlier run come before it. */
  let contentSeen = false;

  /** An answer to an earlier run came (before any content): this run continues the message `base`, which exists. */
  function continues(): void {
    if (!contentSeen) used.add(base);
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
    if (pending.toolCallIds?.length) return legacy ? { type: 'success' } : { type: 'success', pendingToolCallIds: pending.toolCallIds };
    return undefined;
  }

  /** An outcome as the client's schema accepts it: a 0.0.x client knows `success` (bare) and `interrupt`. */
  function forClient(outcome: JsonObject): JsonObject {
    if (!legacy || outcome.type === 'interrupt') return outcome;
    return { type: 'success' };
  }

  function unique(id: string): string {
    let out = id;
    for (let k = 2; used.has(out); k++) out = `${id}~${k}`;
    used.add(out);
    return out;
  }

  /** An id scoped to this run: block ids already derived from the run's message id are kept as they are. */
  function scoped(id: string): string {
    return unique(id.startsWith(`${base}:`) ? id : `${base}:${id}`);
  }

  function messageFor(owner: Owner): string {
    let id = current.get(owner);
    if (id === undefined) {
      // A run that continues a message goes on counting after the ids it already has (as history does).
      do {
        messageCount++;
        id = messageCount === 1 ? base : `${base}-${messageCount}`;
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
    if (ts !== undefined) ev.timestamp = ts;
    mirror?.apply(ev);
    out.push(ev);
  }

  /** Like push, but metadata only when there is something to carry. */
  function pushIf(out: AgUiEvent[], ev: AgUiEvent, owner: Owner, m: Record<string, unknown>): void {
    push(out, ev, owner, clean(m) ? m : undefined);
  }

  function startRun(out: AgUiEvent[], e: CanonicalEvent): void {
    started = true;
    runId = e.runId;
    const start = e.type === 'run-start' ? e : undefined;
    base = start?.messageId ?? e.runId;
    threadId = options.threadId ?? start?.chatId ?? e.runId;
    provider = start?.provider;
    model = start?.model;
    const ev: AgUiEvent = { type: 'RUN_STARTED', threadId: threadId, runId: runId };
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

  function startText(out: AgUiEvent[], blockId: string, owner: Owner, pm: ProviderMetadata | undefined): OpenText {
    let messageId = messageFor(owner);
    // Two text blocks open at once cannot share a message (START of an open id is rejected).
    if (openTextMessages.has(messageId)) messageId = scoped(blockId);
    openTextMessages.add(messageId);
    const text = { messageId, owner };
    texts.set(blockId, text);
    push(out, { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }, owner, { blockId, providerMetadata: pm });
    return text;
  }

  function endText(out: AgUiEvent[], blockId: string, pm: ProviderMetadata | undefined): void {
    const t = texts.get(blockId);
    if (!t) return;
    texts.delete(blockId);
    openTextMessages.delete(t.messageId);
    pushIf(out, { type: 'TEXT_MESSAGE_END', messageId: t.messageId }, t.owner, { providerMetadata: pm });
  }

  /**
   * A reasoning block is opened on the wire only once it has text (or, at its end, an encrypted value):
   * an empty thinking block makes no REASONING_* events and no empty reasoning message. It does not end
   * the assistant message: the text and tool calls of one provider response share one message (one
   * `parentMessageId`), as pydantic-ai's AG-UI adapter has it.
   */
  function startReasoning(
    _out: AgUiEvent[],
    e: { blockId: string; variant: string; subagentId?: string; providerMetadata?: ProviderMetadata },
  ): void {
    const messageId = scoped(e.blockId);
    reasoning.set(e.blockId, { messageId, owner: e.subagentId, variant: e.variant, pm: e.providerMetadata, ts: ts, open: false });
  }

  /** Sends the START events of a reasoning block the first time it has something to show. */
  function openReasoning(out: AgUiEvent[], blockId: string): void {
    const r = reasoning.get(blockId);
    if (!r || r.open) return;
    r.open = true;
    // Stamped with the block's start, as if sent then (the reader gives reasoning-start that ts back).
    const now = ts;
    ts = r.ts;
    push(out, { type: 'REASONING_START', messageId: r.messageId }, r.owner);
    push(out, { type: 'REASONING_MESSAGE_START', messageId: r.messageId, role: 'reasoning' }, r.owner, {
      blockId,
      variant: r.variant,
      providerMetadata: r.pm,
    });
    ts = now;
  }

  function endReasoning(out: AgUiEvent[], blockId: string, pm: ProviderMetadata | undefined): void {
    const r = reasoning.get(blockId);
    if (!r) return;
    const encrypted = encryptedReasoningOf(pm);
    // Redacted thinking carries its data from the start: not empty either.
    if (!r.open && encrypted === undefined && encryptedReasoningOf(r.pm) === undefined) {
      reasoning.delete(blockId);
      return;
    }
    openReasoning(out, blockId);
    reasoning.delete(blockId);
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
    if (stateSent && stateIsObject) {
      // `add` on an object member replaces it, so this works whether /todos exists or not.
      push(out, { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/todos', value: e.todos }] }, e.subagentId, m);
    } else {
      push(out, { type: 'STATE_SNAPSHOT', snapshot: { todos: e.todos } }, e.subagentId, m);
      stateSent = true;
      stateIsObject = true;
    }
  }

  // --- one canonical event ------------------------------------------------------------------

  /** One canonical event → AG-UI events: the mapping table of docs/protocols/ag-ui.md. */
  function encode(e: CanonicalEvent, out: AgUiEvent[]): void {
    if (!started && e.type !== 'run-start') startRun(out, e);
    const owner = e.subagentId;
    if (CONTENT.has(e.type)) contentSeen = true;
    switch (e.type) {
      case 'run-start':
        if (!started) startRun(out, e);
        return;
      case 'step-start':
        startStep(out, e);
        return;
      case 'step-finish':
        if (!steps.has(e.stepId)) startStep(out, { ...e, type: 'step-start', kind: 'other' } as EventOf<'step-start'>);
        endStep(out, e.stepId, e);
        return;
      case 'text-start':
        if (!texts.has(e.blockId)) startText(out, e.blockId, owner, e.providerMetadata);
        return;
      case 'text-delta': {
        const t = texts.get(e.blockId) ?? startText(out, e.blockId, owner, undefined);
        push(out, { type: 'TEXT_MESSAGE_CONTENT', messageId: t.messageId, delta: e.delta }, t.owner);
        return;
      }
      case 'text-end':
        return endText(out, e.blockId, e.providerMetadata);
      case 'citation':
        return custom(out, e, 'citation');
      case 'reasoning-start':
        if (sendReasoning && !reasoning.has(e.blockId)) startReasoning(out, e);
        return;
      case 'reasoning-delta': {
        if (!sendReasoning) return;
        if (!reasoning.has(e.blockId)) startReasoning(out, { blockId: e.blockId, variant: 'thinking', subagentId: owner });
        const r = reasoning.get(e.blockId) as { messageId: string; owner: Owner; open: boolean };
        if (e.delta === '' && !r.open) return; // nothing to show yet
        openReasoning(out, e.blockId);
        push(out, { type: 'REASONING_MESSAGE_CONTENT', messageId: r.messageId, delta: e.delta }, r.owner);
        return;
      }
      case 'reasoning-end':
        return endReasoning(out, e.blockId, e.providerMetadata);
      case 'tool-input-start':
        if (!tools.has(e.toolCallId)) startTool(out, e);
        return;
      case 'tool-input-delta': {
        const t = tools.get(e.toolCallId);
        if (!t) return; // no name to open a call with; the tool-input-end sends the whole input
        t.streamed = true;
        t.args.push(e.delta);
        push(out, { type: 'TOOL_CALL_ARGS', toolCallId: e.toolCallId, delta: e.delta }, t.owner);
        return;
      }
      case 'tool-input-end':
        if (!tools.has(e.toolCallId)) startTool(out, e);
        endTool(out, e, e.toolCallId);
        return;
      case 'tool-output':
      case 'tool-error': {
        const unseen = !toolParents.has(e.toolCallId) && !tools.has(e.toolCallId);
        // An answer to a call of an earlier run (a continuation): the client has the call.
        if (unseen && !contentSeen) {
          earlier.add(e.toolCallId);
          continues();
        }
        // A frontend tool's output the client sent (the gateway marks it): the client has its tool message.
        if (unseen && earlier.has(e.toolCallId) && e.providerMetadata?.[ns]?.fromClient === true) return;
        if (unseen && !earlier.has(e.toolCallId)) {
          // A result for a call the stream never showed (a provider-run tool): open and close the call
          // first, as the AI SDK encoder does, so the client has a call to attach the result to.
          const call: EventOf<'tool-input-end'> = { ...e, type: 'tool-input-end', toolName: e.toolName ?? 'unknown', input: {} };
          startTool(out, call);
          endTool(out, call, e.toolCallId);
        }
        const count = (resultCount.get(e.toolCallId) ?? 0) + 1;
        resultCount.set(e.toolCallId, count);
        const messageId = unique(`${base}:${e.toolCallId}:result${count > 1 ? `:${count}` : ''}`);
        let content: string;
        let m: Record<string, unknown>;
        if (e.type === 'tool-output') {
          const json = typeof e.output !== 'string';
          content = json ? JSON.stringify(e.output) : (e.output as string);
          m = { toolName: e.toolName, json: json || undefined, preliminary: e.preliminary, providerExecuted: e.providerExecuted };
        } else {
          content = e.error;
          m = { error: true, toolName: e.toolName, output: e.output, providerExecuted: e.providerExecuted };
        }
        m.providerMetadata = e.providerMetadata;
        push(out, { type: 'TOOL_CALL_RESULT', messageId, toolCallId: e.toolCallId, content, role: 'tool' }, owner, m);
        // Text after a tool result is a new assistant message (assistant → tool → assistant); a result
        // the provider ran inside the same response stays in that response's message.
        if (!e.providerExecuted) current.delete(owner);
        return;
      }
      case 'tool-approval-request':
      case 'interrupt':
        // Asked here, carried by RUN_FINISHED's outcome when the run ends waiting for it.
        ask(e);
        return;
      case 'tool-approval-response':
        if (e.toolCallId !== undefined && !toolParents.has(e.toolCallId) && !tools.has(e.toolCallId)) earlier.add(e.toolCallId);
        continues();
        return;
      case 'interrupt-response':
        continues();
        return;
      case 'client-tool-call':
        // The client sent the answers; a client tool call is RUN_FINISHED's pendingToolCallIds.
        return;
      case 'todos':
        todos(out, e);
        return;
      case 'state-snapshot':
        push(out, { type: 'STATE_SNAPSHOT', snapshot: e.state }, owner);
        stateSent = true;
        stateIsObject = typeof e.state === 'object' && e.state !== null && !Array.isArray(e.state);
        return;
      case 'state-delta':
        if (!validPatch(e.patch)) {
          custom(out, e, 'state-delta');
          return;
        }
        push(out, { type: 'STATE_DELTA', delta: e.patch }, owner);
        if (e.patch.some((op) => op.path === '')) stateIsObject = false;
        return;
      case 'subagent-start': {
        if (openSubagents.has(e.subagentId)) return;
        const ev: AgUiEvent = { type: 'SUBAGENT_STARTED', subagentRunId: e.subagentId, name: e.name };
        if (e.task !== undefined) ev.description = e.task;
        const parentKnown = e.parentSubagentId !== undefined && knownSubagents.has(e.parentSubagentId);
        if (parentKnown) ev.parentSubagentRunId = e.parentSubagentId;
        if (e.parentToolCallId !== undefined) {
          ev.parentToolCallId = e.parentToolCallId;
          const parentMessage = toolParents.get(e.parentToolCallId);
          if (parentMessage !== undefined) ev.parentMessageId = parentMessage;
        }
        openSubagents.add(e.subagentId);
        knownSubagents.add(e.subagentId);
        // Always carries metadata: it marks parentMessageId as ours (derived, not input).
        push(out, ev, undefined, { parentSubagentId: parentKnown ? undefined : e.parentSubagentId });
        return;
      }
      case 'subagent-finish': {
        if (!openSubagents.has(e.subagentId)) encode({ ...e, type: 'subagent-start', name: e.subagentId } as CanonicalEvent, out);
        openSubagents.delete(e.subagentId);
        if (e.error !== undefined)
          pushIf(out, { type: 'SUBAGENT_ERROR', subagentRunId: e.subagentId, message: e.error }, undefined, { result: e.result });
        else {
          const ev: AgUiEvent = { type: 'SUBAGENT_FINISHED', subagentRunId: e.subagentId };
          if (e.result !== undefined) ev.result = e.result;
          push(out, ev, undefined);
        }
        return;
      }
      case 'source':
        if (sendSources) custom(out, e, 'source');
        return;
      case 'file':
      case 'status':
        custom(out, e, e.type);
        return;
      case 'usage':
        if (e.scope === 'total') lastTotal = e.usage;
        custom(out, e, 'usage');
        return;
      case 'error':
        if (e.fatal && !fatal) fatal = e;
        custom(out, e, 'error');
        return;
      case 'custom':
        push(out, { type: 'CUSTOM', name: e.name, value: e.value }, owner);
        return;
      case 'raw':
        // Always with metadata: it tells the reader this RAW is a canonical raw event, not a producer's.
        push(out, { type: 'RAW', event: e.event, source: e.source }, owner, { reason: e.reason, where: e.where });
        return;
      case 'run-finish': {
        const usage = tokenUsage(e.usage ?? lastTotal, provider, model);
        const m = {
          finishReason: e.finishReason,
          rawFinishReason: e.rawFinishReason,
          usage: e.usage,
          pending: e.pending,
          providerMetadata: e.providerMetadata,
        };
        ended = true;
        if (fatal || e.finishReason === 'error') {
          // RUN_ERROR needs nothing closed (the verifier only checks RUN_FINISHED); blocks the
          // canonical stream closed before run-finish are already closed.
          snapshot(out);
          const ev: AgUiEvent = { type: 'RUN_ERROR', message: fatal?.message ?? e.rawFinishReason ?? 'The run failed.' };
          if (fatal?.code !== undefined) ev.code = fatal.code;
          if (usage) ev.usage = usage;
          push(out, ev, undefined, m);
          return;
        }
        closeAll(out);
        snapshot(out);
        const ev: AgUiEvent = {
          type: 'RUN_FINISHED',
          threadId: threadId,
          runId: runId,
          outcome: forClient(waitingOutcome(e.pending) ?? carriedOutcome(e.providerMetadata) ?? { type: 'success' }),
        };
        const result = e.providerMetadata?.['ag-ui']?.result;
        if (result !== undefined && result !== null) ev.result = result;
        if (usage) ev.usage = usage;
        push(out, ev, undefined, m);
        return;
      }
      case 'run-abort':
        // AG-UI's own word for a run stopped by whoever ran it, without failing: outcome cancelled.
        ended = true;
        closeAll(out);
        snapshot(out);
        push(
          out,
          { type: 'RUN_FINISHED', threadId: threadId, runId: runId, ...(legacy ? {} : { outcome: { type: 'cancelled' } }) },
          undefined,
          {
            abort: true,
            reason: e.reason,
          },
        );
        return;
    }
  }

  return {
    push(e) {
      if (ended) return [];
      ts = Number.isFinite(e.ts) ? Math.round(e.ts) : undefined;
      const out: AgUiEvent[] = [];
      encode(e, out);
      return out;
    },
    end() {
      return [];
    },
  };
}
