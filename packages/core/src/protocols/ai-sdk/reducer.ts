/**
 * The AI SDK message reducer: UI message stream chunks → the `UIMessage` the official client
 * (`readUIMessageStream` / `useChat`) assembles from them, without the client. Tested equal to the
 * official `readUIMessageStream` on the recorded fixtures.
 *
 * Linear, unlike the official step (which appends to strings and re-parses the partial tool input
 * on every delta): text, reasoning and tool input are chunk lists, joined only when `message` is
 * read, and a streaming tool input is parsed (partial JSON) at most once per read. Parts that did
 * not change since the previous read keep their identity (cheap re-renders).
 *
 * Rules of the official client kept here: parts in chunk order; `start-step` adds a `step-start`
 * part; a tool part is looked up in the current step (then the whole message, for outputs); data
 * parts with an id are replaced in place, transient ones are not kept; message metadata is merged;
 * a step-start is shown once something follows it.
 * Bad input never throws: a delta of a part that is not open, or an output of an unknown call, is
 * ignored (the official client fails the stream there).
 */
import type { Json, JsonObject } from '../../model/events.ts';
import { parsePartialJson } from '../../transforms/partial-json.ts';
import { TextBuffer } from '../../transforms/text-buffer.ts';

/** One UI message stream chunk (loose: the reducer reads the fields it needs). */
export type AiSdkChunkLike = { type: string } & Record<string, unknown>;

/** One part of a `UIMessage` (loose, as the official `UIMessage` parts are a wide union). */
export type UIMessagePartLike = { type: string } & Record<string, unknown>;

/** An AI SDK `UIMessage` (structural). */
export interface UIMessageLike {
  id: string;
  role: 'system' | 'user' | 'assistant';
  metadata?: unknown;
  parts: UIMessagePartLike[];
}

/** Reads chunks into one assistant `UIMessage`. */
export interface AiSdkReducer {
  /** Applies one chunk. */
  apply(chunk: AiSdkChunkLike): void;
  /** Applies chunks in order. */
  applyAll(chunks: Iterable<AiSdkChunkLike>): this;
  /** The message so far: a new array; a part that did not change since the last read is the same object. Treat as immutable. */
  readonly message: UIMessageLike;
  /** `finishReason` of the `finish` chunk, once there was one. */
  readonly finishReason: string | undefined;
  /** `errorText` of every `error` chunk, in order. */
  readonly errors: string[];
}

export interface AiSdkReducerOptions {
  /** The message id until a `start` chunk brings one. Default `''`. */
  messageId?: string;
}

type Part = Record<string, unknown> & { type: string };
interface Streaming {
  part: Part;
  text: TextBuffer;
}
interface PartialCall {
  text: TextBuffer;
  inputEncoding: unknown;
  toolName: string;
  dynamic: boolean;
  title: unknown;
  toolMetadata: unknown;
}

const isToolPart = (p: Part): boolean => p.type === 'dynamic-tool' || p.type.startsWith('tool-');
const isOutputState = (state: unknown): boolean => state === 'output-available' || state === 'output-error';

function mergeObjects(base: unknown, overrides: unknown): unknown {
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return overrides;
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) return overrides;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(overrides as Record<string, unknown>)) out[k] = k in out ? mergeObjects(out[k], v) : v;
  return out;
}

/** Sets or deletes (undefined) a field, so parts carry no undefined fields. */
function set(p: Part, key: string, value: unknown): void {
  if (value === undefined) delete p[key];
  else p[key] = value;
}

/**
 * Creates an AI SDK message reducer.
 *
 * @example
 * const reducer = createAiSdkReducer();
 * for (const chunk of encode(events, 'ai-sdk')) reducer.apply(chunk);
 * render(reducer.message);
 */
