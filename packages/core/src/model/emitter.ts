import type { CanonicalEvent, EventInit, EventOf } from './events.ts';
import { Waiting } from './pending.ts';
import { CANONICAL_VERSION } from './version.ts';

/** Options every decoder accepts. */
export interface DecoderOptions {
  /** Run id stamped on every event. Default: a random UUID. */
  runId?: string;
  /** Id of the assistant message the run produces. Default: the provider's message id, else the run id. */
  messageId?: string;
  /**
   * The run continues the earlier run's message `messageId` (after an approval, a client tool):
   * run-start says so (`continues: true`), and answers before its first step are for that message.
   */
  continues?: boolean;
  /** Chat (thread) the run belongs to. */
  chatId?: string;
  /** Agent name, recorded on run-start. */
  agent?: string;
  /** Clock for `ts`; inject a fixed one for deterministic output. Default: `Date.now`. */
  now?: () => number;
  /** Longest accepted input line / SSE buffer, in characters. Default: 16 MiB. */
  maxLineLength?: number;
  /** Force the input format of text/byte input instead of recognising it. */
  inputFormat?: 'sse' | 'jsonl';
  /**
   * Split `<think>…</think>` sections out of the text of any framework into reasoning (`true`), or
   * sections of another tag (`'thinking'` for `<thinking>…</thinking>`). For open models whose
   * reasoning arrives as tagged answer text. Default: off (the `think` framework always splits).
   */
  thinkTags?: boolean | string;
  /** Told once which format text/byte input is read as (`forced` when it came from `inputFormat`). */
  onInputFormat?: (format: 'sse' | 'jsonl', forced: boolean) => void;
}

/**
 * The clock of a decoder whose frames carry an ISO `timestamp` (the WebSocket and DSAgent readers):
 * while `at` handles a frame, `now` reads that frame's time (when it parses), else `clock`.
 */
export function frameClock(clock: () => number = Date.now): { now: () => number; at: (timestamp: unknown, handle: () => void) => void } {
  let frameTime: number | undefined;
  return {
    now: () => frameTime ?? clock(),
    at(timestamp, handle) {
      const t = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
      frameTime = Number.isFinite(t) ? t : undefined;
      try {
        handle();
      } finally {
        frameTime = undefined;
      }
    },
  };
}

/** Finish reasons a run that ends waiting replaces (a failed or cut-off run keeps its own). */
const WAITS: ReadonlySet<string> = new Set(['stop', 'tool-calls', 'other']);

export type RunStartInit = Partial<Omit<EventOf<'run-start'>, 'type' | 'runId' | 'seq' | 'ts' | 'version'>>;

/**
 * Stamps `runId`, `seq` and `ts` on the events a decoder builds, makes sure `run-start` comes first
 * and nothing follows `run-finish`. Decoders collect into it and `take()` after each push.
 * A run-finish that does not say what the run waits for gets it from the run's events (approvals,
 * client tool calls, interrupts left unanswered: `pending`, finishReason `tool-calls` / `other`),
 * unless the run failed.
 */
export class Emitter {
  readonly runId: string;
  private seq = 0;
  private out: CanonicalEvent[] = [];
  private readonly now: () => number;
  started = false;
  finished = false;
  /** What the run asked for and has not had answered. */
  readonly waiting = new Waiting();

  private readonly options: DecoderOptions;
  private readonly provider: string;

  constructor(options: DecoderOptions, provider: string) {
    this.options = options;
    this.provider = provider;
    this.runId = options.runId ?? crypto.randomUUID();
    this.now = options.now ?? Date.now;
  }

  /** Emits run-start (once). Later calls are ignored. */
  start(init: RunStartInit = {}): void {
    if (this.started) return;
    this.started = true;
    const o = this.options;
    const e: EventInit = {
      type: 'run-start',
      version: CANONICAL_VERSION,
      ...init,
      messageId: o.messageId ?? init.messageId ?? this.runId,
      provider: init.provider ?? this.provider,
    };
    if (o.continues) e.continues = true;
    if (o.chatId !== undefined) e.chatId = o.chatId;
    if (o.agent !== undefined) e.agent = o.agent;
    this.stamp(e);
  }

  /** Emits one event, starting the run first if needed. Dropped once the run has finished. */
  emit(e: EventInit): void {
    if (this.finished) return;
    if (!this.started) this.start();
    if (e.type === 'run-finish' || e.type === 'run-abort') this.finished = true;
    this.waiting.track(e);
    if (e.type === 'run-finish' && e.pending === undefined && !this.waiting.empty && WAITS.has(e.finishReason)) {
      e.pending = this.waiting.pending;
      e.finishReason = this.waiting.finishReason ?? e.finishReason;
    }
    this.stamp(e);
  }

  private stamp(e: EventInit): void {
    const ev = e as CanonicalEvent;
    ev.runId = this.runId;
    ev.seq = this.seq++;
    ev.ts = this.now();
    this.out.push(ev);
  }

  /** Returns the events emitted since the last call. */
  take(): CanonicalEvent[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}
