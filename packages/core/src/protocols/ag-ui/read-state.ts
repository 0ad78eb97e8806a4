/**
 * The AG-UI reader's state and the helpers every part of it uses: what is open (text, reasoning and
 * tool messages, reasoning spans, steps, subagents, chunk lanes), where the run stands, the emitter,
 * and the located errors, unused-field collection and metadata reading. One `ReadState` per reader;
 * `spans.ts`, `run.ts`, `apply.ts` and `chunks.ts` act on it, `reader.ts` puts them together.
 */

import { describe } from '../../codec/framing.ts';
import { at, isObject } from '../../inputs/decoder.ts';
import { shown } from '../../inputs/kit/index.ts';
import { type DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location, ProviderMetadata, Usage } from '../../model/events.ts';
import { withoutUndefined } from '../../model/fields.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS, STEP_KINDS as MODEL_STEP_KINDS, PATCH_OPERATIONS } from '../../model/vocabulary.ts';
import { AG_UI_CUSTOM_KINDS, AG_UI_EVENT_TYPES } from './schema.ts';

/** Pre-1.0 reasoning events, read as their REASONING_* equivalents (as the official client's compatibility layer does). */
export const LEGACY_TYPES = [
  'THINKING_START',
  'THINKING_END',
  'THINKING_TEXT_MESSAGE_START',
  'THINKING_TEXT_MESSAGE_CONTENT',
  'THINKING_TEXT_MESSAGE_END',
] as const;

export const TYPES = new Set<string>([...AG_UI_EVENT_TYPES, ...LEGACY_TYPES]);
export const CUSTOM_KINDS = new Set<string>(AG_UI_CUSTOM_KINDS);

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
export const REQUIRED: Record<string, readonly string[]> = {
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
export const OPTIONAL: Record<string, readonly string[]> = {
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
export const CHUNK_OPENER_FIELDS = new Set(['type', 'role', 'name', 'toolCallName', 'parentMessageId', 'delta', 'subagentRunId']);

export const PATCH_OPS = new Set<string>(PATCH_OPERATIONS);
export const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);
export const STEP_KINDS = new Set<string>(MODEL_STEP_KINDS);

export type Owner = string | undefined;
export type Ev = Record<string, unknown>;

export interface TextState {
  blockId: string;
  owner: Owner;
  /** Non-assistant messages (user / system / developer text) are collected and passed on whole. */
  side?: { role: string; name?: string; parts: string[] };
}
export interface ReasoningState {
  blockId: string;
  owner: Owner;
  encrypted?: string;
}
export interface ToolState {
  name: string;
  owner: Owner;
  args: string[];
  encrypted?: string;
}
export interface Lane {
  kind: 'text' | 'tool' | 'reasoning';
  id: string;
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const obj = (v: unknown): JsonObject | undefined => (isObject(v) ? (v as JsonObject) : undefined);

/** An AG-UI `TokenUsage[]` as a canonical usage (summed over entries; the array kept in `raw`). */
export function usageOf(list: unknown): Usage | undefined {
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

/** The state of one AG-UI reader. */
export type ReadState = ReturnType<typeof createReadState>;

/** Creates a reader's state. */
export function createReadState(options: AgUiDecoderOptions) {
  const ns = options.namespace ?? 'switchboard';
  const keepRaw = options.rawEvents ?? true;
  const clock = options.now ?? Date.now;
  const s = {
    ns,
    /** The current input event's `timestamp`: canonical `ts` when the producer sent one. */
    ts: undefined as number | undefined,
    out: undefined as Emitter | undefined,
    run: 'none' as 'none' | 'open' | 'finished',
    reportedOutside: false,
    held: undefined as EventInit | undefined,
    /** `timestamp` of the RUN_FINISHED / RUN_ERROR whose run-finish is held until the input ends. */
    heldTs: undefined as number | undefined,
    fatal: false,
    texts: new Map<string, TextState>(),
    openBlocks: new Set<string>(),
    reasonings: new Map<string, ReasoningState>(),
    spans: new Set<string>(),
    tools: new Map<string, ToolState>(),
    toolNames: new Map<string, string>(),
    runCalls: new Set<string>(),
    answered: new Set<string>(),
    steps: new Map<string, { stepId: string; owner: Owner; name: string }>(),
    subagents: new Set<string>(),
    blockIds: new Set<string>(),
    stepIds: new Set<string>(),
    lanes: new Map<Owner, Lane>(),
    legacySpan: undefined as string | undefined,
    legacyMessage: undefined as string | undefined,
    legacyCount: 0,
    em,
    defined,
    emit,
    error,
    fieldError,
    sequenceError,
    unique,
    ours,
    extras,
    pmOf,
    rawExtras,
    rest,
    check,
    take,
  };

  /** The emitter, created at the first event so a stream's own RUN_STARTED.runId can be the run id. */
  function em(runId?: string): Emitter {
    s.out ??= new Emitter({ ...options, runId: options.runId ?? runId, now: () => s.ts ?? clock() }, 'ag-ui');
    return s.out;
  }

  /** Drops undefined fields without `delete` (V8 slows on objects whose keys are deleted): model/fields.ts. */
  function defined<T extends object>(e: T): T {
    return withoutUndefined(e);
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
      reason: `${shown(ev.type)}: ${Object.keys(x).join(', ')} ha${Object.keys(x).length === 1 ? 's' : 've'} no canonical field`,
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

  function take(): ReturnType<Emitter['take']> {
    return s.out ? s.out.take() : [];
  }

  return s;
}
