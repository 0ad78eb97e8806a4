/**
 * Projection: a run's canonical events → the persisted assistant message of seed 000
 * (`content` = the final text, `metadata` = processing and thinking blocks with durations, ordered
 * parts, tool calls, todos, steps, sources, usage, model, stop reason, errors). The message types
 * are in `message.ts`, the ordered parts are built by `parts-mirror.ts`; this file folds the rest,
 * takes snapshots and closes an interrupted run.
 *
 * The projector is incremental: `apply(event)` costs O(1) amortised (text is kept as chunk lists
 * and joined only when a snapshot is taken), so projecting a run is linear in its events. It is
 * what the store keeps in memory for a live run and writes out while the run streams. Durations
 * come from the events' `ts` (the server clock), so "Thought for 4s" is still right after a reload.
 */
import { type CanonicalEvent, OpenSpans, RunSummary, TextBuffer, type Todo } from '@switchboard/core';
import { cloneJson } from './json.ts';
import type {
  AssistantMessage,
  AssistantMetadata,
  ErrorInfo,
  MessageStatus,
  PersistenceState,
  ProjectorInit,
  ReasoningSpan,
  SourceInfo,
  StepInfo,
  ThinkingSpan,
} from './message.ts';
import { mergeProviderMetadata } from './message.ts';
import { PartsMirror, sourceInfo } from './parts-mirror.ts';

/** The message types, for the modules that import them from here. */
export type * from './message.ts';
export { mergeProviderMetadata } from './message.ts';

const CLOSING = new Set(['run-finish', 'run-abort']);

/**
 * Incremental projection of one run. Feed it the run's events in seq order with `apply`; take a
 * `snapshot()` whenever the message is needed. Events at or below the last applied seq are ignored.
 */
export class Projector {
  private readonly init: ProjectorInit;
  private last = -1;
  /**
   * Run id, status, model, usage, stop reason, duration, error of the current run: the fold the AI SDK
   * encoder shares, so what a client holds live is what history shows.
   */
  private summary = new RunSummary();
  /**
   * The summaries of the runs this message continues (oldest first). A client continuing a message
   * merges each run's metadata over the last, so a field the current run has not set shows the
   * latest earlier run's value.
   */
  private readonly earlier: { summary: RunSummary; offset: number }[] = [];
  /** Added to the seq of the current run's events in parts (a continuation's come after its predecessors'). */
  private offset = 0;
  /** The runs of the message so far (a continuation chain), oldest first. */
  private readonly runs: string[] = [];
  /** Where each of them begins in the parts' seq numbering. */
  private readonly runSeqs: number[] = [];

  private readonly content = new TextBuffer();
  /** The AI SDK parts (the mirror of the encoder and the official client). */
  private readonly mirror: PartsMirror;
  // Canonical state (for metadata and for closing an interrupted run).
  /** What is open, for the closing events of an interrupted run. */
  private readonly open = new OpenSpans();
  private readonly openSteps = new Map<string, StepInfo>();
  private readonly steps: StepInfo[] = [];
  private readonly sources: SourceInfo[] = [];
  private readonly errors: ErrorInfo[] = [];
  private todos: Todo[] | undefined;

  constructor(init: ProjectorInit = {}) {
    this.init = init;
    this.mirror = new PartsMirror(this.sources);
  }

  /** seq of the last event applied (-1 before the first). */
  get lastSeq(): number {
    return this.last;
  }

  /** True once run-finish or run-abort has been applied. */
  get finished(): boolean {
    return this.summary.closed !== undefined;
  }

  /** The run id (from the init or the first event). */
  get runId(): string | undefined {
    return this.init.runId ?? this.summary.start?.runId;
  }

  /** Applies every event in order. */
  applyAll(events: Iterable<CanonicalEvent>): this {
    for (const e of events) this.apply(e);
    return this;
  }

  /** Applies one event (ignored when its seq was already applied, or after the run ended). */
  apply(e: CanonicalEvent): void {
    if (e.seq <= this.last || this.summary.closed) return;
    if (this.last < 0 && this.runs.at(-1) !== e.runId) {
      this.runs.push(e.runId);
      this.runSeqs.push(e.seq + this.offset);
    }
    this.last = e.seq;
    this.summary.apply(e);
    // Parts and errors are ordered by seq across the runs of a continued message.
    const at = this.offset === 0 ? e : ({ ...e, seq: e.seq + this.offset } as CanonicalEvent);
    this.track(at);
    this.open.track(e);
    this.mirror.apply(at);
  }

