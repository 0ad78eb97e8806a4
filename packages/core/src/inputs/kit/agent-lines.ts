/**
 * The skeleton of the agent-line formats: one `{"type": …, "data": {…}}` object per line, as agents
 * print it on stdout (the simplified Claude agent format's `claude` and `deepagents` lines, its
 * simple OpenAI and Gemini dialects). A dialect is a table of handlers, one per event type; the
 * skeleton reads the envelope, dispatches, and owns what they all share:
 * - `error` lines: close open blocks, mark the run failed, a fatal located error (code and message
 *   read from the dialect's keys);
 * - `done` lines and the end of input: the dialect's `finish`; at the end, a fatal `truncated`
 *   error first unless the run had already failed;
 * - unknown types: kept as `raw` events;
 * - a person in the loop: `approval_request` (a tool call that waits for approval), `client_tool_call`
 *   (a tool call left for the client) and `interrupt` lines; a run that ends with one unanswered ends
 *   waiting (the emitter's run-finish `pending`), and an end of input after one is not a truncation;
 * - steps, which the lines do not mark: one per model call, as the AI SDK's server makes them
 *   (`steps.ts`: content after tool results opens a new step).
 */

import { describe } from '../../codec/framing.ts';
import type { DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location, ProviderMetadata } from '../../model/events.ts';
import { BlockAssembler } from '../../transforms/blocks.ts';
import { at, type Decoder } from '../decoder.ts';
import { isObject, kindOf, type Obj, parseToolInput, rest, str } from './read.ts';
import { Kit } from './report.ts';
import { SteppedEmitter } from './steps.ts';

/** A problem with an input value, located, ready to become an `error` event. */
interface InputProblem {
  code: string;
  message: string;
  where: Location;
}

/**
 * Reads the `{"type": …, "data": {…}}` envelope that the agent line formats share (the claude /
 * deepagents lines and the simple OpenAI and Gemini dialects): the type and the data (`{}` when
 * absent) and the whole line, or what is wrong with the value and where.
 */
function readAgentLine(
  value: unknown,
  where?: Location,
): { type: string; data: Record<string, unknown>; line: Record<string, unknown> } | InputProblem {
  if (!isObject(value)) {
    return {
      code: 'invalid_event',
      message: `${describe(where ?? {})}: expected a JSON object {"type", "data"}, got ${kindOf(value)}`,
      where: { ...where, expected: 'object' },
    };
  }
  if (typeof value.type !== 'string') {
    return {
      code: 'invalid_field',
      message: `${describe(at(where, 'type'))}: expected a string event type`,
      where: at(where, 'type', 'string'),
    };
  }
  if (value.data !== undefined && value.data !== null && !isObject(value.data)) {
    return { code: 'invalid_field', message: `${describe(at(where, 'data'))}: expected an object`, where: at(where, 'data', 'object') };
  }
  return { type: value.type, data: (value.data ?? {}) as Record<string, unknown>, line: value };
}

/** One agent line, read. */
export interface AgentLine {
  type: string;
  /** The line's `data` (`{}` when absent). */
  data: Obj;
  /** The whole line. */
  value: Obj;
  where?: Location | undefined;
}

/** What a dialect's handlers work with. */
export interface AgentLineContext {
  kit: Kit;
  out: Emitter;
  blocks: BlockAssembler;
  /** True once an `error` line came (or the input was truncated). */
  readonly failed: boolean;
  /** Marks the run failed. */
  fail(): void;
  /**
   * A tool call that comes whole on one line: tool-input-start, the arguments text as sent (a delta:
   * the parsed input may not reproduce it byte for byte), tool-input-end with the parsed input (text
   * that is not JSON stays the input as sent, with an `inputError` naming `what`). `meta` goes on both ends.
   */
  wholeToolCall(call: WholeToolCall): void;
}

/** A tool call as one line carries it. */
export interface WholeToolCall {
  toolCallId: string;
  toolName: string;
  /** The arguments: an object, or JSON text. */
  args: unknown;
  /** What the arguments are called in an `inputError`. */
  what: string;
  meta: JsonObject | undefined;
}

