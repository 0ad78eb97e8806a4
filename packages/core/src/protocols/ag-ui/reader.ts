/**
 * Reader (decoder) for the AG-UI protocol: AG-UI events (as objects, or an SSE / JSON-lines body
 * through `framed()`) → canonical events. The inverse of `encoder.ts`:
 *
 * - TEXT_MESSAGE_* (role assistant) → text blocks, REASONING_MESSAGE_* → reasoning blocks (the
 *   variant read back from `metadata[namespace].variant`), TOOL_CALL_* → tool calls (the argument
 *   text is parsed once, at TOOL_CALL_END), TOOL_CALL_RESULT → tool-output / tool-error, steps,
 *   state, subagents, RAW → raw, CUSTOM → custom; `*_CHUNK` events are expanded the way the
 *   official client's `transformChunks` does;
 * - our own encoder's `metadata[namespace]` and `<namespace>.*` CUSTOM events are read back into
 *   the canonical fields and kinds they came from, so canonical → AG-UI → canonical is lossless up
 *   to the differences listed in docs/protocols/ag-ui.md;
 * - anything of a foreign producer the canonical event has no field for goes to
 *   `providerMetadata['ag-ui']`, or, on events without providerMetadata, into a `raw` event
 *   carrying the whole AG-UI event;
 * - a stream with several runs (RUN_STARTED … RUN_FINISHED, RUN_STARTED …) is one canonical run:
 *   the run finishes when the input ends; finished runs before the last become `ag-ui.run-finished`
 *   custom events and later RUN_STARTED events `ag-ui.run-started`;
 * - sequence problems the official verifier rejects (CONTENT without START, RUN_FINISHED with open
 *   messages, …) become located errors, and decoding goes on.
 *
 * Work per input event is constant: text deltas are passed on, never joined; tool arguments are
 * collected and joined and parsed once.
 */
import { describe } from '../../codec/framing.ts';
import { at, type Decoder, isObject } from '../../inputs/decoder.ts';
import { type DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Location, ProviderMetadata, Usage } from '../../model/events.ts';
import { AG_UI_CUSTOM_KINDS, AG_UI_EVENT_TYPES } from './schema.ts';

/** Pre-1.0 reasoning events, read as their REASONING_* equivalents (as the official client's compatibility layer does). */
const LEGACY_TYPES = [
  'THINKING_START',
  'THINKING_END',
  'THINKING_TEXT_MESSAGE_START',
  'THINKING_TEXT_MESSAGE_CONTENT',
  'THINKING_TEXT_MESSAGE_END',
] as const;

const TYPES = new Set<string>([...AG_UI_EVENT_TYPES, ...LEGACY_TYPES]);
const CUSTOM_KINDS = new Set<string>(AG_UI_CUSTOM_KINDS);

/** True for one AG-UI event object (its `type` is an AG-UI event type: upper snake case, never Anthropic's or the agent format's). */
export function detectAgUi(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string' && TYPES.has(value.type);
}

export interface AgUiDecoderOptions extends DecoderOptions {
  /** `metadata` key our AG-UI encoder writes canonical fields under. Default `switchboard`. */
  namespace?: string;
  /**
   * Keep `rawEvent` (the upstream framework's own event that AG-UI producers attach for debugging).
   * Default true: it goes to `providerMetadata['ag-ui'].rawEvent`, or a `raw` event next to deltas.
   */
  rawEvents?: boolean;
}

/** String fields each event type must have (the event is skipped with a located error otherwise). */
const REQUIRED: Record<string, readonly string[]> = {
  TEXT_MESSAGE_START: ['messageId'],
  TEXT_MESSAGE_CONTENT: ['messageId', 'delta'],
  TEXT_MESSAGE_END: ['messageId'],
  TOOL_CALL_START: ['toolCallId', 'toolCallName'],
  TOOL_CALL_ARGS: ['toolCallId', 'delta'],
  TOOL_CALL_END: ['toolCallId'],
  TOOL_CALL_RESULT: ['toolCallId'],
  REASONING_START: ['messageId'],
  REASONING_END: ['messageId'],
  REASONING_MESSAGE_START: ['messageId'],
  REASONING_MESSAGE_CONTENT: ['messageId', 'delta'],
  REASONING_MESSAGE_END: ['messageId'],
  REASONING_ENCRYPTED_VALUE: ['subtype', 'entityId', 'encryptedValue'],
  STEP_STARTED: ['stepName'],
  STEP_FINISHED: ['stepName'],
  CUSTOM: ['name'],
  SUBAGENT_STARTED: ['subagentRunId', 'name'],
  SUBAGENT_FINISHED: ['subagentRunId'],
  SUBAGENT_ERROR: ['subagentRunId'],
  ACTIVITY_SNAPSHOT: ['messageId', 'activityType'],
  ACTIVITY_DELTA: ['messageId', 'activityType'],
  THINKING_TEXT_MESSAGE_CONTENT: ['delta'],
};

/** String fields that may be absent but must be strings when present. */
const OPTIONAL: Record<string, readonly string[]> = {
  TEXT_MESSAGE_START: ['role', 'name'],
  TEXT_MESSAGE_CHUNK: ['messageId', 'role', 'delta', 'name'],
  TOOL_CALL_START: ['parentMessageId'],
  TOOL_CALL_CHUNK: ['toolCallId', 'toolCallName', 'parentMessageId', 'delta'],
  TOOL_CALL_RESULT: ['messageId', 'role'],
  REASONING_MESSAGE_CHUNK: ['messageId', 'delta'],
  RUN_STARTED: ['threadId', 'runId', 'parentRunId', 'protocolVersion'],
  RUN_FINISHED: ['threadId', 'runId'],
  RUN_ERROR: ['message', 'code'],
  RAW: ['source'],
  SUBAGENT_STARTED: ['description', 'parentSubagentRunId', 'parentToolCallId', 'parentMessageId'],
  SUBAGENT_ERROR: ['message', 'code'],
};

/** Fields of a *_CHUNK event that only describe the message or call it opens. */
const CHUNK_OPENER_FIELDS = new Set(['type', 'role', 'name', 'toolCallName', 'parentMessageId', 'delta', 'subagentRunId']);

const PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
const FINISH_REASONS = new Set(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other']);
const STEP_KINDS = new Set(['model', 'planning', 'action', 'final-answer', 'other']);

type Owner = string | undefined;
type Ev = Record<string, unknown>;

interface TextState {
  blockId: string;
  owner: Owner;
  /** Non-assistant messages (user / system / developer text) are collected and passed on whole. */
  side?: { role: string; name?: string; parts: string[] };
}
interface ReasoningState {
  blockId: string;
  owner: Owner;
  encrypted?: string;
}
interface ToolState {
  name: string;
  owner: Owner;
  args: string[];
  encrypted?: string;
}
interface Lane {
  kind: 'text' | 'tool' | 'reasoning';
  id: string;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): JsonObject | undefined => (isObject(v) ? (v as JsonObject) : undefined);

/** An AG-UI `TokenUsage[]` as a canonical usage (summed over entries; the array kept in `raw`). */
function usageOf(list: unknown): Usage | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const u: Usage = {};
  const add = (k: keyof Usage, v: unknown) => {
    if (typeof v === 'number') (u as Record<string, number>)[k] = ((u[k] as number | undefined) ?? 0) + v;
  };
  for (const t of list) {
    if (!isObject(t)) continue;
    add('inputTokens', t.inputTokens);
    add('outputTokens', t.outputTokens);
    add('totalTokens', t.totalTokens);
    add('reasoningTokens', t.reasoningTokens);
    add('cacheReadTokens', t.cachedInputTokens);
    add('cacheWriteTokens', t.cacheWriteInputTokens);
  }
  u.raw = list as Json;
  return u;
}