  /**
   * Goes on with the next run of the same message (a continuation run, which answers what this one
   * ended waiting for): its events are applied after this run's, into the same parts, as the AI SDK
   * client continues the last assistant message. Call after the finished run's events.
   */
  continueWith(): this {
    if (!this.summary.closed) return this;
    this.earlier.push({ summary: this.summary, offset: this.offset });
    this.summary = new RunSummary();
    this.offset += this.last + 1;
    this.last = -1;
    this.mirror.newRun();
    return this;
  }

  /**
   * A summary field as a client that streamed every run of the message holds it: the current run's
   * value, else the latest earlier run's (the AI SDK merges each run's metadata over the last; objects
   * key by key).
   */
  private latest<T>(pick: (s: RunSummary) => T | undefined): T | undefined {
    let out: T | undefined;
    for (const { summary } of [...this.earlier, { summary: this.summary }]) {
      const v = pick(summary);
      if (v === undefined) continue;
      out = out !== undefined && typeof v === 'object' && v !== null ? ({ ...out, ...v } as T) : v;
    }
    return out;
  }

  // ---- canonical bookkeeping (metadata, closing) -------------------------------------------

  private track(e: CanonicalEvent): void {
    switch (e.type) {
      case 'step-start': {
        const s: StepInfo = { stepId: e.stepId, kind: e.kind, startedAt: e.ts };
        if (e.name !== undefined) s.name = e.name;
        if (e.number !== undefined) s.number = e.number;
        if (e.model !== undefined) s.model = e.model;
        if (e.subagentId !== undefined) s.subagentId = e.subagentId;
        this.steps.push(s);
        this.openSteps.set(e.stepId, s);
        return;
      }
      case 'step-finish': {
        const s = this.openSteps.get(e.stepId);
        if (!s) return;
        this.openSteps.delete(e.stepId);
        s.endedAt = e.ts;
        s.durationMs = e.durationMs ?? e.ts - s.startedAt;
        if (e.finishReason !== undefined) s.finishReason = e.finishReason;
        if (e.rawFinishReason !== undefined) s.rawFinishReason = e.rawFinishReason;
        if (e.usage) s.usage = e.usage;
        return;
      }
      case 'text-delta':
        if (e.subagentId === undefined) this.content.append(e.delta);
        return;
      case 'todos':
        this.todos = e.todos;
        return;
      case 'error': {
        const err: ErrorInfo = { message: e.message, fatal: e.fatal, seq: e.seq, ts: e.ts };
        if (e.code !== undefined) err.code = e.code;
        if (e.where !== undefined) err.where = e.where;
        if (e.providerMetadata !== undefined) err.providerMetadata = e.providerMetadata;
        this.errors.push(err);
        return;
      }
      case 'source':
        if (e.kind === 'url' && e.url !== undefined && this.mirror.sourceUrls.has(e.url)) return;
        this.sources.push(sourceInfo(e));
        return;
      default:
        return;
    }
  }

  // ---- output -----------------------------------------------------------------------------

