/**
 * Decoder for LangChain.js `runnable.streamEvents(input, { version: 'v2' })` events, one event object
 * per value (`{event, name, run_id, tags, metadata, data}`), and the message machinery it shares with
 * the LangGraph decoder (`langgraph.ts`): reading LangChain messages (serialized `{lc, type, id,
 * kwargs}` or plain), and assembling `AIMessageChunk`s — string or content-block content, Anthropic
 * thinking/signature/tool_use/server tool blocks, standard v1 blocks, `tool_call_chunks` merged by
 * index, OpenAI-compatible `additional_kwargs.reasoning_content` / `reasoning`, `usage_metadata`,
 * `response_metadata` — into canonical blocks, tool calls and a step finish.
 *
 * Steps: a chat model (or LLM) run is a step; inside a LangGraph graph, a node run is the step and the
 * model calls inside it are its content. Tool runs are matched to the model's tool calls (LangChain
 * tool run ids are not the model's tool call ids) by the ToolMessage's `tool_call_id`, else by name and
 * arguments; each tool call and each output is emitted once. Runs with no canonical meaning (chains,
 * prompts, parsers, their derived streams) are `raw` events. The root run's end finishes the run; a
 * stream that stops before it is truncated (streamEvents has no error event: a failing run just stops).
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { Citation, EventInit, FinishReason, Json, JsonObject, Location, Todo, Usage } from '../model/events.ts';
import { toTodos } from '../model/todos.ts';
import { addUsage, usageOf } from '../model/usage.ts';
import { finishReasonFrom } from '../model/vocabulary.ts';
import { at, type Decoder } from './decoder.ts';
import { isObject, Kit, num, type Obj, parseToolInput, rest, StepTotals, shown, str } from './kit/index.ts';

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/** A LangChain message, whatever its wire form: its role and its fields. */
export interface LcMessage {
  role: 'ai' | 'tool' | 'human' | 'system' | 'other';
  /** The class name (`AIMessageChunk`, `ToolMessage`, …) or the plain `type`. */
  cls: string;
  /** True for `*Chunk` classes (one piece of a streamed message). */
  chunk: boolean;
  fields: Obj;
}

const ROLES: Record<string, LcMessage['role']> = {
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  ai: 'ai',
  assistant: 'ai',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  tool: 'tool',
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  human: 'human',
  user: 'human',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  system: 'system',
};

/**
 * Reads a LangChain message: the serialized form `{lc: 1, type: 'constructor', id: [..., 'AIMessageChunk'],
 * kwargs}`, a plain `{type: 'ai' | 'AIMessageChunk' | 'tool' | …, content, …}` (LangGraph SDK), or
 * `{type, data}` (Python `messages_to_dict`). Undefined when the value is not a message.
 */
export function readMessage(value: unknown): LcMessage | undefined {
  if (!isObject(value)) return undefined;
  if (value.lc === 1 && value.type === 'constructor' && Array.isArray(value.id) && isObject(value.kwargs)) {
    const cls = shown(value.id.at(-1));
    if (!/Message(Chunk)?$/.test(cls)) return undefined;
    return { role: ROLES[cls] ?? 'other', cls, chunk: cls.endsWith('Chunk'), fields: value.kwargs };
  }
  if (typeof value.type !== 'string') return undefined;
  if (isObject(value.data) && 'content' in value.data && !('content' in value)) {
    return { role: ROLES[value.type] ?? 'other', cls: value.type, chunk: /chunk/i.test(value.type), fields: value.data };
  }
  if (!('content' in value) || !(value.type in ROLES || /Message(Chunk)?$/.test(value.type))) return undefined;
  return { role: ROLES[value.type] ?? 'other', cls: value.type, chunk: /chunk/i.test(value.type), fields: value };
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
}

/**
 * Merges chunk metadata the way a reader expects it (not quite LangChain's merge, which concatenates
 * equal strings such as the model name): objects merge key by key, arrays append, equal values stay
 * once, a different string is appended, any other different value replaces.
 */
export function mergeMeta(target: JsonObject, src: Obj): void {
  for (const [k, v] of Object.entries(src)) {
    if (v === undefined) continue;
    const cur = target[k];
    if (cur === undefined || cur === null) {
      // An object is copied: later chunks merge into it, and it is the caller's.
      if (isObject(v)) {
        const copy: JsonObject = {};
        mergeMeta(copy, v);
        target[k] = copy;
      } else target[k] = v as Json;
    } else if (isObject(cur) && isObject(v)) mergeMeta(cur as JsonObject, v);
    else if (Array.isArray(cur) && Array.isArray(v)) target[k] = [...cur, ...(v as Json[])];
    else if (typeof cur === 'string' && typeof v === 'string') {
      if (cur !== v && v !== '') target[k] = cur === '' ? v : cur + v;
    } else if (v !== null) target[k] = v as Json;
  }
}

/** Adds LangChain usage objects (chunk usage is additive). */
function sumUsage(target: JsonObject, src: Obj): void {
  for (const [k, v] of Object.entries(src)) {
    const cur = target[k];
    if (typeof v === 'number') target[k] = (typeof cur === 'number' ? cur : 0) + v;
    else if (isObject(v)) {
      if (!isObject(cur)) target[k] = {};
      sumUsage(target[k] as JsonObject, v);
    } else if (v !== undefined && cur === undefined) target[k] = v as Json;
  }
}

/** Converts LangChain `usage_metadata` (input_tokens include cached tokens) to canonical usage. */
export function langchainUsage(u: Obj): Usage {
  return usageOf(u, {
    inputTokens: num(u, 'input_tokens'),
    outputTokens: num(u, 'output_tokens'),
    totalTokens: num(u, 'total_tokens'),
    cacheReadTokens: num(u.input_token_details, 'cache_read'),
    cacheWriteTokens: num(u.input_token_details, 'cache_creation'),
    reasoningTokens: num(u.output_token_details, 'reasoning'),
  });
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  eos: 'stop',
  complete: 'stop',
  completed: 'stop',
  finish_reason_unspecified: 'other',
  length: 'length',
  max_tokens: 'length',
  max_output_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_calls: 'tool-calls',
  tool_use: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  refusal: 'content-filter',
  safety: 'content-filter',
  recitation: 'content-filter',
  blocklist: 'content-filter',
  prohibited_content: 'content-filter',
  spii: 'content-filter',
  error: 'error',
};

