/**
 * The live tap: a `fetch` wrapper for the chat transports that copies every SSE frame the page
 * receives, with its arrival time, into a list of live runs the inspector shows. Frames are kept as
 * their raw `data:` text and parsed only when the inspector looks at them, so tapping a 20,000-delta
 * stream costs one string per frame.
 */

import { createSseFrameParser } from '@switchboard/client';
import { useSyncExternalStore } from 'react';

import { paced } from '../lib/pacing.ts';
import type { Mode } from '../lib/types.ts';

export interface LiveFrame {
  /** ms since the request was sent. */
  t: number;
  /** The SSE `id:` field, when there was one. */
  id?: string;
  /** The `data:` payload. */
  data: string;
}

export interface LiveRun {
  key: number;
  chatId: string;
  protocol: Mode;
  /** ms since the epoch when the request was sent. */
  startedAt: number;
  status?: number;
  messageId?: string;
  runId?: string;
  frames: LiveFrame[];
  done: boolean;
  error?: string;
}

/** Stop copying frames past this many (the stream itself is not affected). */
const MAX_FRAMES = 250_000;

const runs: LiveRun[] = [];
const listeners = new Set<() => void>();
let version = 0;
let pending: ReturnType<typeof setTimeout> | undefined;
let nextKey = 1;

function notifyNow(): void {
  if (pending !== undefined) clearTimeout(pending);
  pending = undefined;
  version++;
  for (const l of listeners) l();
}

/** Listeners hear about new frames at most every 250 ms: the inspector must not cost the stream. */
function notifySoon(): void {
  if (pending === undefined) pending = setTimeout(notifyNow, 250);
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The live runs of this page, newest last; re-renders at most every 250 ms while one streams. */
export function useLiveRuns(): { runs: readonly LiveRun[]; version: number } {
  const v = useSyncExternalStore(subscribe, () => version);
  return { runs, version: v };
}

export function liveRunFor(messageId: string): LiveRun | undefined {
  return runs.findLast((r) => r.messageId === messageId);
}

export function latestLiveRun(chatId: string): LiveRun | undefined {
  return runs.findLast((r) => r.chatId === chatId);
}

function learn(run: LiveRun, data: string): void {
  // Only the first frames say who the run is; everything else stays unparsed.
  if (run.protocol === 'ai-sdk' && !run.messageId && data.startsWith('{"type":"start"')) {
    try {
      const chunk = JSON.parse(data) as { messageId?: string; messageMetadata?: { runId?: string } };
      run.messageId = chunk.messageId;
      if (typeof chunk.messageMetadata?.runId === 'string') run.runId = chunk.messageMetadata.runId;
    } catch {
      // a malformed frame: the inspector shows it as it came
    }
  } else if (run.protocol === 'ag-ui' && !run.messageId && data.includes('"RUN_STARTED"')) {
    try {
      const ev = JSON.parse(data) as { type?: string; runId?: string; metadata?: Record<string, { messageId?: string }> };
      if (ev.type === 'RUN_STARTED') {
        run.runId = ev.runId;
        for (const m of Object.values(ev.metadata ?? {})) if (typeof m?.messageId === 'string') run.messageId = m.messageId;
      }
    } catch {
      // as above
    }
  }
}

/** Reads an SSE body and records its frames into `run` (the SSE parser of @switchboard/client). */
async function record(run: LiveRun, body: ReadableStream<Uint8Array>, t0: number): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  const parser = createSseFrameParser({
    frame({ data, id }) {
      if (run.frames.length < MAX_FRAMES)
        run.frames.push(id === undefined ? { t: performance.now() - t0, data } : { t: performance.now() - t0, id, data });
      learn(run, data);
    },
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
      notifySoon();
    }
  } catch (err) {
    run.error = (err as Error).message;
  } finally {
    run.done = true;
    notifyNow();
  }
}

/**
 * A `fetch` for a chat transport that tees SSE responses into a new live run of `chatId`, and tells
 * `onRun` the run id the gateway answered with (`x-switchboard-run-id`).
 * Non-SSE responses (errors) are recorded by status only. The body is paced (lib/pacing.ts): a
 * fast stream is processed a slice per task, never in one long task.
 */
export function tappedFetch(chatId: string, protocol: Mode, onRun?: (runId: string | undefined) => void): typeof fetch {
  return async (input, init) => {
    const t0 = performance.now();
    const run: LiveRun = { key: nextKey++, chatId, protocol, startedAt: Date.now(), frames: [], done: false };
    runs.push(run);
    notifyNow();
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (err) {
      run.error = (err as Error).message;
      run.done = true;
      notifyNow();
      throw err;
    }
    run.status = res.status;
    // The gateway names the run in a header: Stop can abort it before any frame arrived.
    const runId = res.headers.get('x-switchboard-run-id') ?? undefined;
    if (runId) run.runId = runId;
    if (res.ok) onRun?.(runId);
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok || !res.body || !type.includes('text/event-stream')) {
      run.done = true;
      if (!res.ok) run.error = `HTTP ${res.status}`;
      notifyNow();
      return res;
    }
    const [mine, theirs] = paced(res.body).tee();
    void record(run, mine, t0);
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
