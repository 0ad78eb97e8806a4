/**
 * The message accumulator: canonical events of one run → a UI-ready assistant message (ordered parts:
 * steps, reasoning with its variant and duration, text with citations, tool calls with input / output /
 * state, todos, sources, files, subagents, errors; plus usage, state and the finish).
 *
 * Linear by construction:
 * - `apply(event)` is O(1) amortised: a delta is pushed on its block's chunk list, nothing is joined;
 * - the message is materialised only when read (`acc.message`), and a read joins only the chunks that
 *   arrived since the previous read; parts that did not change keep their identity (cheap re-renders);
 * - a streaming tool input is parsed (core's `parsePartialJson`) only when a part's `input` is read,
 *   and at most once per input length: reading it once per animation frame costs one parse per frame,
 *   never one per delta.
 * Duplicate events (same or lower `seq`, as a resumed stream may repeat) are ignored.
 */
import {
  addUsage,
  applyJsonPatch,
  type CanonicalEvent,
  type Citation,
  createWorkCounter,
  type EventOf,
  type FinishReason,
  type Json,
  type JsonObject,
  type Location,
  mergeProviderMetadata,
  type ProviderMetadata,
  parsePartialJson,
  type ReasoningVariant,
  TextBuffer,
  type Todo,
  type Usage,
  type WorkCounter,
} from '@switchboard/core';

interface PartBase {
  /** A key unique among the message's parts (React key): block id, tool call id, step id, … */
  key: string;
  /** seq of the event that created the part. */
  seq: number;
  /** Set on parts of a nested subagent run. */
  subagentId?: string;
}

/** Timing of something that runs for a while: server times (`ts`) and the client's receipt time. */
interface Timed {
  /** `ts` of the start event (server clock, ms since the epoch). */
  startedAt: number;
  /** When this client received the start event (its own clock): the base of a live timer. */
  receivedAt: number;
  /** `ts` of the end event. */
  endedAt?: number;
  /** endedAt − startedAt (server clock: the same after a reload of the stored message). */
  durationMs?: number;
}

export interface StepPart extends PartBase, Timed {
  type: 'step';
  stepId: string;
  kind: EventOf<'step-start'>['kind'];
  name?: string;
  number?: number;
  model?: string;
  state: 'running' | 'done';
  finishReason?: FinishReason;
  rawFinishReason?: string;
  usage?: Usage;
}

export interface ReasoningPart extends PartBase, Timed {
  type: 'reasoning';
  blockId: string;
  /** `thinking` = model reasoning ("Thought for 3s"); `processing` = agent status ("Processed in 2s"). */
  variant: ReasoningVariant;
  text: string;
  state: 'streaming' | 'done';
  /** Start and end providerMetadata merged per provider (signatures arrive on the end). */
  providerMetadata?: ProviderMetadata;
}

export interface TextPart extends PartBase {
  type: 'text';
  blockId: string;
  text: string;
  state: 'streaming' | 'done';
  startedAt: number;
  endedAt?: number;
  citations?: readonly Citation[];
  providerMetadata?: ProviderMetadata;
}

/** Tool states, in the AI SDK's vocabulary. */
export type ToolState = 'input-streaming' | 'input-available' | 'output-available' | 'output-error';

export interface ToolPart extends PartBase, Timed {
  type: 'tool';
  toolCallId: string;
  toolName: string;
  state: ToolState;
  /**
   * The input: parsed once complete; while it streams, what the partial JSON parses to so far —
   * computed when read (then cached for this length), never per delta.
   */
  readonly input?: Json;
  /** The input text as it streamed (absent when the input arrived whole). Materialised when read. */
  readonly inputText?: string;
  /** Why the complete input text is not valid JSON. */
  inputError?: string;
  output?: Json;
  /** The error of a failed call (tool-error, or the input error). */
  errorText?: string;
  /** The provider's error payload of a tool-error. */
  errorOutput?: Json;
  preliminary?: boolean;
  providerExecuted?: boolean;
  providerMetadata?: ProviderMetadata;
  resultProviderMetadata?: ProviderMetadata;
}

