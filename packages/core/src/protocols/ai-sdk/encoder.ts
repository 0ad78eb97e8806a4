/**
 * Encoder for the Vercel AI SDK UI message stream (what `useChat` / `readUIMessageStream` read).
 * Canonical events in, `UIMessageChunk` objects out; `sse.ts` frames them.
 *
 * The reasoning variant (`thinking` / `processing`) travels in `providerMetadata[namespace].variant`
 * on reasoning-start and reasoning-end (the client replaces a part's providerMetadata with the one on
 * each chunk, so the end chunk repeats it next to the signature), with `durationMs` on the end chunk
 * (measured from the canonical `ts`, i.e. on the server).
 *
 * `error` chunks mean the run is over: `useChat` (`AbstractChat`) treats any `error` chunk as the end of
 * the request and applies nothing after it. So only a fatal canonical `error` becomes one, and it is
 * held until the parts the decoder closes after it are closed (text-end, reasoning-end, tool-input-end):
 * it goes out before the next other event (run-finish, …), after whatever is still open is
 * closed too (a tool input as `tool-input-error` with what arrived), so the client's message is settled.
 * A non-fatal error (a bad line the run went on after) becomes a transient `data-error` part
 * (`{ message, code? }`), which clients pass to `onData` and read on through.
 *
 * A person in the loop (the stock client's tool-part states): `tool-approval-request` →
 * `approval-requested`; the answer, at the start of the run that continues the message (its
 * run-start says `continues`), →
 * `tool-approval-response` (`approval-responded`, what `addToolApprovalResponse` set locally) and, when
 * denied, `tool-output-denied`. A client tool call needs nothing (tool-input-available lets `onToolCall`
 * fire). Interrupts and their answers are data parts (`data-interrupt`, `data-interrupt-response`, by
 * interrupt id). A continuation run's output for a call of the message it continues is a bare
 * `tool-output-available` (the client looks the part up in the whole message).
 */

import type { Machine } from '../../machine.ts';
import type { CanonicalEvent, Citation, EventOf, Json, JsonObject, ProviderMetadata } from '../../model/events.ts';
import { messageSummaryMetadata, RunSummary } from '../../model/run-summary.ts';
import { parsePartialJson } from '../../transforms/partial-json.ts';
import { createSeed000Blocks } from '../../transforms/seed000.ts';

import type { AiSdkChunk } from './schema.ts';

export type { AiSdkChunk } from './schema.ts';

export interface AiSdkEncoderOptions {
  /**
   * providerMetadata key that carries the reasoning variant. Default `switchboard`; `mobox` for clients
   * of the simplified Claude agent format's UI, which also switches on that UI's server formatter
   * conventions (transforms/seed000.ts: todos as processing-block text, tool calls not closing the
   * processing block).
   */
  namespace?: string;
  /** Send reasoning blocks (default true). */
  sendReasoning?: boolean;
  /** Send sources (default true). */
  sendSources?: boolean;
  /**
   * Send the message's summary as history holds it (`metadata[namespace]`: run id, status, model, usage,
   * stop reason, duration, error; see model/run-summary.ts) on `start` (what is known then) and on
   * `finish` (its final value; a `message-metadata` chunk before `abort` / a fatal `error`), so the
   * message a client holds equals the reloaded one. The gateway turns it on. Default false.
   */
  messageMetadata?: boolean;
}

/** A citation of an AI SDK text part (`text-end.citations`). */
export interface AiSdkCitation {
  source:
    | { type: 'source'; sourceType: 'url'; id: string; url: string; title?: string }
    | { type: 'source'; sourceType: 'document'; id: string; mediaType: string; title: string };
  startIndex?: number;
  endIndex?: number;
  citedText?: string;
}

/** A canonical citation as the AI SDK text part carries it, its source numbered `id`. */
export function toAiSdkCitation(c: Citation, id: string): AiSdkCitation {
  const source: AiSdkCitation['source'] =
    c.kind === 'url' && c.url !== undefined
      ? { type: 'source', sourceType: 'url', id, url: c.url, ...(c.title !== undefined ? { title: c.title } : {}) }
      : { type: 'source', sourceType: 'document', id, mediaType: 'text/plain', title: c.title ?? 'Document' };
  const out: AiSdkCitation = { source };
  if (c.startIndex !== undefined) out.startIndex = c.startIndex;
  if (c.endIndex !== undefined) out.endIndex = c.endIndex;
  if (c.citedText !== undefined) out.citedText = c.citedText;
  return out;
}

