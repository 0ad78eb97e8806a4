/**
 * Decoder for the OpenAI Chat Completions stream (`POST /v1/chat/completions` with `stream: true`):
 * `chat.completion.chunk` objects, as OpenAI, Azure OpenAI and the OpenAI-compatible providers
 * (DeepSeek, Groq, xAI, OpenRouter, vLLM, …) send them. One body is one model response: one run with
 * one step whose id is the chunk id.
 *
 * Per choice, `content` becomes text blocks, `refusal` text blocks marked `{openai:{refusal:true}}`,
 * `reasoning_content` / `reasoning` thinking blocks and `tool_calls` / `function_call` tool calls
 * (merged by index; the input is complete when the choice finishes). Choice 0 is the message; the
 * blocks of the other choices (`n > 1`) carry `{openai:{choiceIndex}}`. The stream is complete when
 * every choice has a `finish_reason` and the input ends (the usage chunk comes after the finish
 * chunk), so the step and the run finish in `end()`.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Location, ProviderMetadata, Usage } from '../model/events.ts';
import { mergeProviderMetadata } from '../model/metadata.ts';
import { finishReasonFrom } from '../model/vocabulary.ts';
import { at, type Decoder } from './decoder.ts';
import { isObject, Kit, num, parseToolInput } from './kit/index.ts';

/** The raw-event source name and the framework name. */
const FRAMEWORK = 'openai-chat';
/** The provider name on run-start and the providerMetadata key. */
const PROVIDER = 'openai';

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  eos: 'stop',
  end_turn: 'stop',
  length: 'length',
  max_tokens: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  error: 'error',
};

/**
 * Maps a Chat Completions `finish_reason` to the canonical finish reason. Like `@ai-sdk/openai`, a
 * `stop` after a refusal is `content-filter`.
 */
export function openaiChatFinishReason(finishReason: string | null | undefined, hasRefusal = false): FinishReason {
  const reason = finishReasonFrom(FINISH_REASONS, finishReason);
  return reason === 'stop' && hasRefusal ? 'content-filter' : reason;
}

/**
 * Converts a Chat Completions usage object (also the `input_tokens` / `output_tokens` spelling).
 * `inputTokens` is `prompt_tokens` (cached tokens included); xAI, which leaves reasoning tokens out
 * of `completion_tokens` (prompt + completion + reasoning = total), gets them added to `outputTokens`.
 */
export function openaiChatUsage(u: Record<string, unknown>): Usage {
  const prompt = num(u, 'prompt_tokens') ?? num(u, 'input_tokens');
  const completion = num(u, 'completion_tokens') ?? num(u, 'output_tokens');
  const total = num(u, 'total_tokens');
  const promptDetails = u.prompt_tokens_details ?? u.input_tokens_details;
  const completionDetails = u.completion_tokens_details ?? u.output_tokens_details;
  const cached = num(promptDetails, 'cached_tokens') ?? num(u, 'prompt_cache_hit_tokens');
  const cacheWrite = num(promptDetails, 'cache_write_tokens') ?? num(promptDetails, 'cache_creation_tokens');
  const reasoning = num(completionDetails, 'reasoning_tokens');
  const usage: Usage = { raw: u as Json };
  let input = prompt;
  // A cached count above the prompt count means the prompt count left the cached tokens out (xAI).
  if (input !== undefined && cached !== undefined && cached > input) input += cached;
  let output = completion;
  if (
    output !== undefined &&
    input !== undefined &&
    total !== undefined &&
    reasoning !== undefined &&
    reasoning > 0 &&
    input + output < total &&
    input + output + reasoning === total
  )
    output += reasoning;
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (total !== undefined) usage.totalTokens = total;
  else if (input !== undefined || output !== undefined) usage.totalTokens = (input ?? 0) + (output ?? 0);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  const cost = num(u, 'cost') ?? (num(u, 'cost_in_usd_ticks') !== undefined ? (num(u, 'cost_in_usd_ticks') as number) / 1e10 : undefined);
  if (cost !== undefined) usage.costUsd = cost;
  return usage;
}