/** Maps a provider finish / stop reason, as LangChain passes it on, to the canonical vocabulary. */
export function langchainFinishReason(raw: string): FinishReason {
  return finishReasonFrom(FINISH, raw.toLowerCase());
}

/** JSON value equality (for matching tool runs to tool calls by their arguments). */
function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canon(v[k])]),
          )
        : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

function firstLine(s: string): string {
  const i = s.indexOf('\n');
  return i === -1 ? s : s.slice(0, i);
}

// ---------------------------------------------------------------------------------------------
// The shared context: emitter, ids, tool calls
// ---------------------------------------------------------------------------------------------

interface ToolRecord {
  name: string;
  input?: Json;
  ended: boolean;
  output: boolean;
  providerExecuted: boolean;
}

/** State shared by everything one LangChain / LangGraph decoder emits. */
export class LcContext extends Kit {
  /** Stamped on every event while set (LangGraph subgraph namespaces). */
  subagentId: string | undefined;
  private readonly ids = new Set<string>();
  readonly tools = new Map<string, ToolRecord>();
  /** The model calls' summed usage and last finish reason, for the run-finish. */
  readonly totals = new StepTotals();
  fatal = false;
  private todosJson: string | undefined;
  todos: Todo[] = [];

  /** Stamps the current subagent on everything but the run's start and finish. */
  override emit(e: EventInit): void {
    if (this.subagentId !== undefined && e.subagentId === undefined && e.type !== 'run-start' && e.type !== 'run-finish')
      e.subagentId = this.subagentId;
    this.out.emit(e);
  }

  /** A block / step id unique within the run, derived from `base`. */
  uid(base: string): string {
    let id = base;
    for (let n = 2; this.ids.has(id); n++) id = `${base}#${n}`;
    this.ids.add(id);
    return id;
  }

  /** Starts a tool call once per id; false when it was already started. */
  toolStart(id: string, name: string, providerExecuted: boolean, pm?: Record<string, JsonObject>): boolean {
    if (this.tools.has(id)) return false;
    this.tools.set(id, { name, ended: false, output: false, providerExecuted });
    const e: EventInit = { type: 'tool-input-start', toolCallId: id, toolName: name };
    if (providerExecuted) e.providerExecuted = true;
    if (pm && Object.keys(pm).length) e.providerMetadata = pm;
    this.emit(e);
    return true;
  }

  toolEnd(id: string, input: Json, inputError?: string, pm?: Record<string, JsonObject>): void {
    const t = this.tools.get(id);
    if (!t || t.ended) return;
    t.ended = true;
    t.input = input;
    const e: EventInit = { type: 'tool-input-end', toolCallId: id, toolName: t.name, input };
    if (t.providerExecuted) e.providerExecuted = true;
    if (inputError) e.inputError = inputError;
    if (pm && Object.keys(pm).length) e.providerMetadata = pm;
    this.emit(e);
  }

  /** A complete tool call (input known): start and end, once per id. */
  toolCall(id: string, name: string, input: Json, providerExecuted = false, meta?: JsonObject): void {
    if (!this.toolStart(id, name, providerExecuted)) return;
    this.toolEnd(id, input, undefined, meta ? { langchain: meta } : undefined);
  }

  /** A tool's output or error, once per tool call id (`preliminary` outputs may repeat). */
  toolOutput(
    id: string,
    output: Json,
    opts: { error?: string; preliminary?: boolean; name?: string; providerExecuted?: boolean; meta?: JsonObject } = {},
  ): void {
    const t = this.tools.get(id);
    if (t?.output) return;
    if (t && !opts.preliminary) t.output = true;
    const toolName = t?.name ?? opts.name;
    const providerExecuted = opts.providerExecuted ?? t?.providerExecuted ?? false;
    const e: EventInit =
      opts.error !== undefined
        ? { type: 'tool-error', toolCallId: id, error: opts.error, output }
        : { type: 'tool-output', toolCallId: id, output, ...(opts.preliminary ? { preliminary: true } : {}) };
    if (toolName !== undefined) e.toolName = toolName;
    if (providerExecuted) e.providerExecuted = true;
    if (opts.meta) e.providerMetadata = { langchain: opts.meta };
    if (!t) this.tools.set(id, { name: toolName ?? 'unknown', ended: true, output: !opts.preliminary, providerExecuted });
    this.emit(e);
  }

  /** Tool calls of this run that have no output yet, in order. */
  pendingTools(): [string, ToolRecord][] {
    return [...this.tools].filter(([, t]) => !t.output);
  }

  /** Sets the list the run starts with (the input state), without an event. */
  primeTodos(items: unknown[]): void {
    this.todos = toTodos(items, this.todos);
    this.todosJson = JSON.stringify(this.todos);
  }

  /** Emits a todos event when the list changed. */
  setTodos(items: unknown[], change: 'create' | 'update' | 'snapshot'): void {
    const todos = toTodos(items, this.todos);
    const json = JSON.stringify(todos);
    if (json === this.todosJson) return;
    this.todosJson = json;
    this.todos = todos;
    this.emit({ type: 'todos', change, todos });
  }

  /**
   * An application event (`dispatchCustomEvent`, LangGraph's `writer`): a `todos` list becomes a todos
   * event, a `status` a status event, anything else a custom event under its name.
   */
  custom(name: string, value: unknown): void {
    const v = isObject(value) ? value : undefined;
    if ((name === 'todos' || name === 'todo' || v?.type === 'todos') && Array.isArray(v?.todos ?? value)) {
      const items = (v?.todos ?? value) as unknown[];
      const extra = v ? rest(v, ['todos', 'type']) : undefined;
      this.setTodos(items, this.todos.length ? 'update' : 'create');
      if (extra) this.emit({ type: 'custom', name, value: v as Json });
      return;
    }
    if (name === 'status' || v?.type === 'status') {
      const status = (v ? str(v, 'status', 'state') : undefined) ?? (typeof value === 'string' ? value : 'status');
      const message = v ? str(v, 'message', 'text', 'detail') : undefined;
      const e: EventInit = { type: 'status', status };
      if (message !== undefined) e.message = message;
      this.emit(e);
      const extra = v ? rest(v, ['type', 'status', 'state', 'message', 'text', 'detail']) : undefined;
      if (extra) this.emit({ type: 'custom', name, value: v as Json });
      return;
    }
    this.emit({ type: 'custom', name, value: (value ?? null) as Json });
  }
}

// ---------------------------------------------------------------------------------------------
// One AI message, assembled from its chunks
// ---------------------------------------------------------------------------------------------

