/**
 * What a run's events say about its message as a whole — status, model, usage, stop reason, duration,
 * the error that ended it — folded in one place: the store's projection keeps it with the persisted
 * message, history reloads it as `metadata[namespace]`, and the AI SDK encoder sends the same value live
 * (`messageMetadata` on `start` / `finish`), so the message a client holds equals the one it reloads.
 */
import type { CanonicalEvent, EventOf, FinishReason, Json, JsonObject, Usage } from './events.ts';
import { addUsage } from './usage.ts';

/** Where a run's message stands: still streaming, or how its run ended. */
export type RunMessageStatus = 'streaming' | 'complete' | 'error' | 'aborted';

/** The summary fields of a message as history shows them under `metadata[namespace]`. */
export interface MessageSummary {
  runId: string;
  /** `pending` while the run streams, `persisted` once it ended (see the store's message lifecycle). */
  persistenceState: string;
  status: RunMessageStatus;
  model?: string;
  usage?: Usage;
  stopReason?: FinishReason;
  durationMs?: number;
  error?: { message: string; code?: string };
}

/** The `metadata[namespace]` object of an assistant message (one shape, live and reloaded). */
export function messageSummaryMetadata(s: MessageSummary): JsonObject {
  const out: JsonObject = { runId: s.runId, persistenceState: s.persistenceState, status: s.status };
  if (s.model !== undefined) out.model = s.model;
  if (s.usage !== undefined) out.usage = s.usage as Json;
  if (s.stopReason !== undefined) out.stopReason = s.stopReason;
  if (s.durationMs !== undefined) out.durationMs = s.durationMs;
  if (s.error !== undefined) out.error = { message: s.error.message, ...(s.error.code !== undefined ? { code: s.error.code } : {}) };
  return out;
}

/** Folds a run's events, in order, into its summary. Events after the run ended are ignored. */
export class RunSummary {
  start: EventOf<'run-start'> | undefined;
  closed: EventOf<'run-finish'> | EventOf<'run-abort'> | undefined;
  runId: string | undefined;
  firstTs: number | undefined;
  lastTs: number | undefined;
  model: string | undefined;
  private finishUsage: Usage | undefined;
  private totalUsage: Usage | undefined;
  private summedUsage: Usage | undefined;
  private fatal: EventOf<'error'> | undefined;
  private lastError: EventOf<'error'> | undefined;

  apply(e: CanonicalEvent): void {
    if (this.closed) return;
    this.runId ??= e.runId;
    this.firstTs ??= e.ts;
    this.lastTs = e.ts;
    switch (e.type) {
      case 'run-start':
        this.start ??= e;
        this.model ??= e.model;
        return;
      case 'run-finish':
      case 'run-abort':
        this.closed = e;
        if (e.type === 'run-finish' && e.usage) this.finishUsage = e.usage;
        return;
      case 'step-start':
        if (e.model !== undefined) this.model ??= e.model;
        return;
      case 'step-finish':
        if (e.usage && e.subagentId === undefined) this.summedUsage = addUsage(this.summedUsage, e.usage);
        return;
      case 'usage':
        if (e.subagentId !== undefined) return;
        if (e.scope === 'total') this.totalUsage = e.usage;
        else this.summedUsage = addUsage(this.summedUsage, e.usage);
        return;
      case 'error':
        if (e.fatal) this.fatal ??= e;
        this.lastError = e;
        return;
      default:
        return;
    }
  }

  /** The run's usage: its run-finish's, else the last total, else the sum of its steps. */
  get usage(): Usage | undefined {
    return this.finishUsage ?? this.totalUsage ?? this.summedUsage;
  }

  get status(): RunMessageStatus {
    const closed = this.closed;
    if (closed?.type === 'run-abort') return 'aborted';
    if (closed) return closed.finishReason === 'error' ? 'error' : 'complete';
    return 'streaming';
  }

  /** The error the message shows: the first fatal one, else (a run that ended in error) the last. */
  get error(): EventOf<'error'> | undefined {
    return this.fatal ?? (this.status === 'error' ? this.lastError : undefined);
  }

  /** `ts` of run-start, else of the first event. */
  get startedAt(): number | undefined {
    return this.start?.ts ?? this.firstTs;
  }

  get durationMs(): number | undefined {
    const started = this.startedAt;
    return started === undefined ? undefined : (this.lastTs ?? started) - started;
  }

  /** The summary as history will show it, with this persistence state. */
  summary(persistenceState: string): MessageSummary {
    const out: MessageSummary = { runId: this.runId ?? '', persistenceState, status: this.status };
    if (this.model !== undefined) out.model = this.model;
    const usage = this.usage;
    if (usage) out.usage = usage;
    if (this.closed?.type === 'run-finish') out.stopReason = this.closed.finishReason;
    const duration = this.durationMs;
    if (duration !== undefined) out.durationMs = duration;
    const error = this.error;
    if (error) out.error = { message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) };
    return out;
  }
}