/** What a source needs to be an AI SDK `source-url` / `source-document` chunk (or part). */
export type SourceLike = Pick<EventOf<'source'>, 'sourceId' | 'kind' | 'url' | 'title' | 'mediaType' | 'filename' | 'providerMetadata'>;

/** A source as the AI SDK chunk (and part) `source-url` (a URL source) or `source-document`. */
export function toAiSdkSource(e: SourceLike): AiSdkChunk {
  if (e.kind === 'url' && e.url !== undefined) {
    const c: AiSdkChunk = { type: 'source-url', sourceId: e.sourceId, url: e.url };
    if (e.title !== undefined) c.title = e.title;
    if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
    return c;
  }
  const c: AiSdkChunk = {
    type: 'source-document',
    sourceId: e.sourceId,
    mediaType: e.mediaType ?? 'text/plain',
    title: e.title ?? e.filename ?? 'Document',
  };
  if (e.filename !== undefined) c.filename = e.filename;
  if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
  return c;
}

/**
 * Events that close a part: a held fatal error waits for them (see the module comment). And the
 * step's end, so the error goes out at run-finish with the message's final metadata before it.
 */
const CLOSING: ReadonlySet<CanonicalEvent['type']> = new Set(['text-end', 'reasoning-end', 'tool-input-end', 'citation', 'raw']);