interface Block {
  kind: 'text' | 'reasoning';
  id: string;
  signature?: string;
  meta?: JsonObject;
  /** providerMetadata for the end event, by provider key. */
  end?: Record<string, JsonObject>;
}

interface ToolState {
  id: string;
  name: string;
  args: string;
  startInput?: unknown;
  providerExecuted: boolean;
  meta?: Record<string, JsonObject>;
  started: boolean;
  ended: boolean;
}

/** What one model call amounted to, for its step. */
export interface MessageResult {
  finishReason: FinishReason;
  rawFinishReason?: string;
  usage?: Usage;
  model?: string;
  meta?: JsonObject;
}

const CHUNK_FIELDS = [
  'content',
  'id',
  'tool_call_chunks',
  'tool_calls',
  'invalid_tool_calls',
  'usage_metadata',
  'response_metadata',
  'additional_kwargs',
  'lc_kwargs',
  'type',
];
const TEXT_FIELDS = ['index', 'type', 'text', 'citations', 'annotations'];
const TOOL_TYPES = new Set([
  'tool_use',
  'server_tool_use',
  'mcp_tool_use',
  'tool_call',
  'tool_call_chunk',
  'server_tool_call',
  'server_tool_call_chunk',
]);

function citationOf(c: Obj): Citation {
  const s = (...k: string[]) => str(c, ...k);
  const n = (...k: string[]) => {
    for (const key of k) if (typeof c[key] === 'number') return c[key] as number;
    return undefined;
  };
  const citation: Citation = { kind: 'location', raw: c as Json };
  const url = s('url', 'source');
  if (c.type === 'web_search_result_location' || c.type === 'url_citation' || (url !== undefined && /^https?:/.test(url))) {
    citation.kind = 'url';
    citation.url = url;
  } else if (c.type === 'char_location' || c.type === 'page_location' || c.type === 'content_block_location' || c.type === 'citation') {
    citation.kind = 'document';
  }
  citation.title = s('title', 'document_title');
  citation.citedText = s('cited_text', 'citedText');
  citation.documentIndex = n('document_index');
  citation.startIndex = n('start_char_index', 'start_page_number', 'start_block_index', 'startIndex', 'start_index');
  citation.endIndex = n('end_char_index', 'end_page_number', 'end_block_index', 'endIndex', 'end_index');
  for (const k of Object.keys(citation) as (keyof Citation)[]) if (citation[k] === undefined) delete citation[k];
  return citation;
}

function indexKey(item: Obj, position: number): string {
  return typeof item.index === 'number' || typeof item.index === 'string' ? String(item.index) : `p${position}`;
}

/** True when a chunk carries nothing but ids and metadata. */
function isEmptyChunk(fields: Obj): boolean {
  const c = fields.content;
  return (
    (c === undefined || c === '' || (Array.isArray(c) && c.length === 0)) &&
    isEmptyValue(fields.tool_call_chunks) &&
    isEmptyValue(fields.tool_calls) &&
    isEmptyValue(fields.usage_metadata) &&
    (isEmptyValue(fields.additional_kwargs) ||
      (isObject(fields.additional_kwargs) && Object.keys(fields.additional_kwargs).every((k) => k === '__openai_function_call_ids__')))
  );
}

/** An image or file content item as a file event, or undefined when it has neither a url nor data. */
function fileEvent(item: Obj): EventInit | undefined {
  const mime =
    str(item, 'mime_type', 'mimeType', 'media_type') ??
    (item.type === 'image' || item.type === 'image_url' ? 'image/png' : 'application/octet-stream');
  let url = str(item, 'url');
  if (isObject(item.image_url)) url = str(item.image_url, 'url');
  else if (typeof item.image_url === 'string') url = item.image_url;
  const data = str(item, 'data', 'base64');
  if (!url && data) url = `data:${mime};base64,${data}`;
  if (!url) return undefined;
  const e: EventInit = { type: 'file', url, mediaType: mime };
  const meta = rest(item, ['url', 'data', 'base64', 'image_url', 'mime_type', 'mimeType', 'media_type']);
  if (meta) e.providerMetadata = { langchain: meta };
  return e;
}

/**
 * Assembles one AI message from its chunks (or from one whole message) into canonical blocks and tool
 * calls. Content arriving for another block closes the open ones (providers stream blocks one after
 * the other); tool calls end when the message closes.
 */
export class AiMessage {
  private readonly ctx: LcContext;
  private readonly prefix: string;
  private readonly blocks = new Map<string, Block>();
  private readonly open = new Set<string>();
  private readonly tools = new Map<string, ToolState>();
  private readonly usage: JsonObject = {};
  private hasUsage = false;
  /** Each chunk's usage (LangChain adds them up; the parts are kept). */
  private readonly usageParts: JsonObject[] = [];
  private readonly response: JsonObject = {};
  private readonly additional: JsonObject = {};
  private readonly other: JsonObject = {};
  readonly ids: string[] = [];
  /** True once a chunk brought anything (content, a tool call, usage). */
  started = false;
  closed = false;
  private clientTools = 0;

  /** @param prefix base of the block ids (unique per message). */
  constructor(ctx: LcContext, prefix: string) {
    this.ctx = ctx;
    this.prefix = prefix;
  }

  /** True when a chunk carries nothing but ids and metadata. */
  static isEmpty(fields: Obj): boolean {
    return isEmptyChunk(fields);
  }

  private openBlock(key: string, kind: Block['kind'], meta?: JsonObject, startMeta?: Record<string, JsonObject>): Block {
    const existing = this.blocks.get(key);
    if (existing && this.open.has(key)) {
      this.closeOthers(key);
      return existing;
    }
    this.closeOthers(key);
    const b: Block = { kind, id: this.ctx.uid(`${this.prefix}:${key}`) };
    if (meta) b.meta = meta;
    this.blocks.set(key, b);
    this.open.add(key);
    const e: EventInit =
      kind === 'text' ? { type: 'text-start', blockId: b.id } : { type: 'reasoning-start', blockId: b.id, variant: 'thinking' };
    if (startMeta) e.providerMetadata = startMeta;
    this.ctx.emit(e);
    return b;
  }

  private closeOthers(key: string): void {
    for (const k of [...this.open]) if (k !== key) this.closeBlock(k);
  }