/** True when one parsed input value is unmistakably a Chat Completions (or legacy Completions) chunk. */
export function detectOpenAIChat(value: unknown): boolean {
  if (!isObject(value) || 'type' in value || 'data' in value) return false;
  if (value.object === 'chat.completion.chunk' || value.object === 'text_completion') return true;
  // Azure's first chunk (`object: ""`) and compatible servers that leave `object` out.
  return Array.isArray(value.choices) && (typeof value.id === 'string' || 'prompt_filter_results' in value);
}

interface ToolState {
  toolCallId: string;
  name: string;
  json: string;
  custom: boolean;
  meta?: ProviderMetadata;
  ended: boolean;
}

interface ChoiceState {
  index: number;
  open?: { kind: 'text' | 'refusal' | 'reasoning'; id: string };
  /** Tool calls of this choice by wire index (`function_call` for the legacy call). */
  tools: Map<number | string, ToolState>;
  /** Every call in start order, for closing. */
  order: ToolState[];
  finishReason?: string;
  refusal: boolean;
  /** OpenRouter `reasoning_details` not yet attached to a reasoning block. */
  reasoningDetails: Json[];
  /** Concatenated `logprobs.<key>` arrays. */
  logprobs?: Record<string, Json[]>;
  /** Other choice-level fields, each value that differed from the one before. */
  extras: Record<string, Json[]>;
  /** Last value of each extra field, JSON-encoded, for dropping repeats. */
  lastExtra: Map<string, string>;
}

interface StepState {
  id: string;
  /** Fields of the opening chunk (step-start providerMetadata), JSON-encoded, for change tracking. */
  last: Map<string, string>;
  /** Chunk fields that changed or appeared after the opening chunk: their last value. */
  changed: JsonObject;
  /** Every value after the opening one, per field (repeats dropped). */
  history: Record<string, Json[]>;
  usage?: Record<string, unknown>;
}

/** Chunk keys that are mapped (or are the chunk's structure), not metadata. */
const CHUNK_MAPPED = new Set(['choices', 'usage', 'error']);
/** Choice keys that are mapped. */
const CHOICE_MAPPED = new Set(['index', 'delta', 'finish_reason', 'logprobs', 'text']);
/** Delta keys that are mapped. */
const DELTA_MAPPED = new Set([
  'role',
  'content',
  'refusal',
  'reasoning_content',
  'reasoning',
  'reasoning_details',
  'tool_calls',
  'function_call',
  'annotations',
]);
/** Tool call fragment keys that are mapped. */
const TOOL_MAPPED = new Set(['index', 'id', 'type', 'function', 'custom']);

/**
 * Appends to the list under `key` (a field name from the input). Own properties only: a field named
 * like an `Object.prototype` member (`toString`, `valueOf`, …) must not find the inherited function.
 */
function pushTo(record: Record<string, Json[]>, key: string, ...values: Json[]): void {
  const list = Object.hasOwn(record, key) ? record[key] : undefined;
  if (list) list.push(...values);
  else record[key] = values;
}

/**
 * The tool calls of one decoder: fragments (`tool_calls[i]`, the legacy `function_call`) assembled
 * into tool-input events, ids made unique across the run.
 */
