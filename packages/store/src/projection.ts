/**
 * Projection: a run's canonical events → the persisted assistant message of seed 000
 * (`content` = the final text, `metadata` = processing and thinking blocks with durations, ordered
 * parts, tool calls, todos, steps, sources, usage, model, stop reason, errors).
 *
 * The projector is incremental: `apply(event)` costs O(1) amortised (text is kept as chunk lists
 * and joined only when a snapshot is taken), so projecting a run is linear in its events. It is
 * what the store keeps in memory for a live run and writes out while the run streams.
 *
 * The ordered `parts` mirror exactly what the AI SDK encoder (`protocols/ai-sdk/encoder.ts` in core) sends and the
 * official `readUIMessageStream` assembles from it: the same step boundaries (explicit and the
 * encoder's implicit ones), the same tool-part lookups, data parts replaced by id, source URLs
 * deduplicated, citations numbered `citation-<n>`. That is what makes a reloaded `UIMessage`
 * (history.ts) equal the one the client built live. Durations come from the events' `ts` (the
 * server clock), so "Thought for 4s" is still right after a reload.
 */
import {
  addUsage,
  type CanonicalEvent,
  type Citation,
  type EventOf,
  type FinishReason,
  type Json,
  type JsonObject,
  OpenSpans,
  type ProviderMetadata,
  parsePartialJson,
  type ReasoningVariant,
  type Todo,
  type Usage,
} from '@switchboard/core';

/**
 * Lifecycle of a persisted message (seed 004): `transient` exists only in memory (a projector's
 * snapshot that was never written), `pending` is written while its run is live and still being
 * appended, `persisted` once the run's `run-finish` / `run-abort` is stored with it.
 */
export type PersistenceState = 'transient' | 'pending' | 'persisted';

/** Where an assistant message stands: still streaming, or how its run ended. */
export type MessageStatus = 'streaming' | 'complete' | 'error' | 'aborted';

/** One reasoning block as seed 000 stores it, with its server-measured duration. */
export interface ReasoningSpan {
  blockId: string;
  text: string;
  /** `ts` of the block's reasoning-start (ms since the epoch, server clock). */
  startedAt: number;
  /** `ts` of its reasoning-end (absent while it streams). */
  endedAt?: number;
  /** endedAt − startedAt. */
  durationMs?: number;
  subagentId?: string;
}

/** A thinking block: a reasoning span plus what a model needs to accept it back. */
export interface ThinkingSpan extends ReasoningSpan {
  /** Anthropic thinking signature, when there is one (also kept in providerMetadata). */
  signature?: string;
  /** True for redacted thinking (its opaque data is in providerMetadata). */
  redacted?: boolean;
  /** Everything the provider attached: Anthropic signature / redacted data, OpenAI item id and encrypted content, … */
  providerMetadata?: ProviderMetadata;
}

interface PartBase {
  /** seq of the event that created the part (orders parts against tool results for AG-UI). */
  seq: number;
  /** Set on parts produced by a nested subagent. */
  subagentId?: string;
}

/** A step boundary (AI SDK `step-start`): an explicit step-start event, or the encoder's implicit one. */
export interface StepStartPart extends PartBase {
  type: 'step-start';
  startedAt: number;
  /** Set for explicit steps (a canonical step-start); absent for the encoder's implicit steps. */
  stepId?: string;
  kind?: EventOf<'step-start'>['kind'];
  name?: string;
  number?: number;
  model?: string;
}

export interface ReasoningPart extends PartBase {
  type: 'reasoning';
  blockId: string;
  variant: ReasoningVariant;
  text: string;
  state: 'streaming' | 'done';
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  /** Start and end providerMetadata merged per provider (signatures arrive on the end). */
  providerMetadata?: ProviderMetadata;
}

/** A citation of a text block, numbered like the AI SDK encoder numbers them (`citation-<n>`). */
export type StoredCitation = Citation & { sourceId: string };

