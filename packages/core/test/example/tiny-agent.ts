/**
 * The decoder of docs/writing-a-decoder.md, whole: a made-up "tiny agent" JSON-lines format, one
 * object per line —
 *   {"event":"start","model":"tiny-1"}
 *   {"event":"token","text":"Hel"}
 *   {"event":"tool","id":"t1","name":"search","args":"{\"q\":\"x\"}"}
 *   {"event":"result","id":"t1","output":"…"}
 *   {"event":"end","reason":"done","usage":{"in":12,"out":3}}
 * Tested by ../writing-a-decoder.test.ts. Inside the core, the imports would be `./kit/index.ts`,
 * `../model/…` and `../transforms/blocks.ts`.
 */
import type { Decoder } from '../../src/inputs/decoder.ts';
import { isObject, Kit, num, type Obj, parseToolInput, rest, str } from '../../src/inputs/kit/index.ts';
import type { DecoderOptions } from '../../src/model/emitter.ts';
import type { EventInit, FinishReason, Json, Location, Usage } from '../../src/model/events.ts';
import { BlockAssembler } from '../../src/transforms/blocks.ts';

/** The format's stop reasons in the canonical vocabulary (model/vocabulary.ts); the word itself goes to rawFinishReason. */
const REASONS: Record<string, FinishReason> = { done: 'stop', max_tokens: 'length', tool: 'tool-calls' };

/** Its usage object in canonical form; `raw` keeps it whole. */
function tinyUsage(u: Obj): Usage {
  const usage: Usage = { raw: u as Json };
  const input = num(u, 'in');
  const output = num(u, 'out');
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  if (input !== undefined || output !== undefined) usage.totalTokens = (input ?? 0) + (output ?? 0);
  return usage;
}

/** Creates a decoder for the tiny agent format. */
export function createTinyAgentDecoder(options: DecoderOptions = {}): Decoder {
  // 1. One kit: the emitter (run-start first, nothing after run-finish) and the located reports.
  const kit = new Kit(options, 'tiny-agent');
  const { out, invalid, raw } = kit;
  // Loose text becomes text blocks (opened on the first token, closed before anything else).
  const blocks = new BlockAssembler(out);
  const toolNames = new Map<string, string>();

  // 2. One handler per event type: read fields with the kit's readers, emit canonical events.
  const handlers: Record<string, (e: Obj, where?: Location) => void> = {
    start(e) {
      const model = str(e, 'model');
      const meta = rest(e, ['event', 'model']);
      out.start({ ...(model ? { model } : {}), ...(meta ? { providerMetadata: { 'tiny-agent': meta } } : {}) });
    },
    token(e, where) {
      const text = str(e, 'text');
      if (text === undefined) return invalid(where, 'text', 'a string');
      blocks.textDelta(text);
    },
    tool(e, where) {
      const toolCallId = str(e, 'id');
      const toolName = str(e, 'name') ?? 'unknown';
      if (toolCallId === undefined) return invalid(where, 'id', 'a tool call id');
      blocks.closeAll();
      toolNames.set(toolCallId, toolName);
      const args = str(e, 'args') ?? '';
      const { input, inputError } = parseToolInput(args); // not JSON: kept as text, with inputError
      out.emit({ type: 'tool-input-start', toolCallId, toolName });
      if (args) out.emit({ type: 'tool-input-delta', toolCallId, delta: args });
      out.emit({ type: 'tool-input-end', toolCallId, toolName, input, ...(inputError ? { inputError } : {}) });
    },
    result(e, where) {
      const toolCallId = str(e, 'id');
      if (toolCallId === undefined) return invalid(where, 'id', 'the id of a tool call');
      const toolName = toolNames.get(toolCallId);
      out.emit({ type: 'tool-output', toolCallId, output: (e.output ?? null) as Json, ...(toolName ? { toolName } : {}) });
    },
    end(e) {
      blocks.closeAll();
      const reason = str(e, 'reason');
      const finish: EventInit = { type: 'run-finish', finishReason: (reason && REASONS[reason]) || 'other' };
      if (reason) finish.rawFinishReason = reason;
      if (isObject(e.usage)) finish.usage = tinyUsage(e.usage);
      out.emit(finish);
    },
  };

  // 3. The shell: push guards the envelope and dispatches; unknown types are kept as raw events;
  //    finish runs at the end of input only when no "end" line finished the run.
  return kit.decoder({
    push(value, where) {
      const e = kit.object(value, where, 'a JSON object with an "event"');
      if (!e) return;
      const type = str(e, 'event');
      if (type === undefined) return invalid(where, 'event', 'a string event type');
      const handler = Object.hasOwn(handlers, type) ? handlers[type] : undefined;
      if (handler) handler(e, where);
      else raw(e, `unknown event type ${JSON.stringify(type)}`, where);
    },
    finish() {
      kit.truncated('the tiny agent output ended without an "end" line');
      blocks.closeAll();
      out.emit({ type: 'run-finish', finishReason: 'error' });
    },
  });
}
