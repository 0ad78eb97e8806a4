/**
 * Decoder for the simple Gemini dialect of the simplified Claude agent line format ("Framework:
 * Gemini (Future)" in that format's event mapping): one `{"type": …, "data": {…}}` object per line
 * — `start`, `content`, `function_call`, `function_response`, `done` (and `error`). Loose content
 * goes through the shared block rules.
 *
 * The envelope is the same as the `claude` agent format's, so a value cannot tell the two apart:
 * `detectGeminiSimple` never claims anything and this decoder is chosen explicitly
 * (`--from gemini-simple`).
 */
import type { DecoderOptions } from '../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Usage } from '../model/events.ts';
import { usageOf } from '../model/usage.ts';
import type { Decoder } from './decoder.ts';
import { geminiFinishReason, geminiUsage } from './gemini.ts';
import {
  type AgentLineContext,
  type AgentLineDialect,
  type AgentLineHandlers,
  createAgentLineDecoder,
  isObject,
  num,
  type Obj,
  rest,
  str,
} from './kit/index.ts';

const PROVIDER = 'gemini-simple';

/** Usage in Gemini's own keys (`promptTokenCount`, …) or the common snake/camel case ones. */
function simpleUsage(u: Obj): Usage {
  if (['promptTokenCount', 'candidatesTokenCount', 'totalTokenCount', 'thoughtsTokenCount'].some((k) => k in u)) return geminiUsage(u);
  return usageOf(u, {
    inputTokens: num(u, 'input_tokens', 'inputTokens', 'prompt_tokens'),
    outputTokens: num(u, 'output_tokens', 'outputTokens', 'completion_tokens'),
    totalTokens: num(u, 'total_tokens', 'totalTokens'),
  });
}

/**
 * Always false: the simple Gemini format shares the `{"type","data"}` envelope (and `start`, `done`,
 * `error`) with the `claude` agent format, so one value never identifies it. Use `--from gemini-simple`.
 */
export const detectGeminiSimple = (_value: unknown): boolean => false;

/** The simple Gemini lines: handlers on the agent-line skeleton. */
const DIALECT: AgentLineDialect = {
  source: PROVIDER,
  truncated: 'the agent output ended without a "done" event',
  errorCode: ['code', 'status'],
  errorKnown: ['message', 'code', 'status'],
  handlers: geminiSimpleHandlers,
};

/** Creates a decoder for the agent line format's simple Gemini dialect (framework `gemini-simple`). */
export function createGeminiSimpleDecoder(options: DecoderOptions = {}): Decoder {
  return createAgentLineDecoder(DIALECT, options);
}

function geminiSimpleHandlers(ctx: AgentLineContext): AgentLineHandlers {
  const { out, blocks } = ctx;
  const pending: { id: string; name: string }[] = [];
  let calls = 0;

  function functionCall(d: Obj): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'call_id', 'tool_call_id') ?? `call_${++calls}`;
    const toolName = str(d, 'name') ?? 'unknown';
    pending.push({ id: toolCallId, name: toolName });
    const meta = rest(d, ['id', 'call_id', 'tool_call_id', 'name', 'args', 'arguments']);
    ctx.wholeToolCall({ toolCallId, toolName, args: d.args ?? d.arguments, what: 'function arguments', meta });
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
    const e: EventInit =
      d.error !== undefined || d.is_error === true
        ? {
            type: 'tool-error',
            toolCallId,
            error: typeof d.error === 'string' ? d.error : JSON.stringify(d.error ?? output),
            output: (d.error !== undefined && typeof d.error !== 'string' ? d.error : output) as Json,
          }
        : { type: 'tool-output', toolCallId, output };
    if (toolName) e.toolName = toolName;
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  function finish(d: Obj): void {
    blocks.closeAll();
    const raw = str(d, 'finish_reason', 'finishReason');
    let reason: FinishReason = ctx.failed ? 'error' : pending.length > 0 ? 'tool-calls' : 'stop';
    if (raw !== undefined && !ctx.failed) reason = geminiFinishReason(raw.toUpperCase(), pending.length > 0);
    const e: EventInit = { type: 'run-finish', finishReason: reason };
    if (raw !== undefined) e.rawFinishReason = raw;
    if (isObject(d.usage)) e.usage = simpleUsage(d.usage);
    const meta = rest(d, ['usage', 'finish_reason', 'finishReason']);
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  return {
    on: {
      start(d) {
        const model = str(d, 'model');
        out.start({ ...(model ? { model } : {}), ...(Object.keys(d).length ? { providerMetadata: { [PROVIDER]: d as JsonObject } } : {}) });
      },
      content(d) {
        const text = str(d, 'text', 'content', 'delta') ?? '';
        if (d.thought === true) blocks.thinkingText(text);
        else blocks.textDelta(text);
      },
      function_call: functionCall,
      function_response: functionResponse,
    },
    finish,
  };
}
