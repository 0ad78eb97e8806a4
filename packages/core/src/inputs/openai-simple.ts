/**
 * Decoder for seed 000's planned simple OpenAI agent format (framework `openai`): one
 * `{"type": …, "data": {…}}` object per line —
 * `start {model}`, `delta {content}`, `tool_call {id, name, arguments}`, `tool_result {id, content}`,
 * `done {usage}` (and `error {message}`). Loose text goes through the shared block rules.
 *
 * The envelope is the same as the `claude` agent format's, so a value cannot be told apart from that
 * format: `detectOpenAISimple` never claims input, and this decoder is chosen with `--from openai` only.
 */
import { describe } from '../codec/framing.ts';
import { type DecoderOptions, Emitter } from '../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { BlockAssembler } from '../transforms/blocks.ts';
import { at, type Decoder, isObject, readAgentLine } from './decoder.ts';
import { openaiChatFinishReason, openaiChatUsage } from './openai-chat.ts';

const PROVIDER = 'openai';

/**
 * Always false: `{"type","data"}` values are the `claude` agent format's too, so auto-detection
 * cannot pick this format; use it explicitly (`from: 'openai'`).
 */
export function detectOpenAISimple(_value: unknown): boolean {
  return false;
}

function str(o: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
}

/** Everything but the listed keys, or undefined when nothing is left. */
function rest(o: Record<string, unknown>, known: readonly string[]): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k in o) {
    if (known.includes(k) || o[k] === undefined) continue;
    out ??= {};
    out[k] = o[k] as Json;
  }
  return out;
}

/** Creates a decoder for seed 000's simple OpenAI agent format (framework `openai`). */
export function createOpenAISimpleDecoder(options: DecoderOptions = {}): Decoder {
  const out = new Emitter(options, PROVIDER);
  const blocks = new BlockAssembler(out);
  const toolNames = new Map<string, string>();
  let toolCount = 0;
  let failed = false;

  function error(code: string, message: string, where?: Location, fatal = false, meta?: JsonObject): void {
    const e: EventInit = { type: 'error', code, message, fatal };
    if (where) e.where = where;
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  function toolCall(d: Record<string, unknown>, where?: Location): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_call_id') ?? `call_${++toolCount}`;
    const toolName = str(d, 'name', 'tool') ?? 'unknown';
    if (str(d, 'name', 'tool') === undefined)
      error('missing_field', `${describe(at(where, 'data.name'))}: expected the tool name`, at(where, 'data.name', 'string'));
    const args = d.arguments ?? d.input ?? d.args;
    let input: Json = (args ?? {}) as Json;
    let inputError: string | undefined;
    if (typeof args === 'string') {
      if (args.trim() === '') input = {};
      else {
        try {
          input = JSON.parse(args);
        } catch (err) {
          inputError = `tool arguments are not valid JSON: ${(err as Error).message}`;
        }
      }
    }
    const meta = rest(d, ['id', 'tool_call_id', 'name', 'tool', 'arguments', 'input', 'args']);
    const pm = meta ? { [PROVIDER]: meta } : undefined;
    toolNames.set(toolCallId, toolName);
    out.emit({ type: 'tool-input-start', toolCallId, toolName, ...(pm ? { providerMetadata: pm } : {}) });
    // The arguments text as sent (the parsed input may not reproduce it byte for byte).
    if (typeof args === 'string' && args) out.emit({ type: 'tool-input-delta', toolCallId, delta: args });
    const e: EventInit = { type: 'tool-input-end', toolCallId, toolName, input };
    if (inputError) e.inputError = inputError;
    if (pm) e.providerMetadata = pm;
    out.emit(e);
  }

  function toolResult(d: Record<string, unknown>): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_call_id') ?? `call_${toolCount}`;
    const toolName = toolNames.get(toolCallId) ?? str(d, 'name', 'tool');
    // The result as sent (often JSON text): the UI shows it, a client sends it back to the model as is.
    const output = (d.content ?? d.output ?? d.result ?? null) as Json;
    const meta = rest(d, ['id', 'tool_call_id', 'name', 'tool', 'content', 'output', 'result', 'is_error']);
    const pm = meta ? { [PROVIDER]: meta } : undefined;
    if (d.is_error === true) {
      const e: EventInit = { type: 'tool-error', toolCallId, error: typeof output === 'string' ? output : JSON.stringify(output), output };
      if (toolName) e.toolName = toolName;
      if (pm) e.providerMetadata = pm;
      out.emit(e);
      return;
    }
    const e: EventInit = { type: 'tool-output', toolCallId, output };
    if (toolName) e.toolName = toolName;
    if (pm) e.providerMetadata = pm;
    out.emit(e);
  }

  function done(d: Record<string, unknown>): void {
    blocks.closeAll();
    const rawFinish = str(d, 'finish_reason', 'stop_reason');
    const e: EventInit = { type: 'run-finish', finishReason: failed ? 'error' : rawFinish ? openaiChatFinishReason(rawFinish) : 'stop' };
    if (rawFinish) e.rawFinishReason = rawFinish;
    if (isObject(d.usage)) e.usage = openaiChatUsage(d.usage) as Usage;
    const meta = rest(d, ['usage', 'finish_reason', 'stop_reason']);
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  function handle(type: string, d: Record<string, unknown>, value: Record<string, unknown>, where?: Location): void {
    switch (type) {
      case 'start': {
        const model = str(d, 'model');
        const messageId = str(d, 'id', 'message_id');
        const meta = rest(d, ['model', 'id', 'message_id']);
        out.start({
          ...(model ? { model } : {}),
          ...(messageId ? { messageId } : {}),
          ...(meta ? { providerMetadata: { [PROVIDER]: meta } } : {}),
        });
        return;
      }
      case 'delta':
      case 'text': {
        const content = d.content ?? d.text ?? d.delta;
        if (content !== undefined && typeof content !== 'string')
          return error('invalid_field', `${describe(at(where, 'data.content'))}: expected a string`, at(where, 'data.content', 'string'));
        if (typeof d.reasoning === 'string') blocks.thinkingText(d.reasoning);
        if (typeof content === 'string') blocks.textDelta(content);
        return;
      }
      case 'reasoning':
      case 'thinking':
        return blocks.thinkingText(str(d, 'content', 'reasoning', 'text') ?? '');
      case 'tool_call':
        return toolCall(d, where);
      case 'tool_result':
        return toolResult(d);
      case 'error': {
        blocks.closeAll();
        failed = true;
        const message = str(d, 'message', 'error') ?? (isObject(d.error) ? (str(d.error, 'message') ?? 'agent error') : 'agent error');
        const meta = rest(d, ['message', 'code']);
        return error(str(d, 'code', 'type') ?? 'agent_error', message, where, true, meta);
      }
      case 'done':
        return done(d);
      default: {
        const e: EventInit = { type: 'raw', source: PROVIDER, event: value as Json, reason: `unknown event type ${JSON.stringify(type)}` };
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
        if (!failed) error('truncated', 'the OpenAI agent output ended without a "done" event', undefined, true);
        failed = true;
        blocks.closeAll();
        out.emit({ type: 'run-finish', finishReason: 'error' });
      }
      return out.take();
    },
  };
}
