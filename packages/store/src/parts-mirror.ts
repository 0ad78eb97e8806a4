/**
 * The ordered `parts` of a persisted assistant message: exactly what the AI SDK encoder
 * (`protocols/ai-sdk/encoder.ts` in core) sends and the official `readUIMessageStream` assembles
 * from it — the same step boundaries (explicit and the encoder's implicit ones), the same tool-part
 * lookups, data parts replaced by id, source URLs deduplicated, citations numbered `citation-<n>` —
 * plus what the store keeps beside them (seq, server times, subagent, block ids). That is what makes
 * a reloaded `UIMessage` (history.ts) equal the one the client built live.
 *
 * Incremental: text is kept as chunk lists and joined only by `flush()` (at snapshot time).
 */
import {
  type CanonicalEvent,
  type EventOf,
  type Json,
  type JsonObject,
  type ProviderMetadata,
  parsePartialJson,
  type ReasoningVariant,
  TextBuffer,
} from '@switchboard/core';
import {
  type DataPart,
  type FilePart,
  type MessagePart,
  mergeProviderMetadata,
  type ReasoningPart,
  type SourceInfo,
  type SourcePart,
  type StepStartPart,
  type StoredCitation,
  type TextPart,
  type ToolPart,
} from './message.ts';

interface ReasoningState {
  part: ReasoningPart;
  text: TextBuffer;
  startPm?: ProviderMetadata;
}
interface TextState {
  part: TextPart;
  text: TextBuffer;
}
interface ToolInputState {
  part: ToolPart | undefined;
  text: TextBuffer;
}

/** A canonical source as the message's `sources` list keeps it. */
export function sourceInfo(e: EventOf<'source'>): SourceInfo {
  const s: SourceInfo = { sourceId: e.sourceId, kind: e.kind };
  if (e.url !== undefined) s.url = e.url;
  if (e.title !== undefined) s.title = e.title;
  if (e.mediaType !== undefined) s.mediaType = e.mediaType;
  if (e.filename !== undefined) s.filename = e.filename;
  if (e.providerMetadata) s.providerMetadata = e.providerMetadata;
  return s;
}

function endText(t: TextState, ts: number, seq: number, pm: ProviderMetadata | undefined): void {
  t.part.text = t.text.toString();
  t.part.endSeq = seq;
  t.part.state = 'done';
  t.part.endedAt = ts;
  if (pm) t.part.providerMetadata = pm;
}

function endReasoning(r: ReasoningState, ts: number, pm: ProviderMetadata | undefined): void {
  r.part.text = r.text.toString();
  r.part.state = 'done';
  r.part.endedAt = ts;
  r.part.durationMs = ts - r.part.startedAt;
  const merged = mergeProviderMetadata(r.startPm, pm);
  if (merged) r.part.providerMetadata = merged;
}

/** A tool part by call id, searched backwards down to (not including) index `after`: readUIMessageStream's lookups (-1: the whole message). */
function toolIn(parts: readonly MessagePart[], toolCallId: string, after = -1): ToolPart | undefined {
  for (let i = parts.length - 1; i > after; i--) {
    const p = parts[i];
    if (p.type === 'tool' && p.toolCallId === toolCallId) return p;
  }
  return undefined;
}

/**
 * An approval asked for, or answered, as the AI SDK client keeps it on the tool part: asked →
 * `approval-requested` with `approval: { id, requestReason? }`; answered → `approval-responded` with
 * the answer in `approval` (what `addToolApprovalResponse` sets on the client before it sends),
 * and a denial then `output-denied` (the encoder's `tool-output-denied`).
 */
function approval(
  m: { parts: MessagePart[]; knownTools: ReadonlySet<string>; earlier: Set<string>; approvals: Map<string, string> },
  e: EventOf<'tool-approval-request'> | EventOf<'tool-approval-response'>,
): void {
  if (e.type === 'tool-approval-request') {
    const known = m.knownTools.has(e.toolCallId) || m.earlier.has(e.toolCallId);
    const part = known ? toolIn(m.parts, e.toolCallId) : undefined;
    if (!part) return;
    m.approvals.set(e.approvalId, e.toolCallId);
    part.state = 'approval-requested';
    part.approval = { id: e.approvalId, ...(e.reason !== undefined ? { requestReason: e.reason } : {}) };
    return;
  }
  const toolCallId = m.approvals.get(e.approvalId) ?? e.toolCallId;
  if (toolCallId !== undefined && !m.knownTools.has(toolCallId)) m.earlier.add(toolCallId);
  // The client looks the part up by approval id (the first with it); a denial read from a bare
  // tool-output-denied sends no approval chunk (the encoder's `deniedOnly`).
  const chunk = e.providerMetadata?.['ai-sdk']?.deniedOnly !== true;
  const part = chunk ? m.parts.find((p): p is ToolPart => p.type === 'tool' && p.approval?.id === e.approvalId) : undefined;
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
  }
  if (e.approved || toolCallId === undefined) return;
  // tool-output-denied settles the call.
  const denied = toolIn(m.parts, toolCallId);
  if (!denied) return;
  denied.state = 'output-denied';
  denied.endedAt = e.ts;
  denied.durationMs = e.ts - denied.startedAt;
}

