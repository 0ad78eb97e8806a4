/**
 * Decoder for the OpenAI Agents SDK JS (`@openai/agents`) run stream: the events of
 * `run(agent, input, { stream: true })` as `JSON.stringify` writes them, one per value:
 *
 * - `raw_model_stream_event` `{ data, source? }`: the model's stream. With the Responses model,
 *   `data.type === 'model'` carries every raw Responses API event in `data.event` — decoded by the
 *   Responses step machine ({@link createResponsesCore}) on this decoder's emitter — and the SDK's
 *   normalized `response_started` / `output_text_delta` / `response_done` repeat them (only the
 *   request id and the SDK's usage accounting are new). With other models (Chat Completions, AI SDK
 *   adapter) the normalized events are decoded and the raw chunks are kept as `raw` events.
 * - `run_item_stream_event` `{ name, item: { type, rawItem, agent, … } }`: items the run produced.
 *   Those already decoded from the model stream are recognised by id and not repeated; tool outputs
 *   (the SDK runs the tools), handoffs and approval requests (→ tool-approval-request; the run then
 *   ends waiting, `pending.approvalIds`) are new. A resumed run's output for a rejected call is the
 *   SDK's rejection message: it becomes the tool-approval-response denial.
 * - `agent_updated_stream_event` `{ agent: { name } }`: a handoff made another agent current.
 *
 * One model call is one step; the step stays open until the next model call so that the outputs of
 * the tools it called belong to it (as in the AI SDK's multi-step runs). The stream has no final
 * event: it ends when the run ends (or pauses for approvals).
 */
import type { DecoderOptions, Emitter } from '../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import type { Decoder } from './decoder.ts';
import { isObject, Kit, num, type Obj, parseToolInput, rest, StepTotals, str } from './kit/index.ts';
import { createResponsesCore, detectOpenAIResponses } from './openai-responses.ts';

/** providerMetadata key for what the Agents SDK adds (request id, its usage accounting, run items). */
const PM = 'openaiAgents';
const SOURCE = 'openai-agents';

/** What the SDK tells the model when a tool call's approval was rejected (`TOOL_APPROVAL_REJECTION_MESSAGE`). */
const TOOL_APPROVAL_REJECTION_MESSAGE = 'Tool execution was not approved.';

const STREAM_TYPES = new Set(['raw_model_stream_event', 'run_item_stream_event', 'agent_updated_stream_event']);

/** The SDK's `UsageData` (camelCase, details as provider objects) as canonical usage. */
function agentsUsage(u: Obj): Usage {
  const usage: Usage = { raw: u as Json };
  if (num(u, 'inputTokens') !== undefined) usage.inputTokens = num(u, 'inputTokens');
  if (num(u, 'outputTokens') !== undefined) usage.outputTokens = num(u, 'outputTokens');
  if (num(u, 'totalTokens') !== undefined) usage.totalTokens = num(u, 'totalTokens');
  const cached = num(u.inputTokensDetails, 'cached_tokens');
  if (cached !== undefined) usage.cacheReadTokens = cached;
  const reasoning = num(u.outputTokensDetails, 'reasoning_tokens');
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/** Tool outputs arrive as the SDK's string rendering; JSON objects and arrays are parsed back. */
function outputValue(value: unknown): Json {
  if (typeof value === 'string') {
    const t = value.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return JSON.parse(t);
      } catch {
        // not JSON after all
      }
    }
    return value;
  }
  return (value ?? null) as Json;
}

/** True when one parsed input value is unmistakably an OpenAI Agents SDK run stream event. */
export function detectOpenAIAgents(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string' || !STREAM_TYPES.has(value.type)) return false;
  if (value.type === 'raw_model_stream_event') return isObject(value.data);
  if (value.type === 'run_item_stream_event') return typeof value.name === 'string' && isObject(value.item);
  return isObject(value.agent);
}