export interface TextPart extends PartBase {
  type: 'text';
  blockId: string;
  text: string;
  state: 'streaming' | 'done';
  startedAt: number;
  endedAt?: number;
  /** seq of the event that closed it (tells text blocks open at the same time apart). */
  endSeq?: number;
  citations?: StoredCitation[];
  /** The end's providerMetadata, else the start's (the AI SDK client's replace rule). */
  providerMetadata?: ProviderMetadata;
}

/** AI SDK tool part states that a canonical stream can reach. */
export type ToolState = 'input-streaming' | 'input-available' | 'output-available' | 'output-error';

export interface ToolPart extends PartBase {
  type: 'tool';
  toolCallId: string;
  toolName: string;
  state: ToolState;
  /** The parsed input (while streaming: what the partial JSON parses to so far). */
  input?: Json;
  /** The input text as it streamed (kept once complete: the exact text the model produced). Absent when the input came whole. */
  inputText?: string;
  /** Why the input text could not be parsed (canonical `inputError`). */
  inputError?: string;
  output?: Json;
  /** The error text of a failed call (tool-error, or the input error). */
  errorText?: string;
  /** The provider's error payload of a tool-error. */
  errorOutput?: Json;
  preliminary?: boolean;
  providerExecuted?: boolean;
  callProviderMetadata?: ProviderMetadata;
  resultProviderMetadata?: ProviderMetadata;
  startedAt: number;
  /** ts of the output / error. */
  endedAt?: number;
  durationMs?: number;
  /** seq of the output / error event. */
  outputSeq?: number;
}

export interface SourcePart extends PartBase {
  type: 'source';
  sourceId: string;
  kind: 'url' | 'document';
  url?: string;
  title?: string;
  mediaType?: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
  /** True when the source came from a citation (its id is `citation-<n>`). */
  fromCitation?: boolean;
}

