/**
 * The pump: a run's events from its agent into the store, split out of the run manager (runs.ts).
 */
import type { CanonicalEvent } from '@switchboard/core';
import { isTerminal, type Store, StoreError } from '@switchboard/store';

import type { AgentRun } from '../runner/types.ts';
import { type StartGate, settlesThisTurn } from './start-gate.ts';

/** Longest stretch the pump appends without letting other work run (ms). */
const PUMP_SLICE_MS = 10;
/** Most events in one append. */
const MAX_BATCH = 256;
/**
 * Events the pump takes from the agent ahead of the append in flight before it waits for it. A
 * fast agent's events then go in a few large appends, not many small ones: each append is a commit
 * entry, a wake of the run's tails and a write to each client's socket, and those cost more than
 * the events in them (at 1,000 clients, 128 instead of 32 halved the socket writes and cut the
 * gateway's CPU per event by ≈ 10–20%, docs/benchmarks.md). An agent slower than the store never
 * gets this far ahead.
 */
const AHEAD = 128;

/**
 * The waits before each retry of an append the store failed (ms): about 11 s in all, enough for a
 * database restart, a failover or a connection cut, after which the run goes on where it was
 * (appends are idempotent by seq, so a retry of a commit that did land is a no-op).
 */
export const APPEND_RETRY_MS: readonly number[] = [100, 200, 400, 800, 1600, 3200, 5000];

/** An append failure worth retrying: the store did not answer (not a rejection of the events). */
export function retryable(err: unknown): boolean {
  return !(err instanceof StoreError) || err.code === 'unavailable';
}

/** What a pump uses of its run manager. */
export interface PumpContext {
  store: Store;
  /** Runs starting: this run waits on it once its own start is over. */
  gate: StartGate;
  onError: (err: unknown) => void;
  /** The waits between append retries (default {@link APPEND_RETRY_MS}). */
  retryMs?: readonly number[];
  /** The store took neither the run's events nor its interruption: the run manager retries the end. */
  endNotStored: (runId: string, reason: string) => void;
}

/** Appends a batch, retrying while the store does not answer. */
async function appendWithRetry(ctx: PumpContext, batch: CanonicalEvent[]): Promise<void> {
  const waits = ctx.retryMs ?? APPEND_RETRY_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await ctx.store.append(batch);
      return;
    } catch (err) {
      if (attempt >= waits.length || !retryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, waits[attempt]));
    }
  }
}

/**
 * Appends every event of the run to the store; the run ends stored whatever happens. Appends are
 * pipelined: while one is committing, the next events are taken from the agent and go in the next
 * append as one batch (one transaction), so a busy store gets fewer, larger commits and an idle one
 * still writes each event at once. A store slower than the agent holds the agent back. Once its
 * first events are committed, or once its agent is found waiting for I/O (`firstCommit` is then
 * called: its start is no longer in flight), the run gives way to runs starting: it takes no page
 * while their starts are in flight (start-gate.ts), unless it is aborted. `done` is called last,
 * once the run's end is stored; the returned promise never rejects (failures go to `onError`).
 * An append the store fails is retried (APPEND_RETRY_MS); when the store still fails, the agent is
 * stopped and the run interrupted, and when even that cannot be stored the run manager is told
 * (`endNotStored`) and retries it until the store answers.
 */
export async function pump(
  ctx: PumpContext,
  runId: string,
  run: AgentRun,
  signal: AbortSignal,
  firstCommit: () => void,
  done: () => void,
): Promise<void> {
  let ended = false;
  let failure: { error: unknown } | undefined;
  const pending: CanonicalEvent[] = [];
  let writer: Promise<void> | undefined;
  let committed = false;
  const write = async (): Promise<void> => {
    while (pending.length > 0 && !failure) {
      const batch = pending.splice(0, MAX_BATCH);
      try {
        await appendWithRetry(ctx, batch);
        if (isTerminal(batch[batch.length - 1])) ended = true;
      } catch (error) {
        failure = { error };
      }
    }
    writer = undefined;
  };
  let slice = performance.now();
  // A page at a time (the events of one agent step or stdout chunk), from runners that give pages.
  const nextPage =
    run.nextPage?.bind(run) ??
    (async (): Promise<IteratorResult<CanonicalEvent[], undefined>> => {
      const r = await run.next();
      return r.done ? r : { done: false, value: [r.value] };
    });
  try {
    // The agent starts in the next turn of the event loop, not inside the request that started
    // it: a burst of requests is read (and its runs registered) before any agent's work, so no
    // request waits behind the runs started just before it.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      // Runs starting go first (start-gate.ts).
      const turn = committed ? ctx.gate.wait(signal) : undefined;
      if (turn) await turn;
      const next = nextPage();
      if (!committed && !(await settlesThisTurn(next))) firstCommit();
      const page = await next;
      if (page.done) break;
      if (failure) {
        await run.return?.();
        break;
      }
      for (const e of page.value) pending.push(e);
      writer ??= write();
      // Stay close to the store: a few events ahead of the commit in flight, no more (none before
      // the run's first commit: what its client's first byte waits for goes out before the agent
      // works on). An agent that never waits would otherwise run to its end before any event is
      // committed, and every other request (and its first byte) would wait behind it.
      if (pending.length >= AHEAD || !committed) {
        await writer;
        if (!committed) firstCommit();
        committed = true;
      }
      // An agent that never waits (and a store that answers in microtasks, like SQLite) would
      // starve the event loop: no request, no abort could get through. Let it breathe.
      if (performance.now() - slice > PUMP_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
    await writer;
    if (failure) throw failure.error;
  } catch (err) {
    ctx.onError(err);
    await run.return?.().catch(() => {});
  } finally {
    await writer;
    firstCommit();
    if (!ended) {
      const reason = failure
        ? `The run was interrupted: the store failed (${messageOf(failure.error)}).`
        : 'The run stopped before it finished.';
      await ctx.store.interruptRun(runId, reason).catch((err) => {
        ctx.onError(err);
        ctx.endNotStored(runId, reason);
      });
    }
    done();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
