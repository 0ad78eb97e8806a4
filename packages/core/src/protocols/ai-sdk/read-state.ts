/**
 * The AI SDK reader's state and helpers: the run's emitter, the open text / reasoning blocks and
 * tool calls (by UI part id), the current step, a held error, and the located errors, metadata
 * reading, block and tool closing and the data-part mapping the chunk handler (`chunks.ts`) and the
 * reader (`reader.ts`) share.
 */
import { describe } from '../../codec/framing.ts';
import { at, isObject } from '../../inputs/decoder.ts';
import { type DecoderOptions, Emitter } from '../../model/emitter.ts';
import type {
  Citation,
  EventInit,
  FinishReason,
  Json,
  JsonObject,
  Location,
  ProviderMetadata,
  ReasoningVariant,
  Todo,
  Usage,
} from '../../model/events.ts';
import { USAGE_COUNTS } from '../../model/usage.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS, PATCH_OPERATIONS, TODO_CHANGES, TODO_STATUSES } from '../../model/vocabulary.ts';
import { parsePartialJson } from '../../transforms/partial-json.ts';

/** The framework name (run-start provider, raw source, providerMetadata key for AI SDK-only fields). */
export const FRAMEWORK = 'ai-sdk';

export interface AiSdkDecoderOptions extends DecoderOptions {
  /** providerMetadata key that carries the reasoning variant. Default `switchboard`; `switchboard` and `mobox` are always read too. */
  namespace?: string;
}

export const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);
export const TODO_STATUS = new Set<string>(TODO_STATUSES);
export const TODO_CHANGE = new Set<string>(TODO_CHANGES);
export const USAGE_SCOPE = new Set<string>(['increment', 'step', 'total']);
export const USAGE_NUMBERS = new Set<string>(USAGE_COUNTS);
export const PATCH_OPS = new Set<string>(PATCH_OPERATIONS);

/** Chunks that may follow an `error` chunk on the way to `finish` (an error is held back over them). */
export const CLOSING = new Set<string>([
  'text-end',
  'reasoning-end',
  'tool-input-available',
  'tool-input-error',
  'finish-step',
  'data-usage',
]);