export interface FilePart extends PartBase {
  type: 'file';
  url: string;
  mediaType: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * An AI SDK data part (`data-<name>`): todos (id `todos`), usage, subagent (id = subagentId), state
 * (id `state`), custom. A data part with an id is replaced in place by a later one with that id.
 */
export interface DataPart extends PartBase {
  type: 'data';
  name: string;
  id?: string;
  data: Json;
}

/** One ordered block of an assistant message. */
export type MessagePart = StepStartPart | ReasoningPart | TextPart | ToolPart | SourcePart | FilePart | DataPart;

/** A step of the run (explicit canonical steps only). */
export interface StepInfo {
  stepId: string;
  kind: EventOf<'step-start'>['kind'];
  name?: string;
  number?: number;
  model?: string;
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  finishReason?: FinishReason;
  rawFinishReason?: string;
  usage?: Usage;
  subagentId?: string;
}

/** A source the answer drew on. */
export interface SourceInfo {
  sourceId: string;
  kind: 'url' | 'document';
  url?: string;
  title?: string;
  mediaType?: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}

/** An error of the run. */
export interface ErrorInfo {
  message: string;
  code?: string;
  fatal: boolean;
  seq: number;
  ts: number;
  where?: EventOf<'error'>['where'];
  providerMetadata?: ProviderMetadata;
}

/** The metadata of a persisted assistant message. */
export interface AssistantMetadata {
  status: MessageStatus;
  /** Processing blocks (agent status / progress, "Processed in 2s"). */
  processing: ReasoningSpan[];
  /** Thinking blocks (model reasoning, "Thought for 4s"), with signatures / provider metadata. */
  thinking: ThinkingSpan[];
  /** Every block in order (see MessagePart). */
  parts: MessagePart[];
  /** The latest todo list, when the run had one. */
  todos?: Todo[];
  steps: StepInfo[];
  sources: SourceInfo[];
  /** Total usage: run-finish's, else the last total usage event, else the sum of steps and increments. */
  usage?: Usage;
  model?: string;
  provider?: string;
  agent?: string;
  /** run-finish's finishReason. */
  stopReason?: FinishReason;
  rawStopReason?: string;
  abortReason?: string;
  /** The first fatal error (else the last error of a run that ended in error). */
  error?: ErrorInfo;
  errors: ErrorInfo[];
  /** ts of run-start, and of the last event. */
  startedAt?: number;
  endedAt?: number;
  durationMs?: number;
  /** seq of the last event projected. */
  lastSeq: number;
  /** run-start's `metadata` (the AI SDK's messageMetadata). */
  runMetadata?: JsonObject;
  /** run-start's and run-finish's providerMetadata, merged. */
  providerMetadata?: ProviderMetadata;
}

/** The persisted assistant message of one run. */
export interface AssistantMessage {
  id: string;
  chatId: string;
  runId: string;
  role: 'assistant';
  /** The final text: every text delta of the main agent, in order. */
  content: string;
  metadata: AssistantMetadata;
  persistenceState: PersistenceState;
  createdAt: number;
  updatedAt: number;
}

/** A user (or system) message, stored when a run starts. */
export interface UserMessage {
  id: string;
  chatId: string;
  /** The run that answers it. */
  runId?: string;
  role: 'user' | 'system';
  content: string;
  /** `parts`: the client's UIMessage parts (files, …) when it sent them; anything else the caller stored. */
  metadata: JsonObject;
  persistenceState: PersistenceState;
  createdAt: number;
  updatedAt: number;
}

/** A message of a chat. */
export type PersistedMessage = AssistantMessage | UserMessage;

/** What a projector needs to know that the events may not say. */
export interface ProjectorInit {
  runId?: string;
  chatId?: string;
  /** The message id to use (default: run-start's messageId, else the run id). */
  messageId?: string;
  /** createdAt of the message (default: run-start's ts). */
  createdAt?: number;
}

/** A text buffer that appends in O(1) and joins lazily. */
class Chunks {
  private list: string[] = [];
  private size = 0;
  push(s: string): void {
    if (s === '') return;
    this.list.push(s);
    this.size++;
  }
  get empty(): boolean {
    return this.size === 0;
  }
  toString(): string {
    if (this.list.length > 1) this.list = [this.list.join('')];
    return this.list[0] ?? '';
  }
}

interface ReasoningState {
  part: ReasoningPart;
  text: Chunks;
  startPm?: ProviderMetadata;
}
interface TextState {
  part: TextPart;
  text: Chunks;
}
interface ToolInputState {
  part: ToolPart | undefined;
  text: Chunks;
}

const CLOSING = new Set(['run-finish', 'run-abort']);

/** Merges providerMetadata per provider key (like the AI SDK encoder's merge). */
export function mergeProviderMetadata(a: ProviderMetadata | undefined, b: ProviderMetadata | undefined): ProviderMetadata | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: ProviderMetadata = { ...a };
  for (const k in b) out[k] = { ...a[k], ...b[k] };
  return out;
}

function copy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * Incremental projection of one run. Feed it the run's events in seq order with `apply`; take a
 * `snapshot()` whenever the message is needed. Events at or below the last applied seq are ignored.
 */
export class Projector {
  private readonly init: ProjectorInit;
  private runStart: EventOf<'run-start'> | undefined;
  private last = -1;
  private firstTs: number | undefined;
  private lastTs: number | undefined;
  private closed: EventOf<'run-finish'> | EventOf<'run-abort'> | undefined;

