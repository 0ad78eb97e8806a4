/**
 * Resumable SSE: a reader that remembers the last `id:` it received and, when the connection drops,
 * reconnects with `Last-Event-ID` (exponential backoff, bounded retries, abortable), yielding every
 * frame exactly once across connections — no duplicate, no gap.
 *
 * Frames are deduplicated by position. Switchboard's SSE ids are ordered (`seq`, `seq.k`: core's
 * `parseFrameId`), so a frame at or before the last position seen is a repeat, whatever the server
 * resends. Frames without an id (the protocol terminator, `data: [DONE]`) are counted after the last
 * id: a resumed stream skips as many as were already delivered. Ids of another format are remembered
 * as a set.
 *
 * Where to reconnect (the gateway's URL contracts, see docs/client.md and docs/gateway.md):
 * - a GET is resumed at its own URL;
 * - a POST whose run is known — the response's `x-switchboard-run-id` header, the AG-UI RUN_STARTED's
 *   `runId`, or the request body's `runId` (AG-UI's RunAgentInput) — at `runs/:runId/stream?protocol=…`
 *   next to the POST URL (`POST /api/chat` or `/api/agui` → `GET /api/runs/:runId/stream?protocol=…`),
 *   which serves the run live or finished;
 * - else, for the AI SDK, `GET <url>/:chatId/stream` (the AI SDK's own reconnect URL; the chat id is
 *   the request body's `id`);
 * - anything else needs `resumeUrl`.
 */
import { type FrameId, parseFrameId, utf8Stream } from '@switchboard/core';
import type { ReadProtocol } from './read.ts';
import { HttpStatusError } from './read.ts';
import { createSseFrameParser, formatSseFrame, type SseFrame } from './sse.ts';

/** What a resume URL can be computed from. */
export interface ResumeContext {
  /** The URL of the first request. */
  url: string;
  /** The init of the first request. */
  init: RequestInit;
  /** The last SSE id received (sent as `Last-Event-ID`). */
  lastEventId: string | undefined;
  /** The chat id of the first request's JSON body (`id`), when it has one. */
  chatId: string | undefined;
  /** The run id: the response's `x-switchboard-run-id`, else the AG-UI RUN_STARTED's, else the AG-UI request body's `runId`. */
  runId: string | undefined;
  /** Frames delivered so far. */
  frames: number;
}

/** Details of a reconnect, for logging / UI ("reconnecting…"). */
export interface ReconnectInfo {
  /** 1 for the first retry after a failure, 2 for the next… (resets once frames flow again). */
  attempt: number;
  /** Reconnects so far, in total. */
  reconnects: number;
  lastEventId: string | undefined;
  /** Why: the read error, a failed reconnect's error, or `'ended'` for a stream that closed before its end. */
  reason: unknown;
  /** The wait before this attempt, in ms. */
  delayMs: number;
}

export interface ResumeOptions {
  /** The protocol of the stream: decides when it is complete and the default resume URL. */
  protocol?: ReadProtocol;
  /** Where to reconnect; a function gets the context (last id, chat id, run id). */
  resumeUrl?: string | URL | ((context: ResumeContext) => string | URL | undefined);
  /** The init of a reconnect (default: GET with the first request's headers, `Last-Event-ID` and the same signal). */
  resumeInit?: (context: ResumeContext) => RequestInit;
  /** Consecutive failed attempts before giving up (default 8). Delivered frames reset the count. */
  maxRetries?: number;
  /**
   * Delay before attempt `n` (1-based), in ms; `retryMs` is the server's SSE `retry:` field,
   * `retryAfterMs` the `Retry-After` of a 429 / 503 answer. Default: min(max(retryMs, 250) · 2ⁿ⁻¹, 10 s),
   * but never less than `retryAfterMs`.
   */
  backoff?: (attempt: number, retryMs: number | undefined, retryAfterMs: number | undefined) => number;
  /** How to wait (injectable: tests pass an immediate one). Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** When a frame ends the stream (default: per protocol, see `isTerminalFrame`). A clean close before it reconnects. */
  isTerminal?: (frame: SseFrame) => boolean;
  /** Told before each reconnect. */
  onReconnect?: (info: ReconnectInfo) => void;
}

