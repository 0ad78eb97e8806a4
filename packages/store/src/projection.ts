/**
 * Projection: a run's canonical events → its persisted assistant message. The fold is core's
 * (`createMessageFold`); the projector adds what persistence needs: the message's persistence state,
 * and copies that a caller may keep or change.
 *
 * Incremental: `apply(event)` costs O(1) amortised, so projecting a run is linear in its events. It is
 * what the store keeps in memory for a live run and writes out while the run streams.
 */
import { type CanonicalEvent, createMessageFold, type MessageFold } from '@switchboard/core';
import type { AssistantMessage, PersistenceState } from '@switchboard/core/message-types';
import { cloneJson } from './json.ts';

/** Merges providerMetadata per provider key (core's, re-exported for the store's users). */
export { mergeProviderMetadata } from '@switchboard/core';
/**
 * The persisted messages: an assistant message (its final text and its metadata — processing and
 * thinking blocks with durations, ordered parts, tool calls, todos, steps, sources, usage, model, stop
 * reason, errors, agent state) and a user message, with their lifecycle. The types are core's (the
 * assistant message and its one fold live in `@switchboard/core`); re-exported here for the store's users.
 */
export type * from '@switchboard/core/message-types';

/** What a projector needs to know that the events may not say. */
export interface ProjectorInit {
  runId?: string;
  chatId?: string;
  /** The message id to use (default: run-start's messageId, else the run id). */
  messageId?: string;
  /** createdAt of the message (default: run-start's ts). */
  createdAt?: number;
}

const CLOSING = new Set(['run-finish', 'run-abort']);

/**
 * Incremental projection of one run (and of the continuation runs of its message). Feed it the run's
 * events in seq order with `apply`; take a `snapshot()` whenever the message is needed. Events at or
 * below the last applied seq are ignored.
 */
export class Projector {
  private readonly fold: MessageFold;

  constructor(init: ProjectorInit = {}) {
    this.fold = createMessageFold(init);
  }

  /** seq of the last event applied (-1 before the first). */
  get lastSeq(): number {
    return this.fold.lastSeq;
  }

  /** True once run-finish or run-abort has been applied. */
  get finished(): boolean {
    return this.fold.finished;
  }

  /** The run id (from the init or the first event). */
  get runId(): string | undefined {
    return this.fold.runId;
  }

  /** Applies every event in order. */
  applyAll(events: Iterable<CanonicalEvent>): this {
    this.fold.applyAll(events);
    return this;
  }

  /** Applies one event (ignored when its seq was already applied, or after the run ended). */
  apply(e: CanonicalEvent): void {
    this.fold.apply(e);
  }

  /** Goes on with the next run of the same message (see `MessageFold.continueWith`). */
  continueWith(): this {
    this.fold.continueWith();
    return this;
  }

  /**
   * The message as of the last applied event: a deep copy (safe to keep or change), unless `shared`:
   * then the fold's own immutable snapshot, for a caller that serializes it at once (the store's
   * commit, under the run's lock).
   */
  snapshot(persistenceState: PersistenceState = 'transient', shared = false): AssistantMessage {
    const message = this.fold.snapshot(persistenceState);
    return shared ? message : cloneJson(message);
  }

  /** The events that end this run cleanly when it can no longer finish (see `MessageFold.closingEvents`). */
  closingEvents(reason: string, ts: number): CanonicalEvent[] {
    return this.fold.closingEvents(reason, ts);
  }
}

/** Projects a whole run in one go. */
export function project(events: Iterable<CanonicalEvent>, init: ProjectorInit = {}, state?: PersistenceState): AssistantMessage {
  const p = new Projector(init).applyAll(events);
  return p.snapshot(state ?? (p.finished ? 'persisted' : 'pending'));
}

/** True for the events that end a run (nothing may follow them). */
export function isTerminal(e: CanonicalEvent): boolean {
  return CLOSING.has(e.type);
}
