/**
 * Decoder for the OpenAI Responses API stream (`POST /v1/responses` with `stream: true`), as parsed
 * event objects. Every response (`response.created` … `response.completed` / `.incomplete` /
 * `.failed`) is one canonical step; a body with several responses (an agent loop) is one run with
 * several steps.
 *
 * Items are tracked by `output_index` (stable for an item's lifetime even where a proxy rotates item
 * ids, as @ai-sdk/openai does). The step machine is exported as {@link createResponsesCore} so other
 * decoders that carry Responses events (the OpenAI Agents SDK) reuse it on their own emitter.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions, Emitter } from '../model/emitter.ts';
import type { Citation, EventInit, EventOf, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { usageOf } from '../model/usage.ts';
import { at, type Decoder } from './decoder.ts';
import { isObject, Kit, num, type Obj, parseToolInput, rest, StepTotals, shown, str } from './kit/index.ts';

/** The providerMetadata key @ai-sdk/openai uses, so item ids and encrypted reasoning round-trip. */
const PM = 'openai';

interface TextPart {
  blockId: string;
  text: string;
  refusal: boolean;
  logprobs: Json[];
  annotations: number;
  open: boolean;
}

interface ReasoningPart {
  blockId: string;
  text: string;
  state: 'open' | 'can-conclude' | 'closed';
}

interface ReasoningState {
  enc: Json;
  parts: Map<string, ReasoningPart>;
  /** The block opened with the item; the first summary or content part claims it. */
  initial?: ReasoningPart;
  initialClaimed: boolean;
}

interface ToolState {
  toolCallId: string;
  toolName: string;
  providerExecuted: boolean;
  /** How input deltas are streamed: the input JSON itself, free text (custom tools), or text escaped into a JSON string. */
  stream: 'json' | 'text' | 'escaped';
  /** The input text streamed so far. */
  text: string;
  /** For `escaped`: the unescaped text (code, diff) streamed so far, and the suffix that closes the JSON. */
  raw: string;
  closer: string;
  started: boolean;
  ended: boolean;
  /** The `parallel` wrapper: input is buffered and expanded into its calls at the end. */
  buffered: boolean;
  meta?: JsonObject;
}

interface ItemState {
  outputIndex: number;
  type: string;
  id: string | undefined;
  /** Base for block ids: the item id, else `<step>:<output_index>`. */
  key: string;
  phase?: string;
  done: boolean;
  parts: Map<number, TextPart>;
  reasoning?: ReasoningState;
  tool?: ToolState;
  /** The item as output_item.added sent it, and as output_item.done sent it. */
  added: Obj;
  final?: Obj;
}

interface StepState {
  id: string;
  created: Obj;
  items: Map<number, ItemState>;
  byId: Map<string, ItemState>;
  errorSeen: boolean;
  hasFunctionCall: boolean;
  hasRefusal: boolean;
  nextSeq?: number;
  /** Where sequence_number skipped (events missing upstream), kept on step-finish. */
  gaps: JsonObject[];
  hostedToolSearch: string[];
  extraIndex: number;
}

/** Options of the Responses step machine. */
export interface ResponsesCoreOptions {
  /** `source` of raw events (default `openai-responses`). */
  source?: string;
  /** Prefix of field paths in located errors, when the Responses event is nested (e.g. `data.event`). */
  fieldPrefix?: string;
  /** Expand the model's internal `parallel` wrapper call (`{tool_uses:[{recipient_name, parameters}]}`) into its calls, as @ai-sdk/openai does. Default true. */
  expandParallelToolCalls?: boolean;
  /** Keep each step-finish back until {@link ResponsesCore.releaseStep} (an agent turn includes its tool results). */
  holdStepFinish?: boolean;
  /** Called with each step-start / step-finish before it is emitted (or held), to add what the caller knows. */
  decorateStepStart?: (e: EventOf<'step-start'>) => void;
  decorateStepFinish?: (e: EventOf<'step-finish'>) => void;
}

/** The Responses step machine: feeds one Responses event at a time into a shared emitter. */
export interface ResponsesCore {
  /** Decodes one Responses stream event (an object with a string `type`). */
  handle(ev: Obj, where?: Location): void;
  /** Emits a held step-finish (with `holdStepFinish`). */
  releaseStep(): void;
  /** Ends an open response that had no terminal event: closes its items, the step finishes with `reason`. */
  abortStep(reason: FinishReason): void;
  /** True while a response is open (started, no terminal event yet). */
  readonly stepOpen: boolean;
  /** True while a finished step's step-finish is held back. */
  readonly stepHeld: boolean;
  /** True once a provider error was reported (the run ends with `error`). */
  readonly fatal: boolean;
  /** The finished steps' summed usage and last finish reason. */
  readonly totals: StepTotals;
  /** True when an item id or tool call id was seen in the Responses events (`output:<id>` once its output was). */
  knows(id: string): boolean;
  /** Records an id decoded elsewhere (so that later Responses items with it are recognised). */
  remember(id: string): void;
  /** Tool name and provider-executed flag of a call seen in the Responses events. */
  toolOf(toolCallId: string): { toolName: string; providerExecuted: boolean } | undefined;
}

/** Maps a Responses finish (incomplete_details.reason) like @ai-sdk/openai does. */
export function openaiResponsesFinishReason(reason: unknown, hasFunctionCall: boolean, hasRefusal = false): FinishReason {
  if (reason === undefined || reason === null) {
    if (hasFunctionCall) return 'tool-calls';
    return hasRefusal ? 'content-filter' : 'stop';
  }
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content-filter';
  return hasFunctionCall ? 'tool-calls' : 'other';
}

/** Converts a Responses usage object; `inputTokens` already counts cached tokens. */
export function openaiResponsesUsage(u: Obj): Usage {
  return usageOf(u, {
    inputTokens: num(u, 'input_tokens'),
    outputTokens: num(u, 'output_tokens'),
    totalTokens: num(u, 'total_tokens'),
    cacheReadTokens: num(u.input_tokens_details, 'cached_tokens'),
    cacheWriteTokens: num(u.input_tokens_details, 'cache_write_tokens'),
    reasoningTokens: num(u.output_tokens_details, 'reasoning_tokens'),
  });
}

/** The text inside a JSON string literal, for streaming text into a JSON input. */
function escapeJson(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Values of the added item that the final item replaced rather than completed (a new fingerprint,
 * a re-encrypted blob, a rotated call id): kept as `addedItem` so nothing is lost.
 */
function replacedFields(added: Obj, done: Obj): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k in added) {
    const a = added[k];
    const d = done[k];
    if (k === 'status' || (!(typeof a === 'string' && a !== '') && typeof a !== 'number')) continue;
    if (a === d || (typeof a === 'string' && typeof d === 'string' && d.startsWith(a))) continue;
    out ??= {};
    out[k] = a;
  }
  return out;
}

/** What the Responses core's pieces share: the kit, the run-wide registries and the open step. */
interface CoreShared {
  kit: Kit;
  /** A field path under the core's field prefix. */
  field: (f: string) => string;
  /** Item and tool call ids seen (`output:<id>` once the output was). */
  known: Set<string>;
  /** Source keys emitted. */
  sources: Set<string>;
  tools: Map<string, { toolName: string; providerExecuted: boolean }>;
  /** Approval request id → tool call id. */
  approvals: Map<string, string>;
  /** Approval requests not answered yet (by an `mcp_approval_response` input item). */
  pendingApprovals: Set<string>;
  expandParallel: boolean;
  uniqueBlock: (base: string) => string;
  currentStep: () => StepState | undefined;
}