/** Whether a frame is the last of its protocol's stream (a clean close before it means the stream was cut). */
export function isTerminalFrame(protocol: ReadProtocol | undefined, frame: SseFrame): boolean {
  if (protocol === 'ai-sdk') return frame.data === '[DONE]';
  const type = frameType(frame);
  switch (protocol) {
    case 'ag-ui':
      return type === 'RUN_FINISHED' || type === 'RUN_ERROR';
    case 'canonical':
      return type === 'run-finish' || type === 'run-abort';
    case 'ws':
      return type === 'complete';
    default:
      // No terminal frame known: a clean close ends the stream.
      return false;
  }
}

/** Protocols whose stream ends with a frame we recognise. */
const TERMINATED = new Set(['ai-sdk', 'ag-ui', 'canonical', 'ws']);

function frameType(frame: SseFrame): string | undefined {
  // Cheap check before parsing: every frame we care about has "type".
  if (frame.data.indexOf('"type"') === -1) return undefined;
  try {
    const v = JSON.parse(frame.data) as { type?: unknown };
    return typeof v?.type === 'string' ? v.type : undefined;
  } catch {
    return undefined;
  }
}

function compare(a: FrameId, b: FrameId): number {
  return a.seq !== b.seq ? a.seq - b.seq : a.index - b.index;
}

function defaultBackoff(attempt: number, retryMs: number | undefined, retryAfterMs: number | undefined): number {
  return Math.max(Math.min(Math.max(retryMs ?? 0, 250) * 2 ** (attempt - 1), 10_000), retryAfterMs ?? 0);
}

