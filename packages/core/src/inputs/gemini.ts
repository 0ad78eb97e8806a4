/**
 * Decoder for the Gemini generateContent stream: the `GenerateContentResponse` objects of
 * `@google/genai` `generateContentStream`, i.e. the JSON values of the REST body of
 * `…:streamGenerateContent?alt=sse` (Gemini API and Vertex AI). Every response (one `responseId`) is
 * one canonical step; a body that holds several responses is one run with several steps.
 *
 * It also reads the server messages of the Live API (`serverContent`, `toolCall`, `usageMetadata`,
 * `setupComplete`, `sessionResumptionUpdate`, `goAway`): their parts have the same shape, one turn is
 * one step.
 *
 * Gemini sends loose parts, not framed blocks: consecutive text parts continue one text block,
 * consecutive `thought: true` parts one reasoning block; anything else closes them.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions, Emitter } from '../model/emitter.ts';
import type { Citation, EventInit, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { sumCounts, usageOf } from '../model/usage.ts';
import { finishReasonFrom } from '../model/vocabulary.ts';
import type { Decoder } from './decoder.ts';
import { isObject, Kit, num, type Obj, parseToolInput, rest, StepTotals, sub } from './kit/index.ts';

const FINISH_REASONS: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  CONTINUATION: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  IMAGE_RECITATION: 'content-filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
};

/**
 * Maps a Gemini `finishReason` to the canonical finish reason, as `@ai-sdk/google` does: `STOP` with
 * client function calls is `tool-calls`; unknown and unspecified reasons are `other`.
 */
export function geminiFinishReason(reason: string | undefined, hasClientToolCalls = false): FinishReason {
  if (reason === 'STOP' && hasClientToolCalls) return 'tool-calls';
  return finishReasonFrom(FINISH_REASONS, reason);
}

/** Where a Gemini usage object keeps each count (generateContent's names, or the Interactions API's). */
export interface GeminiUsageFields {
  prompt: string;
  toolUsePrompt: string;
  /** The output count; the first present of these. */
  output: readonly string[];
  thoughts: string;
  total: string;
  cached: string;
}

const USAGE_METADATA: GeminiUsageFields = {
  prompt: 'promptTokenCount',
  toolUsePrompt: 'toolUsePromptTokenCount',
  output: ['candidatesTokenCount', 'responseTokenCount'],
  thoughts: 'thoughtsTokenCount',
  total: 'totalTokenCount',
  cached: 'cachedContentTokenCount',
};

/**
 * Converts a Gemini `usageMetadata` object (generateContent or Live API; the Interactions API's
 * `usage` with its own `fields`). Like `@ai-sdk/google`: input = prompt + tool-use prompt tokens
 * (cached included), output = candidates + thoughts, total as reported.
 */
export function geminiUsage(u: Obj, fields: GeminiUsageFields = USAGE_METADATA): Usage {
  const thoughts = num(u, fields.thoughts);
  return usageOf(u, {
    inputTokens: sumCounts(num(u, fields.prompt), num(u, fields.toolUsePrompt)),
    outputTokens: sumCounts(num(u, ...fields.output), thoughts),
    totalTokens: num(u, fields.total),
    reasoningTokens: thoughts,
    cacheReadTokens: num(u, fields.cached),
  });
}

/** Character offset in `text` of a UTF-8 byte offset (Gemini reports segment offsets in bytes). */
export function charOffset(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    const cp = text.codePointAt(i) as number;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp >= 0x10000 ? 2 : 1;
  }
  // Past the text seen so far (a citation ahead of the text): count the rest as one byte per char.
  return i + Math.max(0, byteOffset - bytes);
}

// ---------------------------------------------------------------------------------------------
// Streamed function-call arguments (Gemini 3 `functionCall.partialArgs`)
// ---------------------------------------------------------------------------------------------

type Segment = string | number;

/** One `partialArgs` entry. */
interface PartialArg {
  jsonPath?: unknown;
  stringValue?: unknown;
  numberValue?: unknown;
  boolValue?: unknown;
  nullValue?: unknown;
  willContinue?: unknown;
}

/** Parses `$.a.b[0]['c d']` into segments; undefined when it is not a path this decoder understands. */
function parseJsonPath(path: string): { segments: Segment[]; arrayEnd: boolean } | undefined {
  if (!path.startsWith('$')) return undefined;
  let rest = path.slice(1);
  let arrayEnd = false;
  if (rest.endsWith('[]')) {
    arrayEnd = true;
    rest = rest.slice(0, -2);
  }
  const segments: Segment[] = [];
  const re = /^(?:\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (!m) return undefined;
    if (m[1] !== undefined) segments.push(m[1]);
    else if (m[2] !== undefined) segments.push(Number(m[2]));
    else segments.push((m[3] ?? m[4] ?? '').replace(/\\(.)/g, '$1'));
    rest = rest.slice(m[0].length);
  }
  return { segments, arrayEnd };
}

function setOwn(container: Obj | unknown[], key: Segment, value: unknown): void {
  Object.defineProperty(container, key, { value, enumerable: true, configurable: true, writable: true });
}

function getOwn(container: unknown, key: Segment): unknown {
  if (typeof container !== 'object' || container === null) return undefined;
  return Object.hasOwn(container, key) ? (container as Obj)[key as string] : undefined;
}