interface NormalizedStep {
  id: string;
  text?: { blockId: string; text: string };
  calls: number;
  rawFinish?: string;
}

/** The text (or refusal) parts of a message item's content. */
function textOf(content: unknown): { text: string; refusal: boolean }[] {
  if (!Array.isArray(content)) return typeof content === 'string' ? [{ text: content, refusal: false }] : [];
  const parts: { text: string; refusal: boolean }[] = [];
  for (const c of content) {
    if (!isObject(c)) continue;
    if (typeof c.text === 'string') parts.push({ text: c.text, refusal: false });
    else if (typeof c.refusal === 'string') parts.push({ text: c.refusal, refusal: true });
  }
  return parts;
}

/** Message and reasoning items the model stream did not show, as whole blocks; closing a streamed text block. */
function itemBlocks(out: Emitter, nextBlock: () => number) {
  function closeText(s: NormalizedStep): void {
    if (!s.text) return;
    out.emit({ type: 'text-end', blockId: s.text.blockId });
    s.text = undefined;
  }

  function message(item: Obj): void {
    const id = str(item, 'id');
    for (const part of textOf(item.content)) {
      const blockId = `${id ?? 'message'}:${nextBlock()}`;
      const meta: JsonObject = {};
      if (id) meta.itemId = id;
      if (typeof item.phase === 'string') meta.phase = item.phase;
      if (part.refusal) meta.refusal = true;
      out.emit({ type: 'text-start', blockId, ...(Object.keys(meta).length > 0 ? { providerMetadata: { openai: meta } } : {}) });
      if (part.text) out.emit({ type: 'text-delta', blockId, delta: part.text });
      out.emit({ type: 'text-end', blockId });
    }
  }

  function reasoning(item: Obj): void {
    const id = str(item, 'id');
    const pd = isObject(item.providerData) ? item.providerData : {};
    const parts = [...textOf(item.content), ...textOf(item.rawContent)];
    if (parts.length === 0) parts.push({ text: '', refusal: false });
    const meta: JsonObject = { reasoningEncryptedContent: (pd.encrypted_content ?? null) as Json };
    if (id) meta.itemId = id;
    for (const part of parts) {
      const blockId = `${id ?? 'reasoning'}:${nextBlock()}`;
      out.emit({ type: 'reasoning-start', blockId, variant: 'thinking', providerMetadata: { openai: meta } });
      if (part.text) out.emit({ type: 'reasoning-delta', blockId, delta: part.text });
      out.emit({ type: 'reasoning-end', blockId, providerMetadata: { openai: meta } });
    }
  }

  return { message, reasoning, closeText };
}

/** A `tool_approval_requested` item. The SDK keys approvals by the call (`state.approve(item)`): the call id is the approval id. */
function approvalRequest(out: Emitter, item: Obj, rawItem: Obj, toolCallId: string, knownName: string | undefined): void {
  const e: EventInit = { type: 'tool-approval-request', approvalId: toolCallId, toolCallId };
  const toolName = str(item, 'toolName') ?? knownName;
  if (toolName) e.toolName = toolName;
  e.providerMetadata = { [PM]: { ...rest(item, ['type', 'rawItem', 'agent', 'toolName']), rawItem: rawItem as Json } };
  out.emit(e);
}

/**
 * A resumed run's output for a call of the paused run that was rejected (`state.reject(item)`): the
 * SDK's rejection message instead of a tool output. It is the denial, not an output: the tool did not run.
 */
function rejection(out: Emitter, item: Obj, rawItem: Obj, toolCallId: string): boolean {
  const text = isObject(rawItem.output) ? rawItem.output.text : rawItem.output;
  if (text !== TOOL_APPROVAL_REJECTION_MESSAGE || (item.output !== undefined && item.output !== text)) return false;
  const meta: JsonObject = { rawItem: rawItem as Json, ...rest(item, ['type', 'rawItem', 'agent', 'output']) };
  out.emit({
    type: 'tool-approval-response',
    approvalId: toolCallId,
    toolCallId,
    approved: false,
    reason: text,
    providerMetadata: { [PM]: meta },
  });
  return true;
}

