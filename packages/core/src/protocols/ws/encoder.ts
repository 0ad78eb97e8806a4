/**
 * Encoder for the WebSocket `agent:event` contract (what a Socket.IO server sends as
 * `socket.emit('agent:event', event)`). Canonical events in, AgentEvent objects out; a server emits
 * each frame as is, `switchboard convert --to ws` writes one per line.
 *
 * - session_start first; thinking_chunk / message_chunk while a block streams (transient); thinking /
 *   message with the block's accumulated content when it ends (parts joined once: O(total));
 * - tool_use once per tool_call_id, when its input is complete (as the contract's
 *   `emittedToolUseIds` does), and one final tool_result per tool_call_id;
 * - complete last, with `stop_reason` (Anthropic vocabulary) and the run's usage with the cache tokens
 *   and the provider's extras (`service_tier`, …): the run-finish's, else the last run-level `usage`
 *   total (agents that report usage apart from the finish, flagged `derivedUsage`), as the contract's
 *   `complete` carries it;
 * - envelope: `eventIndex` (per session, from 0, every frame), `blockIndex` (per message/turn, per
 *   content block), `sequenceNumber` (per session, strictly increasing: from `options.sequenceNumber`,
 *   by default the canonical `seq` of the event), `persistenceState` (`transient` for chunks,
 *   `persisted` when a sequenceNumber is known, `pending` otherwise);
 * - every other canonical kind travels as an extension frame (step_start, step_finish, source, file,
 *   todos, subagent_start / subagent_finish, usage, status, state_snapshot / state_delta, custom, raw);
 *   processing reasoning is a thinking block with `variant: 'processing'`;
 * - a person in the loop: tool_approval_request / tool_approval_response, client_tool_call, interrupt /
 *   interrupt_response (snake_case fields like tool_use), and `complete.pending` for a run that ends waiting.
 * See docs/protocols/ws.md for the table both ways and what is lost; `reader.ts` reads it back.
 */

import { type Machine, writeMachine } from '../../machine.ts';
import type { CanonicalEvent, Citation, FinishReason, JsonObject, ProviderMetadata, Usage } from '../../model/events.ts';
import { withoutUndefined } from '../../model/fields.ts';
import type { WsCitation, WsEvent, WsUsage } from './schema.ts';

export type { WsEvent } from './schema.ts';

export interface WsEncoderOptions {
  /** `sessionId` of every frame. Default: the run's `chatId` (unless empty), else its run id. */
  sessionId?: string;
  /** `userId` of session_start. */
  userId?: string;
  /**
   * The sequenceNumber of the frames a canonical event produces (an event store's counter). Called
   * once per event that produces a non-chunk frame; undefined → the frame is `pending`. Default: the
   * event's canonical `seq`. A number not greater than the previous one is not used (the frame is
   * `pending`), so sequenceNumber always increases.
   */
  sequenceNumber?: (event: CanonicalEvent) => number | undefined;
  /** eventIndex of the first frame, for a session that spans several runs. Default 0. */
  firstEventIndex?: number;
  /** Also send the prototype's camelCase names (toolName, toolUseId, args, success, stopReason). */
  aliases?: boolean;
}

/** The Anthropic stop_reason for a canonical finish reason, when the provider gave none. */
const STOP_REASONS: Partial<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
};

/** The prototype's `complete.reason` for a canonical finish reason. */
function completeReason(f: FinishReason): 'success' | 'error' | 'max_turns' {
  return f === 'error' || f === 'content-filter' ? 'error' : f === 'length' ? 'max_turns' : 'success';
}

const USAGE_KEYS = new Set([
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'reasoning_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'cost_usd',
  'raw',
]);

