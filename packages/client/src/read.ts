/**
 * Readers: a protocol's stream (an HTTP `Response`, a byte stream, or the frames of a resumable
 * connection) → canonical events. Every protocol's reader is one of core's decoders, framed; this
 * module only adapts the sources a browser has to them.
 */
import {
  type CanonicalEvent,
  createCanonicalReader as createCoreCanonicalReader,
  createDecoder,
  createFramer,
  type Decoder,
  type DecoderOptions,
  describeLocation,
  type Framework,
  type FramingOptions,
  framed,
  type Location,
  type Machine,
  type Protocol,
} from '@switchboard/core';
import { isSseFrame, type SseFrame } from './sse.ts';

/** What `readStream` reads: any UI protocol (`ai-sdk`, `ag-ui`, `ws`, `dsagent`, `canonical`), any framework, or `auto`. */
export type ReadProtocol = Protocol | Framework | 'auto';

/** Bytes or text in chunks split anywhere. */
export type ByteSource = Response | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** Anything `readStream` accepts: bytes, or already parsed SSE frames (what `resumableFetch` yields). */
export type StreamSource = ByteSource | AsyncIterable<SseFrame>;

export interface ReadOptions extends DecoderOptions, FramingOptions {
  /** Stops reading (the iterator ends with the signal's reason). */
  signal?: AbortSignal;
}

