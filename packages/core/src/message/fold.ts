/**
 * The message fold: a run's canonical events → its assistant message (`types.ts`). The one fold of
 * the project: the store persists its snapshots, history turns them into each protocol's messages,
 * clients render them.
 *
 * The parts are what the AI SDK encoder sends and the official `readUIMessageStream` assembles from
 * it — the same step boundaries (explicit steps and the encoder's implicit ones), the same tool-part
 * lookups, data parts replaced by id, source URLs shown once, citations numbered `citation-<n>` — so a
 * reloaded `UIMessage` equals the one the client built live. Beside them the message keeps what the
 * wire formats drop: seqs, server times and durations, block ids, subagents, steps, sources, errors,
 * todos, the agent state.
 *
 * Incremental and linear: `push(event)` is O(1) amortised (text and tool input are chunk lists);
 * `snapshot()` joins only what arrived since the previous one and rebuilds only the parts that changed
 * (the others keep their identity, so a UI re-renders only what changed); a streaming tool input is
 * parsed (partial JSON) when its `input` is read, at most once per length. Durations come from the events' `ts` (the server's
 * clock), so "Thought for 4s" is the same after a reload; an injected `clock` stamps `receivedAt`, the
 * base of a live timer on a client's own clock.
 *
 * Branch-free: the fold knows one message. Which runs make a conversation (supersede, branches) is the
 * store's business; a continuation run (one that answers what the message ended waiting for) goes on
 * in the same message through `continueWith()`.
 */

import type { Machine } from '../machine.ts';
import type { CanonicalEvent, EventInit, EventOf, Json, JsonObject, ProviderMetadata, ReasoningVariant, Todo } from '../model/events.ts';
import { copyDefined } from '../model/fields.ts';
import { mergeProviderMetadata } from '../model/metadata.ts';
import { OpenSpans } from '../model/open-spans.ts';
import { RunSummary } from '../model/run-summary.ts';
import { applyJsonPatch } from '../transforms/json-patch.ts';
import { parsePartialJson } from '../transforms/partial-json.ts';
import { TextBuffer, type WorkCounter } from '../transforms/text-buffer.ts';
import type {
  AssistantMessage,
  AssistantMetadata,
  DataPart,
  ErrorInfo,
  FilePart,
  MessagePart,
  PersistenceState,
  ReasoningPart,
  ReasoningSpan,
  SourceInfo,
  SourcePart,
  StepInfo,
  StepStartPart,
  StoredCitation,
  SubagentInfo,
  TextPart,
  ThinkingSpan,
  ToolPart,
} from './types.ts';

/** What the fold needs to know that the events may not say, and its clock. */
export interface MessageFoldOptions {
  runId?: string;
  chatId?: string;
  /** The message id (default: run-start's messageId, else the run id). */
  messageId?: string;
  /** createdAt of the message (default: run-start's ts). */
  createdAt?: number;
  /** A clock (ms) that stamps `receivedAt` on timed parts: a client's receipt time. Without it parts have none. */
  clock?: () => number;
  /** Counts string work (joins and partial JSON parses), for tests and benchmarks. */
  work?: WorkCounter;
}

/** The incremental fold of one assistant message. */
export interface MessageFold extends Machine<CanonicalEvent, AssistantMessage> {
  /** Folds one event; returns nothing (`end()` returns the message). Duplicates and events after the run ended are ignored. */
  push(event: CanonicalEvent): AssistantMessage[];
  /** The final snapshot, as one output. */
  end(): AssistantMessage[];
  /** Folds one event; false when it was ignored (a seq already folded, or the run had ended). */
  apply(event: CanonicalEvent): boolean;
  /** Folds events in order. */
  applyAll(events: Iterable<CanonicalEvent>): this;
  /**
   * The message as of the last event. Immutable: never change it. Parts that did not change since the
   * previous snapshot are the same objects, and with nothing new the same message is returned.
   * `persistenceState` defaults to `transient`.
   */
  snapshot(persistenceState?: PersistenceState): AssistantMessage;
  /**
   * Goes on with the next run of the same message (a continuation, which answers what this run ended
   * waiting for): its events fold into the same parts after this run's, as the AI SDK client continues
   * the last assistant message. Call after the finished run's events; a no-op while it runs.
   */
  continueWith(): this;
  /**
   * The events that end this run cleanly when it can no longer finish (its process died): a fatal
   * `error` (code `interrupted`), the end of every open block, tool input, step and subagent, and a
   * `run-finish` with finishReason `error`. Empty when the run already ended.
   */
  closingEvents(reason: string, ts: number): CanonicalEvent[];
  /** seq of the last event folded (-1 before the first of the current run). */
  readonly lastSeq: number;
  /** True once run-finish or run-abort was folded. */
  readonly finished: boolean;
  /** The run id (from the options or the first event). */
  readonly runId: string | undefined;
  /** Increments on every folded event (cheap change detection, e.g. for useSyncExternalStore). */
  readonly version: number;
  /** The string work done so far. */
  readonly work: WorkCounter | undefined;
}