/**
 * Builds the arguments object from `partialArgs` fragments and the JSON text deltas that spell it
 * out: the deltas joined are `JSON.stringify` of the final object as long as fragments arrive in
 * document order (they do); a fragment out of order stops the deltas (the final input stays exact).
 */
class ArgsBuilder {
  readonly value: Obj = {};
  private emitted = '';
  private lastPath: Segment[] | undefined;
  private openString = false;
  private openContainer = false;
  private consistent = true;

  /** Applies fragments; returns the text delta and the fragments it could not place. */
  apply(args: unknown[]): { delta: string; rejected: unknown[] } {
    const rejected: unknown[] = [];
    for (const a of args) if (!this.applyOne(a)) rejected.push(a);
    return { delta: this.advance(this.prefix()), rejected };
  }

  /** The closing text delta (brackets, a closing quote) once the call is complete. */
  finish(): string {
    this.openString = false;
    return this.advance(JSON.stringify(this.value));
  }

  private advance(text: string | undefined): string {
    if (!this.consistent || text === undefined) return '';
    if (!text.startsWith(this.emitted)) {
      this.consistent = false;
      return '';
    }
    const delta = text.slice(this.emitted.length);
    this.emitted = text;
    return delta;
  }

  private applyOne(raw: unknown): boolean {
    if (!isObject(raw) || typeof raw.jsonPath !== 'string') return false;
    const arg = raw as PartialArg;
    const parsed = parseJsonPath(arg.jsonPath as string);
    if (!parsed || parsed.segments.length === 0) return false;
    const { segments, arrayEnd } = parsed;
    // Walk to the parent container, creating containers; arrays are written in order (no holes).
    let parent: Obj | unknown[] = this.value;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i] as Segment;
      if (typeof seg === 'number' && !(Array.isArray(parent) && seg <= parent.length)) return false;
      if (typeof seg === 'string' && Array.isArray(parent)) return false;
      if (i === segments.length - 1) break;
      let child = getOwn(parent, seg);
      const wantArray = typeof segments[i + 1] === 'number';
      if (child === undefined || child === null) {
        child = wantArray ? [] : {};
        setOwn(parent, seg, child);
      } else if (typeof child !== 'object' || Array.isArray(child) !== wantArray) return false;
      parent = child as Obj | unknown[];
    }
    const leaf = segments[segments.length - 1] as Segment;
    const existing = getOwn(parent, leaf);
    const willContinue = arg.willContinue === true;
    let value: unknown;
    if (typeof arg.stringValue === 'string') value = arg.stringValue;
    else if (typeof arg.numberValue === 'number') value = arg.numberValue;
    else if (typeof arg.boolValue === 'boolean') value = arg.boolValue;
    else if ('nullValue' in arg) value = null;
    if (typeof value === 'string' && typeof existing === 'string') {
      setOwn(parent, leaf, existing + value); // a string continues
      this.mark(segments, willContinue, false);
      return true;
    }
    if (value === undefined) {
      if (existing !== undefined) {
        // A value-less entry for a path that has a value terminates a string or an array.
        if (typeof existing === 'string' && !willContinue) this.openString = false;
        return true;
      }
      if (willContinue) return true;
      setOwn(parent, leaf, arrayEnd ? [] : {}); // an empty container has no leaves to stream
      this.mark(segments, false, true);
      return true;
    }
    setOwn(parent, leaf, value);
    this.mark(segments, typeof value === 'string' && willContinue, false);
    return true;
  }

  private mark(path: Segment[], openString: boolean, openContainer: boolean): void {
    this.lastPath = path;
    this.openString = openString;
    this.openContainer = openContainer;
  }

  /** The JSON text so far without the closers of the last written value's containers. */
  private prefix(): string | undefined {
    const path = this.lastPath;
    if (!path) return undefined;
    // The last written value must be the last one in document order, else the text is not a prefix.
    let node: unknown = this.value;
    for (const seg of path) {
      if (Array.isArray(node)) {
        if (seg !== node.length - 1) return undefined;
      } else if (isObject(node)) {
        if (Object.keys(node).at(-1) !== String(seg)) return undefined;
      } else return undefined;
      node = getOwn(node, seg);
    }
    const text = JSON.stringify(this.value);
    const closers = path.length + (this.openString ? 1 : 0) + (this.openContainer ? 1 : 0);
    return text.slice(0, text.length - closers);
  }
}

// ---------------------------------------------------------------------------------------------
// The decoder
// ---------------------------------------------------------------------------------------------

type BlockKind = 'text' | 'reasoning';

interface Block {
  kind: BlockKind;
  id: string;
  signature?: string;
  meta?: JsonObject;
}

interface StreamingCall {
  id: string;
  name: string;
  args: ArgsBuilder;
  meta?: JsonObject;
}

interface Step {
  id: string;
  /** The response id the step was opened for (undefined: no responseId seen yet). */
  responseId?: string;
  live: boolean;
  /** Counters for block / source ids and for generated tool call ids. */
  counter: number;
  calls: number;
  usage?: Obj;
  finishReason?: string;
  blocked?: string;
  hasClientCalls: boolean;
  /** Text of the step's answer (non-thought text parts), for grounding offsets. */
  text: string;
  meta: JsonObject;
  lastCodeCall?: string;
  lastServerCall?: string;
  seen: Set<string>;
  citationSources: Json[];
  /** Content arrived since the step opened (Live turns). */
  content: boolean;
}

