/**
 * Reader (decoder) for the WebSocket `agent:event` contract (its frames read back): AgentEvent frames (as
 * `encoder.ts` writes them, one per line, or as a Socket.IO client receives them) back into
 * canonical events, linear in the stream's length (chunk contents are kept as parts and joined once
 * per block, when the block's final frame is checked against them).
 *
 * - thinking_chunk / message_chunk open their block on first sight and append; thinking / message
 *   close it (content beyond the chunks arrives as one last delta; a mismatch is a located error);
 *   citations on chunks come before that chunk's text, the final frame's further citations before the
 *   end;
 * - tool_use → tool-input-start + tool-input-end (once per tool_call_id); tool_result → tool-output /
 *   tool-error (once per tool_call_id, preliminary outputs aside);
 * - complete → run-finish (or run-abort when `aborted` / reason `user_cancelled`); the extension
 *   frames map back one to one; the prototype's camelCase names (toolName, toolUseId, args, success,
 *   stopReason) are read too; frames of types the canonical model has no place for become `raw`.
 * The event times are the frames' `timestamp`s (falling back to `options.now`).
 */
import { describe } from '../../codec/framing.ts';
import { anthropicFinishReason } from '../../inputs/anthropic.ts';
import { at, type Decoder, isObject } from '../../inputs/decoder.ts';
import { Kit } from '../../inputs/kit/index.ts';
import { type DecoderOptions, Emitter, frameClock } from '../../model/emitter.ts';
import type {
  Citation,
  EventInit,
  EventOf,
  FinishReason,
  Json,
  JsonObject,
  Location,
  ProviderMetadata,
  Todo,
  Usage,
} from '../../model/events.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS, STEP_KINDS as MODEL_STEP_KINDS, TODO_STATUSES } from '../../model/vocabulary.ts';

const SOURCE = 'ws';

const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);
const STEP_KINDS = new Set<string>(MODEL_STEP_KINDS);
const TODO_STATUS = new Set<string>(TODO_STATUSES);
const PERSISTENCE_STATES = new Set(['transient', 'pending', 'persisted', 'queued', 'failed']);

/** Frame types this reader knows, by where they come from. */
const WS_TYPES = new Set([
  // The agent:event contract's own frames.
  ...['session_start', 'thinking_chunk', 'thinking', 'message_chunk', 'message', 'tool_use', 'tool_result', 'complete', 'error'],
  // Switchboard's extensions.
  ...['step_start', 'step_finish', 'source', 'file', 'todos', 'subagent_start', 'subagent_finish', 'usage', 'status', 'custom', 'raw'],
  ...['state_snapshot', 'state_delta', 'tool_approval_request', 'tool_approval_response', 'client_tool_call'],
  ...['interrupt', 'interrupt_response'],
  // The prototype's other frames.
  ...['thinking_complete', 'message_partial', 'session_end', 'turn_paused', 'content_refused'],
  ...['approval_requested', 'approval_resolved', 'user_message_confirmed'],
]);

type Frame = Record<string, unknown>;

function str(o: Frame, key: string): string | undefined {
  return typeof o[key] === 'string' ? (o[key] as string) : undefined;
}

/** Copies the frame's string fields onto the event under their canonical names (`{ tool_call_id: 'toolCallId' }`). */
function strings<E>(e: E, o: Frame, names: Partial<Record<string, keyof E & string>>): void {
  for (const from in names) {
    const s = str(o, from);
    if (s !== undefined) (e as Record<string, unknown>)[names[from] as string] = s;
  }
}

function num(o: Frame, key: string): number | undefined {
  return typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined;
}

/** A `where` carried by an error / raw frame, keeping only the fields a location has. */
function locationOf(w: unknown): Location | undefined {
  if (!isObject(w)) return undefined;
  const loc: Location = {};
  for (const k of ['line', 'event'] as const) if (Number.isInteger(w[k]) && (w[k] as number) > 0) loc[k] = w[k] as number;
  for (const k of ['sseEvent', 'field', 'expected'] as const) if (typeof w[k] === 'string') loc[k] = w[k] as string;
  return loc;
}