/** Creates an AI SDK UI message stream encoder (push canonical events, get chunks). */
export function createAiSdkEncoder(options: AiSdkEncoderOptions = {}): Machine<CanonicalEvent, AiSdkChunk> {
  const ns = options.namespace ?? 'switchboard';
  const sendReasoning = options.sendReasoning ?? true;
  const sendSources = options.sendSources ?? true;
  const openText = new Set<string>();
  const reasoning = new Map<string, ProviderMetadata>();
  const reasoningStart = new Map<string, number>();
  const citations = new Map<string, AiSdkCitation[]>();
  const tools = new Map<string, string>();
  /** Tool calls of the message this run continues (named by an answer, or answered before any step). */
  const earlier = new Set<string>();
  /** approvalId → toolCallId of the approvals asked in this run. */
  const approvals = new Map<string, string>();
  /** Whether a step has opened in this run (answers come before the first one). */
  let stepped = false;
  /** Whether run-start says the run continues an earlier run's message (its answers come first). */
  let continues = false;
  /** Tool calls whose input is streaming (tool-input-start seen, no tool-input-end yet): the text so far. */
  const streamingInputs = new Map<string, string>();
  /** The message of a fatal error not sent yet (see the module comment). */
  let fatalError: string | undefined;
  const sourceUrls = new Set<string>();
  let step = false;
  let started = false;
  let ended = false;
  let citationCount = 0;
  const summary = options.messageMetadata ? new RunSummary() : undefined;
  const seed000 = ns === 'mobox' ? createSeed000Blocks() : undefined;
  /** The summary as message metadata, as history holds it now (persisted once the run ended). */
  const finalMetadata = (): JsonObject | undefined =>
    summary && { [ns]: messageSummaryMetadata(summary.summary(summary.closed ? 'persisted' : 'pending')) };

  const merge = (a: ProviderMetadata | undefined, b: ProviderMetadata | undefined): ProviderMetadata | undefined => {
    if (!a) return b;
    if (!b) return a;
    const out: ProviderMetadata = { ...a };
    for (const k in b) out[k] = { ...a[k], ...b[k] };
    return out;
  };

  function ensureStep(out: AiSdkChunk[]): void {
    if (!started) {
      started = true;
      out.push({ type: 'start' });
    }
    if (!step) {
      step = true;
      stepped = true;
      out.push({ type: 'start-step' });
    }
  }

  function ensureTool(out: AiSdkChunk[], toolCallId: string, toolName: string | undefined): void {
    if (tools.has(toolCallId)) return;
    // The client needs a tool part before an output; synthesise one for outputs of unseen calls.
    tools.set(toolCallId, toolName ?? 'unknown');
    out.push({ type: 'tool-input-available', toolCallId, toolName: toolName ?? 'unknown', input: {} });
  }

  /** Whether an output is for a call of the message this run continues (no part to open for it). */
  function continued(toolCallId: string): boolean {
    if (tools.has(toolCallId)) return false;
    if (continues && !stepped) earlier.add(toolCallId);
    return earlier.has(toolCallId);
  }

  /** Before an output or error: its step and tool part, unless the call belongs to the continued message. */
  function toolForOutput(out: AiSdkChunk[], toolCallId: string, toolName: string | undefined): void {
    if (continued(toolCallId)) return;
    ensureStep(out);
    ensureTool(out, toolCallId, toolName);
  }

  /** Sends a tool chunk with the flags every tool event carries over. */
  function pushTool(out: AiSdkChunk[], c: AiSdkChunk, e: { providerExecuted?: boolean; providerMetadata?: ProviderMetadata }): void {
    if (e.providerExecuted) c.providerExecuted = true;
    if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
    out.push(c);
  }

  function closeParts(out: AiSdkChunk[]): void {
    for (const id of openText) out.push({ type: 'text-end', id });
    openText.clear();
    for (const [id, pm] of reasoning) out.push({ type: 'reasoning-end', id, providerMetadata: pm });
    reasoning.clear();
  }

  /** Settles tool inputs still streaming (before a fatal error): `tool-input-error` with what arrived. */
  function closeInputs(out: AiSdkChunk[], errorText = 'The run failed before the tool input was complete.'): void {
    for (const [toolCallId, text] of streamingInputs) {
      const toolName = tools.get(toolCallId) ?? 'unknown';
      const input = text === '' ? {} : (parsePartialJson(text).value ?? text);
      out.push({ type: 'tool-input-error', toolCallId, toolName, input, errorText });
    }
    streamingInputs.clear();
  }

  function closeStep(out: AiSdkChunk[]): void {
    if (!step) return;
    closeParts(out);
    step = false;
    out.push({ type: 'finish-step' });
  }

  /** Encodes an event, first sending a held fatal error unless the event is one that closes the run. */
  function encodeAfterFatal(e: CanonicalEvent, out: AiSdkChunk[]): void {
    // With message metadata the error also waits for the step's end: at run-finish its metadata is final.
    if (fatalError !== undefined && !(CLOSING.has(e.type) || (summary !== undefined && e.type === 'step-finish'))) flushFatal(out);
    encode(e, out);
  }

  function encode(e: CanonicalEvent, out: AiSdkChunk[]): void {
    switch (e.type) {
      case 'run-start': {
        started = true;
        continues = e.continues === true;
        const c: AiSdkChunk = { type: 'start', messageId: e.messageId };
        const meta = summary ? { ...e.metadata, [ns]: messageSummaryMetadata(summary.summary('pending')) } : e.metadata;
        if (meta) c.messageMetadata = meta;
        out.push(c);
        return;
      }
      case 'step-start':
        closeStep(out);
        ensureStep(out);
        return;
      case 'step-finish':
        closeStep(out);
        return;
      case 'text-start': {
        ensureStep(out);
        openText.add(e.blockId);
        const c: AiSdkChunk = { type: 'text-start', id: e.blockId };
        if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
        out.push(c);
        return;
      }
      case 'text-delta':
        if (!openText.has(e.blockId)) encode({ ...e, type: 'text-start' }, out);
        out.push({ type: 'text-delta', id: e.blockId, delta: e.delta });
        return;
      case 'citation': {
        const list = citations.get(e.blockId) ?? [];
        const cited = toAiSdkCitation(e.citation, `citation-${++citationCount}`);
        list.push(cited);
        citations.set(e.blockId, list);
        if (sendSources && cited.source.sourceType === 'url' && !sourceUrls.has(cited.source.url)) {
          sourceUrls.add(cited.source.url);
          const s: AiSdkChunk = { type: 'source-url', sourceId: cited.source.id, url: cited.source.url };
          if (cited.source.title !== undefined) s.title = cited.source.title;
          out.push(s);
        }
        return;
      }
      case 'text-end': {
        if (!openText.delete(e.blockId)) return;
        const c: AiSdkChunk = { type: 'text-end', id: e.blockId };
        const list = citations.get(e.blockId);
        if (list) {
          c.citations = list;
          citations.delete(e.blockId);
        }
        if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
        out.push(c);
        return;
      }
      case 'reasoning-start': {
        if (!sendReasoning) return;
        ensureStep(out);
        const pm = merge(e.providerMetadata, { [ns]: { variant: e.variant } }) as ProviderMetadata;
        reasoning.set(e.blockId, pm);
        reasoningStart.set(e.blockId, e.ts);
        out.push({ type: 'reasoning-start', id: e.blockId, providerMetadata: pm });
        return;
      }
      case 'reasoning-delta':
        if (!sendReasoning) return;
        if (!reasoning.has(e.blockId)) encode({ ...e, type: 'reasoning-start', variant: 'thinking' }, out);
        out.push({ type: 'reasoning-delta', id: e.blockId, delta: e.delta });
        return;
      case 'reasoning-end': {
        const pm = reasoning.get(e.blockId);
        if (!pm) return;
        reasoning.delete(e.blockId);
        // The duration the server measured, so "Thought for 3s" reads the same live and after a reload.
        const durationMs = e.ts - (reasoningStart.get(e.blockId) ?? e.ts);
        reasoningStart.delete(e.blockId);
        out.push({
          type: 'reasoning-end',
          id: e.blockId,
          providerMetadata: merge(merge(pm, e.providerMetadata), { [ns]: { durationMs } }),
        });
        return;
      }
      case 'tool-input-start': {
        ensureStep(out);
        tools.set(e.toolCallId, e.toolName);
        streamingInputs.set(e.toolCallId, '');
        pushTool(out, { type: 'tool-input-start', toolCallId: e.toolCallId, toolName: e.toolName }, e);
        return;
      }
      case 'tool-input-delta':
        if (!tools.has(e.toolCallId)) return;
        if (streamingInputs.has(e.toolCallId)) streamingInputs.set(e.toolCallId, streamingInputs.get(e.toolCallId) + e.delta);
        out.push({ type: 'tool-input-delta', toolCallId: e.toolCallId, inputTextDelta: e.delta });
        return;
      case 'tool-input-end': {
        ensureStep(out);
        tools.set(e.toolCallId, e.toolName);
        streamingInputs.delete(e.toolCallId);
        const c: AiSdkChunk = e.inputError
          ? { type: 'tool-input-error', toolCallId: e.toolCallId, toolName: e.toolName, input: e.input, errorText: e.inputError }
          : { type: 'tool-input-available', toolCallId: e.toolCallId, toolName: e.toolName, input: e.input };
        pushTool(out, c, e);
        return;
      }
      case 'tool-output': {
        toolForOutput(out, e.toolCallId, e.toolName);
        const c: AiSdkChunk = { type: 'tool-output-available', toolCallId: e.toolCallId, output: e.output };
        if (e.preliminary) c.preliminary = true;
        pushTool(out, c, e);
        return;
      }
      case 'tool-error': {
        toolForOutput(out, e.toolCallId, e.toolName);
        pushTool(out, { type: 'tool-output-error', toolCallId: e.toolCallId, errorText: e.error }, e);
        return;
      }
      case 'tool-approval-request': {
        // The client needs the call's part (this run's tool-input-*, or the continued message's).
        if (!tools.has(e.toolCallId) && !earlier.has(e.toolCallId)) return;
        approvals.set(e.approvalId, e.toolCallId);
        const c: AiSdkChunk = { type: 'tool-approval-request', approvalId: e.approvalId, toolCallId: e.toolCallId };
        if (e.reason !== undefined) c.reason = e.reason;
        out.push(c);
        return;
      }
      case 'tool-approval-response': {
        // An answer to an approval this stream did not ask is one a continuation run starts with, before
        // its first step (the client holds the continued message). Elsewhere (once a step has opened, or
        // in a run that continues nothing) the stock client has no part for it (it rejects the chunk):
        // the canonical stream keeps it, this one does not.
        if (!approvals.has(e.approvalId) && (stepped || !continues)) return;
        const toolCallId = approvals.get(e.approvalId) ?? e.toolCallId;
        if (toolCallId !== undefined && !tools.has(toolCallId)) earlier.add(toolCallId);
        // Read from a bare tool-output-denied (the official server's denial): no approval chunk to send back.
        if (e.providerMetadata?.['ai-sdk']?.deniedOnly !== true) {
          const c: AiSdkChunk = { type: 'tool-approval-response', approvalId: e.approvalId, approved: e.approved };
          if (e.reason !== undefined) c.reason = e.reason;
          if (e.providerExecuted !== undefined) c.providerExecuted = e.providerExecuted;
          if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
          out.push(c);
        }
        if (!e.approved && toolCallId !== undefined) out.push({ type: 'tool-output-denied', toolCallId });
        return;
      }
      case 'client-tool-call':
        // tool-input-available already lets the client's onToolCall fire.
        return;
      case 'interrupt': {
        const { type: _t, runId: _r, seq: _s, ts: _ts, subagentId: _sa, ...data } = e;
        out.push({ type: 'data-interrupt', id: e.interruptId, data: data as JsonObject });
        return;
      }
      case 'interrupt-response': {
        const { type: _t, runId: _r, seq: _s, ts: _ts, subagentId: _sa, ...data } = e;
        out.push({ type: 'data-interrupt-response', id: e.interruptId, data: data as JsonObject });
        return;
      }
      case 'source': {
        if (!sendSources) return;
        if (e.kind === 'url' && e.url !== undefined) {
          if (sourceUrls.has(e.url)) return;
          sourceUrls.add(e.url);
        }
        out.push(toAiSdkSource(e));
        return;
      }
      case 'file': {
        const c: AiSdkChunk = { type: 'file', url: e.url, mediaType: e.mediaType };
        if (e.providerMetadata) c.providerMetadata = e.providerMetadata;
        out.push(c);
        return;
      }
      case 'todos':
        out.push({ type: 'data-todos', id: 'todos', data: { change: e.change, todos: e.todos } });
        return;
      case 'usage': {
        const data: JsonObject = { scope: e.scope, ...(e.usage as JsonObject) };
        if (e.durationMs !== undefined) data.durationMs = e.durationMs;
        out.push({ type: 'data-usage', data });
        return;
      }
      case 'status':
        out.push({
          type: 'data-status',
          data: { status: e.status, ...(e.message !== undefined ? { message: e.message } : {}) },
          transient: true,
        });
        return;
      case 'subagent-start':
      case 'subagent-finish': {
        const { type, runId: _r, seq: _s, ts: _t, ...data } = e;
        out.push({ type: 'data-subagent', id: e.subagentId, data: { event: type, ...(data as JsonObject) } });
        return;
      }
      case 'state-snapshot':
        out.push({ type: 'data-state', id: 'state', data: e.state });
        return;
      case 'state-delta':
        out.push({ type: 'data-state-delta', data: e.patch as Json, transient: true });
        return;
      case 'custom':
        out.push({ type: 'data-custom', data: { name: e.name, value: e.value } });
        return;
      case 'error':
        if (!e.fatal) {
          out.push({
            type: 'data-error',
            data: { message: e.message, ...(e.code !== undefined ? { code: e.code } : {}) },
            transient: true,
          });
          return;
        }
        fatalError ??= e.message;
        return;
      case 'run-finish': {
        // A tool input the decoder left streaming (input cut short): settled, so the message is too.
        closeInputs(out, 'The run ended before the tool input was complete.');
        closeStep(out);
        if (e.usage) out.push({ type: 'data-usage', id: 'usage', data: { scope: 'total', ...(e.usage as JsonObject) } });
        const meta = finalMetadata();
        out.push({ type: 'finish', finishReason: e.finishReason, ...(meta ? { messageMetadata: meta } : {}) });
        ended = true;
        return;
      }
      case 'run-abort': {
        const meta = finalMetadata();
        if (meta) out.push({ type: 'message-metadata', messageMetadata: meta });
        out.push(e.reason !== undefined ? { type: 'abort', reason: e.reason } : { type: 'abort' });
        ended = true;
        return;
      }
      case 'raw':
        // The UI message stream has no place for unmapped input; the canonical output keeps it.
        return;
    }
  }

  /** Sends the held fatal error, after closing what is still open. */
  function flushFatal(out: AiSdkChunk[]): void {
    if (fatalError === undefined) return;
    closeParts(out);
    closeInputs(out);
    // The client applies nothing after `error`: what history will hold goes first.
    const meta = finalMetadata();
    if (meta) out.push({ type: 'message-metadata', messageMetadata: meta });
    out.push({ type: 'error', errorText: fatalError });
    fatalError = undefined;
  }

  return {
    push(e) {
      if (ended) return [];
      summary?.apply(e);
      const out: AiSdkChunk[] = [];
      // Without the `mobox` formatter fold (the common case) the event is encoded as it is: no array per event.
      if (!seed000) encodeAfterFatal(e, out);
      else
        for (const x of seed000.push(e)) {
          if (ended) break;
          encodeAfterFatal(x, out);
        }
      return out;
    },
    end() {
      const out: AiSdkChunk[] = [];
      if (!ended && seed000) for (const x of seed000.end()) encode(x, out);
      if (!ended) flushFatal(out);
      return out;
    },
  };
}

/** Response headers of the UI message stream, as the official `createUIMessageStreamResponse` sets them. */
export const AI_SDK_SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};