/** Canonical usage in Anthropic's vocabulary: `input_tokens` without the cached ones; the provider's extras beside. */
export function toWsUsage(u: Usage): WsUsage {
  const out: WsUsage = {};
  const read = u.cacheReadTokens;
  const write = u.cacheWriteTokens;
  if (u.inputTokens !== undefined) out.input_tokens = u.inputTokens - (read ?? 0) - (write ?? 0);
  if (u.outputTokens !== undefined) out.output_tokens = u.outputTokens;
  if (write !== undefined) out.cache_creation_input_tokens = write;
  if (read !== undefined) out.cache_read_input_tokens = read;
  if (u.totalTokens !== undefined) out.total_tokens = u.totalTokens;
  if (u.reasoningTokens !== undefined) out.reasoning_tokens = u.reasoningTokens;
  if (u.costUsd !== undefined) out.cost_usd = u.costUsd;
  const raw = u.raw;
  if (raw !== undefined) {
    // An Anthropic-style usage object: its extras (service_tier, cache_creation, server_tool_use, …) beside.
    if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && ('input_tokens' in raw || 'output_tokens' in raw)) {
      for (const k in raw) {
        if (USAGE_KEYS.has(k)) continue;
        // The one extra the contract types (a string or null): any other service_tier stays in raw only.
        if (k === 'service_tier' && typeof raw[k] !== 'string' && raw[k] !== null) continue;
        out[k] = raw[k];
      }
    }
    out.raw = raw;
  }
  return out;
}

const RANGE_KEYS: Record<string, [string, string]> = {
  page_location: ['start_page_number', 'end_page_number'],
  content_block_location: ['start_block_index', 'end_block_index'],
};

/** A canonical citation as Anthropic's citation object, with the canonical `kind` and the provider's `raw`. */
export function toWsCitation(c: Citation): WsCitation {
  const raw = c.raw;
  const rawType = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && typeof raw.type === 'string' ? raw.type : undefined;
  const type = rawType ?? (c.kind === 'url' ? 'web_search_result_location' : 'char_location');
  const out: WsCitation = { type, kind: c.kind };
  if (c.citedText !== undefined) out.cited_text = c.citedText;
  if (c.url !== undefined) out.url = c.url;
  if (c.title !== undefined) {
    if (c.kind === 'url') out.title = c.title;
    else out.document_title = c.title;
  }
  if (c.documentIndex !== undefined) out.document_index = c.documentIndex;
  const [start, end] = RANGE_KEYS[type] ?? ['start_char_index', 'end_char_index'];
  if (c.startIndex !== undefined) out[start] = c.startIndex;
  if (c.endIndex !== undefined) out[end] = c.endIndex;
  if (raw !== undefined) out.raw = raw;
  return out;
}

/** stop_reason of a finish: the provider's value, else the Anthropic word for the canonical reason (flagged). */
function stopReason(finish: FinishReason | undefined, raw: string | undefined, out: Record<string, unknown>): void {
  if (raw !== undefined) out.stop_reason = raw;
  else if (finish !== undefined) {
    out.stop_reason = STOP_REASONS[finish] ?? null;
    out.derivedStopReason = true;
  }
  if (finish !== undefined) out.finishReason = finish;
}

function isoTime(ts: number): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
}

interface BlockState {
  kind: 'text' | 'reasoning';
  index: number;
  messageId: string;
  parts: string[];
  /** Every citation of the block, and those not yet sent on a chunk. */
  citations: WsCitation[];
  pending: number;
  variant?: 'processing';
  startPm?: ProviderMetadata;
  /** Whether a frame of the block went out (the first one carries startProviderMetadata). */
  sent: boolean;
  subagentId?: string;
}

interface ToolState {
  index: number;
  messageId: string;
  startPm?: ProviderMetadata;
  providerExecuted?: boolean;
}