/** A usage object of the contract (Anthropic vocabulary) as canonical usage. */
export function fromWsUsage(w: Frame): Usage {
  const u: Usage = {};
  const read = num(w, 'cache_read_input_tokens');
  const write = num(w, 'cache_creation_input_tokens');
  const input = num(w, 'input_tokens');
  if (input !== undefined) u.inputTokens = input + (read ?? 0) + (write ?? 0);
  const output = num(w, 'output_tokens');
  if (output !== undefined) u.outputTokens = output;
  const total = num(w, 'total_tokens');
  if (total !== undefined) u.totalTokens = total;
  const reasoning = num(w, 'reasoning_tokens');
  if (reasoning !== undefined) u.reasoningTokens = reasoning;
  if (read !== undefined) u.cacheReadTokens = read;
  if (write !== undefined) u.cacheWriteTokens = write;
  const cost = num(w, 'cost_usd');
  if (cost !== undefined) u.costUsd = cost;
  if (w.raw !== undefined) u.raw = w.raw as Json;
  return u;
}

export const CITATION_KINDS: Record<string, Citation['kind']> = {
  web_search_result_location: 'url',
  search_result_location: 'url',
  char_location: 'document',
  page_location: 'document',
  content_block_location: 'document',
};

/** A citation of the contract as a canonical citation. */
export function fromWsCitation(c: Frame): Citation {
  const type = str(c, 'type') ?? '';
  const kind = str(c, 'kind');
  const out: Citation = {
    kind: kind === 'url' || kind === 'document' || kind === 'location' ? kind : (CITATION_KINDS[type] ?? 'location'),
  };
  const url = str(c, 'url') ?? (type === 'search_result_location' ? str(c, 'source') : undefined);
  if (url !== undefined) out.url = url;
  const title = str(c, 'title') ?? str(c, 'document_title');
  if (title !== undefined) out.title = title;
  const cited = str(c, 'cited_text');
  if (cited !== undefined) out.citedText = cited;
  const doc = num(c, 'document_index');
  if (doc !== undefined) out.documentIndex = doc;
  const start = num(c, 'start_char_index') ?? num(c, 'start_page_number') ?? num(c, 'start_block_index');
  if (start !== undefined) out.startIndex = start;
  const end = num(c, 'end_char_index') ?? num(c, 'end_page_number') ?? num(c, 'end_block_index');
  if (end !== undefined) out.endIndex = end;
  // Ours (with `kind`) carry the provider's object under raw, if any; a foreign citation is its own raw.
  if (kind === undefined) out.raw = c as Json;
  else if (c.raw !== undefined) out.raw = c.raw as Json;
  return out;
}

interface Block {
  kind: 'text' | 'reasoning';
  blockId: string;
  parts: string[];
  /** Citations read so far (the final frame repeats them all). */
  citations: number;
  subagentId?: string;
}