/** The parts of output items: tool calls (streamed input, outputs), text (annotations), reasoning. */
function responsesParts({ kit, field, known, sources, tools, uniqueBlock, currentStep }: CoreShared) {
  const { out, error, raw } = kit;

  function newItem(s: StepState, index: number, item: Obj): ItemState {
    const id = str(item, 'id');
    const state: ItemState = {
      outputIndex: index,
      type: typeof item.type === 'string' ? item.type : 'unknown',
      id,
      key: id ?? `${s.id}:${index}`,
      done: false,
      parts: new Map(),
      added: item,
    };
    if (typeof item.phase === 'string') state.phase = item.phase;
    s.items.set(index, state);
    if (id) {
      s.byId.set(id, state);
      known.add(id);
    }
    return state;
  }

  function findItem(ev: Obj, where: Location | undefined, expected: string): ItemState | undefined {
    const s = currentStep();
    let item: ItemState | undefined;
    if (s && typeof ev.output_index === 'number') item = s.items.get(ev.output_index);
    if (!item && s && typeof ev.item_id === 'string') item = s.byId.get(ev.item_id);
    if (!item || item.done) {
      const f = typeof ev.output_index === 'number' ? 'output_index' : 'item_id';
      const loc = at(where, field(f), `the output_index of an open ${expected} item`);
      const what = typeof ev.output_index === 'number' ? `output_index ${ev.output_index}` : `item ${JSON.stringify(ev.item_id)}`;
      error('unknown_item', `${describe(loc)}: ${shown(ev.type)} for ${what}, which was never added (or is already done)`, loc, false);
      return undefined;
    }
    return item;
  }

  function registerTool(item: ItemState, toolCallId: string, toolName: string, providerExecuted: boolean, stream: ToolState['stream']) {
    const t: ToolState = {
      toolCallId,
      toolName,
      providerExecuted,
      stream,
      text: '',
      raw: '',
      closer: '',
      started: false,
      ended: false,
      buffered: false,
    };
    item.tool = t;
    known.add(toolCallId);
    tools.set(toolCallId, { toolName, providerExecuted });
    return t;
  }

  function toolStart(t: ToolState): void {
    if (t.started) return;
    t.started = true;
    const e: EventInit = { type: 'tool-input-start', toolCallId: t.toolCallId, toolName: t.toolName };
    if (t.providerExecuted) e.providerExecuted = true;
    out.emit(e);
  }

  function toolDelta(t: ToolState, delta: string): void {
    // An ended call takes no more input (an mcp_call answering an approval was announced with the request).
    if (!delta || t.ended) return;
    t.text += delta;
    if (t.buffered) return;
    toolStart(t);
    out.emit({ type: 'tool-input-delta', toolCallId: t.toolCallId, delta });
  }

  /** Streams text (code, a diff) into a JSON string of the input. */
  function toolRaw(t: ToolState, text: string): void {
    if (!text) return;
    t.raw += text;
    toolDelta(t, escapeJson(text));
  }

  /** Appends what the final text adds to the streamed text; reports a mismatch as a raw event. */
  const mismatched = new Set<string>();
  function reconcile(streamed: string, final: unknown, ev: Obj, where: Location | undefined, emit: (suffix: string) => void): void {
    if (typeof final !== 'string' || final === streamed) return;
    if (final.startsWith(streamed)) return emit(final.slice(streamed.length));
    // Reported once per text: the later done events repeat the same final text.
    if (mismatched.has(final)) return;
    mismatched.add(final);
    raw(ev, 'the final text differs from the streamed deltas; the streamed text was kept', where);
  }

  function toolEnd(t: ToolState, input?: Json, meta?: JsonObject): void {
    if (t.ended) return;
    if (t.buffered) return expandBuffered(t, meta);
    t.ended = true;
    toolStart(t);
    if (t.stream === 'escaped' && t.closer) {
      out.emit({ type: 'tool-input-delta', toolCallId: t.toolCallId, delta: t.closer });
      t.text += t.closer;
    }
    let inputError: string | undefined;
    if (input === undefined) {
      if (t.stream === 'text') input = t.text;
      else ({ input, inputError } = parseToolInput(t.text));
    }
    const e: EventInit = { type: 'tool-input-end', toolCallId: t.toolCallId, toolName: t.toolName, input };
    if (t.providerExecuted) e.providerExecuted = true;
    if (inputError) e.inputError = inputError;
    const m = meta ?? t.meta;
    if (m) e.providerMetadata = { [PM]: m };
    out.emit(e);
  }

  /** The model's internal `parallel` wrapper: one call per `tool_uses` entry (ids `<call_id>_<n>`), as @ai-sdk/openai does. */
  function expandBuffered(t: ToolState, meta: JsonObject | undefined): void {
    t.buffered = false;
    let uses: { name: string; parameters: JsonObject }[] | undefined;
    try {
      const parsed = JSON.parse(t.text);
      if (isObject(parsed) && Array.isArray(parsed.tool_uses) && parsed.tool_uses.length > 0) {
        uses = [];
        for (const u of parsed.tool_uses) {
          const name = isObject(u) && typeof u.recipient_name === 'string' ? u.recipient_name : '';
          if (!isObject(u) || !name.startsWith('functions.') || name.length <= 10 || !isObject(u.parameters)) {
            uses = undefined;
            break;
          }
          uses.push({ name: name.slice(10), parameters: u.parameters as JsonObject });
        }
      }
    } catch {
      uses = undefined;
    }
    if (!uses) {
      // Not the wrapper after all: an ordinary call named "parallel".
      const text = t.text;
      t.text = '';
      toolStart(t);
      toolDelta(t, text);
      return toolEnd(t, undefined, meta);
    }
    t.ended = true;
    const itemId = meta?.itemId;
    uses.forEach((u, index) => {
      const toolCallId = `${t.toolCallId}_${index}`;
      const input = JSON.stringify(u.parameters);
      known.add(toolCallId);
      tools.set(toolCallId, { toolName: u.name, providerExecuted: false });
      const parallelToolCall: JsonObject = { toolCallId: t.toolCallId, toolName: t.toolName, index, count: uses.length };
      if (typeof itemId === 'string') parallelToolCall.itemId = itemId;
      if (index === 0) parallelToolCall.input = t.text;
      const m: JsonObject = { ...meta, parallelToolCall };
      out.emit({ type: 'tool-input-start', toolCallId, toolName: u.name });
      out.emit({ type: 'tool-input-delta', toolCallId, delta: input });
      out.emit({ type: 'tool-input-end', toolCallId, toolName: u.name, input: u.parameters, providerMetadata: { [PM]: m } });
    });
  }

  function toolOutput(
    toolCallId: string,
    toolName: string | undefined,
    providerExecuted: boolean,
    output: Json,
    failed?: string,
    preliminary = false,
    meta?: JsonObject,
  ): void {
    const e: EventInit = failed
      ? { type: 'tool-error', toolCallId, error: failed, output }
      : { type: 'tool-output', toolCallId, output, ...(preliminary ? { preliminary: true } : {}) };
    if (toolName) e.toolName = toolName;
    if (providerExecuted) e.providerExecuted = true;
    if (meta) e.providerMetadata = { [PM]: meta };
    if (!preliminary) known.add(`output:${toolCallId}`);
    out.emit(e);
  }

  function emitSource(key: string, e: EventInit & { type: 'source' }): void {
    if (sources.has(key)) return;
    sources.add(key);
    out.emit(e);
  }

  // Text ------------------------------------------------------------------------------------------

  function textPart(item: ItemState, index: number, partType: unknown): TextPart {
    const existing = item.parts.get(index);
    if (existing) return existing;
    const part: TextPart = {
      blockId: uniqueBlock(index === 0 ? item.key : `${item.key}:${index}`),
      text: '',
      refusal: partType === 'refusal',
      logprobs: [],
      annotations: 0,
      open: true,
    };
    item.parts.set(index, part);
    const meta: JsonObject = {};
    if (item.id) meta.itemId = item.id;
    if (item.phase) meta.phase = item.phase;
    if (part.refusal) meta.refusal = true;
    const e: EventInit = { type: 'text-start', blockId: part.blockId };
    if (Object.keys(meta).length > 0) e.providerMetadata = { [PM]: meta };
    out.emit(e);
    return part;
  }

  function textDelta(part: TextPart, delta: string): void {
    if (!delta || !part.open) return;
    part.text += delta;
    out.emit({ type: 'text-delta', blockId: part.blockId, delta });
  }

  function annotation(item: ItemState, part: TextPart, a: Obj, index: number): void {
    part.annotations++;
    const t = a.type;
    const url = str(a, 'url');
    const title = str(a, 'title');
    const fileId = str(a, 'file_id');
    const filename = str(a, 'filename');
    const sourceId = `${part.blockId}:a${index}`;
    if (t === 'url_citation' && url !== undefined) {
      const c: Citation = { kind: 'url', url, raw: a as Json };
      if (title !== undefined) c.title = title;
      if (num(a, 'start_index') !== undefined) c.startIndex = num(a, 'start_index');
      if (num(a, 'end_index') !== undefined) c.endIndex = num(a, 'end_index');
      out.emit({ type: 'citation', blockId: part.blockId, citation: c });
      emitSource(`url:${url}`, { type: 'source', sourceId, kind: 'url', url, ...(title !== undefined ? { title } : {}) });
      return;
    }
    if (t === 'file_citation' || t === 'container_file_citation' || t === 'file_path') {
      const name = filename ?? fileId ?? 'file';
      if (t !== 'file_path') {
        const c: Citation = { kind: 'document', title: name, raw: a as Json };
        if (num(a, 'start_index') !== undefined) c.startIndex = num(a, 'start_index');
        if (num(a, 'end_index') !== undefined) c.endIndex = num(a, 'end_index');
        out.emit({ type: 'citation', blockId: part.blockId, citation: c });
      }
      const meta: JsonObject = { type: t };
      if (fileId !== undefined) meta.fileId = fileId;
      if (t === 'container_file_citation') {
        if (a.container_id !== undefined) meta.containerId = a.container_id as Json;
      } else if (a.index !== undefined) meta.index = a.index as Json;
      emitSource(`${t}:${fileId ?? name}:${String(a.index ?? '')}`, {
        type: 'source',
        sourceId,
        kind: 'document',
        title: name,
        mediaType: t === 'file_path' ? 'application/octet-stream' : 'text/plain',
        ...(filename !== undefined ? { filename } : {}),
        providerMetadata: { [PM]: meta },
      });
      return;
    }
    out.emit({ type: 'citation', blockId: part.blockId, citation: { kind: 'location', raw: a as Json } });
    void item;
  }

  function closeText(item: ItemState, part: TextPart, extra?: JsonObject): void {
    if (!part.open) return;
    part.open = false;
    const meta: JsonObject = {};
    if (item.id) meta.itemId = item.id;
    if (item.phase) meta.phase = item.phase;
    if (part.refusal) meta.refusal = true;
    if (part.logprobs.length > 0) meta.logprobs = part.logprobs;
    if (extra) Object.assign(meta, extra);
    const e: EventInit = { type: 'text-end', blockId: part.blockId };
    if (Object.keys(meta).length > 0) e.providerMetadata = { [PM]: meta };
    out.emit(e);
  }

  // Reasoning -------------------------------------------------------------------------------------

  function reasoningOpen(item: ItemState, blockId: string): ReasoningPart {
    const part: ReasoningPart = { blockId, text: '', state: 'open' };
    const meta: JsonObject = {};
    if (item.id) meta.itemId = item.id;
    meta.reasoningEncryptedContent = item.reasoning?.enc ?? null;
    out.emit({ type: 'reasoning-start', blockId, variant: 'thinking', providerMetadata: { [PM]: meta } });
    return part;
  }

  /** The reasoning block of summary part `s<n>` or raw content part `c<n>`; the first one claims the block opened with the item. */
  function reasoningPart(item: ItemState, key: string): ReasoningPart {
    const r = item.reasoning ?? ({ enc: null, parts: new Map(), initialClaimed: false } as ReasoningState);
    item.reasoning = r;
    const existing = r.parts.get(key);
    if (existing && existing.state !== 'closed') return existing;
    if (!existing && r.initial && !r.initialClaimed && r.initial.state !== 'closed') {
      r.initialClaimed = true;
      r.parts.set(key, r.initial);
      return r.initial;
    }
    const n = key.slice(1);
    const part = reasoningOpen(item, uniqueBlock(key.startsWith('s') ? `${item.key}:${n}` : `${item.key}:c${n}`));
    r.parts.set(key, part);
    return part;
  }

  function reasoningDelta(part: ReasoningPart, delta: string): void {
    if (!delta) return;
    part.text += delta;
    out.emit({ type: 'reasoning-delta', blockId: part.blockId, delta });
  }

  function reasoningClose(item: ItemState, part: ReasoningPart, final?: JsonObject): void {
    if (part.state === 'closed') return;
    part.state = 'closed';
    const meta: JsonObject = {};
    if (item.id) meta.itemId = item.id;
    if (final) Object.assign(meta, final);
    out.emit({ type: 'reasoning-end', blockId: part.blockId, providerMetadata: { [PM]: meta } });
  }

  return {
    newItem,
    findItem,
    registerTool,
    toolStart,
    toolDelta,
    toolRaw,
    reconcile,
    toolEnd,
    toolOutput,
    emitSource,
    textPart,
    textDelta,
    annotation,
    closeText,
    reasoningOpen,
    reasoningPart,
    reasoningDelta,
    reasoningClose,
  };
}

