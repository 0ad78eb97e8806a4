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
 *
 * The reader is one closure, `createAgUiDecoder`: its state as locals at the top, then the shared
 * helpers, the START / CONTENT / END families (one table), the run lifecycle, the mapping of every
 * other event, the `*_CHUNK` and pre-1.0 THINKING_* expansion, and the push / fault / end shell.
 */
import { describe } from '../../codec/framing.ts';
import { at, type Decoder, isObject } from '../../inputs/decoder.ts';
import { parseToolInput, shown } from '../../inputs/kit/index.ts';
import { type DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { EventInit, EventOf, FinishReason, Json, JsonObject, Location, ProviderMetadata, Usage } from '../../model/events.ts';
import { withoutUndefined } from '../../model/fields.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS, STEP_KINDS as MODEL_STEP_KINDS, PATCH_OPERATIONS } from '../../model/vocabulary.ts';
import { AG_UI_CUSTOM_KINDS, AG_UI_EVENT_TYPES } from './schema.ts';

export interface AgUiDecoderOptions extends DecoderOptions {
  /** `metadata` key our AG-UI encoder writes canonical fields under. Default `switchboard`. */
  namespace?: string;
  /**
   * Keep `rawEvent` (the upstream framework's own event that AG-UI producers attach for debugging).
   * Default true: it goes to `providerMetadata['ag-ui'].rawEvent`, or a `raw` event next to deltas.
   */
  rawEvents?: boolean;
}

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
const PATCH_OPS = new Set<string>(PATCH_OPERATIONS);
const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);
const STEP_KINDS = new Set<string>(MODEL_STEP_KINDS);

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

/** The subagent an event belongs to (`subagentRunId`), undefined for the main agent. */
type Owner = string | undefined;
type Ev = Record<string, unknown>;
/** Our encoder's fields of an event (`metadata[namespace]`), when it carries them. */
type Meta = Record<string, unknown> | undefined;

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
/** The message or call an owner's `*_CHUNK` events continue. */
interface Lane {
  kind: 'text' | 'tool' | 'reasoning';
  id: string;
}

/** One START / CONTENT / END family: how its id is found, and what opening, content and closing do. */
interface SpanFamily<S extends { owner: Owner }> {
  /** In words, for errors: `text message`, `tool call`, … */
  label: string;
  idField: 'messageId' | 'toolCallId';
  start: string;
  content?: string;
  end: string;
  /** The START a CONTENT without one stands for (it is opened with it). */
  implied?: (id: string, owner: Owner) => Ev;
  /** Added to the error of such a CONTENT. */
  impliedNote?: string;
  get(id: string): S | undefined;
  open(ev: Ev, m: Meta, where: Location | undefined): S;
  /** One CONTENT; `x` holds its fields the mapping did not use (they follow in a raw event). */
  append?(state: S, ev: Ev, m: Meta, x: JsonObject | undefined): void;
  close(id: string, state: S, ev: Ev | undefined, m: Meta, where?: Location): void;
}

const family = <S extends { owner: Owner }>(f: SpanFamily<S>): SpanFamily<{ owner: Owner }> => f as unknown as SpanFamily<{ owner: Owner }>;

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

/** True for one AG-UI event object (its `type` is an AG-UI event type: upper snake case, never Anthropic's or the agent format's). */
export function detectAgUi(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string' && TYPES.has(value.type);
}