/** The AI SDK parts of one run, built event by event. */
export class PartsMirror {
  /** The parts so far (open blocks' text is brought up to date by `flush`). */
  readonly parts: MessagePart[] = [];
  /** Source URLs already shown (a source with one of them is not shown again). */
  readonly sourceUrls = new Set<string>();
  /** The message's sources list: the mirror adds the URL sources of citations to it. */
  private readonly sources: SourceInfo[];
  private stepOpen = false;
  private readonly openText = new Map<string, TextState>();
  private readonly openReasoning = new Map<string, ReasoningState>();
  /** Tool calls the encoder knows in this run (it never forgets one). */
  readonly knownTools = new Set<string>();
  /** Tool calls of the message this run continues, answered in it (the encoder's `earlier`). */
  readonly earlier = new Set<string>();
  /** Whether a step has opened in this run (a continuation's answers come before the first). */
  private stepped = false;
  /** Tool calls whose input streams (readUIMessageStream's partialToolCalls). */
  private readonly toolInputs = new Map<string, ToolInputState>();
  private readonly pendingCitations = new Map<string, StoredCitation[]>();
  private citationCount = 0;
  private readonly dataById = new Map<string, DataPart>();
  /** approvalId → toolCallId of the approvals asked in this run. */
  readonly approvals = new Map<string, string>();
  /** Index of the last step-start part (current step = parts after it). */
  private stepIndex = -1;

  constructor(sources: SourceInfo[]) {
    this.sources = sources;
  }

  /** Brings the streamed text of open blocks and the partial input of streaming tool calls into their parts. */
  flush(): void {
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
  }

  /**
   * The next run of the message (a continuation run): the encoder starts afresh (its tool calls,
   * citation numbers, source URLs), the client goes on with the parts it has.
   */
  newRun(): void {
    this.stepOpen = false;
    this.knownTools.clear();
    this.earlier.clear();
    this.approvals.clear();
    this.toolInputs.clear();
    this.pendingCitations.clear();
    this.sourceUrls.clear();
    this.citationCount = 0;
    this.stepped = false;
  }

  /** The encoder's test: an output for a call of the continued message (no step, no part opened for it). */
  private continued(toolCallId: string): boolean {
    if (this.knownTools.has(toolCallId)) return false;
    if (!this.stepped) this.earlier.add(toolCallId);
    return this.earlier.has(toolCallId);
  }

  private ensureStep(e: CanonicalEvent): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    this.stepped = true;
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
    for (const t of this.openText.values()) endText(t, ts, seq, undefined);
    this.openText.clear();
    for (const r of this.openReasoning.values()) endReasoning(r, ts, undefined);
    this.openReasoning.clear();
    this.stepOpen = false;
  }

  private startText(e: CanonicalEvent & { blockId: string }, pm: ProviderMetadata | undefined): TextState {
    this.ensureStep(e);
    const part: TextPart = { type: 'text', seq: e.seq, blockId: e.blockId, text: '', state: 'streaming', startedAt: e.ts };
    if (pm) part.providerMetadata = pm;
    if (e.subagentId !== undefined) part.subagentId = e.subagentId;
    const t: TextState = { part, text: new TextBuffer() };
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
    const r: ReasoningState = { part, text: new TextBuffer() };
    if (pm) r.startPm = pm;
    this.openReasoning.set(e.blockId, r);
    this.parts.push(part);
    return r;
  }

  /** readUIMessageStream's lookup of a static tool part in the current step. */
  private toolInStep(toolCallId: string): ToolPart | undefined {
    return toolIn(this.parts, toolCallId, this.stepIndex);
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

  /** Follows one event (in seq order, each once). */
  apply(e: CanonicalEvent): void {
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
        t.text.append(e.delta);
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
        endText(t, e.ts, e.seq, e.providerMetadata);
        return;
      }
      case 'reasoning-start':
        this.startReasoning(e, e.variant, e.providerMetadata);
        return;
      case 'reasoning-delta': {
        const r = this.openReasoning.get(e.blockId) ?? this.startReasoning(e, 'thinking', undefined);
        r.text.append(e.delta);
        return;
      }
      case 'reasoning-end': {
        const r = this.openReasoning.get(e.blockId);
        if (!r) return;
        this.openReasoning.delete(e.blockId);
        endReasoning(r, e.ts, e.providerMetadata);
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
        this.toolInputs.set(e.toolCallId, { part, text: new TextBuffer() });
        return;
      }
      case 'tool-input-delta': {
        if (!this.knownTools.has(e.toolCallId)) return;
        const t = this.toolInputs.get(e.toolCallId);
        if (!t) return;
        t.text.append(e.delta);
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
        if (streamed && streamed.text.length > 0) part.inputText = streamed.text.toString();
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
        if (!this.continued(e.toolCallId)) {
          this.ensureStep(e);
          if (!this.knownTools.has(e.toolCallId)) {
            // The encoder synthesises a call for an output of an unseen call.
            this.knownTools.add(e.toolCallId);
            const synthetic = this.toolInStep(e.toolCallId) ?? this.newTool(e, e.toolCallId, e.toolName ?? 'unknown');
            synthetic.state = 'input-available';
            synthetic.input = {};
          }
        }
        const part = toolIn(this.parts, e.toolCallId);
        if (!part) return;
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
      case 'tool-approval-request':
      case 'tool-approval-response':
        approval(this, e);
        return;
      case 'client-tool-call':
        return;
      case 'interrupt':
      case 'interrupt-response': {
        // The encoder's data-interrupt / data-interrupt-response parts, by interrupt id.
        const { type, runId: _r, seq: _s, ts: _t, subagentId: _a, ...data } = e;
        this.data(e, type, e.interruptId, data as JsonObject);
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
}
