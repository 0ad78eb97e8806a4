/**
 * Resume: a client that reconnects gets exactly what it is missing, no duplicate and no gap, while
 * the run is live or after it finished.
 *
 * SSE (`Last-Event-ID`): the run's log is re-encoded from its start with the same deterministic
 * encoder, and every frame up to the client's last id is dropped (`createSseEncoder(protocol,
 * { after })`); the store's live tail continues it. Ids are per frame (`seq`, `seq.k`), so a client
 * cut off between two frames of one event resumes at the second.
 *
 * WebSocket-style (last sequence number): the canonical events after that seq, then the live tail.
 */
import {
  type CanonicalEvent,
  createSseEncoder,
  type EncoderOptions,
  type Machine,
  PROTOCOLS,
  type Protocol,
  type ProtocolSpec,
  parseFrameId,
  utf8Stream,
} from '@switchboard/core';

import { type Run, type Store, StoreError, type TailOptions } from './store.ts';

/** The code a follower's error ending carries when the store fails under it (AG-UI `RUN_ERROR`, the ws `error`, the JSON error). */
export const STORE_FAULT_CODE = 'store_unavailable';

/**
 * A store read that failed under a follower, located: `store read failed: <reason>`. From
 * {@link resumeSse}, `ending` is the protocol's own error ending for the frames already produced
 * (AI SDK `error` + `finish` + `[DONE]`, AG-UI `RUN_ERROR`, …), as SSE text without ids: a client's
 * Last-Event-ID stays on the last stored frame it got, and it resumes from there once the store is back.
 */
export class StoreReadError extends StoreError {
  readonly ending: string;
  constructor(cause: unknown, ending = '') {
    super('unavailable', readFailure(cause), { cause });
    this.name = 'StoreReadError';
    this.ending = ending;
  }
}

function readFailure(cause: unknown): string {
  return `store read failed: ${cause instanceof Error ? cause.message : String(cause)}`;
}

function asReadError(err: unknown): StoreReadError {
  return err instanceof StoreReadError ? err : new StoreReadError(err);
}

/** A follower's store read: its failure as a {@link StoreReadError}. */
export async function storeRead<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (err) {
    throw asReadError(err);
  }
}

/** A follower's tail: a read that fails as a {@link StoreReadError}. */
export async function* storeReads<T>(tail: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* tail;
  } catch (err) {
    throw asReadError(err);
  }
}

export interface ResumeOptions extends EncoderOptions {
  /** Stops the stream (client gone): the iterator ends without the protocol's terminator. */
  signal?: AbortSignal;
}

/** Protocols whose encoder keeps no state across events: their re-encoding can start at the client's seq. */
const STATELESS = new Set<string>(['canonical']);

/** A store's tail a page at a time: its `tailPages`, or pages of one event from `tail` when it has none. */
export async function* tailPages(store: Store, runId: string, options: TailOptions = {}): AsyncGenerator<CanonicalEvent[]> {
  if (store.tailPages) {
    yield* store.tailPages(runId, options);
    return;
  }
  for await (const e of store.tail(runId, options)) yield [e];
}

/**
 * The SSE text of a run in a protocol, after `lastEventId` (the whole stream without one), then live
 * until the run ends, then the protocol's terminator. Concatenated with what the client already had,
 * it is byte for byte the uninterrupted stream, ids included. One string per page of the tail (the
 * frames of the events committed together), so a writer makes one write per commit. When a read of
 * the tail fails, it throws a {@link StoreReadError} carrying the protocol's error ending.
 *
 * @example
 * for await (const chunk of resumeSse(store, runId, 'ai-sdk', request.headers.get('last-event-id'))) write(chunk);
 */