/** A canonical source as the message's `sources` list keeps it. */
export function sourceInfo(e: EventOf<'source'>): SourceInfo {
  const s = copyDefined<SourceInfo, 'url' | 'title' | 'mediaType' | 'filename'>({ sourceId: e.sourceId, kind: e.kind }, e, [
    'url',
    'title',
    'mediaType',
    'filename',
  ]);
  if (e.providerMetadata) s.providerMetadata = e.providerMetadata;
  return s;
}

/** How long something has run: its final duration, else the time since it was received (live, on `now`'s clock). */
export function elapsedMs(part: { durationMs?: number; receivedAt?: number; startedAt: number }, now: number): number {
  return part.durationMs ?? Math.max(0, now - (part.receivedAt ?? part.startedAt));
}

/** A tool part by call id, searched backwards down to (not including) index `after`: readUIMessageStream's lookups. */
function toolIn(parts: readonly MessagePart[], toolCallId: string, after = -1): ToolPart | undefined {
  for (let i = parts.length - 1; i > after; i--) {
    const p = parts[i];
    if (p.type === 'tool' && p.toolCallId === toolCallId) return p;
  }
  return undefined;
}

/** A part's copy for a snapshot: its own containers copied, event values (input, output, metadata) shared. */
function copyPart(p: MessagePart): MessagePart {
  if (p.type === 'text' && p.citations) return { ...p, citations: p.citations.slice() };
  return { ...p };
}

/** A tool input as it streams: its text, the length last joined into the part, the partial parse at the length last parsed. */
interface ToolInput {
  part: ToolPart | undefined;
  text: TextBuffer;
  joinedLength: number;
  parsedLength: number;
  parsed: Json | undefined;
}

/** What every snapshot field is picked from: the current run's summary, else the latest earlier run's. */
interface RunOfMessage {
  summary: RunSummary;
  /** Added to this run's seqs in parts and errors (a continuation's come after its predecessors'). */
  offset: number;
}

const NONE: AssistantMessage[] = Object.freeze([]) as unknown as AssistantMessage[];

