/**
 * Decoder for the Vercel AI SDK UI message stream (what `toUIMessageStreamResponse` sends and
 * `useChat` reads): `UIMessageChunk` objects, or the SSE body through `framed()`. The inverse of our
 * AI SDK encoder (`encoder.ts`), and a reader for any official AI SDK server's output.
 *
 * - `start` → run-start (messageId, messageMetadata as metadata); `start-step` / `finish-step` →
 *   step-start / step-finish (ids `step-<n>`); `finish` → run-finish; `abort` → run-abort.
 * - text / reasoning blocks map one to one. UI ids are only unique while a part is open (the official
 *   Anthropic provider reuses "0", "1" in every step), so a reused id becomes `<id>:<n>`. The
 *   reasoning variant is read from `providerMetadata[namespace].variant` (also `switchboard` and
 *   `mobox`) and removed from the metadata; providerMetadata of deltas (signatures) goes to the end event.
 * - Tool input deltas are passed on and collected as text; the text is parsed only when a call is
 *   cut off (the available chunk carries the parsed input). Linear in the input.
 * - `data-todos` / `data-usage` / `data-status` / `data-subagent` / `data-state` / `data-state-delta` /
 *   `data-custom` in the shapes our encoder writes map back to their canonical events; any other
 *   `data-*` chunk, `custom`, `message-metadata`, tool approvals and steering messages become
 *   `custom` events whose value is the chunk without its type.
 * - `error` chunks: an error is fatal when the run then finishes with `finishReason: "error"` (or
 *   without a reason) before any new content, or when the stream ends right after it (the official
 *   server's "failed before any step" shape); otherwise it is a non-fatal error and the run goes on.
 *   To tell, an error chunk is held back over the closing chunks that may follow it.
 * - A stream that ends without `finish` / `abort` gets a fatal `truncated` error.
 */
import { describe } from '../../codec/framing.ts';
import { at, type Decoder, isObject } from '../../inputs/decoder.ts';
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
import { mergeProviderMetadata as merge } from '../../model/metadata.ts';
import { USAGE_COUNTS } from '../../model/usage.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS, PATCH_OPERATIONS, TODO_CHANGES, TODO_STATUSES } from '../../model/vocabulary.ts';
import { parsePartialJson } from '../../transforms/partial-json.ts';

/** The framework name (run-start provider, raw source, providerMetadata key for AI SDK-only fields). */
const FRAMEWORK = 'ai-sdk';

export interface AiSdkDecoderOptions extends DecoderOptions {
  /** providerMetadata key that carries the reasoning variant. Default `switchboard`; `switchboard` and `mobox` are always read too. */
  namespace?: string;
}

const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);
const TODO_STATUS = new Set<string>(TODO_STATUSES);
const TODO_CHANGE = new Set<string>(TODO_CHANGES);
const USAGE_SCOPE = new Set<string>(['increment', 'step', 'total']);
const USAGE_NUMBERS = new Set<string>(USAGE_COUNTS);
const PATCH_OPS = new Set<string>(PATCH_OPERATIONS);

/** Chunks that may follow an `error` chunk on the way to `finish` (an error is held back over them). */
const CLOSING = new Set<string>(['text-end', 'reasoning-end', 'tool-input-available', 'tool-input-error', 'finish-step', 'data-usage']);

/** True when `o` has no key outside `allowed`. */
function onlyKeys(o: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const k in o) if (!allowed.includes(k)) return false;
  return true;
}

const str = (v: unknown): v is string => typeof v === 'string';
/** What a chunk's string field holds, where "a string" says too little. */
const EXPECTED: Partial<Record<string, string>> = { id: 'a string part id', url: 'a data: or http(s) URL string' };

/** An open text or reasoning part. */
interface BlockState {
  id: string;
  /** providerMetadata of the deltas, sent with the end event. */
  pm?: ProviderMetadata;
}

/** A tool call by its toolCallId: input collected as text until it closes. */
interface ToolState {
  name: string;
  open: boolean;
  text: string;
  textEncoding: boolean;
  providerExecuted: boolean;
  pm?: ProviderMetadata;
}