  private readonly parts: MessagePart[] = [];
  private readonly content = new Chunks();
  // Mirror of the AI SDK encoder + readUIMessageStream state.
  private stepOpen = false;
  private readonly openText = new Map<string, TextState>();
  private readonly openReasoning = new Map<string, ReasoningState>();
  /** Tool calls the encoder knows (it never forgets one). */
  private readonly knownTools = new Set<string>();
  /** Tool calls whose input streams (readUIMessageStream's partialToolCalls). */
  private readonly toolInputs = new Map<string, ToolInputState>();
  private readonly pendingCitations = new Map<string, StoredCitation[]>();
  private citationCount = 0;
  private readonly sourceUrls = new Set<string>();
  private readonly dataById = new Map<string, DataPart>();
  /** Index of the last step-start part (current step = parts after it). */
  private stepIndex = -1;
  // Canonical state (for metadata and for closing an interrupted run).
  /** What is open, for the closing events of an interrupted run. */
  private readonly open = new OpenSpans();
  private readonly openSteps = new Map<string, StepInfo>();
  private readonly steps: StepInfo[] = [];
  private readonly sources: SourceInfo[] = [];
  private readonly errors: ErrorInfo[] = [];
  private todos: Todo[] | undefined;
  private model: string | undefined;
  private finishUsage: Usage | undefined;
  private totalUsage: Usage | undefined;
  private summedUsage: Usage | undefined;

  constructor(init: ProjectorInit = {}) {
    this.init = init;
  }

  /** seq of the last event applied (-1 before the first). */
  get lastSeq(): number {
    return this.last;
  }

  /** True once run-finish or run-abort has been applied. */
  get finished(): boolean {
    return this.closed !== undefined;
  }

  /** The run id (from the init or the first event). */
  get runId(): string | undefined {
    return this.init.runId ?? this.runStart?.runId;
  }

  /** Applies every event in order. */
  applyAll(events: Iterable<CanonicalEvent>): this {
    for (const e of events) this.apply(e);
    return this;
  }

  /** Applies one event (ignored when its seq was already applied, or after the run ended). */
  apply(e: CanonicalEvent): void {
    if (e.seq <= this.last || this.closed) return;
    this.last = e.seq;
    this.firstTs ??= e.ts;
    this.lastTs = e.ts;
    this.track(e);
    this.open.track(e);
    this.mirror(e);
  }

  // ---- canonical bookkeeping (metadata, closing) -------------------------------------------

  private track(e: CanonicalEvent): void {
    switch (e.type) {
      case 'run-start':
        this.runStart ??= e;
        this.model ??= e.model;
        return;
      case 'run-finish':
      case 'run-abort':
        this.closed = e;
        if (e.type === 'run-finish' && e.usage) this.finishUsage = e.usage;
        return;
      case 'step-start': {
        const s: StepInfo = { stepId: e.stepId, kind: e.kind, startedAt: e.ts };
        if (e.name !== undefined) s.name = e.name;
        if (e.number !== undefined) s.number = e.number;
        if (e.model !== undefined) {
          s.model = e.model;
          this.model ??= e.model;
        }
        if (e.subagentId !== undefined) s.subagentId = e.subagentId;
        this.steps.push(s);
        this.openSteps.set(e.stepId, s);
        return;
      }
      case 'step-finish': {
        const s = this.openSteps.get(e.stepId);
        if (e.usage && e.subagentId === undefined) this.summedUsage = addUsage(this.summedUsage, e.usage);
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
        if (e.subagentId === undefined) this.content.push(e.delta);
        return;
      case 'todos':
        this.todos = e.todos;
        return;
      case 'usage':
        if (e.subagentId !== undefined) return;
        if (e.scope === 'total') this.totalUsage = e.usage;
        else this.summedUsage = addUsage(this.summedUsage, e.usage);
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
        if (e.kind === 'url' && e.url !== undefined && this.sourceUrls.has(e.url)) return;
        this.sources.push(sourceInfo(e));
        return;
      default:
        return;
    }
  }

  // ---- mirror of the AI SDK encoder → readUIMessageStream ---------------------------------

  private ensureStep(e: CanonicalEvent): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    const p: StepStartPart = { type: 'step-start', seq: e.seq, startedAt: e.ts };
    if (e.type === 'step-start') {
      p.stepId = e.stepId;
      p.kind = e.kind;
      if (e.name !== undefined) p.name = e.name;
      if (e.number !== undefined) p.number = e.number;
      if (e.model !== undefined) p.model = e.model;
    }
    if (e.subagentId !== undefined) p.subagentId = e.subagentId;
    this.stepIndex = this.parts.length;
    this.parts.push(p);
  }