/** output_item.added / .done: an item opens its parts, and closes them with the final item. */
/** An `mcp_approval_request` asks once: the call waits for an `mcp_approval_response` input item (in the next request). */
function approvalRequest(out: Emitter, pending: Set<string>, t: ToolState, id: string, done: Obj): void {
  if (pending.has(id)) return;
  pending.add(id);
  const e: EventInit = { type: 'tool-approval-request', approvalId: id, toolCallId: t.toolCallId, toolName: t.toolName };
  const extra = rest(done, ['id', 'type', 'arguments', 'name', 'server_label']);
  if (extra) e.providerMetadata = { [PM]: extra };
  out.emit(e);
}

function responsesItems(
  { kit, approvals, pendingApprovals, expandParallel, tools, uniqueBlock }: CoreShared,
  parts: ReturnType<typeof responsesParts>,
) {
  const { out, raw } = kit;

  // Added / done ----------------------------------------------------------------------------------

  function itemAdded(s: StepState, index: number, item: Obj, where?: Location): void {
    const previous = s.items.get(index);
    if (previous && !previous.done) finishItem(s, previous, undefined);
    const state = parts.newItem(s, index, item);
    const id = state.id ?? state.key;
    const callId = str(item, 'call_id');
    switch (state.type) {
      case 'message':
        return;
      case 'reasoning': {
        state.reasoning = { enc: (item.encrypted_content ?? null) as Json, parts: new Map(), initialClaimed: false };
        // Like @ai-sdk/openai: a reasoning block opens with the item (it carries the encrypted content even without a summary).
        state.reasoning.initial = parts.reasoningOpen(state, uniqueBlock(`${state.key}:0`));
        return;
      }
      case 'function_call': {
        const name = str(item, 'name') ?? 'unknown';
        const t = parts.registerTool(state, callId ?? id, name, false, 'json');
        t.buffered = expandParallel && (name === 'parallel' || name === 'multi_tool_use.parallel');
        if (!t.buffered) parts.toolStart(t);
        if (typeof item.arguments === 'string') parts.toolDelta(t, item.arguments);
        return;
      }
      case 'custom_tool_call': {
        const t = parts.registerTool(state, callId ?? id, str(item, 'name') ?? 'unknown', false, 'text');
        parts.toolStart(t);
        if (typeof item.input === 'string') parts.toolDelta(t, item.input);
        return;
      }
      case 'mcp_call': {
        const approval = str(item, 'approval_request_id');
        const toolCallId = (approval && approvals.get(approval)) ?? id;
        const t = parts.registerTool(state, toolCallId, `mcp.${str(item, 'name') ?? 'unknown'}`, true, 'json');
        // A call answering an approval request was announced with it (an earlier response): only its output is new.
        t.ended = toolCallId !== id;
        t.started = t.ended;
        parts.toolStart(t);
        if (!t.ended && typeof item.arguments === 'string') parts.toolDelta(t, item.arguments);
        return;
      }
      case 'mcp_list_tools':
        parts.toolStart(parts.registerTool(state, id, 'mcp_list_tools', true, 'json'));
        return;
      case 'mcp_approval_request': {
        const t = parts.registerTool(state, id, `mcp.${str(item, 'name') ?? 'unknown'}`, true, 'json');
        approvals.set(id, t.toolCallId);
        parts.toolStart(t);
        return;
      }
      case 'web_search_call':
      case 'file_search_call':
      case 'image_generation_call': {
        // Like @ai-sdk/openai: the call is complete (input {}) as soon as it is added; the item is the result.
        const name =
          state.type === 'web_search_call' ? 'web_search' : state.type === 'file_search_call' ? 'file_search' : 'image_generation';
        const t = parts.registerTool(state, id, name, true, 'json');
        parts.toolEnd(t, {}, state.id ? { itemId: state.id } : undefined);
        return;
      }
      case 'code_interpreter_call': {
        const t = parts.registerTool(state, id, 'code_interpreter', true, 'escaped');
        const container = typeof item.container_id === 'string' ? item.container_id : '';
        parts.toolDelta(t, `{"containerId":${JSON.stringify(container)},"code":"`);
        t.closer = '"}';
        if (typeof item.code === 'string') parts.toolRaw(t, item.code);
        return;
      }
      case 'apply_patch_call': {
        const t = parts.registerTool(state, callId ?? id, 'apply_patch', false, 'escaped');
        const op = isObject(item.operation) ? item.operation : {};
        if (op.type === 'delete_file') {
          // Whole at once: delete_file has no diff.
          t.stream = 'json';
          parts.toolDelta(t, JSON.stringify({ callId: t.toolCallId, operation: op }));
          return;
        }
        parts.toolDelta(
          t,
          `{"callId":${JSON.stringify(t.toolCallId)},"operation":{"type":${JSON.stringify(op.type ?? '')},"path":${JSON.stringify(op.path ?? '')},"diff":"`,
        );
        t.closer = '"}}';
        if (typeof op.diff === 'string') parts.toolRaw(t, op.diff);
        return;
      }
      case 'tool_search_call': {
        // A client-side search starts at output_item.done, whose call_id is final (it can differ from the added one).
        if (item.execution === 'client') return;
        parts.toolStart(parts.registerTool(state, id, 'tool_search', true, 'json'));
        return;
      }
      case 'local_shell_call':
        parts.toolStart(parts.registerTool(state, callId ?? id, 'local_shell', false, 'json'));
        return;
      case 'shell_call': {
        const env = isObject(item.environment) ? str(item.environment, 'type') : undefined;
        parts.toolStart(parts.registerTool(state, callId ?? id, 'shell', env?.startsWith('container') ?? false, 'json'));
        return;
      }
      case 'computer_call':
        parts.toolStart(parts.registerTool(state, callId ?? id, 'computer', false, 'json'));
        return;
      case 'program':
        parts.toolStart(parts.registerTool(state, callId ?? id, 'programmatic_tool_calling', true, 'json'));
        return;
      case 'shell_call_output':
      case 'tool_search_output':
      case 'program_output':
      case 'compaction':
        return; // whole at output_item.done
      default:
        raw(
          { type: 'response.output_item.added', output_index: index, item } as Obj,
          `unknown output item type ${JSON.stringify(item.type)}`,
          where,
        );
    }
  }

  function itemDone(s: StepState, index: number, item: Obj, where?: Location): void {
    let state = s.items.get(index);
    if (!state || state.done) {
      // No output_item.added (or a second done): decode the item whole.
      itemAdded(s, index, item, where);
      state = s.items.get(index) as ItemState;
    }
    finishItem(s, state, item, where);
  }

  /** Completes an item: from its final form (`output_item.done`), or as far as it streamed (`item` undefined). */
  function finishItem(s: StepState, state: ItemState, item: Obj | undefined, where?: Location): void {
    state.done = true;
    const done = item ?? {};
    if (item) state.final = item;
    const id = state.id ?? state.key;
    const replaced = item ? replacedFields(state.added, item) : undefined;
    const itemMeta: JsonObject | undefined =
      state.id || replaced ? { ...(state.id ? { itemId: state.id } : {}), ...(replaced ? { addedItem: replaced } : {}) } : undefined;
    const outputMeta = replaced ? { addedItem: replaced } : undefined;
    if (typeof done.phase === 'string') state.phase = done.phase;
    switch (state.type) {
      case 'message': {
        const content = Array.isArray(done.content) ? done.content : [];
        content.forEach((c, ci) => {
          if (!isObject(c)) return;
          const final = c.type === 'refusal' ? c.refusal : c.text;
          if (typeof final !== 'string') return;
          const part = parts.textPart(state, ci, c.type);
          if (part.refusal) s.hasRefusal = true;
          parts.reconcile(part.text, final, { type: 'response.output_item.done', item: done } as Obj, where, (d) =>
            parts.textDelta(part, d),
          );
          if (Array.isArray(c.annotations)) {
            for (let i = part.annotations; i < c.annotations.length; i++) {
              const a = c.annotations[i];
              if (isObject(a)) parts.annotation(state, part, a, i);
            }
          }
          if (part.logprobs.length === 0 && Array.isArray(c.logprobs) && c.logprobs.length > 0) part.logprobs = c.logprobs as Json[];
        });
        const extra = item ? { ...rest(done, ['id', 'type', 'role', 'content', 'phase', 'status']), ...outputMeta } : undefined;
        const status = str(done, 'status');
        const ordered = [...state.parts.entries()].sort((a, b) => a[0] - b[0]);
        ordered.forEach(([, part], i) => {
          const last = i === ordered.length - 1;
          const x: JsonObject = { ...(last ? extra : undefined) };
          if (last && status !== undefined && status !== 'completed') x.status = status;
          parts.closeText(state, part, Object.keys(x).length > 0 ? x : undefined);
        });
        return;
      }
      case 'reasoning': {
        const r = state.reasoning ?? ({ enc: null, parts: new Map(), initialClaimed: false } as ReasoningState);
        state.reasoning = r;
        const ev = { type: 'response.output_item.done', item: done } as Obj;
        if (Array.isArray(done.summary)) {
          done.summary.forEach((p, i) => {
            if (isObject(p) && typeof p.text === 'string' && p.text !== (r.parts.get(`s${i}`)?.text ?? '')) {
              const part = parts.reasoningPart(state, `s${i}`);
              parts.reconcile(part.text, p.text, ev, where, (d) => parts.reasoningDelta(part, d));
            }
          });
        }
        if (Array.isArray(done.content)) {
          done.content.forEach((p, i) => {
            if (isObject(p) && typeof p.text === 'string' && p.text !== (r.parts.get(`c${i}`)?.text ?? '')) {
              const part = parts.reasoningPart(state, `c${i}`);
              parts.reconcile(part.text, p.text, ev, where, (d) => parts.reasoningDelta(part, d));
            }
          });
        }
        const final: JsonObject = {
          reasoningEncryptedContent: (item ? (done.encrypted_content ?? null) : r.enc) as Json,
          ...rest(done, ['id', 'type', 'summary', 'encrypted_content', 'content']),
          ...outputMeta,
        };
        if (Array.isArray(done.content) && done.content.some((p) => !isObject(p) || p.type !== 'reasoning_text'))
          final.content = done.content as Json;
        const open = new Set<ReasoningPart>();
        if (r.initial && r.initial.state !== 'closed') open.add(r.initial);
        for (const p of r.parts.values()) if (p.state !== 'closed') open.add(p);
        for (const p of open) parts.reasoningClose(state, p, final);
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const t = state.tool as ToolState;
        const finalText = state.type === 'function_call' ? done.arguments : done.input;
        parts.reconcile(t.text, finalText, { type: 'response.output_item.done', item: done } as Obj, where, (d) => parts.toolDelta(t, d));
        if (item || t.started || t.buffered) s.hasFunctionCall = true;
        const meta: JsonObject = { ...itemMeta, ...rest(done, ['id', 'type', 'call_id', 'name', 'arguments', 'input']) };
        if (state.type === 'custom_tool_call') meta.type = 'custom_tool_call';
        return parts.toolEnd(t, undefined, Object.keys(meta).length > 0 ? meta : undefined);
      }
      case 'mcp_call': {
        const t = state.tool as ToolState;
        if (!t.ended) {
          parts.reconcile(t.text, done.arguments, { type: 'response.output_item.done', item: done } as Obj, where, (d) =>
            parts.toolDelta(t, d),
          );
          parts.toolEnd(t, undefined, itemMeta);
        }
        if (!item) return;
        const err = done.error;
        const failed = err === null || err === undefined ? undefined : typeof err === 'string' ? err : JSON.stringify(err);
        return parts.toolOutput(t.toolCallId, t.toolName, true, done as Json, failed);
      }
      case 'mcp_list_tools': {
        const t = state.tool as ToolState;
        parts.toolEnd(t, { server_label: (done.server_label ?? null) as Json }, itemMeta);
        if (!item) return;
        return parts.toolOutput(t.toolCallId, t.toolName, true, done as Json, done.error ? JSON.stringify(done.error) : undefined);
      }
      case 'mcp_approval_request': {
        const t = state.tool as ToolState;
        const args = typeof done.arguments === 'string' ? done.arguments : '';
        parts.toolDelta(t, args);
        const meta: JsonObject = { ...itemMeta, approvalRequestId: id };
        if (typeof done.server_label === 'string') meta.serverLabel = done.server_label;
        parts.toolEnd(t, undefined, meta);
        if (item) approvalRequest(out, pendingApprovals, t, id, done);
        return;
      }
      case 'web_search_call':
      case 'file_search_call':
      case 'image_generation_call': {
        const t = state.tool as ToolState;
        if (!item) return;
        const status = str(done, 'status');
        const failed = status === 'failed' || status === 'incomplete' ? `${state.type} ${status}` : undefined;
        parts.toolOutput(t.toolCallId, t.toolName, true, done as Json, failed, false, outputMeta);
        if (state.type === 'web_search_call' && isObject(done.action) && Array.isArray(done.action.sources)) {
          done.action.sources.forEach((src, i) => {
            if (isObject(src) && typeof src.url === 'string')
              parts.emitSource(`url:${src.url}`, {
                type: 'source',
                sourceId: `${t.toolCallId}:${i}`,
                kind: 'url',
                url: src.url,
                ...(typeof src.title === 'string' ? { title: src.title } : {}),
              });
          });
        }
        if (state.type === 'file_search_call' && Array.isArray(done.results)) {
          done.results.forEach((r, i) => {
            if (!isObject(r) || typeof r.file_id !== 'string') return;
            const filename = typeof r.filename === 'string' ? r.filename : r.file_id;
            parts.emitSource(`file_search:${r.file_id}`, {
              type: 'source',
              sourceId: `${t.toolCallId}:${i}`,
              kind: 'document',
              title: filename,
              filename,
              mediaType: 'text/plain',
              providerMetadata: { [PM]: { type: 'file_search', fileId: r.file_id } },
            });
          });
        }
        if (state.type === 'image_generation_call' && typeof done.result === 'string' && done.result) {
          const format = typeof done.output_format === 'string' ? done.output_format : 'png';
          out.emit({
            type: 'file',
            url: `data:image/${format};base64,${done.result}`,
            mediaType: `image/${format}`,
            providerMetadata: { [PM]: { itemId: id } },
          });
        }
        return;
      }
      case 'code_interpreter_call': {
        const t = state.tool as ToolState;
        parts.reconcile(t.raw, done.code, { type: 'response.output_item.done', item: done } as Obj, where, (d) => parts.toolRaw(t, d));
        const container = (done.container_id ?? null) as Json;
        parts.toolEnd(t, { code: t.raw, containerId: container }, itemMeta);
        if (item) parts.toolOutput(t.toolCallId, t.toolName, true, done as Json);
        return;
      }
      case 'apply_patch_call': {
        const t = state.tool as ToolState;
        const op = isObject(done.operation) ? done.operation : undefined;
        if (t.stream === 'escaped')
          parts.reconcile(t.raw, op?.diff, { type: 'response.output_item.done', item: done } as Obj, where, (d) => parts.toolRaw(t, d));
        if (done.status === 'completed') s.hasFunctionCall = true;
        const input: JsonObject = { callId: t.toolCallId, operation: (op ?? { diff: t.raw }) as Json };
        return parts.toolEnd(t, item ? input : undefined, { ...itemMeta, ...rest(done, ['id', 'type', 'call_id', 'operation']) });
      }
      case 'tool_search_call': {
        const t = state.tool ?? parts.registerTool(state, str(done, 'call_id') ?? id, 'tool_search', false, 'json');
        if (t.providerExecuted) s.hostedToolSearch.push(t.toolCallId);
        const input: JsonObject = { arguments: (done.arguments ?? null) as Json, call_id: t.providerExecuted ? null : t.toolCallId };
        return parts.toolEnd(t, input, { ...itemMeta, ...rest(done, ['id', 'type', 'call_id', 'arguments']) });
      }
      case 'local_shell_call':
      case 'shell_call':
      case 'computer_call':
      case 'program': {
        const t = state.tool as ToolState;
        let input: JsonObject;
        const action = isObject(done.action) ? done.action : {};
        if (state.type === 'local_shell_call') {
          input = { action: { ...action } as JsonObject };
          const a = input.action as JsonObject;
          // The AI SDK's local shell input keys.
          for (const [from, to] of [
            ['timeout_ms', 'timeoutMs'],
            ['working_directory', 'workingDirectory'],
          ] as const)
            if (from in a) {
              a[to] = a[from] as Json;
              delete a[from];
            }
        } else if (state.type === 'shell_call') {
          const a: JsonObject = { commands: (action.commands ?? []) as Json };
          if (typeof action.timeout_ms === 'number') a.timeoutMs = action.timeout_ms;
          if (typeof action.max_output_length === 'number') a.maxOutputLength = action.max_output_length;
          input = { action: a };
        } else if (state.type === 'computer_call') {
          input = rest(done, ['id', 'type', 'call_id', 'status']) ?? {};
          if (item) s.hasFunctionCall = true;
        } else {
          input = { code: (done.code ?? '') as Json, fingerprint: (done.fingerprint ?? null) as Json };
        }
        const meta: JsonObject = { ...itemMeta, ...rest(done, ['id', 'type', 'call_id', 'code', 'fingerprint']) };
        return parts.toolEnd(t, item ? input : undefined, meta);
      }
      case 'shell_call_output':
      case 'tool_search_output':
      case 'program_output': {
        if (!item) return;
        const callId = str(done, 'call_id');
        const toolCallId = state.type === 'tool_search_output' ? (callId ?? s.hostedToolSearch.shift() ?? id) : (callId ?? id);
        const call = tools.get(toolCallId);
        const toolName =
          call?.toolName ??
          (state.type === 'shell_call_output'
            ? 'shell'
            : state.type === 'tool_search_output'
              ? 'tool_search'
              : 'programmatic_tool_calling');
        const providerExecuted = call?.providerExecuted ?? (state.type !== 'tool_search_output' || done.execution !== 'client');
        return parts.toolOutput(toolCallId, toolName, providerExecuted, done as Json, undefined, false, outputMeta);
      }
      case 'compaction': {
        if (!item) return;
        const value: JsonObject = { type: 'compaction', itemId: id, ...rest(done, ['id', 'type', 'encrypted_content']) };
        if (done.encrypted_content !== undefined) value.encryptedContent = done.encrypted_content as Json;
        if (replaced) value.addedItem = replaced;
        out.emit({ type: 'custom', name: 'openai.compaction', value });
        return;
      }
      default:
        if (item)
          raw({ type: 'response.output_item.done', item: done } as Obj, `unknown output item type ${JSON.stringify(done.type)}`, where);
    }
  }

  return { itemAdded, itemDone, finishItem };
}