export interface TodosPart extends PartBase {
  type: 'todos';
  change: EventOf<'todos'>['change'];
  todos: readonly Todo[];
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
}

export interface FilePart extends PartBase {
  type: 'file';
  url: string;
  mediaType: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}

export interface SubagentPart extends PartBase, Timed {
  type: 'subagent';
  subagentId: string;
  name: string;
  task?: string;
  parentToolCallId?: string;
  parentSubagentId?: string;
  state: 'running' | 'done' | 'error';
  result?: string;
  error?: string;
}

export interface ErrorPart extends PartBase {
  type: 'error';
  message: string;
  code?: string;
  fatal: boolean;
  where?: Location;
  ts: number;
}

export interface CustomPart extends PartBase {
  type: 'custom';
  name: string;
  value: Json;
}

/** One ordered block of the message. */
export type UiPart =
  | StepPart
  | ReasoningPart
  | TextPart
  | ToolPart
  | TodosPart
  | SourcePart
  | FilePart
  | SubagentPart
  | ErrorPart
  | CustomPart;

export type MessageStatus = 'streaming' | 'complete' | 'error' | 'aborted';

/** The assistant message of one run, ready to render. Immutable: a later read returns a new object when anything changed. */
export interface AccumulatedMessage {
  id: string;
  runId: string;
  chatId?: string;
  role: 'assistant';
  status: MessageStatus;
  model?: string;
  provider?: string;
  agent?: string;
  /** run-start's `metadata`. */
  metadata?: JsonObject;
  /** Every text delta of the main agent (not subagents), in order. */
  text: string;
  parts: readonly UiPart[];
  /** The latest todo list. */
  todos?: readonly Todo[];
  /** Total usage: run-finish's, else the last total usage event, else steps and increments summed. */
  usage?: Usage;
  finishReason?: FinishReason;
  rawFinishReason?: string;
  abortReason?: string;
  /** Agent state (state-snapshot, with state-delta JSON Patches applied). */
  state?: Json;
  /** The latest `status` event (transient run status: queued, retrying, searching…). */
  activity?: { status: string; message?: string };
  errors: readonly ErrorPart[];
  startedAt?: number;
  endedAt?: number;
  /** seq of the last event applied (-1 before any). */
  lastSeq: number;
}

export interface MessageAccumulatorOptions {
  /** The client clock for live timers (default `Date.now`). */
  now?: () => number;
  /** Counts string work (tests, benchmarks). */
  work?: WorkCounter;
}

export interface MessageAccumulator {
  /** Applies one event; returns false when it was ignored (a duplicate, another run, or after the end). */
  apply(event: CanonicalEvent): boolean;
  /** Applies events in order. */
  applyAll(events: Iterable<CanonicalEvent>): this;
  /** The message as of the last event. The same object until something changes. */
  readonly message: AccumulatedMessage;
  /** Increments on every applied event (cheap change detection, e.g. for useSyncExternalStore). */
  readonly version: number;
  /** The string work done so far. */
  readonly work: WorkCounter;
}

/** How long something has run: its final duration, else (live) the client time since it was received. */
export function elapsedMs(part: Timed, now: number = Date.now()): number {
  return part.durationMs ?? Math.max(0, now - part.receivedAt);
}

/** Merges providerMetadata per provider key (core's, re-exported). */
export { mergeProviderMetadata };

// ---- internal part states ---------------------------------------------------------------------

interface PartState {
  dirty: boolean;
  snap: UiPart | undefined;
  build(): UiPart;
}

function base(e: CanonicalEvent, key: string): PartBase {
  const b: PartBase = { key, seq: e.seq };
  if (e.subagentId !== undefined) b.subagentId = e.subagentId;
  return b;
}

class ReasoningState implements PartState {
  dirty = true;
  snap: ReasoningPart | undefined;
  readonly text: TextBuffer;
  part: Omit<ReasoningPart, 'text'>;
  startPm: ProviderMetadata | undefined;
  constructor(part: Omit<ReasoningPart, 'text'>, work: WorkCounter) {
    this.part = part;
    this.text = new TextBuffer('', work);
  }
  build(): ReasoningPart {
    return { ...this.part, text: this.text.toString() };
  }
}