  private closeBlock(key: string): void {
    const b = this.blocks.get(key);
    if (!b || !this.open.delete(key)) return;
    const pm: Record<string, JsonObject> = { ...b.end };
    if (b.signature) pm.anthropic = { ...pm.anthropic, signature: b.signature };
    if (b.meta) pm.langchain = { ...pm.langchain, ...b.meta };
    const e: EventInit = b.kind === 'text' ? { type: 'text-end', blockId: b.id } : { type: 'reasoning-end', blockId: b.id };
    if (Object.keys(pm).length) e.providerMetadata = pm;
    this.ctx.emit(e);
  }

  private text(key: string, delta: string, meta?: JsonObject, startMeta?: Record<string, JsonObject>): Block {
    const b = this.openBlock(key, 'text', meta, startMeta);
    if (meta && b.meta !== meta) b.meta = { ...b.meta, ...meta };
    if (delta) this.ctx.emit({ type: 'text-delta', blockId: b.id, delta });
    return b;
  }

  private reasoning(key: string, delta: string, startMeta?: Record<string, JsonObject>): Block {
    const b = this.openBlock(key, 'reasoning', undefined, startMeta);
    if (delta) this.ctx.emit({ type: 'reasoning-delta', blockId: b.id, delta });
    return b;
  }

  private tool(
    key: string,
    init: { id?: string; name?: string; providerExecuted?: boolean; startInput?: unknown; meta?: Record<string, JsonObject> },
  ): ToolState {
    let t = this.tools.get(key);
    if (!t || t.ended) {
      t = { id: '', name: 'unknown', args: '', providerExecuted: false, started: false, ended: false };
      this.tools.set(key, t);
    }
    if (init.id && !t.id) t.id = init.id;
    if (init.name && t.name === 'unknown') t.name = init.name;
    if (init.providerExecuted) t.providerExecuted = true;
    if (init.startInput !== undefined && t.startInput === undefined) t.startInput = init.startInput;
    if (init.meta) for (const [k, v] of Object.entries(init.meta)) t.meta = { ...t.meta, [k]: { ...t.meta?.[k], ...v } };
    if (!t.started && t.id) this.startTool(t);
    return t;
  }

  private startTool(t: ToolState): void {
    t.started = true;
    this.closeOthers('');
    if (!this.ctx.toolStart(t.id, t.name, t.providerExecuted, t.meta)) {
      t.ended = true; // already emitted elsewhere in this run: never twice
      return;
    }
    if (!t.providerExecuted) this.clientTools++;
    if (t.args) this.ctx.emit({ type: 'tool-input-delta', toolCallId: t.id, delta: t.args });
  }

  private args(t: ToolState, delta: string): void {
    if (!delta || t.ended) return;
    t.args += delta;
    if (t.started) this.ctx.emit({ type: 'tool-input-delta', toolCallId: t.id, delta });
  }

  private endTool(key: string): void {
    const t = this.tools.get(key);
    if (!t || t.ended) return;
    if (!t.started) {
      // No id ever came: name the call after the message and its index so it is not lost.
      t.id = this.ctx.uid(`${this.prefix}:tool${key}`);
      this.startTool(t);
      if (t.ended) return;
    }
    t.ended = true;
    let input: Json;
    let inputError: string | undefined;
    if (t.args.trim() === '') input = isObject(t.startInput) ? (t.startInput as Json) : {};
    else ({ input, inputError } = parseToolInput(t.args));
    this.ctx.toolEnd(t.id, input, inputError, t.meta);
  }

  /** Feeds one chunk (or a whole message) of this AI message. */
  push(fields: Obj, where?: Location): void {
    if (this.closed) return;
    if (typeof fields.id === 'string' && !this.ids.includes(fields.id)) this.ids.push(fields.id);
    if (!AiMessage.isEmpty(fields)) this.started = true;
    const ak = isObject(fields.additional_kwargs) ? fields.additional_kwargs : {};
    const rm = isObject(fields.response_metadata) ? fields.response_metadata : {};
    const fnIds = isObject(ak.__openai_function_call_ids__) ? ak.__openai_function_call_ids__ : {};

    // Reasoning that OpenAI-compatible integrations put in additional_kwargs comes first.
    if (typeof ak.reasoning_content === 'string' && ak.reasoning_content) this.reasoning('rc', ak.reasoning_content);
    if (isObject(ak.reasoning)) this.openaiReasoning(ak.reasoning);

    const chunks = Array.isArray(fields.tool_call_chunks) ? fields.tool_call_chunks.filter(isObject) : [];
    const content = fields.content;
    if (typeof content === 'string') {
      if (content) this.text('s', content);
    } else if (Array.isArray(content)) {
      content.forEach((item, i) => {
        this.contentItem(item, i, chunks.length > 0, where);
      });
    } else if (content !== undefined && content !== null) {
      const field = where?.field ? `${where.field}.content` : 'content';
      this.ctx.error(
        'invalid_field',
        `${describe(at(where, field))}: expected a string or an array of content blocks`,
        at(where, field, 'string or array'),
      );
    }

    chunks.forEach((c, i) => {
      const key = indexKey(c, i);
      const id = str(c, 'id');
      const t = this.tool(key, {
        id,
        name: str(c, 'name'),
        meta: id && typeof fnIds[id] === 'string' ? { openai: { itemId: fnIds[id] as string } } : undefined,
      });
      if (typeof c.args === 'string') this.args(t, c.args);
      else if (isObject(c.args)) this.args(t, JSON.stringify(c.args));
    });
    // Complete tool calls on a chunk without tool_call_chunks (non-streaming models, fakes).
    if (chunks.length === 0 && Array.isArray(fields.tool_calls)) {
      fields.tool_calls.filter(isObject).forEach((tc, i) => {
        const id = str(tc, 'id');
        if (id !== undefined && this.ctx.tools.has(id)) return;
        const key = `call${i}`;
        const t = this.tool(key, { id, name: str(tc, 'name'), startInput: isObject(tc.args) ? tc.args : {} });
        this.endTool(key);
        void t;
      });
    }

    if (isObject(fields.usage_metadata)) {
      sumUsage(this.usage, fields.usage_metadata);
      this.usageParts.push(fields.usage_metadata as JsonObject);
      this.hasUsage = true;
    }
    mergeMeta(this.response, rm);
    const akRest = rest(ak, ['reasoning_content', 'reasoning']);
    if (akRest) mergeMeta(this.additional, akRest);
    const other = rest(fields, CHUNK_FIELDS);
    if (other) mergeMeta(this.other, other);
  }