export function onlyKeys(o: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

export const str = (v: unknown): v is string => typeof v === 'string';

export interface BlockState {
  id: string;
  /** providerMetadata of the deltas, sent with the end event. */
  pm?: ProviderMetadata;
}

export interface ToolState {
  name: string;
  open: boolean;
  text: string;
  textEncoding: boolean;
  providerExecuted: boolean;
  pm?: ProviderMetadata;
}

export interface Held {
  error: EventInit & { type: 'error' };
  chunks: { value: unknown; where: Location | undefined }[];
}

/** Whether a `data-interrupt` / `data-interrupt-response` part's data is the canonical event without its envelope. */
function isInterruptData(name: string, d: Record<string, unknown>): boolean {
  const optional = (keys: string[]) => keys.every((k) => d[k] === undefined || str(d[k]));
  if (!str(d.interruptId)) return false;
  if (name === 'interrupt')
    return (
      str(d.reason) &&
      optional(['message', 'toolCallId', 'expiresAt']) &&
      (d.responseSchema === undefined || isObject(d.responseSchema)) &&
      (d.providerMetadata === undefined || isObject(d.providerMetadata)) &&
      onlyKeys(d, ['interruptId', 'reason', 'message', 'toolCallId', 'value', 'responseSchema', 'expiresAt', 'providerMetadata'])
    );
  return (
    (d.status === 'resolved' || d.status === 'cancelled') && optional(['by']) && onlyKeys(d, ['interruptId', 'status', 'payload', 'by'])
  );
}

/** The state of one AI SDK reader. */
export type ReadState = ReturnType<typeof createReadState>;

/** Creates a reader's state. */
export function createReadState(options: AiSdkDecoderOptions) {
  const out = new Emitter(options, FRAMEWORK);
  const namespaces = [...new Set([options.namespace ?? 'switchboard', 'switchboard', 'mobox'])];
  const usedIds = new Set<string>();
  const reuse = new Map<string, number>();
  const texts = new Map<string, BlockState>();
  const reasonings = new Map<string, BlockState>();
  const tools = new Map<string, ToolState>();
  const s = {
    options,
    out,
    namespaces,
    texts,
    reasonings,
    tools,
    /** approvalId → toolCallId of the tool-approval-request chunks read. */
    approvals: new Map<string, string>(),
    /** Tool calls whose denial was read (a tool-output-denied after it adds nothing). */
    denied: new Set<string>(),
    /** Denials read for calls the stream did not show (a continuation): each covers the next tool-output-denied. */
    unplacedDenials: 0,
    messageId: undefined as string | undefined,
    step: undefined as string | undefined,
    stepCount: 0,
    totalUsage: undefined as Usage | undefined,
    held: undefined as Held | undefined,
    fatal: false,
    received: 0,
    error,
    invalid,
    ensureStarted,
    blockId,
    pmOf,
    extras,
    restOf,
    variantOf,
    custom,
    raw,
    closeTool,
    closeBlocks,
    closeStep,
    openText,
    openReasoning,
    citationOf,
    knownData,
  };

  // --- helpers ---------------------------------------------------------------------------------

  function error(code: string, message: string, where?: Location, isFatal = false): void {
    const e: EventInit = { type: 'error', code, message, fatal: isFatal };
    if (where) e.where = where;
    out.emit(e);
  }

  function invalid(where: Location | undefined, field: string, expected: string, got?: unknown): void {
    const shown = got === undefined ? 'nothing' : Array.isArray(got) ? 'an array' : got === null ? 'null' : typeof got;
    error('invalid_field', `${describe(at(where, field))}: expected ${expected}, got ${shown}`, at(where, field, expected));
  }

  function ensureStarted(): void {
    if (out.started) return;
    out.start();
    s.messageId = options.messageId ?? out.runId;
  }

  /** A unique canonical block id for a UI part id (UI ids may be reused once a part is closed). */
  function blockId(wire: string): string {
    if (!usedIds.has(wire)) {
      usedIds.add(wire);
      return wire;
    }
    let n = reuse.get(wire) ?? 1;
    let id: string;
    do id = `${wire}:${++n}`;
    while (usedIds.has(id));
    reuse.set(wire, n);
    usedIds.add(id);
    return id;
  }

  /** Reads `providerMetadata`: an object of objects; anything else is reported and dropped. */
  function pmOf(v: Record<string, unknown>, where: Location | undefined, field = 'providerMetadata'): ProviderMetadata | undefined {
    const pm = v[field];
    if (pm === undefined || pm === null) return undefined;
    if (!isObject(pm)) {
      invalid(where, field, 'an object of provider objects', pm);
      return undefined;
    }
    let result: ProviderMetadata | undefined;
    for (const k in pm) {
      const entry = pm[k];
      if (entry === undefined) continue;
      if (!isObject(entry)) {
        invalid(where, `${field}.${k}`, 'an object', entry);
        continue;
      }
      result ??= {};
      result[k] = entry as JsonObject;
    }
    return result;
  }

  /** Fields of a chunk outside `known`: kept under providerMetadata['ai-sdk']. */
  function extras(v: Record<string, unknown>, known: readonly string[]): ProviderMetadata | undefined {
    let rest: JsonObject | undefined;
    for (const k in v) {
      if (known.includes(k) || v[k] === undefined) continue;
      rest ??= {};
      rest[k] = v[k] as Json;
    }
    return rest ? { [FRAMEWORK]: rest } : undefined;
  }

  /** The chunk without the listed keys, as a custom event's value. */
  function restOf(v: Record<string, unknown>, drop: readonly string[]): JsonObject {
    const rest: JsonObject = {};
    for (const k in v) if (!drop.includes(k) && v[k] !== undefined) rest[k] = v[k] as Json;
    return rest;
  }

  /** Takes the reasoning variant (and the encoder's measured durationMs, which `ts` carries) out of providerMetadata. */
  function variantOf(pm: ProviderMetadata | undefined): { variant?: ReasoningVariant; pm?: ProviderMetadata } {
    if (!pm) return {};
    let variant: ReasoningVariant | undefined;
    let result: ProviderMetadata | undefined = pm;
    for (const ns of namespaces) {
      const entry = result?.[ns];
      if (!entry || !('variant' in entry)) continue;
      const v = entry.variant;
      if (v !== 'thinking' && v !== 'processing') continue;
      variant ??= v;
      const { variant: _v, durationMs: _d, ...others } = entry;
      result = { ...result };
      if (Object.keys(others).length > 0) result[ns] = others;
      else delete result[ns];
    }
    if (result && Object.keys(result).length === 0) result = undefined;
    return { ...(variant ? { variant } : {}), ...(result ? { pm: result } : {}) };
  }

  function custom(name: string, value: Json): void {
    ensureStarted();
    out.emit({ type: 'custom', name, value });
  }

  function raw(v: Json, reason: string, where?: Location): void {
    const e: EventInit = { type: 'raw', source: FRAMEWORK, event: v, reason };
    if (where) e.where = where;
    out.emit(e);
  }

  // --- blocks, tools, steps --------------------------------------------------------------------

  function closeTool(toolCallId: string, t: ToolState, why: string): void {
    t.open = false;
    let input: Json;
    let inputError: string | undefined;
    if (t.textEncoding) input = t.text;
    else if (t.text.trim() === '') {
      input = {};
      inputError = `${why}; no input arrived`;
    } else {
      // Parsed once, here: only a call that never got its tool-input-available is parsed from the deltas.
      const parsed = parsePartialJson(t.text);
      input = (parsed.value ?? t.text) as Json;
      if (!parsed.complete)
        inputError = `${why}; the input is not complete JSON (${parsed.value === undefined ? 'kept as text' : 'kept the members that arrived whole'})`;
    }
    t.text = '';
    const e: EventInit = { type: 'tool-input-end', toolCallId, toolName: t.name, input };
    if (inputError) e.inputError = inputError;
    if (t.providerExecuted) e.providerExecuted = true;
    if (t.pm) e.providerMetadata = t.pm;
    out.emit(e);
  }

  function closeBlocks(why: string): void {
    for (const b of texts.values()) {
      const e: EventInit = { type: 'text-end', blockId: b.id };
      if (b.pm) e.providerMetadata = b.pm;
      out.emit(e);
    }
    texts.clear();
    for (const b of reasonings.values()) {
      const e: EventInit = { type: 'reasoning-end', blockId: b.id };
      if (b.pm) e.providerMetadata = b.pm;
      out.emit(e);
    }
    reasonings.clear();
    for (const [id, t] of tools) if (t.open) closeTool(id, t, why);
  }

  function closeStep(reason?: FinishReason): void {
    if (s.step === undefined) return;
    const e: EventInit = { type: 'step-finish', stepId: s.step };
    if (reason) e.finishReason = reason;
    s.step = undefined;
    out.emit(e);
  }

  function openText(wire: string, pm: ProviderMetadata | undefined): BlockState {
    ensureStarted();
    const previous = texts.get(wire);
    if (previous) out.emit({ type: 'text-end', blockId: previous.id, ...(previous.pm ? { providerMetadata: previous.pm } : {}) });
    const b: BlockState = { id: blockId(wire) };
    texts.set(wire, b);
    out.emit({ type: 'text-start', blockId: b.id, ...(pm ? { providerMetadata: pm } : {}) });
    return b;
  }

  function openReasoning(wire: string, pm: ProviderMetadata | undefined): BlockState {
    ensureStarted();
    const previous = reasonings.get(wire);
    if (previous) out.emit({ type: 'reasoning-end', blockId: previous.id, ...(previous.pm ? { providerMetadata: previous.pm } : {}) });
    const b: BlockState = { id: blockId(wire) };
    reasonings.set(wire, b);
    const { variant, pm: rest } = variantOf(pm);
    out.emit({ type: 'reasoning-start', blockId: b.id, variant: variant ?? 'thinking', ...(rest ? { providerMetadata: rest } : {}) });
    return b;
  }

  function citationOf(c: unknown, where: Location | undefined, field: string): Citation | undefined {
    if (!isObject(c) || !isObject(c.source)) {
      invalid(where, field, 'a citation object with a "source" object', c);
      return undefined;
    }
    const s = c.source;
    const citation: Citation = { kind: s.sourceType === 'url' ? 'url' : 'document' };
    if (str(s.url)) citation.url = s.url;
    if (str(s.title)) citation.title = s.title;
    if (str(c.citedText)) citation.citedText = c.citedText;
    if (typeof c.startIndex === 'number') citation.startIndex = c.startIndex;
    if (typeof c.endIndex === 'number') citation.endIndex = c.endIndex;
    citation.raw = c as Json;
    return citation;
  }

  // --- data chunks -----------------------------------------------------------------------------

  function isTodo(t: unknown): t is Todo {
    return (
      isObject(t) &&
      str(t.id) &&
      str(t.content) &&
      str(t.status) &&
      TODO_STATUS.has(t.status) &&
      (t.activeForm === undefined || str(t.activeForm)) &&
      onlyKeys(t, ['id', 'content', 'status', 'activeForm'])
    );
  }

  function usageOf(d: Record<string, unknown>): Usage | undefined {
    const u: Usage = {};
    for (const k in d) {
      if (k === 'scope' || k === 'durationMs') continue;
      const v = d[k];
      if (USAGE_NUMBERS.has(k) && typeof v === 'number') (u as Record<string, number>)[k] = v;
      else if (k === 'raw' && v !== undefined) u.raw = v as Json;
      else if (v !== undefined) return undefined;
    }
    return u;
  }

  function isPatch(p: unknown): boolean {
    return (
      Array.isArray(p) &&
      p.every(
        (op) =>
          isObject(op) &&
          str(op.op) &&
          PATCH_OPS.has(op.op) &&
          str(op.path) &&
          (op.from === undefined || str(op.from)) &&
          onlyKeys(op, ['op', 'path', 'from', 'value']),
      )
    );
  }

  /** A `data-*` chunk in one of the shapes our encoder writes → its canonical event; true when mapped. */
  function knownData(name: string, v: Record<string, unknown>): boolean {
    const d = v.data;
    switch (name) {
      case 'todos':
        if (!isObject(d) || !onlyKeys(d, ['change', 'todos']) || !str(d.change) || !TODO_CHANGE.has(d.change)) return false;
        if (!Array.isArray(d.todos) || !d.todos.every(isTodo)) return false;
        out.emit({ type: 'todos', change: d.change as 'create', todos: d.todos as Todo[] });
        return true;
      case 'usage': {
        if (!isObject(d) || !str(d.scope) || !USAGE_SCOPE.has(d.scope)) return false;
        if (d.durationMs !== undefined && typeof d.durationMs !== 'number') return false;
        const usage = usageOf(d);
        if (!usage) return false;
        // Our encoder writes the run total (run-finish usage) as data-usage with id "usage" before finish.
        if (v.id === 'usage' && d.scope === 'total' && d.durationMs === undefined) {
          s.totalUsage = usage;
          return true;
        }
        out.emit({
          type: 'usage',
          scope: d.scope as 'total',
          usage,
          ...(typeof d.durationMs === 'number' ? { durationMs: d.durationMs } : {}),
        });
        return true;
      }
      case 'error':
        // Our encoder's non-fatal error (an `error` chunk would end a stock client's request).
        if (!isObject(d) || !str(d.message) || (d.code !== undefined && !str(d.code)) || !onlyKeys(d, ['message', 'code'])) return false;
        out.emit({ type: 'error', message: d.message, ...(str(d.code) ? { code: d.code } : {}), fatal: false });
        return true;
      case 'status':
        if (!isObject(d) || !str(d.status) || (d.message !== undefined && !str(d.message)) || !onlyKeys(d, ['status', 'message']))
          return false;
        out.emit({ type: 'status', status: d.status, ...(str(d.message) ? { message: d.message } : {}) });
        return true;
      case 'subagent': {
        if (!isObject(d) || !str(d.subagentId)) return false;
        const optional = (keys: string[]) => keys.every((k) => d[k] === undefined || str(d[k]));
        if (d.event === 'subagent-start') {
          if (!str(d.name) || !optional(['task', 'parentToolCallId', 'parentSubagentId'])) return false;
          if (!onlyKeys(d, ['event', 'subagentId', 'name', 'task', 'parentToolCallId', 'parentSubagentId'])) return false;
          const { event: _e, ...rest } = d;
          out.emit({ type: 'subagent-start', ...(rest as { subagentId: string; name: string }) });
          return true;
        }
        if (d.event === 'subagent-finish') {
          if (!optional(['result', 'error']) || !onlyKeys(d, ['event', 'subagentId', 'result', 'error'])) return false;
          const { event: _e, ...rest } = d;
          out.emit({ type: 'subagent-finish', ...(rest as { subagentId: string }) });
          return true;
        }
        return false;
      }
      case 'state':
        if (!('data' in v)) return false;
        out.emit({ type: 'state-snapshot', state: d as Json });
        return true;
      case 'state-delta':
        if (!isPatch(d)) return false;
        out.emit({ type: 'state-delta', patch: d as { op: 'add'; path: string }[] });
        return true;
      case 'custom':
        if (!isObject(d) || !str(d.name) || !('value' in d) || !onlyKeys(d, ['name', 'value'])) return false;
        out.emit({ type: 'custom', name: d.name, value: d.value as Json });
        return true;
      case 'interrupt':
      case 'interrupt-response': {
        // Our encoder's interrupts: the canonical event without its envelope.
        if (!isObject(d) || !isInterruptData(name, d)) return false;
        out.emit({ type: name, ...d } as EventInit);
        return true;
      }
      default:
        return false;
    }
  }

  return s;
}