export function createAiSdkReducer(options: AiSdkReducerOptions = {}): AiSdkReducer {
  let id = options.messageId ?? '';
  let metadata: unknown;
  const parts: Part[] = [];
  /** Index of the last step-start part (the current step is what follows it). */
  let stepStart = -1;
  let texts = new Map<string, Streaming>();
  let reasonings = new Map<string, Streaming>();
  let calls = new Map<string, PartialCall>();
  /** Tool parts whose input is still streaming (their input is parsed when the message is read). */
  const streamingInputs = new Map<Part, PartialCall>();
  let finishReason: string | undefined;
  const errors: string[] = [];
  /** The snapshot each part was last read as, and the parts changed since (the others keep their identity). */
  let snaps = new WeakMap<Part, Part>();
  const dirty = new Set<Part>();

  function currentStepTool(toolCallId: string, dynamic: boolean | undefined): Part | undefined {
    for (let i = parts.length - 1; i > stepStart; i--) {
      const p = parts[i];
      if (p.toolCallId !== toolCallId || !isToolPart(p)) continue;
      if (dynamic === undefined || (p.type === 'dynamic-tool') === dynamic) return p;
    }
    return undefined;
  }

  function anyTool(toolCallId: string): Part | undefined {
    const inStep = currentStepTool(toolCallId, undefined);
    if (inStep) return inStep;
    for (let i = parts.length - 1; i >= 0; i--) if (isToolPart(parts[i]) && parts[i].toolCallId === toolCallId) return parts[i];
    return undefined;
  }

  /** The official `updateToolPart` / `updateDynamicToolPart`: update the call's part or add one. */
  function updateTool(c: Record<string, unknown>, dynamic: boolean, existing?: Part): Part {
    const toolName = c.toolName as string;
    const pm = c.providerMetadata;
    const pmKey = isOutputState(c.state) ? 'resultProviderMetadata' : 'callProviderMetadata';
    const part = existing ?? currentStepTool(c.toolCallId as string, dynamic);
    if (part) {
      part.state = c.state;
      if (dynamic) part.toolName = toolName;
      else part.type = `tool-${toolName}`;
      for (const k of ['input', 'output', 'errorText', 'rawInput', 'inputEncoding', 'preliminary'] as const) set(part, k, c[k]);
      if (c.title !== undefined) part.title = c.title;
      if (c.toolMetadata !== undefined) part.toolMetadata = c.toolMetadata;
      set(part, 'providerExecuted', c.providerExecuted ?? part.providerExecuted);
      if (pm != null) part[pmKey] = pm;
      dirty.add(part);
      return part;
    }
    const created: Part = dynamic
      ? { type: 'dynamic-tool', toolName, toolCallId: c.toolCallId, state: c.state }
      : { type: `tool-${toolName}`, toolCallId: c.toolCallId, state: c.state };
    for (const k of [
      'title',
      'toolMetadata',
      'input',
      'inputEncoding',
      'output',
      'rawInput',
      'errorText',
      'providerExecuted',
      'preliminary',
    ])
      set(created, k, c[k]);
    if (pm != null) created[pmKey] = pm;
    parts.push(created);
    return created;
  }

  function startBlock(map: Map<string, Streaming>, chunk: AiSdkChunkLike, reasoning: boolean): void {
    const part: Part = reasoning ? { type: 'reasoning', text: '', state: 'streaming' } : { type: 'text', text: '', state: 'streaming' };
    set(part, 'providerMetadata', chunk.providerMetadata);
    map.set(chunk.id as string, { part, text: new TextBuffer() });
    parts.push(part);
  }

  function blockDelta(map: Map<string, Streaming>, chunk: AiSdkChunkLike): void {
    const b = map.get(chunk.id as string);
    if (!b) return;
    b.text.append(chunk.delta as string);
    if (chunk.providerMetadata != null) b.part.providerMetadata = chunk.providerMetadata;
    dirty.add(b.part);
  }

  function endBlock(map: Map<string, Streaming>, chunk: AiSdkChunkLike): void {
    const b = map.get(chunk.id as string);
    if (!b) return;
    b.part.text = b.text.toString();
    b.part.state = 'done';
    if (chunk.citations != null) b.part.citations = chunk.citations;
    if (chunk.providerMetadata != null) b.part.providerMetadata = chunk.providerMetadata;
    dirty.add(b.part);
    map.delete(chunk.id as string);
  }

  function toolChunk(chunk: AiSdkChunkLike): void {
    const toolCallId = chunk.toolCallId as string;
    switch (chunk.type) {
      case 'tool-input-start': {
        const call: PartialCall = {
          text: new TextBuffer(),
          inputEncoding: chunk.inputEncoding,
          toolName: chunk.toolName as string,
          dynamic: chunk.dynamic === true,
          title: chunk.title,
          toolMetadata: chunk.toolMetadata,
        };
        calls.set(toolCallId, call);
        const part = updateTool({ ...chunk, state: 'input-streaming', input: undefined }, call.dynamic);
        streamingInputs.set(part, call);
        return;
      }
      case 'tool-input-delta': {
        const call = calls.get(toolCallId);
        if (!call) return;
        call.text.append(chunk.inputTextDelta as string);
        const c = { toolCallId, toolName: call.toolName, state: 'input-streaming', inputEncoding: call.inputEncoding };
        const part = updateTool({ ...c, title: call.title, toolMetadata: call.toolMetadata }, call.dynamic);
        streamingInputs.set(part, call);
        return;
      }
      case 'tool-input-available': {
        const part = updateTool({ ...chunk, state: 'input-available' }, chunk.dynamic === true);
        streamingInputs.delete(part);
        return;
      }
      case 'tool-input-error': {
        const existing = currentStepTool(toolCallId, undefined);
        const dynamic = existing ? existing.type === 'dynamic-tool' : chunk.dynamic === true;
        const { title: _title, ...rest } = chunk;
        const part = updateTool({ ...rest, state: 'output-error' }, dynamic);
        streamingInputs.delete(part);
        return;
      }
      default:
        outputChunk(chunk);
    }
  }

  function outputChunk(chunk: AiSdkChunkLike): void {
    const part = chunk.type === 'tool-approval-response' ? undefined : anyTool(chunk.toolCallId as string);
    if (part) dirty.add(part);
    switch (chunk.type) {
      case 'tool-output-available':
      case 'tool-output-error': {
        if (!part) return;
        const dynamic = part.type === 'dynamic-tool';
        const c: Record<string, unknown> = {
          toolCallId: chunk.toolCallId,
          toolName: dynamic ? part.toolName : part.type.slice(5),
          state: chunk.type === 'tool-output-available' ? 'output-available' : 'output-error',
          input: part.input,
          providerExecuted: chunk.providerExecuted,
          providerMetadata: chunk.providerMetadata,
          title: part.title,
          toolMetadata: chunk.toolMetadata ?? part.toolMetadata,
        };
        if (chunk.type === 'tool-output-available') {
          c.output = chunk.output;
          c.preliminary = chunk.preliminary;
        } else {
          c.errorText = chunk.errorText;
          if (!dynamic) c.rawInput = part.rawInput;
        }
        streamingInputs.delete(part);
        updateTool(c, dynamic, part);
        return;
      }
      case 'tool-output-denied':
        if (part) part.state = 'output-denied';
        return;
      case 'tool-approval-request': {
        if (!part) return;
        part.state = 'approval-requested';
        const approval: Record<string, unknown> = { id: chunk.approvalId };
        if (chunk.approvalDescriptor != null) approval.descriptor = chunk.approvalDescriptor;
        if (Object.hasOwn(chunk, 'inputSchemaInput')) approval.inputSchemaInput = chunk.inputSchemaInput;
        if (chunk.reason != null) approval.requestReason = chunk.reason;
        if (chunk.isAutomatic === true) approval.isAutomatic = true;
        if (chunk.signature != null) approval.signature = chunk.signature;
        part.approval = approval;
        return;
      }
      case 'tool-approval-response': {
        const target = parts.find((p) => isToolPart(p) && (p.approval as { id?: unknown } | undefined)?.id === chunk.approvalId);
        if (!target) return;
        dirty.add(target);
        target.state = 'approval-responded';
        target.approval = {
          ...((target.approval as object | undefined) ?? {}),
          id: chunk.approvalId,
          approved: chunk.approved,
          ...(chunk.reason != null ? { reason: chunk.reason } : {}),
        };
        if (chunk.providerExecuted != null) target.providerExecuted = chunk.providerExecuted;
        if (chunk.providerMetadata != null) target.callProviderMetadata = chunk.providerMetadata;
        return;
      }
    }
  }

  function otherChunk(chunk: AiSdkChunkLike): void {
    switch (chunk.type) {
      case 'file':
      case 'reasoning-file': {
        const p: Part = { type: chunk.type, mediaType: chunk.mediaType, url: chunk.url };
        set(p, 'providerMetadata', chunk.providerMetadata ?? undefined);
        parts.push(p);
        return;
      }
      case 'source-url':
      case 'source-document': {
        const keys = chunk.type === 'source-url' ? ['sourceId', 'url', 'title'] : ['sourceId', 'mediaType', 'title', 'filename'];
        const p: Part = { type: chunk.type };
        for (const k of [...keys, 'providerMetadata']) set(p, k, chunk[k]);
        parts.push(p);
        return;
      }
      case 'custom': {
        const p: Part = { type: 'custom', kind: chunk.kind };
        set(p, 'providerMetadata', chunk.providerMetadata);
        parts.push(p);
        return;
      }
      case 'steering-message':
        parts.push({ type: 'steering-message', id: chunk.id, parts: chunk.parts });
        return;
      default:
        if (!chunk.type.startsWith('data-') || chunk.transient === true) return;
        {
          const existing = chunk.id != null ? parts.find((p) => p.type === chunk.type && p.id === chunk.id) : undefined;
          if (existing) {
            existing.data = chunk.data;
            dirty.add(existing);
          } else parts.push({ ...chunk });
        }
    }
  }

  function apply(chunk: AiSdkChunkLike): void {
    switch (chunk.type) {
      case 'start':
        if (typeof chunk.messageId === 'string' && chunk.messageId !== id) {
          // A new message id starts a new message (the official reader's resetStateOnMessageIdChange).
          reset();
          id = chunk.messageId;
        }
        if (chunk.messageMetadata != null)
          metadata = metadata != null ? mergeObjects(metadata, chunk.messageMetadata) : chunk.messageMetadata;
        return;
      case 'finish':
        if (chunk.finishReason != null) finishReason = chunk.finishReason as string;
        if (chunk.messageMetadata != null)
          metadata = metadata != null ? mergeObjects(metadata, chunk.messageMetadata) : chunk.messageMetadata;
        return;
      case 'message-metadata':
        if (chunk.messageMetadata != null)
          metadata = metadata != null ? mergeObjects(metadata, chunk.messageMetadata) : chunk.messageMetadata;
        return;
      case 'error':
        errors.push(String(chunk.errorText));
        return;
      case 'abort':
      case 'finish-step':
        return;
      case 'start-step':
        stepStart = parts.length;
        parts.push({ type: 'step-start' });
        return;
      case 'reset-step':
        texts = new Map();
        reasonings = new Map();
        calls = new Map();
        parts.splice(stepStart + 1);
        return;
      case 'text-start':
        return startBlock(texts, chunk, false);
      case 'text-delta':
        return blockDelta(texts, chunk);
      case 'text-end':
        return endBlock(texts, chunk);
      case 'reasoning-start':
        startBlock(reasonings, chunk, true);
        (parts.at(-1) as Part).id = chunk.id;
        return;
      case 'reasoning-delta':
        return blockDelta(reasonings, chunk);
      case 'reasoning-end':
        return endBlock(reasonings, chunk);
      default:
        if (chunk.type.startsWith('tool-')) toolChunk(chunk);
        else otherChunk(chunk);
    }
  }

  function reset(): void {
    parts.length = 0;
    snaps = new WeakMap();
    stepStart = -1;
    texts = new Map();
    reasonings = new Map();
    calls = new Map();
    streamingInputs.clear();
    metadata = undefined;
    finishReason = undefined;
  }

  /** The open blocks' text and the streaming inputs, brought into their parts. */
  function flush(): void {
    for (const b of texts.values()) b.part.text = b.text.toString();
    for (const b of reasonings.values()) b.part.text = b.text.toString();
    for (const [part, call] of streamingInputs) {
      if (part.state !== 'input-streaming') continue;
      const text = call.text.toString();
      if (call.text.length === 0 && part.rawInput === undefined && part.input === undefined) continue;
      part.rawInput = text;
      const input = call.inputEncoding === 'text' ? text : (parsePartialJson(text).value as Json | undefined);
      set(part, 'input', input);
    }
  }

  const reducer: AiSdkReducer = {
    apply,
    applyAll(chunks) {
      for (const c of chunks) apply(c);
      return reducer;
    },
    get message() {
      flush();
      // The official reader publishes a step-start only with what follows it: a trailing one is not shown.
      let shown = parts.length;
      while (shown > 0 && parts[shown - 1].type === 'step-start') shown--;
      const out: UIMessagePartLike[] = new Array(shown);
      for (let i = 0; i < shown; i++) {
        const p = parts[i];
        let snap = snaps.get(p);
        if (!snap || dirty.has(p)) {
          snap = structuredClone(p);
          snaps.set(p, snap);
        }
        out[i] = snap;
      }
      dirty.clear();
      const m: UIMessageLike = { id, role: 'assistant', parts: out };
      if (metadata !== undefined) m.metadata = structuredClone(metadata) as JsonObject;
      return m;
    },
    get finishReason() {
      return finishReason;
    },
    get errors() {
      return [...errors];
    },
  };
  return reducer;
}