/** The events inside an output item: content parts, text and refusal, annotations, reasoning, tool input. */
function responsesItemEvents({ kit, field, currentStep }: CoreShared, parts: ReturnType<typeof responsesParts>) {
  const { raw } = kit;
  const invalid = (where: Location | undefined, f: string, expected: string) => kit.invalid(where, field(f), expected);

  /** A `.delta` event appends its text; a `.done` one brings the final text, checked against what streamed. */
  function deltaOrDone(
    type: string,
    ev: Obj,
    where: Location | undefined,
    streamed: string,
    final: unknown,
    append: (d: string) => void,
  ): void {
    if (!type.endsWith('.delta')) return parts.reconcile(streamed, final, ev, where, append);
    if (typeof ev.delta !== 'string') return invalid(where, 'delta', 'a string');
    append(ev.delta);
  }

  function itemEvent(ev: Obj, type: string, where?: Location): void {
    const step = currentStep();
    switch (type) {
      case 'response.content_part.added':
      case 'response.content_part.done': {
        const item = parts.findItem(ev, where, 'message or reasoning');
        if (!item) return;
        const part = isObject(ev.part) ? ev.part : {};
        const ci = typeof ev.content_index === 'number' ? ev.content_index : 0;
        if (item.type === 'message') {
          const p = parts.textPart(item, ci, part.type);
          if (part.type === 'refusal' && step) step.hasRefusal = true;
          if (type === 'response.content_part.done') {
            const final = part.type === 'refusal' ? part.refusal : part.text;
            parts.reconcile(p.text, final, ev, where, (d) => parts.textDelta(p, d));
            if (Array.isArray(part.annotations))
              for (let i = p.annotations; i < part.annotations.length; i++) {
                const a = part.annotations[i];
                if (isObject(a)) parts.annotation(item, p, a, i);
              }
          }
          return;
        }
        if (item.type === 'reasoning') {
          const p = parts.reasoningPart(item, `c${ci}`);
          if (type === 'response.content_part.done') parts.reconcile(p.text, part.text, ev, where, (d) => parts.reasoningDelta(p, d));
          return;
        }
        return raw(ev, `content part for a ${item.type} item`, where);
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        if (typeof ev.delta !== 'string') return invalid(where, 'delta', 'a string');
        const item = parts.findItem(ev, where, 'message');
        if (!item) return;
        if (item.type !== 'message') return raw(ev, `text delta for a ${item.type} item`, where);
        const ci = typeof ev.content_index === 'number' ? ev.content_index : 0;
        const p = parts.textPart(item, ci, type === 'response.refusal.delta' ? 'refusal' : 'output_text');
        if (type === 'response.refusal.delta' && step) step.hasRefusal = true;
        if (Array.isArray(ev.logprobs) && ev.logprobs.length > 0) p.logprobs.push(...(ev.logprobs as Json[]));
        return parts.textDelta(p, ev.delta);
      }
      case 'response.output_text.done':
      case 'response.refusal.done': {
        const item = parts.findItem(ev, where, 'message');
        if (!item) return;
        if (item.type !== 'message') return raw(ev, `text for a ${item.type} item`, where);
        const ci = typeof ev.content_index === 'number' ? ev.content_index : 0;
        const p = parts.textPart(item, ci, type === 'response.refusal.done' ? 'refusal' : 'output_text');
        if (type === 'response.refusal.done' && step) step.hasRefusal = true;
        parts.reconcile(p.text, type === 'response.refusal.done' ? ev.refusal : ev.text, ev, where, (d) => parts.textDelta(p, d));
        if (p.logprobs.length === 0 && Array.isArray(ev.logprobs) && ev.logprobs.length > 0) p.logprobs = ev.logprobs as Json[];
        return;
      }
      case 'response.output_text.annotation.added': {
        if (!isObject(ev.annotation)) return invalid(where, 'annotation', 'an annotation object');
        const item = parts.findItem(ev, where, 'message');
        if (!item) return;
        const ci = typeof ev.content_index === 'number' ? ev.content_index : 0;
        const p = parts.textPart(item, ci, 'output_text');
        return parts.annotation(item, p, ev.annotation, typeof ev.annotation_index === 'number' ? ev.annotation_index : p.annotations);
      }
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_part.done':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_summary_text.done':
      case 'response.reasoning_text.delta':
      case 'response.reasoning_text.done': {
        const item = parts.findItem(ev, where, 'reasoning');
        // No item: findItem reported it; another kind of item: kept raw.
        if (item?.type !== 'reasoning') return item && raw(ev, `reasoning event for a ${item.type} item`, where);
        const summary = type.startsWith('response.reasoning_summary');
        const n = summary ? ev.summary_index : (ev.content_index ?? 0);
        if (typeof n !== 'number') return invalid(where, summary ? 'summary_index' : 'content_index', 'an integer');
        const key = `${summary ? 's' : 'c'}${n}`;
        const r = item.reasoning;
        if (type === 'response.reasoning_summary_part.added' && r) {
          // Like @ai-sdk/openai: finished parts close when the next one starts; the last closes with the item (encrypted content).
          for (const p of new Set([...r.parts.values()])) if (p.state === 'can-conclude') parts.reasoningClose(item, p);
          parts.reasoningPart(item, key);
          return;
        }
        const p = parts.reasoningPart(item, key);
        if (type === 'response.reasoning_summary_part.done') {
          if (p.state === 'open') p.state = 'can-conclude';
          const part = isObject(ev.part) ? ev.part : {};
          return parts.reconcile(p.text, part.text, ev, where, (d) => parts.reasoningDelta(p, d));
        }
        return deltaOrDone(type, ev, where, p.text, ev.text, (d) => parts.reasoningDelta(p, d));
      }
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done':
      case 'response.custom_tool_call_input.delta':
      case 'response.custom_tool_call_input.done':
      case 'response.mcp_call_arguments.delta':
      case 'response.mcp_call_arguments.done': {
        const item = parts.findItem(ev, where, 'tool call');
        if (!item) return;
        const t = item.tool;
        if (!t || t.stream === 'escaped' || (t.stream === 'text') !== type.startsWith('response.custom'))
          return raw(ev, `tool input for a ${item.type} item`, where);
        const final = type.startsWith('response.custom') ? ev.input : ev.arguments;
        return deltaOrDone(type, ev, where, t.text, final, (d) => parts.toolDelta(t, d));
      }
      case 'response.code_interpreter_call_code.delta':
      case 'response.code_interpreter_call_code.done':
      case 'response.apply_patch_call_operation_diff.delta':
      case 'response.apply_patch_call_operation_diff.done': {
        const item = parts.findItem(ev, where, type.includes('code_interpreter') ? 'code_interpreter_call' : 'apply_patch_call');
        if (!item) return;
        const t = item.tool;
        if (t?.stream !== 'escaped' || t.ended) return raw(ev, `streamed code or diff for a ${item.type} item`, where);
        // The input completes with the item (its final form carries the whole operation / container).
        return deltaOrDone(type, ev, where, t.raw, type.includes('code_interpreter') ? ev.code : ev.diff, (d) => parts.toolRaw(t, d));
      }
      case 'response.image_generation_call.partial_image': {
        const item = parts.findItem(ev, where, 'image_generation_call');
        if (!item?.tool) return;
        const output = rest(ev, ['type', 'sequence_number', 'output_index', 'item_id']) ?? {};
        return parts.toolOutput(item.tool.toolCallId, item.tool.toolName, true, output, undefined, true);
      }
      case 'response.shell_call_command.added':
      case 'response.shell_call_command.delta':
      case 'response.shell_call_command.done':
      case 'response.shell_call_output_content.delta':
      case 'response.shell_call_output_content.done':
        // Previews of what the shell item holds whole at output_item.done.
        if (!parts.findItem(ev, where, 'shell')) return;
        return;
    }
  }

  return itemEvent;
}