  private closeStep(ts: number, seq: number): void {
    if (!this.stepOpen) return;
    for (const t of this.openText.values()) this.endText(t, ts, seq, undefined);
    this.openText.clear();
    for (const r of this.openReasoning.values()) this.endReasoning(r, ts, undefined);
    this.openReasoning.clear();
    this.stepOpen = false;
  }

  private endText(t: TextState, ts: number, seq: number, pm: ProviderMetadata | undefined): void {
    t.part.text = t.text.toString();
    t.part.endSeq = seq;
    t.part.state = 'done';
    t.part.endedAt = ts;
    if (pm) t.part.providerMetadata = pm;
  }

  private endReasoning(r: ReasoningState, ts: number, pm: ProviderMetadata | undefined): void {
    r.part.text = r.text.toString();
    r.part.state = 'done';
    r.part.endedAt = ts;
    r.part.durationMs = ts - r.part.startedAt;
    const merged = mergeProviderMetadata(r.startPm, pm);
    if (merged) r.part.providerMetadata = merged;
  }

  private startText(e: CanonicalEvent & { blockId: string }, pm: ProviderMetadata | undefined): TextState {
    this.ensureStep(e);
    const part: TextPart = { type: 'text', seq: e.seq, blockId: e.blockId, text: '', state: 'streaming', startedAt: e.ts };
    if (pm) part.providerMetadata = pm;
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    const t: TextState = { part, text: new Chunks() };
    this.openText.set(e.blockId, t);
    this.parts.push(part);
    return t;
  }

  private startReasoning(
    e: CanonicalEvent & { blockId: string },
    variant: ReasoningVariant,
    pm: ProviderMetadata | undefined,
  ): ReasoningState {
    this.ensureStep(e);
    const part: ReasoningPart = {
      type: 'reasoning',
      seq: e.seq,
      blockId: e.blockId,
      variant,
      text: '',
      state: 'streaming',
      startedAt: e.ts,
    };
    if (pm) part.providerMetadata = pm;
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    const r: ReasoningState = { part, text: new Chunks() };
    if (pm) r.startPm = pm;
    this.openReasoning.set(e.blockId, r);
    this.parts.push(part);
    return r;
  }

  /** readUIMessageStream's lookup of a static tool part in the current step. */
  private toolInStep(toolCallId: string): ToolPart | undefined {
    for (let i = this.parts.length - 1; i > this.stepIndex; i--) {
      const p = this.parts[i];
      if (p.type === 'tool' && p.toolCallId === toolCallId) return p;
    }
    return undefined;
  }

