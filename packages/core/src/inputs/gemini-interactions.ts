/**
 * Decoder for the Gemini Interactions API stream (`POST /v1beta/interactions` with `stream: true`):
 * events with an `event_type` — `interaction.created`, `interaction.status_update`, `step.start` /
 * `step.delta` / `step.stop` (framed by `index`), `interaction.completed`, `error`. One interaction is
 * one canonical step; a body with several interactions is one run with several steps.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions, Emitter } from '../model/emitter.ts';
import type { Citation, EventInit, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { finishReasonFrom } from '../model/vocabulary.ts';
import type { Decoder } from './decoder.ts';
import { charOffset, geminiUsage } from './gemini.ts';
import { isObject, Kit, num, type Obj, parseToolInput, rest, StepTotals, str, sub } from './kit/index.ts';

type BlockState =
  | { kind: 'output'; id: string; open: boolean; text: string }
  | { kind: 'thought'; id: string; signature?: string }
  | { kind: 'function'; toolCallId: string; name: string; json: string; args: unknown; signature?: string }
  | { kind: 'builtin-call'; toolCallId: string; name: string; args: unknown; signature?: string }
  | { kind: 'builtin-result'; callId: string; name: string; blockType: string; result: unknown; isError?: boolean; signature?: string }
  | { kind: 'custom'; name: string; value: JsonObject }
  | { kind: 'unknown' };

interface Step {
  id: string;
  interactionId?: string;
  hasFunctionCall: boolean;
  sources: Set<string>;
}

const STATUS_FINISH: Record<string, FinishReason> = {
  completed: 'stop',
  requires_action: 'tool-calls',
  failed: 'error',
  incomplete: 'length',
  cancelled: 'other',
};

/** Maps an interaction status to the canonical finish reason, as `@ai-sdk/google` does. */
export function interactionsFinishReason(status: string | undefined, hasFunctionCall: boolean): FinishReason {
  if (status === 'completed' && hasFunctionCall) return 'tool-calls';
  return finishReasonFrom(STATUS_FINISH, status);
}

/** Converts an Interactions `usage` object: generateContent's arithmetic (gemini.ts), over its own field names. */
export function interactionsUsage(u: Obj): Usage {
  return geminiUsage(u, {
    prompt: 'total_input_tokens',
    toolUsePrompt: 'total_tool_use_tokens',
    output: ['total_output_tokens'],
    thoughts: 'total_thought_tokens',
    total: 'total_tokens',
    cached: 'total_cached_tokens',
  });
}

const BUILTIN_CALL = /^(google_search|code_execution|url_context|file_search|google_maps|mcp_server_tool|computer_use)_call$/;
const BUILTIN_RESULT = /^(google_search|code_execution|url_context|file_search|google_maps|mcp_server_tool|computer_use)_result$/;
const EVENT_TYPES = /^(interaction|step)\./;

/**
 * True when one parsed value is unmistakably an Interactions API stream event (an `event_type` of
 * `interaction.*` or `step.*`, or an `error` event with an `error` object). Never claims values with a
 * `type` (Anthropic, the `{"type","data"}` agent formats).
 */
export function detectGeminiInteractions(value: unknown): boolean {
  if (!isObject(value) || 'type' in value || typeof value.event_type !== 'string') return false;
  return EVENT_TYPES.test(value.event_type) || (value.event_type === 'error' && isObject(value.error));
}