/** Part keys this decoder maps; any other key of a part is reported in a raw event. */
const PART_KEYS = [
  'text',
  'thought',
  'thoughtSignature',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
  'inlineData',
  'fileData',
];
const CONTENT_KEYS = PART_KEYS.filter((k) => k !== 'thought' && k !== 'thoughtSignature');
const LIVE_KEYS = ['serverContent', 'setupComplete', 'toolCallCancellation', 'sessionResumptionUpdate', 'goAway'];

/**
 * True when one parsed value is unmistakably a Gemini generateContent chunk (`candidates`,
 * `promptFeedback`, or `usageMetadata` with `modelVersion` / `responseId`) or a Live API server
 * message. Never claims values with a `type` (Anthropic, the `{"type","data"}` agent formats).
 */
export function detectGemini(value: unknown): boolean {
  if (!isObject(value) || 'type' in value || 'event_type' in value) return false;
  if (Array.isArray(value.candidates)) return true;
  if (isObject(value.promptFeedback)) return true;
  if (isObject(value.usageMetadata) && (typeof value.modelVersion === 'string' || typeof value.responseId === 'string')) return true;
  if (LIVE_KEYS.some((k) => isObject(value[k]))) return true;
  return isObject(value.toolCall) && Array.isArray(value.toolCall.functionCalls);
}

/**
 * The content of the open step: its text / thought block and its function calls (whole, or with
 * arguments streaming as partialArgs), with the client calls still waiting for a response.
 */