/** A non-2xx HTTP response where a stream was expected. */
export class HttpStatusError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, statusText: string, body: string) {
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ''}${body ? `: ${body.slice(0, 500)}` : ''}`);
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
  }
}

/** Input a reader could not use at all (canonical lines that are not canonical events). */
export class ReadError extends Error {
  readonly where: Location | undefined;
  constructor(message: string, where?: Location) {
    super(message);
    this.name = 'ReadError';
    this.where = where;
  }
}

/**
 * The reader of the `canonical` protocol: canonical events pass through unchanged (their `seq` is
 * what resume is keyed on). A value that is not a canonical event throws a located {@link ReadError}.
 */
export function createCanonicalReader(): Decoder {
  return createCoreCanonicalReader((message, where) => {
    throw new ReadError(message, where);
  });
}

/** The object reader of a protocol or framework (values in, canonical events out). */
export function createObjectReader(protocol: ReadProtocol, options: DecoderOptions = {}): Decoder {
  return protocol === 'canonical' ? createCanonicalReader() : createDecoder(protocol, options);
}

/**
 * A synchronous reader of a protocol's bytes or text (SSE or JSON lines, chunks split anywhere):
 * core's decoder for the protocol, framed. For custom transports; `readStream` uses it.
 */
export function createReader(
  protocol: ReadProtocol,
  options: DecoderOptions & FramingOptions = {},
): Machine<string | Uint8Array, CanonicalEvent> {
  return framed(createObjectReader(protocol, options), options);
}

/** A reader over parsed SSE frames: each frame's data is one JSON value; `[DONE]` is skipped. */
export function createFrameReader(protocol: ReadProtocol, options: DecoderOptions = {}): Machine<SseFrame, CanonicalEvent> {
  const decoder = createObjectReader(protocol, options);
  let index = 0;
  return {
    push(frame) {
      index++;
      if (frame.data === '[DONE]') return [];
      const where: Location = frame.event !== undefined ? { event: index, sseEvent: frame.event } : { event: index };
      let value: unknown;
      try {
        value = JSON.parse(frame.data);
      } catch (err) {
        const preview = frame.data.length > 80 ? `${frame.data.slice(0, 80)}…` : frame.data;
        return decoder.fault(
          'invalid_json',
          `${describeLocation(where)}: expected a JSON value, got ${JSON.stringify(preview)} (${(err as Error).message})`,
          { ...where, expected: 'JSON' },
        );
      }
      return decoder.push(value, where);
    },
    end: () => decoder.end(),
  };
}

function isResponse(value: unknown): value is Response {
  if (typeof Response !== 'undefined' && value instanceof Response) return true;
  const v = value as Partial<Response> | null;
  return typeof v === 'object' && v !== null && typeof v.ok === 'boolean' && typeof v.status === 'number' && 'body' in v && 'headers' in v;
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function';
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Reads a web stream chunk by chunk (without relying on ReadableStream async iteration, which not every browser has). */
async function* chunksOf<T>(stream: ReadableStream<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const reader = stream.getReader();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (true) {
      if (signal?.aborted) throw abortError(signal);
      const { done, value } = await reader.read();
      if (signal?.aborted) throw abortError(signal);
      if (done) return;
      yield value;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

/** The chunks of a byte source; a `Response` that is not 2xx throws an {@link HttpStatusError}. */
export async function* bytesOf(source: ByteSource, signal?: AbortSignal): AsyncGenerator<Uint8Array | string> {
  if (isResponse(source)) {
    if (!source.ok) throw new HttpStatusError(source.status, source.statusText, await source.text().catch(() => ''));
    if (!source.body) return;
    yield* chunksOf(source.body, signal);
    return;
  }
  if (isReadableStream(source)) {
    yield* chunksOf(source, signal);
    return;
  }
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    if (signal?.aborted) throw abortError(signal);
    yield chunk;
  }
}

/**
 * Reads a protocol's stream as canonical events, one synchronous decoder pass per chunk.
 *
 * @param source a fetch `Response`, a byte stream, text / byte chunks, or the frames of `resumableFetch`.
 * @param protocol `ai-sdk`, `ag-ui`, `ws`, `dsagent`, `canonical`, any framework name, or `auto`.
 * @example
 * for await (const event of readStream(await fetch('/api/chat', init), 'ai-sdk')) accumulator.apply(event);
 */
export async function* readStream(source: StreamSource, protocol: ReadProtocol, options: ReadOptions = {}): AsyncGenerator<CanonicalEvent> {
  const { signal } = options;
  if (!isResponse(source) && !isReadableStream(source)) {
    // Peek: frames (objects with `data`) or bytes / text.
    const iterator = (Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : (source as Iterable<unknown>)[Symbol.iterator]()) as
      | AsyncIterator<unknown>
      | Iterator<unknown>;
    const first = await iterator.next();
    if (first.done) {
      yield* createReader(protocol, options).end();
      return;
    }
    const rest = async function* (): AsyncGenerator<unknown> {
      yield first.value;
      while (true) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    };
    if (isSseFrame(first.value)) {
      const machine = createFrameReader(protocol, options);
      for await (const frame of rest()) {
        if (signal?.aborted) throw abortError(signal);
        yield* machine.push(frame as SseFrame);
      }
      yield* machine.end();
      return;
    }
    const machine = createReader(protocol, options);
    for await (const chunk of rest()) {
      if (signal?.aborted) throw abortError(signal);
      yield* machine.push(chunk as Uint8Array | string);
    }
    yield* machine.end();
    return;
  }
  const machine = createReader(protocol, options);
  for await (const chunk of bytesOf(source as ByteSource, signal)) yield* machine.push(chunk);
  yield* machine.end();
}

/**
 * The JSON values of an SSE or JSON-lines body, as they are (no decoding): e.g. the AG-UI events to
 * feed `createAgUiReducer`. Unparseable data throws a located {@link ReadError}; `[DONE]` is skipped.
 */
export async function* readValues(source: StreamSource, options: FramingOptions & { signal?: AbortSignal } = {}): AsyncGenerator<unknown> {
  const passthrough: Decoder = {
    push: (value) => [value as CanonicalEvent],
    fault(_code, message, where) {
      throw new ReadError(message, where);
    },
    end: () => [],
  };
  if (!isResponse(source) && !isReadableStream(source)) {
    const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : (source as Iterable<unknown>)[Symbol.iterator]();
    const first = await iterator.next();
    if (first.done) return;
    if (isSseFrame(first.value)) {
      const frames = createFrameReaderOf(passthrough);
      yield* frames.push(first.value);
      while (true) {
        const next = await iterator.next();
        if (next.done) break;
        if (options.signal?.aborted) throw abortError(options.signal);
        yield* frames.push(next.value as SseFrame);
      }
      return;
    }
    const framer = framedValues(passthrough, options);
    yield* framer.push(first.value as Uint8Array | string);
    while (true) {
      const next = await iterator.next();
      if (next.done) break;
      if (options.signal?.aborted) throw abortError(options.signal);
      yield* framer.push(next.value as Uint8Array | string);
    }
    yield* framer.end();
    return;
  }
  const framer = framedValues(passthrough, options);
  for await (const chunk of bytesOf(source, options.signal)) yield* framer.push(chunk);
  yield* framer.end();
}

function framedValues(decoder: Decoder, options: FramingOptions): Machine<string | Uint8Array, unknown> {
  const framer = createFramer(options);
  const feed = (frames: ReturnType<typeof framer.push>): unknown[] => {
    const out: unknown[] = [];
    for (const f of frames) {
      if (f.kind === 'value') out.push(f.value);
      else decoder.fault(f.code, f.message, f.where);
    }
    return out;
  };
  return { push: (chunk) => feed(framer.push(chunk)), end: () => feed(framer.end()) };
}

function createFrameReaderOf(decoder: Decoder): { push(frame: SseFrame): unknown[] } {
  let index = 0;
  return {
    push(frame) {
      index++;
      if (frame.data === '[DONE]') return [];
      try {
        return [JSON.parse(frame.data)];
      } catch (err) {
        const where: Location = frame.event !== undefined ? { event: index, sseEvent: frame.event } : { event: index };
        decoder.fault('invalid_json', `${describeLocation(where)}: expected a JSON value (${(err as Error).message})`, where);
        return [];
      }
    },
  };
}