  /** OpenAI Responses reasoning items (`additional_kwargs.reasoning`): one block per summary part. */
  private openaiReasoning(r: Obj): void {
    const itemId = str(r, 'id');
    const base = itemId ?? 'reasoning';
    const end: Record<string, JsonObject> = {};
    if (itemId) end.openai = { itemId };
    if (typeof r.encrypted_content === 'string') end.openai = { ...end.openai, reasoningEncryptedContent: r.encrypted_content };
    const summary = Array.isArray(r.summary) ? r.summary.filter(isObject) : [];
    for (const s of summary) {
      const key = `r:${typeof s.index === 'number' ? s.index : 0}`;
      const b = this.reasoning(key, typeof s.text === 'string' ? s.text : '');
      if (Object.keys(end).length) b.end = { ...b.end, ...end };
    }
    const extra = rest(r, ['id', 'summary', 'type', 'encrypted_content']);
    if (extra) mergeMeta(this.additional, { reasoning: extra });
    // A reasoning item without summary text still carries its id / encrypted content.
    if (summary.length === 0 && Object.keys(end).length) mergeMeta(this.additional, { reasoning: { id: base, ...end.openai } });
  }

  private contentItem(item: unknown, position: number, hasToolChunks: boolean, where?: Location): void {
    if (typeof item === 'string') {
      if (item) this.text('s', item);
      return;
    }
    if (!isObject(item) || typeof item.type !== 'string') {
      this.ctx.raw(item, 'content block without a string "type"', where);
      return;
    }
    const key = indexKey(item, position);
    const type = item.type;
    switch (type) {
      case 'text':
      case 'text_delta':
      case 'output_text': {
        const meta = rest(item, TEXT_FIELDS);
        const b = this.text(`c${key}`, typeof item.text === 'string' ? item.text : '', meta);
        const cites = [
          ...(Array.isArray(item.citations) ? item.citations : []),
          ...(Array.isArray(item.annotations) ? item.annotations : []),
        ];
        for (const c of cites) if (isObject(c)) this.ctx.emit({ type: 'citation', blockId: b.id, citation: citationOf(c) });
        return;
      }
      case 'compaction': {
        this.text(`c${key}`, typeof item.content === 'string' ? item.content : '', undefined, { anthropic: { type } });
        return;
      }
      case 'thinking':
      case 'reasoning': {
        const delta = typeof item.thinking === 'string' ? item.thinking : typeof item.reasoning === 'string' ? item.reasoning : '';
        const b = this.reasoning(`c${key}`, delta);
        if (typeof item.signature === 'string' && item.signature) b.signature = (b.signature ?? '') + item.signature;
        const extra = rest(item, ['index', 'type', 'thinking', 'reasoning', 'signature']);
        if (extra) b.meta = { ...b.meta, ...extra };
        return;
      }
      case 'redacted_thinking': {
        const data = typeof item.data === 'string' ? item.data : '';
        const b = this.reasoning(`c${key}`, '', { anthropic: { redactedData: data } });
        b.end = { ...b.end, anthropic: { redactedData: data } };
        return;
      }
      case 'input_json_delta':
      case 'tool_call_chunk':
      case 'server_tool_call_chunk':
        if (hasToolChunks && type === 'input_json_delta') return; // the same text is in tool_call_chunks
        {
          const t = this.tool(key, {
            id: str(item, 'id'),
            name: str(item, 'name'),
            providerExecuted: type === 'server_tool_call_chunk',
          });
          const delta = typeof item.input === 'string' ? item.input : typeof item.args === 'string' ? item.args : '';
          if (!hasToolChunks || type !== 'tool_call_chunk') this.args(t, delta);
        }
        return;
      default:
        break;
    }
    if (TOOL_TYPES.has(type)) {
      const providerExecuted = type === 'server_tool_use' || type === 'mcp_tool_use' || type.startsWith('server_');
      const input = item.input ?? item.args;
      const meta = rest(item, ['index', 'type', 'id', 'name', 'input', 'args']);
      const t = this.tool(key, {
        id: str(item, 'id'),
        name: str(item, 'name'),
        providerExecuted,
        startInput: isObject(input) ? input : undefined,
        meta:
          type === 'tool_use' || type === 'tool_call' || type === 'tool_call_chunk'
            ? meta && { langchain: meta }
            : { langchain: { ...meta, type } },
      });
      if (typeof input === 'string' && !(hasToolChunks && !providerExecuted)) this.args(t, input);
      if (type === 'tool_call' || type === 'server_tool_call') this.endTool(key);
      return;
    }
    if (type.endsWith('_tool_result') || type === 'server_tool_call_result') {
      this.toolResult(item);
      return;
    }
    if (type === 'image' || type === 'image_url' || type === 'file' || type === 'audio') {
      const file = fileEvent(item);
      if (file) {
        this.closeOthers('');
        this.ctx.emit(file);
        return;
      }
    }
    this.ctx.raw(item, `content block type ${JSON.stringify(type)} has no canonical mapping`, where);
  }

  /** A provider-executed tool's result block: ends its call, then the output (and web sources). */
  private toolResult(item: Obj): void {
    const id = str(item, 'tool_use_id', 'toolCallId', 'tool_call_id') ?? 'unknown';
    for (const [k, t] of this.tools) if (t.id === id) this.endTool(k);
    const output = (item.content ?? item.output ?? null) as Json;
    const meta = rest(item, ['tool_use_id', 'toolCallId', 'tool_call_id', 'content', 'output']) ?? {};
    const failed =
      item.is_error === true ||
      item.status === 'error' ||
      (isObject(output) && typeof output.type === 'string' && output.type.endsWith('_error'));
    if (failed) {
      const code = isObject(output) && typeof output.error_code === 'string' ? output.error_code : 'tool error';
      this.ctx.toolOutput(id, output, { error: code, providerExecuted: true, meta });
      return;
    }
    this.ctx.toolOutput(id, output, { providerExecuted: true, meta });
    if (Array.isArray(output)) {
      output.forEach((r, i) => {
        if (!isObject(r) || typeof r.url !== 'string') return;
        const e: EventInit = { type: 'source', sourceId: `${id}:${i}`, kind: 'url', url: r.url };
        if (typeof r.title === 'string') e.title = r.title;
        if (typeof r.page_age === 'string') e.providerMetadata = { anthropic: { pageAge: r.page_age } };
        this.ctx.emit(e);
      });
    }
  }

  /** Usage given by the stream, if any. */
  get streamedUsage(): boolean {
    return this.hasUsage;
  }

