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
  PROTOCOLS,
  type Protocol,
  type ProtocolSpec,
  parseFrameId,
  utf8Stream,
} from '@switchboard/core';

import { type Run, type Store, StoreError, type TailOptions } from './store.ts';

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
 * frames of the events committed together), so a writer makes one write per commit.
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
  for await (const page of tailPages(store, runId, tailOptions)) {
    let text = '';
    for (const e of page) {
      for (const chunk of encoder.push(e)) text += chunk;
      if (e.type === 'run-finish' || e.type === 'run-abort') ended = true;
    }
    if (ended) for (const chunk of encoder.end()) text += chunk;
    if (text) yield text;
  }
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
 * `x-vercel-ai-ui-message-stream: v1`). Pull-based: a slow client never makes memory grow.
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
  const body = utf8Stream(resumeSse(store, runId, protocol, lastEventId, { ...rest, signal: ctl.signal }), () => ctl.abort());
  const spec: ProtocolSpec = PROTOCOLS[protocol];
  return new Response(body, { status: 200, headers: { ...spec.headers, ...headers } });
}