export async function* resumeSse(
  store: Store,
  runId: string,
  protocol: Protocol,
  lastEventId?: string | null,
  options: ResumeOptions = {},
): AsyncGenerator<string> {
  if (!Object.hasOwn(PROTOCOLS, protocol)) throw new StoreError('invalid', `unknown protocol ${JSON.stringify(protocol)}`);
  const { signal, ...encoderOptions } = options;
  const after = lastEventId ? parseFrameId(lastEventId) : undefined;
  const encoder = createSseEncoder(protocol, { ...encoderOptions, ...(after ? { after: lastEventId as string } : {}) });
  const tailOptions: { after?: number; signal?: AbortSignal } = {};
  // A stateless encoder need not see the events before the client's seq (its frames would all be dropped).
  if (after && STATELESS.has(protocol)) tailOptions.after = after.seq - 1;
  if (signal) tailOptions.signal = signal;
  let ended = false;
  /** The seq of the last event encoded, or the client's (the error ending is numbered after both). */
  let lastSeq = after?.seq ?? -1;
  try {
    for await (const page of tailPages(store, runId, tailOptions)) {
      let text = '';
      for (const e of page) {
        for (const chunk of encoder.push(e)) text += chunk;
        if (e.type === 'run-finish' || e.type === 'run-abort') ended = true;
      }
      lastSeq = Math.max(lastSeq, page[page.length - 1].seq);
      if (ended) for (const chunk of encoder.end()) text += chunk;
      if (text) yield text;
    }
  } catch (err) {
    // Encoders do not throw: the tail did, the store failed under the stream.
    throw new StoreReadError(err, errorEnding(encoder, runId, lastSeq + 1, readFailure(err)));
  }
}

/**
 * The protocol's error ending after what `encoder` has encoded: a fatal `error` and a `run-finish`,
 * as an interrupted run ends. The store never held them, so their frames go without `id:`; numbered
 * from `seq` (after everything the client has), so the encoder's `after` keeps them.
 */
function errorEnding(encoder: Machine<CanonicalEvent, string>, runId: string, seq: number, message: string): string {
  const ts = Date.now();
  const events: CanonicalEvent[] = [
    { type: 'error', runId, seq, ts, code: STORE_FAULT_CODE, message, fatal: true },
    { type: 'run-finish', runId, seq: seq + 1, ts, finishReason: 'error', rawFinishReason: STORE_FAULT_CODE },
  ];
  let text = '';
  for (const e of events) for (const chunk of encoder.push(e)) text += chunk;
  for (const chunk of encoder.end()) text += chunk;
  return text.replace(/^id: .*\n/gm, '');
}

/**
 * Canonical events of a run after `afterSeq` (a WebSocket client's last sequenceNumber; -1 or
 * undefined for all), then live until the run ends.
 */
export function resumeEvents(
  store: Store,
  runId: string,
  afterSeq?: number,
  options: { signal?: AbortSignal } = {},
): AsyncIterable<CanonicalEvent> {
  const tailOptions: { after?: number; signal?: AbortSignal } = { after: afterSeq ?? -1 };
  if (options.signal) tailOptions.signal = options.signal;
  return store.tail(runId, tailOptions);
}

/** The latest run of a chat, if any. */
export async function latestRun(store: Store, chatId: string): Promise<Run | undefined> {
  return (await store.listRuns(chatId)).at(-1);
}

/** The run of a chat that is still streaming (its latest run, when running): what an AI SDK reconnect resumes. */
export async function activeRun(store: Store, chatId: string): Promise<Run | undefined> {
  const run = await latestRun(store, chatId);
  return run?.status === 'running' ? run : undefined;
}

/**
 * A web `Response` streaming {@link resumeSse} with the protocol's SSE headers (for the AI SDK:
 * `x-vercel-ai-ui-message-stream: v1`). Pull-based: a slow client never makes memory grow. A store
 * read that fails under it ends it with the protocol's error ending.
 */
export function resumeSseResponse(
  store: Store,
  runId: string,
  protocol: Protocol,
  lastEventId?: string | null,
  options: ResumeOptions & { headers?: Record<string, string> } = {},
): Response {
  const { headers, ...rest } = options;
  const ctl = new AbortController();
  const outer = rest.signal;
  outer?.addEventListener('abort', () => ctl.abort(), { once: true });
  // One chunk per page of the tail: the frames of the events committed together go out in one
  // socket write.
  const body = utf8Stream(endingOnFault(resumeSse(store, runId, protocol, lastEventId, { ...rest, signal: ctl.signal })), () =>
    ctl.abort(),
  );
  const spec: ProtocolSpec = PROTOCOLS[protocol];
  return new Response(body, { status: 200, headers: { ...spec.headers, ...headers } });
}

/** The stream, ended by the protocol's error ending when the store fails under it (the status is already 200). */
async function* endingOnFault(text: AsyncGenerator<string>): AsyncGenerator<string> {
  try {
    yield* text;
  } catch (err) {
    if (!(err instanceof StoreReadError)) throw err;
    yield err.ending;
  }
}
