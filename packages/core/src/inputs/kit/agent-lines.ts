/**
 * The skeleton of the agent-line formats: one `{"type": …, "data": {…}}` object per line, as agents
 * print it on stdout (seed 000's `claude` and `deepagents` lines, its planned simple OpenAI and
 * Gemini lines). A dialect is a table of handlers, one per event type; the skeleton reads the
 * envelope, dispatches, and owns what they all share:
 * - `error` lines: close open blocks, mark the run failed, a fatal located error (code and message
 *   read from the dialect's keys);
 * - `done` lines and the end of input: the dialect's `finish`; at the end, a fatal `truncated`
 *   error first unless the run had already failed;
 * - unknown types: kept as `raw` events;
 * - steps, which the lines do not mark: one per model call, as the AI SDK's server makes them
 *   (`steps.ts`: content after tool results opens a new step).
 */

import { describe } from '../../codec/framing.ts';
import type { DecoderOptions, Emitter } from '../../model/emitter.ts';
import type { Location } from '../../model/events.ts';
import { BlockAssembler } from '../../transforms/blocks.ts';
import { at, type Decoder } from '../decoder.ts';
import { isObject, kindOf, type Obj, rest, str } from './read.ts';
import { Kit } from './report.ts';
import { SteppedEmitter } from './steps.ts';

/** A problem with an input value, located, ready to become an `error` event. */
interface InputProblem {
  code: string;
  message: string;
  where: Location;
}

/**
 * Reads the `{"type": …, "data": {…}}` envelope that the agent line formats share (seed 000's
 * claude / deepagents lines and its planned OpenAI and Gemini lines): the type and the data (`{}` when
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
}

/** A dialect's handlers, built once per decoder (their closures hold its state). */
export interface AgentLineHandlers {
  /** One handler per event type (`error` and `done` are the skeleton's). */
  on: Record<string, (data: Obj, line: AgentLine) => void>;
  /** Ends the run: on a `done` line (with its data) and at the end of input (with `{}`). */
  finish(data: Obj): void;
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
  };
  const { on, finish } = dialect.handlers(ctx);
  const handlers = new Map(Object.entries(on));

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
      if (!failed) kit.truncated(dialect.truncated);
      failed = true;
      finish({});
    },
  });
}