class TextState implements PartState {
  dirty = true;
  snap: TextPart | undefined;
  readonly text: TextBuffer;
  part: Omit<TextPart, 'text' | 'citations'>;
  citations: Citation[] | undefined;
  constructor(part: Omit<TextPart, 'text' | 'citations'>, work: WorkCounter) {
    this.part = part;
    this.text = new TextBuffer('', work);
  }
  build(): TextPart {
    const p: TextPart = { ...this.part, text: this.text.toString() };
    if (this.citations) p.citations = this.citations.slice();
    return p;
  }
}

class ToolCallState implements PartState {
  dirty = true;
  snap: ToolPart | undefined;
  part: Omit<ToolPart, 'input' | 'inputText'>;
  /** The streamed input text (undefined when the input came whole). */
  text: TextBuffer | undefined;
  /** The complete input (from tool-input-end). */
  input: Json | undefined;
  hasInput = false;
  private parsedLength = -1;
  private parsed: Json | undefined;
  private readonly work: WorkCounter;
  constructor(part: Omit<ToolPart, 'input' | 'inputText'>, work: WorkCounter) {
    this.part = part;
    this.work = work;
  }
  /** The partial input at a given text length, parsed at most once per length. */
  partialInput(length: number): Json | undefined {
    if (!this.text || length === 0) return undefined;
    if (length !== this.parsedLength) {
      const text = this.text.prefix(length);
      this.work.partialJsonParses++;
      this.work.partialJsonChars += text.length;
      this.parsed = parsePartialJson(text).value as Json | undefined;
      this.parsedLength = length;
    }
    return this.parsed;
  }
  build(): ToolPart {
    const p = { ...this.part } as ToolPart;
    const text = this.text;
    if (this.hasInput) {
      (p as { input?: Json }).input = this.input;
      if (text && text.length > 0) (p as { inputText?: string }).inputText = text.toString();
      return p;
    }
    if (text && text.length > 0) {
      // Streaming: input and inputText are computed when read, for the length the input had now.
      const length = text.length;
      Object.defineProperty(p, 'inputText', { enumerable: true, configurable: true, get: () => text.prefix(length) });
      Object.defineProperty(p, 'input', { enumerable: true, configurable: true, get: () => this.partialInput(length) });
    }
    return p;
  }
}

class PlainState<P extends UiPart> implements PartState {
  dirty = true;
  snap: P | undefined;
  part: P;
  constructor(part: P) {
    this.part = part;
  }
  build(): P {
    return { ...this.part };
  }
}

/** A new reasoning part (its text lives in the state's buffer). */
function reasoningPart(
  e: CanonicalEvent & { blockId: string },
  variant: ReasoningVariant,
  pm: ProviderMetadata | undefined,
  receivedAt: number,
): Omit<ReasoningPart, 'text'> {
  const part: Omit<ReasoningPart, 'text'> = {
    type: 'reasoning',
    ...base(e, e.blockId),
    blockId: e.blockId,
    variant,
    state: 'streaming',
    startedAt: e.ts,
    receivedAt,
  };
  if (pm) part.providerMetadata = pm;
  return part;
}

/** A new text part (its text and citations live in the state). */
function textPart(e: CanonicalEvent & { blockId: string }, pm: ProviderMetadata | undefined): Omit<TextPart, 'text' | 'citations'> {
  const part: Omit<TextPart, 'text' | 'citations'> = {
    type: 'text',
    ...base(e, e.blockId),
    blockId: e.blockId,
    state: 'streaming',
    startedAt: e.ts,
  };
  if (pm) part.providerMetadata = pm;
  return part;
}

/** A new tool part, its input still streaming. */
function toolPart(e: CanonicalEvent & { toolCallId: string }, toolName: string | undefined, receivedAt: number): ToolPart {
  return {
    type: 'tool',
    ...base(e, e.toolCallId),
    toolCallId: e.toolCallId,
    toolName: toolName ?? 'unknown',
    state: 'input-streaming',
    startedAt: e.ts,
    receivedAt,
  };
}