/** A dialect's handlers, built once per decoder (their closures hold its state). */
export interface AgentLineHandlers {
  /** One handler per event type (`error` and `done` are the skeleton's). */
  on: Record<string, (data: Obj, line: AgentLine) => void>;
  /** Ends the run: on a `done` line (with its data) and at the end of input (with `{}`). */
  finish(data: Obj): void;
  /**
   * Announces the tool call of an `approval_request` / `client_tool_call` line (tool-input-start and
   * -end) and returns its id; default: from `id`, `name` and `input`.
   */
  toolCall?(data: Obj, line: AgentLine): string;
}

/** An agent-line dialect. */
export interface AgentLineDialect {
  /** Provider name on run-start and source of raw events. */
  source: string;
  /** The truncation message (the input ended without a `done` line). */
  truncated: string;
  /** Keys of an `error` line's data holding its code, in order (default `agent_error`). */
  errorCode: readonly string[];
  /** Keys left out of an `error` line's providerMetadata; without it the line keeps none. */
  errorKnown?: readonly string[];
  handlers(ctx: AgentLineContext): AgentLineHandlers;
}

/** Creates a decoder for one agent-line dialect. */
export function createAgentLineDecoder(dialect: AgentLineDialect, options: DecoderOptions = {}): Decoder {
  const kit = new Kit(new SteppedEmitter(options, dialect.source), dialect.source);
  const out = kit.out;
  const blocks = new BlockAssembler(out);
  let failed = false;
  const ctx: AgentLineContext = {
    kit,
    out,
    blocks,
    get failed() {
      return failed;
    },
    fail() {
      failed = true;
    },
    wholeToolCall: (call) => emitWholeToolCall(kit, call),
  };
  const dialectHandlers = dialect.handlers(ctx);
  const { on, finish } = dialectHandlers;
  let calls = 0;
  const toolCall = dialectHandlers.toolCall ?? ((d: Obj) => defaultToolCall(ctx, d, `call_${++calls}`));
  let interrupts = 0;
  const handlers = new Map(Object.entries({ ...waitHandlers(ctx, toolCall, () => `interrupt_${++interrupts}`), ...on }));

  function error(d: Obj, where?: Location): void {
    blocks.closeAll();
    failed = true;
    const message = str(d, 'message', 'error') ?? (isObject(d.error) ? (str(d.error, 'message') ?? 'agent error') : 'agent error');
    const meta = dialect.errorKnown ? rest(d, dialect.errorKnown) : undefined;
    kit.error(str(d, ...dialect.errorCode) ?? 'agent_error', message, where, true, meta);
  }

  return kit.decoder({
    push(value, where) {
      const line = readAgentLine(value, where);
      if ('code' in line) return kit.error(line.code, line.message, line.where);
      const { type, data } = line;
      if (type === 'error') return error(data, where);
      if (type === 'done') return finish(data);
      const handler = handlers.get(type);
      if (handler) handler(data, { type, data, value: line.line, where });
      else kit.raw(line.line, `unknown event type ${JSON.stringify(type)}`, where);
    },
    finish() {
      // An agent that asked for something and stopped has ended (waiting), not been cut off.
      if (!failed && out.waiting.empty) {
        kit.truncated(dialect.truncated);
        failed = true;
      }
      finish({});
    },
  });
}

/** See {@link AgentLineContext.wholeToolCall}. */
function emitWholeToolCall(kit: Kit, call: WholeToolCall): void {
  const { toolCallId, toolName, args, meta } = call;
  let input = (args ?? {}) as Json;
  let inputError: string | undefined;
  if (typeof args === 'string') ({ input, inputError } = parseToolInput(args, call.what));
  const start: EventInit = { type: 'tool-input-start', toolCallId, toolName };
  const end: EventInit = { type: 'tool-input-end', toolCallId, toolName, input };
  if (inputError) end.inputError = inputError;
  if (meta) {
    start.providerMetadata = { [kit.metaKey]: meta };
    end.providerMetadata = { [kit.metaKey]: meta };
  }
  kit.out.emit(start);
  if (typeof args === 'string' && args !== '') kit.out.emit({ type: 'tool-input-delta', toolCallId, delta: args });
  kit.out.emit(end);
}