  /**
   * Closes the message: open blocks, tool calls. `end` is the merged message LangChain reports at the
   * end (on_chat_model_end): only what the stream did not give is taken from it.
   */
  close(model?: string, end?: Obj): MessageResult {
    if (end && !this.closed) {
      if (!this.started) this.push(end);
      else {
        if (!this.hasUsage && isObject(end.usage_metadata)) {
          sumUsage(this.usage, end.usage_metadata);
          this.hasUsage = true;
        }
        // Tool calls the stream never showed (a model that streams text but returns tool_calls at the end).
        if (Array.isArray(end.tool_calls))
          end.tool_calls.filter(isObject).forEach((tc, i) => {
            const id = str(tc, 'id');
            if (id === undefined || this.ctx.tools.has(id) || [...this.tools.values()].some((t) => t.id === id)) return;
            this.tool(`end${i}`, { id, name: str(tc, 'name'), startInput: isObject(tc.args) ? tc.args : {} });
          });
        if (isObject(end.response_metadata)) mergeMeta(this.response, end.response_metadata);
        if (isObject(end.additional_kwargs)) {
          const akRest = rest(end.additional_kwargs, ['reasoning_content', 'reasoning']);
          if (akRest) mergeMeta(this.additional, akRest);
        }
      }
    }
    if (!this.closed) {
      this.closed = true;
      for (const k of [...this.open]) this.closeBlock(k);
      for (const k of this.tools.keys()) this.endTool(k);
    }
    const rm = this.response;
    const ak = this.additional;
    const status = typeof rm.status === 'string' ? rm.status : undefined;
    const incomplete = isObject(rm.incomplete_details) ? str(rm.incomplete_details, 'reason') : undefined;
    const rawFinish =
      str(rm, 'finish_reason', 'stop_reason', 'finishReason', 'done_reason') ??
      str(ak, 'stop_reason', 'finish_reason') ??
      (status === 'incomplete' ? (incomplete ?? status) : status);
    let finishReason: FinishReason =
      rawFinish !== undefined ? langchainFinishReason(rawFinish) : this.clientTools > 0 ? 'tool-calls' : 'stop';
    if (finishReason === 'stop' && this.clientTools > 0 && (status === 'completed' || rawFinish === undefined)) finishReason = 'tool-calls';
    const result: MessageResult = { finishReason };
    if (rawFinish !== undefined) result.rawFinishReason = rawFinish;
    if (this.hasUsage) result.usage = langchainUsage(this.usage);
    const m = str(rm, 'model_name', 'model') ?? str(ak, 'model') ?? model;
    if (m !== undefined) result.model = m;
    const meta: JsonObject = {};
    if (this.ids.length) meta.ids = this.ids;
    if (Object.keys(rm).length) meta.response_metadata = rm;
    if (Object.keys(ak).length) meta.additional_kwargs = ak;
    if (Object.keys(this.other).length) Object.assign(meta, this.other);
    if (this.usageParts.length > 1) meta.usage_metadata = this.usageParts;
    if (Object.keys(meta).length) result.meta = meta;
    return result;
  }
}

/** Adds up the results of the model calls of one step. */
export function stepFinish(stepId: string, results: MessageResult[], extra?: JsonObject): EventInit {
  const e: EventInit = { type: 'step-finish', stepId };
  const last = results.at(-1);
  if (last) {
    e.finishReason = last.finishReason;
    if (last.rawFinishReason !== undefined) e.rawFinishReason = last.rawFinishReason;
  }
  let usage: Usage | undefined;
  for (const r of results)
    if (r.usage) usage = usage ? { ...addUsage(usage, r.usage), raw: [usage.raw ?? null, r.usage.raw ?? null].flat() as Json } : r.usage;
  if (usage) e.usage = usage;
  const meta: JsonObject = { ...extra };
  const models = results.map((r) => r.meta).filter((m): m is JsonObject => m !== undefined);
  if (models.length === 1) Object.assign(meta, models[0]);
  else if (models.length > 1) meta.messages = models;
  const model = results.find((r) => r.model)?.model;
  if (model !== undefined && meta.model === undefined) meta.model = model;
  if (Object.keys(meta).length) e.providerMetadata = { langchain: meta };
  return e;
}

// ---------------------------------------------------------------------------------------------
// streamEvents v2
// ---------------------------------------------------------------------------------------------

interface RunInfo {
  kind: string;
  name: string;
  /** The step this run opened (node runs, and model runs outside a node). */
  step?: StepState;
  model?: AiMessage;
  modelName?: string;
  toolCallId?: string;
}

interface StepState {
  id: string;
  name: string;
  number?: number;
  emitted: boolean;
  hasModel: boolean;
  results: MessageResult[];
  meta: JsonObject;
  /** The node run that owns the step (continuation steps too). */
  owner: string;
  done: boolean;
}

/** True when one parsed value is unmistakably a LangChain streamEvents (v1/v2) event. */
export function detectLangchain(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.event === 'string' &&
    /^on_[a-z_]+$/.test(value.event) &&
    typeof value.run_id === 'string' &&
    !('type' in value)
  );
}

