/**
 * Decoder for the simple OpenAI dialect of the simplified Claude agent line format (framework
 * `openai`): one `{"type": …, "data": {…}}` object per line —
 * `start {model}`, `delta {content}`, `tool_call {id, name, arguments}`, `tool_result {id, content}`,
 * `done {usage}` (and `error {message}`). Loose text goes through the shared block rules.
 *
 * The envelope is the same as the `claude` agent format's, so a value cannot be told apart from that
 * format: `detectOpenAISimple` never claims input, and this decoder is chosen with `--from openai` only.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { EventInit, Json, Usage } from '../model/events.ts';
import { at, type Decoder, isObject } from './decoder.ts';
import {
  type AgentLine,
  type AgentLineContext,
  type AgentLineDialect,
  type AgentLineHandlers,
  createAgentLineDecoder,
  type Obj,
  rest,
  str,
} from './kit/index.ts';
import { openaiChatFinishReason, openaiChatUsage } from './openai-chat.ts';

const PROVIDER = 'openai';

/**
 * Always false: `{"type","data"}` values are the `claude` agent format's too, so auto-detection
 * cannot pick this format; use it explicitly (`from: 'openai'`).
 */
export const detectOpenAISimple = (_value: unknown): boolean => false;

/** The simple OpenAI lines: handlers on the agent-line skeleton. */
const DIALECT: AgentLineDialect = {
  source: PROVIDER,
  truncated: 'the OpenAI agent output ended without a "done" event',
  errorCode: ['code', 'type'],
  errorKnown: ['message', 'code'],
  handlers: openaiSimpleHandlers,
};

/** Creates a decoder for the agent line format's simple OpenAI dialect (framework `openai`). */
export function createOpenAISimpleDecoder(options: DecoderOptions = {}): Decoder {
  return createAgentLineDecoder(DIALECT, options);
}

function openaiSimpleHandlers(ctx: AgentLineContext): AgentLineHandlers {
  const { out, blocks, kit } = ctx;
  const toolNames = new Map<string, string>();
  let toolCount = 0;

  function toolCall(d: Obj, { where }: AgentLine): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_call_id') ?? `call_${++toolCount}`;
    const toolName = str(d, 'name', 'tool') ?? 'unknown';
    if (str(d, 'name', 'tool') === undefined)
      kit.error('missing_field', `${describe(at(where, 'data.name'))}: expected the tool name`, at(where, 'data.name', 'string'));
    toolNames.set(toolCallId, toolName);
    const meta = rest(d, ['id', 'tool_call_id', 'name', 'tool', 'arguments', 'input', 'args']);
    ctx.wholeToolCall({ toolCallId, toolName, args: d.arguments ?? d.input ?? d.args, what: 'tool arguments', meta });
  }

  function toolResult(d: Obj): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_call_id') ?? `call_${toolCount}`;
    const toolName = toolNames.get(toolCallId) ?? str(d, 'name', 'tool');
    // The result as sent (often JSON text): the UI shows it, a client sends it back to the model as is.
    const output = (d.content ?? d.output ?? d.result ?? null) as Json;
    const meta = rest(d, ['id', 'tool_call_id', 'name', 'tool', 'content', 'output', 'result', 'is_error']);
    const pm = meta ? { [PROVIDER]: meta } : undefined;
    const e: EventInit =
      d.is_error === true
        ? { type: 'tool-error', toolCallId, error: typeof output === 'string' ? output : JSON.stringify(output), output }
        : { type: 'tool-output', toolCallId, output };
    if (toolName) e.toolName = toolName;
    if (pm) e.providerMetadata = pm;
    out.emit(e);
  }

  function finish(d: Obj): void {
    blocks.closeAll();
    const rawFinish = str(d, 'finish_reason', 'stop_reason');
    const e: EventInit = {
      type: 'run-finish',
      finishReason: ctx.failed ? 'error' : rawFinish ? openaiChatFinishReason(rawFinish) : 'stop',
    };
    if (rawFinish) e.rawFinishReason = rawFinish;
    if (isObject(d.usage)) e.usage = openaiChatUsage(d.usage) as Usage;
    const meta = rest(d, ['usage', 'finish_reason', 'stop_reason']);
    if (meta) e.providerMetadata = { [PROVIDER]: meta };
    out.emit(e);
  }

  function text(d: Obj, { where }: AgentLine): void {
    const content = d.content ?? d.text ?? d.delta;
    if (content !== undefined && typeof content !== 'string')
      return kit.error('invalid_field', `${describe(at(where, 'data.content'))}: expected a string`, at(where, 'data.content', 'string'));
    if (typeof d.reasoning === 'string') blocks.thinkingText(d.reasoning);
    if (typeof content === 'string') blocks.textDelta(content);
  }

  const reasoning = (d: Obj) => blocks.thinkingText(str(d, 'content', 'reasoning', 'text') ?? '');

  return {
    on: {
      start(d) {
        const model = str(d, 'model');
        const messageId = str(d, 'id', 'message_id');
        const meta = rest(d, ['model', 'id', 'message_id']);
        out.start({
          ...(model ? { model } : {}),
          ...(messageId ? { messageId } : {}),
          ...(meta ? { providerMetadata: { [PROVIDER]: meta } } : {}),
        });
      },
      delta: text,
      text,
      reasoning,
      thinking: reasoning,
      tool_call: toolCall,
      tool_result: toolResult,
    },
    finish,
  };
}