/** The parts as read: each changed part rebuilt, the others as they were last read. */
function rebuildParts(parts: readonly PartState[]): UiPart[] {
  const next: UiPart[] = new Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i];
    if (s.dirty || !s.snap) {
      s.snap = s.build();
      s.dirty = false;
    }
    next[i] = s.snap;
  }
  return next;
}

/** What `assemble` makes a message of: the accumulator's run-level state. */
interface RunView {
  runId: string | undefined;
  runStart: EventOf<'run-start'> | undefined;
  closed: EventOf<'run-finish'> | EventOf<'run-abort'> | undefined;
  model: string | undefined;
  text: TextBuffer;
  parts: UiPart[];
  errors: ErrorPart[];
  lastSeq: number;
  todos: PlainState<TodosPart> | undefined;
  usage: Usage | undefined;
  state: Json | undefined;
  activity: { status: string; message?: string } | undefined;
  firstTs: number | undefined;
  lastTs: number | undefined;
}

/** The message of a run's state: status, text, parts and the run's metadata. */
function assemble(v: RunView): AccumulatedMessage {
  const { runStart, closed } = v;
  let status: MessageStatus = 'streaming';
  if (closed?.type === 'run-abort') status = 'aborted';
  else if (closed) status = closed.finishReason === 'error' ? 'error' : 'complete';
  const m: AccumulatedMessage = {
    id: runStart?.messageId ?? v.runId ?? '',
    runId: v.runId ?? '',
    role: 'assistant',
    status,
    text: v.text.toString(),
    parts: v.parts,
    errors: v.errors.slice(),
    lastSeq: v.lastSeq,
  };
  if (runStart?.chatId !== undefined) m.chatId = runStart.chatId;
  if (v.model !== undefined) m.model = v.model;
  if (runStart?.provider !== undefined) m.provider = runStart.provider;
  if (runStart?.agent !== undefined) m.agent = runStart.agent;
  if (runStart?.metadata !== undefined) m.metadata = runStart.metadata;
  if (v.todos) m.todos = v.todos.part.todos;
  if (v.usage) m.usage = v.usage;
  if (closed?.type === 'run-finish') {
    m.finishReason = closed.finishReason;
    if (closed.rawFinishReason !== undefined) m.rawFinishReason = closed.rawFinishReason;
  } else if (closed?.type === 'run-abort' && closed.reason !== undefined) m.abortReason = closed.reason;
  if (v.state !== undefined) m.state = v.state;
  if (v.activity) m.activity = v.activity;
  if (v.firstTs !== undefined) {
    m.startedAt = runStart?.ts ?? v.firstTs;
    m.endedAt = v.lastTs;
  }
  return m;
}

/**
 * Creates a message accumulator for one run.
 *
 * @example
 * const acc = createMessageAccumulator();
 * for await (const event of readStream(response, 'ai-sdk')) {
 *   acc.apply(event);
 *   scheduleRender(); // render reads acc.message once per frame
 * }
 */