/** Creates the reader of `agent:event` frames (framework `ws`). */
export function createWsDecoder(options: DecoderOptions = {}): Decoder {
  /** `ts` is the current frame's `timestamp`. */
  const clock = frameClock(options.now);
  /** The open blocks by their key (`keyOf`). */
  const blocks = new Map<string, Block>();
  /** Every block id used, so a made-up one is unique. */
  const blockIds = new Set<string>();
  /** The open steps, innermost last. */
  const steps: string[] = [];
  /** The tool calls whose tool_use was read (the contract sends each once). */
  const toolUses = new Set<string>();
  /** The tool calls whose final tool_result was read. */
  const toolResults = new Set<string>();
  /** Ids made up for frames without one (blocks, tool calls). */
  let generated = 0;
  /** A fatal error was read: an unfinished run finishes with `error`. */
  let failed = false;
  const out = new Emitter({ ...options, now: clock.now }, SOURCE);
  const kit = new Kit(out, SOURCE);
  const { error, invalid } = kit;

  /** A providerMetadata field, checked (`{provider: {…}}`); a malformed one is reported and dropped. */
  function pmOf(v: Frame, field: string, where?: Location): ProviderMetadata | undefined {
    const p = v[field];
    if (p === undefined) return undefined;
    if (isObject(p) && Object.values(p).every(isObject)) return p as ProviderMetadata;
    invalid(where, field, 'an object of provider objects');
    return undefined;
  }

  /** Sets the event's providerMetadata from the frame's, when it has a valid one. */
  function setPm(e: { providerMetadata?: ProviderMetadata }, v: Frame, where?: Location): void {
    const pm = pmOf(v, 'providerMetadata', where);
    if (pm) e.providerMetadata = pm;
  }

  function emit(e: EventInit, v: Frame): void {
    const sub = str(v, 'subagentId');
    if (sub !== undefined && !('subagentId' in e)) (e as { subagentId?: string }).subagentId = sub;
    out.emit(e);
  }

  function uniqueBlockId(base: string): string {
    let id = base;
    for (let n = 2; blockIds.has(id); n++) id = `${base}-${n}`;
    return id;
  }

  /** The key of a frame's block: our blockId, else the prototype's messageId + blockIndex. */
  function keyOf(v: Frame): string | undefined {
    const id = str(v, 'blockId');
    if (id !== undefined) return `id:${id}`;
    const index = num(v, 'blockIndex');
    return index === undefined ? undefined : `ix:${str(v, 'messageId') ?? ''}:${index}`;
  }

  function openBlock(kind: 'text' | 'reasoning', key: string, v: Frame, where?: Location): Block {
    const index = num(v, 'blockIndex');
    const blockId = str(v, 'blockId') ?? uniqueBlockId(`${str(v, 'messageId') ?? 'ws'}:${index ?? `b${++generated}`}`);
    blockIds.add(blockId);
    const b: Block = { kind, blockId, parts: [], citations: 0 };
    const sub = str(v, 'subagentId');
    if (sub !== undefined) b.subagentId = sub;
    blocks.set(key, b);
    const pm = pmOf(v, 'startProviderMetadata', where);
    const e: EventInit =
      kind === 'text'
        ? { type: 'text-start', blockId }
        : { type: 'reasoning-start', blockId, variant: v.variant === 'processing' ? 'processing' : 'thinking' };
    if (pm) e.providerMetadata = pm;
    emit(e, v);
    return b;
  }

  function citations(b: Block, v: Frame, from: number, where?: Location): void {
    if (v.citations === undefined || v.citations === null) return;
    if (!Array.isArray(v.citations)) return invalid(where, 'citations', 'an array of citations');
    for (let i = from; i < v.citations.length; i++) {
      const c = v.citations[i];
      if (!isObject(c) || typeof c.type !== 'string') invalid(where, `citations[${i}]`, 'a citation object with a "type"');
      else emit({ type: 'citation', blockId: b.blockId, citation: fromWsCitation(c) }, v);
    }
    // Chunks carry the citations since the previous chunk; the final frame all of them.
    b.citations = from === 0 ? b.citations + v.citations.length : Math.max(b.citations, v.citations.length);
  }

  function chunk(kind: 'text' | 'reasoning', v: Frame, where?: Location): void {
    if (typeof v.content !== 'string') return invalid(where, 'content', 'a string');
    const key = keyOf(v) ?? `current:${kind}`;
    const b = blocks.get(key) ?? openBlock(kind, key, v, where);
    if (kind === 'text') citations(b, v, 0, where);
    if (v.content) {
      b.parts.push(v.content);
      emit({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', blockId: b.blockId, delta: v.content }, v);
    }
  }

  function closeBlock(key: string, b: Block, pm?: ProviderMetadata): void {
    blocks.delete(key);
    const e: EventInit = b.kind === 'text' ? { type: 'text-end', blockId: b.blockId } : { type: 'reasoning-end', blockId: b.blockId };
    if (pm) e.providerMetadata = pm;
    if (b.subagentId !== undefined) e.subagentId = b.subagentId;
    out.emit(e);
  }

  function closeAll(): void {
    for (const [key, b] of blocks) closeBlock(key, b);
  }

  /** thinking / message: the block's accumulated content; closes the block. */
  function final(kind: 'text' | 'reasoning', v: Frame, where?: Location): void {
    const content = v.content ?? '';
    if (typeof content !== 'string') return invalid(where, 'content', 'a string');
    let key = keyOf(v);
    if (key === undefined) {
      // A prototype frame without block fields: it completes the open blocks of its kind.
      const open = [...blocks].filter(([, b]) => b.kind === kind);
      if (open.length > 0) {
        for (const [k, b] of open) closeBlock(k, b, pmOf(v, 'providerMetadata', where));
        return;
      }
      key = `current:${kind}`;
    }
    const b = blocks.get(key) ?? openBlock(kind, key, v, where);
    if (kind === 'text') citations(b, v, b.citations, where);
    const joined = b.parts.join('');
    if (content !== joined) {
      if (content.startsWith(joined))
        emit({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', blockId: b.blockId, delta: content.slice(joined.length) }, v);
      else
        error(
          'content_mismatch',
          `${describe(at(where, 'content'))}: expected the accumulated content of block "${b.blockId}" (its ${b.parts.length} chunks joined); the chunks are kept`,
          at(where, 'content', 'the chunks joined'),
        );
    }
    closeBlock(key, b, pmOf(v, 'providerMetadata', where));
  }

  function toolUse(v: Frame, where?: Location): void {
    let id = str(v, 'tool_call_id') ?? str(v, 'toolUseId');
    if (id === undefined) {
      id = `ws_tool_${++generated}`;
      invalid(where, 'tool_call_id', 'a tool call id string', 'missing_field');
    }
    if (toolUses.has(id)) return; // the contract sends a tool_use once; a repeat adds nothing
    toolUses.add(id);
    let name = str(v, 'tool_name') ?? str(v, 'toolName');
    if (name === undefined) {
      name = 'unknown';
      invalid(where, 'tool_name', 'a tool name string', 'missing_field');
    }
    const input = (v.tool_input !== undefined ? v.tool_input : v.args !== undefined ? v.args : {}) as Json;
    const start: EventInit = { type: 'tool-input-start', toolCallId: id, toolName: name };
    const end: EventInit = { type: 'tool-input-end', toolCallId: id, toolName: name, input };
    if (v.providerExecuted === true) start.providerExecuted = end.providerExecuted = true;
    const startPm = pmOf(v, 'startProviderMetadata', where);
    if (startPm) start.providerMetadata = startPm;
    const inputError = str(v, 'inputError');
    if (inputError !== undefined) end.inputError = inputError;
    setPm(end, v, where);
    emit(start, v);
    emit(end, v);
  }

  function toolResult(v: Frame, where?: Location): void {
    const id = str(v, 'tool_call_id') ?? str(v, 'toolUseId');
    if (id === undefined) return invalid(where, 'tool_call_id', 'a tool call id string', 'missing_field');
    const preliminary = v.preliminary === true;
    if (!preliminary) {
      if (toolResults.has(id)) return;
      toolResults.add(id);
    }
    const name = str(v, 'tool_name') ?? str(v, 'toolName');
    const result = (v.result !== undefined ? v.result : v.toolResult !== undefined ? v.toolResult : null) as Json;
    const isError = v.isError === true || v.success === false;
    let e: EventInit;
    if (isError) {
      const message = str(v, 'error') ?? (typeof result === 'string' ? result : JSON.stringify(result));
      e = { type: 'tool-error', toolCallId: id, error: message };
      if (!(typeof result === 'string' && result === message)) e.output = result;
    } else {
      e = { type: 'tool-output', toolCallId: id, output: result };
      if (preliminary) e.preliminary = true;
    }
    if (name !== undefined) e.toolName = name;
    if (v.providerExecuted === true) e.providerExecuted = true;
    setPm(e, v, where);
    emit(e, v);
  }

  /** finishReason / rawFinishReason of complete and step_finish. */
  function finishOf(v: Frame, derive: boolean): { finishReason?: FinishReason; rawFinishReason?: string } {
    const stop = str(v, 'stop_reason') ?? str(v, 'stopReason');
    const given = str(v, 'finishReason');
    const r: { finishReason?: FinishReason; rawFinishReason?: string } = {};
    if (given !== undefined && FINISH_REASONS.has(given)) r.finishReason = given as FinishReason;
    else if (stop !== undefined && derive) r.finishReason = anthropicFinishReason(stop);
    if (stop !== undefined && v.derivedStopReason !== true) r.rawFinishReason = stop;
    return r;
  }

  function usageOf(v: Frame, field: string, where?: Location): Usage | undefined {
    const u = v[field];
    if (u === undefined || u === null) return undefined;
    if (!isObject(u)) {
      invalid(where, field, 'a usage object');
      return undefined;
    }
    return fromWsUsage(u);
  }

  function closeSteps(): void {
    while (steps.length > 0) out.emit({ type: 'step-finish', stepId: steps.pop() as string });
  }

  function complete(v: Frame, where?: Location): void {
    closeAll();
    closeSteps();
    if (v.aborted === true || v.reason === 'user_cancelled') {
      const e: EventInit = { type: 'run-abort' };
      const reason = str(v, 'abortReason');
      if (reason !== undefined) e.reason = reason;
      return out.emit(e);
    }
    const f = finishOf(v, true);
    const reason = str(v, 'reason');
    const e: EventInit = {
      type: 'run-finish',
      finishReason: f.finishReason ?? (reason === 'error' ? 'error' : reason === 'max_turns' ? 'length' : failed ? 'error' : 'stop'),
    };
    if (f.rawFinishReason !== undefined) e.rawFinishReason = f.rawFinishReason;
    const usage = usageOf(v, 'usage', where);
    if (usage && v.derivedUsage !== true) e.usage = usage;
    setPm(e, v, where);
    out.emit(e);
  }

  /** The fields of an extension frame that are not the envelope. */
  function required(v: Frame, where: Location | undefined, ...keys: string[]): boolean {
    for (const k of keys)
      if (typeof v[k] !== 'string') {
        invalid(where, k, 'a string', 'missing_field');
        return false;
      }
    return true;
  }

  /** One frame, by its type. */
  function handle(type: string, v: Frame, where?: Location): void {
    switch (type) {
      case 'session_start': {
        const config = isObject(v.modelConfig) ? v.modelConfig : {};
        const init: Parameters<Emitter['start']>[0] = {};
        const messageId = str(v, 'messageId') ?? str(v, 'sessionId');
        if (messageId !== undefined) init.messageId = messageId;
        if (typeof config.model === 'string') init.model = config.model;
        if (typeof config.provider === 'string') init.provider = config.provider;
        for (const k of ['chatId', 'parentRunId', 'agent'] as const) {
          const s = str(v, k);
          if (s !== undefined) init[k] = s;
        }
        if (isObject(v.metadata)) init.metadata = v.metadata as JsonObject;
        setPm(init, v, where);
        return out.start(init);
      }
      case 'thinking_chunk':
        return chunk('reasoning', v, where);
      case 'message_chunk':
      case 'message_partial':
        return chunk('text', v, where);
      case 'thinking':
      case 'thinking_complete':
        return final('reasoning', v, where);
      case 'message':
        return final('text', v, where);
      case 'tool_use':
        return toolUse(v, where);
      case 'tool_result':
        return toolResult(v, where);
      case 'complete':
        return complete(v, where);
      case 'error': {
        const message = str(v, 'error') ?? (isObject(v.error) && typeof v.error.message === 'string' ? v.error.message : undefined);
        if (message === undefined) return invalid(where, 'error', 'an error message string');
        const e: EventInit = { type: 'error', message, fatal: v.fatal === true };
        const code = str(v, 'code') ?? str(v, 'errorCode');
        if (code !== undefined) e.code = code;
        const loc = locationOf(v.where);
        if (loc) e.where = loc;
        setPm(e, v, where);
        if (e.fatal) failed = true;
        return emit(e, v);
      }
      case 'step_start': {
        if (!required(v, where, 'stepId')) return;
        const kind = str(v, 'kind') ?? 'other';
        if (!STEP_KINDS.has(kind)) invalid(where, 'kind', 'model, planning, action, final-answer or other');
        const e: EventInit = { type: 'step-start', stepId: v.stepId as string, kind: (STEP_KINDS.has(kind) ? kind : 'other') as 'other' };
        const name = str(v, 'name');
        if (name !== undefined) e.name = name;
        if (Number.isInteger(v.number)) e.number = v.number as number;
        const model = str(v, 'model');
        if (model !== undefined) e.model = model;
        setPm(e, v, where);
        steps.push(e.stepId);
        return emit(e, v);
      }
      case 'step_finish': {
        if (!required(v, where, 'stepId')) return;
        const e: EventInit = { type: 'step-finish', stepId: v.stepId as string, ...finishOf(v, false) };
        const usage = usageOf(v, 'usage', where);
        if (usage) e.usage = usage;
        const ms = num(v, 'durationMs');
        if (ms !== undefined) e.durationMs = ms;
        setPm(e, v, where);
        const i = steps.lastIndexOf(e.stepId);
        if (i >= 0) steps.splice(i, 1);
        return emit(e, v);
      }
      case 'source': {
        if (!required(v, where, 'sourceId')) return;
        const e: EventInit = { type: 'source', sourceId: v.sourceId as string, kind: v.kind === 'url' ? 'url' : 'document' };
        for (const k of ['url', 'title', 'mediaType', 'filename'] as const) {
          const s = str(v, k);
          if (s !== undefined) e[k] = s;
        }
        setPm(e, v, where);
        return emit(e, v);
      }
      case 'file': {
        if (!required(v, where, 'url', 'mediaType')) return;
        const e: EventInit = { type: 'file', url: v.url as string, mediaType: v.mediaType as string };
        const filename = str(v, 'filename');
        if (filename !== undefined) e.filename = filename;
        setPm(e, v, where);
        return emit(e, v);
      }
      case 'todos': {
        const change = str(v, 'change');
        if (change !== 'create' && change !== 'update' && change !== 'done' && change !== 'snapshot')
          return invalid(where, 'change', 'create, update, done or snapshot');
        if (!Array.isArray(v.todos)) return invalid(where, 'todos', 'an array of todos');
        const todos: Todo[] = [];
        for (const [i, t] of v.todos.entries()) {
          if (!isObject(t) || typeof t.id !== 'string' || typeof t.content !== 'string' || !TODO_STATUS.has(t.status as string))
            return invalid(where, `todos[${i}]`, 'a todo {id, content, status}');
          const todo: Todo = { id: t.id, content: t.content, status: t.status as Todo['status'] };
          if (typeof t.activeForm === 'string') todo.activeForm = t.activeForm;
          todos.push(todo);
        }
        return emit({ type: 'todos', change, todos }, v);
      }
      case 'subagent_start': {
        if (!required(v, where, 'subagentId', 'name')) return;
        const e: EventInit = { type: 'subagent-start', subagentId: v.subagentId as string, name: v.name as string };
        for (const k of ['parentSubagentId', 'task', 'parentToolCallId'] as const) {
          const s = str(v, k);
          if (s !== undefined) e[k] = s;
        }
        return out.emit(e);
      }
      case 'subagent_finish': {
        if (!required(v, where, 'subagentId')) return;
        const e: EventInit = { type: 'subagent-finish', subagentId: v.subagentId as string };
        for (const k of ['result', 'error'] as const) {
          const s = str(v, k);
          if (s !== undefined) e[k] = s;
        }
        return out.emit(e);
      }
      case 'usage': {
        const usage = usageOf(v, 'usage', where);
        if (!usage) return invalid(where, 'usage', 'a usage object', 'missing_field');
        const scope = v.scope === 'step' || v.scope === 'total' ? v.scope : 'increment';
        const e: EventInit = { type: 'usage', scope, usage };
        const ms = num(v, 'durationMs');
        if (ms !== undefined) e.durationMs = ms;
        return emit(e, v);
      }
      case 'status': {
        if (!required(v, where, 'status')) return;
        const e: EventInit = { type: 'status', status: v.status as string };
        const message = str(v, 'message');
        if (message !== undefined) e.message = message;
        return emit(e, v);
      }
      case 'state_snapshot':
        return emit({ type: 'state-snapshot', state: (v.state ?? null) as Json }, v);
      case 'state_delta': {
        if (!Array.isArray(v.patch) || !v.patch.every((p) => isObject(p) && typeof p.op === 'string' && typeof p.path === 'string'))
          return invalid(where, 'patch', 'a JSON Patch array');
        return emit({ type: 'state-delta', patch: v.patch as EventOf<'state-delta'>['patch'] }, v);
      }
      case 'tool_approval_request': {
        if (!required(v, where, 'approval_id', 'tool_call_id')) return;
        const e = { type: 'tool-approval-request', approvalId: v.approval_id, toolCallId: v.tool_call_id } as EventInit & {
          type: 'tool-approval-request';
        };
        strings(e, v, { tool_name: 'toolName', reason: 'reason' });
        setPm(e, v, where);
        return emit(e, v);
      }
      case 'tool_approval_response': {
        if (!required(v, where, 'approval_id')) return;
        if (typeof v.approved !== 'boolean') return invalid(where, 'approved', 'a boolean');
        const e = { type: 'tool-approval-response', approvalId: v.approval_id, approved: v.approved } as EventInit & {
          type: 'tool-approval-response';
        };
        strings(e, v, { tool_call_id: 'toolCallId', reason: 'reason', by: 'by' });
        if (typeof v.providerExecuted === 'boolean') e.providerExecuted = v.providerExecuted;
        setPm(e, v, where);
        return emit(e, v);
      }
      case 'client_tool_call': {
        if (!required(v, where, 'tool_call_id')) return;
        const e = { type: 'client-tool-call', toolCallId: v.tool_call_id } as EventInit & { type: 'client-tool-call' };
        strings(e, v, { tool_name: 'toolName' });
        return emit(e, v);
      }
      case 'interrupt': {
        if (!required(v, where, 'interrupt_id', 'reason')) return;
        const e = { type: 'interrupt', interruptId: v.interrupt_id, reason: v.reason } as EventInit & { type: 'interrupt' };
        strings(e, v, { message: 'message', tool_call_id: 'toolCallId', expires_at: 'expiresAt' });
        if (v.value !== undefined) e.value = v.value as Json;
        if (isObject(v.response_schema)) e.responseSchema = v.response_schema as JsonObject;
        setPm(e, v, where);
        return emit(e, v);
      }
      case 'interrupt_response': {
        if (!required(v, where, 'interrupt_id')) return;
        if (v.status !== 'resolved' && v.status !== 'cancelled') return invalid(where, 'status', 'resolved or cancelled');
        const e = { type: 'interrupt-response', interruptId: v.interrupt_id, status: v.status } as EventInit & {
          type: 'interrupt-response';
        };
        if (v.payload !== undefined) e.payload = v.payload as Json;
        strings(e, v, { by: 'by' });
        return emit(e, v);
      }
      case 'custom':
        if (!required(v, where, 'name')) return;
        return emit({ type: 'custom', name: v.name as string, value: (v.value ?? null) as Json }, v);
      case 'raw': {
        const e: EventInit = { type: 'raw', source: str(v, 'source') ?? SOURCE, event: (v.event ?? null) as Json };
        const reason = str(v, 'reason');
        if (reason !== undefined) e.reason = reason;
        // The location in the original input (the frame itself is located by its line here).
        const loc = locationOf(v.where);
        if (loc) e.where = loc;
        return emit(e, v);
      }
      default: {
        const e: EventInit = {
          type: 'raw',
          source: SOURCE,
          event: v as Json,
          reason: WS_TYPES.has(type)
            ? `agent:event "${type}" has no canonical mapping`
            : `unknown agent:event type ${JSON.stringify(type)}`,
        };
        if (where) e.where = where;
        return emit(e, v);
      }
    }
  }

  return kit.decoder({
    push(value, where) {
      if (!isObject(value)) {
        error(
          'invalid_event',
          `${describe(where ?? {})}: expected an agent:event object with a "type", got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
          { ...where, expected: 'object' },
        );
        return;
      }
      if (typeof value.type !== 'string') {
        invalid(where, 'type', 'the event type as a string');
        return;
      }
      const type = value.type;
      clock.at(value.timestamp, () => handle(type, value, where));
    },
    finish() {
      if (!failed) error('truncated', 'the agent:event stream ended without a "complete" event', undefined, true);
      closeAll();
      closeSteps();
      out.emit({ type: 'run-finish', finishReason: 'error' });
    },
  });
}

/** True when one parsed value is unmistakably an `agent:event` frame (a known type and the contract's envelope). */
export function detectWs(value: unknown): boolean {
  return (
    isObject(value) &&
    !('data' in value) &&
    typeof value.type === 'string' &&
    WS_TYPES.has(value.type) &&
    typeof value.persistenceState === 'string' &&
    PERSISTENCE_STATES.has(value.persistenceState) &&
    (typeof value.eventId === 'string' || typeof value.eventIndex === 'number')
  );
}