/** Creates a decoder for OpenAI Agents SDK JS run stream events. */
export function createOpenAIAgentsDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, SOURCE);
  const { out, invalid, raw } = kit;
  let agentName: string | undefined = options.agent;
  let doneInfo: JsonObject | undefined;
  const totals = new StepTotals();
  let fatal = false;
  let stepCount = 0;
  let blockCount = 0;
  let mode: 'responses' | 'normalized' | undefined;
  let nstep: NormalizedStep | undefined;
  let nheld: EventInit | undefined;
  const seen = new Set<string>();
  const toolNames = new Map<string, string>();
  const approvals = new Set<string>();

  const core = createResponsesCore(out, {
    source: SOURCE,
    fieldPrefix: 'data.event',
    holdStepFinish: true,
    decorateStepStart: (e) => {
      stepCount++;
      if (agentName) e.name = agentName;
    },
    decorateStepFinish: (e) => {
      if (doneInfo) {
        e.providerMetadata = { ...e.providerMetadata, [PM]: doneInfo };
        doneInfo = undefined;
      }
      totals.add(e);
    },
  });

  function knows(id: string | undefined): boolean {
    return id !== undefined && (seen.has(id) || core.knows(id));
  }

  /** The current agent changed (or became known): a status event, and later steps carry its name. */
  function setAgent(name: string | undefined): void {
    if (!name || name === agentName) return;
    agentName = name;
    if (!out.started) {
      out.start({ agent: name });
      return;
    }
    out.emit({ type: 'status', status: 'agent', message: name });
  }

  /** Emits held step-finishes: a new model call begins (or the run ends). */
  function release(): void {
    core.releaseStep();
    if (nheld) {
      const e = nheld;
      nheld = undefined;
      out.emit(e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Normalized model events (models without raw Responses events)
  // ---------------------------------------------------------------------------------------------

  function openNormalized(first: Obj | undefined): NormalizedStep {
    if (nstep) closeNormalized(undefined, 'other');
    release();
    stepCount++;
    const responseId = first ? str(first, 'id') : undefined;
    const id = responseId && !seen.has(`step:${responseId}`) ? responseId : `step_${stepCount}`;
    seen.add(`step:${id}`);
    const model = first ? str(first, 'model') : undefined;
    if (!out.started) out.start({ messageId: id, ...(model ? { model } : {}), ...(agentName ? { agent: agentName } : {}) });
    nstep = { id, calls: 0 };
    const e: EventInit = { type: 'step-start', stepId: id, kind: 'model' };
    if (model) e.model = model;
    if (agentName) e.name = agentName;
    out.emit(e);
    return nstep;
  }

  function closeNormalized(response: Obj | undefined, reason?: FinishReason): void {
    const s = nstep;
    if (!s) return;
    closeText(s);
    nstep = undefined;
    const e: EventInit = {
      type: 'step-finish',
      stepId: s.id,
      finishReason: reason ?? (s.calls > 0 ? 'tool-calls' : 'stop'),
    };
    if (s.rawFinish) e.rawFinishReason = s.rawFinish;
    if (response && isObject(response.usage)) e.usage = agentsUsage(response.usage);
    const meta = response ? rest(response, ['id', 'usage', 'output']) : undefined;
    if (meta) e.providerMetadata = { [PM]: meta };
    totals.add(e);
    nheld = e;
  }

  // ---------------------------------------------------------------------------------------------
  // Items (from response_done output of normalized models, or run items not seen in the model stream)
  // ---------------------------------------------------------------------------------------------

  const { message, reasoning, closeText } = itemBlocks(out, () => ++blockCount);

  /** A tool call (function, hosted, shell, …) that the model stream did not show. */
  function toolCall(item: Obj): string | undefined {
    const type = str(item, 'type');
    const id = str(item, 'callId') ?? str(item, 'call_id') ?? str(item, 'id');
    if (!id || knows(id)) return id;
    seen.add(id);
    const hosted = type === 'hosted_tool_call' || type === 'program' || (type === 'tool_search_call' && item.execution !== 'client');
    const name =
      type === 'function_call' || type === 'hosted_tool_call'
        ? (str(item, 'name') ?? 'unknown')
        : type === 'program'
          ? 'programmatic_tool_calling'
          : type === 'shell_call'
            ? 'shell'
            : type === 'apply_patch_call'
              ? 'apply_patch'
              : type === 'computer_call'
                ? 'computer'
                : type === 'tool_search_call'
                  ? 'tool_search'
                  : (type ?? 'unknown');
    toolNames.set(id, name);
    let input: Json = {};
    let text = '';
    let inputError: string | undefined;
    if (typeof item.arguments === 'string') {
      text = item.arguments;
      ({ input, inputError } = parseToolInput(text));
    } else {
      input = (rest(item, ['type', 'id', 'callId', 'call_id', 'name', 'status', 'providerData', 'output']) ?? {}) as Json;
    }
    const start: EventInit = { type: 'tool-input-start', toolCallId: id, toolName: name };
    if (hosted) start.providerExecuted = true;
    out.emit(start);
    if (text) out.emit({ type: 'tool-input-delta', toolCallId: id, delta: text });
    const meta: JsonObject = {};
    if (str(item, 'id')) meta.itemId = str(item, 'id') as string;
    const end: EventInit = { type: 'tool-input-end', toolCallId: id, toolName: name, input };
    if (hosted) end.providerExecuted = true;
    if (inputError) end.inputError = inputError;
    if (Object.keys(meta).length > 0) end.providerMetadata = { openai: meta };
    out.emit(end);
    if (type === 'function_call' || type === 'shell_call' || type === 'apply_patch_call' || type === 'computer_call') {
      if (nstep) nstep.calls++;
    }
    if (type === 'hosted_tool_call' && (item.output !== undefined || item.status === 'completed')) {
      const e: EventInit = {
        type: 'tool-output',
        toolCallId: id,
        toolName: name,
        providerExecuted: true,
        output: (item.output ?? item.providerData ?? null) as Json,
      };
      out.emit(e);
    }
    return id;
  }

  function decodeOutputItem(item: Obj): void {
    const type = item.type ?? 'message';
    if (type === 'message') {
      const key = `message:${str(item, 'id') ?? ''}:${JSON.stringify(textOf(item.content))}`;
      if (knows(str(item, 'id')) || seen.has(key)) return;
      seen.add(key);
      return message(item);
    }
    if (type === 'reasoning') {
      const key = `reasoning:${str(item, 'id') ?? ''}:${JSON.stringify(textOf(item.content))}`;
      if (knows(str(item, 'id')) || seen.has(key)) return;
      seen.add(key);
      return reasoning(item);
    }
    if (type === 'compaction') {
      if (knows(str(item, 'id'))) return;
      out.emit({ type: 'custom', name: 'openai.compaction', value: item as Json });
      return;
    }
    toolCall(item);
  }

  // ---------------------------------------------------------------------------------------------
  // Stream events
  // ---------------------------------------------------------------------------------------------

  function rawModelEvent(value: Obj, where?: Location): void {
    const data = value.data;
    if (!isObject(data) || typeof data.type !== 'string') return invalid(where, 'data', 'an object with a string "type"');
    switch (data.type) {
      case 'response_started': {
        const pd = isObject(data.providerData) ? data.providerData : undefined;
        if (pd?.type === 'response.created') {
          // The Responses model: the same event follows as data.event of a "model" event.
          if (nstep) closeNormalized(undefined, 'other');
          release();
          mode = 'responses';
          return;
        }
        mode = 'normalized';
        openNormalized(pd);
        return;
      }
      case 'model': {
        const ev = data.event;
        const pd = isObject(data.providerData) ? data.providerData : {};
        const src = str(value, 'source') ?? str(pd, 'rawModelEventSource');
        if (
          isObject(ev) &&
          typeof ev.type === 'string' &&
          (src === 'openai-responses' || (src === undefined && detectOpenAIResponses(ev)))
        ) {
          if (ev.type === 'response.created' || !core.stepOpen) {
            if (nstep) closeNormalized(undefined, 'other');
            release();
          }
          mode = 'responses';
          core.handle(ev, where);
          return;
        }
        // Another model's raw chunk: decoded through the normalized events, kept whole here.
        if (nstep && isObject(ev) && Array.isArray(ev.choices)) {
          for (const c of ev.choices) if (isObject(c) && typeof c.finish_reason === 'string') nstep.rawFinish = c.finish_reason;
        }
        return raw(value, `raw ${src ?? 'model'} event (the normalized events carry what it means)`, where);
      }
      case 'output_text_delta': {
        if (typeof data.delta !== 'string') return invalid(where, 'data.delta', 'a string');
        if (mode === 'responses') return; // the raw response.output_text.delta follows
        const s = nstep ?? openNormalized(undefined);
        if (!s.text) {
          const itemId = str(data, 'itemId');
          s.text = { blockId: `${itemId ?? s.id}:${++blockCount}`, text: '' };
          out.emit({ type: 'text-start', blockId: s.text.blockId, ...(itemId ? { providerMetadata: { openai: { itemId } } } : {}) });
        }
        s.text.text += data.delta;
        if (data.delta) out.emit({ type: 'text-delta', blockId: s.text.blockId, delta: data.delta });
        return;
      }
      case 'response_done': {
        const response = isObject(data.response) ? data.response : undefined;
        if (!response) return invalid(where, 'data.response', 'an object');
        if (mode === 'responses') {
          // The raw response.completed follows with everything but the SDK's request id and usage accounting.
          const info = rest(response, ['id', 'output', 'providerData']) ?? {};
          doneInfo = info;
          return;
        }
        const s = nstep ?? openNormalized(response);
        const streamed = s.text?.text;
        closeText(s);
        if (Array.isArray(response.output)) {
          for (const item of response.output) {
            if (!isObject(item)) continue;
            if ((item.type ?? 'message') === 'message' && streamed !== undefined) {
              // Its text streamed as output_text_delta.
              seen.add(`message:${str(item, 'id') ?? ''}:${JSON.stringify(textOf(item.content))}`);
              continue;
            }
            decodeOutputItem(item);
          }
        }
        closeNormalized(response);
        return;
      }
      default:
        return raw(value, `unknown model stream event type ${JSON.stringify(data.type)}`, where);
    }
  }

  function runItem(value: Obj, where?: Location): void {
    const name = value.name;
    const item = value.item;
    if (typeof name !== 'string') return invalid(where, 'name', 'a run item event name');
    if (!isObject(item)) return invalid(where, 'item', 'a run item object');
    const rawItem = isObject(item.rawItem) ? item.rawItem : undefined;
    if (isObject(item.agent)) setAgent(str(item.agent, 'name'));
    else if (isObject(item.sourceAgent)) setAgent(str(item.sourceAgent, 'name'));
    if (!rawItem) return invalid(where, 'item.rawItem', 'an object');
    switch (name) {
      case 'message_output_created':
      case 'reasoning_item_created':
      case 'compaction_item_created':
        return decodeOutputItem(rawItem);
      case 'tool_called':
      case 'tool_search_called':
      case 'handoff_requested':
        toolCall(rawItem);
        return;
      case 'tool_search_output_created':
      case 'tool_output':
      case 'handoff_occurred': {
        const toolCallId = str(rawItem, 'callId') ?? str(rawItem, 'call_id') ?? str(rawItem, 'id');
        if (!toolCallId) return invalid(where, 'item.rawItem.callId', 'the id of the tool call');
        if (core.knows(`output:${toolCallId}`) || seen.has(`output:${toolCallId}`)) return;
        seen.add(`output:${toolCallId}`);
        approvals.delete(toolCallId);
        if (!knows(toolCallId) && !seen.has(toolCallId) && rejection(out, item, rawItem, toolCallId)) return;
        const call = core.toolOf(toolCallId);
        const toolName = str(rawItem, 'name') ?? toolNames.get(toolCallId) ?? call?.toolName;
        const output =
          rawItem.type === 'tool_search_output'
            ? ({ tools: (rawItem.tools ?? []) as Json } as Json)
            : outputValue(
                item.output !== undefined
                  ? item.output
                  : isObject(rawItem.output) && typeof rawItem.output.text === 'string'
                    ? rawItem.output.text
                    : rawItem.output,
              );
        const meta: JsonObject = {
          rawItem: rawItem as Json,
          ...rest(item, ['type', 'rawItem', 'agent', 'output', 'sourceAgent', 'targetAgent']),
        };
        const e: EventInit = { type: 'tool-output', toolCallId, output, providerMetadata: { [PM]: meta } };
        if (toolName) e.toolName = toolName;
        if (call?.providerExecuted || (rawItem.type === 'tool_search_output' && rawItem.execution !== 'client')) e.providerExecuted = true;
        out.emit(e);
        if (name === 'handoff_occurred') {
          const from = isObject(item.sourceAgent) ? str(item.sourceAgent, 'name') : undefined;
          const to = isObject(item.targetAgent) ? str(item.targetAgent, 'name') : undefined;
          out.emit({ type: 'status', status: 'handoff', message: `${from ?? '?'} → ${to ?? '?'}` });
        }
        return;
      }
      case 'tool_approval_requested': {
        const toolCallId = toolCall(rawItem);
        if (!toolCallId) return invalid(where, 'item.rawItem.callId', 'the id of the tool call that needs approval');
        if (approvals.has(toolCallId)) return;
        approvals.add(toolCallId);
        return approvalRequest(out, item, rawItem, toolCallId, toolNames.get(toolCallId) ?? core.toolOf(toolCallId)?.toolName);
      }
      default:
        return raw(value, `unknown run item event ${JSON.stringify(name)}`, where);
    }
  }

  return kit.decoder({
    push(value, where) {
      const ev = kit.object(value, where);
      if (!ev) return;
      switch (ev.type) {
        case 'raw_model_stream_event':
          rawModelEvent(ev, where);
          break;
        case 'run_item_stream_event':
          runItem(ev, where);
          break;
        case 'agent_updated_stream_event':
          if (!isObject(ev.agent) || typeof ev.agent.name !== 'string') invalid(where, 'agent.name', 'a string');
          else setAgent(ev.agent.name);
          break;
        default:
          if (typeof ev.type !== 'string') invalid(where, 'type', 'a string event type');
          else raw(ev, `unknown event type ${JSON.stringify(ev.type)}`, where);
      }
      if (core.fatal) fatal = true;
    },
    finish() {
      if (core.stepOpen || nstep) {
        if (!fatal && !core.fatal) kit.truncated('the stream ended inside a model response (no response_done)');
        fatal = true;
        if (core.stepOpen) core.abortStep('error');
        if (nstep) closeNormalized(undefined, 'error');
      }
      release();
      if (!out.started && !fatal) {
        kit.empty('the stream contained no OpenAI Agents SDK events');
        fatal = true;
      }
      const isError = fatal || core.fatal;
      // Approvals left unanswered: the emitter names them (run-finish.pending, finishReason tool-calls).
      const approval = !isError && approvals.size > 0 ? 'tool_approval_requested' : undefined;
      out.emit(totals.runFinish(isError, 'other', { rawFinishReason: approval }));
    },
  });
}