/**
 * Creates the Responses step machine on an emitter. The caller owns the run: it starts the run
 * (or lets the first response start it) and emits run-finish.
 */
export function createResponsesCore(out: Emitter, options: ResponsesCoreOptions = {}): ResponsesCore {
  const source = options.source ?? 'openai-responses';
  const prefix = options.fieldPrefix ? `${options.fieldPrefix}.` : '';
  const expandParallel = options.expandParallelToolCalls ?? true;
  const usedBlocks = new Set<string>();
  const usedSteps = new Set<string>();
  const known = new Set<string>();
  const tools = new Map<string, { toolName: string; providerExecuted: boolean }>();
  const approvals = new Map<string, string>();
  const pendingApprovals = new Set<string>();
  const sources = new Set<string>();
  let step: StepState | undefined;
  let held: EventInit | undefined;
  let stepCount = 0;
  let fatal = false;
  const totals = new StepTotals();

  const field = (f: string) => `${prefix}${f}`;
  const kit = new Kit(out, { source, metaKey: PM });
  const { error, raw } = kit;

  /** A field of the event (under the core's field prefix) holds the wrong thing. */
  const invalid = (where: Location | undefined, f: string, expected: string) => kit.invalid(where, field(f), expected);

  function uniqueBlock(base: string): string {
    let id = base;
    for (let n = 2; usedBlocks.has(id); n++) id = `${base}~${n}`;
    usedBlocks.add(id);
    return id;
  }

  // ---------------------------------------------------------------------------------------------
  // Steps (one per response)
  // ---------------------------------------------------------------------------------------------

  function releaseStep(): void {
    if (!held) return;
    const e = held;
    held = undefined;
    out.emit(e);
  }

  function openStep(response: Obj | undefined, ev: Obj | undefined, where?: Location): StepState {
    if (step) {
      const loc = at(where, field('type'), 'a terminal event (response.completed, .incomplete or .failed) first');
      error('truncated', `${describe(loc)}: response ${step.id} ended without a terminal event`, loc);
      abortStep('error');
    }
    releaseStep();
    stepCount++;
    const responseId = response ? str(response, 'id') : undefined;
    let id = responseId && !usedSteps.has(responseId) ? responseId : `step_${stepCount}`;
    while (usedSteps.has(id)) id = `${id}_${stepCount}`;
    usedSteps.add(id);
    const model = response ? str(response, 'model') : undefined;
    if (!out.started) out.start({ messageId: responseId ?? id, ...(model ? { model } : {}) });
    step = {
      id,
      created: response ?? {},
      items: new Map(),
      byId: new Map(),
      errorSeen: false,
      hasFunctionCall: false,
      hasRefusal: false,
      gaps: [],
      hostedToolSearch: [],
      extraIndex: 0,
    };
    const meta: JsonObject = {};
    if (responseId) meta.responseId = responseId;
    if (ev && typeof ev.sequence_number === 'number') meta.sequenceNumber = ev.sequence_number;
    if (response) {
      const r = rest(response, ['id', 'model', ...(Array.isArray(response.output) && response.output.length === 0 ? ['output'] : [])]);
      if (r) meta.response = r;
    }
    const extra = ev ? rest(ev, ['type', 'response', 'sequence_number']) : undefined;
    if (extra) Object.assign(meta, extra);
    const e: EventInit = { type: 'step-start', stepId: id, kind: 'model' };
    if (model) e.model = model;
    if (Object.keys(meta).length > 0) e.providerMetadata = { [PM]: meta };
    options.decorateStepStart?.(e as EventOf<'step-start'>);
    out.emit(e);
    return step;
  }

  function ensureStep(where?: Location): StepState {
    return step ?? openStep(undefined, undefined, where);
  }

  /** Closes every item of the step that did not get its output_item.done. */
  function closeItems(s: StepState): void {
    for (const item of [...s.items.values()].sort((a, b) => a.outputIndex - b.outputIndex)) {
      if (!item.done) finishItem(s, item, undefined);
    }
  }

  function abortStep(reason: FinishReason): void {
    if (!step) return;
    const s = step;
    closeItems(s);
    step = undefined;
    const e: EventInit = { type: 'step-finish', stepId: s.id, finishReason: reason };
    totals.add(e);
    options.decorateStepFinish?.(e as EventOf<'step-finish'>);
    out.emit(e);
  }

  /**
   * Matches the final `response.output` to the streamed items (by id, else by type in order): the
   * entries that never streamed, and the fields of streamed ones that the final response changed.
   */
  function matchOutput(s: StepState, output: unknown[]): { unseen: Obj[]; changed: JsonObject[] } {
    const streamed = [...s.items.values()].sort((a, b) => a.outputIndex - b.outputIndex);
    const matched = new Map<ItemState, [number, Obj]>();
    const pending: [number, Obj][] = [];
    output.forEach((o, i) => {
      if (!isObject(o)) return;
      const byId = typeof o.id === 'string' ? s.byId.get(o.id) : undefined;
      if (byId && !matched.has(byId)) matched.set(byId, [i, o]);
      else pending.push([i, o]);
    });
    const unseen: Obj[] = [];
    let cursor = 0;
    for (const [i, o] of pending) {
      let found: ItemState | undefined;
      for (let j = cursor; j < streamed.length; j++) {
        const cand = streamed[j] as ItemState;
        if (!matched.has(cand) && cand.type === o.type) {
          found = cand;
          cursor = j + 1;
          break;
        }
      }
      if (found) matched.set(found, [i, o]);
      else unseen.push(o);
    }
    const changed: JsonObject[] = [];
    for (const [state, [i, o]] of matched) {
      if (!state.final) continue;
      const diff: JsonObject = {};
      for (const k in o) if (!sameJson(o[k], state.final[k])) diff[k] = o[k] as Json;
      if (Object.keys(diff).length > 0) changed.push({ outputIndex: i, ...diff });
    }
    return { unseen, changed };
  }

  function finishStep(ev: Obj, kind: 'completed' | 'incomplete' | 'failed', where?: Location): void {
    const response = isObject(ev.response) ? ev.response : undefined;
    if (!response) return invalid(where, 'response', 'an object');
    const s = step ?? openStep(response, undefined, where);
    let outputChanges: JsonObject[] = [];
    if (Array.isArray(response.output)) {
      const { unseen, changed } = matchOutput(s, response.output);
      outputChanges = changed;
      for (const o of unseen) {
        // Not streamed (a proxy may send whole items only in the final response): decode it whole.
        const index = 100000 + s.extraIndex++;
        itemAdded(s, index, o, where);
        itemDone(s, index, o, where);
      }
    }
    closeItems(s);
    const details = isObject(response.incomplete_details) ? response.incomplete_details : undefined;
    const reason = details?.reason;
    if (kind === 'failed') {
      if (!s.errorSeen) {
        const err = isObject(response.error) ? response.error : {};
        const code = str(err, 'code') ?? str(err, 'type') ?? 'response_failed';
        const message = str(err, 'message') ?? `response ${s.id} failed`;
        const meta: JsonObject = rest(err, ['code', 'message']) ?? {};
        if (typeof response.id === 'string') meta.responseId = response.id;
        error(code, message, where, true, meta);
      }
      fatal = true;
    }
    const finishReason: FinishReason =
      kind === 'failed' && (reason === undefined || reason === null)
        ? 'error'
        : openaiResponsesFinishReason(reason, s.hasFunctionCall, s.hasRefusal);
    const rawFinish = typeof reason === 'string' ? reason : str(response, 'status');
    const e: EventInit = { type: 'step-finish', stepId: s.id, finishReason };
    if (rawFinish) e.rawFinishReason = rawFinish;
    if (isObject(response.usage)) e.usage = openaiResponsesUsage(response.usage);
    const meta: JsonObject = {};
    if (typeof response.id === 'string') meta.responseId = response.id;
    if (typeof ev.sequence_number === 'number') meta.sequenceNumber = ev.sequence_number;
    if (s.gaps.length > 0) meta.sequenceGaps = s.gaps;
    // Output items whose final form differs from what streamed (e.g. re-encrypted reasoning).
    if (outputChanges.length > 0) meta.outputChanges = outputChanges;
    // The fields that changed since response.created (status, completed_at, error, service_tier, …).
    const changed: JsonObject = {};
    for (const k in response) {
      if (k === 'id' || k === 'output' || k === 'usage' || response[k] === undefined) continue;
      if (!sameJson(response[k], s.created[k])) changed[k] = response[k] as Json;
    }
    if (Object.keys(changed).length > 0) meta.response = changed;
    const extra = rest(ev, ['type', 'response', 'sequence_number']);
    if (extra) Object.assign(meta, extra);
    if (Object.keys(meta).length > 0) e.providerMetadata = { [PM]: meta };
    step = undefined;
    totals.add(e);
    options.decorateStepFinish?.(e as EventOf<'step-finish'>);
    if (options.holdStepFinish) held = e;
    else out.emit(e);
  }

  // Items: their parts (tools, text, reasoning) and their added / done events, in their own factories.
  const shared: CoreShared = {
    kit,
    field,
    known,
    sources,
    tools,
    approvals,
    pendingApprovals,
    expandParallel,
    uniqueBlock,
    currentStep: () => step,
  };
  const parts = responsesParts(shared);
  const { itemAdded, itemDone, finishItem } = responsesItems(shared, parts);
  const itemEvent = responsesItemEvents(shared, parts);

  // ---------------------------------------------------------------------------------------------
  // Events
  // ---------------------------------------------------------------------------------------------

  const TOOL_PROGRESS =
    /^response\.([a-z_]+_call|mcp_list_tools)\.(in_progress|searching|interpreting|generating|completed|failed|incomplete)$/;

  /** sequence_number is contiguous within a response: gaps (events lost upstream) are kept on the step-finish. */
  function checkSequence(ev: Obj): void {
    const n = ev.sequence_number;
    if (typeof n !== 'number' || !step) return;
    if (step.nextSeq !== undefined && n !== step.nextSeq) step.gaps.push({ expected: step.nextSeq, got: n });
    step.nextSeq = n + 1;
  }

  /** An `mcp_approval_response` input item (what the client sent with the next request) answers a request. */
  function approvalResponse(item: Obj, where?: Location): void {
    const approvalId = str(item, 'approval_request_id');
    if (!approvalId) return invalid(where, 'approval_request_id', 'the id of an mcp_approval_request');
    if (typeof item.approve !== 'boolean') return invalid(where, 'approve', 'a boolean');
    pendingApprovals.delete(approvalId);
    const e: EventInit = { type: 'tool-approval-response', approvalId, approved: item.approve, providerExecuted: true };
    const toolCallId = approvals.get(approvalId);
    if (toolCallId) e.toolCallId = toolCallId;
    if (typeof item.reason === 'string') e.reason = item.reason;
    const extra = rest(item, ['type', 'approval_request_id', 'approve', 'reason']);
    if (extra) e.providerMetadata = { [PM]: extra };
    out.emit(e);
  }

  function handle(ev: Obj, where?: Location): void {
    const type = ev.type;
    if (typeof type !== 'string') return invalid(where, 'type', 'a string event type');
    if (type === 'response.created') {
      if (!isObject(ev.response)) return invalid(where, 'response', 'an object');
      openStep(ev.response, ev, where);
      if (step && typeof ev.sequence_number === 'number') step.nextSeq = ev.sequence_number + 1;
      return;
    }
    if (type === 'mcp_approval_response') return approvalResponse(ev, where);
    checkSequence(ev);
    switch (type) {
      case 'response.queued':
      case 'response.in_progress': {
        if (!step) {
          if (!isObject(ev.response)) return invalid(where, 'response', 'an object');
          openStep(ev.response, ev, where);
          if (step && typeof ev.sequence_number === 'number') (step as StepState).nextSeq = ev.sequence_number + 1;
        }
        out.emit({ type: 'status', status: type === 'response.queued' ? 'queued' : 'in_progress' });
        return;
      }
      case 'response.completed':
        return finishStep(ev, 'completed', where);
      case 'response.incomplete':
        return finishStep(ev, 'incomplete', where);
      case 'response.failed':
        return finishStep(ev, 'failed', where);
      case 'error': {
        // A bare error event; response.failed follows with the same error (reported once).
        const err = isObject(ev.error) ? ev.error : ev;
        const code = str(err, 'code') ?? str(err, 'type') ?? 'error';
        const message = str(err, 'message') ?? 'OpenAI Responses stream error';
        const meta = rest(ev, ['type', 'error', 'code', 'message', 'sequence_number']) ?? {};
        if (err !== ev) Object.assign(meta, rest(err, ['code', 'message']));
        if (step) step.errorSeen = true;
        fatal = true;
        return error(code, message, where, true, Object.keys(meta).length > 0 ? meta : undefined);
      }
      case 'response.output_item.added':
      case 'response.output_item.done': {
        if (typeof ev.output_index !== 'number') return invalid(where, 'output_index', 'an integer output index');
        if (!isObject(ev.item) || typeof ev.item.type !== 'string')
          return invalid(where, 'item', 'an output item object with a string "type"');
        const s = ensureStep(where);
        return type === 'response.output_item.added'
          ? itemAdded(s, ev.output_index, ev.item, where)
          : itemDone(s, ev.output_index, ev.item, where);
      }

      case 'response.content_part.added':
      case 'response.content_part.done':
      case 'response.output_text.delta':
      case 'response.refusal.delta':
      case 'response.output_text.done':
      case 'response.refusal.done':
      case 'response.output_text.annotation.added':
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_part.done':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_summary_text.done':
      case 'response.reasoning_text.delta':
      case 'response.reasoning_text.done':
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done':
      case 'response.custom_tool_call_input.delta':
      case 'response.custom_tool_call_input.done':
      case 'response.mcp_call_arguments.delta':
      case 'response.mcp_call_arguments.done':
      case 'response.code_interpreter_call_code.delta':
      case 'response.code_interpreter_call_code.done':
      case 'response.apply_patch_call_operation_diff.delta':
      case 'response.apply_patch_call_operation_diff.done':
      case 'response.image_generation_call.partial_image':
      case 'response.shell_call_command.added':
      case 'response.shell_call_command.delta':
      case 'response.shell_call_command.done':
      case 'response.shell_call_output_content.delta':
      case 'response.shell_call_output_content.done':
        return itemEvent(ev, type, where);
      default: {
        const m = TOOL_PROGRESS.exec(type);
        if (m) {
          const e: EventInit = { type: 'status', status: `${m[1]}.${m[2]}` };
          if (typeof ev.item_id === 'string') e.message = ev.item_id;
          return out.emit(e);
        }
        return raw(ev, `unknown event type ${JSON.stringify(type)}`, where);
      }
    }
  }

  return {
    handle,
    releaseStep,
    abortStep,
    get stepOpen() {
      return step !== undefined;
    },
    get stepHeld() {
      return held !== undefined;
    },
    get fatal() {
      return fatal;
    },
    totals,
    knows: (id) => known.has(id),
    remember: (id) => {
      known.add(id);
    },
    toolOf: (id) => tools.get(id),
  };
}