/** Creates the fold of one assistant message. */
export function createMessageFold(options: MessageFoldOptions = {}): MessageFold {
  const { clock, work } = options;

  // ---- the runs of the message ----
  /** The current run's summary (status, model, usage, stop reason, duration, error): the AI SDK encoder's fold. */
  let summary = new RunSummary();
  /** The runs this message continues, oldest first: a field the current run has not set shows the latest earlier value. */
  const earlier: RunOfMessage[] = [];
  /** Added to the seq of the current run's events in parts and errors. */
  let offset = 0;
  /** seq of the last event of the current run (-1 before its first). */
  let last = -1;
  /** The run ids of the message so far, oldest first, and where each begins in the parts' seq numbering. */
  const runs: string[] = [];
  const runSeqs: number[] = [];
  /** Increments on every folded event. */
  let version = 0;

  // ---- the message ----
  /** The final text: every text delta of the main agent. */
  const content = new TextBuffer('', work);
  /** Every part in order; parts are only appended, and change in place until their block ends. */
  const parts: MessagePart[] = [];
  /** The previous snapshot's copy of each part (same index), reused while the part has not changed. */
  const snaps: MessagePart[] = [];
  /** Parts changed since the previous snapshot. */
  const changed = new Set<MessagePart>();
  const steps: StepInfo[] = [];
  const openSteps = new Map<string, StepInfo>();
  const subagents: SubagentInfo[] = [];
  const openSubagents = new Map<string, SubagentInfo>();
  const sources: SourceInfo[] = [];
  const errors: ErrorInfo[] = [];
  let todos: Todo[] | undefined;
  let activity: { status: string; message?: string } | undefined;
  /** The agent state: the last state-snapshot with the state-deltas after it applied. */
  let state: Json | undefined;
  /**
   * The state-delta patches before any state-snapshot: they apply to the state the chat held before
   * this run, which one message's fold does not know (the chat's history folds them in order).
   */
  let stateDeltas: EventOf<'state-delta'>['patch'][] | undefined;
  /** What is open, for the closing events of an interrupted run. */
  const open = new OpenSpans();
  /** The last snapshot, returned again while nothing changed. */
  let cached: { version: number; state: PersistenceState; message: AssistantMessage } | undefined;

  // ---- the AI SDK encoder and client, as this run sees them (reset by continueWith) ----
  /** A step is open (the encoder opens one implicitly before the first part of a step). */
  let stepOpen = false;
  /** A step has opened in this run (a continuation's answers come before the first). */
  let stepped = false;
  /** Index of the last step-start part: the current step is the parts after it. */
  let stepIndex = -1;
  const openText = new Map<string, { part: TextPart; text: TextBuffer }>();
  const openReasoning = new Map<string, { part: ReasoningPart; text: TextBuffer; startPm: ProviderMetadata | undefined }>();
  /** Tool calls whose input streams (readUIMessageStream's partialToolCalls), with the length last joined and parsed. */
  const toolInputs = new Map<string, ToolInput>();
  /** Tool calls the encoder knows in this run (it never forgets one). */
  const knownTools = new Set<string>();
  /** Tool calls of the message this run continues, answered in it (the encoder's `earlier`). */
  const continuedTools = new Set<string>();
  /** approvalId → toolCallId of the approvals asked in this run. */
  const approvals = new Map<string, string>();
  /** Source URLs already shown: a source with one of them is not shown again. */
  const sourceUrls = new Set<string>();
  /** Citations of text blocks that were not open when they came (attached at the block's end). */
  const pendingCitations = new Map<string, StoredCitation[]>();
  let citationCount = 0;
  /** Data parts with an id, by `name\0id`: a later one with the same id replaces the data in place. */
  const dataById = new Map<string, DataPart>();

  const touch = (p: MessagePart | undefined): void => {
    if (p) changed.add(p);
  };
  const add = <P extends MessagePart>(p: P): P => {
    parts.push(p);
    changed.add(p);
    return p;
  };
  const received = (): { receivedAt?: number } => (clock ? { receivedAt: clock() } : {});

  // ---- steps ----

  function ensureStep(e: CanonicalEvent): void {
    if (stepOpen) return;
    stepOpen = true;
    stepped = true;
    const p: StepStartPart = { type: 'step-start', seq: e.seq, startedAt: e.ts, ...received() };
    if (e.type === 'step-start') {
      p.stepId = e.stepId;
      p.kind = e.kind;
      if (e.name !== undefined) p.name = e.name;
      if (e.number !== undefined) p.number = e.number;
      if (e.model !== undefined) p.model = e.model;
    }
    if (e.subagentId !== undefined) p.subagentId = e.subagentId;
    stepIndex = parts.length;
    add(p);
  }

  function closeStep(ts: number, seq: number): void {
    if (!stepOpen) return;
    for (const t of openText.values()) endText(t, ts, seq, undefined);
    openText.clear();
    for (const r of openReasoning.values()) endReasoning(r, ts, undefined);
    openReasoning.clear();
    stepOpen = false;
  }

  // ---- text and reasoning blocks ----

  function startText(e: CanonicalEvent & { blockId: string }, pm: ProviderMetadata | undefined) {
    ensureStep(e);
    const part: TextPart = { type: 'text', seq: e.seq, blockId: e.blockId, text: '', state: 'streaming', startedAt: e.ts, ...received() };
    if (pm) part.providerMetadata = pm;
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    const t = { part: add(part), text: new TextBuffer('', work) };
    openText.set(e.blockId, t);
    return t;
  }

  function endText(t: { part: TextPart; text: TextBuffer }, ts: number, seq: number, pm: ProviderMetadata | undefined): void {
    t.part.text = t.text.toString();
    t.part.endSeq = seq;
    t.part.state = 'done';
    t.part.endedAt = ts;
    if (pm) t.part.providerMetadata = pm;
    touch(t.part);
  }

  function startReasoning(e: CanonicalEvent & { blockId: string }, variant: ReasoningVariant, pm: ProviderMetadata | undefined) {
    ensureStep(e);
    const part: ReasoningPart = {
      type: 'reasoning',
      seq: e.seq,
      blockId: e.blockId,
      variant,
      text: '',
      state: 'streaming',
      startedAt: e.ts,
      ...received(),
    };
    if (pm) part.providerMetadata = pm;
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    const r = { part: add(part), text: new TextBuffer('', work), startPm: pm };
    openReasoning.set(e.blockId, r);
    return r;
  }

  function endReasoning(
    r: { part: ReasoningPart; text: TextBuffer; startPm: ProviderMetadata | undefined },
    ts: number,
    pm?: ProviderMetadata,
  ): void {
    r.part.text = r.text.toString();
    r.part.state = 'done';
    r.part.endedAt = ts;
    r.part.durationMs = ts - r.part.startedAt;
    const merged = mergeProviderMetadata(r.startPm, pm);
    if (merged) r.part.providerMetadata = merged;
    touch(r.part);
  }

  function cite(e: EventOf<'citation'>): void {
    const cited: StoredCitation = { ...e.citation, sourceId: `citation-${++citationCount}` };
    const t = openText.get(e.blockId);
    if (t) {
      t.part.citations ??= [];
      t.part.citations.push(cited);
      touch(t.part);
    } else {
      const list = pendingCitations.get(e.blockId) ?? [];
      list.push(cited);
      pendingCitations.set(e.blockId, list);
    }
    if (cited.kind !== 'url' || cited.url === undefined || sourceUrls.has(cited.url)) return;
    sourceUrls.add(cited.url);
    const part: SourcePart = { type: 'source', seq: e.seq, sourceId: cited.sourceId, kind: 'url', url: cited.url, fromCitation: true };
    if (cited.title !== undefined) part.title = cited.title;
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    add(part);
    const info: SourceInfo = { sourceId: cited.sourceId, kind: 'url', url: cited.url };
    if (cited.title !== undefined) info.title = cited.title;
    sources.push(info);
  }

  // ---- tool calls ----

  /** readUIMessageStream's lookup of a tool part in the current step. */
  const toolInStep = (toolCallId: string) => toolIn(parts, toolCallId, stepIndex);

  function newTool(e: CanonicalEvent, toolCallId: string, toolName: string): ToolPart {
    const part: ToolPart = { type: 'tool', seq: e.seq, toolCallId, toolName, state: 'input-streaming', startedAt: e.ts, ...received() };
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    return add(part);
  }

  /** The encoder's test: an output for a call of the continued message (no step, no part opened for it). */
  function continued(toolCallId: string): boolean {
    if (knownTools.has(toolCallId)) return false;
    if (!stepped) continuedTools.add(toolCallId);
    return continuedTools.has(toolCallId);
  }

  function settle(part: ToolPart, e: CanonicalEvent): void {
    part.endedAt = e.ts;
    part.durationMs = e.ts - part.startedAt;
    part.outputSeq = e.seq;
    touch(part);
  }

  function toolInputEnd(e: EventOf<'tool-input-end'>): void {
    ensureStep(e);
    knownTools.add(e.toolCallId);
    const streamed = toolInputs.get(e.toolCallId);
    toolInputs.delete(e.toolCallId);
    const part = toolInStep(e.toolCallId) ?? newTool(e, e.toolCallId, e.toolName);
    part.toolName = e.toolName;
    part.input = e.input;
    if (part.seq !== e.seq) {
      part.inputSeq = e.seq;
      part.inputAt = e.ts;
    }
    if (streamed && streamed.text.length > 0) part.inputText = streamed.text.toString();
    else delete part.inputText;
    delete part.output;
    delete part.errorText;
    if (e.providerExecuted !== undefined) part.providerExecuted = e.providerExecuted;
    touch(part);
    if (e.inputError === undefined) {
      part.state = 'input-available';
      if (e.providerMetadata) part.callProviderMetadata = e.providerMetadata;
      return;
    }
    part.state = 'output-error';
    part.inputError = e.inputError;
    part.errorText = e.inputError;
    if (e.providerMetadata) part.resultProviderMetadata = e.providerMetadata;
    settle(part, e);
  }

  function toolResult(e: EventOf<'tool-output'> | EventOf<'tool-error'>): void {
    if (!continued(e.toolCallId)) {
      ensureStep(e);
      if (!knownTools.has(e.toolCallId)) {
        // The encoder synthesises a call for an output of an unseen call.
        knownTools.add(e.toolCallId);
        const synthetic = toolInStep(e.toolCallId) ?? newTool(e, e.toolCallId, e.toolName ?? 'unknown');
        synthetic.state = 'input-available';
        synthetic.input = {};
      }
    }
    const part = toolIn(parts, e.toolCallId);
    if (!part) return;
    settle(part, e);
    if (e.providerExecuted !== undefined) part.providerExecuted = e.providerExecuted;
    if (e.providerMetadata) part.resultProviderMetadata = e.providerMetadata;
    if (e.type === 'tool-output') {
      part.state = 'output-available';
      part.output = e.output;
      delete part.errorText;
      if (e.preliminary) part.preliminary = true;
      else delete part.preliminary;
      return;
    }
    part.state = 'output-error';
    part.errorText = e.error;
    delete part.output;
    if (e.output !== undefined) part.errorOutput = e.output;
    delete part.preliminary;
  }

  /**
   * An approval asked for, or answered, as the AI SDK client keeps it on the tool part: asked →
   * `approval-requested` with `approval: { id, requestReason? }`; answered → `approval-responded` with
   * the answer (what `addToolApprovalResponse` sets before it sends), and a denial then `output-denied`.
   */
  function approval(e: EventOf<'tool-approval-request'> | EventOf<'tool-approval-response'>): void {
    if (e.type === 'tool-approval-request') {
      const known = knownTools.has(e.toolCallId) || continuedTools.has(e.toolCallId);
      const part = known ? toolIn(parts, e.toolCallId) : undefined;
      if (!part) return;
      approvals.set(e.approvalId, e.toolCallId);
      part.state = 'approval-requested';
      part.approval = { id: e.approvalId, ...(e.reason !== undefined ? { requestReason: e.reason } : {}) };
      touch(part);
      return;
    }
    const toolCallId = approvals.get(e.approvalId) ?? e.toolCallId;
    if (toolCallId !== undefined && !knownTools.has(toolCallId)) continuedTools.add(toolCallId);
    // The client looks the part up by approval id (the first with it); a denial read from a bare
    // tool-output-denied sends no approval chunk (the encoder's `deniedOnly`).
    const chunk = e.providerMetadata?.['ai-sdk']?.deniedOnly !== true;
    const part = chunk ? parts.find((p): p is ToolPart => p.type === 'tool' && p.approval?.id === e.approvalId) : undefined;
    if (part) {
      part.state = 'approval-responded';
      part.approval = {
        ...part.approval,
        id: e.approvalId,
        approved: e.approved,
        ...(e.reason !== undefined ? { reason: e.reason } : {}),
        ...(e.by !== undefined ? { by: e.by } : {}),
      };
      if (e.providerExecuted !== undefined) part.providerExecuted = e.providerExecuted;
      if (e.providerMetadata) part.callProviderMetadata = e.providerMetadata;
      touch(part);
    }
    if (e.approved || toolCallId === undefined) return;
    // tool-output-denied settles the call.
    const denied = toolIn(parts, toolCallId);
    if (!denied) return;
    denied.state = 'output-denied';
    denied.endedAt = e.ts;
    denied.durationMs = e.ts - denied.startedAt;
    touch(denied);
  }

  // ---- data parts ----

  function data(e: CanonicalEvent, name: string, id: string | undefined, value: Json): void {
    const key = id === undefined ? undefined : `${name}\u0000${id}`;
    const existing = key === undefined ? undefined : dataById.get(key);
    if (existing) {
      existing.data = value;
      touch(existing);
      return;
    }
    const part: DataPart =
      id === undefined ? { type: 'data', seq: e.seq, name, data: value } : { type: 'data', seq: e.seq, name, id, data: value };
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    add(part);
    if (key !== undefined) dataById.set(key, part);
  }

  /** An event's fields without its type and envelope, as the encoder's data parts carry them. */
  function withoutEnvelope(e: CanonicalEvent): JsonObject {
    const { type: _type, runId: _r, seq: _s, ts: _t, subagentId: _a, ...rest } = e;
    return rest as JsonObject;
  }

  // ---- the parts: one event, in seq order (`at` carries the message's seq numbering) ----

  function foldPart(e: CanonicalEvent): void {
    switch (e.type) {
      case 'step-start':
        closeStep(e.ts, e.seq);
        ensureStep(e);
        return;
      case 'step-finish':
        closeStep(e.ts, e.seq);
        return;
      case 'text-start':
        startText(e, e.providerMetadata);
        return;
      case 'text-delta': {
        const t = openText.get(e.blockId) ?? startText(e, undefined);
        t.text.append(e.delta);
        touch(t.part);
        return;
      }
      case 'citation':
        cite(e);
        return;
      case 'text-end': {
        const t = openText.get(e.blockId);
        if (!t) return;
        openText.delete(e.blockId);
        const pending = pendingCitations.get(e.blockId);
        if (pending) {
          t.part.citations = [...(t.part.citations ?? []), ...pending];
          pendingCitations.delete(e.blockId);
        }
        endText(t, e.ts, e.seq, e.providerMetadata);
        return;
      }
      case 'reasoning-start':
        startReasoning(e, e.variant, e.providerMetadata);
        return;
      case 'reasoning-delta': {
        const r = openReasoning.get(e.blockId) ?? startReasoning(e, 'thinking', undefined);
        r.text.append(e.delta);
        touch(r.part);
        return;
      }
      case 'reasoning-end': {
        const r = openReasoning.get(e.blockId);
        if (!r) return;
        openReasoning.delete(e.blockId);
        endReasoning(r, e.ts, e.providerMetadata);
        return;
      }
      case 'tool-input-start': {
        ensureStep(e);
        knownTools.add(e.toolCallId);
        const part = toolInStep(e.toolCallId) ?? newTool(e, e.toolCallId, e.toolName);
        part.toolName = e.toolName;
        part.state = 'input-streaming';
        delete part.input;
        delete part.output;
        delete part.errorText;
        if (e.providerExecuted) part.providerExecuted = true;
        if (e.providerMetadata) part.callProviderMetadata = e.providerMetadata;
        touch(part);
        toolInputs.set(e.toolCallId, { part, text: new TextBuffer('', work), joinedLength: -1, parsedLength: -1, parsed: undefined });
        return;
      }
      case 'tool-input-delta': {
        if (!knownTools.has(e.toolCallId)) return;
        const t = toolInputs.get(e.toolCallId);
        if (!t) return;
        t.text.append(e.delta);
        t.part = toolInStep(e.toolCallId) ?? t.part;
        if (t.part) t.part.state = 'input-streaming';
        touch(t.part);
        return;
      }
      case 'tool-input-end':
        toolInputEnd(e);
        return;
      case 'tool-output':
      case 'tool-error':
        toolResult(e);
        return;
      case 'tool-approval-request':
      case 'tool-approval-response':
        approval(e);
        return;
      case 'interrupt':
      case 'interrupt-response':
        // The encoder's data-interrupt / data-interrupt-response parts, by interrupt id.
        data(e, e.type, e.interruptId, withoutEnvelope(e));
        return;
      case 'source': {
        if (e.kind === 'url' && e.url !== undefined) {
          if (sourceUrls.has(e.url)) return;
          sourceUrls.add(e.url);
        }
        const part: SourcePart = { type: 'source', seq: e.seq, ...sourceInfo(e) };
        if (e.subagentId !== undefined) part.subagentId = e.subagentId;
        add(part);
        return;
      }
      case 'file': {
        const part: FilePart = { type: 'file', seq: e.seq, at: e.ts, url: e.url, mediaType: e.mediaType };
        if (e.filename !== undefined) part.filename = e.filename;
        if (e.providerMetadata) part.providerMetadata = e.providerMetadata;
        if (e.subagentId !== undefined) part.subagentId = e.subagentId;
        add(part);
        return;
      }
      case 'todos':
        data(e, 'todos', 'todos', { change: e.change, todos: e.todos as Json });
        return;
      case 'usage': {
        const value: JsonObject = { scope: e.scope, ...(e.usage as JsonObject) };
        if (e.durationMs !== undefined) value.durationMs = e.durationMs;
        data(e, 'usage', undefined, value);
        return;
      }
      case 'subagent-start':
      case 'subagent-finish': {
        const { type, runId: _r, seq: _s, ts: _t, ...rest } = e;
        data(e, 'subagent', e.subagentId, { event: type, ...(rest as JsonObject) });
        return;
      }
      case 'state-snapshot':
        data(e, 'state', 'state', e.state);
        return;
      case 'custom':
        data(e, 'custom', undefined, { name: e.name, value: e.value });
        return;
      case 'run-finish':
        closeStep(e.ts, e.seq);
        if (e.usage) data(e, 'usage', 'usage', { scope: 'total', ...(e.usage as JsonObject) });
        return;
      default:
        // run-start, run-abort, raw, status, state-delta, error, client-tool-call: no part.
        return;
    }
  }

  // ---- what the message keeps beside its parts ----

  /** Adds a step or subagent to the message and to those open. */
  function opening<V>(all: V[], open: Map<string, V>, id: string, v: V): void {
    all.push(v);
    open.set(id, v);
  }

  /** Takes an open step or subagent out of its map: the one its finish event closes. */
  function closing<V>(open: Map<string, V>, id: string): V | undefined {
    const v = open.get(id);
    open.delete(id);
    return v;
  }

  function foldMetadata(e: CanonicalEvent): void {
    switch (e.type) {
      case 'step-start': {
        const s = copyDefined<StepInfo, 'name' | 'number' | 'model' | 'subagentId' | 'providerMetadata'>(
          { stepId: e.stepId, kind: e.kind, startedAt: e.ts },
          e,
          ['name', 'number', 'model', 'subagentId', 'providerMetadata'],
        );
        return opening(steps, openSteps, e.stepId, s);
      }
      case 'step-finish': {
        const s = closing(openSteps, e.stepId);
        if (!s) return;
        s.endedAt = e.ts;
        s.finishSeq = e.seq;
        s.durationMs = e.durationMs ?? e.ts - s.startedAt;
        if (e.durationMs === undefined) s.measured = true;
        copyDefined(s, e, ['finishReason', 'rawFinishReason', 'usage']);
        const pm = mergeProviderMetadata(s.providerMetadata, e.providerMetadata);
        if (pm) s.providerMetadata = pm;
        return;
      }
      case 'subagent-start': {
        const a: SubagentInfo = { subagentId: e.subagentId, name: e.name, state: 'running', startedAt: e.ts, ...received() };
        copyDefined(a, e, ['task', 'parentToolCallId', 'parentSubagentId']);
        return opening(subagents, openSubagents, e.subagentId, a);
      }
      case 'subagent-finish': {
        const a = closing(openSubagents, e.subagentId);
        if (!a) return;
        a.state = e.error !== undefined ? 'error' : 'done';
        copyDefined(a, e, ['result', 'error']);
        a.endedAt = e.ts;
        a.durationMs = e.ts - a.startedAt;
        return;
      }
      case 'text-delta':
        if (e.subagentId === undefined) content.append(e.delta);
        return;
      case 'todos':
        todos = e.todos;
        return;
      case 'status':
        activity = e.message !== undefined ? { status: e.status, message: e.message } : { status: e.status };
        return;
      case 'state-snapshot':
        state = e.state;
        return;
      case 'state-delta':
        if (state === undefined) {
          if (!stateDeltas) stateDeltas = [];
          stateDeltas.push(e.patch.slice());
          return;
        }
        try {
          state = applyJsonPatch(state, e.patch) as Json;
        } catch {
          // A patch that does not apply leaves the state as it was (the event stays in the log).
        }
        return;
      case 'error': {
        errors.push(
          copyDefined<ErrorInfo, 'code' | 'where' | 'providerMetadata'>({ message: e.message, fatal: e.fatal, seq: e.seq, ts: e.ts }, e, [
            'code',
            'where',
            'providerMetadata',
          ]),
        );
        return;
      }
      case 'source':
        // Folded before the parts: a URL already shown is not listed again.
        if (e.kind === 'url' && e.url !== undefined && sourceUrls.has(e.url)) return;
        sources.push(sourceInfo(e));
        return;
      default:
        return;
    }
  }

  function apply(e: CanonicalEvent): boolean {
    if (e.seq <= last || summary.closed) return false;
    if (last < 0 && runs.at(-1) !== e.runId) {
      runs.push(e.runId);
      runSeqs.push(e.seq + offset);
    }
    last = e.seq;
    version++;
    summary.apply(e);
    // Parts and errors are numbered by seq across the runs of a continued message.
    const at = offset === 0 ? e : ({ ...e, seq: e.seq + offset } as CanonicalEvent);
    foldMetadata(at);
    open.track(e);
    foldPart(at);
    return true;
  }

  /** A summary field as a client that streamed every run of the message holds it (objects merged key by key). */
  function latest<T>(pick: (s: RunSummary) => T | undefined): T | undefined {
    let out: T | undefined;
    for (const run of [...earlier, { summary }]) {
      const v = pick(run.summary);
      if (v === undefined) continue;
      out = out !== undefined && typeof v === 'object' && v !== null ? ({ ...out, ...v } as T) : v;
    }
    return out;
  }

  /**
   * A streaming tool part's copy whose `input` is parsed (partial JSON) when read, at most once per
   * input length: a client that snapshots after every delta but reads the input once per frame parses
   * once per frame, not once per delta.
   */
  function withLazyInput(copy: MessagePart): MessagePart {
    if (copy.type !== 'tool' || copy.state !== 'input-streaming' || !copy.inputText) return copy;
    const t = toolInputs.get(copy.toolCallId);
    if (!t) return copy;
    const text = copy.inputText;
    Object.defineProperty(copy, 'input', {
      enumerable: true,
      configurable: true,
      get: () => {
        if (t.parsedLength !== text.length) {
          if (work) {
            work.partialJsonParses++;
            work.partialJsonChars += text.length;
          }
          t.parsed = parsePartialJson(text).value as Json | undefined;
          t.parsedLength = text.length;
        }
        return t.parsed;
      },
    });
    return copy;
  }

  /** The parts as of now: open text and tool inputs brought up to date, unchanged parts' copies reused. */
  function snapshotParts(): MessagePart[] {
    for (const t of openText.values()) if (changed.has(t.part)) t.part.text = t.text.toString();
    for (const r of openReasoning.values()) if (changed.has(r.part)) r.part.text = r.text.toString();
    for (const t of toolInputs.values()) {
      const part = t.part;
      if (part?.state !== 'input-streaming' || t.joinedLength === t.text.length) continue;
      part.inputText = t.text.toString();
      t.joinedLength = part.inputText.length;
      delete part.input;
      changed.add(part);
    }
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (snaps[i] === undefined || changed.has(p)) snaps[i] = withLazyInput(copyPart(p));
    }
    changed.clear();
    return snaps.slice();
  }

  function snapshot(persistenceState: PersistenceState = 'transient'): AssistantMessage {
    if (cached && cached.version === version && cached.state === persistenceState && changed.size === 0) return cached.message;
    const partList = snapshotParts();
    const processing: ReasoningSpan[] = [];
    const thinking: ThinkingSpan[] = [];
    for (const p of partList) {
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

    const { start, closed } = summary;
    const runId = options.runId ?? start?.runId ?? closed?.runId ?? '';
    const metadata: AssistantMetadata = {
      status: summary.status,
      processing,
      thinking,
      parts: partList,
      steps: steps.map((s) => ({ ...s })),
      sources: sources.slice(),
      errors: errors.slice(),
      lastSeq: last,
    };
    if (todos) metadata.todos = todos;
    if (state !== undefined) metadata.state = state;
    if (stateDeltas) metadata.stateDeltas = stateDeltas.slice();
    if (activity) metadata.activity = activity;
    if (subagents.length > 0) metadata.subagents = subagents.map((a) => ({ ...a }));
    const usage = latest((x) => x.usage);
    if (usage) metadata.usage = usage;
    const model = latest((x) => x.model);
    if (model !== undefined) metadata.model = model;
    if (start?.provider !== undefined) metadata.provider = start.provider;
    if (start?.agent !== undefined) metadata.agent = start.agent;
    if (start?.metadata !== undefined) metadata.runMetadata = start.metadata;
    const pm = mergeProviderMetadata(start?.providerMetadata, closed?.type === 'run-finish' ? closed.providerMetadata : undefined);
    if (pm) metadata.providerMetadata = pm;
    const stopReason = latest((x) => (x.closed?.type === 'run-finish' ? x.closed.finishReason : undefined));
    if (stopReason !== undefined) metadata.stopReason = stopReason;
    if (closed?.type === 'run-finish') {
      if (closed.rawFinishReason !== undefined) metadata.rawStopReason = closed.rawFinishReason;
      if (closed.pending !== undefined) metadata.pending = closed.pending;
    } else if (closed?.type === 'run-abort' && closed.reason !== undefined) metadata.abortReason = closed.reason;
    if (runs.length > 1) {
      metadata.runs = runs.slice();
      metadata.runSeqs = runSeqs.slice();
    }
    // The error a client holds: the current run's, else the latest earlier one's (errors carry seqs
    // offset into the message's numbering).
    let error: ErrorInfo | undefined;
    for (const run of [...earlier, { summary, offset }]) {
      const seq = run.summary.error?.seq;
      if (seq !== undefined) error = errors.find((x) => x.seq === seq + run.offset) ?? error;
    }
    if (error) metadata.error = error;
    const { lastTs, startedAt } = summary;
    const durationMs = latest((x) => x.durationMs);
    if (startedAt !== undefined && durationMs !== undefined) {
      metadata.startedAt = startedAt;
      metadata.endedAt = lastTs;
      metadata.durationMs = durationMs;
    }

    const first = earlier[0]?.summary ?? summary;
    const createdAt = options.createdAt ?? first.start?.ts ?? first.firstTs ?? 0;
    const message: AssistantMessage = {
      id: options.messageId ?? start?.messageId ?? runId,
      chatId: options.chatId ?? start?.chatId ?? '',
      runId,
      role: 'assistant',
      content: content.toString(),
      metadata,
      persistenceState,
      createdAt,
      updatedAt: lastTs ?? createdAt,
    };
    cached = { version, state: persistenceState, message };
    return message;
  }

  function continueWith(): MessageFold {
    if (!summary.closed) return fold;
    earlier.push({ summary, offset });
    summary = new RunSummary();
    offset += last + 1;
    last = -1;
    // The encoder starts afresh (its tool calls, citation numbers, source URLs); the client goes on
    // with the parts it has.
    stepOpen = false;
    stepped = false;
    knownTools.clear();
    continuedTools.clear();
    approvals.clear();
    toolInputs.clear();
    pendingCitations.clear();
    sourceUrls.clear();
    citationCount = 0;
    return fold;
  }

  function closingEvents(reason: string, ts: number): CanonicalEvent[] {
    if (summary.closed) return [];
    const runId = options.runId ?? summary.start?.runId ?? '';
    let seq = last;
    const env = () => ({ runId, seq: ++seq, ts });
    const out: CanonicalEvent[] = [{ type: 'error', ...env(), code: 'interrupted', message: reason, fatal: true }];
    const closing: EventInit[] = open.close({
      inputError: 'the run was interrupted before the tool input was complete',
      input: 'text',
      steps: { subagentError: reason },
    });
    for (const { type, ...fields } of closing) out.push({ type, ...env(), ...fields } as CanonicalEvent);
    out.push({ type: 'run-finish', ...env(), finishReason: 'error', rawFinishReason: 'interrupted' });
    return out;
  }

  const fold: MessageFold = {
    push(e) {
      apply(e);
      return NONE;
    },
    end: () => [snapshot(summary.closed ? 'persisted' : 'pending')],
    apply,
    applyAll(events) {
      for (const e of events) apply(e);
      return fold;
    },
    snapshot,
    continueWith,
    closingEvents,
    get lastSeq() {
      return last;
    },
    get finished() {
      return summary.closed !== undefined;
    },
    get runId() {
      return options.runId ?? summary.start?.runId;
    },
    get version() {
      return version;
    },
    get work() {
      return work;
    },
  };
  return fold;
}

/** Folds a whole run in one go: its message, `persisted` when the run ended, else `pending`. */
export function foldMessage(events: Iterable<CanonicalEvent>, options: MessageFoldOptions = {}): AssistantMessage {
  const fold = createMessageFold(options).applyAll(events);
  return fold.snapshot(fold.finished ? 'persisted' : 'pending');
}