/** Creates an AG-UI reader. */
export function createAgUiDecoder(options: AgUiDecoderOptions = {}): Decoder {
  const ns = options.namespace ?? 'switchboard';
  const keepRaw = options.rawEvents ?? true;
  const clock = options.now ?? Date.now;
  /** The current input event's `timestamp`: canonical `ts` when the producer sent one. */
  let ts: number | undefined;
  let out: Emitter | undefined;

  let run: 'none' | 'open' | 'finished' = 'none';
  let reportedOutside = false;
  let held: EventInit | undefined;
  /** `timestamp` of the RUN_FINISHED / RUN_ERROR whose run-finish is held until the input ends. */
  let heldTs: number | undefined;
  let fatal = false;
  const texts = new Map<string, TextState>();
  const openBlocks = new Set<string>();
  const reasonings = new Map<string, ReasoningState>();
  const spans = new Set<string>();
  const tools = new Map<string, ToolState>();
  const toolNames = new Map<string, string>();
  const runCalls = new Set<string>();
  const answered = new Set<string>();
  const steps = new Map<string, { stepId: string; owner: Owner; name: string }>();
  const subagents = new Set<string>();
  const blockIds = new Set<string>();
  const stepIds = new Set<string>();
  const lanes = new Map<Owner, Lane>();
  let legacySpan: string | undefined;
  let legacyMessage: string | undefined;
  let legacyCount = 0;

  /** The emitter, created at the first event so a stream's own RUN_STARTED.runId can be the run id. */
  function em(runId?: string): Emitter {
    out ??= new Emitter({ ...options, runId: options.runId ?? runId, now: () => ts ?? clock() }, 'ag-ui');
    return out;
  }

  /** Drops fields that are undefined (optional fields are absent, not undefined, in canonical events). */
  function defined<T extends object>(e: T): T {
    const rec = e as Record<string, unknown>;
    for (const k in rec) if (rec[k] === undefined) delete rec[k];
    return e;
  }

  function emit(e: EventInit): void {
    em().emit(defined(e));
  }

  function error(code: string, message: string, where?: Location, isFatal = false, pm?: ProviderMetadata): void {
    emit({ type: 'error', code, message, fatal: isFatal, where, providerMetadata: pm });
  }

  function fieldError(type: string, field: string, expected: string, value: unknown, where?: Location): void {
    const loc = at(where, field, expected);
    error('invalid_field', `${describe(loc)}: ${type}.${field}: expected ${expected}, got ${kindOf(value)}`, loc);
  }

  function sequenceError(code: string, what: string, where: Location | undefined, field: string, expected: string): void {
    const loc = at(where, field, expected);
    error(code, `${describe(loc)}: ${what}`, loc);
  }

  function unique(set: Set<string>, id: string): string {
    let outId = id;
    for (let k = 2; set.has(outId); k++) outId = `${id}:${k}`;
    set.add(outId);
    return outId;
  }

  /** Our encoder's canonical fields, when the event carries them. */
  function ours(ev: Ev): Record<string, unknown> | undefined {
    const md = ev.metadata;
    return isObject(md) && isObject(md[ns]) ? md[ns] : undefined;
  }

  /** Fields of an event that the mapping did not use: they go to providerMetadata['ag-ui'] or a raw event. */
  function extras(ev: Ev, used: readonly string[]): JsonObject | undefined {
    let x: JsonObject | undefined;
    for (const k in ev) {
      const v = ev[k];
      if (v === undefined || k === 'type' || k === 'subagentRunId' || used.includes(k)) continue;
      if (k === 'timestamp' && Number.isSafeInteger(v)) continue;
      if (k === 'rawEvent' && !keepRaw) continue;
      if (k === 'metadata' && isObject(v)) {
        let rest: JsonObject | undefined;
        for (const mk in v) {
          if (mk === ns) continue;
          rest ??= {};
          rest[mk] = v[mk] as Json;
        }
        if (rest) {
          x ??= {};
          x.metadata = rest;
        }
        continue;
      }
      x ??= {};
      x[k] = v as Json;
    }
    return x;
  }

  function pmOf(m: Record<string, unknown> | undefined, x: JsonObject | undefined): ProviderMetadata | undefined {
    const mine = m && isObject(m.providerMetadata) ? (m.providerMetadata as ProviderMetadata) : undefined;
    if (!x) return mine;
    return { ...mine, 'ag-ui': { ...mine?.['ag-ui'], ...x } };
  }

  /** For canonical events without providerMetadata: unused fields travel in a raw event with the whole AG-UI event. */
  function rawExtras(ev: Ev, x: JsonObject | undefined, where: Location | undefined, owner: Owner): void {
    if (!x) return;
    emit({
      type: 'raw',
      source: 'ag-ui',
      event: ev as Json,
      reason: `${String(ev.type)}: ${Object.keys(x).join(', ')} ha${Object.keys(x).length === 1 ? 's' : 've'} no canonical field`,
      where,
      subagentId: owner,
    });
  }

  function rest(ev: Ev): JsonObject {
    const { type: _t, ...value } = ev;
    return value as JsonObject;
  }

  function check(type: string, ev: Ev, where: Location | undefined): boolean {
    for (const f of REQUIRED[type] ?? []) {
      if (typeof ev[f] !== 'string') {
        fieldError(type, f, 'a string', ev[f], where);
        return false;
      }
    }
    for (const f of OPTIONAL[type] ?? []) {
      if (ev[f] !== undefined && typeof ev[f] !== 'string') {
        fieldError(type, f, 'a string when present', ev[f], where);
        return false;
      }
    }
    if (ev.subagentRunId !== undefined && typeof ev.subagentRunId !== 'string') {
      fieldError(type, 'subagentRunId', 'a string when present (omit it rather than send null)', ev.subagentRunId, where);
      return false;
    }
    if (ev.metadata !== undefined && !isObject(ev.metadata)) {
      fieldError(type, 'metadata', 'an object when present', ev.metadata, where);
      return false;
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Opening and closing
  // ---------------------------------------------------------------------------------------------

  function openText(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): TextState {
    const id = ev.messageId as string;
    const owner = str(ev.subagentRunId);
    const role = str(ev.role) ?? 'assistant';
    if (role !== 'assistant') {
      const t: TextState = { blockId: id, owner, side: { role, name: str(ev.name), parts: [] } };
      texts.set(id, t);
      rawExtras(ev, extras(ev, ['messageId', 'role', 'name']), where, owner);
      return t;
    }
    const blockId = unique(blockIds, str(m?.blockId) ?? id);
    const t: TextState = { blockId, owner };
    texts.set(id, t);
    openBlocks.add(blockId);
    emit({ type: 'text-start', blockId, subagentId: owner, providerMetadata: pmOf(m, extras(ev, ['messageId', 'role'])) });
    return t;
  }

  function closeText(id: string, t: TextState, ev: Ev | undefined, m: Record<string, unknown> | undefined, where?: Location): void {
    texts.delete(id);
    const x = ev ? extras(ev, ['messageId']) : undefined;
    if (t.side) {
      const value: JsonObject = { messageId: id, role: t.side.role, content: t.side.parts.join('') };
      if (t.side.name !== undefined) value.name = t.side.name;
      emit({ type: 'custom', name: 'ag-ui.text-message', value, subagentId: t.owner });
      if (ev) rawExtras(ev, x, where, t.owner);
      return;
    }
    openBlocks.delete(t.blockId);
    emit({ type: 'text-end', blockId: t.blockId, subagentId: t.owner, providerMetadata: pmOf(m, x) });
  }

  function openReasoning(ev: Ev, m: Record<string, unknown> | undefined): ReasoningState {
    const id = ev.messageId as string;
    const owner = str(ev.subagentRunId);
    const blockId = unique(blockIds, str(m?.blockId) ?? id);
    const r: ReasoningState = { blockId, owner };
    reasonings.set(id, r);
    openBlocks.add(blockId);
    const variant = m?.variant === 'processing' ? 'processing' : 'thinking';
    emit({ type: 'reasoning-start', blockId, variant, subagentId: owner, providerMetadata: pmOf(m, extras(ev, ['messageId', 'role'])) });
    return r;
  }

  function closeReasoning(id: string, r: ReasoningState, ev: Ev | undefined, m: Record<string, unknown> | undefined): void {
    reasonings.delete(id);
    openBlocks.delete(r.blockId);
    let x = ev ? extras(ev, ['messageId']) : undefined;
    if (r.encrypted !== undefined && !isObject(m?.providerMetadata)) x = { ...x, encryptedValue: r.encrypted };
    emit({ type: 'reasoning-end', blockId: r.blockId, subagentId: r.owner, providerMetadata: pmOf(m, x) });
  }

  function openTool(ev: Ev, m: Record<string, unknown> | undefined): ToolState {
    const id = ev.toolCallId as string;
    const owner = str(ev.subagentRunId);
    const t: ToolState = { name: ev.toolCallName as string, owner, args: [] };
    tools.set(id, t);
    toolNames.set(id, t.name);
    runCalls.add(id);
    // Our parentMessageId is derived (the assistant message of the step); a foreign one is kept.
    const x = extras(ev, m ? ['toolCallId', 'toolCallName', 'parentMessageId'] : ['toolCallId', 'toolCallName']);
    // Ours, for a canonical call that had no tool-input-start: only its tool-input-end comes back.
    if (m?.noStart === true && !x) return t;
    emit({
      type: 'tool-input-start',
      toolCallId: id,
      toolName: t.name,
      providerExecuted: m?.providerExecuted === true ? true : undefined,
      subagentId: owner,
      providerMetadata: pmOf(m, x),
    });
    return t;
  }

  function closeTool(id: string, t: ToolState, ev: Ev | undefined, m: Record<string, unknown> | undefined): void {
    tools.delete(id);
    const text = t.args.join('');
    let input: Json;
    let inputError: string | undefined = str(m?.inputError);
    if (m && m.input !== undefined) input = m.input as Json;
    else if (inputError !== undefined) input = text;
    else if (text.trim() === '') input = {};
    else {
      try {
        input = JSON.parse(text);
      } catch (err) {
        input = text;
        inputError = `tool input is not valid JSON: ${(err as Error).message}`;
      }
    }
    let x = ev ? extras(ev, ['toolCallId']) : undefined;
    if (t.encrypted !== undefined && !isObject(m?.providerMetadata)) x = { ...x, encryptedValue: t.encrypted };
    emit({
      type: 'tool-input-end',
      toolCallId: id,
      toolName: str(m?.toolName) ?? t.name,
      input,
      inputError,
      providerExecuted: m?.providerExecuted === true ? true : undefined,
      subagentId: t.owner,
      providerMetadata: pmOf(m, x),
    });
  }

  /** What is still open, in words (for RUN_FINISHED with open things). */
  function openThings(): string | undefined {
    const parts: string[] = [];
    for (const id of texts.keys()) parts.push(`text message "${id}"`);
    for (const id of reasonings.keys()) parts.push(`reasoning message "${id}"`);
    for (const id of spans) if (!reasonings.has(id)) parts.push(`reasoning span "${id}"`);
    for (const id of tools.keys()) parts.push(`tool call "${id}"`);
    for (const s of steps.values()) parts.push(`step "${s.name}"`);
    for (const id of subagents) parts.push(`subagent "${id}"`);
    return parts.length > 0 ? parts.join(', ') : undefined;
  }

  /** Closes everything still open (end of a run, or of the input). */
  function closeAll(): void {
    lanes.clear();
    for (const [id, t] of [...texts]) closeText(id, t, undefined, undefined);
    for (const [id, r] of [...reasonings]) closeReasoning(id, r, undefined, undefined);
    spans.clear();
    for (const [id, t] of [...tools]) closeTool(id, t, undefined, undefined);
    for (const [key, s] of [...steps]) {
      steps.delete(key);
      emit({ type: 'step-finish', stepId: s.stepId, subagentId: s.owner });
    }
    for (const id of [...subagents]) {
      subagents.delete(id);
      emit({ type: 'subagent-finish', subagentId: id });
    }
  }

  /** A finished AG-UI run followed by another: its finish becomes a custom event. */
  function flushHeld(): void {
    if (!held) return;
    const { type, ...value } = defined(held) as Record<string, unknown>;
    emit({ type: 'custom', name: type === 'run-abort' ? 'ag-ui.run-cancelled' : 'ag-ui.run-finished', value: value as Json });
    held = undefined;
  }

  function pending(ev: Ev): boolean {
    const outcome = ev.outcome;
    if (isObject(outcome) && Array.isArray(outcome.pendingToolCallIds) && outcome.pendingToolCallIds.length > 0) return true;
    for (const id of runCalls) if (!answered.has(id)) return true;
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Events
  // ---------------------------------------------------------------------------------------------

  function runStarted(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    if (run === 'open') {
      sequenceError(
        'unexpected_event',
        `RUN_STARTED while run "${String(ev.runId)}" … the previous run is still open (no RUN_FINISHED or RUN_ERROR)`,
        where,
        'type',
        'RUN_FINISHED or RUN_ERROR first',
      );
      closeAll();
    }
    if (!out?.started) {
      const e = em(str(ev.runId));
      let init: Record<string, unknown>;
      if (m) {
        init = {
          messageId: str(m.messageId),
          chatId: str(m.chatId),
          parentRunId: str(ev.parentRunId),
          agent: str(m.agent),
          provider: str(m.provider),
          model: str(m.model),
          metadata: obj(m.metadata),
          providerMetadata: obj(m.providerMetadata),
        };
      } else {
        const x = extras(ev, ['parentRunId']) ?? {};
        init = { chatId: str(ev.threadId), parentRunId: str(ev.parentRunId), providerMetadata: { 'ag-ui': x } };
      }
      e.start(defined(init));
    } else {
      flushHeld();
      emit({ type: 'custom', name: 'ag-ui.run-started', value: rest(ev) });
    }
    run = 'open';
    reportedOutside = false;
    runCalls.clear();
    answered.clear();
  }

  function runFinished(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    if (run !== 'open')
      sequenceError(
        'unexpected_event',
        run === 'none' ? 'RUN_FINISHED without a RUN_STARTED' : 'RUN_FINISHED after the run already finished',
        where,
        'type',
        'RUN_STARTED first',
      );
    const open = openThings();
    if (open)
      sequenceError(
        'unexpected_event',
        `RUN_FINISHED while ${open} ${open.includes(',') ? 'are' : 'is'} still open (closed here)`,
        where,
        'type',
        'every message, tool call, step and subagent closed before RUN_FINISHED',
      );
    closeAll();
    flushHeld();
    if (m) {
      held = m.abort
        ? { type: 'run-abort', reason: str(m.reason) }
        : {
            type: 'run-finish',
            finishReason: FINISH_REASONS.has(m.finishReason as string) ? (m.finishReason as FinishReason) : 'stop',
            rawFinishReason: str(m.rawFinishReason),
            usage: obj(m.usage) as Usage | undefined,
            providerMetadata: obj(m.providerMetadata) as ProviderMetadata | undefined,
          };
    } else {
      const outcome = isObject(ev.outcome) ? ev.outcome : undefined;
      const x = extras(ev, ['usage']);
      if (outcome?.type === 'cancelled') {
        held = { type: 'run-abort' };
        rawExtras(ev, x, where, undefined);
      } else {
        const finishReason: FinishReason = outcome?.type === 'interrupt' ? 'interrupted' : pending(ev) ? 'tool-calls' : 'stop';
        held = {
          type: 'run-finish',
          finishReason,
          rawFinishReason: str(outcome?.type),
          usage: usageOf(ev.usage),
          providerMetadata: x ? { 'ag-ui': x } : undefined,
        };
        if (ev.usage !== undefined && !Array.isArray(ev.usage))
          fieldError('RUN_FINISHED', 'usage', 'an array of TokenUsage', ev.usage, where);
      }
    }
    heldTs = ts;
    run = 'finished';
    reportedOutside = false;
  }

  function runError(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    flushHeld();
    if (m) {
      held = {
        type: 'run-finish',
        finishReason: FINISH_REASONS.has(m.finishReason as string) ? (m.finishReason as FinishReason) : 'error',
        rawFinishReason: str(m.rawFinishReason),
        usage: obj(m.usage) as Usage | undefined,
        providerMetadata: obj(m.providerMetadata) as ProviderMetadata | undefined,
      };
    } else {
      const x = extras(ev, ['message', 'code', 'usage']);
      error(str(ev.code) ?? 'run_error', str(ev.message) ?? 'The run failed (RUN_ERROR).', where, true, x ? { 'ag-ui': x } : undefined);
      held = { type: 'run-finish', finishReason: 'error', usage: usageOf(ev.usage) };
    }
    fatal = true;
    closeAll();
    heldTs = ts;
    run = 'finished';
    reportedOutside = false;
  }

  function apply(type: string, ev: Ev, where: Location | undefined): void {
    const m = ours(ev);
    const owner = str(ev.subagentRunId);
    if (type !== 'RUN_STARTED' && type !== 'RUN_ERROR' && run !== 'open' && !reportedOutside) {
      reportedOutside = true;
      sequenceError(
        'unexpected_event',
        run === 'none' ? `${type} before RUN_STARTED` : `${type} after the run finished (RUN_FINISHED)`,
        where,
        'type',
        run === 'none' ? 'RUN_STARTED first' : 'RUN_STARTED before more events',
      );
    }
    switch (type) {
      case 'RUN_STARTED':
        return runStarted(ev, m, where);
      case 'RUN_FINISHED':
        return runFinished(ev, m, where);
      case 'RUN_ERROR':
        return runError(ev, m, where);

      case 'STEP_STARTED': {
        const name = ev.stepName as string;
        const key = `${owner ?? ''}\u0000${name}`;
        if (steps.has(key))
          return sequenceError(
            'unexpected_event',
            `STEP_STARTED for step "${name}", which is already active`,
            where,
            'stepName',
            'a step that is not active',
          );
        const stepId = unique(stepIds, str(m?.stepId) ?? name);
        steps.set(key, { stepId, owner, name });
        const x = extras(ev, ['stepName']);
        if (m) {
          emit({
            type: 'step-start',
            stepId,
            kind: STEP_KINDS.has(m.kind as string) ? (m.kind as 'other') : 'other',
            name: str(m.name),
            number: typeof m.number === 'number' ? m.number : undefined,
            model: str(m.model),
            subagentId: owner,
            providerMetadata: pmOf(m, x),
          });
        } else emit({ type: 'step-start', stepId, kind: 'other', name, subagentId: owner, providerMetadata: pmOf(undefined, x) });
        return;
      }
      case 'STEP_FINISHED': {
        const name = ev.stepName as string;
        const key = `${owner ?? ''}\u0000${name}`;
        const s = steps.get(key);
        if (!s)
          return sequenceError(
            'unknown_block',
            `STEP_FINISHED for step "${name}", which was not started`,
            where,
            'stepName',
            'the name of an active step',
          );
        steps.delete(key);
        emit({
          type: 'step-finish',
          stepId: s.stepId,
          finishReason: FINISH_REASONS.has(m?.finishReason as string) ? (m?.finishReason as FinishReason) : undefined,
          rawFinishReason: str(m?.rawFinishReason),
          usage: obj(m?.usage) as Usage | undefined,
          durationMs: typeof m?.durationMs === 'number' ? m.durationMs : undefined,
          subagentId: owner,
          providerMetadata: pmOf(m, extras(ev, ['stepName'])),
        });
        return;
      }

      case 'TEXT_MESSAGE_START': {
        const id = ev.messageId as string;
        if (texts.has(id))
          return sequenceError(
            'unexpected_event',
            `TEXT_MESSAGE_START for text message "${id}", which is already open`,
            where,
            'messageId',
            'an id that is not open',
          );
        openText(ev, m, where);
        return;
      }
      case 'TEXT_MESSAGE_CONTENT': {
        const id = ev.messageId as string;
        let t = texts.get(id);
        if (!t) {
          sequenceError(
            'unknown_block',
            `TEXT_MESSAGE_CONTENT for text message "${id}", which was never started (or already ended); opened here`,
            where,
            'messageId',
            'the id of an open text message',
          );
          t = openText({ type: 'TEXT_MESSAGE_START', messageId: id, subagentRunId: owner }, undefined, where);
        }
        if (t.side) t.side.parts.push(ev.delta as string);
        else emit({ type: 'text-delta', blockId: t.blockId, delta: ev.delta as string, subagentId: t.owner });
        rawExtras(ev, extras(ev, ['messageId', 'delta']), where, t.owner);
        return;
      }
      case 'TEXT_MESSAGE_END': {
        const id = ev.messageId as string;
        const t = texts.get(id);
        if (!t)
          return sequenceError(
            'unknown_block',
            `TEXT_MESSAGE_END for text message "${id}", which is not open`,
            where,
            'messageId',
            'the id of an open text message',
          );
        closeText(id, t, ev, m, where);
        return;
      }

      case 'TOOL_CALL_START': {
        const id = ev.toolCallId as string;
        if (tools.has(id))
          return sequenceError(
            'unexpected_event',
            `TOOL_CALL_START for tool call "${id}", which is already open`,
            where,
            'toolCallId',
            'an id that is not open',
          );
        openTool(ev, m);
        return;
      }
      case 'TOOL_CALL_ARGS': {
        const id = ev.toolCallId as string;
        let t = tools.get(id);
        if (!t) {
          sequenceError(
            'unknown_block',
            `TOOL_CALL_ARGS for tool call "${id}", which was never started (or already ended); opened here as tool "unknown"`,
            where,
            'toolCallId',
            'the id of an open tool call',
          );
          t = openTool({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: 'unknown', subagentRunId: owner }, undefined);
        }
        t.args.push(ev.delta as string);
        const x = extras(ev, ['toolCallId', 'delta']);
        // Ours: the arguments of an input that arrived whole, which was no canonical delta.
        if (m?.whole === true && !x) return;
        emit({ type: 'tool-input-delta', toolCallId: id, delta: ev.delta as string, subagentId: t.owner });
        rawExtras(ev, x, where, t.owner);
        return;
      }
      case 'TOOL_CALL_END': {
        const id = ev.toolCallId as string;
        const t = tools.get(id);
        if (!t)
          return sequenceError(
            'unknown_block',
            `TOOL_CALL_END for tool call "${id}", which is not open`,
            where,
            'toolCallId',
            'the id of an open tool call',
          );
        closeTool(id, t, ev, m);
        return;
      }
      case 'TOOL_CALL_RESULT': {
        const id = ev.toolCallId as string;
        const content = ev.content;
        if (typeof content !== 'string' && !Array.isArray(content))
          return fieldError(type, 'content', 'a string or an array of content parts', content, where);
        answered.add(id);
        if (m) {
          const x = extras(ev, ['messageId', 'toolCallId', 'content', 'role']);
          const common = {
            toolCallId: id,
            toolName: str(m.toolName),
            providerExecuted: m.providerExecuted === true ? true : undefined,
            subagentId: owner,
            providerMetadata: pmOf(m, x),
          };
          if (m.error === true) {
            emit({
              type: 'tool-error',
              ...common,
              error: typeof content === 'string' ? content : JSON.stringify(content),
              output: m.output as Json | undefined,
            });
          } else {
            let output = content as Json;
            if (m.json === true && typeof content === 'string') {
              try {
                output = JSON.parse(content);
              } catch {
                // not what we wrote: keep the text
              }
            }
            emit({ type: 'tool-output', ...common, output, preliminary: m.preliminary === true ? true : undefined });
          }
          return;
        }
        const x = extras(ev, ['toolCallId', 'content', 'role']);
        emit({
          type: 'tool-output',
          toolCallId: id,
          toolName: toolNames.get(id),
          output: content as Json,
          subagentId: owner,
          providerMetadata: pmOf(undefined, x),
        });
        return;
      }

      case 'REASONING_START': {
        const id = ev.messageId as string;
        if (spans.has(id))
          return sequenceError(
            'unexpected_event',
            `REASONING_START for reasoning span "${id}", which is already open`,
            where,
            'messageId',
            'an id that is not open',
          );
        spans.add(id);
        rawExtras(ev, extras(ev, ['messageId']), where, owner);
        return;
      }
      case 'REASONING_END': {
        const id = ev.messageId as string;
        if (!spans.delete(id))
          return sequenceError(
            'unknown_block',
            `REASONING_END for reasoning span "${id}", which is not open`,
            where,
            'messageId',
            'the id of an open reasoning span',
          );
        rawExtras(ev, extras(ev, ['messageId']), where, owner);
        return;
      }
      case 'REASONING_MESSAGE_START': {
        const id = ev.messageId as string;
        if (reasonings.has(id))
          return sequenceError(
            'unexpected_event',
            `REASONING_MESSAGE_START for reasoning message "${id}", which is already open`,
            where,
            'messageId',
            'an id that is not open',
          );
        openReasoning(ev, m);
        return;
      }
      case 'REASONING_MESSAGE_CONTENT': {
        const id = ev.messageId as string;
        let r = reasonings.get(id);
        if (!r) {
          sequenceError(
            'unknown_block',
            `REASONING_MESSAGE_CONTENT for reasoning message "${id}", which was never started (or already ended); opened here`,
            where,
            'messageId',
            'the id of an open reasoning message',
          );
          r = openReasoning({ type: 'REASONING_MESSAGE_START', messageId: id, subagentRunId: owner }, undefined);
        }
        emit({ type: 'reasoning-delta', blockId: r.blockId, delta: ev.delta as string, subagentId: r.owner });
        rawExtras(ev, extras(ev, ['messageId', 'delta']), where, r.owner);
        return;
      }
      case 'REASONING_MESSAGE_END': {
        const id = ev.messageId as string;
        const r = reasonings.get(id);
        if (!r)
          return sequenceError(
            'unknown_block',
            `REASONING_MESSAGE_END for reasoning message "${id}", which is not open`,
            where,
            'messageId',
            'the id of an open reasoning message',
          );
        closeReasoning(id, r, ev, m);
        return;
      }
      case 'REASONING_ENCRYPTED_VALUE': {
        const subtype = ev.subtype;
        if (subtype !== 'message' && subtype !== 'tool-call')
          return fieldError(type, 'subtype', '"message" or "tool-call"', subtype, where);
        const target = subtype === 'message' ? reasonings.get(ev.entityId as string) : tools.get(ev.entityId as string);
        const x = extras(ev, ['subtype', 'entityId', 'encryptedValue']);
        if (target && !x) {
          // Attached to the block: it ends up in that block's providerMetadata.
          target.encrypted = ev.encryptedValue as string;
          return;
        }
        emit({ type: 'custom', name: 'ag-ui.reasoning-encrypted-value', value: rest(ev), subagentId: owner });
        return;
      }

      case 'STATE_SNAPSHOT': {
        if (ev.snapshot === undefined) return fieldError(type, 'snapshot', 'a JSON value', undefined, where);
        const snap = ev.snapshot;
        if (m?.event === 'todos' && isObject(snap) && Array.isArray(snap.todos))
          emit({ type: 'todos', change: (str(m.change) as 'update') ?? 'snapshot', todos: snap.todos as never, subagentId: owner });
        else emit({ type: 'state-snapshot', state: snap as Json, subagentId: owner });
        rawExtras(ev, extras(ev, ['snapshot']), where, owner);
        return;
      }
      case 'STATE_DELTA': {
        const delta = ev.delta;
        if (!Array.isArray(delta)) return fieldError(type, 'delta', 'a JSON Patch array', delta, where);
        const patch: { op: 'add'; path: string; from?: string; value?: Json }[] = [];
        let opExtras = false;
        for (let i = 0; i < delta.length; i++) {
          const op = delta[i];
          if (
            !isObject(op) ||
            !PATCH_OPS.has(op.op as string) ||
            typeof op.path !== 'string' ||
            (op.from !== undefined && typeof op.from !== 'string')
          )
            return fieldError(type, `delta[${i}]`, 'a JSON Patch operation {op, path, from?, value?}', op, where);
          const p: (typeof patch)[number] = { op: op.op as 'add', path: op.path };
          if (op.from !== undefined) p.from = op.from as string;
          if (op.value !== undefined) p.value = op.value as Json;
          for (const k in op) if (k !== 'op' && k !== 'path' && k !== 'from' && k !== 'value') opExtras = true;
          patch.push(p);
        }
        const first = patch[0];
        if (m?.event === 'todos' && patch.length === 1 && first.path === '/todos' && Array.isArray(first.value))
          emit({ type: 'todos', change: (str(m.change) as 'update') ?? 'update', todos: first.value as never, subagentId: owner });
        else emit({ type: 'state-delta', patch, subagentId: owner });
        let x = extras(ev, ['delta']);
        if (opExtras) x = { ...x, delta: delta as Json };
        rawExtras(ev, x, where, owner);
        return;
      }
      case 'MESSAGES_SNAPSHOT': {
        if (!Array.isArray(ev.messages)) return fieldError(type, 'messages', 'an array of messages', ev.messages, where);
        if (m?.derived === true) return; // ours: a summary of the events already read
        emit({ type: 'custom', name: 'ag-ui.messages-snapshot', value: rest(ev) });
        return;
      }
      case 'ACTIVITY_SNAPSHOT':
      case 'ACTIVITY_DELTA':
        emit({
          type: 'custom',
          name: type === 'ACTIVITY_SNAPSHOT' ? 'ag-ui.activity-snapshot' : 'ag-ui.activity-delta',
          value: rest(ev),
          subagentId: owner,
        });
        return;

      case 'RAW': {
        if (ev.event === undefined) return fieldError(type, 'event', 'a JSON value', undefined, where);
        if (m) {
          emit({
            type: 'raw',
            source: str(ev.source) ?? 'ag-ui',
            event: ev.event as Json,
            reason: str(m.reason),
            where: obj(m.where) as Location | undefined,
            subagentId: owner,
          });
          return;
        }
        const x = extras(ev, ['event', 'source']);
        emit({
          type: 'raw',
          source: str(ev.source) ?? 'ag-ui',
          event: (x ? ev : ev.event) as Json,
          reason: 'AG-UI RAW event',
          where,
          subagentId: owner,
        });
        return;
      }
      case 'CUSTOM': {
        const name = ev.name as string;
        const value = ev.value;
        const kind = name.startsWith(`${ns}.`) ? name.slice(ns.length + 1) : undefined;
        if (
          kind !== undefined &&
          CUSTOM_KINDS.has(kind) &&
          isObject(value) &&
          (kind !== 'citation' || openBlocks.has(value.blockId as string))
        ) {
          if (kind === 'error' && value.fatal === true) fatal = true;
          emit({ ...value, type: kind, subagentId: owner } as EventInit);
          return;
        }
        emit({ type: 'custom', name, value: (value ?? null) as Json, subagentId: owner });
        rawExtras(ev, extras(ev, ['name', 'value']), where, owner);
        return;
      }

      case 'SUBAGENT_STARTED': {
        const id = ev.subagentRunId as string;
        subagents.add(id);
        const used = ['name', 'description', 'parentSubagentRunId', 'parentToolCallId'];
        if (m) used.push('parentMessageId');
        emit({
          type: 'subagent-start',
          subagentId: id,
          name: ev.name as string,
          task: str(ev.description),
          parentSubagentId: str(ev.parentSubagentRunId) ?? str(m?.parentSubagentId),
          parentToolCallId: str(ev.parentToolCallId),
        });
        rawExtras(ev, extras(ev, used), where, id);
        return;
      }
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR': {
        const id = ev.subagentRunId as string;
        if (!subagents.delete(id))
          sequenceError(
            'unknown_block',
            `${type} for subagent "${id}", which is not active`,
            where,
            'subagentRunId',
            'the id of an active subagent',
          );
        if (type === 'SUBAGENT_ERROR') {
          emit({ type: 'subagent-finish', subagentId: id, error: str(ev.message) ?? 'subagent error', result: str(m?.result) });
          rawExtras(ev, extras(ev, ['message']), where, id);
        } else {
          const result = str(ev.result);
          emit({ type: 'subagent-finish', subagentId: id, result });
          rawExtras(ev, extras(ev, result !== undefined ? ['result'] : []), where, id);
        }
        return;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // *_CHUNK expansion and legacy events (what the official client's transformChunks / compatibility layer do)
  // ---------------------------------------------------------------------------------------------

  function closeLane(owner: Owner, where: Location | undefined): void {
    const lane = lanes.get(owner);
    if (!lane) return;
    lanes.delete(owner);
    const end =
      lane.kind === 'text'
        ? { type: 'TEXT_MESSAGE_END', messageId: lane.id }
        : lane.kind === 'tool'
          ? { type: 'TOOL_CALL_END', toolCallId: lane.id }
          : { type: 'REASONING_MESSAGE_END', messageId: lane.id };
    if (owner !== undefined) (end as Ev).subagentRunId = owner;
    apply(end.type, end, where);
  }

  function closeLanes(where: Location | undefined): void {
    for (const owner of [...lanes.keys()]) closeLane(owner, where);
  }

  function laneFor(kind: Lane['kind'], id: string | undefined, owner: Owner): Owner | null {
    if (id !== undefined) {
      for (const [o, l] of lanes) if (l.kind === kind && l.id === id) return o;
      return owner;
    }
    if (owner !== undefined) return owner;
    if (lanes.get(undefined)?.kind === kind) return undefined;
    const candidates = [...lanes].filter(([, l]) => l.kind === kind);
    if (candidates.length > 1) return null;
    return candidates.length === 1 ? candidates[0][0] : undefined;
  }

  function chunk(type: string, ev: Ev, where: Location | undefined): void {
    const kind: Lane['kind'] = type === 'TEXT_MESSAGE_CHUNK' ? 'text' : type === 'TOOL_CALL_CHUNK' ? 'tool' : 'reasoning';
    const idField = kind === 'tool' ? 'toolCallId' : 'messageId';
    const id = str(ev[idField]);
    const owner = str(ev.subagentRunId);
    const laneKey = laneFor(kind, id, owner);
    if (laneKey === null)
      return sequenceError(
        'invalid_field',
        `${type} without ${idField} or subagentRunId while several lanes are open`,
        where,
        idField,
        'an id or a subagentRunId',
      );
    const open = lanes.get(laneKey);
    let current: string;
    let metadataUsed = false;
    if (open?.kind === kind && (id === undefined || id === open.id)) current = open.id;
    else {
      closeLane(laneKey, where);
      if (id === undefined) return fieldError(type, idField, `a string on the first ${type}`, undefined, where);
      const start: Ev =
        kind === 'text'
          ? { type: 'TEXT_MESSAGE_START', messageId: id, role: ev.role ?? 'assistant', name: ev.name }
          : kind === 'tool'
            ? { type: 'TOOL_CALL_START', toolCallId: id, toolCallName: ev.toolCallName, parentMessageId: ev.parentMessageId }
            : { type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' };
      if (kind === 'tool' && typeof ev.toolCallName !== 'string')
        return fieldError(type, 'toolCallName', `a string on the first ${type}`, undefined, where);
      if (owner !== undefined) start.subagentRunId = owner;
      if (ev.metadata !== undefined) {
        start.metadata = ev.metadata;
        metadataUsed = true;
      }
      defined(start);
      if (!check(start.type as string, start, where)) return;
      apply(start.type as string, start, where);
      lanes.set(laneKey, { kind, id });
      current = id;
    }
    // The chunk's other fields travel on the content event, as transformChunks does (role, name,
    // toolCallName and parentMessageId of a continuation must repeat the opener's: nothing new).
    const content: Ev = {};
    let more = false;
    for (const k in ev) {
      if (CHUNK_OPENER_FIELDS.has(k) || k === idField || (k === 'metadata' && metadataUsed)) continue;
      content[k] = ev[k];
      if (k !== 'timestamp') more = true;
    }
    if (ev.delta !== undefined || more) {
      content.type = kind === 'text' ? 'TEXT_MESSAGE_CONTENT' : kind === 'tool' ? 'TOOL_CALL_ARGS' : 'REASONING_MESSAGE_CONTENT';
      content[idField] = current;
      content.delta = ev.delta ?? '';
      if (owner !== undefined) content.subagentRunId = owner;
      if (check(content.type as string, content, where)) apply(content.type as string, content, where);
    }
  }

  function legacy(type: string, ev: Ev, where: Location | undefined): void {
    const mint = () => `thinking-${++legacyCount}`;
    switch (type) {
      case 'THINKING_START':
        legacySpan = mint();
        return dispatch({ ...ev, type: 'REASONING_START', messageId: legacySpan }, where);
      case 'THINKING_END': {
        const id = legacySpan ?? mint();
        legacySpan = undefined;
        return dispatch({ ...ev, type: 'REASONING_END', messageId: id }, where);
      }
      case 'THINKING_TEXT_MESSAGE_START':
        legacyMessage = legacySpan ?? mint();
        return dispatch({ ...ev, type: 'REASONING_MESSAGE_START', messageId: legacyMessage, role: 'reasoning' }, where);
      case 'THINKING_TEXT_MESSAGE_CONTENT':
        legacyMessage ??= mint();
        return dispatch({ ...ev, type: 'REASONING_MESSAGE_CONTENT', messageId: legacyMessage }, where);
      default: {
        const id = legacyMessage ?? mint();
        legacyMessage = undefined;
        return dispatch({ ...ev, type: 'REASONING_MESSAGE_END', messageId: id }, where);
      }
    }
  }

  /** One AG-UI event (already checked): lanes first, then the event. */
  function dispatch(ev: Ev, where: Location | undefined): void {
    const type = ev.type as string;
    if (!check(type, ev, where)) return;
    const owner = str(ev.subagentRunId);
    switch (type) {
      case 'TEXT_MESSAGE_CHUNK':
      case 'TOOL_CALL_CHUNK':
      case 'REASONING_MESSAGE_CHUNK':
        return chunk(type, ev, where);
      case 'RUN_STARTED':
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
      case 'MESSAGES_SNAPSHOT':
        closeLanes(where);
        break;
      case 'RAW':
      case 'ACTIVITY_SNAPSHOT':
      case 'ACTIVITY_DELTA':
      case 'REASONING_ENCRYPTED_VALUE':
      case 'SUBAGENT_STARTED':
        break;
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        closeLane(owner, where);
        break;
      default:
        if ((LEGACY_TYPES as readonly string[]).includes(type)) return legacy(type, ev, where);
        closeLane(owner, where);
    }
    apply(type, ev, where);
  }

  function handle(ev: Ev, where: Location | undefined): void {
    const type = ev.type;
    ts = Number.isSafeInteger(ev.timestamp) ? (ev.timestamp as number) : undefined;
    if (typeof type !== 'string') return fieldError('event', 'type', 'a string event type', type, where);
    if (!TYPES.has(type)) {
      emit({ type: 'raw', source: 'ag-ui', event: ev as Json, reason: `unknown event type ${JSON.stringify(type)}`, where });
      return;
    }
    dispatch(ev, where);
  }

  function take(): ReturnType<Emitter['take']> {
    return out ? out.take() : [];
  }

  return {
    push(value, where) {
      if (!isObject(value))
        error('invalid_event', `${describe(where ?? {})}: expected an AG-UI event (a JSON object with a "type"), got ${kindOf(value)}`, {
          ...where,
          expected: 'object',
        });
      else handle(value, where);
      return take();
    },
    fault(code, message, where) {
      error(code, message, where);
      return take();
    },
    end() {
      ts = undefined;
      if (!out) {
        error('empty', 'the stream contained no AG-UI events', undefined, true);
        fatal = true;
        emit({ type: 'run-finish', finishReason: 'error' });
      } else if (run !== 'finished') {
        if (!fatal)
          error(
            'truncated',
            run === 'open' ? 'the stream ended before RUN_FINISHED or RUN_ERROR' : 'the stream ended without RUN_STARTED … RUN_FINISHED',
            undefined,
            true,
          );
        fatal = true;
        closeAll();
        flushHeld();
        emit({ type: 'run-finish', finishReason: 'error' });
      } else {
        closeAll();
        ts = heldTs;
        emit(held ?? { type: 'run-finish', finishReason: 'stop' });
        held = undefined;
      }
      return take();
    },
  };
}