/** An error chunk held back over the closing chunks that may follow it. */
interface Held {
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

/**
 * True when one parsed value is unmistakably an AI SDK UI message chunk: a `type` of the chunk
 * vocabulary with the fields that type requires. Never claims Anthropic events (their `error` has
 * an `error` object, not `errorText`), the `{"type","data"}` agent format (only `data-*` chunks
 * carry `data`) or AI SDK `fullStream` parts (`text-delta` with `text`, `tool-input-start` with `id`).
 */
export function detectAiSdk(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string') return false;
  const t = value.type;
  if (t.startsWith('data-')) return t.length > 5 && 'data' in value && onlyKeys(value, ['type', 'id', 'data', 'transient']);
  if ('data' in value) return false;
  switch (t) {
    case 'start':
      return onlyKeys(value, ['type', 'messageId', 'messageMetadata']) && (value.messageId === undefined || str(value.messageId));
    case 'start-step':
    case 'finish-step':
    case 'reset-step':
      return onlyKeys(value, ['type']);
    case 'text-start':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-end':
      return str(value.id);
    case 'text-delta':
    case 'reasoning-delta':
      return str(value.id) && str(value.delta);
    case 'tool-input-start':
      return str(value.toolCallId) && str(value.toolName);
    case 'tool-input-delta':
      return str(value.toolCallId) && str(value.inputTextDelta);
    case 'tool-input-available':
      return str(value.toolCallId) && str(value.toolName) && 'input' in value;
    case 'tool-input-error':
      return str(value.toolCallId) && str(value.toolName) && str(value.errorText);
    case 'tool-output-available':
      return str(value.toolCallId) && 'output' in value;
    case 'tool-output-error':
      return str(value.toolCallId) && str(value.errorText);
    case 'tool-output-denied':
      return str(value.toolCallId) && onlyKeys(value, ['type', 'toolCallId']);
    case 'tool-approval-request':
      return str(value.approvalId) && str(value.toolCallId);
    case 'tool-approval-response':
      return str(value.approvalId) && typeof value.approved === 'boolean';
    case 'source-url':
      return str(value.sourceId) && str(value.url);
    case 'source-document':
      return str(value.sourceId) && str(value.mediaType) && str(value.title);
    case 'file':
    case 'reasoning-file':
      return str(value.url) && str(value.mediaType);
    case 'custom':
      return str(value.kind);
    case 'steering-message':
      return str(value.id) && Array.isArray(value.parts);
    case 'message-metadata':
      return 'messageMetadata' in value;
    case 'error':
      return str(value.errorText);
    case 'finish':
      return onlyKeys(value, ['type', 'finishReason', 'messageMetadata']);
    case 'abort':
      return onlyKeys(value, ['type', 'reason']);
    default:
      return false;
  }
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

/** Creates an AI SDK UI message stream decoder. */
export function createAiSdkDecoder(options: AiSdkDecoderOptions = {}): Decoder {
  const out = new Emitter(options, FRAMEWORK);
  /** providerMetadata keys the reasoning variant is read from. */
  const namespaces = [...new Set([options.namespace ?? 'switchboard', 'switchboard', 'mobox'])];
  /** Every UI part id used, and how often each was reused (for `blockId`). */
  const usedIds = new Set<string>();
  const reuse = new Map<string, number>();
  /** The open text / reasoning parts and the tool calls, by UI id. */
  const texts = new Map<string, BlockState>();
  const reasonings = new Map<string, BlockState>();
  const tools = new Map<string, ToolState>();
  /** approvalId → toolCallId of the tool-approval-request chunks read. */
  const approvals = new Map<string, string>();
  /** Tool calls whose denial was read (a tool-output-denied after it adds nothing). */
  const denied = new Set<string>();
  /** Denials read for calls the stream did not show (a continuation): each covers the next tool-output-denied. */
  let unplacedDenials = 0;
  /** The run's message id (options.messageId, the start chunk's, or the run id). */
  let messageId: string | undefined;
  /** The open step's id, and how many steps there were. */
  let step: string | undefined;
  let stepCount = 0;
  /** The run total our encoder writes as data-usage before finish. */
  let totalUsage: Usage | undefined;
  /** An error chunk held back until what follows tells whether it was fatal. */
  let held: Held | undefined;
  /** A fatal error was emitted. */
  let fatal = false;
  /** Chunks pushed (an empty stream gets its own error). */
  let received = 0;

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

  /** True when each of `fields` of the chunk is a string; else the first that is not is reported. */
  function strings<V extends Record<string, unknown>, K extends string>(
    v: V,
    where: Location | undefined,
    ...fields: K[]
  ): v is V & Record<K, string> {
    const bad = fields.find((f) => !str(v[f]));
    if (bad !== undefined) invalid(where, bad, EXPECTED[bad] ?? 'a string', v[bad]);
    return bad === undefined;
  }

  function ensureStarted(): void {
    if (out.started) return;
    out.start();
    messageId = options.messageId ?? out.runId;
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
    if (step === undefined) return;
    const e: EventInit = { type: 'step-finish', stepId: step };
    if (reason) e.finishReason = reason;
    step = undefined;
    out.emit(e);
  }

  /** A new block under a wire id; one still open under it (a repeated start) is ended first. */
  function newBlock(blocks: Map<string, BlockState>, wire: string, end: 'text-end' | 'reasoning-end'): BlockState {
    ensureStarted();
    const previous = blocks.get(wire);
    if (previous) out.emit({ type: end, blockId: previous.id, ...(previous.pm ? { providerMetadata: previous.pm } : {}) });
    const b: BlockState = { id: blockId(wire) };
    blocks.set(wire, b);
    return b;
  }

  function openText(wire: string, pm: ProviderMetadata | undefined): BlockState {
    const b = newBlock(texts, wire, 'text-end');
    out.emit({ type: 'text-start', blockId: b.id, ...(pm ? { providerMetadata: pm } : {}) });
    return b;
  }

  function openReasoning(wire: string, pm: ProviderMetadata | undefined): BlockState {
    const b = newBlock(reasonings, wire, 'reasoning-end');
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
          totalUsage = usage;
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

  // --- one chunk ------------------------------------------------------------------------------

  /** One chunk, by its type. */
  function handle(v: Record<string, unknown>, type: string, where: Location | undefined): void {
    switch (type) {
      case 'start': {
        if (v.messageId !== undefined && !str(v.messageId)) return invalid(where, 'messageId', 'a string', v.messageId);
        const meta = v.messageMetadata;
        if (!out.started) {
          const init: Parameters<Emitter['start']>[0] = {};
          if (str(v.messageId)) init.messageId = v.messageId;
          if (isObject(meta)) init.metadata = meta as JsonObject;
          let pm = extras(v, ['type', 'messageId', 'messageMetadata']);
          if (meta !== undefined && meta !== null && !isObject(meta)) pm = merge(pm, { [FRAMEWORK]: { messageMetadata: meta as Json } });
          if (pm) init.providerMetadata = pm;
          out.start(init);
          messageId = options.messageId ?? init.messageId ?? out.runId;
          return;
        }
        // A later start (merged streams): only worth an event when it says something new.
        const rest = restOf(v, ['type']);
        if (Object.keys(rest).length === 0 || (Object.keys(rest).length === 1 && rest.messageId === messageId)) return;
        return custom('start', rest);
      }
      case 'start-step': {
        ensureStarted();
        closeStep();
        step = `step-${++stepCount}`;
        const pm = extras(v, ['type']);
        out.emit({ type: 'step-start', stepId: step, kind: 'model', ...(pm ? { providerMetadata: pm } : {}) });
        return;
      }
      case 'finish-step':
        // Parts stay open across a step's end (the official client keeps them: merged streams), unless
        // a fatal error ended the run: then the step's open parts are over.
        if (fatal) closeBlocks('the run failed before the tool input was complete');
        return closeStep(fatal ? 'error' : undefined);
      case 'reset-step':
        // The client drops the step's parts; events already sent cannot be taken back, so the reset
        // is passed on for consumers that can (and open parts are closed).
        ensureStarted();
        closeBlocks('the step was reset');
        return custom('reset-step', restOf(v, ['type']));
      case 'text-start':
      case 'reasoning-start': {
        if (!strings(v, where, 'id')) return;
        const pm = merge(pmOf(v, where), extras(v, ['type', 'id', 'providerMetadata']));
        if (type === 'text-start') openText(v.id, pm);
        else openReasoning(v.id, pm);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        if (!strings(v, where, 'id', 'delta')) return;
        const isText = type === 'text-delta';
        let b = (isText ? texts : reasonings).get(v.id);
        if (!b) {
          error(
            'unknown_block',
            `${describe(at(where, 'id'))}: ${type} for part "${v.id}", which was never started (or already ended); started it`,
            at(where, 'id', `the id of an open ${isText ? 'text' : 'reasoning'} part`),
          );
          b = isText ? openText(v.id, undefined) : openReasoning(v.id, undefined);
        }
        const pm = merge(pmOf(v, where), extras(v, ['type', 'id', 'delta', 'providerMetadata']));
        if (pm) b.pm = merge(b.pm, isText ? pm : variantOf(pm).pm);
        if (v.delta)
          out.emit(
            isText ? { type: 'text-delta', blockId: b.id, delta: v.delta } : { type: 'reasoning-delta', blockId: b.id, delta: v.delta },
          );
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        if (!strings(v, where, 'id')) return;
        const isText = type === 'text-end';
        const map = isText ? texts : reasonings;
        const b = map.get(v.id);
        if (!b)
          return error(
            'unknown_block',
            `${describe(at(where, 'id'))}: ${type} for part "${v.id}", which is not open`,
            at(where, 'id', `the id of an open ${isText ? 'text' : 'reasoning'} part`),
          );
        map.delete(v.id);
        let pm = merge(b.pm, merge(pmOf(v, where), extras(v, ['type', 'id', 'providerMetadata', 'citations'])));
        if (isText) {
          if (Array.isArray(v.citations)) {
            v.citations.forEach((c, i) => {
              const citation = citationOf(c, where, `citations[${i}]`);
              if (citation) out.emit({ type: 'citation', blockId: b.id, citation });
            });
          } else if (v.citations !== undefined && v.citations !== null) invalid(where, 'citations', 'an array', v.citations);
          out.emit({ type: 'text-end', blockId: b.id, ...(pm ? { providerMetadata: pm } : {}) });
        } else {
          pm = variantOf(pm).pm;
          out.emit({ type: 'reasoning-end', blockId: b.id, ...(pm ? { providerMetadata: pm } : {}) });
        }
        return;
      }
      case 'tool-input-start': {
        if (!strings(v, where, 'toolCallId', 'toolName')) return;
        const existing = tools.get(v.toolCallId);
        if (existing?.open) return; // the same call announced twice
        ensureStarted();
        const pm = merge(pmOf(v, where), extras(v, ['type', 'toolCallId', 'toolName', 'providerExecuted', 'providerMetadata']));
        const t: ToolState = {
          name: v.toolName,
          open: true,
          text: '',
          textEncoding: v.inputEncoding === 'text',
          providerExecuted: v.providerExecuted === true,
        };
        if (pm) t.pm = pm;
        tools.set(v.toolCallId, t);
        const e: EventInit = { type: 'tool-input-start', toolCallId: v.toolCallId, toolName: v.toolName };
        if (t.providerExecuted) e.providerExecuted = true;
        if (pm) e.providerMetadata = pm;
        out.emit(e);
        return;
      }
      case 'tool-input-delta': {
        if (!strings(v, where, 'toolCallId', 'inputTextDelta')) return;
        const t = tools.get(v.toolCallId);
        if (!t?.open)
          return error(
            'unknown_tool_call',
            `${describe(at(where, 'toolCallId'))}: tool-input-delta for call "${v.toolCallId}", which was never started (or already complete)`,
            at(where, 'toolCallId', 'the id of a tool call whose input is streaming'),
          );
        if (v.inputTextDelta) {
          t.text += v.inputTextDelta;
          out.emit({ type: 'tool-input-delta', toolCallId: v.toolCallId, delta: v.inputTextDelta });
        }
        return;
      }
      case 'tool-input-available':
      case 'tool-input-error': {
        if (!strings(v, where, 'toolCallId', 'toolName')) return;
        const isError = type === 'tool-input-error';
        if (isError && !str(v.errorText)) return invalid(where, 'errorText', 'a string', v.errorText);
        ensureStarted();
        // The input is the chunk's (never parsed from the deltas); so are its metadata and flags.
        const known = ['type', 'toolCallId', 'toolName', 'input', 'providerExecuted', 'providerMetadata', 'errorText'];
        const pm = merge(pmOf(v, where), extras(v, known));
        const providerExecuted = v.providerExecuted === true;
        tools.set(v.toolCallId, { name: v.toolName, open: false, text: '', textEncoding: false, providerExecuted });
        const e: EventInit = { type: 'tool-input-end', toolCallId: v.toolCallId, toolName: v.toolName, input: (v.input ?? null) as Json };
        if (isError) e.inputError = v.errorText as string;
        if (providerExecuted) e.providerExecuted = true;
        if (pm) e.providerMetadata = pm;
        out.emit(e);
        return;
      }
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied': {
        if (!strings(v, where, 'toolCallId')) return;
        if (type === 'tool-output-available' && !('output' in v)) return invalid(where, 'output', 'the tool output (any JSON value)');
        if (type === 'tool-output-error' && !str(v.errorText)) return invalid(where, 'errorText', 'a string', v.errorText);
        ensureStarted();
        const t = tools.get(v.toolCallId);
        if (t?.open) closeTool(v.toolCallId, t, 'an output arrived before the input was complete');
        const known = ['type', 'toolCallId', 'output', 'errorText', 'providerExecuted', 'preliminary', 'providerMetadata'];
        let pm = merge(pmOf(v, where), extras(v, known));
        const base = {
          toolCallId: v.toolCallId,
          ...(t ? { toolName: t.name } : {}),
          ...(v.providerExecuted === true ? { providerExecuted: true } : {}),
        };
        if (type === 'tool-output-available') {
          out.emit({
            type: 'tool-output',
            ...base,
            output: v.output as Json,
            ...(v.preliminary === true ? { preliminary: true } : {}),
            ...(pm ? { providerMetadata: pm } : {}),
          });
        } else if (type === 'tool-output-error') {
          out.emit({ type: 'tool-error', ...base, error: v.errorText as string, ...(pm ? { providerMetadata: pm } : {}) });
        } else if (unplacedDenials > 0 && !denied.has(v.toolCallId)) {
          unplacedDenials--;
          denied.add(v.toolCallId);
        } else if (!denied.has(v.toolCallId)) {
          // A denial without its approval answer in the stream (the official server sends only this):
          // the answer, named by the call's approval when the stream asked it, else by the call.
          denied.add(v.toolCallId);
          let approvalId = v.toolCallId;
          for (const [a, c] of approvals) if (c === v.toolCallId) approvalId = a;
          pm = merge(pm, { [FRAMEWORK]: { deniedOnly: true } });
          out.emit({
            type: 'tool-approval-response',
            approvalId,
            toolCallId: v.toolCallId,
            approved: false,
            providerMetadata: pm as ProviderMetadata,
          });
        }
        return;
      }
      case 'tool-approval-request': {
        if (!strings(v, where, 'approvalId', 'toolCallId')) return;
        if (v.reason !== undefined && !str(v.reason)) return invalid(where, 'reason', 'a string', v.reason);
        ensureStarted();
        approvals.set(v.approvalId, v.toolCallId);
        const t = tools.get(v.toolCallId);
        const pm = extras(v, ['type', 'approvalId', 'toolCallId', 'reason']);
        const e: EventInit = { type: 'tool-approval-request', approvalId: v.approvalId, toolCallId: v.toolCallId };
        if (t) e.toolName = t.name;
        if (str(v.reason)) e.reason = v.reason;
        if (pm) e.providerMetadata = pm;
        return out.emit(e);
      }
      case 'tool-approval-response': {
        if (!strings(v, where, 'approvalId')) return;
        if (typeof v.approved !== 'boolean') return invalid(where, 'approved', 'a boolean', v.approved);
        if (v.reason !== undefined && !str(v.reason)) return invalid(where, 'reason', 'a string', v.reason);
        ensureStarted();
        const toolCallId = approvals.get(v.approvalId);
        const pm = merge(pmOf(v, where), extras(v, ['type', 'approvalId', 'approved', 'reason', 'providerExecuted', 'providerMetadata']));
        const e: EventInit = { type: 'tool-approval-response', approvalId: v.approvalId, approved: v.approved };
        if (toolCallId !== undefined) e.toolCallId = toolCallId;
        if (str(v.reason)) e.reason = v.reason;
        if (typeof v.providerExecuted === 'boolean') e.providerExecuted = v.providerExecuted;
        if (pm) e.providerMetadata = pm;
        // A denial: the tool-output-denied that follows adds nothing (for a call this stream did not show, the next one).
        if (!v.approved && toolCallId !== undefined) denied.add(toolCallId);
        else if (!v.approved) unplacedDenials++;
        return out.emit(e);
      }
      case 'steering-message':
      case 'message-metadata':
        return custom(type, restOf(v, ['type']));
      case 'custom':
        if (!strings(v, where, 'kind')) return;
        return custom(v.kind, restOf(v, ['type', 'kind']));
      case 'source-url':
      case 'source-document': {
        if (!strings(v, where, 'sourceId')) return;
        const isUrl = type === 'source-url';
        if (isUrl && !str(v.url)) return invalid(where, 'url', 'a string', v.url);
        const e: EventInit = { type: 'source', sourceId: v.sourceId, kind: isUrl ? 'url' : 'document' };
        if (str(v.url)) e.url = v.url;
        if (str(v.title)) e.title = v.title;
        if (str(v.mediaType)) e.mediaType = v.mediaType;
        if (str(v.filename)) e.filename = v.filename;
        const pm = merge(pmOf(v, where), extras(v, ['type', 'sourceId', 'url', 'title', 'mediaType', 'filename', 'providerMetadata']));
        if (pm) e.providerMetadata = pm;
        ensureStarted();
        out.emit(e);
        return;
      }
      case 'file':
      case 'reasoning-file': {
        if (!strings(v, where, 'url', 'mediaType')) return;
        let pm = merge(pmOf(v, where), extras(v, ['type', 'url', 'mediaType', 'filename', 'providerMetadata']));
        if (type === 'reasoning-file') pm = merge(pm, { [FRAMEWORK]: { type } });
        ensureStarted();
        out.emit({
          type: 'file',
          url: v.url,
          mediaType: v.mediaType,
          ...(str(v.filename) ? { filename: v.filename } : {}),
          ...(pm ? { providerMetadata: pm } : {}),
        });
        return;
      }
      case 'error': {
        if (!strings(v, where, 'errorText')) return;
        ensureStarted();
        const e: EventInit & { type: 'error' } = { type: 'error', code: 'stream_error', message: v.errorText, fatal: false };
        if (where) e.where = where;
        const pm = extras(v, ['type', 'errorText']);
        if (pm) e.providerMetadata = pm;
        held = { error: e, chunks: [] };
        return;
      }
      case 'finish': {
        ensureStarted();
        const reason = v.finishReason;
        let finishReason: FinishReason = fatal ? 'error' : 'stop';
        let rawFinishReason: string | undefined;
        if (str(reason)) {
          if (FINISH_REASONS.has(reason)) finishReason = reason as FinishReason;
          else {
            finishReason = 'other';
            rawFinishReason = reason;
          }
        } else if (reason !== undefined && reason !== null) invalid(where, 'finishReason', 'a finish reason string', reason);
        closeBlocks('the run finished before the tool input was complete');
        closeStep(finishReason === 'error' ? 'error' : undefined);
        const e: EventInit = { type: 'run-finish', finishReason };
        if (rawFinishReason) e.rawFinishReason = rawFinishReason;
        if (totalUsage) e.usage = totalUsage;
        let pm = extras(v, ['type', 'finishReason', 'messageMetadata']);
        if (v.messageMetadata !== undefined && v.messageMetadata !== null)
          pm = merge(pm, { [FRAMEWORK]: { messageMetadata: v.messageMetadata as Json } });
        if (pm) e.providerMetadata = pm;
        out.emit(e);
        return;
      }
      case 'abort': {
        ensureStarted();
        closeBlocks('the run was aborted');
        closeStep('interrupted');
        const e: EventInit = { type: 'run-abort' };
        if (str(v.reason)) e.reason = v.reason;
        out.emit(e);
        const rest = extras(v, ['type', 'reason']);
        if (rest || (v.reason !== undefined && !str(v.reason))) raw(v as Json, 'abort fields without a canonical place', where);
        return;
      }
      default: {
        ensureStarted();
        if (type.startsWith('data-') && type.length > 5) {
          if (!('data' in v)) return invalid(where, 'data', 'the data of a data part (any JSON value)');
          if (onlyKeys(v, ['type', 'id', 'data', 'transient']) && knownData(type.slice(5), v)) return;
          return custom(type, restOf(v, ['type']));
        }
        return raw(v as Json, `unknown chunk type ${JSON.stringify(type)}`, where);
      }
    }
  }

  // --- the stream --------------------------------------------------------------------------------

  function dispatch(value: unknown, where: Location | undefined): void {
    if (!isObject(value)) {
      error(
        'invalid_event',
        `${describe(where ?? {})}: expected a UI message chunk object with a "type", got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
        { ...where, expected: 'object' },
      );
      return;
    }
    if (typeof value.type !== 'string') {
      invalid(where, 'type', 'a string chunk type', value.type);
      return;
    }
    handle(value, value.type, where);
  }

  /** Decides a held error: fatal when the run ends (with an error) right after it. */
  function release(isFatal: boolean): void {
    const h = held;
    if (!h) return;
    held = undefined;
    h.error.fatal = isFatal;
    if (isFatal) fatal = true;
    out.emit(h.error);
    for (const c of h.chunks) dispatch(c.value, c.where);
  }

  function finishUnfinished(): void {
    if (out.finished) return;
    ensureStarted();
    if (!fatal) {
      if (received === 0) error('empty', 'the stream contained no AI SDK UI message chunks', undefined, true);
      else error('truncated', 'the stream ended without a finish or abort chunk', undefined, true);
      fatal = true;
    }
    closeBlocks('the stream ended before the tool input was complete');
    closeStep('error');
    const e: EventInit = { type: 'run-finish', finishReason: 'error' };
    if (totalUsage) e.usage = totalUsage;
    out.emit(e);
  }

  return {
    push(value, where) {
      received++;
      if (held) {
        const type = isObject(value) && typeof value.type === 'string' ? value.type : undefined;
        if (type !== undefined && CLOSING.has(type)) {
          held.chunks.push({ value, where });
          return [];
        }
        const reason = type === 'finish' && isObject(value) ? value.finishReason : undefined;
        release(type === 'finish' && (reason === 'error' || reason === undefined || reason === null));
      }
      dispatch(value, where);
      return out.take();
    },
    fault(code, message, where) {
      release(false);
      error(code, message, where);
      return out.take();
    },
    end() {
      release(true);
      finishUnfinished();
      return out.take();
    },
  };
}