function stepContent(kit: Kit, invalid: (where: Location, field: string, expected: string) => void) {
  const { out, raw } = kit;
  const google = (meta: JsonObject) => ({ google: meta });
  let block: Block | undefined;
  let call: StreamingCall | undefined;
  /** Client function calls without a functionResponse yet (responses may come in a later step). */
  const pendingCalls: { id: string; name: string }[] = [];

  function closeBlock(): void {
    if (!block) return;
    const b = block;
    block = undefined;
    const meta: JsonObject = { ...b.meta };
    if (b.signature !== undefined) meta.thoughtSignature = b.signature;
    const e: EventInit = b.kind === 'text' ? { type: 'text-end', blockId: b.id } : { type: 'reasoning-end', blockId: b.id };
    if (Object.keys(meta).length) e.providerMetadata = google(meta);
    out.emit(e);
  }

  function openBlock(s: Step, kind: BlockKind): Block {
    closeBlock();
    const b: Block = { kind, id: `${s.id}:${s.counter++}` };
    block = b;
    out.emit(kind === 'text' ? { type: 'text-start', blockId: b.id } : { type: 'reasoning-start', blockId: b.id, variant: 'thinking' });
    return b;
  }

  /** Text or thought text, with its signature: consecutive parts of one kind continue one block. */
  function text(s: Step, kind: BlockKind, delta: string, signature: string | undefined, meta?: JsonObject): void {
    finishCall();
    if (delta === '' && signature === undefined && !meta) return;
    let b = block?.kind === kind ? block : undefined;
    // A second signature starts a new block: each signature belongs to the part it came on.
    if (b && signature !== undefined && b.signature !== undefined) b = undefined;
    const fresh = !b;
    if (!b) b = openBlock(s, kind);
    if (delta) {
      out.emit(kind === 'text' ? { type: 'text-delta', blockId: b.id, delta } : { type: 'reasoning-delta', blockId: b.id, delta });
      if (kind === 'text') s.text += delta;
    }
    if (signature !== undefined) b.signature = signature;
    if (meta) b.meta = { ...b.meta, ...meta };
    // An empty part that only carries a signature keeps it in place, without merging later content.
    if (fresh && delta === '' && signature !== undefined) closeBlock();
  }

  // --- tool calls ----------------------------------------------------------------------------

  function callId(s: Step, given: unknown): string {
    return typeof given === 'string' && given ? given : `${s.id}-${++s.calls}`;
  }

  function toolCall(
    s: Step,
    id: string,
    name: string,
    input: Json,
    meta: JsonObject | undefined,
    providerExecuted: boolean,
    inputText?: string,
  ): void {
    finishCall();
    closeBlock();
    const start: EventInit = { type: 'tool-input-start', toolCallId: id, toolName: name };
    const end: EventInit = { type: 'tool-input-end', toolCallId: id, toolName: name, input };
    if (inputText !== undefined && typeof input === 'string') end.inputError = 'function call arguments are not valid JSON';
    if (providerExecuted) {
      start.providerExecuted = true;
      end.providerExecuted = true;
    } else {
      s.hasClientCalls = true;
      pendingCalls.push({ id, name });
    }
    if (meta) {
      start.providerMetadata = google(meta);
      end.providerMetadata = google(meta);
    }
    s.content = true;
    out.emit(start);
    if (inputText) out.emit({ type: 'tool-input-delta', toolCallId: id, delta: inputText });
    out.emit(end);
  }

  function toolOutput(id: string, name: string | undefined, output: Json, meta: JsonObject | undefined, providerExecuted: boolean): void {
    finishCall();
    closeBlock();
    const e: EventInit = { type: 'tool-output', toolCallId: id, output };
    if (name !== undefined) e.toolName = name;
    if (providerExecuted) e.providerExecuted = true;
    if (meta) e.providerMetadata = google(meta);
    out.emit(e);
  }

  /** Ends the function call whose arguments are streaming, if any. */
  function finishCall(inputError?: string): void {
    if (!call) return;
    const c = call;
    call = undefined;
    const delta = c.args.finish();
    if (delta) out.emit({ type: 'tool-input-delta', toolCallId: c.id, delta });
    const e: EventInit = { type: 'tool-input-end', toolCallId: c.id, toolName: c.name, input: c.args.value as Json };
    if (inputError) e.inputError = inputError;
    if (c.meta) e.providerMetadata = google(c.meta);
    out.emit(e);
  }

  function applyPartial(c: StreamingCall, partial: unknown, where: Location): void {
    if (!Array.isArray(partial)) return invalid(where, 'partialArgs', 'an array of {jsonPath, …Value}');
    const { delta, rejected } = c.args.apply(partial);
    if (delta) out.emit({ type: 'tool-input-delta', toolCallId: c.id, delta });
    if (rejected.length)
      raw({ functionCall: { partialArgs: rejected } }, `functionCall.partialArgs entries that could not be placed in ${c.id}`, where);
  }

  function functionCall(s: Step, f: Obj, signature: string | undefined, where: Location): void {
    const name = typeof f.name === 'string' ? f.name : undefined;
    const streaming = f.willContinue === true || f.partialArgs !== undefined;
    const partialDone = (p: unknown) =>
      f.willContinue !== true && (!Array.isArray(p) || p.every((a) => !isObject(a) || a.willContinue !== true));
    const meta: JsonObject = {};
    if (signature !== undefined) meta.thoughtSignature = signature;
    const other = rest(f, ['id', 'name', 'args', 'partialArgs', 'willContinue']);
    if (other) Object.assign(meta, other);
    if (call && name === undefined) {
      // A fragment of the call in progress: more arguments, a continuation marker or the end.
      if (Object.keys(meta).length) call.meta = { ...call.meta, ...meta };
      if (f.partialArgs !== undefined) {
        applyPartial(call, f.partialArgs, sub(where, 'partialArgs'));
        if (partialDone(f.partialArgs)) finishCall();
      } else if (f.willContinue !== true) finishCall();
      return;
    }
    if (name === undefined) {
      if (f.partialArgs !== undefined || f.args !== undefined)
        raw({ functionCall: f }, 'functionCall fragment without a function call in progress', where);
      return; // a terminal {} after a call that already ended: nothing to do
    }
    const id = callId(s, f.id);
    if (!streaming) {
      const args = f.args ?? {};
      const text = typeof args === 'string' ? args : undefined;
      const input = (text !== undefined ? parseArgs(text) : args) as Json;
      toolCall(s, id, name, input, Object.keys(meta).length ? meta : undefined, false, text);
      return;
    }
    // The first fragment of a call whose arguments stream (Gemini 3): name first, arguments later.
    finishCall();
    closeBlock();
    const c: StreamingCall = { id, name, args: new ArgsBuilder() };
    if (Object.keys(meta).length) c.meta = meta;
    call = c;
    s.hasClientCalls = true;
    pendingCalls.push({ id, name });
    s.content = true;
    const e: EventInit = { type: 'tool-input-start', toolCallId: id, toolName: name };
    if (c.meta) e.providerMetadata = google(c.meta);
    out.emit(e);
    if (f.partialArgs !== undefined) {
      applyPartial(c, f.partialArgs, sub(where, 'partialArgs'));
      if (partialDone(f.partialArgs)) finishCall();
    }
  }

  /** Arguments text as the input: not JSON, it stays text (the call's inputError says so elsewhere). */
  const parseArgs = (text: string): Json => parseToolInput(text).input;

  function functionResponse(s: Step, r: Obj, signature: string | undefined): void {
    const name = typeof r.name === 'string' ? r.name : undefined;
    let id = typeof r.id === 'string' && r.id ? r.id : undefined;
    const pending = pendingCalls.findIndex((p) => (id !== undefined ? p.id === id : p.name === name));
    if (pending >= 0) {
      id ??= pendingCalls[pending]?.id;
      pendingCalls.splice(pending, 1);
    }
    const meta = rest(r, ['id', 'name', 'response']) ?? {};
    if (signature !== undefined) meta.thoughtSignature = signature;
    s.content = true;
    toolOutput(id ?? callId(s, undefined), name, (r.response ?? null) as Json, Object.keys(meta).length ? meta : undefined, false);
  }

  return {
    /** The open text or thought block. */
    get block() {
      return block;
    },
    closeBlock,
    text,
    callId,
    toolCall,
    toolOutput,
    finishCall,
    functionCall,
    functionResponse,
  };
}

