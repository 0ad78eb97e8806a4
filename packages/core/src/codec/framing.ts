/**
 * Input framing: bytes or text in, one parsed JSON value per frame out, with where each came from.
 * Recognises by itself whether the input is an SSE body (`event:` / `data:` lines, parsed by
 * eventsource-parser) or JSON lines (one value per line). Never throws: unreadable input becomes an
 * error frame that says where and what was expected.
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import type { Machine } from '../machine.ts';
import type { Location } from '../model/events.ts';
import { MAX_DEPTH, textTooDeep } from '../model/hostile.ts';

/** One framed input value, or a located problem. */
export type Frame = { kind: 'value'; value: unknown; where: Location } | { kind: 'error'; code: string; message: string; where: Location };

export interface FramingOptions {
  /** Longest accepted line (JSON lines) or SSE event, in characters. Default 16 MiB. */
  maxLineLength?: number;
  /** Force an input format instead of recognising it from the first non-blank line. */
  inputFormat?: 'sse' | 'jsonl';
  /** Told once which format the input is read as (`forced` when it came from `inputFormat`). */
  onInputFormat?: (format: 'sse' | 'jsonl', forced: boolean) => void;
}

export const DEFAULT_MAX_LINE_LENGTH = 16 * 1024 * 1024;

/** A framer: a push-style machine from text or byte chunks to frames, that says which format it read. */
export interface Framer extends Machine<string | Uint8Array, Frame> {
  /** The input format, forced or recognised (undefined until the first non-blank line shows it). */
  readonly format: 'sse' | 'jsonl' | undefined;
}

/**
 * The JSON values of an SSE or JSON-lines body, as a push-style machine over text or byte chunks.
 * The format is `options.inputFormat`, else recognised from the first non-blank line: SSE when it is
 * an SSE line (`data:`, `event:`, `id:`, `retry:`, `: comment`), else JSON lines.
 */
export function createFramer(options: FramingOptions = {}): Framer {
  const max = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const utf8 = new TextDecoder();
  let inner: Machine<string, Frame> | undefined = options.inputFormat ? make(options.inputFormat) : undefined;
  let detected: 'sse' | 'jsonl' | undefined = options.inputFormat;
  if (options.inputFormat) options.onInputFormat?.(options.inputFormat, true);
  let head = '';

  function make(format: 'sse' | 'jsonl'): Machine<string, Frame> {
    return format === 'sse' ? sseFramer(max) : jsonlFramer(max);
  }

  function feed(text: string, last = false): Frame[] {
    if (inner) return inner.push(text);
    head += text;
    const format = recognise(head, last);
    if (!format) return [];
    inner = make(format);
    detected = format;
    options.onInputFormat?.(format, false);
    const all = head;
    head = '';
    return inner.push(all);
  }

  return {
    push: (chunk) => feed(typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true })),
    end: () => {
      const out = feed(utf8.decode(), true);
      if (inner) for (const f of inner.end()) out.push(f);
      return out;
    },
    get format() {
      return detected;
    },
  };
}

/** An SSE line: a field name SSE defines, alone or followed by a colon, or a comment (leading colon). */
const SSE_LINE = /^(?::|(?:data|event|id|retry)(?::|\r?$))/;

/**
 * The input format from the start of the input, or undefined while it cannot tell yet. SSE only when
 * the first non-blank line is an SSE line; anything else is JSON lines, so that a first line that is
 * neither (a log line, garbage) becomes a located error for that line instead of hiding the rest.
 */
function recognise(head: string, last: boolean): 'sse' | 'jsonl' | undefined {
  const first = head.search(/\S/);
  if (first === -1) return last ? 'jsonl' : undefined;
  const c = head[first];
  if (c === '{' || c === '[' || c === '"') return 'jsonl';
  const nl = head.indexOf('\n', first);
  const line = nl === -1 ? head.slice(first) : head.slice(first, nl);
  if (nl === -1 && !last && line.length < 7) return undefined; // `retry:` is the longest field name + colon
  return SSE_LINE.test(line) ? 'sse' : 'jsonl';
}