const RESPONSES_TYPE = /^response\.[a-z_]+(\.[a-z_]+)*$/;

/** True when one parsed input value is unmistakably an OpenAI Responses stream event. */
export function detectOpenAIResponses(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string' || 'data' in value) return false;
  if (value.type === 'error') return typeof value.sequence_number === 'number';
  if (!RESPONSES_TYPE.test(value.type)) return false;
  return typeof value.sequence_number === 'number' || isObject(value.response) || isObject(value.item) || typeof value.item_id === 'string';
}

/** Options of the Responses decoder. */
export interface OpenAIResponsesDecoderOptions extends DecoderOptions {
  /** Expand the model's internal `parallel` wrapper call into its calls, as @ai-sdk/openai does. Default true. */
  expandParallelToolCalls?: boolean;
}

/** Creates an OpenAI Responses API stream decoder. */
export function createOpenAIResponsesDecoder(options: OpenAIResponsesDecoderOptions = {}): Decoder {
  const kit = new Kit(options, 'openai-responses');
  const out = kit.out;
  const core = createResponsesCore(out, {
    ...(options.expandParallelToolCalls !== undefined ? { expandParallelToolCalls: options.expandParallelToolCalls } : {}),
  });
  let failed = false;

  return kit.decoder({
    push(value, where) {
      const ev = kit.object(value, where);
      if (ev) core.handle(ev, where);
    },
    finish() {
      if (core.stepOpen) {
        if (!core.fatal) kit.truncated('the stream ended inside a response (no response.completed, .incomplete or .failed)');
        failed = true;
        core.abortStep('error');
      }
      core.releaseStep();
      if (!out.started && !core.fatal) {
        kit.empty('the stream contained no OpenAI Responses events');
        failed = true;
      }
      const isError = failed || core.fatal;
      // An approval left unanswered: the emitter names it (run-finish.pending, finishReason tool-calls).
      out.emit(core.totals.runFinish(isError));
    },
  });
}