export function createMessageAccumulator(options: MessageAccumulatorOptions = {}): MessageAccumulator {
  const now = options.now ?? Date.now;
  const work = options.work ?? createWorkCounter();

  const parts: PartState[] = [];
  /** Set when a part was added or changed since the last snapshot. */
  let partsChanged = false;
  let version = 0;
  let cached: AccumulatedMessage | undefined;
  let cachedVersion = -1;
  let cachedParts: UiPart[] = [];

  let runId: string | undefined;
  let runStart: EventOf<'run-start'> | undefined;
  let closed: EventOf<'run-finish'> | EventOf<'run-abort'> | undefined;
  let lastSeq = -1;
  let firstTs: number | undefined;
  let lastTs: number | undefined;
  const text = new TextBuffer('', work);
  const openText = new Map<string, TextState>();
  const openReasoning = new Map<string, ReasoningState>();
  const tools = new Map<string, ToolCallState>();
  const steps = new Map<string, PlainState<StepPart>>();
  const subagents = new Map<string, PlainState<SubagentPart>>();
  const sources = new Set<string>();
  let todos: PlainState<TodosPart> | undefined;
  const errors: ErrorPart[] = [];
  let finishUsage: Usage | undefined;
  let totalUsage: Usage | undefined;
  let summedUsage: Usage | undefined;
  let state: Json | undefined;
  let activity: { status: string; message?: string } | undefined;
  let model: string | undefined;

  function add<S extends PartState>(s: S): S {
    parts.push(s);
    partsChanged = true;
    return s;
  }
  function touch(s: PartState): void {
    s.dirty = true;
    partsChanged = true;
  }

  function startReasoning(
    e: CanonicalEvent & { blockId: string },
    variant: ReasoningVariant,
    pm: ProviderMetadata | undefined,
  ): ReasoningState {
    const s = add(new ReasoningState(reasoningPart(e, variant, pm, now()), work));
    s.startPm = pm;
    openReasoning.set(e.blockId, s);
    return s;
  }

  function startText(e: CanonicalEvent & { blockId: string }, pm: ProviderMetadata | undefined): TextState {
    const s = add(new TextState(textPart(e, pm), work));
    openText.set(e.blockId, s);
    return s;
  }

  function tool(e: CanonicalEvent & { toolCallId: string }, toolName: string | undefined): ToolCallState {
    let s = tools.get(e.toolCallId);
    if (!s) {
      s = add(new ToolCallState(toolPart(e, toolName, now()), work));
      tools.set(e.toolCallId, s);
    } else touch(s);
    if (toolName !== undefined) s.part.toolName = toolName;
    return s;
  }

  function finishTool(s: ToolCallState, e: CanonicalEvent): void {
    s.part.endedAt = e.ts;
    s.part.durationMs = e.ts - s.part.startedAt;
  }

  function apply(e: CanonicalEvent): boolean {
    if (closed || e.seq <= lastSeq) return false;
    if (runId === undefined) runId = e.runId;
    else if (e.runId !== runId) return false;
    lastSeq = e.seq;
    firstTs ??= e.ts;
    lastTs = e.ts;
    version++;
    switch (e.type) {
      case 'run-start':
        runStart ??= e;
        model ??= e.model;
        break;
      case 'run-finish':
      case 'run-abort':
        closed = e;
        if (e.type === 'run-finish' && e.usage) finishUsage = e.usage;
        // Whatever is still open ends with the run.
        for (const s of openText.values()) endText(s, e.ts, undefined);
        for (const s of openReasoning.values()) endReasoning(s, e.ts, undefined);
        openText.clear();
        openReasoning.clear();
        break;
      case 'step-start': {
        const part: StepPart = {
          type: 'step',
          ...base(e, `step:${e.stepId}`),
          stepId: e.stepId,
          kind: e.kind,
          state: 'running',
          startedAt: e.ts,
          receivedAt: now(),
        };
        if (e.name !== undefined) part.name = e.name;
        if (e.number !== undefined) part.number = e.number;
        if (e.model !== undefined) {
          part.model = e.model;
          model ??= e.model;
        }
        steps.set(e.stepId, add(new PlainState(part)));
        break;
      }
      case 'step-finish': {
        if (e.usage && e.subagentId === undefined) summedUsage = addUsage(summedUsage, e.usage);
        const s = steps.get(e.stepId);
        if (!s) break;
        steps.delete(e.stepId);
        touch(s);
        s.part.state = 'done';
        s.part.endedAt = e.ts;
        s.part.durationMs = e.durationMs ?? e.ts - s.part.startedAt;
        if (e.finishReason !== undefined) s.part.finishReason = e.finishReason;
        if (e.rawFinishReason !== undefined) s.part.rawFinishReason = e.rawFinishReason;
        if (e.usage) s.part.usage = e.usage;
        break;
      }
      case 'reasoning-start':
        startReasoning(e, e.variant, e.providerMetadata);
        break;
      case 'reasoning-delta': {
        const s = openReasoning.get(e.blockId) ?? startReasoning(e, 'thinking', undefined);
        s.text.append(e.delta);
        touch(s);
        break;
      }
      case 'reasoning-end': {
        const s = openReasoning.get(e.blockId);
        if (!s) break;
        openReasoning.delete(e.blockId);
        endReasoning(s, e.ts, e.providerMetadata);
        break;
      }
      case 'text-start':
        startText(e, e.providerMetadata);
        break;
      case 'text-delta': {
        const s = openText.get(e.blockId) ?? startText(e, undefined);
        s.text.append(e.delta);
        if (e.subagentId === undefined) text.append(e.delta);
        touch(s);
        break;
      }
      case 'citation': {
        const s = openText.get(e.blockId);
        if (!s) break;
        s.citations ??= [];
        s.citations.push(e.citation);
        touch(s);
        break;
      }
      case 'text-end': {
        const s = openText.get(e.blockId);
        if (!s) break;
        openText.delete(e.blockId);
        endText(s, e.ts, e.providerMetadata);
        break;
      }
      case 'tool-input-start': {
        const s = tool(e, e.toolName);
        s.part.state = 'input-streaming';
        s.text = new TextBuffer('', work);
        s.hasInput = false;
        if (e.providerExecuted) s.part.providerExecuted = true;
        if (e.providerMetadata) s.part.providerMetadata = e.providerMetadata;
        break;
      }
      case 'tool-input-delta': {
        const s = tool(e, undefined);
        s.text ??= new TextBuffer('', work);
        s.text.append(e.delta);
        break;
      }
      case 'tool-input-end': {
        const s = tool(e, e.toolName);
        s.input = e.input;
        s.hasInput = true;
        if (e.providerExecuted !== undefined) s.part.providerExecuted = e.providerExecuted;
        if (e.providerMetadata) s.part.providerMetadata = mergeProviderMetadata(s.part.providerMetadata, e.providerMetadata);
        if (e.inputError !== undefined) {
          s.part.state = 'output-error';
          s.part.inputError = e.inputError;
          s.part.errorText = e.inputError;
          finishTool(s, e);
        } else s.part.state = 'input-available';
        break;
      }
      case 'tool-output': {
        const s = tool(e, e.toolName);
        if (!s.hasInput && !s.text) {
          // An output for a call whose input was never seen.
          s.hasInput = true;
          s.input = {};
        }
        s.part.state = 'output-available';
        s.part.output = e.output;
        delete s.part.errorText;
        if (e.preliminary) s.part.preliminary = true;
        else delete s.part.preliminary;
        if (e.providerExecuted !== undefined) s.part.providerExecuted = e.providerExecuted;
        if (e.providerMetadata) s.part.resultProviderMetadata = e.providerMetadata;
        finishTool(s, e);
        break;
      }
      case 'tool-error': {
        const s = tool(e, e.toolName);
        if (!s.hasInput && !s.text) {
          s.hasInput = true;
          s.input = {};
        }
        s.part.state = 'output-error';
        s.part.errorText = e.error;
        delete s.part.output;
        delete s.part.preliminary;
        if (e.output !== undefined) s.part.errorOutput = e.output;
        if (e.providerExecuted !== undefined) s.part.providerExecuted = e.providerExecuted;
        if (e.providerMetadata) s.part.resultProviderMetadata = e.providerMetadata;
        finishTool(s, e);
        break;
      }
      case 'todos':
        if (e.subagentId !== undefined) {
          add(new PlainState<TodosPart>({ type: 'todos', ...base(e, `todos:${e.seq}`), change: e.change, todos: e.todos }));
          break;
        }
        if (!todos) todos = add(new PlainState<TodosPart>({ type: 'todos', ...base(e, 'todos'), change: e.change, todos: e.todos }));
        else {
          touch(todos);
          todos.part.change = e.change;
          todos.part.todos = e.todos;
        }
        break;
      case 'source': {
        if (sources.has(e.sourceId)) break;
        sources.add(e.sourceId);
        const part: SourcePart = { type: 'source', ...base(e, `source:${e.sourceId}`), sourceId: e.sourceId, kind: e.kind };
        if (e.url !== undefined) part.url = e.url;
        if (e.title !== undefined) part.title = e.title;
        if (e.mediaType !== undefined) part.mediaType = e.mediaType;
        if (e.filename !== undefined) part.filename = e.filename;
        if (e.providerMetadata) part.providerMetadata = e.providerMetadata;
        add(new PlainState(part));
        break;
      }
      case 'file': {
        const part: FilePart = { type: 'file', ...base(e, `file:${e.seq}`), url: e.url, mediaType: e.mediaType };
        if (e.filename !== undefined) part.filename = e.filename;
        if (e.providerMetadata) part.providerMetadata = e.providerMetadata;
        add(new PlainState(part));
        break;
      }
      case 'subagent-start': {
        const part: SubagentPart = {
          type: 'subagent',
          key: `subagent:${e.subagentId}`,
          seq: e.seq,
          subagentId: e.subagentId,
          name: e.name,
          state: 'running',
          startedAt: e.ts,
          receivedAt: now(),
        };
        if (e.task !== undefined) part.task = e.task;
        if (e.parentToolCallId !== undefined) part.parentToolCallId = e.parentToolCallId;
        if (e.parentSubagentId !== undefined) part.parentSubagentId = e.parentSubagentId;
        subagents.set(e.subagentId, add(new PlainState(part)));
        break;
      }
      case 'subagent-finish': {
        const s = subagents.get(e.subagentId);
        if (!s) break;
        touch(s);
        s.part.state = e.error !== undefined ? 'error' : 'done';
        if (e.result !== undefined) s.part.result = e.result;
        if (e.error !== undefined) s.part.error = e.error;
        s.part.endedAt = e.ts;
        s.part.durationMs = e.ts - s.part.startedAt;
        break;
      }
      case 'usage':
        if (e.subagentId !== undefined) break;
        if (e.scope === 'total') totalUsage = e.usage;
        else summedUsage = addUsage(summedUsage, e.usage);
        break;
      case 'error': {
        const part: ErrorPart = { type: 'error', ...base(e, `error:${e.seq}`), message: e.message, fatal: e.fatal, ts: e.ts };
        if (e.code !== undefined) part.code = e.code;
        if (e.where !== undefined) part.where = e.where;
        errors.push(part);
        add(new PlainState(part));
        break;
      }
      case 'status':
        activity = e.message !== undefined ? { status: e.status, message: e.message } : { status: e.status };
        break;
      case 'state-snapshot':
        state = e.state;
        break;
      case 'state-delta':
        try {
          state = applyJsonPatch(state ?? {}, e.patch) as Json;
        } catch (err) {
          const part: ErrorPart = {
            type: 'error',
            ...base(e, `error:${e.seq}`),
            message: `state-delta could not be applied: ${(err as Error).message}`,
            code: 'state_patch',
            fatal: false,
            ts: e.ts,
          };
          errors.push(part);
          add(new PlainState(part));
        }
        break;
      case 'custom':
        add(new PlainState<CustomPart>({ type: 'custom', ...base(e, `custom:${e.seq}`), name: e.name, value: e.value }));
        break;
      case 'raw':
        break;
    }
    return true;
  }

  function endText(s: TextState, ts: number, pm: ProviderMetadata | undefined): void {
    touch(s);
    s.part.state = 'done';
    s.part.endedAt = ts;
    if (pm) s.part.providerMetadata = pm;
  }

  function endReasoning(s: ReasoningState, ts: number, pm: ProviderMetadata | undefined): void {
    touch(s);
    s.part.state = 'done';
    s.part.endedAt = ts;
    s.part.durationMs = ts - s.part.startedAt;
    const merged = mergeProviderMetadata(s.startPm, pm);
    if (merged) s.part.providerMetadata = merged;
  }

  function snapshot(): AccumulatedMessage {
    if (cached && cachedVersion === version) return cached;
    if (partsChanged) {
      cachedParts = rebuildParts(parts);
      partsChanged = false;
    }
    const usage = finishUsage ?? totalUsage ?? summedUsage;
    cached = assemble({
      runId,
      runStart,
      closed,
      model,
      text,
      parts: cachedParts,
      errors,
      lastSeq,
      todos,
      usage,
      state,
      activity,
      firstTs,
      lastTs,
    });
    cachedVersion = version;
    return cached;
  }

  const acc: MessageAccumulator = {
    apply,
    applyAll(events) {
      for (const e of events) apply(e);
      return acc;
    },
    get message() {
      return snapshot();
    },
    get version() {
      return version;
    },
    get work() {
      return work;
    },
  };
  return acc;
}