function chatToolCalls(kit: Kit, closeOpen: (c: ChoiceState) => void) {
  const { out, error, mismatch: invalid } = kit;
  const usedToolIds = new Set<string>();
  let toolCount = 0;

  function uniqueToolId(wireId: string | undefined, s: StepState): string {
    toolCount++;
    let id = wireId || `${s.id}:call_${toolCount}`;
    if (usedToolIds.has(id)) id = `${id}:${toolCount}`;
    usedToolIds.add(id);
    return id;
  }

  function startTool(
    s: StepState,
    c: ChoiceState,
    key: number | string,
    wireId: string | undefined,
    name: string,
    custom: boolean,
    extra: JsonObject | undefined,
  ): ToolState {
    closeOpen(c);
    const toolCallId = uniqueToolId(wireId, s);
    const openai: JsonObject = { ...extra };
    if (c.index !== 0) openai.choiceIndex = c.index;
    if (wireId && wireId !== toolCallId) openai.id = wireId;
    let meta: ProviderMetadata | undefined = Object.keys(openai).length > 0 ? { [PROVIDER]: openai } : undefined;
    const google = isObject(extra?.extra_content) && isObject(extra.extra_content.google) ? extra.extra_content.google : undefined;
    if (google && typeof google.thought_signature === 'string')
      meta = mergeProviderMetadata(meta, { google: { thoughtSignature: google.thought_signature } });
    const t: ToolState = { toolCallId, name, json: '', custom, ended: false };
    if (meta) t.meta = meta;
    c.tools.set(key, t);
    c.order.push(t);
    const e: EventInit = { type: 'tool-input-start', toolCallId, toolName: name };
    if (meta) e.providerMetadata = meta;
    out.emit(e);
    return t;
  }

  function toolDelta(t: ToolState, delta: string): void {
    if (!delta) return;
    t.json += delta;
    out.emit({ type: 'tool-input-delta', toolCallId: t.toolCallId, delta });
  }

  function endTool(t: ToolState): void {
    if (t.ended) return;
    t.ended = true;
    let input: Json;
    let inputError: string | undefined;
    if (t.custom) input = t.json;
    else ({ input, inputError } = parseToolInput(t.json));
    const e: EventInit = { type: 'tool-input-end', toolCallId: t.toolCallId, toolName: t.name, input };
    if (inputError) e.inputError = inputError;
    if (t.meta) e.providerMetadata = t.meta;
    out.emit(e);
  }

  function toolFragment(s: StepState, c: ChoiceState, f: unknown, i: number, base: string, where?: Location): void {
    const field = `${base}.tool_calls[${i}]`;
    if (!isObject(f)) return invalid(where, field, 'a tool call fragment object', f);
    const fn = isObject(f.function) ? f.function : isObject(f.custom) ? f.custom : undefined;
    const custom = !isObject(f.function) && isObject(f.custom);
    const wireId = typeof f.id === 'string' && f.id.trim() ? f.id : undefined;
    const name = typeof fn?.name === 'string' && fn.name.trim() ? fn.name : undefined;
    const args = custom ? fn?.input : fn?.arguments;
    if (args !== undefined && args !== null && typeof args !== 'string')
      return invalid(where, `${field}.${custom ? 'custom.input' : 'function.arguments'}`, 'a string', args);
    // Without an index, a fragment continues the call with its id, else the last call of the choice.
    const byId = wireId ? [...c.tools].find(([, t]) => t.toolCallId === wireId) : undefined;
    const key: number | string =
      typeof f.index === 'number' ? f.index : byId ? byId[0] : name ? `call_${c.order.length}` : ([...c.tools.keys()].at(-1) ?? 0);
    let t = c.tools.get(key);
    // Some servers number every call 0: a new id with a name under an index in use starts a new call.
    if (t && wireId && name && wireId !== t.toolCallId && !t.toolCallId.startsWith(`${wireId}:`)) {
      endTool(t);
      t = undefined;
    }
    if (!t || (t.ended && name)) {
      if (!name) {
        const fragment = f as Json;
        return error(
          'unknown_tool_call',
          `${describe(at(where, field))}: a tool call fragment for index ${String(key)}, which was never started (no function name)`,
          at(where, `${field}.function.name`, 'the name of a new tool call, or the index of an open one'),
          false,
          { choiceIndex: c.index, fragment },
        );
      }
      const extra: JsonObject = {};
      for (const k in f) if (!TOOL_MAPPED.has(k) && f[k] !== undefined && f[k] !== null) extra[k] = f[k] as Json;
      if (f.type !== undefined && f.type !== 'function' && f.type !== 'custom') extra.type = f.type as Json;
      if (custom) extra.type = 'custom';
      if (fn) for (const k in fn) if (k !== 'name' && k !== 'arguments' && k !== 'input' && fn[k] != null) extra[k] = fn[k] as Json;
      t = startTool(s, c, key, wireId, name, custom, extra);
    } else if (t.ended) {
      return error(
        'unknown_tool_call',
        `${describe(at(where, field))}: a tool call fragment for ${t.toolCallId}, whose choice already finished`,
        at(where, field, 'a fragment of an open tool call'),
        false,
        { choiceIndex: c.index, fragment: f as Json },
      );
    }
    if (typeof args === 'string') toolDelta(t, args);
  }

  function legacyFunctionCall(s: StepState, c: ChoiceState, fc: unknown, base: string, where?: Location): void {
    const field = `${base}.function_call`;
    if (!isObject(fc)) return invalid(where, field, 'an object', fc);
    if (fc.arguments !== undefined && fc.arguments !== null && typeof fc.arguments !== 'string')
      return invalid(where, `${field}.arguments`, 'a string', fc.arguments);
    let t = c.tools.get('function_call');
    const name = typeof fc.name === 'string' && fc.name ? fc.name : undefined;
    if (!t || (t.ended && name)) {
      if (!name)
        return error(
          'unknown_tool_call',
          `${describe(at(where, field))}: a function_call fragment without a name before any function_call started`,
          at(where, `${field}.name`, 'the function name on the first fragment'),
          false,
          { choiceIndex: c.index, fragment: fc as Json },
        );
      t = startTool(s, c, 'function_call', undefined, name, false, { type: 'function_call' });
    }
    if (typeof fc.arguments === 'string') toolDelta(t, fc.arguments);
  }

  return { toolFragment, legacyFunctionCall, endTool };
}

