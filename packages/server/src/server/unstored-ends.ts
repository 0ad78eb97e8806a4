/**
 * The runs that ended on this instance but whose end the store did not take: the store failed as
 * they ended, so neither their last events nor their interruption are stored, and the store still
 * says `running`. Kept in memory and stored as soon as the store answers — every time `storeAll` is
 * called (the run manager's lease tick; with no leases, a timer of its own), and at once for one run
 * by `store` (a new message in its chat, an abort). Nothing is lost that a client saw: clients read
 * only what the store holds.
 */
import type { Store } from '@switchboard/store';

export class UnstoredEnds {
  /** run id → its chat and the reason its interruption will carry. */
  private readonly pending = new Map<string, { chatId: string; reason: string }>();
  private readonly storeRef: Store;
  /** Told once a run's end is stored (the chat's waiters re-read it). */
  private readonly onStored: (chatId: string) => void;
  /** With no lease tick to call `storeAll`, how often a timer does (ms); undefined: the caller ticks. */
  private readonly retryMs: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(store: Store, onStored: (chatId: string) => void, retryMs: number | undefined) {
    this.storeRef = store;
    this.onStored = onStored;
    this.retryMs = retryMs;
  }

  /** The store took neither a run's events nor its interruption: keep it until it does. */
  add(runId: string, chatId: string, reason: string): void {
    this.pending.set(runId, { chatId, reason });
    if (this.retryMs !== undefined && !this.timer && !this.closed) {
      this.timer = setInterval(() => void this.storeAll(), this.retryMs);
      this.timer.unref();
    }
  }

  has(runId: string): boolean {
    return this.pending.has(runId);
  }

  /** The runs whose end is not stored yet. */
  get ids(): readonly string[] {
    return [...this.pending.keys()];
  }

  /** Stores one run's interruption; true once it is stored (or was not pending). */
  async store(runId: string): Promise<boolean> {
    const end = this.pending.get(runId);
    if (!end) return true;
    try {
      await this.storeRef.interruptRun(runId, end.reason);
    } catch {
      return false;
    }
    this.pending.delete(runId);
    if (end.chatId) this.onStored(end.chatId);
    if (this.pending.size === 0) this.stopTimer();
    return true;
  }

  /** Stores every pending end, in order, until the store fails again (the next call goes on). */
  async storeAll(): Promise<void> {
    for (const runId of this.ids) if (!(await this.store(runId))) return;
  }

  close(): void {
    this.closed = true;
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