/** Creates a decoder for LangChain.js `streamEvents(input, { version: 'v2' })` events. */
export function createLangchainDecoder(options: DecoderOptions = {}): Decoder {
  const ctx = new LcContext(options, 'langchain');
  const out = ctx.out;
  const runs = new Map<string, RunInfo>();
  let root: string | undefined;
  let rootEnded = false;
  let step: StepState | undefined;

  function openStep(s: StepState, kind: 'model' | 'action' | 'other', model?: string): void {
    if (s.emitted) return;
    if (step && step !== s) closeStep(step);
    s.emitted = true;
    step = s;
    const e: EventInit = { type: 'step-start', stepId: s.id, kind, name: s.name };
    if (s.number !== undefined) e.number = s.number;
    if (model !== undefined) e.model = model;
    if (Object.keys(s.meta).length) e.providerMetadata = { langchain: s.meta };
    ctx.emit(e);
  }

  function closeStep(s: StepState): void {
    if (s.done) return;
    if (!s.emitted) openStep(s, 'other');
    s.done = true;
    if (step === s) step = undefined;
    ctx.emit(stepFinish(s.id, s.results));
  }

  /** The node step an event inside a LangGraph node belongs to, made visible with the given kind. */
  function inStep(kind: 'model' | 'action' | 'other', model?: string): StepState | undefined {
    if (!step) return undefined;
    if (!step.emitted) openStep(step, kind, model);
    return step;
  }

  function runStart(ev: Obj, kind: string, where?: Location): void {
    const runId = ev.run_id as string;
    const name = typeof ev.name === 'string' ? ev.name : kind;
    const metadata = isObject(ev.metadata) ? ev.metadata : {};
    const data = isObject(ev.data) ? ev.data : {};
    if (root === undefined) {
      root = runId;
      const meta = rest(ev, ['event', 'data']) ?? {};
      if (data.input !== undefined) meta.input = data.input as Json;
      out.start({
        messageId: runId,
        ...(typeof metadata.ls_model_name === 'string' ? { model: metadata.ls_model_name } : {}),
        providerMetadata: { langchain: meta },
      });
    }
    const info: RunInfo = { kind, name };
    runs.set(runId, info);
    if (kind === 'chat_model' || kind === 'llm') return modelStart(runId, info, ev);
    if (kind === 'chain' && typeof metadata.langgraph_node === 'string' && metadata.langgraph_node === name && !name.startsWith('__')) {
      // A LangGraph node: a step (made visible once we know what it does).
      if (step) closeStep(step);
      const s: StepState = {
        id: ctx.uid(`${name}:${runId}`),
        name,
        emitted: false,
        hasModel: false,
        results: [],
        meta: { run_id: runId, ...(rest(ev, ['event', 'run_id', 'name', 'data']) ?? {}) },
        owner: runId,
        done: false,
      };
      if (typeof metadata.langgraph_step === 'number') s.number = metadata.langgraph_step;
      info.step = s;
      step = s;
      return;
    }
    if (runId === root && kind !== 'tool' && kind !== 'retriever') return;
    if (kind === 'tool') return toolStart(runId, info, ev);
    if (kind === 'retriever') {
      inStep('action');
      const q = isObject(data.input) ? str(data.input, 'query') : undefined;
      ctx.emit({ type: 'status', status: 'retrieving', ...(q !== undefined ? { message: q } : {}) });
      return;
    }
    ctx.raw(ev, `${shown(ev.event)}: a ${kind} run has no canonical event`, where);
  }

  function modelStart(runId: string, info: RunInfo, ev: Obj): void {
    const metadata = isObject(ev.metadata) ? ev.metadata : {};
    const model = str(metadata, 'ls_model_name');
    if (model !== undefined) info.modelName = model;
    const meta: JsonObject = rest(ev, ['event', 'run_id', 'name', 'data']) ?? {};
    meta.run_id = runId;
    meta.name = info.name;
    const data = isObject(ev.data) ? ev.data : {};
    if (data.input !== undefined) meta.input = data.input as Json;
    if (step) {
      // Inside a LangGraph node: the node's step, or a continuation when it already had a model call.
      if (step.hasModel) {
        const owner = step;
        closeStep(owner);
        const s: StepState = {
          ...owner,
          id: ctx.uid(`${owner.name}:${runId}`),
          emitted: false,
          done: false,
          results: [],
          meta: { ...owner.meta },
        };
        step = s;
      }
      const s = step as StepState;
      s.meta = { ...s.meta, model_run: meta };
      openStep(s, 'model', model);
      s.hasModel = true;
    } else {
      const s: StepState = {
        id: ctx.uid(runId),
        name: info.name,
        emitted: false,
        hasModel: true,
        results: [],
        meta,
        owner: runId,
        done: false,
      };
      info.step = s;
      openStep(s, 'model', model);
    }
    info.model = new AiMessage(ctx, runId);
  }

  function modelStream(ev: Obj, info: RunInfo, where?: Location): void {
    const data = isObject(ev.data) ? ev.data : {};
    const chunk = data.chunk;
    const msg = info.model as AiMessage;
    if (info.kind === 'llm') {
      if (isObject(chunk) && typeof chunk.text === 'string') {
        const extra = rest(chunk, ['text']);
        msg.push({ content: chunk.text, ...(extra ? { response_metadata: extra } : {}) }, at(where, 'data.chunk'));
        return;
      }
    } else {
      const m = readMessage(chunk);
      if (m) {
        msg.push(m.fields, at(where, 'data.chunk'));
        return;
      }
    }
    ctx.error(
      'invalid_field',
      `${describe(at(where, 'data.chunk'))}: expected ${info.kind === 'llm' ? 'a generation chunk {text}' : 'an AIMessageChunk'}`,
      at(where, 'data.chunk', info.kind === 'llm' ? 'GenerationChunk' : 'AIMessageChunk'),
    );
  }

  function modelEnd(runId: string, info: RunInfo, ev: Obj): void {
    const data = isObject(ev.data) ? ev.data : {};
    let end: Obj | undefined;
    if (info.kind === 'llm') {
      const gens = isObject(data.output) && Array.isArray(data.output.generations) ? data.output.generations : [];
      const first = Array.isArray(gens[0]) && isObject(gens[0][0]) ? gens[0][0] : undefined;
      const llmOutput = isObject(data.output) ? data.output.llmOutput : undefined;
      end = {
        content: first && typeof first.text === 'string' ? first.text : '',
        ...(first && isObject(first.generationInfo) ? { response_metadata: first.generationInfo } : {}),
        ...(isObject(llmOutput) && Object.keys(llmOutput).length ? { additional_kwargs: { llmOutput } } : {}),
      };
    } else {
      end = readMessage(data.output)?.fields;
    }
    const result = (info.model as AiMessage).close(info.modelName, end);
    ctx.totals.add(result);
    const s = info.step ?? step;
    if (s) {
      s.results.push(result);
      if (info.step) closeStep(info.step);
    }
    runs.delete(runId);
  }

  /** Which model tool call a tool run executes: by ToolCall input, else by name and arguments. */
  function matchTool(name: string, input: unknown): string | undefined {
    if (isObject(input) && input.type === 'tool_call' && typeof input.id === 'string') return input.id;
    const pending = ctx.pendingTools().filter(([, t]) => !t.providerExecuted && t.name === name);
    const claimed = new Set([...runs.values()].map((r) => r.toolCallId));
    const free = pending.filter(([id]) => !claimed.has(id));
    const exact = free.find(
      ([, t]) => sameJson(t.input, input) || (typeof input === 'string' && isObject(t.input) && sameJson(t.input, { input })),
    );
    return (exact ?? free[0])?.[0];
  }

  function toolStart(runId: string, info: RunInfo, ev: Obj): void {
    const data = isObject(ev.data) ? ev.data : {};
    inStep('action');
    const id = matchTool(info.name, data.input);
    if (id !== undefined) {
      info.toolCallId = id;
      return;
    }
    // A tool run no model call asked for: a call of its own, under its run id.
    info.toolCallId = runId;
    const input = isObject(data.input) && data.input.type === 'tool_call' && 'args' in data.input ? data.input.args : data.input;
    ctx.toolCall(runId, info.name, (input ?? {}) as Json, false, rest(ev, ['event', 'name', 'data']));
  }

  function toolEnd(runId: string, info: RunInfo, ev: Obj, failed: boolean): void {
    const data = isObject(ev.data) ? ev.data : {};
    let id = info.toolCallId ?? runId;
    const meta: JsonObject = rest(ev, ['event', 'name', 'data']) ?? {};
    if (failed) {
      const err = typeof data.error === 'string' ? data.error : JSON.stringify(data.error ?? 'tool error');
      if (firstLine(err) !== err) meta.error = err;
      ctx.toolOutput(id, (data.error ?? null) as Json, { error: firstLine(err), name: info.name, meta });
      return;
    }
    const m = readMessage(data.output);
    if (m && m.role === 'tool') {
      const callId = str(m.fields, 'tool_call_id');
      if (callId !== undefined && callId !== id && ctx.tools.has(callId)) id = callId;
      const extra = rest(m.fields, ['content', 'tool_call_id', 'status']);
      if (extra) meta.message = extra;
      if (callId !== undefined && callId !== id) meta.tool_call_id = callId;
      const content = (m.fields.content ?? null) as Json;
      if (m.fields.status === 'error')
        ctx.toolOutput(id, content, { error: typeof content === 'string' ? content : JSON.stringify(content), name: info.name, meta });
      else ctx.toolOutput(id, content, { name: info.name, meta });
      return;
    }
    ctx.toolOutput(id, (data.output ?? null) as Json, { name: info.name, meta });
  }

  function retrieverEnd(runId: string, ev: Obj): void {
    const data = isObject(ev.data) ? ev.data : {};
    const docs = Array.isArray(data.output)
      ? data.output
      : isObject(data.output) && Array.isArray(data.output.documents)
        ? data.output.documents
        : [];
    docs.forEach((d, i) => {
      if (!isObject(d)) return;
      const md = isObject(d.metadata) ? d.metadata : {};
      const url = str(md, 'url', 'source');
      const e: EventInit =
        url !== undefined && /^https?:\/\//.test(url)
          ? { type: 'source', sourceId: `${runId}:${i}`, kind: 'url', url }
          : { type: 'source', sourceId: `${runId}:${i}`, kind: 'document', mediaType: 'text/plain' };
      const title = str(md, 'title', 'name') ?? (e.kind === 'document' ? url : undefined);
      if (title !== undefined) e.title = title;
      if (e.kind === 'document' && url !== undefined) e.filename = url;
      e.providerMetadata = { langchain: d as JsonObject };
      ctx.emit(e);
    });
    const extra = rest(ev, ['event', 'data']);
    const { output: _documents, ...kept } = data;
    if (extra) ctx.raw({ ...ev, data: kept }, `${shown(ev.event)}: the retriever run (its documents are the sources above)`);
  }

  function finishRun(ev?: Obj): void {
    if (step) closeStep(step);
    const e = ctx.totals.runFinish(ctx.fatal, 'stop');
    if (ev) {
      const data = isObject(ev.data) ? ev.data : {};
      if (data.output !== undefined) e.providerMetadata = { langchain: { output: data.output as Json } };
    }
    ctx.emit(e);
  }

  function handle(ev: Obj, where?: Location): void {
    const name = ev.event as string;
    const m = /^on_([a-z_]+?)_(start|stream|end|error)$/.exec(name);
    if (name === 'on_custom_event') {
      inStep('other');
      return ctx.custom(typeof ev.name === 'string' ? ev.name : 'custom', ev.data);
    }
    if (!m) return ctx.raw(ev, `unknown event ${JSON.stringify(name)}`, where);
    const [, kind, phase] = m as unknown as [string, string, string];
    const runId = ev.run_id as string;
    if (phase === 'start') return runStart(ev, kind, where);
    const info = runs.get(runId);
    if (!info) {
      if (runId === root && rootEnded) return;
      return ctx.error(
        'unknown_run',
        `${describe(at(where, 'run_id'))}: ${name} for run ${runId}, which never started (or already ended)`,
        at(where, 'run_id', 'the run_id of a started run'),
      );
    }
    if (phase === 'stream') {
      if (info.model) return modelStream(ev, info, where);
      return ctx.raw(ev, `${name}: a derived stream (its result comes with the run's end)`, where);
    }
    if (info.model) {
      modelEnd(runId, info, ev);
    } else if (kind === 'tool') {
      runs.delete(runId);
      toolEnd(runId, info, ev, phase === 'error');
    } else if (kind === 'retriever') {
      runs.delete(runId);
      retrieverEnd(runId, ev);
    } else {
      runs.delete(runId);
      if (info.step) {
        closeStep(info.step);
        if (step?.owner === runId) closeStep(step);
      } else if (runId !== root) ctx.raw(ev, `${name}: a ${kind} run has no canonical event`, where);
    }
    if (runId === root) {
      rootEnded = true;
      finishRun(info.model ? undefined : ev);
    }
  }

  return ctx.decoder({
    push(value, where) {
      const ev = ctx.object(value, where, 'a streamEvents event object {event, run_id, data}');
      if (!ev) return;
      if (typeof ev.event !== 'string') {
        ctx.error('invalid_field', `${describe(at(where, 'event'))}: expected a string event name`, at(where, 'event', 'string'));
      } else if (typeof ev.run_id !== 'string') {
        ctx.error('invalid_field', `${describe(at(where, 'run_id'))}: expected a string run id`, at(where, 'run_id', 'string'));
      } else if (ev.data !== undefined && ev.data !== null && !isObject(ev.data)) {
        ctx.error('invalid_field', `${describe(at(where, 'data'))}: expected an object`, at(where, 'data', 'object'));
      } else handle(ev, where);
    },
    finish() {
      if (root === undefined) ctx.empty('the stream contained no LangChain events');
      else
        ctx.truncated(
          `the stream ended before run ${root} did (no ${'on_*_end'} for the root run: the runnable failed or the stream was cut)`,
        );
      ctx.fatal = true;
      for (const [, info] of runs) {
        if (!info.model || info.model.closed) continue;
        const r = info.model.close(info.modelName);
        const s = info.step ?? step;
        if (s) s.results.push({ ...r, finishReason: 'error' });
        if (info.step) closeStep(info.step);
      }
      finishRun();
    },
  });
}