/** Grounding and citation metadata: sources, and citations on the open text block. */
function grounding(out: Emitter, currentBlock: () => Block | undefined) {
  const google = (meta: JsonObject) => ({ google: meta });

  function sources(s: Step, gm: Obj): void {
    if (!Array.isArray(gm.groundingChunks)) return;
    for (const chunk of gm.groundingChunks) {
      if (!isObject(chunk)) continue;
      const src = sourceOf(chunk);
      if (!src) continue;
      const key = `source:${src.kind}:${src.url ?? ''}:${src.title ?? ''}:${src.filename ?? ''}`;
      if (s.seen.has(key)) continue;
      s.seen.add(key);
      out.emit({ type: 'source', sourceId: `${s.id}:source-${s.counter++}`, ...src });
    }
  }

  /** A grounding chunk as a source (web, image, maps, retrievedContext / file search). */
  function sourceOf(chunk: Obj): Omit<Extract<EventInit, { type: 'source' }>, 'type' | 'sourceId'> | undefined {
    const str = (o: Obj, k: string) => (typeof o[k] === 'string' && o[k] ? (o[k] as string) : undefined);
    const withMeta = <T extends object>(src: T, o: Obj, known: string[]) => {
      const meta = rest(o, known);
      return meta ? { ...src, providerMetadata: google(meta) } : src;
    };
    if (isObject(chunk.web) && str(chunk.web, 'uri')) {
      const title = str(chunk.web, 'title');
      return withMeta({ kind: 'url' as const, url: str(chunk.web, 'uri'), ...(title ? { title } : {}) }, chunk.web, ['uri', 'title']);
    }
    if (isObject(chunk.image) && str(chunk.image, 'sourceUri')) {
      const title = str(chunk.image, 'title');
      return withMeta({ kind: 'url' as const, url: str(chunk.image, 'sourceUri'), ...(title ? { title } : {}) }, chunk.image, [
        'sourceUri',
        'title',
      ]);
    }
    if (isObject(chunk.maps) && str(chunk.maps, 'uri')) {
      const title = str(chunk.maps, 'title');
      return withMeta({ kind: 'url' as const, url: str(chunk.maps, 'uri'), ...(title ? { title } : {}) }, chunk.maps, ['uri', 'title']);
    }
    if (isObject(chunk.retrievedContext)) {
      const rc = chunk.retrievedContext;
      const uri = str(rc, 'uri');
      const title = str(rc, 'title');
      if (uri && /^https?:\/\//.test(uri))
        return withMeta({ kind: 'url' as const, url: uri, ...(title ? { title } : {}) }, rc, ['uri', 'title']);
      const ref = uri ?? str(rc, 'fileSearchStore');
      if (!ref) return undefined;
      const filename = ref.split('/').pop();
      return withMeta({ kind: 'document' as const, title: title ?? filename ?? ref, ...(filename ? { filename } : {}) }, rc, ['title']);
    }
    return undefined;
  }

  /** Citations from groundingSupports, on the open text block (offsets converted to characters). */
  function supports(s: Step, gm: Obj): void {
    const b = currentBlock();
    if (b?.kind !== 'text' || !Array.isArray(gm.groundingSupports)) return;
    const chunks = Array.isArray(gm.groundingChunks) ? gm.groundingChunks : [];
    for (const support of gm.groundingSupports) {
      if (!isObject(support)) continue;
      const key = `support:${JSON.stringify(support)}`;
      if (s.seen.has(key)) continue;
      s.seen.add(key);
      const seg = isObject(support.segment) ? support.segment : {};
      const base: Citation = { kind: 'location', raw: support as Json };
      if (typeof seg.text === 'string') base.citedText = seg.text;
      if (typeof seg.endIndex === 'number') {
        base.startIndex = charOffset(s.text, typeof seg.startIndex === 'number' ? seg.startIndex : 0);
        base.endIndex = charOffset(s.text, seg.endIndex);
      }
      const indices = Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : [];
      const targets = indices.map((i) => (typeof i === 'number' && isObject(chunks[i]) ? sourceOf(chunks[i] as Obj) : undefined));
      if (targets.length === 0) targets.push(undefined);
      for (const t of targets) {
        const c: Citation = { ...base };
        if (t) {
          c.kind = t.kind;
          if (t.url !== undefined) c.url = t.url;
          if (t.title !== undefined) c.title = t.title;
        }
        out.emit({ type: 'citation', blockId: b.id, citation: c });
      }
    }
  }

  function citationMetadata(s: Step, cm: Obj): void {
    if (!Array.isArray(cm.citationSources)) return;
    for (const src of cm.citationSources) {
      if (!isObject(src)) continue;
      const key = `citation:${JSON.stringify(src)}`;
      if (s.seen.has(key)) continue;
      s.seen.add(key);
      const b = currentBlock();
      if (b?.kind !== 'text') {
        s.citationSources.push(src as Json); // no text to attach it to: kept on step-finish
        continue;
      }
      const c: Citation = { kind: typeof src.uri === 'string' ? 'url' : 'location', raw: src as Json };
      if (typeof src.uri === 'string') c.url = src.uri;
      if (typeof src.title === 'string') c.title = src.title;
      if (typeof src.startIndex === 'number') c.startIndex = charOffset(s.text, src.startIndex);
      if (typeof src.endIndex === 'number') c.endIndex = charOffset(s.text, src.endIndex);
      out.emit({ type: 'citation', blockId: b.id, citation: c });
    }
  }

  return { sources, supports, citationMetadata };
}

/** Creates a decoder for the Gemini generateContent stream (and Live API server messages). */
export function createGeminiDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, { source: 'gemini', metaKey: 'google' });
  const { out, error, raw } = kit;
  let step: Step | undefined;
  let stepCount = 0;
  const totals = new StepTotals();
  let fatal = false;
  let blockedReason: string | undefined;
  let seenValue = false;
  let live = false;

  const google = (meta: JsonObject) => ({ google: meta });

  /** A field below `where` (paths joined) holds the wrong thing. */
  const invalid = (where: Location, field: string, expected: string) => kit.invalidAt(sub(where, field, expected), expected);

  // --- steps ---------------------------------------------------------------------------------

  function openStep(chunk: Obj, live: boolean): Step {
    if (step) closeStep();
    stepCount++;
    const responseId = typeof chunk.responseId === 'string' && chunk.responseId ? chunk.responseId : undefined;
    const id = responseId ?? (live ? `turn_${stepCount}` : `step_${stepCount}`);
    const model = typeof chunk.modelVersion === 'string' ? chunk.modelVersion : undefined;
    const meta: JsonObject = {};
    if (typeof chunk.createTime === 'string') meta.createTime = chunk.createTime;
    if (!out.started)
      out.start({
        ...(responseId ? { messageId: responseId } : {}),
        ...(model ? { model } : {}),
        ...(Object.keys(meta).length ? { providerMetadata: google(meta) } : {}),
      });
    step = {
      id,
      live,
      counter: 0,
      calls: 0,
      hasClientCalls: false,
      text: '',
      meta: {},
      seen: new Set(),
      citationSources: [],
      content: false,
    };
    if (responseId) step.responseId = responseId;
    const e: EventInit = { type: 'step-start', stepId: id, kind: 'model' };
    if (model) e.model = model;
    if (Object.keys(meta).length) e.providerMetadata = google(meta);
    out.emit(e);
    return step;
  }

  function closeStep(reason?: FinishReason): void {
    if (!step) return;
    finishCall();
    closeBlock();
    const s = step;
    step = undefined;
    const finishReason = reason ?? (s.blocked ? 'content-filter' : geminiFinishReason(s.finishReason, s.hasClientCalls));
    const rawReason = s.finishReason ?? s.blocked;
    const e: EventInit = { type: 'step-finish', stepId: s.id, finishReason };
    if (rawReason) e.rawFinishReason = rawReason;
    if (s.usage) e.usage = geminiUsage(s.usage);
    if (s.citationSources.length) s.meta.citationMetadata = { citationSources: s.citationSources };
    if (Object.keys(s.meta).length) e.providerMetadata = google(s.meta);
    totals.add(e);
    out.emit(e);
  }

  function ensureStep(chunk: Obj = {}, live = false): Step {
    return step ?? openStep(chunk, live);
  }

  const content = stepContent(kit, invalid);
  const { closeBlock, text, callId, toolCall, toolOutput, finishCall, functionCall, functionResponse } = content;

  // --- parts ---------------------------------------------------------------------------------

  function part(s: Step, p: unknown, where: Location): void {
    if (!isObject(p)) return invalid(where, '', 'a part object');
    if (Object.keys(p).length === 0) return;
    const signature = typeof p.thoughtSignature === 'string' ? p.thoughtSignature : undefined;
    const thought = p.thought === true;
    const extra = rest(p, PART_KEYS);
    if (extra) raw(p, `part field(s) ${Object.keys(extra).join(', ')} have no canonical mapping`, where);
    const thoughtMeta = (meta: JsonObject) => {
      if (signature !== undefined) meta.thoughtSignature = signature;
      if (thought) meta.thought = true;
      return Object.keys(meta).length ? meta : undefined;
    };
    if (isObject(p.functionCall)) return functionCall(s, p.functionCall, signature, sub(where, 'functionCall'));
    finishCall();
    if (isObject(p.functionResponse)) return functionResponse(s, p.functionResponse, signature);
    if (isObject(p.executableCode)) {
      const code = p.executableCode;
      const id = callId(s, code.id);
      s.lastCodeCall = id;
      return toolCall(s, id, 'code_execution', code as Json, thoughtMeta({}), true);
    }
    if (isObject(p.codeExecutionResult)) {
      const r = p.codeExecutionResult;
      const id = typeof r.id === 'string' && r.id ? r.id : (s.lastCodeCall ?? callId(s, undefined));
      const output = { ...(r as JsonObject), output: typeof r.output === 'string' ? r.output : '' };
      s.content = true;
      if (typeof r.outcome === 'string' && r.outcome !== 'OUTCOME_OK') {
        finishCall();
        closeBlock();
        const e: EventInit = {
          type: 'tool-error',
          toolCallId: id,
          toolName: 'code_execution',
          providerExecuted: true,
          error: output.output || r.outcome,
          output,
        };
        const meta = thoughtMeta({});
        if (meta) e.providerMetadata = google(meta);
        return out.emit(e);
      }
      return toolOutput(id, 'code_execution', output, thoughtMeta({}), true);
    }
    if (isObject(p.toolCall)) {
      const t = p.toolCall;
      const id = callId(s, t.id);
      s.lastServerCall = id;
      const meta = thoughtMeta({ serverToolCallId: id, ...(typeof t.toolType === 'string' ? { serverToolType: t.toolType } : {}) });
      const other = rest(t, ['id', 'toolType', 'args']);
      return toolCall(s, id, `server:${String(t.toolType ?? 'unknown')}`, (t.args ?? {}) as Json, { ...meta, ...other }, true);
    }
    if (isObject(p.toolResponse)) {
      const t = p.toolResponse;
      const id = typeof t.id === 'string' && t.id ? t.id : (s.lastServerCall ?? callId(s, undefined));
      s.lastServerCall = undefined;
      const meta = thoughtMeta({ serverToolCallId: id, ...(typeof t.toolType === 'string' ? { serverToolType: t.toolType } : {}) });
      const other = rest(t, ['id', 'toolType', 'response']);
      s.content = true;
      return toolOutput(id, `server:${String(t.toolType ?? 'unknown')}`, (t.response ?? {}) as Json, { ...meta, ...other }, true);
    }
    if (isObject(p.inlineData) || isObject(p.fileData)) {
      const d = (p.inlineData ?? p.fileData) as Obj;
      const mediaType = typeof d.mimeType === 'string' ? d.mimeType : 'application/octet-stream';
      const url = isObject(p.inlineData)
        ? `data:${mediaType};base64,${typeof d.data === 'string' ? d.data : ''}`
        : typeof d.fileUri === 'string'
          ? d.fileUri
          : '';
      // Audio is a parallel modality (Live API speech): it does not split the transcript text.
      if (!mediaType.startsWith('audio/')) closeBlock();
      const e: EventInit = { type: 'file', url, mediaType };
      if (typeof d.displayName === 'string') e.filename = d.displayName;
      const meta = thoughtMeta(rest(d, ['mimeType', 'data', 'fileUri', 'displayName']) ?? {});
      if (meta) e.providerMetadata = google(meta);
      s.content = true;
      return out.emit(e);
    }
    if (typeof p.text === 'string' || (signature !== undefined && !CONTENT_KEYS.some((k) => k in p))) {
      s.content ||= p.text !== '';
      return text(s, thought ? 'reasoning' : 'text', typeof p.text === 'string' ? p.text : '', signature);
    }
    if (!extra) raw(p, 'unknown part kind', where);
  }

  const { sources, supports, citationMetadata } = grounding(out, () => content.block);

  // --- chunks --------------------------------------------------------------------------------

  function candidate(s: Step, c: Obj, where: Location): void {
    if (c.content !== undefined && c.content !== null) {
      if (!isObject(c.content)) invalid(where, 'content', 'an object');
      else if (c.content.parts !== undefined && !Array.isArray(c.content.parts)) invalid(where, 'content.parts', 'an array of parts');
      else if (Array.isArray(c.content.parts))
        c.content.parts.forEach((p, i) => {
          part(s, p, sub(where, `content.parts[${i}]`));
        });
      if (isObject(c.content)) {
        const other = rest(c.content, ['parts', 'role']);
        if (other) Object.assign(s.meta, { content: other });
      }
    }
    if (isObject(c.citationMetadata)) citationMetadata(s, c.citationMetadata);
    if (isObject(c.groundingMetadata) && Object.keys(c.groundingMetadata).length) {
      sources(s, c.groundingMetadata);
      supports(s, c.groundingMetadata);
      s.meta.groundingMetadata = c.groundingMetadata as Json;
    }
    if (c.finishReason !== undefined && c.finishReason !== null) {
      if (typeof c.finishReason === 'string') s.finishReason = c.finishReason;
      else invalid(where, 'finishReason', 'a string');
    }
    const other = rest(c, ['content', 'citationMetadata', 'groundingMetadata', 'finishReason', 'index']);
    if (other) Object.assign(s.meta, other);
  }

  function chunk(v: Obj, where: Location): void {
    if (isObject(v.error)) {
      const err = v.error;
      fatal = true;
      const code = typeof err.status === 'string' ? err.status : typeof err.code === 'number' ? String(err.code) : 'error';
      const message = typeof err.message === 'string' ? err.message : 'Gemini stream error';
      return error(code, message, where, true, { error: err as Json, ...rest(v, ['error']) });
    }
    const liveShaped = LIVE_KEYS.some((k) => k in v) || (isObject(v.toolCall) && !('candidates' in v));
    // Once a Live session is seen, a message without candidates (usage only) belongs to it too.
    if (liveShaped || (live && !('candidates' in v))) {
      live = true;
      return liveMessage(v, where);
    }
    if (v.candidates !== undefined && !Array.isArray(v.candidates)) return invalid(where, 'candidates', 'an array of candidates');
    const known = ['candidates', 'usageMetadata', 'modelVersion', 'responseId', 'createTime', 'promptFeedback'];
    if (!known.some((k) => k in v)) {
      if (Object.keys(v).length === 0) return;
      return raw(v, 'not a GenerateContentResponse (none of candidates, usageMetadata, promptFeedback, modelVersion, responseId)', where);
    }
    const responseId = typeof v.responseId === 'string' && v.responseId ? v.responseId : undefined;
    let s = step;
    if (s && (s.live || (responseId && s.responseId && responseId !== s.responseId))) s = openStep(v, false);
    if (!s) s = openStep(v, false);
    if (responseId && !s.responseId) {
      s.responseId = responseId;
      if (responseId !== s.id) s.meta.responseId = responseId;
    }
    if (isObject(v.usageMetadata)) s.usage = v.usageMetadata;
    if (isObject(v.promptFeedback)) {
      const pf = v.promptFeedback;
      s.meta.promptFeedback = pf as Json;
      const reason = pf.blockReason;
      if (typeof reason === 'string' && reason && !/^BLOCK(ED)?_REASON_UNSPECIFIED$/.test(reason) && !s.blocked) {
        s.blocked = reason;
        blockedReason = reason;
        fatal = true;
        error('prompt_blocked', `${describe(where)}: the prompt was blocked (${reason})`, sub(where, 'promptFeedback.blockReason'), true, {
          promptFeedback: pf as Json,
        });
      }
    }
    if (Array.isArray(v.candidates)) {
      v.candidates.forEach((c, i) => {
        const w = sub(where, `candidates[${i}]`);
        if (!isObject(c)) invalid(where, `candidates[${i}]`, 'a candidate object');
        else if (i > 0 || (typeof c.index === 'number' && c.index !== 0)) raw(c, 'only the first candidate is decoded', w);
        else candidate(s as Step, c, w);
      });
    }
    const other = rest(v, known);
    if (other) Object.assign(s.meta, other);
  }

  // --- Live API ------------------------------------------------------------------------------

  function liveStep(): Step {
    if (step && !step.live) closeStep();
    return ensureStep({}, true);
  }

  function liveMessage(v: Obj, where: Location): void {
    if (!out.started) out.start();
    if (isObject(v.serverContent)) {
      const sc = v.serverContent;
      if (isObject(sc.inputTranscription))
        out.emit({ type: 'custom', name: 'google.inputTranscription', value: sc.inputTranscription as Json });
      if (isObject(sc.modelTurn) && Array.isArray(sc.modelTurn.parts)) {
        const s = liveStep();
        sc.modelTurn.parts.forEach((p, i) => {
          part(s, p, sub(where, `serverContent.modelTurn.parts[${i}]`));
        });
      }
      if (isObject(sc.outputTranscription) && typeof sc.outputTranscription.text === 'string') {
        const s = liveStep();
        const meta = rest(sc.outputTranscription, ['text']);
        s.content = true;
        text(s, 'text', sc.outputTranscription.text, undefined, meta ? { outputTranscription: meta } : undefined);
      }
      const other = rest(sc, ['modelTurn', 'inputTranscription', 'outputTranscription', 'turnComplete', 'interrupted']);
      if (other) candidate(liveStep(), other, sub(where, 'serverContent'));
      if (step?.live && (sc.interrupted === true || sc.turnComplete === true)) {
        step.finishReason ??= sc.interrupted === true ? 'interrupted' : 'turnComplete';
        closeStep(sc.interrupted === true ? 'interrupted' : 'stop');
      }
    }
    if (isObject(v.toolCall) && Array.isArray(v.toolCall.functionCalls)) {
      const s = liveStep();
      v.toolCall.functionCalls.forEach((f, i) => {
        if (isObject(f)) functionCall(s, f, undefined, sub(where, `toolCall.functionCalls[${i}]`));
      });
    }
    if (isObject(v.toolCallCancellation) && Array.isArray(v.toolCallCancellation.ids)) {
      for (const id of v.toolCallCancellation.ids)
        if (typeof id === 'string')
          out.emit({ type: 'tool-error', toolCallId: id, error: 'cancelled', providerMetadata: google({ toolCallCancellation: true }) });
    }
    if (isObject(v.usageMetadata)) {
      // Live sessions report usage in periodic increments.
      const usage = geminiUsage(v.usageMetadata);
      totals.addUsage(usage);
      out.emit({ type: 'usage', scope: 'increment', usage });
    }
    for (const k of ['sessionResumptionUpdate', 'goAway'])
      if (isObject(v[k])) out.emit({ type: 'custom', name: `google.${k}`, value: v[k] as Json });
    const other = rest(v, [
      'serverContent',
      'toolCall',
      'toolCallCancellation',
      'usageMetadata',
      'sessionResumptionUpdate',
      'goAway',
      'setupComplete',
    ]);
    if (other) raw(other, 'Live API message field(s) without a canonical mapping', where);
  }

  function handle(value: unknown, where: Location): void {
    if (Array.isArray(value)) {
      // A `streamGenerateContent` body without `alt=sse` is one JSON array of responses.
      value.forEach((v, i) => {
        handle(v, { ...where, field: `[${i}]` });
      });
      return;
    }
    if (!isObject(value)) {
      error('invalid_event', `${describe(where)}: expected a GenerateContentResponse object, got ${typeof value}`, {
        ...where,
        expected: 'object',
      });
      return;
    }
    seenValue = true;
    chunk(value, where);
  }

  return kit.decoder({
    push: (value, where) => handle(value, where ?? {}),
    finish() {
      if (step) {
        const s = step;
        const incomplete = s.live ? s.content : s.finishReason === undefined && !s.blocked;
        if (incomplete && !fatal) {
          kit.truncated(
            s.live
              ? `the Live API stream ended inside turn ${s.id} (no turnComplete)`
              : `the stream ended inside response ${s.id} (no finishReason)`,
          );
          fatal = true;
          finishCall('the stream ended before the function call arguments were complete');
        }
        closeStep(fatal ? (s.blocked ? 'content-filter' : 'error') : undefined);
      }
      if (!out.started && !seenValue && !fatal) {
        kit.empty('the stream contained no Gemini responses');
        fatal = true;
      }
      const blocked = blockedReason ? { finishReason: 'content-filter' as const, rawFinishReason: blockedReason } : undefined;
      out.emit(totals.runFinish(fatal, 'other', blocked));
    },
  });
}
