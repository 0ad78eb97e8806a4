/**
 * Decoder for the Anthropic Messages raw stream (`POST /v1/messages` with `stream: true`), as parsed
 * event objects. Every message (`message_start` … `message_stop`) is one canonical step; a body with
 * several messages (pause_turn, programmatic tool calling) is one run with several steps.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { Citation, EventInit, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { finishReasonFrom } from '../model/vocabulary.ts';
import { parsePartialJson } from '../transforms/partial-json.ts';
import { at, type Decoder } from './decoder.ts';
import { isObject, Kit, num, rest, StepTotals, shown, str } from './kit/index.ts';

type BlockState =
  | { kind: 'text'; id: string }
  | { kind: 'thinking'; id: string; signature?: string; redacted?: string }
  | { kind: 'tool'; id: string; name: string; json: string; startInput: unknown; providerExecuted: boolean; meta?: JsonObject }
  | { kind: 'unknown'; id: string };

interface StepState {
  id: string;
  usage: Record<string, Json>;
  stopReason?: string;
  finishMeta: JsonObject;
}

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
};

/** Maps an Anthropic `stop_reason` to the canonical finish reason. */
export function anthropicFinishReason(stopReason: string | null | undefined): FinishReason {
  return finishReasonFrom(STOP_REASONS, stopReason);
}

/** Converts an Anthropic usage object; `inputTokens` counts cached tokens too. */
export function anthropicUsage(u: Record<string, unknown>): Usage {
  const input = num(u, 'input_tokens');
  const cacheWrite = num(u, 'cache_creation_input_tokens');
  const cacheRead = num(u, 'cache_read_input_tokens');
  const output = num(u, 'output_tokens');
  const usage: Usage = { raw: u as Json };
  if (input !== undefined || cacheWrite !== undefined || cacheRead !== undefined) {
    usage.inputTokens = (input ?? 0) + (cacheWrite ?? 0) + (cacheRead ?? 0);
  }
  if (output !== undefined) usage.outputTokens = output;
  if (usage.inputTokens !== undefined || output !== undefined) usage.totalTokens = (usage.inputTokens ?? 0) + (output ?? 0);
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  const details = u.output_tokens_details;
  if (isObject(details) && typeof details.thinking_tokens === 'number') usage.reasoningTokens = details.thinking_tokens;
  return usage;
}

function citationOf(c: Record<string, unknown>): Citation {
  const citation: Citation = { kind: 'location', raw: c as Json };
  switch (c.type) {
    case 'web_search_result_location':
      citation.kind = 'url';
      citation.url = str(c, 'url');
      citation.title = str(c, 'title');
      break;
    case 'search_result_location':
      citation.kind = 'url';
      citation.url = str(c, 'source');
      citation.title = str(c, 'title');
      break;
    case 'char_location':
    case 'page_location':
    case 'content_block_location':
      citation.kind = 'document';
      citation.title = str(c, 'document_title');
      citation.documentIndex = num(c, 'document_index');
      citation.startIndex = num(c, 'start_char_index') ?? num(c, 'start_page_number') ?? num(c, 'start_block_index');
      citation.endIndex = num(c, 'end_char_index') ?? num(c, 'end_page_number') ?? num(c, 'end_block_index');
      break;
  }
  const cited = str(c, 'cited_text');
  if (cited !== undefined) citation.citedText = cited;
  for (const k of Object.keys(citation) as (keyof Citation)[]) if (citation[k] === undefined) delete citation[k];
  return citation;
}

