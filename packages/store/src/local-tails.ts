/**
 * The tails of one store process: the signals they wait on, the events just committed here (so a
 * local tail need not read them back) and the abort controllers that stop them on close. Apart from
 * `BaseStore` (store.ts), which stays under the 400-line limit of scripts/check-function-length.ts.
 */
import type { CanonicalEvent } from '@switchboard/core';
import { StoreError } from './errors.ts';
import { isTerminal } from './projection.ts';

/** Events read from a backend at once. */
export const READ_PAGE = 1000;
/** Most events of a run kept for the local tails (see `remember`). */
const RECENT_EVENTS = 4096;

/** The page up to and including its first terminal event (nothing follows one in a log; a tail stops there). */
export function upToTerminal(page: CanonicalEvent[]): CanonicalEvent[] {
  for (let i = 0; i < page.length - 1; i++) if (isTerminal(page[i])) return page.slice(0, i + 1);
  return page;
}

/** A version counter tails wait on. */
class Signal {
  version = 0;
  private waiters: (() => void)[] = [];
  refs = 0;

  bump(): void {
    this.version++;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves when the version moves past `seen`, the signal aborts, or after `ms`. */
  wait(seen: number, signal: AbortSignal | undefined, ms: number): Promise<void> {
    if (this.version !== seen || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref?.();
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.push(done);
    });
  }
}

/** What a tail reads through: the backend's log and run rows, and the store's state. */
export interface TailSource {
  readEvents(runId: string, after: number, limit: number | undefined): Promise<CanonicalEvent[]>;
  getRun(runId: string): Promise<{ status: string; lastSeq: number } | undefined>;
  closed(): boolean;
  readonly pollIntervalMs: number;
  /** True for a run this process has just started and not appended to yet (nothing to read but what its first commit wakes the tail with). */
  fresh?(runId: string): boolean;
}

/** The local tails of a store (see the module comment). */
export class LocalTails {
  private readonly signals = new Map<string, Signal>();
  private readonly aborts = new Set<AbortController>();
  private readonly recent = new Map<string, { from: number; events: CanonicalEvent[]; ended: boolean }>();

  /**
   * Generic tail, a page at a time: read after the last seq, wait for a notification (or the poll
   * interval), repeat. A page is what one read (or one commit here) gave, cut after a terminal event.
   */
  async *follow(runId: string, options: { after?: number; signal?: AbortSignal }, src: TailSource): AsyncGenerator<CanonicalEvent[]> {
    const signal = this.subscribe(runId);
    const stop = this.stopper(options.signal);
    try {
      let last = options.after ?? -1;
      // A run started here and not appended to yet has nothing to read: its first commit wakes the
      // tail (two reads saved per follower of a new run; another writer is still seen at the poll).
      let first = src.fresh?.(runId) === true;
      for (;;) {
        if (stop.signal.aborted || src.closed()) return;
        const seen = signal.version;
        const cached = this.recalled(runId, last);
        if (first && cached === undefined) {
          first = false;
          await signal.wait(seen, stop.signal, src.pollIntervalMs);
          continue;
        }
        first = false;
        const page = cached ?? (await src.readEvents(runId, last, READ_PAGE));
        if (page.length > 0) {
          const out = upToTerminal(page);
          last = out[out.length - 1].seq;
          yield out;
          if (isTerminal(out[out.length - 1])) return;
        }
        if (page.length === READ_PAGE) continue;
        if (page.length > 0 && cached && !this.recent.get(runId)?.ended && page.length < READ_PAGE) {
          // All this process has committed is out, and the run goes on: wait for the next commit
          // (a wake-up with nothing remembered — another writer, the poll — reads the database).
          await signal.wait(seen, stop.signal, src.pollIntervalMs);
          continue;
        }
        if (cached && page.length === 0) {
          const fresh = await src.readEvents(runId, last, READ_PAGE);
          if (fresh.length > 0) {
            const out = upToTerminal(fresh);
            last = out[out.length - 1].seq;
            yield out;
            if (isTerminal(out[out.length - 1])) return;
            continue;
          }
        }
        if (page.length === 0) {
          const run = await src.getRun(runId);
          if (!run) throw new StoreError('not_found', `no run ${runId}`);
          if (run.status !== 'running' && run.lastSeq <= last) return;
          await signal.wait(seen, stop.signal, src.pollIntervalMs);
        }
      }
    } finally {
      stop.dispose();
      this.unsubscribe(runId);
    }
  }

  /** An AbortController that follows `outer` and the store's close. */
  stopper(outer: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    if (outer?.aborted) ctl.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    this.aborts.add(ctl);
    return {
      signal: ctl.signal,
      dispose: () => {
        outer?.removeEventListener('abort', onAbort);
        this.aborts.delete(ctl);
      },
    };
  }

  private subscribe(runId: string): Signal {
    let s = this.signals.get(runId);
    if (!s) {
      s = new Signal();
      this.signals.set(runId, s);
    }
    s.refs++;
    return s;
  }

  private unsubscribe(runId: string): void {
    const s = this.signals.get(runId);
    if (s && --s.refs <= 0) {
      this.signals.delete(runId);
      if (this.recent.get(runId)?.ended) this.recent.delete(runId);
    }
  }

  /**
   * Keeps the events this process has just committed to a run, so that its local tails get them
   * without reading the database (they are committed already: acknowledged = durable still holds).
   * Parsed from the stored JSON text, so a tail yields exactly what a read would. Only a
   * contiguous stretch is kept (another writer's events in between restart it), at most
   * RECENT_EVENTS; a finished run's stretch goes with its last local tail.
   */
  remember(runId: string, rows: readonly { seq: number; json: string }[], ended: boolean): void {
    const first = rows[0]?.seq;
    if (first === undefined) return;
    // A finished run's stretch goes with its last local tail: with none, there is nothing to keep.
    if (ended && !this.signals.has(runId)) {
      this.recent.delete(runId);
      return;
    }
    let entry = this.recent.get(runId);
    if (!entry || entry.from + entry.events.length !== first) {
      entry = { from: first, events: [], ended: false };
      this.recent.set(runId, entry);
    }
    for (const r of rows) entry.events.push(JSON.parse(r.json) as CanonicalEvent);
    if (entry.events.length > RECENT_EVENTS) {
      const drop = entry.events.length - RECENT_EVENTS;
      entry.events.splice(0, drop);
      entry.from += drop;
    }
    entry.ended = ended;
  }

  /** The remembered events of a run after `after` (a page), or undefined when they are not all remembered. */
  private recalled(runId: string, after: number): CanonicalEvent[] | undefined {
    const entry = this.recent.get(runId);
    if (!entry || after + 1 < entry.from) return undefined;
    const at = after + 1 - entry.from;
    if (at > entry.events.length) return undefined;
    return entry.events.slice(at, at + READ_PAGE);
  }

  /** Wakes the tails of a run. */
  wake(runId: string): void {
    this.signals.get(runId)?.bump();
  }

  /** Run ids some tail is waiting on. */
  watched(): string[] {
    return [...this.signals.keys()];
  }

  /** A deleted run: its remembered events go and its tails wake (to find it gone). */
  forget(runId: string): void {
    this.recent.delete(runId);
    this.signals.get(runId)?.bump();
  }

  /** The store closes: every tail stops. */
  close(): void {
    for (const a of this.aborts) a.abort();
    for (const s of this.signals.values()) s.bump();
  }
}
