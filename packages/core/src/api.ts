/**
 * The library surface: async-iterable `decode` / `encode`, SSE framing, a web `Response` helper and
 * a fused synchronous converter. All of it is built from the push-style machines; streams appear only
 * here, at the edges.
 */
import { utf8Stream } from './codec/utf8-stream.ts';
import { createDecoder, type Framework } from './frameworks.ts';
import { framed } from './inputs/decoder.ts';
import { type Machine, pipe, run, type Source } from './machine.ts';
import type { DecoderOptions } from './model/emitter.ts';
import type { CanonicalEvent } from './model/events.ts';
import { createEncoder, type EncoderOptions, type FrameOf, PROTOCOLS, type Protocol, type ProtocolSpec } from './outputs/index.ts';
import { createSseEncoder, type SseEncoderOptions } from './outputs/sse.ts';

/** What `decode` reads: bytes or text of an SSE / JSON-lines body, or already parsed event objects. */
export type DecodeInput = Uint8Array | string | object;

/**
 * A decoder for `framework` that takes text and bytes (framed) as well as parsed objects. Unless
 * `options.now` is given, the clock is read once per input chunk, not once per event: the events
 * decoded from one chunk arrived together and share its time (a clock read per event was ≈ 3% of a
 * conversion).
 */
function universal(framework: Framework | 'auto', options: DecoderOptions): Machine<DecodeInput, CanonicalEvent> {
  let arrived = Date.now();
  const tick = options.now ? undefined : () => (arrived = Date.now());
  const decoder = createDecoder(framework, tick ? { ...options, now: () => arrived } : options);
  const text = framed(decoder, options);
  let objects = 0;
  let usedText = false;
  return {
    push(input) {
      tick?.();
      if (typeof input === 'string' || input instanceof Uint8Array) {
        usedText = true;
        return text.push(input);
      }
      return decoder.push(input, { event: ++objects });
    },
    end: () => {
      tick?.();
      return usedText ? text.end() : decoder.end();
    },
  };
}

/**
 * Decodes a framework's stream into canonical events.
 *
 * @param source SSE or JSON-lines bytes/text in chunks split anywhere, or parsed event objects.
 * @param framework The framework the stream comes from, or `auto` to recognise it.
 * @example
 * for await (const event of decode(response.body, 'anthropic')) console.log(event.type);
 */
export function decode(
  source: Source<DecodeInput>,
  framework: Framework | 'auto',
  options: DecoderOptions = {},
): AsyncGenerator<CanonicalEvent> {
  return run(source, universal(framework, options));
}

/**
 * Encodes canonical events into one UI protocol's frames (chunk / event objects).
 *
 * @example
 * for await (const chunk of encode(decode(body, 'anthropic'), 'ai-sdk')) console.log(chunk);
 */
export function encode<P extends Protocol>(
  events: Source<CanonicalEvent>,
  protocol: P,
  options: EncoderOptions = {},
): AsyncGenerator<FrameOf<P>> {
  return run(events, createEncoder(protocol, options));
}

/** Frames protocol frames as SSE text (no ids), ending with the protocol's terminator (`[DONE]` for the AI SDK). */
export function sseFramer(protocol: Protocol): Machine<object, string> {
  const terminator = (PROTOCOLS[protocol] as ProtocolSpec).terminator;
  return {
    push: (frame) => [`data: ${JSON.stringify(frame)}\n\n`],
    end: () => (terminator ? [`data: ${terminator}\n\n`] : []),
  };
}

/** Frames JSON lines: one JSON value per line. */
export function jsonlFramer(): Machine<object, string> {
  return { push: (frame) => [`${JSON.stringify(frame)}\n`], end: () => [] };
}

export interface ConverterOptions extends DecoderOptions, SseEncoderOptions {
  from: Framework | 'auto';
  to: Protocol;
  /** Output framing: SSE (default) or JSON lines. */
  format?: 'sse' | 'jsonl';
}

/**
 * A fused synchronous converter: input bytes/text/objects in, output text out, one pass per chunk
 * with no stream machinery in between (the fast path the CLI uses). `push` returns the text of every
 * frame the chunk completed as one string (none when it completed nothing): one write per input
 * chunk, as a socket or file wants it.
 */
export function createConverter(options: ConverterOptions): Machine<DecodeInput, string> {
  const decoder = universal(options.from, options);
  if (options.format === 'jsonl')
    return joined(decoder, pipe(createEncoder(options.to, options) as Machine<CanonicalEvent, object>, jsonlFramer()));
  // The AI SDK's own server sends no ids, and neither does the converter unless asked; canonical SSE
  // always carries its seq.
  return joined(decoder, createSseEncoder(options.to, { ...options, ids: options.ids ?? options.to === 'canonical' }));
}

/** Chains a decoder and a text framer into one string per input (no array per event or frame). */
function joined(decoder: Machine<DecodeInput, CanonicalEvent>, framer: Machine<CanonicalEvent, string>): Machine<DecodeInput, string> {
  const through = (events: CanonicalEvent[], text = ''): string => {
    for (const e of events) for (const s of framer.push(e)) text += s;
    return text;
  };
  return {
    push(input) {
      const text = through(decoder.push(input));
      return text ? [text] : [];
    },
    end() {
      let text = through(decoder.end());
      for (const s of framer.end()) text += s;
      return text ? [text] : [];
    },
  };
}

/**
 * Frames canonical events as SSE text of a protocol, with an `id:` per SSE event; `options.after`
 * (a Last-Event-ID) resumes after that event.
 */
export function toSse(events: Source<CanonicalEvent>, protocol: Protocol, options: SseEncoderOptions = {}): AsyncGenerator<string> {
  return run(events, createSseEncoder(protocol, options));
}

export interface SseResponseInit extends SseEncoderOptions {
  status?: number;
  headers?: Record<string, string>;
}

/**
 * A web `Response` streaming canonical events as SSE in a protocol, with that protocol's headers
 * (for the AI SDK: `x-vercel-ai-ui-message-stream: v1`). Pulls from the source only as fast as the
 * client reads, so a slow client never makes memory grow.
 *
 * @example
 * return createSseResponse(decode(upstream.body, 'anthropic'), 'ai-sdk');
 */
export function createSseResponse(events: Source<CanonicalEvent>, protocol: Protocol, init: SseResponseInit = {}): Response {
  const body = utf8Stream(toSse(events, protocol, init));
  return new Response(body, { status: init.status ?? 200, headers: { ...PROTOCOLS[protocol].headers, ...init.headers } });
}
