/**
 * The message accumulator: canonical events of one run → its assistant message, as core's message fold
 * (`createMessageFold`) builds it — the same message the store persists and history serves, so a live
 * message and a reloaded one are equal. The accumulator adds only a receipt clock (`now`, stamping
 * `receivedAt` on timed parts: the base of a live timer on the client's own clock) and keeps to one run.
 *
 * Linear: `apply(event)` is O(1) amortised; reading `acc.message` joins only what arrived since the
 * previous read and rebuilds only the parts that changed (the others keep their identity); a streaming
 * tool input is parsed (partial JSON) only when a part's `input` is read, at most once per length.
 * Duplicate events (same or lower `seq`, as a resumed stream may repeat) are ignored.
 */
import {
  type AssistantMessage,
  type CanonicalEvent,
  createMessageFold,
  createWorkCounter,
  type DataPart,
  type ErrorInfo,
  elapsedMs as elapsedSince,
  type MessagePart,
  type StepStartPart,
  type WorkCounter,
} from '@switchboard/core';

export type {
  DataPart,
  ErrorInfo,
  FilePart,
  MessagePart,
  MessageStatus,
  ReasoningPart,
  SourcePart,
  StepInfo,
  StepStartPart,
  SubagentInfo,
  TextPart,
  ToolApproval,
  ToolPart,
  ToolState,
} from '@switchboard/core';
/** Merges providerMetadata per provider key (core's, re-exported). */
export { mergeProviderMetadata } from '@switchboard/core';

/** One ordered block of the message: core's message part. */
export type UiPart = MessagePart;
/** The assistant message of one run: core's fold snapshot. Immutable: a later read returns a new object when anything changed. */
export type AccumulatedMessage = AssistantMessage;
/** A step's start part (the step's timing and finish are in `metadata.steps`). */
export type StepPart = StepStartPart;
/** Todos, subagents, usage, state and custom events are data parts (`name` says which). */
export type TodosPart = DataPart;
export type SubagentPart = DataPart;
export type CustomPart = DataPart;
/** An error of the run (`metadata.errors`). */
export type ErrorPart = ErrorInfo;

export interface MessageAccumulatorOptions {
  /** The receipt clock: stamps `receivedAt` on timed parts, the base of live timers (default `Date.now`). */
  now?: () => number;
  /** Counts string work (tests, benchmarks). */
  work?: WorkCounter;
}

export interface MessageAccumulator {
  /** Applies one event; returns false when it was ignored (a duplicate, another run, or after the end). */
  apply(event: CanonicalEvent): boolean;
  /** Applies events in order. */
  applyAll(events: Iterable<CanonicalEvent>): this;
  /** The message as of the last event (the fold's snapshot). The same object until something changes. */
  readonly message: AccumulatedMessage;
  /** Increments on every applied event (cheap change detection, e.g. for useSyncExternalStore). */
  readonly version: number;
  /** The string work done so far. */
  readonly work: WorkCounter;
}

/** How long a timed part has run: its final duration, else (live) the client time since it was received (core's `elapsedMs`, `now` defaulting to the clock). */
export function elapsedMs(part: { durationMs?: number; receivedAt?: number; startedAt: number }, now: number = Date.now()): number {
  return elapsedSince(part, now);
}

/**
 * Creates a message accumulator for one run: the first event's run; events of other runs are ignored.
 *
 * @example
 * const acc = createMessageAccumulator();
 * for await (const event of readStream(response, 'ai-sdk')) {
 *   acc.apply(event);
 *   scheduleRender(); // render reads acc.message once per frame
 * }
 */
export function createMessageAccumulator(options: MessageAccumulatorOptions = {}): MessageAccumulator {
  const work = options.work ?? createWorkCounter();
  const fold = createMessageFold({ clock: options.now ?? Date.now, work });
  let runId: string | undefined;

  const acc: MessageAccumulator = {
    apply(e) {
      runId ??= e.runId;
      return e.runId === runId && fold.apply(e);
    },
    applyAll(events) {
      for (const e of events) acc.apply(e);
      return acc;
    },
    get message() {
      return fold.snapshot();
    },
    get version() {
      return fold.version;
    },
    get work() {
      return work;
    },
  };
  return acc;
}
