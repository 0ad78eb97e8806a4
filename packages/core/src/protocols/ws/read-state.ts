/**
 * The WebSocket reader's state and helpers: the open blocks (chunks kept as parts, joined once when
 * the final frame comes), steps, the tool calls seen, and the located errors, provider metadata,
 * blocks, tool use / result and `complete` handling that `frames.ts` uses per frame type.
 */
import { describe } from '../../codec/framing.ts';
import { anthropicFinishReason } from '../../inputs/anthropic.ts';
import { at, isObject } from '../../inputs/decoder.ts';
import { Kit } from '../../inputs/kit/index.ts';
import { type DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { Citation, EventInit, FinishReason, Json, Location, ProviderMetadata, Usage } from '../../model/events.ts';
import { FINISH_REASONS as MODEL_FINISH_REASONS, STEP_KINDS as MODEL_STEP_KINDS, TODO_STATUSES } from '../../model/vocabulary.ts';

export const SOURCE = 'ws';

export const FINISH_REASONS = new Set<string>(MODEL_FINISH_REASONS);
export const STEP_KINDS = new Set<string>(MODEL_STEP_KINDS);
export const TODO_STATUS = new Set<string>(TODO_STATUSES);
export const PERSISTENCE_STATES = new Set(['transient', 'pending', 'persisted', 'queued', 'failed']);

/** Frame types this reader knows: the seed's, Switchboard's extensions and the prototype's others. */
export const WS_TYPES = new Set([
  'session_start',
  'thinking_chunk',
  'thinking',
  'thinking_complete',
  'message_chunk',
  'message_partial',
  'message',
  'tool_use',
  'tool_result',
  'complete',
  'error',
  'step_start',
  'step_finish',
  'source',
  'file',
  'todos',
  'subagent_start',
  'subagent_finish',
  'usage',
  'status',
  'state_snapshot',
  'state_delta',
  'custom',
  'raw',
  'tool_approval_request',
  'tool_approval_response',
  'client_tool_call',
  'interrupt',
  'interrupt_response',
  'session_end',
  'approval_requested',
  'approval_resolved',
  'user_message_confirmed',
  'turn_paused',
  'content_refused',
]);

export type Frame = Record<string, unknown>;

export function str(o: Frame, key: string): string | undefined {
  return typeof o[key] === 'string' ? (o[key] as string) : undefined;
}

export function num(o: Frame, key: string): number | undefined {
  return typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined;
}

/** A `where` carried by an error / raw frame, keeping only the fields a location has. */
export function locationOf(w: unknown): Location | undefined {
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

export interface Block {
  kind: 'text' | 'reasoning';
  blockId: string;
  parts: string[];
  /** Citations read so far (the final frame repeats them all). */
  citations: number;
  subagentId?: string;
}

/** The state of one WebSocket reader. */
export type ReadState = ReturnType<typeof createReadState>;

/** Creates a reader's state. */
export function createReadState(options: DecoderOptions) {
  const clock = options.now ?? Date.now;
  const blocks = new Map<string, Block>();
  const blockIds = new Set<string>();
  const steps: string[] = [];
  const toolUses = new Set<string>();
  const toolResults = new Set<string>();
  const state = {
    /** The current frame's `timestamp` (canonical `ts`). */
    frameTime: undefined as number | undefined,
    generated: 0,
    failed: false,
  };
  const out = new Emitter({ ...options, now: () => state.frameTime ?? clock() }, SOURCE);
  const { error, invalid } = new Kit(out, SOURCE);
  const s = Object.assign(state, {
    out,
    steps,
    error,
    invalid,
    pmOf,
    emit,
    uniqueBlockId,
    keyOf,
    openBlock,
    citations,
    chunk,
    closeBlock,
    closeAll,
    final,
    toolUse,
    toolResult,
    finishOf,
    usageOf,
    closeSteps,
    complete,
    required,
  });

  /** A providerMetadata field, checked (`{provider: {…}}`); a malformed one is reported and dropped. */
  function pmOf(v: Frame, field: string, where?: Location): ProviderMetadata | undefined {
    const p = v[field];
    if (p === undefined) return undefined;
    if (isObject(p) && Object.values(p).every(isObject)) return p as ProviderMetadata;
    invalid(where, field, 'an object of provider objects');
    return undefined;
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
    const blockId = str(v, 'blockId') ?? uniqueBlockId(`${str(v, 'messageId') ?? 'ws'}:${index ?? `b${++s.generated}`}`);
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
      id = `ws_tool_${++s.generated}`;
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
    const pm = pmOf(v, 'providerMetadata', where);
    if (pm) end.providerMetadata = pm;
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
    const pm = pmOf(v, 'providerMetadata', where);
    if (pm) e.providerMetadata = pm;
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
      finishReason: f.finishReason ?? (reason === 'error' ? 'error' : reason === 'max_turns' ? 'length' : s.failed ? 'error' : 'stop'),
    };
    if (f.rawFinishReason !== undefined) e.rawFinishReason = f.rawFinishReason;
    const usage = usageOf(v, 'usage', where);
    if (usage && v.derivedUsage !== true) e.usage = usage;
    const pm = pmOf(v, 'providerMetadata', where);
    if (pm) e.providerMetadata = pm;
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

  return s;
}