/** Creates an OpenAI Chat Completions stream decoder (framework `openai-chat`). */
export function createOpenAIChatDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, { source: FRAMEWORK, provider: PROVIDER });
  const { out, error, raw, mismatch: invalid } = kit;
  const choices = new Map<number, ChoiceState>();
  /** Fields of leading chunks without an id and without content (Azure's prompt_filter_results). */
  let prelude: JsonObject = {};
  let step: StepState | undefined;
  let blockCount = 0;
  let sourceCount = 0;
  let fatal = false;
  let sawChunk = false;

  // --- steps -----------------------------------------------------------------------------------

  function openStep(chunk: Record<string, unknown>): StepState {
    const id = typeof chunk.id === 'string' && chunk.id ? chunk.id : 'step_1';
    const model = typeof chunk.model === 'string' && chunk.model ? chunk.model : undefined;
    if (!out.started) out.start({ messageId: id, ...(model ? { model } : {}) });
    const s: StepState = { id, last: new Map(), changed: {}, history: {} };
    const meta: JsonObject = { ...prelude };
    prelude = {};
    for (const k in chunk) {
      const v = chunk[k];
      if (CHUNK_MAPPED.has(k) || v === undefined) continue;
      s.last.set(k, JSON.stringify(v));
      if (k === 'id' || (k === 'model' && model) || (k === 'object' && v === 'chat.completion.chunk')) continue;
      meta[k] = v as Json;
    }
    step = s;
    const e: EventInit = { type: 'step-start', stepId: id, kind: 'model' };
    if (model) e.model = model;
    if (Object.keys(meta).length > 0) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
    return s;
  }

  /** Records the chunk-level fields of a later chunk: changes and new fields go to step-finish. */
  function trackChunk(s: StepState, chunk: Record<string, unknown>): void {
    for (const k in chunk) {
      const v = chunk[k];
      if (CHUNK_MAPPED.has(k) || v === undefined) continue;
      const text = JSON.stringify(v);
      if (s.last.get(k) === text) continue;
      s.last.set(k, text);
      s.changed[k] = v as Json;
      pushTo(s.history, k, v as Json);
    }
  }

  // --- choices and blocks ----------------------------------------------------------------------

  function choiceOf(index: number): ChoiceState {
    let c = choices.get(index);
    if (!c) {
      c = { index, tools: new Map(), order: [], refusal: false, reasoningDetails: [], extras: {}, lastExtra: new Map() };
      choices.set(index, c);
    }
    return c;
  }

  /** providerMetadata that marks the blocks of a choice other than 0. */
  function choiceMeta(c: ChoiceState): ProviderMetadata | undefined {
    return c.index === 0 ? undefined : { [PROVIDER]: { choiceIndex: c.index } };
  }

  function blockMeta(c: ChoiceState, kind: 'text' | 'refusal' | 'reasoning'): ProviderMetadata | undefined {
    return mergeProviderMetadata(choiceMeta(c), kind === 'refusal' ? { [PROVIDER]: { refusal: true } } : undefined);
  }

  function closeOpen(c: ChoiceState): void {
    const b = c.open;
    if (!b) return;
    c.open = undefined;
    if (b.kind === 'reasoning') {
      const e: EventInit = { type: 'reasoning-end', blockId: b.id };
      let pm = choiceMeta(c);
      if (c.reasoningDetails.length > 0) {
        pm = mergeProviderMetadata(pm, { openrouter: { reasoning_details: c.reasoningDetails } });
        c.reasoningDetails = [];
      }
      if (pm) e.providerMetadata = pm;
      out.emit(e);
    } else {
      const e: EventInit = { type: 'text-end', blockId: b.id };
      const pm = blockMeta(c, b.kind);
      if (pm) e.providerMetadata = pm;
      out.emit(e);
    }
  }

  function append(s: StepState, c: ChoiceState, kind: 'text' | 'refusal' | 'reasoning', delta: string): void {
    if (!delta) return;
    if (c.open?.kind !== kind) {
      closeOpen(c);
      const id = `${s.id}:${blockCount++}`;
      c.open = { kind, id };
      const pm = blockMeta(c, kind);
      if (kind === 'reasoning')
        out.emit({ type: 'reasoning-start', blockId: id, variant: 'thinking', ...(pm ? { providerMetadata: pm } : {}) });
      else out.emit({ type: 'text-start', blockId: id, ...(pm ? { providerMetadata: pm } : {}) });
    }
    if (kind === 'refusal') c.refusal = true;
    if (kind === 'reasoning') out.emit({ type: 'reasoning-delta', blockId: c.open.id, delta });
    else out.emit({ type: 'text-delta', blockId: c.open.id, delta });
  }

  const { toolFragment, legacyFunctionCall, endTool } = chatToolCalls(kit, closeOpen);

  function annotations(c: ChoiceState, list: unknown, base: string, where?: Location): void {
    if (!Array.isArray(list)) return invalid(where, `${base}.annotations`, 'an array', list);
    for (const a of list) {
      const cite = isObject(a) && isObject(a.url_citation) ? a.url_citation : undefined;
      if (!cite || typeof cite.url !== 'string') {
        raw({ index: c.index, delta: { annotations: [a as Json] } }, 'annotation without a url_citation.url', where);
        continue;
      }
      const e: EventInit = {
        type: 'source',
        sourceId: `${step?.id ?? 'step_1'}:source_${sourceCount++}`,
        kind: 'url',
        url: cite.url,
      };
      if (typeof cite.title === 'string') e.title = cite.title;
      e.providerMetadata = mergeProviderMetadata(choiceMeta(c), { [PROVIDER]: { annotation: a as Json } });
      out.emit(e);
    }
  }

  function finishChoice(c: ChoiceState): void {
    closeOpen(c);
    for (const t of c.order) endTool(t);
  }

  function extra(c: ChoiceState, key: string, value: unknown): void {
    const text = JSON.stringify(value);
    if (c.lastExtra.get(key) === text) return;
    c.lastExtra.set(key, text);
    pushTo(c.extras, key, value as Json);
  }

  function choice(s: StepState, ch: unknown, i: number, where?: Location): void {
    const base = `choices[${i}]`;
    if (!isObject(ch)) return invalid(where, base, 'a choice object', ch);
    const index = typeof ch.index === 'number' ? ch.index : i;
    const c = choiceOf(index);
    const d = ch.delta;
    if (d !== undefined && d !== null) {
      if (!isObject(d)) invalid(where, `${base}.delta`, 'an object', d);
      else delta(s, c, d, `${base}.delta`, where);
    }
    // Legacy Completions (`text_completion`) put the text on the choice.
    if (typeof ch.text === 'string') append(s, c, 'text', ch.text);
    else if (ch.text !== undefined && ch.text !== null) invalid(where, `${base}.text`, 'a string', ch.text);
    if (isObject(ch.logprobs)) {
      for (const [k, v] of Object.entries(ch.logprobs)) {
        if (Array.isArray(v)) {
          c.logprobs ??= {};
          pushTo(c.logprobs, k, ...(v as Json[]));
        } else if (v !== null) extra(c, `logprobs.${k}`, v);
      }
    } else if (ch.logprobs !== undefined && ch.logprobs !== null) extra(c, 'logprobs', ch.logprobs);
    for (const k in ch) if (!CHOICE_MAPPED.has(k) && ch[k] !== undefined && ch[k] !== null) extra(c, k, ch[k]);
    const fr = ch.finish_reason;
    if (typeof fr === 'string') {
      c.finishReason = fr;
      finishChoice(c);
    } else if (fr !== undefined && fr !== null) invalid(where, `${base}.finish_reason`, 'a string or null', fr);
  }

  function delta(s: StepState, c: ChoiceState, d: Record<string, unknown>, base: string, where?: Location): void {
    const text = (k: string): string | undefined => {
      const v = d[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v === 'string') return v;
      invalid(where, `${base}.${k}`, 'a string or null', v);
      return undefined;
    };
    if (d.role !== undefined && d.role !== null && d.role !== 'assistant') extra(c, 'delta.role', d.role);
    const rc = text('reasoning_content');
    const r = text('reasoning');
    if (rc) append(s, c, 'reasoning', rc);
    if (r && r !== rc) append(s, c, 'reasoning', r);
    if (Array.isArray(d.reasoning_details)) c.reasoningDetails.push(...(d.reasoning_details as Json[]));
    else if (d.reasoning_details !== undefined && d.reasoning_details !== null)
      invalid(where, `${base}.reasoning_details`, 'an array', d.reasoning_details);
    const content = text('content');
    if (content) append(s, c, 'text', content);
    const refusal = text('refusal');
    if (refusal) append(s, c, 'refusal', refusal);
    if (Array.isArray(d.tool_calls))
      d.tool_calls.forEach((f, i) => {
        toolFragment(s, c, f, i, base, where);
      });
    else if (d.tool_calls !== undefined && d.tool_calls !== null) invalid(where, `${base}.tool_calls`, 'an array', d.tool_calls);
    if (d.function_call !== undefined && d.function_call !== null) legacyFunctionCall(s, c, d.function_call, base, where);
    if (d.annotations !== undefined && d.annotations !== null) annotations(c, d.annotations, base, where);
    for (const k in d) {
      if (DELTA_MAPPED.has(k) || d[k] === undefined || d[k] === null) continue;
      raw({ index: c.index, delta: { [k]: d[k] as Json } }, `unmapped delta field ${JSON.stringify(k)}`, where);
    }
  }

  // --- chunks ----------------------------------------------------------------------------------

  function isChunk(v: Record<string, unknown>): boolean {
    return 'choices' in v || v.object === 'chat.completion.chunk' || v.object === 'text_completion' || isObject(v.usage);
  }

  function providerError(v: Record<string, unknown>, where?: Location): void {
    const err = v.error;
    const o = isObject(err) ? err : {};
    const code =
      typeof o.code === 'string' || typeof o.code === 'number' ? String(o.code) : typeof o.type === 'string' ? o.type : 'provider_error';
    const message =
      typeof o.message === 'string' ? o.message : typeof err === 'string' ? err : `OpenAI stream error ${JSON.stringify(err)}`;
    const meta: JsonObject = { error: err as Json };
    for (const k in v) if (k !== 'error' && k !== 'choices' && v[k] !== undefined) meta[k] = v[k] as Json;
    fatal = true;
    for (const c of choices.values()) closeOpen(c);
    error(code, message, where, true, meta);
  }

  function handle(v: Record<string, unknown>, where?: Location): void {
    const hasError = v.error !== undefined && v.error !== null;
    if (hasError) providerError(v, where);
    if (!isChunk(v)) {
      if (hasError) return;
      if (typeof v.type === 'string') return raw(v as Json, `not a chat completion chunk (event type ${JSON.stringify(v.type)})`, where);
      return raw(v as Json, 'not a chat completion chunk (no "choices")', where);
    }
    sawChunk = true;
    const list = v.choices ?? [];
    if (!Array.isArray(list)) return invalid(where, 'choices', 'an array', list);
    const noId = typeof v.id !== 'string' || v.id === '';
    if (!step && noId && list.length === 0 && !isObject(v.usage)) {
      // A leading chunk without an id or content (Azure's prompt_filter_results): kept for step-start.
      for (const k in v) {
        const x = v[k];
        if (CHUNK_MAPPED.has(k) || x === undefined || x === '' || x === 0) continue;
        prelude[k] = x as Json;
      }
      return;
    }
    let s = step;
    if (!s) s = openStep(v);
    else trackChunk(s, v);
    list.forEach((ch, i) => {
      choice(s, ch, i, where);
    });
    if (isObject(v.usage))
      s.usage = v.usage; // cumulative where repeated: the last one wins
    else if (v.usage !== undefined && v.usage !== null) invalid(where, 'usage', 'an object or null', v.usage);
  }

  function choicesMeta(): Json[] | undefined {
    const entries: Json[] = [];
    for (const c of [...choices.values()].sort((a, b) => a.index - b.index)) {
      const hasExtras = c.logprobs !== undefined || Object.keys(c.extras).length > 0 || c.reasoningDetails.length > 0;
      if (c.index === 0 && !hasExtras) continue;
      const entry: JsonObject = { index: c.index };
      if (c.finishReason !== undefined) entry.finish_reason = c.finishReason;
      if (c.logprobs) entry.logprobs = c.logprobs;
      for (const [k, vs] of Object.entries(c.extras)) entry[k] = vs;
      if (c.reasoningDetails.length > 0) entry.reasoning_details = c.reasoningDetails;
      entries.push(entry);
    }
    return entries.length > 0 ? entries : undefined;
  }

  function finish(): void {
    const s = step;
    const sorted = [...choices.values()].sort((a, b) => a.index - b.index);
    const unfinished = sorted.filter((c) => c.finishReason === undefined);
    if (!fatal) {
      if (!s) {
        error(
          'empty',
          sawChunk ? 'the stream ended before any chat completion content' : 'the stream contained no chat completion chunks',
          undefined,
          true,
        );
        fatal = true;
      } else if (sorted.length === 0 || unfinished.length > 0) {
        const which =
          sorted.length === 0 ? 'no choice arrived' : `no finish_reason for choice ${unfinished.map((c) => c.index).join(', ')}`;
        error('truncated', `the stream ended before the response ${s.id} finished (${which})`, undefined, true);
        fatal = true;
      }
    }
    for (const c of sorted) finishChoice(c);
    const first = sorted[0];
    const finishReason: FinishReason = fatal ? 'error' : openaiChatFinishReason(first?.finishReason, first?.refusal);
    const rawFinishReason = first?.finishReason;
    const usage = s?.usage ? openaiChatUsage(s.usage) : undefined;
    if (s) {
      const e: EventInit = { type: 'step-finish', stepId: s.id, finishReason };
      if (rawFinishReason !== undefined) e.rawFinishReason = rawFinishReason;
      if (usage) e.usage = usage;
      const meta: JsonObject = { ...s.changed };
      const history: JsonObject = {};
      for (const [k, vs] of Object.entries(s.history)) if (vs.length > 1) history[k] = vs;
      if (Object.keys(history).length > 0) meta.history = history;
      const cm = choicesMeta();
      if (cm) meta.choices = cm;
      if (Object.keys(meta).length > 0) e.providerMetadata = { [PROVIDER]: meta };
      out.emit(e);
    }
    const e: EventInit = { type: 'run-finish', finishReason };
    if (rawFinishReason !== undefined) e.rawFinishReason = rawFinishReason;
    if (usage) e.usage = usage;
    out.emit(e);
  }

  return kit.decoder({
    push(value, where) {
      const chunk = kit.object(value, where, 'a chat.completion.chunk JSON object');
      if (chunk) handle(chunk, where);
    },
    finish,
  });
}