function parseJson(text: string, where: Location): Frame {
  if (textTooDeep(text))
    return {
      kind: 'error',
      code: 'too_deep',
      message: `${describe(where)}: nested deeper than ${MAX_DEPTH} levels; skipped`,
      where: { ...where, expected: `at most ${MAX_DEPTH} levels of nesting` },
    };
  try {
    return { kind: 'value', value: JSON.parse(text), where };
  } catch (err) {
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return {
      kind: 'error',
      code: 'invalid_json',
      message: `${describe(where)}: expected a JSON value, got ${JSON.stringify(preview)} (${(err as Error).message})`,
      where: { ...where, expected: 'JSON' },
    };
  }
}

/** Human-readable position, e.g. `line 12` or `SSE event 4 (content_block_delta)`. */
export function describe(where: Location): string {
  const parts: string[] = [];
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.event !== undefined) parts.push(`SSE event ${where.event}${where.sseEvent ? ` (${where.sseEvent})` : ''}`);
  if (where.field !== undefined) parts.push(`field ${where.field}`);
  return parts.join(', ') || 'input';
}

/** JSON lines: one value per line, blank lines skipped, CRLF accepted. */
function jsonlFramer(max: number): Machine<string, Frame> {
  let carry = '';
  let line = 0;
  let skipping = false; // inside an oversized line: drop until its newline
  const out: Frame[] = [];

  function takeLine(text: string): void {
    line++;
    if (skipping) {
      skipping = false;
      return;
    }
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.length > max) {
      out.push(oversized(line, trimmed.length, max));
      return;
    }
    if (trimmed.trim() === '') return;
    out.push(parseJson(trimmed, { line }));
  }

  return {
    push(text) {
      let start = 0;
      let nl = text.indexOf('\n');
      while (nl !== -1) {
        if (carry) {
          takeLine(carry + text.slice(start, nl));
          carry = '';
        } else takeLine(text.slice(start, nl));
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      if (start < text.length) {
        if (skipping) return drain();
        carry += text.slice(start);
        if (carry.length > max) {
          out.push(oversized(line + 1, carry.length, max));
          carry = '';
          skipping = true;
        }
      }
      return drain();
    },
    end() {
      if (carry) {
        takeLine(carry);
        carry = '';
      }
      return drain();
    },
  };

  function drain(): Frame[] {
    return out.splice(0, out.length);
  }
}

function oversized(line: number, length: number, max: number): Frame {
  return {
    kind: 'error',
    code: 'line_too_long',
    message: `line ${line}: longer than the limit of ${max} characters (at least ${length}); skipped`,
    where: { line, expected: `at most ${max} characters` },
  };
}

/** SSE bodies, parsed by eventsource-parser; each event's data is one JSON value; `[DONE]` is skipped. */
function sseFramer(max: number): Machine<string, Frame> {
  const out: Frame[] = [];
  let index = 0;
  let overflowed = false;
  // After an oversized event the parser is reset and the rest of the offending line is dropped.
  let skipToNewline = false;
  const parser = createParser({
    maxBufferSize: max,
    onEvent(message: EventSourceMessage) {
      index++;
      if (message.data === '[DONE]') return;
      const where: Location = message.event ? { event: index, sseEvent: message.event } : { event: index };
      out.push(parseJson(message.data, where));
    },
    onError(error: ParseError) {
      if (error.type !== 'max-buffer-size-exceeded') return; // unknown fields / bad retry: ignored, as browsers do
      overflowed = true;
      index++;
      out.push({
        kind: 'error',
        code: 'line_too_long',
        message: `SSE event ${index}: longer than the limit of ${max} characters; skipped`,
        where: { event: index, expected: `at most ${max} characters` },
      });
    },
  });
  function feed(text: string): void {
    if (skipToNewline) {
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      skipToNewline = false;
      text = text.slice(nl + 1);
    }
    parser.feed(text);
    if (overflowed) {
      overflowed = false;
      parser.reset();
      skipToNewline = true;
    }
  }
  return {
    push(text) {
      feed(text);
      return out.splice(0, out.length);
    },
    end() {
      // An event without its closing blank line is still data the sender meant: keep it.
      if (!skipToNewline) feed('\n\n');
      return out.splice(0, out.length);
    },
  };
}
