/**
 * Decoder for the Vercel AI SDK UI message stream (what `toUIMessageStreamResponse` sends and
 * `useChat` reads): `UIMessageChunk` objects, or the SSE body through `framed()`. The inverse of our
 * AI SDK encoder (`encoder.ts`), and a reader for any official AI SDK server's output.
 *
 * - `start` → run-start (messageId, messageMetadata as metadata); `start-step` / `finish-step` →
 *   step-start / step-finish (ids `step-<n>`); `finish` → run-finish; `abort` → run-abort.
 * - text / reasoning blocks map one to one. UI ids are only unique while a part is open (the official
 *   Anthropic provider reuses "0", "1" in every step), so a reused id becomes `<id>:<n>`. The
 *   reasoning variant is read from `providerMetadata[namespace].variant` (also `switchboard` and
 *   `mobox`) and removed from the metadata; providerMetadata of deltas (signatures) goes to the end event.
 * - Tool input deltas are passed on and collected as text; the text is parsed only when a call is
 *   cut off (the available chunk carries the parsed input). Linear in the input.
 * - `data-todos` / `data-usage` / `data-status` / `data-subagent` / `data-state` / `data-state-delta` /
 *   `data-custom` in the shapes our encoder writes map back to their canonical events; any other
 *   `data-*` chunk, `custom`, `message-metadata`, tool approvals and steering messages become
 *   `custom` events whose value is the chunk without its type.
 * - `error` chunks: an error is fatal when the run then finishes with `finishReason: "error"` (or
 *   without a reason) before any new content, or when the stream ends right after it (the official
 *   server's "failed before any step" shape); otherwise it is a non-fatal error and the run goes on.
 *   To tell, an error chunk is held back over the closing chunks that may follow it.
 * - A stream that ends without `finish` / `abort` gets a fatal `truncated` error.
 */
import { describe } from '../../codec/framing.ts';
import { type Decoder, isObject } from '../../inputs/decoder.ts';
import type { EventInit, Location } from '../../model/events.ts';
import { createChunkHandler } from './chunks.ts';
import { type AiSdkDecoderOptions, CLOSING, createReadState, onlyKeys, str } from './read-state.ts';

export type { AiSdkDecoderOptions } from './read-state.ts';

/**
 * True when one parsed value is unmistakably an AI SDK UI message chunk: a `type` of the chunk
 * vocabulary with the fields that type requires. Never claims Anthropic events (their `error` has
 * an `error` object, not `errorText`), the `{"type","data"}` agent format (only `data-*` chunks
 * carry `data`) or AI SDK `fullStream` parts (`text-delta` with `text`, `tool-input-start` with `id`).
 */
export function detectAiSdk(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string') return false;
  const t = value.type;
  if (t.startsWith('data-')) return t.length > 5 && 'data' in value && onlyKeys(value, ['type', 'id', 'data', 'transient']);
  if ('data' in value) return false;
  switch (t) {
    case 'start':
      return onlyKeys(value, ['type', 'messageId', 'messageMetadata']) && (value.messageId === undefined || str(value.messageId));
    case 'start-step':
    case 'finish-step':
    case 'reset-step':
      return onlyKeys(value, ['type']);
    case 'text-start':
    case 'text-end':
    case 'reasoning-start':
    case 'reasoning-end':
      return str(value.id);
    case 'text-delta':
    case 'reasoning-delta':
      return str(value.id) && str(value.delta);
    case 'tool-input-start':
      return str(value.toolCallId) && str(value.toolName);
    case 'tool-input-delta':
      return str(value.toolCallId) && str(value.inputTextDelta);
    case 'tool-input-available':
      return str(value.toolCallId) && str(value.toolName) && 'input' in value;
    case 'tool-input-error':
      return str(value.toolCallId) && str(value.toolName) && str(value.errorText);
    case 'tool-output-available':
      return str(value.toolCallId) && 'output' in value;
    case 'tool-output-error':
      return str(value.toolCallId) && str(value.errorText);
    case 'tool-output-denied':
      return str(value.toolCallId) && onlyKeys(value, ['type', 'toolCallId']);
    case 'tool-approval-request':
      return str(value.approvalId) && str(value.toolCallId);
    case 'tool-approval-response':
      return str(value.approvalId) && typeof value.approved === 'boolean';
    case 'source-url':
      return str(value.sourceId) && str(value.url);
    case 'source-document':
      return str(value.sourceId) && str(value.mediaType) && str(value.title);
    case 'file':
    case 'reasoning-file':
      return str(value.url) && str(value.mediaType);
    case 'custom':
      return str(value.kind);
    case 'steering-message':
      return str(value.id) && Array.isArray(value.parts);
    case 'message-metadata':
      return 'messageMetadata' in value;
    case 'error':
      return str(value.errorText);
    case 'finish':
      return onlyKeys(value, ['type', 'finishReason', 'messageMetadata']);
    case 'abort':
      return onlyKeys(value, ['type', 'reason']);
    default:
      return false;
  }
}

/** Creates an AI SDK UI message stream decoder. */
export function createAiSdkDecoder(options: AiSdkDecoderOptions = {}): Decoder {
  const s = createReadState(options);
  const handle = createChunkHandler(s);
  const { out, error, invalid, ensureStarted, closeBlocks, closeStep } = s;

  function dispatch(value: unknown, where: Location | undefined): void {
    if (!isObject(value)) {
      error(
        'invalid_event',
        `${describe(where ?? {})}: expected a UI message chunk object with a "type", got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
        { ...where, expected: 'object' },
      );
      return;
    }
    if (typeof value.type !== 'string') {
      invalid(where, 'type', 'a string chunk type', value.type);
      return;
    }
    handle(value, value.type, where);
  }

  /** Decides a held error: fatal when the run ends (with an error) right after it. */
  function release(isFatal: boolean): void {
    const h = s.held;
    if (!h) return;
    s.held = undefined;
    h.error.fatal = isFatal;
    if (isFatal) s.fatal = true;
    out.emit(h.error);
    for (const c of h.chunks) dispatch(c.value, c.where);
  }

  function finishUnfinished(): void {
    if (out.finished) return;
    ensureStarted();
    if (!s.fatal) {
      if (s.received === 0) error('empty', 'the stream contained no AI SDK UI message chunks', undefined, true);
      else error('truncated', 'the stream ended without a finish or abort chunk', undefined, true);
      s.fatal = true;
    }
    closeBlocks('the stream ended before the tool input was complete');
    closeStep('error');
    const e: EventInit = { type: 'run-finish', finishReason: 'error' };
    if (s.totalUsage) e.usage = s.totalUsage;
    out.emit(e);
  }

  return {
    push(value, where) {
      s.received++;
      if (s.held) {
        const type = isObject(value) && typeof value.type === 'string' ? value.type : undefined;
        if (type !== undefined && CLOSING.has(type)) {
          s.held.chunks.push({ value, where });
          return [];
        }
        const reason = type === 'finish' && isObject(value) ? value.finishReason : undefined;
        release(type === 'finish' && (reason === 'error' || reason === undefined || reason === null));
      }
      dispatch(value, where);
      return out.take();
    },
    fault(code, message, where) {
      release(false);
      error(code, message, where);
      return out.take();
    },
    end() {
      release(true);
      finishUnfinished();
      return out.take();
    },
  };
}
