/**
 * Decoder for seed 000's planned simple Gemini agent format ("Framework: Gemini (Future)"): one
 * `{"type": …, "data": {…}}` object per line — `start`, `content`, `function_call`,
 * `function_response`, `done` (and `error`). Loose content goes through the shared block rules.
 *
 * The envelope is the same as the `claude` agent format's, so a value cannot tell the two apart:
 * `detectGeminiSimple` never claims anything and this decoder is chosen explicitly
 * (`--from gemini-simple`).
 */
import { type DecoderOptions, Emitter } from '../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { BlockAssembler } from '../transforms/blocks.ts';
import { type Decoder, isObject, readAgentLine } from './decoder.ts';
import { geminiFinishReason, geminiUsage, rest } from './gemini.ts';

type Obj = Record<string, unknown>;

const PROVIDER = 'gemini-simple';

function str(o: Obj, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
}

/** Usage in Gemini's own keys (`promptTokenCount`, …) or the common snake/camel case ones. */
function simpleUsage(u: Obj): Usage {
  if (['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount', 'thoughtsTokenCount'].some((k) => k in u)) return geminiUsage(u);
  const num = (...keys: string[]) => {
    for (const k of keys) if (typeof u[k] === 'number') return u[k] as number;
    return undefined;
  };
  const usage: Usage = { raw: u as Json };
  const input = num('input_tokens', 'inputTokens', 'prompt_tokens');
  const output = num('output_tokens', 'outputTokens', 'completion_tokens');
  const total = num('total_tokens', 'totalTokens');
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (total !== undefined) usage.totalTokens = total;
  else if (input !== undefined || output !== undefined) usage.totalTokens = (input ?? 0) + (output ?? 0);
  return usage;
}

/**
 * Always false: the simple Gemini format shares the `{"type","data"}` envelope (and `start`, `done`,
 * `error`) with the `claude` agent format, so one value never identifies it. Use `--from gemini-simple`.
 */
export function detectGeminiSimple(_value: unknown): boolean {
  return false;
}

/** Creates a decoder for seed 000's planned simple Gemini agent format (framework `gemini-simple`). */
export function createGeminiSimpleDecoder(options: DecoderOptions = {}): Decoder {
  const out = new Emitter(options, PROVIDER);
  const blocks = new BlockAssembler(out);
  const pending: { id: string; name: string }[] = [];
  let calls = 0;
  let failed = false;

  function error(code: string, message: string, where?: Location, fatal = false): void {
    const e: EventInit = { type: 'error', code, message, fatal };
    if (where) e.where = where;
    out.emit(e);
  }

  function functionCall(d: Obj): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'call_id', 'tool_call_id') ?? `call_${++calls}`;
    const toolName = str(d, 'name') ?? 'unknown';
    let input = (d.args ?? d.arguments ?? {}) as Json;
    let inputError: string | undefined;
    if (input === '') input = {};
    else if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch (err) {
        inputError = `function arguments are not valid JSON: ${(err as Error).message}`;
      }
    }
    pending.push({ id: toolCallId, name: toolName });
    const meta = rest(d, ['id', 'call_id', 'tool_call_id', 'name', 'args', 'arguments']);
    const start: EventInit = { type: 'tool-input-start', toolCallId, toolName };
    const end: EventInit = { type: 'tool-input-end', toolCallId, toolName, input };
    if (inputError) end.inputError = inputError;
    if (meta) {
      start.providerMetadata = { [PROVIDER]: meta };
      end.providerMetadata = { [PROVIDER]: meta };
    }
    out.emit(start);
    if (typeof (d.args ?? d.arguments) === 'string' && (d.args ?? d.arguments) !== '')
      out.emit({ type: 'tool-input-delta', toolCallId, delta: (d.args ?? d.arguments) as string });
    out.emit(end);
  }

  function functionResponse(d: Obj): void {
    blocks.closeAll();
    const name = str(d, 'name');
    let toolCallId = str(d, 'id', 'call_id', 'tool_call_id');
    const i = pending.findIndex((p) => (toolCallId !== undefined ? p.id === toolCallId : p.name === name));
    const call = i >= 0 ? pending.splice(i, 1)[0] : undefined;
    toolCallId ??= call?.id ?? `call_${++calls}`;
    const toolName = name ?? call?.name;
    const output = (d.response ?? d.result ?? d.output ?? null) as Json;
    const meta = rest(d, ['id', 'call_id', 'tool_call_id', 'name', 'response', 'result', 'output', 'error', 'is_error']);
    if (d.error !== undefined || d.is_error === true) {
      const e: EventInit = {
        type: 'tool-error',
        toolCallId,
        error: typeof d.error === 'string' ? d.error : JSON.stringify(d.error ?? output),
        output: (d.error !== undefined && typeof d.error !== 'string' ? d.error : output) as Json,
      };
      if (toolName) e.toolName = toolName;
      if (meta) e.providerMetadata = { [PROVIDER]: meta };
      out.emit(e);
      return;
    }
    const e: EventInit = { type: 'tool-output', toolCallId, output };
    if (toolName) e.toolName = toolName;
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  function done(d: Obj): void {
    blocks.closeAll();
    const raw = str(d, 'finish_reason', 'finishReason');
    let reason: FinishReason = failed ? 'error' : pending.length > 0 ? 'tool-calls' : 'stop';
    if (raw !== undefined && !failed) reason = geminiFinishReason(raw.toUpperCase(), pending.length > 0);
    const e: EventInit = { type: 'run-finish', finishReason: reason };
    if (raw !== undefined) e.rawFinishReason = raw;
    if (isObject(d.usage)) e.usage = simpleUsage(d.usage);
    const meta = rest(d, ['usage', 'finish_reason', 'finishReason']);
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  function handle(type: string, d: Obj, raw: Obj, where?: Location): void {
    switch (type) {
      case 'start': {
        const model = str(d, 'model');
        out.start({ ...(model ? { model } : {}), ...(Object.keys(d).length ? { providerMetadata: { [PROVIDER]: d as JsonObject } } : {}) });
        return;
      }
      case 'content': {
        const text = str(d, 'text', 'content', 'delta') ?? '';
        if (d.thought === true) return blocks.thinkingText(text);
        return blocks.textDelta(text);
      }
      case 'function_call':
        return functionCall(d);
      case 'function_response':
        return functionResponse(d);
      case 'error': {
        blocks.closeAll();
        failed = true;
        const message = str(d, 'message', 'error') ?? (isObject(d.error) ? (str(d.error, 'message') ?? 'agent error') : 'agent error');
        const e: EventInit = { type: 'error', code: str(d, 'code', 'status') ?? 'agent_error', message, fatal: true };
        if (where) e.where = where;
        const meta = rest(d, ['message', 'code', 'status']);
        if (meta) e.providerMetadata = { [PROVIDER]: meta };
        out.emit(e);
        return;
      }
      case 'done':
        return done(d);
      default: {
        const e: EventInit = { type: 'raw', source: PROVIDER, event: raw as Json, reason: `unknown event type ${JSON.stringify(type)}` };
        if (where) e.where = where;
        out.emit(e);
      }
    }
  }

  return {
    push(value, where) {
      const line = readAgentLine(value, where);
      if ('code' in line) error(line.code, line.message, line.where);
      else handle(line.type, line.data, line.line, where);
      return out.take();
    },
    fault(code, message, where) {
      error(code, message, where);
      return out.take();
    },
    end() {
      if (!out.finished) {
        if (!failed) error('truncated', 'the agent output ended without a "done" event', undefined, true);
        failed = true;
        done({});
      }
      return out.take();
    },
  };
}