/** The tool call of an `approval_request` / `client_tool_call` line: `{id, name, input}`. */
function defaultToolCall(ctx: AgentLineContext, d: Obj, fallbackId: string): string {
  ctx.blocks.closeAll();
  const toolCallId = str(d, 'id', 'tool_use_id', 'tool_call_id') ?? fallbackId;
  const toolName = str(d, 'name', 'tool', 'tool_name') ?? 'unknown';
  let input = (d.input ?? d.arguments ?? {}) as Json;
  if (typeof input === 'string' && input.trim() !== '') input = parseToolInput(input).input;
  ctx.out.emit({ type: 'tool-input-start', toolCallId, toolName });
  ctx.out.emit({ type: 'tool-input-end', toolCallId, toolName, input });
  return toolCallId;
}

/** The person-in-the-loop lines, shared by every dialect (see docs/agents.md). */
function waitHandlers(
  ctx: AgentLineContext,
  toolCall: (d: Obj, line: AgentLine) => string,
  nextInterruptId: () => string,
): AgentLineHandlers['on'] {
  const { out, blocks } = ctx;
  const meta = (d: Obj, known: readonly string[]): { providerMetadata?: ProviderMetadata } => {
    const more = rest(d, known);
    return more ? { providerMetadata: { [ctx.kit.metaKey]: more } } : {};
  };
  return {
    approval_request(d, line) {
      const toolCallId = toolCall(d, line);
      const toolName = str(d, 'name', 'tool', 'tool_name');
      const reason = str(d, 'reason');
      const e: EventInit = {
        type: 'tool-approval-request',
        approvalId: str(d, 'approval_id', 'approvalId') ?? `approval_${toolCallId}`,
        toolCallId,
      };
      if (toolName !== undefined) e.toolName = toolName;
      if (reason !== undefined) e.reason = reason;
      Object.assign(e, meta(d, [...TOOL_KEYS, 'approval_id', 'approvalId', 'reason']));
      out.emit(e);
    },
    client_tool_call(d, line) {
      const toolCallId = toolCall(d, line);
      const toolName = str(d, 'name', 'tool', 'tool_name');
      out.emit(toolName !== undefined ? { type: 'client-tool-call', toolCallId, toolName } : { type: 'client-tool-call', toolCallId });
    },
    interrupt(d) {
      blocks.closeAll();
      const e: EventInit = {
        type: 'interrupt',
        interruptId: str(d, 'id', 'interrupt_id', 'interruptId') ?? nextInterruptId(),
        reason: str(d, 'reason') ?? 'input_required',
      };
      const message = str(d, 'message');
      if (message !== undefined) e.message = message;
      const toolCallId = str(d, 'tool_call_id', 'toolCallId');
      if (toolCallId !== undefined) e.toolCallId = toolCallId;
      if (d.value !== undefined) e.value = d.value as Json;
      const schema = d.response_schema ?? d.responseSchema;
      if (isObject(schema)) e.responseSchema = schema as JsonObject;
      const expiresAt = str(d, 'expires_at', 'expiresAt');
      if (expiresAt !== undefined) e.expiresAt = expiresAt;
      Object.assign(
        e,
        meta(d, [
          'id',
          'interrupt_id',
          'interruptId',
          'reason',
          'message',
          'tool_call_id',
          'toolCallId',
          'value',
          'response_schema',
          'responseSchema',
          'expires_at',
          'expiresAt',
        ]),
      );
      out.emit(e);
    },
  };
}

/** Keys of a tool call in an agent line. */
const TOOL_KEYS = ['id', 'tool_use_id', 'tool_call_id', 'name', 'tool', 'tool_name', 'input', 'arguments'] as const;