  /** readUIMessageStream's getToolInvocation: the current step, then the whole message backwards. */
  private toolAnywhere(toolCallId: string): ToolPart | undefined {
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const p = this.parts[i];
      if (p.type === 'tool' && p.toolCallId === toolCallId) return p;
    }
    return undefined;
  }

  private newTool(e: CanonicalEvent, toolCallId: string, toolName: string): ToolPart {
    const part: ToolPart = { type: 'tool', seq: e.seq, toolCallId, toolName, state: 'input-streaming', startedAt: e.ts };
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    this.parts.push(part);
    return part;
  }

  private data(e: CanonicalEvent, name: string, id: string | undefined, data: Json): void {
    if (id !== undefined) {
      const key = `${name}\u0000${id}`;
      const existing = this.dataById.get(key);
      if (existing) {
        existing.data = data;
        return;
      }
      const part: DataPart = { type: 'data', seq: e.seq, name, id, data };
      if (e.subagentId !== undefined) part.subagentId = e.subagentId;
      this.dataById.set(key, part);
      this.parts.push(part);
      return;
    }
    const part: DataPart = { type: 'data', seq: e.seq, name, data };
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    this.parts.push(part);
  }

  private mirror(e: CanonicalEvent): void {
    switch (e.type) {
      case 'run-start':
      case 'raw':
      case 'status':
      case 'state-delta':
      case 'error':
        return;
      case 'step-start':
        this.closeStep(e.ts, e.seq);
        this.ensureStep(e);
        return;
      case 'step-finish':
        this.closeStep(e.ts, e.seq);
        return;
      case 'text-start':
        this.startText(e, e.providerMetadata);
        return;
      case 'text-delta': {
        const t = this.openText.get(e.blockId) ?? this.startText(e, undefined);
        t.text.push(e.delta);
        return;
      }
      case 'citation': {
        const cited: StoredCitation = { ...e.citation, sourceId: `citation-${++this.citationCount}` };
        const open = this.openText.get(e.blockId);
        if (open) {
          open.part.citations ??= [];
          open.part.citations.push(cited);
        } else {
          const list = this.pendingCitations.get(e.blockId) ?? [];
          list.push(cited);
          this.pendingCitations.set(e.blockId, list);
        }
        if (cited.kind === 'url' && cited.url !== undefined && !this.sourceUrls.has(cited.url)) {
          this.sourceUrls.add(cited.url);
          const part: SourcePart = {
            type: 'source',
            seq: e.seq,
            sourceId: cited.sourceId,
            kind: 'url',
            url: cited.url,
            fromCitation: true,
          };
          if (cited.title !== undefined) part.title = cited.title;
          if (e.subagentId !== undefined) part.subagentId = e.subagentId;
          this.parts.push(part);
          const info: SourceInfo = { sourceId: cited.sourceId, kind: 'url', url: cited.url };
          if (cited.title !== undefined) info.title = cited.title;
          this.sources.push(info);
        }
        return;
      }
      case 'text-end': {
        const t = this.openText.get(e.blockId);
        if (!t) return;
        this.openText.delete(e.blockId);
        const pending = this.pendingCitations.get(e.blockId);
        if (pending) {
          t.part.citations = [...(t.part.citations ?? []), ...pending];
          this.pendingCitations.delete(e.blockId);
        }
        this.endText(t, e.ts, e.seq, e.providerMetadata);
        return;
      }
      case 'reasoning-start':
        this.startReasoning(e, e.variant, e.providerMetadata);
        return;
      case 'reasoning-delta': {
        const r = this.openReasoning.get(e.blockId) ?? this.startReasoning(e, 'thinking', undefined);
        r.text.push(e.delta);
        return;
      }
      case 'reasoning-end': {
        const r = this.openReasoning.get(e.blockId);
        if (!r) return;
        this.openReasoning.delete(e.blockId);
        this.endReasoning(r, e.ts, e.providerMetadata);
        return;
      }
      case 'tool-input-start': {
        this.ensureStep(e);
        this.knownTools.add(e.toolCallId);
        const part = this.toolInStep(e.toolCallId) ?? this.newTool(e, e.toolCallId, e.toolName);
        part.toolName = e.toolName;
        part.state = 'input-streaming';
        delete part.input;
        delete part.output;
        delete part.errorText;
        if (e.providerExecuted) part.providerExecuted = true;
        if (e.providerMetadata) part.callProviderMetadata = e.providerMetadata;
        this.toolInputs.set(e.toolCallId, { part, text: new Chunks() });
        return;
      }
      case 'tool-input-delta': {
        if (!this.knownTools.has(e.toolCallId)) return;
        const t = this.toolInputs.get(e.toolCallId);
        if (!t) return;
        t.text.push(e.delta);
        t.part = this.toolInStep(e.toolCallId) ?? t.part;
        if (t.part) t.part.state = 'input-streaming';
        return;
      }
      case 'tool-input-end': {
        this.ensureStep(e);
        this.knownTools.add(e.toolCallId);
        const streamed = this.toolInputs.get(e.toolCallId);
        this.toolInputs.delete(e.toolCallId);
        const part = this.toolInStep(e.toolCallId) ?? this.newTool(e, e.toolCallId, e.toolName);
        part.toolName = e.toolName;
        part.input = e.input;
        if (streamed && !streamed.text.empty) part.inputText = streamed.text.toString();
        else delete part.inputText;
        delete part.output;
        delete part.errorText;
        if (e.providerExecuted !== undefined) part.providerExecuted = e.providerExecuted;
        if (e.inputError !== undefined) {
          part.state = 'output-error';
          part.inputError = e.inputError;
          part.errorText = e.inputError;
          part.endedAt = e.ts;
          part.durationMs = e.ts - part.startedAt;
          part.outputSeq = e.seq;
          if (e.providerMetadata) part.resultProviderMetadata = e.providerMetadata;
        } else {
          part.state = 'input-available';
          if (e.providerMetadata) part.callProviderMetadata = e.providerMetadata;
        }
        return;
      }
      case 'tool-output':
      case 'tool-error': {
        this.ensureStep(e);
        if (!this.knownTools.has(e.toolCallId)) {
          // The encoder synthesises a call for an output of an unseen call.
          this.knownTools.add(e.toolCallId);
          const synthetic = this.toolInStep(e.toolCallId) ?? this.newTool(e, e.toolCallId, e.toolName ?? 'unknown');
          synthetic.state = 'input-available';
          synthetic.input = {};
        }
        const part = this.toolAnywhere(e.toolCallId) as ToolPart;
        part.endedAt = e.ts;
        part.durationMs = e.ts - part.startedAt;
        part.outputSeq = e.seq;
        if (e.providerExecuted !== undefined) part.providerExecuted = e.providerExecuted;
        if (e.providerMetadata) part.resultProviderMetadata = e.providerMetadata;
        if (e.type === 'tool-output') {
          part.state = 'output-available';
          part.output = e.output;
          delete part.errorText;
          if (e.preliminary) part.preliminary = true;
          else delete part.preliminary;
        } else {
          part.state = 'output-error';
          part.errorText = e.error;
          delete part.output;
          if (e.output !== undefined) part.errorOutput = e.output;
          delete part.preliminary;
        }
        return;
      }
      case 'source': {
        if (e.kind === 'url' && e.url !== undefined) {
          if (this.sourceUrls.has(e.url)) return;
          this.sourceUrls.add(e.url);
        }
        const part: SourcePart = { type: 'source', seq: e.seq, ...sourceInfo(e) };
        if (e.subagentId !== undefined) part.subagentId = e.subagentId;
        this.parts.push(part);
        return;
      }
      case 'file': {
        const part: FilePart = { type: 'file', seq: e.seq, url: e.url, mediaType: e.mediaType };
        if (e.filename !== undefined) part.filename = e.filename;
        if (e.providerMetadata) part.providerMetadata = e.providerMetadata;
        if (e.subagentId !== undefined) part.subagentId = e.subagentId;
        this.parts.push(part);
        return;
      }
      case 'todos':
        this.data(e, 'todos', 'todos', { change: e.change, todos: e.todos as Json });
        return;
      case 'usage': {
        const data: JsonObject = { scope: e.scope, ...(e.usage as JsonObject) };
        if (e.durationMs !== undefined) data.durationMs = e.durationMs;
        this.data(e, 'usage', undefined, data);
        return;
      }
      case 'subagent-start':
      case 'subagent-finish': {
        const { type, runId: _r, seq: _s, ts: _t, ...rest } = e;
        this.data(e, 'subagent', e.subagentId, { event: type, ...(rest as JsonObject) });
        return;
      }
      case 'state-snapshot':
        this.data(e, 'state', 'state', e.state);
        return;
      case 'custom':
        this.data(e, 'custom', undefined, { name: e.name, value: e.value });
        return;
      case 'run-finish':
        this.closeStep(e.ts, e.seq);
        if (e.usage) this.data(e, 'usage', 'usage', { scope: 'total', ...(e.usage as JsonObject) });
        return;
      case 'run-abort':
        return;
    }
  }

  // ---- output -----------------------------------------------------------------------------

  /** The message as of the last applied event. Returns fresh objects (safe to keep or mutate). */
  snapshot(persistenceState: PersistenceState = 'transient'): AssistantMessage {
    // Flush the streamed text of open blocks into their parts.
    for (const t of this.openText.values()) t.part.text = t.text.toString();
    for (const r of this.openReasoning.values()) r.part.text = r.text.toString();
    for (const [, t] of this.toolInputs) {
      if (t.part?.state !== 'input-streaming') continue;
      const text = t.text.toString();
      t.part.inputText = text;
      const parsed = text === '' ? undefined : parsePartialJson(text).value;
      if (parsed === undefined) delete t.part.input;
      else t.part.input = parsed as Json;
    }
    const parts = copy(this.parts);
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

    const start = this.runStart;
    const closed = this.closed;
    const runId = this.init.runId ?? start?.runId ?? closed?.runId ?? '';
    let status: MessageStatus = 'streaming';
    if (closed?.type === 'run-abort') status = 'aborted';
    else if (closed) status = closed.finishReason === 'error' ? 'error' : 'complete';

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
    const usage = this.finishUsage ?? this.totalUsage ?? this.summedUsage;
    if (usage) metadata.usage = copy(usage);
    if (this.model !== undefined) metadata.model = this.model;
    if (start?.provider !== undefined) metadata.provider = start.provider;
    if (start?.agent !== undefined) metadata.agent = start.agent;
    if (start?.metadata !== undefined) metadata.runMetadata = copy(start.metadata);
    const pm = mergeProviderMetadata(start?.providerMetadata, closed?.type === 'run-finish' ? closed.providerMetadata : undefined);
    if (pm) metadata.providerMetadata = copy(pm);
    if (closed?.type === 'run-finish') {
      metadata.stopReason = closed.finishReason;
      if (closed.rawFinishReason !== undefined) metadata.rawStopReason = closed.rawFinishReason;
    } else if (closed?.type === 'run-abort' && closed.reason !== undefined) metadata.abortReason = closed.reason;
    const error = this.errors.find((x) => x.fatal) ?? (status === 'error' ? this.errors.at(-1) : undefined);
    if (error) metadata.error = copy(error);
    if (this.firstTs !== undefined) {
      metadata.startedAt = start?.ts ?? this.firstTs;
      metadata.endedAt = this.lastTs;
      metadata.durationMs = (this.lastTs ?? this.firstTs) - metadata.startedAt;
    }

    const createdAt = this.init.createdAt ?? start?.ts ?? this.firstTs ?? 0;
    return {
      id: this.init.messageId ?? start?.messageId ?? runId,
      chatId: this.init.chatId ?? start?.chatId ?? '',
      runId,
      role: 'assistant',
      content: this.content.toString(),
      metadata,
      persistenceState,
      createdAt,
      updatedAt: this.lastTs ?? createdAt,
    };
  }

  /**
   * The events that end this run cleanly when it can no longer finish (its process died): a fatal
   * `error` (code `interrupted`), the end of every open block, tool input, step and subagent, and a
   * `run-finish` with finishReason `error` — what a decoder emits for a stream that breaks off.
   * Empty when the run already ended.
   */
  closingEvents(reason: string, ts: number): CanonicalEvent[] {
    if (this.closed) return [];
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

function sourceInfo(e: EventOf<'source'>): SourceInfo {
  const s: SourceInfo = { sourceId: e.sourceId, kind: e.kind };
  if (e.url !== undefined) s.url = e.url;
  if (e.title !== undefined) s.title = e.title;
  if (e.mediaType !== undefined) s.mediaType = e.mediaType;
  if (e.filename !== undefined) s.filename = e.filename;
  if (e.providerMetadata) s.providerMetadata = e.providerMetadata;
  return s;
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