/** `Retry-After` in ms (seconds or an HTTP date), when there is one. */
function retryAfter(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function bodyJson(init: RequestInit): Record<string, unknown> | undefined {
  if (typeof init.body !== 'string') return undefined;
  try {
    const v = JSON.parse(init.body) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function trimSlash(url: string): string {
  const q = url.search(/[?#]/);
  const path = q === -1 ? url : url.slice(0, q);
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

const STREAM_PROTOCOLS = new Set(['ai-sdk', 'ag-ui', 'ws', 'dsagent', 'canonical']);

/** The default resume URL of a request (see the module comment), or undefined when there is none. */
export function defaultResumeUrl(protocol: ReadProtocol | undefined, context: ResumeContext): string | undefined {
  const method = (context.init.method ?? 'GET').toUpperCase();
  if (method === 'GET') return context.url;
  if (context.runId !== undefined && protocol !== undefined && STREAM_PROTOCOLS.has(protocol)) {
    const relative = `runs/${encodeURIComponent(context.runId)}/stream?protocol=${protocol}`;
    const path = trimSlash(context.url);
    try {
      return new URL(relative, path).href;
    } catch {
      // A relative request URL (no base): resolve against its own path.
      return `${path.slice(0, path.lastIndexOf('/') + 1)}${relative}`;
    }
  }
  if (protocol === 'ai-sdk' && context.chatId !== undefined)
    return `${trimSlash(context.url)}/${encodeURIComponent(context.chatId)}/stream`;
  return undefined;
}

function resumeHeaders(init: RequestInit, lastEventId: string | undefined): Headers {
  const headers = new Headers(init.headers);
  headers.delete('content-type');
  headers.delete('content-length');
  headers.set('accept', 'text/event-stream');
  if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
  else headers.delete('last-event-id');
  return headers;
}

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');

/** A resumable SSE stream: iterate it for the frames (each once, across reconnects). */
export interface ResumableEventStream extends AsyncIterable<SseFrame> {
  /** The first response (status and headers). */
  readonly response: Promise<Response>;
  /** The last SSE id received. */
  readonly lastEventId: string | undefined;
  /** Reconnections made so far. */
  readonly reconnects: number;
  /** The frames as an SSE byte stream (ids kept), for anything that reads a `Response` body. */
  body(): ReadableStream<Uint8Array>;
}

/**
 * Opens a resumable SSE stream. The first request starts at once (like `fetch`); iterate the result
 * for the frames. A non-2xx first response throws an `HttpStatusError` when iterated. Aborting
 * `init.signal` stops everything, waits included.
 *
 * @example
 * const stream = resumableFetch('/api/chat', { method: 'POST', body: JSON.stringify({ id: chatId, messages }) }, { protocol: 'ai-sdk' });
 * for await (const event of readStream(stream, 'ai-sdk')) acc.apply(event);
 */
export function resumableFetch(url: string | URL, init: RequestInit = {}, options: ResumeOptions = {}): ResumableEventStream {
  const href = String(url);
  const doFetch = options.fetch ?? ((u: string, i: RequestInit) => globalThis.fetch(u, i));
  const signal = init.signal ?? undefined;
  const protocol = options.protocol;
  const maxRetries = options.maxRetries ?? 8;
  const backoff = options.backoff ?? defaultBackoff;
  const sleep = options.sleep ?? defaultSleep;
  const terminal = options.isTerminal ?? ((frame: SseFrame) => isTerminalFrame(protocol, frame));
  const body = bodyJson(init);

  let lastEventId: string | undefined;
  let lastPos: FrameId | undefined;
  /** Id-less frames delivered since the last id. */
  let idless = 0;
  const foreignIds = new Set<string>();
  let reconnects = 0;
  let delivered = 0;
  /** The run: the server's header wins, then the stream's RUN_STARTED, then the request's own `runId`. */
  let headerRunId: string | undefined;
  let streamRunId: string | undefined;
  // AG-UI's RunAgentInput names its run (and the gateway uses it as the run id).
  const bodyRunId = protocol === 'ag-ui' && typeof body?.runId === 'string' ? body.runId : undefined;
  let retryMs: number | undefined;
  let done = false;

  const first = doFetch(href, init);
  first.catch(() => {});

  const context = (): ResumeContext => ({
    url: href,
    init,
    lastEventId,
    chatId: typeof body?.id === 'string' ? body.id : undefined,
    runId: headerRunId ?? streamRunId ?? bodyRunId,
    frames: delivered,
  });

  function resumeTarget(): string {
    const ctx = context();
    const custom = typeof options.resumeUrl === 'function' ? options.resumeUrl(ctx) : options.resumeUrl;
    const target = custom !== undefined ? String(custom) : defaultResumeUrl(protocol, ctx);
    if (target === undefined)
      throw new Error(
        `resumableFetch: the stream of ${init.method ?? 'GET'} ${href} was cut and there is no URL to resume it (pass options.resumeUrl)`,
      );
    return target;
  }

  function resumeRequest(): RequestInit {
    if (options.resumeInit) return options.resumeInit(context());
    const r: RequestInit = { method: 'GET', headers: resumeHeaders(init, lastEventId) };
    if (signal) r.signal = signal;
    if (init.credentials !== undefined) r.credentials = init.credentials;
    if (init.mode !== undefined) r.mode = init.mode;
    if (init.cache !== undefined) r.cache = init.cache;
    return r;
  }

  /** Per-connection alignment of what the server sends with what was already delivered. */
  function createAligner() {
    // start: nothing with an id seen yet on this connection (the server is positioned after Last-Event-ID);
    // behind: the last id seen on this connection is before the last delivered one;
    // at: it is the last delivered one; ahead: past it (new territory).
    let where: 'start' | 'behind' | 'at' | 'ahead' = 'start';
    let idlessHere = 0;
    return (frame: SseFrame): boolean => {
      if (frame.id === undefined || frame.id === '') {
        if (where === 'behind') return false;
        if (where === 'ahead') {
          idless++;
          return true;
        }
        idlessHere++;
        if (idlessHere <= idless) return false;
        idless++;
        return true;
      }
      const pos = parseFrameId(frame.id);
      if (!pos) {
        if (foreignIds.has(frame.id)) {
          where = 'at';
          idlessHere = 0;
          return false;
        }
        foreignIds.add(frame.id);
        where = 'ahead';
        lastEventId = frame.id;
        idless = 0;
        return true;
      }
      const c = lastPos ? compare(pos, lastPos) : 1;
      if (c < 0) {
        where = 'behind';
        return false;
      }
      if (c === 0) {
        where = 'at';
        idlessHere = 0;
        return false;
      }
      where = 'ahead';
      lastPos = pos;
      lastEventId = frame.id;
      idless = 0;
      return true;
    };
  }

  async function* frames(): AsyncGenerator<SseFrame> {
    let response: Response | undefined = await first;
    if (!response.ok) throw new HttpStatusError(response.status, response.statusText, await response.text().catch(() => ''));
    headerRunId = response.headers.get('x-switchboard-run-id') ?? undefined;
    let failures = 0;
    let reason: unknown;
    let retryAfterMs: number | undefined;
    while (true) {
      if (signal?.aborted) throw abortReason(signal);
      if (!response) {
        // Reconnect, after a wait.
        failures++;
        if (failures > maxRetries)
          throw reason instanceof Error ? reason : new Error(`resumableFetch: gave up after ${maxRetries} attempts (${String(reason)})`);
        const delayMs = backoff(failures, retryMs, retryAfterMs);
        retryAfterMs = undefined;
        reconnects++;
        options.onReconnect?.({ attempt: failures, reconnects, lastEventId, reason, delayMs });
        if (delayMs > 0) await sleep(delayMs, signal);
        if (signal?.aborted) throw abortReason(signal);
        try {
          response = await doFetch(resumeTarget(), resumeRequest());
        } catch (err) {
          if (signal?.aborted) throw abortReason(signal);
          if (err instanceof Error && err.message.startsWith('resumableFetch:')) throw err;
          reason = err;
          continue;
        }
        if (response.status === 204) return; // nothing left to resume
        if (!response.ok) {
          const error = new HttpStatusError(response.status, response.statusText, await response.text().catch(() => ''));
          if (response.status < 500 && response.status !== 408 && response.status !== 429) throw error;
          retryAfterMs = retryAfter(response);
          reason = error;
          response = undefined;
          continue;
        }
      }
      // Read one connection.
      const accept = createAligner();
      const queue: SseFrame[] = [];
      const parser = createSseFrameParser({
        frame: (f) => queue.push(f),
        retry: (ms) => {
          retryMs = ms;
        },
      });
      const decoder = new TextDecoder();
      const reader = response.body?.getReader();
      response = undefined;
      let progressed = false;
      try {
        if (reader) {
          while (true) {
            const { done: eof, value } = await reader.read();
            if (eof) break;
            parser.feed(decoder.decode(value, { stream: true }));
            for (const frame of queue) {
              if (!accept(frame)) continue;
              delivered++;
              progressed = true;
              if (protocol === 'ag-ui' && frame.data.indexOf('RUN_STARTED') !== -1) {
                try {
                  const v = JSON.parse(frame.data) as { type?: string; runId?: unknown };
                  if (v.type === 'RUN_STARTED' && typeof v.runId === 'string') streamRunId ??= v.runId;
                } catch {
                  // not JSON: not a RUN_STARTED
                }
              }
              if (terminal(frame)) done = true;
              yield frame;
            }
            queue.length = 0;
          }
        }
        // Clean end of this connection.
        if (done || (protocol !== undefined && !TERMINATED.has(protocol)) || (protocol === undefined && !options.isTerminal)) return;
        reason = 'ended';
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        if (done) return; // the stream was complete; only the close failed
        reason = err;
      } finally {
        reader?.cancel().catch(() => {});
      }
      if (progressed) failures = 0;
    }
  }

  let iterated = false;
  const stream: ResumableEventStream = {
    response: first,
    get lastEventId() {
      return lastEventId;
    },
    get reconnects() {
      return reconnects;
    },
    [Symbol.asyncIterator]() {
      if (iterated) throw new Error('resumableFetch: a stream can be iterated once');
      iterated = true;
      return frames();
    },
    body() {
      return utf8Stream(sseTextOf(stream[Symbol.asyncIterator]()));
    },
  };
  return stream;
}

/** The SSE text of frames, one string per frame; ending it ends the frames. */
async function* sseTextOf(frames: AsyncIterator<SseFrame>): AsyncGenerator<string> {
  try {
    for (;;) {
      const next = await frames.next();
      if (next.done) return;
      yield formatSseFrame(next.value);
    }
  } finally {
    await frames.return?.(undefined);
  }
}

/**
 * A `fetch`-compatible function whose SSE responses resume by themselves: hand it to anything that
 * takes a `fetch` (`@ag-ui/client`'s HttpAgent, the AI SDK's chat transport). A non-2xx first
 * response is returned as it is.
 *
 * @example
 * const transport = new DefaultChatTransport({ api: '/api/chat', fetch: createResumableFetch({ protocol: 'ai-sdk' }) });
 */
export function createResumableFetch(
  options: ResumeOptions = {},
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
    const stream = resumableFetch(url, init, options);
    const first = await stream.response;
    const type = first.headers.get('content-type') ?? '';
    if (!first.ok || !type.includes('text/event-stream')) return first;
    return new Response(stream.body(), { status: first.status, statusText: first.statusText, headers: first.headers });
  };
}