/** Creates the WebSocket `agent:event` encoder (push canonical events, get AgentEvent frames). */
export function createWsEncoder(options: WsEncoderOptions = {}): Machine<CanonicalEvent, WsEvent> {
  const aliases = options.aliases === true;
  let sessionId = options.sessionId;
  let runMessageId: string | undefined;
  /** Open steps (a subagent's nest inside its parent's), each with its block counter; outside steps, `outside`. */
  const steps: { id: string; blocks: number }[] = [];
  const outside = { blocks: 0 };
  let eventIndex = options.firstEventIndex ?? 0;
  let lastSequence = -Infinity;
  let ended = false;
  /** The last run-level `usage` total: `complete` carries it when the run-finish has no usage. */
  let lastTotal: Usage | undefined;
  const blocks = new Map<string, BlockState>();
  const tools = new Map<string, ToolState>();
  const toolNames = new Map<string, string>();
  const emittedToolUseIds = new Set<string>();
  const emittedToolResultIds = new Set<string>();

  function encode(e: CanonicalEvent, out: WsEvent[]): void {
    const timestamp = isoTime(e.ts);
    let k = 0;
    let sequence: number | undefined | null = null;
    // A session id is never empty (the contract's min(1)): an empty chat id falls back to the run's.
    sessionId ??= (e.type === 'run-start' && e.chatId) || e.runId;
    const session = sessionId;

    /** Appends one frame: `body` first, then the envelope (`owner`: the subagent whose frame it is). */
    const send = (f: Record<string, unknown>, transient = false, owner = e.subagentId): void => {
      f.eventId = k === 0 ? `${e.runId}:${e.seq}` : `${e.runId}:${e.seq}.${k}`;
      k++;
      f.timestamp = timestamp;
      f.sessionId = session;
      f.eventIndex = eventIndex++;
      if (transient) f.persistenceState = 'transient';
      else {
        // The event's sequence number goes to its first persisted frame, if it keeps the order.
        if (sequence === null) sequence = options.sequenceNumber ? options.sequenceNumber(e) : e.seq;
        if (sequence !== undefined && Number.isInteger(sequence) && sequence > lastSequence) {
          f.sequenceNumber = sequence;
          lastSequence = sequence;
          f.persistenceState = 'persisted';
          sequence = undefined;
        } else f.persistenceState = 'pending';
      }
      if (owner !== undefined) f.subagentId = owner;
      out.push(f as WsEvent);
    };

    const messageId = (): string => steps.at(-1)?.id ?? runMessageId ?? e.runId;
    const nextBlockIndex = (): number => (steps.at(-1) ?? outside).blocks++;

    const openBlock = (id: string, kind: 'text' | 'reasoning', startPm?: ProviderMetadata): BlockState => {
      const b: BlockState = { kind, index: nextBlockIndex(), messageId: messageId(), parts: [], citations: [], pending: 0, sent: false };
      if (startPm) b.startPm = startPm;
      if (e.subagentId !== undefined) b.subagentId = e.subagentId;
      blocks.set(id, b);
      return b;
    };

    const blockFields = (id: string, b: BlockState, body: Record<string, unknown>): void => {
      body.blockIndex = b.index;
      body.messageId = b.messageId;
      body.blockId = id;
      if (!b.sent && b.startPm) body.startProviderMetadata = b.startPm;
      b.sent = true;
    };

    /** The final frame of a block: thinking / message with the accumulated content. */
    const closeBlock = (id: string, b: BlockState, pm: ProviderMetadata | undefined): void => {
      blocks.delete(id);
      const body: Record<string, unknown> =
        b.kind === 'text'
          ? { type: 'message', content: b.parts.join(''), role: 'assistant' }
          : { type: 'thinking', content: b.parts.join('') };
      if (b.kind === 'text' && b.citations.length > 0) body.citations = b.citations;
      if (b.variant) body.variant = b.variant;
      blockFields(id, b, body);
      if (pm) body.providerMetadata = pm;
      send(body, false, b.subagentId);
    };

    const closeAll = (): void => {
      for (const [id, b] of blocks) closeBlock(id, b, undefined);
    };

    switch (e.type) {
      case 'run-start': {
        runMessageId = e.messageId;
        const modelConfig: Record<string, string> = {};
        if (e.model !== undefined) modelConfig.model = e.model;
        if (e.provider !== undefined) modelConfig.provider = e.provider;
        const body: Record<string, unknown> = { type: 'session_start' };
        if (options.userId !== undefined) body.userId = options.userId;
        body.modelConfig = modelConfig;
        body.messageId = e.messageId;
        if (e.chatId !== undefined) body.chatId = e.chatId;
        if (e.parentRunId !== undefined) body.parentRunId = e.parentRunId;
        if (e.agent !== undefined) body.agent = e.agent;
        if (e.metadata !== undefined) body.metadata = e.metadata;
        if (e.providerMetadata !== undefined) body.providerMetadata = e.providerMetadata;
        return send(body);
      }
      case 'step-start': {
        steps.push({ id: e.stepId, blocks: 0 });
        const { type: _t, runId: _r, seq: _s, ts: _ts, subagentId: _a, ...rest } = e;
        return send({ type: 'step_start', ...rest });
      }
      case 'step-finish': {
        const body: Record<string, unknown> = { type: 'step_finish', stepId: e.stepId };
        stopReason(e.finishReason, e.rawFinishReason, body);
        if (e.usage) body.usage = toWsUsage(e.usage);
        if (e.durationMs !== undefined) body.durationMs = e.durationMs;
        if (e.providerMetadata) body.providerMetadata = e.providerMetadata;
        const i = steps.findLastIndex((x) => x.id === e.stepId);
        if (i >= 0) steps.splice(i, 1);
        return send(body);
      }
      case 'text-start':
        openBlock(e.blockId, 'text', e.providerMetadata);
        return;
      case 'reasoning-start': {
        const b = openBlock(e.blockId, 'reasoning', e.providerMetadata);
        if (e.variant === 'processing') b.variant = 'processing';
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = e.type === 'text-delta' ? 'text' : 'reasoning';
        const b = blocks.get(e.blockId) ?? openBlock(e.blockId, kind);
        b.parts.push(e.delta);
        const body: Record<string, unknown> = { type: b.kind === 'text' ? 'message_chunk' : 'thinking_chunk', content: e.delta };
        if (b.pending > 0) {
          body.citations = b.citations.slice(b.citations.length - b.pending);
          b.pending = 0;
        }
        if (b.variant) body.variant = b.variant;
        blockFields(e.blockId, b, body);
        return send(body, true);
      }
      case 'citation': {
        const b = blocks.get(e.blockId) ?? openBlock(e.blockId, 'text');
        b.citations.push(toWsCitation(e.citation));
        b.pending++;
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        const b = blocks.get(e.blockId);
        if (b) closeBlock(e.blockId, b, e.providerMetadata);
        return;
      }
      case 'tool-input-start': {
        toolNames.set(e.toolCallId, e.toolName);
        if (tools.has(e.toolCallId) || emittedToolUseIds.has(e.toolCallId)) return;
        const t: ToolState = { index: nextBlockIndex(), messageId: messageId() };
        if (e.providerMetadata) t.startPm = e.providerMetadata;
        if (e.providerExecuted) t.providerExecuted = true;
        tools.set(e.toolCallId, t);
        return;
      }
      case 'tool-input-delta':
        // The input streams in canonical; tool_use carries it whole (the contract: input_json_delta → null).
        return;
      case 'tool-input-end': {
        toolNames.set(e.toolCallId, e.toolName);
        if (emittedToolUseIds.has(e.toolCallId)) return;
        emittedToolUseIds.add(e.toolCallId);
        const t = tools.get(e.toolCallId);
        tools.delete(e.toolCallId);
        const body: Record<string, unknown> = {
          type: 'tool_use',
          tool_call_id: e.toolCallId,
          tool_name: e.toolName,
          tool_input: e.input,
          blockIndex: t ? t.index : nextBlockIndex(),
          messageId: t ? t.messageId : messageId(),
        };
        if (e.providerExecuted || t?.providerExecuted) body.providerExecuted = true;
        if (e.inputError !== undefined) body.inputError = e.inputError;
        if (e.providerMetadata) body.providerMetadata = e.providerMetadata;
        if (t?.startPm) body.startProviderMetadata = t.startPm;
        if (aliases) {
          body.toolName = e.toolName;
          body.toolUseId = e.toolCallId;
          body.args = e.input;
        }
        return send(body);
      }
      case 'tool-output':
      case 'tool-error': {
        const preliminary = e.type === 'tool-output' && e.preliminary === true;
        if (!preliminary) {
          if (emittedToolResultIds.has(e.toolCallId)) return;
          emittedToolResultIds.add(e.toolCallId);
        }
        const toolName = e.toolName ?? toolNames.get(e.toolCallId);
        const body: Record<string, unknown> = { type: 'tool_result', tool_call_id: e.toolCallId };
        if (toolName !== undefined) body.tool_name = toolName;
        if (e.type === 'tool-output') {
          body.result = e.output;
          body.isError = false;
        } else {
          body.result = e.output !== undefined ? e.output : e.error;
          body.isError = true;
          body.error = e.error;
        }
        if (e.providerExecuted) body.providerExecuted = true;
        if (preliminary) body.preliminary = true;
        if (e.providerMetadata) body.providerMetadata = e.providerMetadata;
        if (aliases) {
          if (toolName !== undefined) body.toolName = toolName;
          body.toolUseId = e.toolCallId;
          body.success = e.type === 'tool-output';
        }
        return send(body);
      }
      case 'error': {
        const body: Record<string, unknown> = { type: 'error', error: e.message };
        if (e.code !== undefined) body.code = e.code;
        body.fatal = e.fatal;
        if (e.where) body.where = e.where;
        if (e.providerMetadata) body.providerMetadata = e.providerMetadata;
        return send(body);
      }
      case 'usage': {
        if (e.scope === 'total' && e.subagentId === undefined) lastTotal = e.usage;
        const body: Record<string, unknown> = { type: 'usage', scope: e.scope, usage: toWsUsage(e.usage) };
        if (e.durationMs !== undefined) body.durationMs = e.durationMs;
        return send(body);
      }
      case 'tool-approval-request':
        return send(
          withoutUndefined({
            type: 'tool_approval_request',
            approval_id: e.approvalId,
            tool_call_id: e.toolCallId,
            tool_name: e.toolName ?? toolNames.get(e.toolCallId),
            reason: e.reason,
            providerMetadata: e.providerMetadata,
          }),
        );
      case 'tool-approval-response':
        return send(
          withoutUndefined({
            type: 'tool_approval_response',
            approval_id: e.approvalId,
            tool_call_id: e.toolCallId,
            approved: e.approved,
            reason: e.reason,
            by: e.by,
            providerExecuted: e.providerExecuted,
            providerMetadata: e.providerMetadata,
          }),
        );
      case 'client-tool-call':
        return send(
          withoutUndefined({ type: 'client_tool_call', tool_call_id: e.toolCallId, tool_name: e.toolName ?? toolNames.get(e.toolCallId) }),
        );
      case 'interrupt':
        return send(
          withoutUndefined({
            type: 'interrupt',
            interrupt_id: e.interruptId,
            reason: e.reason,
            message: e.message,
            tool_call_id: e.toolCallId,
            value: e.value,
            response_schema: e.responseSchema,
            expires_at: e.expiresAt,
            providerMetadata: e.providerMetadata,
          }),
        );
      case 'interrupt-response':
        return send(
          withoutUndefined({ type: 'interrupt_response', interrupt_id: e.interruptId, status: e.status, payload: e.payload, by: e.by }),
        );
      case 'run-finish': {
        closeAll();
        const body: Record<string, unknown> = { type: 'complete' };
        stopReason(e.finishReason, e.rawFinishReason, body);
        body.reason = completeReason(e.finishReason);
        if (e.pending)
          body.pending = withoutUndefined({
            approval_ids: e.pending.approvalIds,
            tool_call_ids: e.pending.toolCallIds,
            interrupt_ids: e.pending.interruptIds,
          });
        if (e.usage) body.usage = toWsUsage(e.usage);
        else if (lastTotal) {
          // The contract's complete carries the run's usage; flagged, so reading back adds none to run-finish.
          body.usage = toWsUsage(lastTotal);
          body.derivedUsage = true;
        }
        if (e.providerMetadata) body.providerMetadata = e.providerMetadata;
        if (aliases) body.stopReason = body.stop_reason;
        ended = true;
        return send(body);
      }
      case 'run-abort': {
        closeAll();
        const body: Record<string, unknown> = { type: 'complete', stop_reason: null, reason: 'user_cancelled', aborted: true };
        if (e.reason !== undefined) body.abortReason = e.reason;
        if (aliases) body.stopReason = null;
        ended = true;
        return send(body);
      }
      default: {
        // Extension frames: the canonical event without its envelope, under a snake_case type.
        const { type, runId: _r, seq: _s, ts: _ts, ...rest } = e;
        return send({ type: type.replace('-', '_'), ...(rest as JsonObject) });
      }
    }
  }

  return writeMachine(encode, () => ended);
}