/** Output text (with its annotations as citations) and files of an interaction. */
function outputBlocks(out: Emitter) {
  const google = (meta: JsonObject) => ({ google: meta });

  function openText(b: Extract<BlockState, { kind: 'output' }>): void {
    if (b.open) return;
    b.open = true;
    out.emit({ type: 'text-start', blockId: b.id });
  }

  function textDelta(b: Extract<BlockState, { kind: 'output' }>, text: string): void {
    openText(b);
    if (!text) return;
    b.text += text;
    out.emit({ type: 'text-delta', blockId: b.id, delta: text });
  }

  function annotations(b: Extract<BlockState, { kind: 'output' }>, list: unknown[]): void {
    openText(b);
    for (const a of list) {
      if (!isObject(a)) continue;
      const str = (k: string) => (typeof a[k] === 'string' && a[k] ? (a[k] as string) : undefined);
      const c: Citation = { kind: 'location', raw: a as Json };
      const url = str('url') ?? str('document_uri');
      if (a.type === 'url_citation' || a.type === 'place_citation' || (url && /^https?:\/\//.test(url))) {
        c.kind = 'url';
        if (url) c.url = url;
        const title = str('title') ?? str('name') ?? str('file_name');
        if (title) c.title = title;
      } else if (a.type === 'file_citation') {
        c.kind = 'document';
        const title = str('file_name') ?? str('title') ?? url;
        if (title) c.title = title;
      }
      if (typeof a.start_index === 'number') c.startIndex = charOffset(b.text, a.start_index);
      if (typeof a.end_index === 'number') c.endIndex = charOffset(b.text, a.end_index);
      const text = str('cited_text') ?? str('text');
      if (text) c.citedText = text;
      out.emit({ type: 'citation', blockId: b.id, citation: c });
    }
  }

  function file(item: Obj, meta?: JsonObject): void {
    const mediaType = typeof item.mime_type === 'string' ? item.mime_type : item.type === 'video' ? 'video/mp4' : 'image/png';
    const url =
      typeof item.data === 'string' && item.data
        ? `data:${mediaType};base64,${item.data}`
        : typeof item.uri === 'string' && item.uri
          ? item.uri
          : undefined;
    if (url === undefined) return;
    const e: EventInit = { type: 'file', url, mediaType };
    const m = { ...rest(item, ['type', 'data', 'uri', 'mime_type']), ...meta };
    if (Object.keys(m).length) e.providerMetadata = google(m);
    out.emit(e);
  }

  return { openText, textDelta, annotations, file };
}

/** Creates a decoder for the Gemini Interactions API stream. */
export function createGeminiInteractionsDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, { source: 'gemini-interactions', metaKey: 'google' });
  const { out, error, raw } = kit;
  const blocks = new Map<number, BlockState>();
  let step: Step | undefined;
  let stepCount = 0;
  let completed = false;
  const totals = new StepTotals();
  let lastStatus: string | undefined;
  let fatal = false;

  const google = (meta: JsonObject) => ({ google: meta });

  /** A field below `where` (paths joined) holds the wrong thing. */
  const invalid = (where: Location, field: string, expected: string) => kit.invalidAt(sub(where, field, expected), expected);

  /** providerMetadata for what a client sends back: the signature and the interaction id. */
  function sendBack(signature: string | undefined): JsonObject | undefined {
    const meta: JsonObject = {};
    if (signature) meta.signature = signature;
    if (step?.interactionId) meta.interactionId = step.interactionId;
    return Object.keys(meta).length ? meta : undefined;
  }

  // --- steps (interactions) ------------------------------------------------------------------

  function openStep(interaction: Obj): Step {
    if (step) {
      if (!completed) error('truncated', `interaction ${step.id} ended without interaction.completed`);
      closeStep('other');
    }
    stepCount++;
    const interactionId = typeof interaction.id === 'string' && interaction.id ? interaction.id : undefined;
    const id = interactionId ?? `interaction_${stepCount}`;
    const model = typeof interaction.model === 'string' ? interaction.model : undefined;
    if (!out.started) out.start({ ...(interactionId ? { messageId: interactionId } : {}), ...(model ? { model } : {}) });
    step = { id, hasFunctionCall: false, sources: new Set() };
    if (interactionId) step.interactionId = interactionId;
    completed = false;
    const e: EventInit = { type: 'step-start', stepId: id, kind: 'model' };
    if (model) e.model = model;
    const meta = rest(interaction, ['id', 'model', 'object']);
    if (meta) e.providerMetadata = google(meta);
    out.emit(e);
    return step;
  }

  function ensureStep(): Step {
    return step ?? openStep({});
  }

  function closeStep(reason: FinishReason, status?: string, usage?: Obj, meta?: JsonObject): void {
    if (!step) return;
    for (const index of [...blocks.keys()]) stop(index);
    const e: EventInit = { type: 'step-finish', stepId: step.id, finishReason: reason };
    if (status) e.rawFinishReason = status;
    if (usage) e.usage = interactionsUsage(usage);
    if (meta) e.providerMetadata = google(meta);
    totals.add(e);
    step = undefined;
    out.emit(e);
  }

  // --- blocks (steps of an interaction) ------------------------------------------------------

  const { textDelta, annotations, file } = outputBlocks(out);

  function start(index: number, st: Obj, where: Location): void {
    const s = ensureStep();
    if (blocks.has(index)) stop(index);
    const type = typeof st.type === 'string' ? st.type : '';
    const id = `${s.id}:${index}`;
    const signature = typeof st.signature === 'string' ? st.signature : undefined;
    if (type === 'model_output') {
      const b: BlockState = { kind: 'output', id, open: false, text: '' };
      blocks.set(index, b);
      if (Array.isArray(st.content))
        for (const item of st.content) {
          if (!isObject(item)) continue;
          if (item.type === 'text') {
            textDelta(b, typeof item.text === 'string' ? item.text : '');
            if (Array.isArray(item.annotations)) annotations(b, item.annotations);
          } else if (item.type === 'image' || item.type === 'video' || item.type === 'audio') file(item);
          else raw(item, `unknown model_output content type ${JSON.stringify(item.type)}`, where);
        }
      return;
    }
    if (type === 'thought') {
      const b: BlockState = { kind: 'thought', id };
      if (signature) b.signature = signature;
      blocks.set(index, b);
      out.emit({ type: 'reasoning-start', blockId: id, variant: 'thinking' });
      if (Array.isArray(st.summary))
        for (const item of st.summary)
          if (isObject(item) && typeof item.text === 'string' && item.text)
            out.emit({ type: 'reasoning-delta', blockId: id, delta: item.text });
      return;
    }
    if (type === 'function_call') {
      const toolCallId = typeof st.id === 'string' && st.id ? st.id : id;
      const name = typeof st.name === 'string' ? st.name : 'unknown';
      const b: BlockState = { kind: 'function', toolCallId, name, json: '', args: st.arguments };
      if (signature) b.signature = signature;
      blocks.set(index, b);
      s.hasFunctionCall = true;
      out.emit({ type: 'tool-input-start', toolCallId, toolName: name });
      return;
    }
    const call = BUILTIN_CALL.exec(type);
    if (call) {
      const toolCallId = typeof st.id === 'string' && st.id ? st.id : id;
      const name = typeof st.name === 'string' && st.name ? st.name : (call[1] as string);
      const b: BlockState = { kind: 'builtin-call', toolCallId, name, args: st.arguments };
      if (signature) b.signature = signature;
      blocks.set(index, b);
      out.emit({ type: 'tool-input-start', toolCallId, toolName: name, providerExecuted: true });
      return;
    }
    const result = BUILTIN_RESULT.exec(type);
    if (result) {
      const callId = typeof st.call_id === 'string' && st.call_id ? st.call_id : id;
      const name = typeof st.name === 'string' && st.name ? st.name : (result[1] as string);
      const b: BlockState = { kind: 'builtin-result', callId, name, blockType: type, result: st.result };
      if (typeof st.is_error === 'boolean') b.isError = st.is_error;
      if (signature) b.signature = signature;
      blocks.set(index, b);
      return;
    }
    if (type === 'processing_call' || type === 'processing_result') {
      blocks.set(index, { kind: 'custom', name: `google.${type}`, value: rest(st, ['type']) ?? {} });
      return;
    }
    blocks.set(index, { kind: 'unknown' });
    raw({ event_type: 'step.start', index, step: st }, `unknown step type ${JSON.stringify(type)}`, where);
  }

  function delta(index: number, d: Obj, event: Obj, where: Location): void {
    const b = blocks.get(index);
    if (!b) {
      const loc = sub(where, 'index', 'the index of a started step');
      return error(
        'unknown_block',
        `${describe(loc)}: step.delta for step index ${index}, which was never started (or already stopped)`,
        loc,
      );
    }
    const type = d.type;
    switch (b.kind) {
      case 'output':
        if (type === 'text' && typeof d.text === 'string') return textDelta(b, d.text);
        if ((type === 'text_annotation' || type === 'text_annotation_delta') && Array.isArray(d.annotations))
          return annotations(b, d.annotations);
        if (type === 'image' || type === 'video' || type === 'audio') return file(d);
        break;
      case 'thought':
        if (type === 'thought_summary' && isObject(d.content) && typeof d.content.text === 'string') {
          if (d.content.text) out.emit({ type: 'reasoning-delta', blockId: b.id, delta: d.content.text });
          return;
        }
        if (type === 'thought_signature' && typeof d.signature === 'string') {
          b.signature = d.signature;
          return;
        }
        break;
      case 'function':
        if (type === 'arguments_delta' && typeof d.arguments === 'string') {
          if (d.arguments) {
            b.json += d.arguments;
            out.emit({ type: 'tool-input-delta', toolCallId: b.toolCallId, delta: d.arguments });
          }
          if (str(d, 'signature')) b.signature = str(d, 'signature');
          return;
        }
        break;
      case 'builtin-call':
        if (typeof type === 'string' && BUILTIN_CALL.test(type)) {
          if (d.arguments !== undefined) b.args = d.arguments;
          if (str(d, 'signature')) b.signature = str(d, 'signature');
          if (str(d, 'name') && type === 'mcp_server_tool_call') b.name = str(d, 'name') as string;
          return;
        }
        break;
      case 'builtin-result':
        if (typeof type === 'string' && BUILTIN_RESULT.test(type)) {
          if (d.result !== undefined) b.result = d.result;
          if (typeof d.is_error === 'boolean') b.isError = d.is_error;
          if (str(d, 'call_id')) b.callId = str(d, 'call_id') as string;
          if (str(d, 'signature')) b.signature = str(d, 'signature');
          return;
        }
        break;
      case 'custom':
        if (type === 'processing_call' || type === 'processing_result') {
          Object.assign(b.value, rest(d, ['type']));
          return;
        }
        break;
    }
    raw(event, `step.delta of type ${JSON.stringify(type)} does not fit a ${b.kind} step`, where);
  }

  function stop(index: number, where?: Location): void {
    const b = blocks.get(index);
    if (!b) {
      if (where) {
        const loc = sub(where, 'index', 'the index of a started step');
        error('unknown_block', `${describe(loc)}: step.stop for step index ${index}, which is not open`, loc);
      }
      return;
    }
    blocks.delete(index);
    switch (b.kind) {
      case 'output':
        if (b.open) {
          const meta = sendBack(undefined);
          out.emit(meta ? { type: 'text-end', blockId: b.id, providerMetadata: google(meta) } : { type: 'text-end', blockId: b.id });
        }
        return;
      case 'thought': {
        const meta = sendBack(b.signature);
        out.emit(
          meta ? { type: 'reasoning-end', blockId: b.id, providerMetadata: google(meta) } : { type: 'reasoning-end', blockId: b.id },
        );
        return;
      }
      case 'function': {
        let input: Json = isObject(b.args) ? (b.args as Json) : {};
        let inputError: string | undefined;
        if (b.json.trim() !== '') ({ input, inputError } = parseToolInput(b.json));
        const e: EventInit = { type: 'tool-input-end', toolCallId: b.toolCallId, toolName: b.name, input };
        if (inputError) e.inputError = inputError;
        const meta = sendBack(b.signature);
        if (meta) e.providerMetadata = google(meta);
        out.emit(e);
        return;
      }
      case 'builtin-call': {
        const e: EventInit = {
          type: 'tool-input-end',
          toolCallId: b.toolCallId,
          toolName: b.name,
          input: (b.args ?? {}) as Json,
          providerExecuted: true,
        };
        if (b.signature) e.providerMetadata = google({ signature: b.signature });
        out.emit(e);
        return;
      }
      case 'builtin-result': {
        const output = (b.result ?? null) as Json;
        const meta: JsonObject = { type: b.blockType };
        if (b.signature) meta.signature = b.signature;
        if (b.isError) {
          const text = typeof output === 'string' ? output : JSON.stringify(output);
          out.emit({
            type: 'tool-error',
            toolCallId: b.callId,
            toolName: b.name,
            providerExecuted: true,
            error: text || 'tool error',
            output,
            providerMetadata: google(meta),
          });
        } else
          out.emit({
            type: 'tool-output',
            toolCallId: b.callId,
            toolName: b.name,
            providerExecuted: true,
            output,
            providerMetadata: google(meta),
          });
        resultSources(b.callId, output);
        return;
      }
      case 'custom':
        out.emit({ type: 'custom', name: b.name, value: b.value });
        return;
      case 'unknown':
        return;
    }
  }

  /** Sources from built-in tool results that carry URLs (search, URL context, maps, file search). */
  function resultSources(callId: string, result: Json): void {
    if (!Array.isArray(result) || !step) return;
    const s = step;
    const add = (url: unknown, title: unknown) => {
      if (typeof url !== 'string' || !url || s.sources.has(url)) return;
      s.sources.add(url);
      const e: EventInit = { type: 'source', sourceId: `${callId}:${s.sources.size}`, kind: 'url', url };
      if (typeof title === 'string' && title) e.title = title;
      out.emit(e);
    };
    for (const entry of result) {
      if (!isObject(entry)) continue;
      if (entry.status === undefined || entry.status === 'success') add(entry.url, entry.title ?? entry.name);
      if (Array.isArray(entry.places)) for (const p of entry.places) if (isObject(p)) add(p.url, p.name);
    }
  }

  function complete(interaction: Obj): void {
    const s = step ?? openStep(interaction);
    if (!s.interactionId && typeof interaction.id === 'string' && interaction.id) s.interactionId = interaction.id;
    const status = typeof interaction.status === 'string' ? interaction.status : lastStatus;
    const meta: JsonObject = { ...rest(interaction, ['usage', 'status', 'object']) };
    if (meta.id !== undefined) {
      delete meta.id;
      if (s.interactionId) meta.interactionId = s.interactionId;
    }
    const reason = interactionsFinishReason(status, s.hasFunctionCall);
    if (status === 'failed' && !fatal) {
      fatal = true;
      error('interaction_failed', `interaction ${s.id} failed`, undefined, true);
    }
    closeStep(reason, status, isObject(interaction.usage) ? interaction.usage : undefined, Object.keys(meta).length ? meta : undefined);
    completed = true;
  }

  function handle(v: Obj, where: Location): void {
    const type = v.event_type;
    switch (type) {
      case 'interaction.created':
        if (!isObject(v.interaction)) return invalid(where, 'interaction', 'an interaction object');
        openStep(v.interaction);
        return;
      case 'interaction.status_update':
      case 'interaction.in_progress':
      case 'interaction.requires_action': {
        const status = typeof v.status === 'string' ? v.status : type === 'interaction.requires_action' ? 'requires_action' : 'in_progress';
        lastStatus = status;
        ensureStep();
        out.emit({ type: 'status', status });
        const other = rest(v, ['event_type', 'status', 'interaction_id']);
        if (other) raw(v, 'status update field(s) without a canonical mapping', where);
        return;
      }
      case 'step.start':
        if (typeof v.index !== 'number') return invalid(where, 'index', 'an integer step index');
        if (!isObject(v.step)) return invalid(where, 'step', 'a step object with a "type"');
        return start(v.index, v.step, where);
      case 'step.delta':
        if (typeof v.index !== 'number') return invalid(where, 'index', 'an integer step index');
        if (!isObject(v.delta)) return invalid(where, 'delta', 'a delta object with a "type"');
        return delta(v.index, v.delta, v, where);
      case 'step.stop':
        if (typeof v.index !== 'number') return invalid(where, 'index', 'an integer step index');
        return stop(v.index, where);
      case 'interaction.completed':
        if (!isObject(v.interaction)) return invalid(where, 'interaction', 'an interaction object');
        return complete(v.interaction);
      case 'error': {
        const err = isObject(v.error) ? v.error : {};
        fatal = true;
        const code = typeof err.code === 'string' ? err.code : typeof err.code === 'number' ? String(err.code) : 'error';
        const message = typeof err.message === 'string' ? err.message : 'Gemini Interactions stream error';
        return error(code, message, where, true, rest(v, ['event_type']));
      }
      default:
        if (typeof type !== 'string') return invalid(where, 'event_type', 'a string event type');
        raw(v, `unknown event type ${JSON.stringify(type)}`, where);
    }
  }

  return kit.decoder({
    push(value, where) {
      const ev = kit.object(value, where, 'a JSON object with an "event_type"');
      if (ev) handle(ev, where ?? {});
    },
    finish() {
      if (step && !completed) {
        if (!fatal) kit.truncated(`the stream ended inside interaction ${step.id} (no interaction.completed)`);
        fatal = true;
        closeStep('error');
      }
      if (!out.started && !fatal) {
        kit.empty('the stream contained no Interactions API events');
        fatal = true;
      }
      out.emit(totals.runFinish(fatal));
    },
  });
}