  /**
   * The message as of the last applied event. Returns fresh objects (safe to keep or mutate), unless
   * `shared`: then its arrays and objects are the projector's own, for a caller that serializes the
   * message before the next event is applied (the store's commit, under the run's lock), and the
   * deep copy of every part is saved.
   */
  snapshot(persistenceState: PersistenceState = 'transient', shared = false): AssistantMessage {
    const copy = shared ? <T>(v: T): T => v : cloneJson;
    this.mirror.flush();
    const parts = copy(this.mirror.parts);
    const processing: ReasoningSpan[] = [];
    const thinking: ThinkingSpan[] = [];
    for (const p of parts) {
      if (p.type !== 'reasoning') continue;
      const span: ThinkingSpan = { blockId: p.blockId, text: p.text, startedAt: p.startedAt };
      if (p.endedAt !== undefined) span.endedAt = p.endedAt;
      if (p.durationMs !== undefined) span.durationMs = p.durationMs;
      if (p.subagentId !== undefined) span.subagentId = p.subagentId;
      if (p.variant === 'processing') {
        processing.push(span);
        continue;
      }
      const anthropic = p.providerMetadata?.anthropic;
      if (typeof anthropic?.signature === 'string') span.signature = anthropic.signature;
      if (anthropic?.redactedData !== undefined) span.redacted = true;
      if (p.providerMetadata) span.providerMetadata = p.providerMetadata;
      thinking.push(span);
    }

    const { start, closed } = this.summary;
    const runId = this.init.runId ?? start?.runId ?? closed?.runId ?? '';
    const status: MessageStatus = this.summary.status;

    const metadata: AssistantMetadata = {
      status,
      processing,
      thinking,
      parts,
      steps: copy(this.steps),
      sources: copy(this.sources),
      errors: copy(this.errors),
      lastSeq: this.last,
    };
    if (this.todos) metadata.todos = copy(this.todos);
    const usage = this.latest((x) => x.usage);
    if (usage) metadata.usage = copy(usage);
    const model = this.latest((x) => x.model);
    if (model !== undefined) metadata.model = model;
    if (start?.provider !== undefined) metadata.provider = start.provider;
    if (start?.agent !== undefined) metadata.agent = start.agent;
    if (start?.metadata !== undefined) metadata.runMetadata = copy(start.metadata);
    const pm = mergeProviderMetadata(start?.providerMetadata, closed?.type === 'run-finish' ? closed.providerMetadata : undefined);
    if (pm) metadata.providerMetadata = copy(pm);
    const stopReason = this.latest((x) => (x.closed?.type === 'run-finish' ? x.closed.finishReason : undefined));
    if (stopReason !== undefined) metadata.stopReason = stopReason;
    if (closed?.type === 'run-finish') {
      if (closed.rawFinishReason !== undefined) metadata.rawStopReason = closed.rawFinishReason;
      if (closed.pending !== undefined) metadata.pending = copy(closed.pending);
    } else if (closed?.type === 'run-abort' && closed.reason !== undefined) metadata.abortReason = closed.reason;
    if (this.runs.length > 1) {
      metadata.runs = [...this.runs];
      metadata.runSeqs = [...this.runSeqs];
    }
    // The error a client holds: the current run's, else the latest earlier one's (errors carry seqs
    // offset into the message's numbering).
    let error: ErrorInfo | undefined;
    for (const { summary, offset } of [...this.earlier, { summary: this.summary, offset: this.offset }]) {
      const seq = summary.error?.seq;
      if (seq !== undefined) error = this.errors.find((x) => x.seq === seq + offset) ?? error;
    }
    if (error) metadata.error = copy(error);
    const { lastTs, startedAt } = this.summary;
    const durationMs = this.latest((x) => x.durationMs);
    if (startedAt !== undefined && durationMs !== undefined) {
      metadata.startedAt = startedAt;
      metadata.endedAt = lastTs;
      metadata.durationMs = durationMs;
    }

    const first = this.earlier[0]?.summary ?? this.summary;
    const createdAt = this.init.createdAt ?? first.start?.ts ?? first.firstTs ?? 0;
    return {
      id: this.init.messageId ?? start?.messageId ?? runId,
      chatId: this.init.chatId ?? start?.chatId ?? '',
      runId,
      role: 'assistant',
      content: this.content.toString(),
      metadata,
      persistenceState,
      createdAt,
      updatedAt: lastTs ?? createdAt,
    };
  }

  /**
   * The events that end this run cleanly when it can no longer finish (its process died): a fatal
   * `error` (code `interrupted`), the end of every open block, tool input, step and subagent, and a
   * `run-finish` with finishReason `error` — what a decoder emits for a stream that breaks off.
   * Empty when the run already ended.
   */
  closingEvents(reason: string, ts: number): CanonicalEvent[] {
    if (this.summary.closed) return [];
    const runId = this.runId ?? '';
    let seq = this.last;
    const out: CanonicalEvent[] = [];
    const env = () => ({ runId, seq: ++seq, ts });
    out.push({ type: 'error', ...env(), code: 'interrupted', message: reason, fatal: true });
    const closing = this.open.close({
      inputError: 'the run was interrupted before the tool input was complete',
      input: 'text',
      steps: { subagentError: reason },
    });
    for (const { type, ...fields } of closing) out.push({ type, ...env(), ...fields } as CanonicalEvent);
    out.push({ type: 'run-finish', ...env(), finishReason: 'error', rawFinishReason: 'interrupted' });
    return out;
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