/** Creates an AG-UI reader: push AG-UI event objects, get canonical events. */
export function createAgUiDecoder(options: AgUiDecoderOptions = {}): Decoder {
  const ns = options.namespace ?? 'switchboard';
  const keepRaw = options.rawEvents ?? true;
  const clock = options.now ?? Date.now;

  /** The current input event's `timestamp`: canonical `ts` when the producer sent one. */
  let ts: number | undefined;
  /** The emitter, created at the first event so a stream's own RUN_STARTED.runId can be the run id. */
  let out: Emitter | undefined;
  /** Where the AG-UI run stands: before RUN_STARTED, between it and RUN_FINISHED / RUN_ERROR, after. */
  let run: 'none' | 'open' | 'finished' = 'none';
  /** An event outside a run was reported since the run last started or finished (once is enough). */
  let reportedOutside = false;
  /** The last run's run-finish / run-abort, held until the input ends (another run makes it a custom event). */
  let held: EventInit | undefined;
  /** `timestamp` of the RUN_FINISHED / RUN_ERROR whose run-finish is held until the input ends. */
  let heldTs: number | undefined;
  /** A fatal error was emitted (the end then adds no truncation error). */
  let fatal = false;
  /** Open text messages by messageId. */
  const texts = new Map<string, TextState>();
  /** Block ids of the open text and reasoning blocks (a citation must point at one). */
  const openBlocks = new Set<string>();
  /** Open reasoning messages by messageId. */
  const reasonings = new Map<string, ReasoningState>();
  /** Open reasoning spans (REASONING_START … REASONING_END) by messageId, with their owner. */
  const spans = new Map<string, { owner: Owner }>();
  /** Open tool calls by toolCallId. */
  const tools = new Map<string, ToolState>();
  /** The name of every tool call read, by toolCallId (results and waits name their tool). */
  const toolNames = new Map<string, string>();
  /** Tool calls of the current AG-UI run, and those of them that got a result (the rest are pending). */
  const runCalls = new Set<string>();
  const answered = new Set<string>();
  /** Active steps by owner + name. */
  const steps = new Map<string, { stepId: string; owner: Owner; name: string }>();
  /** Active subagents by subagentRunId. */
  const subagents = new Set<string>();
  /** Every block id and step id given out (a reused AG-UI id gets a `:2` suffix). */
  const blockIds = new Set<string>();
  const stepIds = new Set<string>();
  /** The open `*_CHUNK` lane of each owner. */
  const lanes = new Map<Owner, Lane>();
  /** The pre-1.0 THINKING_START span and THINKING_TEXT_MESSAGE open now, and how many ids were minted for them. */
  let legacySpan: string | undefined;
  let legacyMessage: string | undefined;
  let legacyCount = 0;

  // --- helpers ---------------------------------------------------------------------------------

  function em(runId?: string): Emitter {
    out ??= new Emitter({ ...options, runId: options.runId ?? runId, now: () => ts ?? clock() }, 'ag-ui');
    return out;
  }

  function emit(e: EventInit): void {
    em().emit(withoutUndefined(e));
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

  /** `id`, or `id:2`, `id:3`, … when `set` already holds it; the result is added to `set`. */
  function unique(set: Set<string>, id: string): string {
    let outId = id;
    for (let k = 2; set.has(outId); k++) outId = `${id}:${k}`;
    set.add(outId);
    return outId;
  }

  /** Our encoder's canonical fields, when the event carries them. */
  function ours(ev: Ev): Meta {
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

  /** The providerMetadata of an event: ours as the encoder wrote it, plus the unused fields under `ag-ui`. */
  function pmOf(m: Meta, x: JsonObject | undefined): ProviderMetadata | undefined {
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
      reason: `${shown(ev.type)}: ${Object.keys(x).join(', ')} ha${Object.keys(x).length === 1 ? 's' : 've'} no canonical field`,
      where,
      subagentId: owner,
    });
  }

  /** The event without its `type`: the value of the custom event it becomes. */
  function rest(ev: Ev): JsonObject {
    const { type: _t, ...value } = ev;
    return value as JsonObject;
  }

  /** The event's string fields and envelope are what its type needs; a located error otherwise. */
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

  function take(): ReturnType<Emitter['take']> {
    return out ? out.take() : [];
  }

  // --- text messages, reasoning, tool calls: the START / CONTENT / END families -------------

  function openText(ev: Ev, m: Meta, where: Location | undefined): TextState {
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

  function closeText(id: string, t: TextState, ev: Ev | undefined, m: Meta, where?: Location): void {
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

  function openReasoning(ev: Ev, m: Meta): ReasoningState {
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

  function closeReasoning(id: string, r: ReasoningState, ev: Ev | undefined, m: Meta): void {
    reasonings.delete(id);
    openBlocks.delete(r.blockId);
    let x = ev ? extras(ev, ['messageId']) : undefined;
    if (r.encrypted !== undefined && !isObject(m?.providerMetadata)) x = { ...x, encryptedValue: r.encrypted };
    emit({ type: 'reasoning-end', blockId: r.blockId, subagentId: r.owner, providerMetadata: pmOf(m, x) });
  }

  function openTool(ev: Ev, m: Meta): ToolState {
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

  function closeTool(id: string, t: ToolState, ev: Ev | undefined, m: Meta): void {
    tools.delete(id);
    const text = t.args.join('');
    let input: Json;
    let inputError = str(m?.inputError);
    if (m && m.input !== undefined) input = m.input as Json;
    else if (inputError !== undefined) input = text;
    else ({ input, inputError } = parseToolInput(text));
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
    for (const id of spans.keys()) if (!reasonings.has(id)) parts.push(`reasoning span "${id}"`);
    for (const id of tools.keys()) parts.push(`tool call "${id}"`);
    for (const step of steps.values()) parts.push(`step "${step.name}"`);
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
    for (const [key, step] of [...steps]) {
      steps.delete(key);
      emit({ type: 'step-finish', stepId: step.stepId, subagentId: step.owner });
    }
    for (const id of [...subagents]) {
      subagents.delete(id);
      emit({ type: 'subagent-finish', subagentId: id });
    }
  }

  /** AG-UI's START / CONTENT / END families, one row each: `handleSpan` handles them all alike. */
  const FAMILIES = [
    family<TextState>({
      label: 'text message',
      idField: 'messageId',
      start: 'TEXT_MESSAGE_START',
      content: 'TEXT_MESSAGE_CONTENT',
      end: 'TEXT_MESSAGE_END',
      implied: (id, owner) => ({ type: 'TEXT_MESSAGE_START', messageId: id, subagentRunId: owner }),
      get: (id) => texts.get(id),
      open: openText,
      append(t, ev) {
        if (t.side) t.side.parts.push(ev.delta as string);
        else emit({ type: 'text-delta', blockId: t.blockId, delta: ev.delta as string, subagentId: t.owner });
      },
      close: closeText,
    }),
    family<ToolState>({
      label: 'tool call',
      idField: 'toolCallId',
      start: 'TOOL_CALL_START',
      content: 'TOOL_CALL_ARGS',
      end: 'TOOL_CALL_END',
      implied: (id, owner) => ({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: 'unknown', subagentRunId: owner }),
      impliedNote: ' as tool "unknown"',
      get: (id) => tools.get(id),
      open: openTool,
      append(t, ev, m, x) {
        t.args.push(ev.delta as string);
        // Ours: the arguments of an input that arrived whole, which was no canonical delta.
        if (m?.whole === true && !x) return;
        emit({ type: 'tool-input-delta', toolCallId: ev.toolCallId as string, delta: ev.delta as string, subagentId: t.owner });
      },
      close: closeTool,
    }),
    family<{ owner: Owner }>({
      label: 'reasoning span',
      idField: 'messageId',
      start: 'REASONING_START',
      end: 'REASONING_END',
      get: (id) => spans.get(id),
      open(ev, _m, where) {
        const span = { owner: str(ev.subagentRunId) };
        spans.set(ev.messageId as string, span);
        rawExtras(ev, extras(ev, ['messageId']), where, span.owner);
        return span;
      },
      close(id, _span, ev, _m, where) {
        spans.delete(id);
        if (ev) rawExtras(ev, extras(ev, ['messageId']), where, str(ev.subagentRunId));
      },
    }),
    family<ReasoningState>({
      label: 'reasoning message',
      idField: 'messageId',
      start: 'REASONING_MESSAGE_START',
      content: 'REASONING_MESSAGE_CONTENT',
      end: 'REASONING_MESSAGE_END',
      implied: (id, owner) => ({ type: 'REASONING_MESSAGE_START', messageId: id, subagentRunId: owner }),
      get: (id) => reasonings.get(id),
      open: openReasoning,
      append: (r, ev) => emit({ type: 'reasoning-delta', blockId: r.blockId, delta: ev.delta as string, subagentId: r.owner }),
      close: closeReasoning,
    }),
  ];
  /** Each START / CONTENT / END event type → its family and phase. */
  const spanOf = new Map<string, { f: (typeof FAMILIES)[number]; phase: 'start' | 'content' | 'end' }>();
  for (const f of FAMILIES) {
    spanOf.set(f.start, { f, phase: 'start' });
    if (f.content) spanOf.set(f.content, { f, phase: 'content' });
    spanOf.set(f.end, { f, phase: 'end' });
  }

  /**
   * One START / CONTENT / END event: a START of something already open and an END of something not
   * open are located errors; a CONTENT of something not open is one too, and opens it. False for
   * other events.
   */
  function handleSpan(type: string, ev: Ev, m: Meta, where: Location | undefined): boolean {
    const row = spanOf.get(type);
    if (!row) return false;
    const { f, phase } = row;
    const id = ev[f.idField] as string;
    let state = f.get(id);
    if (phase === 'start') {
      if (state !== undefined)
        sequenceError(
          'unexpected_event',
          `${type} for ${f.label} "${id}", which is already open`,
          where,
          f.idField,
          'an id that is not open',
        );
      else f.open(ev, m, where);
      return true;
    }
    if (phase === 'end') {
      if (state === undefined)
        sequenceError(
          'unknown_block',
          `${type} for ${f.label} "${id}", which is not open`,
          where,
          f.idField,
          `the id of an open ${f.label}`,
        );
      else f.close(id, state, ev, m, where);
      return true;
    }
    if (state === undefined) {
      sequenceError(
        'unknown_block',
        `${type} for ${f.label} "${id}", which was never started (or already ended); opened here${f.impliedNote ?? ''}`,
        where,
        f.idField,
        `the id of an open ${f.label}`,
      );
      state = f.open((f.implied as (id: string, owner: Owner) => Ev)(id, str(ev.subagentRunId)), undefined, where);
    }
    const x = extras(ev, [f.idField, 'delta']);
    f.append?.(state, ev, m, x);
    rawExtras(ev, x, where, state.owner);
    return true;
  }

  // --- the run: RUN_STARTED, RUN_FINISHED, RUN_ERROR -------------------------------------------

  /** A finished AG-UI run followed by another: its finish becomes a custom event. */
  function flushHeld(): void {
    if (!held) return;
    const { type, ...value } = withoutUndefined(held) as Record<string, unknown>;
    emit({ type: 'custom', name: type === 'run-abort' ? 'ag-ui.run-cancelled' : 'ag-ui.run-finished', value: value as Json });
    held = undefined;
  }

  /** The run ends waiting for tool results: the outcome names pending calls, or a call of the run has no result. */
  function pending(ev: Ev): boolean {
    const outcome = ev.outcome;
    if (isObject(outcome) && Array.isArray(outcome.pendingToolCallIds) && outcome.pendingToolCallIds.length > 0) return true;
    for (const id of runCalls) if (!answered.has(id)) return true;
    return false;
  }

  /**
   * RUN_FINISHED's outcome back to what the run waits for: an interrupt with reason `tool_approval` and
   * a toolCallId → tool-approval-request (our encoder's shape), any other → interrupt; the success
   * outcome's pendingToolCallIds → client-tool-call. Returns how many it read.
   */
  function waits(outcome: Record<string, unknown> | undefined): number {
    let n = 0;
    if (outcome?.type === 'interrupt' && Array.isArray(outcome.interrupts)) {
      for (const i of outcome.interrupts) {
        if (!isObject(i) || !str(i.id) || !str(i.reason)) continue;
        n++;
        const meta = obj(i.metadata);
        const toolCallId = str(i.toolCallId);
        if (i.reason === 'tool_approval' && toolCallId !== undefined) {
          const toolName = str(meta?.toolName) ?? toolNames.get(toolCallId);
          emit({ type: 'tool-approval-request', approvalId: i.id, toolCallId, toolName, reason: str(i.message) } as EventInit);
          continue;
        }
        emit({
          type: 'interrupt',
          interruptId: i.id,
          reason: i.reason,
          message: str(i.message),
          toolCallId,
          value: meta?.value,
          responseSchema: obj(i.responseSchema),
          expiresAt: str(i.expiresAt),
        } as EventInit);
      }
    }
    if (outcome?.type === 'success' && Array.isArray(outcome.pendingToolCallIds)) {
      for (const id of outcome.pendingToolCallIds) {
        if (!str(id)) continue;
        n++;
        emit({ type: 'client-tool-call', toolCallId: id, toolName: toolNames.get(id) } as EventInit);
      }
    }
    return n;
  }

  /**
   * RunAgentInput.resume (on RUN_STARTED's input): the answers this run starts with — an entry whose
   * payload has a boolean `approved` answers an approval (cancelled: a denial), any other an interrupt.
   */
  function resumed(input: unknown): void {
    if (!isObject(input) || !Array.isArray(input.resume)) return;
    for (const r of input.resume) {
      if (!isObject(r) || !str(r.interruptId) || (r.status !== 'resolved' && r.status !== 'cancelled')) continue;
      const payload = obj(r.payload);
      if (payload && typeof payload.approved === 'boolean') {
        const approved = r.status === 'resolved' && payload.approved;
        emit({ type: 'tool-approval-response', approvalId: r.interruptId, approved, reason: str(payload.reason) } as EventInit);
      } else emit({ type: 'interrupt-response', interruptId: r.interruptId, status: r.status, payload: r.payload } as EventInit);
    }
  }

  function runStarted(ev: Ev, m: Meta, where: Location | undefined): void {
    if (run === 'open') {
      sequenceError(
        'unexpected_event',
        `RUN_STARTED while run "${shown(ev.runId)}" … the previous run is still open (no RUN_FINISHED or RUN_ERROR)`,
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
      e.start(withoutUndefined(init));
      resumed(ev.input);
    } else {
      flushHeld();
      emit({ type: 'custom', name: 'ag-ui.run-started', value: rest(ev) });
    }
    run = 'open';
    reportedOutside = false;
    runCalls.clear();
    answered.clear();
  }

  function runFinished(ev: Ev, m: Meta, where: Location | undefined): void {
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
    const outcome = isObject(ev.outcome) ? ev.outcome : undefined;
    const read = m?.abort ? 0 : waits(outcome);
    // Our encoder's outcome is an interrupt when approvals wait too: the client calls are in its pending.
    const waiting = obj(m?.pending);
    if (outcome?.type === 'interrupt' && Array.isArray(waiting?.toolCallIds))
      waits({ type: 'success', pendingToolCallIds: waiting.toolCallIds });
    if (m) {
      held = m.abort
        ? { type: 'run-abort', reason: str(m.reason) }
        : {
            type: 'run-finish',
            finishReason: FINISH_REASONS.has(m.finishReason as string) ? (m.finishReason as FinishReason) : 'stop',
            rawFinishReason: str(m.rawFinishReason),
            usage: obj(m.usage) as Usage | undefined,
            pending: obj(m.pending) as EventOf<'run-finish'>['pending'],
            providerMetadata: obj(m.providerMetadata) as ProviderMetadata | undefined,
          };
    } else {
      const x = extras(ev, ['usage']);
      if (outcome?.type === 'cancelled') {
        held = { type: 'run-abort' };
        rawExtras(ev, x, where, undefined);
      } else {
        // What the outcome waits for was read as events: the run-finish names it (the emitter's pending).
        const finishReason: FinishReason =
          outcome?.type === 'interrupt' ? (read > 0 ? 'stop' : 'interrupted') : pending(ev) ? 'tool-calls' : 'stop';
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

  function runError(ev: Ev, m: Meta, where: Location | undefined): void {
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

  // --- one AG-UI event (checked, chunks expanded) → canonical events ---------------------------

  function apply(type: string, ev: Ev, where: Location | undefined): void {
    const m = ours(ev);
    const owner = str(ev.subagentRunId);
    if (type === 'RUN_STARTED') return runStarted(ev, m, where);
    if (type === 'RUN_ERROR') return runError(ev, m, where);
    if (run !== 'open' && !reportedOutside) {
      reportedOutside = true;
      sequenceError(
        'unexpected_event',
        run === 'none' ? `${type} before RUN_STARTED` : `${type} after the run finished (RUN_FINISHED)`,
        where,
        'type',
        run === 'none' ? 'RUN_STARTED first' : 'RUN_STARTED before more events',
      );
    }
    if (type === 'RUN_FINISHED') return runFinished(ev, m, where);
    if (handleSpan(type, ev, m, where)) return;
    switch (type) {
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
        const step = steps.get(key);
        if (!step)
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
          stepId: step.stepId,
          finishReason: FINISH_REASONS.has(m?.finishReason as string) ? (m?.finishReason as FinishReason) : undefined,
          rawFinishReason: str(m?.rawFinishReason),
          usage: obj(m?.usage) as Usage | undefined,
          durationMs: typeof m?.durationMs === 'number' ? m.durationMs : undefined,
          subagentId: owner,
          providerMetadata: pmOf(m, extras(ev, ['stepName'])),
        });
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
      case 'ACTIVITY_DELTA': {
        const name = type === 'ACTIVITY_SNAPSHOT' ? 'ag-ui.activity-snapshot' : 'ag-ui.activity-delta';
        emit({ type: 'custom', name, value: rest(ev), subagentId: owner });
        return;
      }

      case 'RAW': {
        if (ev.event === undefined) return fieldError(type, 'event', 'a JSON value', undefined, where);
        const source = str(ev.source) ?? 'ag-ui';
        if (m) {
          const mWhere = obj(m.where) as Location | undefined;
          emit({ type: 'raw', source, event: ev.event as Json, reason: str(m.reason), where: mWhere, subagentId: owner });
          return;
        }
        const x = extras(ev, ['event', 'source']);
        emit({ type: 'raw', source, event: (x ? ev : ev.event) as Json, reason: 'AG-UI RAW event', where, subagentId: owner });
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

  // --- `*_CHUNK` lanes and pre-1.0 THINKING_* events, as the official client reads them -----

  /** Ends an owner's chunk lane with the END event of what it opened. */
  function closeLane(owner: Owner, where: Location | undefined): void {
    const lane = lanes.get(owner);
    if (!lane) return;
    lanes.delete(owner);
    const end: Ev =
      lane.kind === 'text'
        ? { type: 'TEXT_MESSAGE_END', messageId: lane.id }
        : lane.kind === 'tool'
          ? { type: 'TOOL_CALL_END', toolCallId: lane.id }
          : { type: 'REASONING_MESSAGE_END', messageId: lane.id };
    if (owner !== undefined) end.subagentRunId = owner;
    apply(end.type as string, end, where);
  }

  function closeLanes(where: Location | undefined): void {
    for (const owner of [...lanes.keys()]) closeLane(owner, where);
  }

  /** The lane a chunk continues or opens: by its id, else by its owner, else the one lane of its kind (null: several). */
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

  /** One `*_CHUNK`: opens (or continues) its lane with a START, then its content as a CONTENT event (`transformChunks`). */
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
      let start: Ev =
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
      start = withoutUndefined(start);
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

  /** A pre-1.0 THINKING_* event as its REASONING_* equivalent (ids minted: the old events had none). */
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

  /** One AG-UI event of a known type: checked, chunks expanded, the lanes it ends closed, then `apply`. */
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

  // --- the decoder -----------------------------------------------------------------------------

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
