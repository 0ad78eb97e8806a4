/**
 * Following a WebSocket session (a chat) as the WebSocket contract's `agent:event` frames: every
 * run of the chat, oldest first, encoded by the ws encoder from the store's log, then live, then
 * the next run as soon as it starts.
 *
 * Numbering (deterministic, so a reconnecting client can say where it stopped):
 * - `sequenceNumber` = the event's `seq` in its run plus the number of events of the chat's earlier
 *   runs, so it increases strictly across the whole session (runs of a chat never overlap: a new run
 *   supersedes the one in progress);
 * - `eventIndex` = the frame's index in the session (frames of earlier runs counted);
 * - `eventId` = `<runId>:<seq>` for an event's first frame, `<runId>:<seq>.<k>` for its k-th further one.
 *
 * A client resumes with `lastSequenceNumber` (the contract's resume: the frames of events after it;
 * transient chunk frames of those events it may already have come again, with the same eventId) or,
 * exactly, with `lastEventId` (every frame after that one, nothing twice).
 */
import { type CanonicalEvent, createWsEncoder, type WsEvent } from '@switchboard/core';
import { isTerminal, type Run, type Store, storeRead, storeReads } from '@switchboard/store';

import { canSee, type Principal } from './auth.ts';
import type { RunManager } from './runs.ts';

/** Where a subscriber stopped. */
export interface SessionPosition {
  /** The last session sequenceNumber received (-1: nothing). */
  lastSequenceNumber?: number;
  /** The eventId of the last frame received (`<runId>:<seq>` or `<runId>:<seq>.<k>`). */
  lastEventId?: string;
}

/** Why following a session stopped early. */
export class SessionError extends Error {
  readonly code: 'not_found' | 'bad_position' | 'deleted';
  constructor(code: 'not_found' | 'bad_position' | 'deleted', message: string) {
    super(message);
    this.name = 'SessionError';
    this.code = code;
  }
}

/** Frame counts of finished runs (the eventIndex of later runs), shared by every follower. */
export class FrameCounts {
  private readonly counts = new Map<string, number>();
  private readonly max: number;
  constructor(max = 10_000) {
    this.max = max;
  }
  get(runId: string): number | undefined {
    return this.counts.get(runId);
  }
  set(runId: string, count: number): void {
    if (this.counts.size >= this.max) this.counts.clear();
    this.counts.set(runId, count);
  }
}

/** Parses `<runId>:<seq>[.<k>]`. */
export function parseEventId(id: string): { runId: string; seq: number; index: number } | undefined {
  const colon = id.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(id.slice(colon + 1));
  if (!m) return undefined;
  return { runId: id.slice(0, colon), seq: Number(m[1]), index: m[2] === undefined ? 0 : Number(m[2]) };
}

/** What `followSession` needs. */
export interface FollowOptions {
  store: Store;
  runs: RunManager;
  frameCounts: FrameCounts;
  chatId: string;
  principal: Principal;
  position?: SessionPosition;
  /** Sends one frame; may wait (backpressure). */
  send: (frame: WsEvent) => void | Promise<void>;
  /** Ends the subscription. */
  signal: AbortSignal;
  /** Re-check of the chat's runs when no notification came (ms, default 2000). */
  pollIntervalMs?: number;
}

/** Events of a chat's runs before the chat's end: the session's next sequence number. */
export function sessionLength(runs: readonly Run[]): number {
  return runs.reduce((n, r) => n + r.lastSeq + 1, 0);
}

/**
 * Sends the session's frames after `position`, then live, until `signal` aborts.
 * @throws SessionError when the chat is not visible, is deleted, or the position names no frame of it;
 *   StoreReadError when a store read fails (the client resumes from its last frame once the store is back).
 */
export async function followSession(options: FollowOptions): Promise<void> {
  const { store, runs, frameCounts, chatId, principal, send, signal } = options;
  const poll = options.pollIntervalMs ?? 2000;
  const afterSeqNo = options.position?.lastSequenceNumber ?? -1;
  const afterId = options.position?.lastEventId ? parseEventId(options.position.lastEventId) : undefined;
  if (options.position?.lastEventId && !afterId)
    throw new SessionError('bad_position', `lastEventId ${JSON.stringify(options.position.lastEventId)} is not "<runId>:<seq>[.<k>]"`);

  const watch = await runs.watchChat(chatId);
  try {
    let next = 0; // index of the next run to send
    let offset = 0; // events of the runs before it
    let eventIndex = 0; // frames of the runs before it
    let afterRun = -1; // index of lastEventId's run, once found
    let seenChat = false;
    for (;;) {
      if (signal.aborted) return;
      const seen = watch.signal.version;
      const chat = await storeRead(store.getChat(chatId));
      if (chat && !canSee(principal, chat)) throw new SessionError('not_found', `No session ${chatId}`);
      if (!chat && seenChat) throw new SessionError('deleted', `Session ${chatId} was deleted`);
      if (chat) seenChat = true;
      const list = chat ? await storeRead(store.listRuns(chatId)) : [];
      if (list.length < next) throw new SessionError('deleted', `Session ${chatId} was deleted`);
      if (afterId && afterRun < 0) {
        // The client had frames of that run, so it is stored.
        afterRun = list.findIndex((r) => r.id === afterId.runId);
        if (afterRun < 0)
          throw new SessionError('bad_position', `lastEventId names run ${afterId.runId}, which is not in session ${chatId}`);
      }
      while (next < list.length) {
        if (signal.aborted) return;
        const run = list[next];
        const k = next;
        // Frames of this event: are they after the position?
        const after = (e: CanonicalEvent, i: number): boolean => {
          if (afterId) {
            if (k !== afterRun) return k > afterRun;
            return e.seq > afterId.seq || (e.seq === afterId.seq && i > afterId.index);
          }
          return offset + e.seq > afterSeqNo;
        };
        // A finished run wholly before the position: counted, not read.
        const cached = frameCounts.get(run.id);
        const before = afterId ? k < afterRun : offset + run.lastSeq <= afterSeqNo;
        if (run.status !== 'running' && before && cached !== undefined) {
          eventIndex += cached;
          offset += run.lastSeq + 1;
          next++;
          continue;
        }
        const base = offset;
        const encoder = createWsEncoder({ sessionId: chatId, sequenceNumber: (e) => base + e.seq, firstEventIndex: eventIndex });
        let count = 0;
        let lastSeq = -1;
        let ended = false;
        const emit = async (e: CanonicalEvent, frames: WsEvent[]) => {
          for (let i = 0; i < frames.length; i++) {
            count++;
            if (after(e, i)) await send(frames[i]);
          }
        };
        for await (const e of storeReads(store.tail(run.id, { signal }))) {
          lastSeq = e.seq;
          await emit(e, encoder.push(e));
          if (isTerminal(e)) ended = true;
        }
        if (!ended) return; // aborted (a finished run's tail always ends with its terminal event)
        const last = { seq: lastSeq + 1 } as CanonicalEvent;
        const tailFrames = encoder.end();
        for (const f of tailFrames) {
          count++;
          if (after(last, 0)) await send(f);
        }
        frameCounts.set(run.id, count);
        eventIndex += count;
        offset += lastSeq + 1;
        next++;
      }
      await watch.signal.wait(seen, signal, poll);
    }
  } finally {
    await watch.release();
  }
}
