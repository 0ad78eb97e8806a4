/**
 * `recordRun`: persist a live run while it is served. Each event is appended before it is passed
 * on, so whatever a client has seen is in the log (a resume never asks for an event the store does
 * not have yet).
 */
import type { CanonicalEvent } from '@switchboard/core';

import { isTerminal } from './projection.ts';
import type { StartRunInit, Store } from './store.ts';

export interface RecordOptions {
  /**
   * What to do when the events stop before run-finish / run-abort (the source threw, or the
   * consumer stopped iterating): `interrupt` (default) closes the run with an `interrupted` error
   * so its message is persisted; `leave` keeps it running (someone else will finish it).
   */
  onIncomplete?: 'interrupt' | 'leave';
}

/**
 * Starts the run (and stores its user message), then appends every event of `events` and yields it.
 *
 * @example
 * const events = recordRun(store, { chatId, runId, userMessage: { id, content } }, decode(agent, 'claude', { runId, chatId }));
 * return createSseResponse(events, 'ai-sdk');
 */
export async function* recordRun(
  store: Store,
  init: StartRunInit,
  events: AsyncIterable<CanonicalEvent> | Iterable<CanonicalEvent>,
  options: RecordOptions = {},
): AsyncGenerator<CanonicalEvent> {
  await store.startRun(init);
  let ended = false;
  try {
    for await (const e of events as AsyncIterable<CanonicalEvent>) {
      await store.append(e);
      if (isTerminal(e)) ended = true;
      yield e;
    }
  } finally {
    if (!ended && (options.onIncomplete ?? 'interrupt') === 'interrupt') {
      await store.interruptRun(init.runId, 'The run stopped before it finished.').catch(() => {});
    }
  }
}