/** Creates an Anthropic Messages stream decoder. */
export function createAnthropicDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, 'anthropic');
  const { out, error } = kit;
  const blocks = new Map<number | string, BlockState>();
  let step: StepState | undefined;
  let stepCount = 0;
  const totals = new StepTotals();
  let fatal = false;

  function openStep(message: Record<string, unknown> | undefined): void {
    if (step) closeStep();
    stepCount++;
    const id = typeof message?.id === 'string' && message.id ? message.id : `step_${stepCount}`;
    const model = typeof message?.model === 'string' ? message.model : undefined;
    if (!out.started) out.start({ messageId: id, ...(model ? { model } : {}) });
    step = { id, usage: isObject(message?.usage) ? { ...(message.usage as Record<string, Json>) } : {}, finishMeta: {} };
    // The usage at message_start is kept here: message_delta's cumulative usage may overwrite it.
    const meta = message ? rest(message, ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence']) : undefined;
    const e: EventInit = { type: 'step-start', stepId: id, kind: 'model' };
    if (model) e.model = model;
    if (meta) e.providerMetadata = { anthropic: meta };
    out.emit(e);
  }

  function closeBlocks(): void {
    for (const [index, b] of blocks) closeBlock(index, b);
  }

  function closeStep(reason?: FinishReason): void {
    if (!step) return;
    closeBlocks();
    const s = step;
    step = undefined;
    const finishReason = reason ?? anthropicFinishReason(s.stopReason);
    const e: EventInit = { type: 'step-finish', stepId: s.id, finishReason };
    if (s.stopReason) e.rawFinishReason = s.stopReason;
    if (Object.keys(s.usage).length > 0) e.usage = anthropicUsage(s.usage);
    if (Object.keys(s.finishMeta).length > 0) e.providerMetadata = { anthropic: s.finishMeta };
    totals.add(e);
    out.emit(e);
  }

  function ensureStep(): StepState {
    if (!step) openStep(undefined);
    return step as StepState;
  }

  function startBlock(index: number | string, cb: Record<string, unknown>, where?: Location): void {
    const s = ensureStep();
    const previous = blocks.get(index);
    if (previous) closeBlock(index, previous);
    const id = `${s.id}:${index}`;
    const type = cb.type;
    if (type === 'text' || type === 'compaction') {
      blocks.set(index, { kind: 'text', id });
      // A compaction summary is text the model wrote; the type travels along so it can be sent back.
      out.emit(
        type === 'text'
          ? { type: 'text-start', blockId: id }
          : { type: 'text-start', blockId: id, providerMetadata: { anthropic: { type } } },
      );
      if (typeof cb.content === 'string' && cb.content) out.emit({ type: 'text-delta', blockId: id, delta: cb.content });
      if (typeof cb.text === 'string' && cb.text) out.emit({ type: 'text-delta', blockId: id, delta: cb.text });
      if (Array.isArray(cb.citations))
        for (const c of cb.citations) if (isObject(c)) out.emit({ type: 'citation', blockId: id, citation: citationOf(c) });
    } else if (type === 'thinking' || type === 'redacted_thinking') {
      const b: BlockState = { kind: 'thinking', id };
      blocks.set(index, b);
      const e: EventInit = { type: 'reasoning-start', blockId: id, variant: 'thinking' };
      if (type === 'redacted_thinking') {
        b.redacted = typeof cb.data === 'string' ? cb.data : '';
        e.providerMetadata = { anthropic: { redactedData: b.redacted } };
      }
      out.emit(e);
      if (typeof cb.thinking === 'string' && cb.thinking) out.emit({ type: 'reasoning-delta', blockId: id, delta: cb.thinking });
      if (typeof cb.signature === 'string' && cb.signature) b.signature = cb.signature;
    } else if (type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use') {
      const toolCallId = typeof cb.id === 'string' ? cb.id : id;
      const name = typeof cb.name === 'string' ? cb.name : 'unknown';
      const providerExecuted = type !== 'tool_use';
      const meta = rest(cb, ['type', 'id', 'name', 'input']);
      const b: BlockState = { kind: 'tool', id: toolCallId, name, json: '', startInput: cb.input, providerExecuted };
      if (meta) b.meta = meta;
      blocks.set(index, b);
      if (typeof cb.id !== 'string')
        error(
          'missing_field',
          `${describe(at(where, 'content_block.id'))}: expected a tool call id string`,
          at(where, 'content_block.id', 'string'),
        );
      const e: EventInit = { type: 'tool-input-start', toolCallId, toolName: name };
      if (providerExecuted) e.providerExecuted = true;
      if (meta) e.providerMetadata = { anthropic: meta };
      out.emit(e);
    } else if (typeof type === 'string' && (type.endsWith('_tool_result') || type === 'mcp_tool_result')) {
      toolResult(cb);
      blocks.set(index, { kind: 'unknown', id });
    } else if (type === 'fallback') {
      // The API switched models mid-request: worth showing, not content.
      blocks.set(index, { kind: 'unknown', id });
      out.emit({ type: 'custom', name: 'anthropic.fallback', value: rest(cb, ['type']) ?? {} });
    } else {
      blocks.set(index, { kind: 'unknown', id });
      kit.raw({ type: 'content_block_start', index, content_block: cb }, `unknown content block type ${JSON.stringify(type)}`, where);
    }
  }

  /** A provider-executed tool's result arrives whole in content_block_start. */
  function toolResult(cb: Record<string, unknown>): void {
    const toolCallId = typeof cb.tool_use_id === 'string' ? cb.tool_use_id : 'unknown';
    const content = (cb.content ?? null) as Json;
    const meta = rest(cb, ['type', 'tool_use_id', 'content']) ?? {};
    meta.resultType = cb.type as string;
    const failed = cb.is_error === true || (isObject(content) && typeof content.type === 'string' && content.type.endsWith('_error'));
    if (failed) {
      const code = isObject(content) && typeof content.error_code === 'string' ? content.error_code : 'tool error';
      out.emit({
        type: 'tool-error',
        toolCallId,
        providerExecuted: true,
        error: code,
        output: content,
        providerMetadata: { anthropic: meta },
      });
      return;
    }
    out.emit({ type: 'tool-output', toolCallId, providerExecuted: true, output: content, providerMetadata: { anthropic: meta } });
    if (cb.type === 'web_search_tool_result' && Array.isArray(content)) {
      content.forEach((r, i) => {
        if (!isObject(r) || typeof r.url !== 'string') return;
        const e: EventInit = { type: 'source', sourceId: `${toolCallId}:${i}`, kind: 'url', url: r.url };
        if (typeof r.title === 'string') e.title = r.title;
        if (typeof r.page_age === 'string') e.providerMetadata = { anthropic: { pageAge: r.page_age } };
        out.emit(e);
      });
    }
  }

  function closeBlock(index: number | string, b: BlockState): void {
    blocks.delete(index);
    switch (b.kind) {
      case 'text':
        out.emit({ type: 'text-end', blockId: b.id });
        return;
      case 'thinking': {
        const e: EventInit = { type: 'reasoning-end', blockId: b.id };
        const meta: JsonObject = {};
        if (b.signature !== undefined) meta.signature = b.signature;
        if (b.redacted !== undefined) meta.redactedData = b.redacted;
        if (Object.keys(meta).length > 0) e.providerMetadata = { anthropic: meta };
        out.emit(e);
        return;
      }
      case 'tool': {
        let input: Json;
        let inputError: string | undefined;
        if (b.json.trim() === '') input = isObject(b.startInput) ? (b.startInput as Json) : {};
        else {
          const parsed = parsePartialJson(b.json);
          input = (parsed.value ?? b.json) as Json;
          if (!parsed.complete) {
            // Cut off (max_tokens, a dead stream) or malformed: keep what parsed; the deltas keep the text.
            inputError = `tool input is not complete JSON; ${parsed.value === undefined ? 'kept as text' : 'kept the members that arrived whole'}`;
          }
        }
        const e: EventInit = { type: 'tool-input-end', toolCallId: b.id, toolName: b.name, input };
        if (b.providerExecuted) e.providerExecuted = true;
        if (inputError) e.inputError = inputError;
        if (b.meta) e.providerMetadata = { anthropic: b.meta };
        out.emit(e);
        return;
      }
      case 'unknown':
        return;
    }
  }

  function delta(ev: Record<string, unknown>, where?: Location): void {
    const index = ev.index;
    const d = ev.delta;
    if (typeof index !== 'number')
      return error('invalid_field', `${describe(at(where, 'index'))}: expected an integer block index`, at(where, 'index', 'integer'));
    if (!isObject(d) || typeof d.type !== 'string')
      return error(
        'invalid_field',
        `${describe(at(where, 'delta'))}: expected an object with a string "type"`,
        at(where, 'delta.type', 'string'),
      );
    const b = blocks.get(index);
    if (!b) {
      return error(
        'unknown_block',
        `${describe(at(where, 'index'))}: content_block_delta for block index ${index}, which was never started (or already stopped)`,
        at(where, 'index', 'the index of an open content block'),
      );
    }
    switch (d.type) {
      case 'text_delta':
      case 'compaction_delta': {
        // A compaction block's summary streams as text (its `content` may be null).
        const text = d.type === 'text_delta' ? d.text : d.content;
        if (b.kind === 'text' && (typeof text === 'string' || (text === null && d.type === 'compaction_delta'))) {
          if (text) out.emit({ type: 'text-delta', blockId: b.id, delta: text });
          return;
        }
        break;
      }
      case 'citations_delta':
        if (b.kind === 'text' && isObject(d.citation)) {
          out.emit({ type: 'citation', blockId: b.id, citation: citationOf(d.citation) });
          return;
        }
        break;
      case 'thinking_delta':
        if (b.kind === 'thinking' && typeof d.thinking === 'string') {
          if (d.thinking) out.emit({ type: 'reasoning-delta', blockId: b.id, delta: d.thinking });
          return;
        }
        break;
      case 'signature_delta':
        if (b.kind === 'thinking' && typeof d.signature === 'string') {
          b.signature = d.signature; // replaces, as the SDK does
          return;
        }
        break;
      case 'input_json_delta':
        if (b.kind === 'tool' && typeof d.partial_json === 'string') {
          if (d.partial_json) {
            b.json += d.partial_json;
            out.emit({ type: 'tool-input-delta', toolCallId: b.id, delta: d.partial_json });
          }
          return;
        }
        break;
    }
    kit.raw(ev, `delta type ${JSON.stringify(d.type)} does not fit a ${b.kind} block`, where);
  }

  function handle(ev: Record<string, unknown>, where?: Location): void {
    switch (ev.type) {
      case 'message_start':
        openStep(isObject(ev.message) ? ev.message : undefined);
        if (isObject(ev.message) && Array.isArray(ev.message.content)) {
          // Pre-populated content (programmatic tool calling) arrives whole.
          ev.message.content.forEach((cb, i) => {
            if (!isObject(cb)) return;
            startBlock(`pre${i}`, cb, where);
            const b = blocks.get(`pre${i}`);
            if (b) closeBlock(`pre${i}`, b);
          });
        }
        return;
      case 'content_block_start':
        if (typeof ev.index !== 'number' && typeof ev.index !== 'string')
          return error('invalid_field', `${describe(at(where, 'index'))}: expected an integer block index`, at(where, 'index', 'integer'));
        if (!isObject(ev.content_block))
          return error(
            'invalid_field',
            `${describe(at(where, 'content_block'))}: expected an object`,
            at(where, 'content_block', 'object'),
          );
        return startBlock(ev.index, ev.content_block, where);
      case 'content_block_delta':
        return delta(ev, where);
      case 'content_block_stop': {
        const b = typeof ev.index === 'number' ? blocks.get(ev.index) : undefined;
        if (!b)
          return error(
            'unknown_block',
            `${describe(at(where, 'index'))}: content_block_stop for block index ${shown(ev.index)}, which is not open`,
            at(where, 'index', 'the index of an open content block'),
          );
        return closeBlock(ev.index as number, b);
      }
      case 'message_delta': {
        const s = ensureStep();
        if (isObject(ev.delta)) {
          if (typeof ev.delta.stop_reason === 'string') s.stopReason = ev.delta.stop_reason;
          const meta = rest(ev.delta, ['stop_reason']);
          if (meta) Object.assign(s.finishMeta, meta);
        }
        if (isObject(ev.usage)) Object.assign(s.usage, ev.usage); // cumulative: overwrite, never add
        const other = rest(ev, ['type', 'delta', 'usage']);
        if (other) Object.assign(s.finishMeta, other);
        return;
      }
      case 'message_stop':
        if (!step)
          return error(
            'unexpected_event',
            `${describe(where ?? {})}: message_stop without a message_start`,
            at(where, 'type', 'message_start first'),
          );
        return closeStep();
      case 'ping':
        return;
      case 'error': {
        const err = isObject(ev.error) ? ev.error : {};
        const code = typeof err.type === 'string' ? err.type : 'error';
        const message = typeof err.message === 'string' ? err.message : 'Anthropic stream error';
        const meta = rest(ev, ['type', 'error']);
        fatal = true;
        return error(code, message, where, true, meta);
      }
      default:
        if (typeof ev.type !== 'string')
          return error('invalid_field', `${describe(at(where, 'type'))}: expected a string event type`, at(where, 'type', 'string'));
        kit.raw(ev, `unknown event type ${JSON.stringify(ev.type)}`, where);
    }
  }

  return kit.decoder({
    push(value, where) {
      const ev = kit.object(value, where);
      if (ev) handle(ev, where);
    },
    finish() {
      if (step) {
        if (!fatal) {
          kit.truncated(`the stream ended inside message ${step.id} (no message_stop)`);
          fatal = true;
        }
        closeStep('error');
      }
      if (!out.started && !fatal) kit.empty('the stream contained no Anthropic events');
      out.emit(totals.runFinish(fatal));
    },
  });
}
