/**
 * Decoder for smolagents stream events as JSON lines: what `agent.run(task, stream=True)` yields,
 * one event per line as `{"type": "<class name>", ...fields}` (ActionStep / PlanningStep as their
 * `dict()`, every other class as `dataclasses.asdict()`); `step_type` is accepted instead of `type`.
 * See docs/frameworks/smolagents.md for the exact shape.
 *
 * smolagents yields a step's parts (stream deltas, ToolCall, ToolOutput, ActionOutput) BEFORE the
 * step itself: a PlanningStep / ActionStep line closes the step its parts opened. Steps:
 * - PlanningStep → step kind `planning` (name `initial` | `update`); the plan is the agent's reasoning,
 *   so it is a `thinking` reasoning block (the answer stays the only text of the message).
 * - ActionStep → step kind `action` with its number; the model output ("Thought: … <code>…</code>") is a
 *   `thinking` block, tool calls are tool-input-* (CodeAgent's `python_interpreter` gets `{code}`),
 *   observations are tool outputs, errors tool-errors (or non-fatal errors when no call failed).
 * - FinalAnswerStep → step kind `final-answer` with the answer as text; a structured answer
 *   `{title, content, sources}` gives the content as text, the sources as source events and the rest
 *   in providerMetadata. The run then finishes.
 * - ChatMessageStreamDelta → deltas of the open step's thinking block / streamed tool call input; the
 *   later PlanningStep / ActionStep does not repeat what was streamed.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { EventInit, FinishReason, Json, JsonObject, Location, Usage } from '../model/events.ts';
import { addUsage, usageOf } from '../model/usage.ts';
import { at, type Decoder } from './decoder.ts';
import { emitAnswerSources, isObject, Kit, num, parseToolInput, rest, str } from './kit/index.ts';

const SOURCE = 'smolagents';

/** Class names of the stream events (and memory steps) this decoder knows. */
const TYPES = new Set([
  'PlanningStep',
  'ActionStep',
  'FinalAnswerStep',
  'ChatMessageStreamDelta',
  'ToolCall',
  'ChatMessageToolCall',
  'ToolOutput',
  'ActionOutput',
  'TaskStep',
  'SystemPromptStep',
]);

/** `step_type` values as DeepSearchAgents' DSAgentRunMessage writes them (`planning` | `action` | `final_answer`). */
const STEP_TYPES: Record<string, string> = { planning: 'PlanningStep', action: 'ActionStep', final_answer: 'FinalAnswerStep' };

type Kind = 'planning' | 'action' | 'final-answer';

interface ToolState {
  name: string;
  args: string;
  ended: boolean;
  answered: boolean;
  /** Index of a streamed tool-call delta, when the call was streamed. */
  index?: number;
}

interface Step {
  id: string;
  kind: Kind;
  number?: number;
  blocks: number;
  thinking?: string;
  /** Text streamed into thinking blocks (so the complete step does not repeat it). */
  streamed: string;
  tools: Map<string, ToolState>;
  /** Streamed tool-call index → call id. */
  deltaCalls: Map<number, string>;
  actionOutputs: Json[];
}

/** A smolagents TokenUsage `{input_tokens, output_tokens, total_tokens}` as canonical usage. */
function tokenUsage(u: Record<string, unknown>): Usage {
  return usageOf(u, { inputTokens: num(u, 'input_tokens'), outputTokens: num(u, 'output_tokens'), totalTokens: num(u, 'total_tokens') });
}

/** Timing `{start_time, end_time, duration}` (seconds) → milliseconds. */
function durationMs(t: unknown): number | undefined {
  if (!isObject(t)) return undefined;
  if (typeof t.duration === 'number') return Math.round(t.duration * 1000);
  if (typeof t.start_time === 'number' && typeof t.end_time === 'number') return Math.round((t.end_time - t.start_time) * 1000);
  return undefined;
}

/** The text of a model output: a string, or the text parts of a content list. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((b) => isObject(b) && typeof b.text === 'string').map((b) => b.text as string);
  return parts.length > 0 ? parts.join('') : undefined;
}

/** A tool call in either shape: ToolCall fields `{id, name, arguments}` or `dict()`'s `{id, type, function: {name, arguments}}`. */
function callOf(o: Record<string, unknown>): { id?: string; name?: string; arguments: unknown } {
  const f = isObject(o.function) ? o.function : o;
  return { id: str(o, 'id'), name: str(f, 'name'), arguments: f.arguments };
}

/** Tool input: CodeAgent's code string as `{code}`, JSON text parsed, objects as they are. */
function toolInput(name: string, args: unknown): Json {
  if (typeof args === 'string') {
    if (name === 'python_interpreter') return { code: args };
    const t = args.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return JSON.parse(t);
      } catch {
        // Not JSON after all: keep the text.
      }
    }
    return args;
  }
  return (args ?? {}) as Json;
}

/** Guess whether streamed text (before the step says what it is) is a plan: smolagents' planning prompts open with a facts survey. */
function looksLikePlan(text: string): boolean {
  return /^\s*(#{1,6}\s*)?(\d+\.\s*)?(updated\s+)?(facts\s+survey|facts\s+(given|that)|plan\b)/i.test(text);
}

/** What happens inside one step: its thinking block and its tool calls (state in the step itself). */
function stepBlocks(kit: Kit) {
  const { out, error } = kit;

  function closeThinking(s: Step): void {
    if (s.thinking === undefined) return;
    out.emit({ type: 'reasoning-end', blockId: s.thinking });
    s.thinking = undefined;
  }

  function thinking(s: Step, text: string, streamed: boolean): void {
    if (!text) return;
    if (s.thinking === undefined) {
      s.thinking = `${s.id}:${s.blocks++}`;
      out.emit({ type: 'reasoning-start', blockId: s.thinking, variant: 'thinking' });
    }
    out.emit({ type: 'reasoning-delta', blockId: s.thinking, delta: text });
    if (streamed) s.streamed += text;
  }

  /** Ends streamed tool inputs that no ToolCall completed (their JSON text parsed here). */
  function endStreamedCalls(s: Step): void {
    for (const [id, t] of s.tools) {
      if (t.ended) continue;
      t.ended = true;
      const { input, inputError } = parseToolInput(t.args);
      const e: EventInit = { type: 'tool-input-end', toolCallId: id, toolName: t.name, input };
      if (inputError) e.inputError = inputError;
      out.emit(e);
    }
  }

  function toolCall(s: Step, call: { id?: string; name?: string; arguments: unknown }, where?: Location, meta?: JsonObject): string {
    closeThinking(s);
    const name = call.name ?? 'unknown';
    let id = call.id;
    if (id === undefined || !s.tools.has(id)) {
      // A streamed call whose delta carried no id (or another one): the first unfinished streamed call.
      for (const [k, t] of s.tools) {
        if (!t.ended && t.index !== undefined && (id === undefined || t.name === name)) {
          id = k;
          break;
        }
      }
    }
    if (id === undefined) {
      id = `${s.id}:call${s.tools.size}`;
      error('missing_field', `${describe(at(where, 'id'))}: expected a tool call id`, at(where, 'id', 'string'));
    }
    let t = s.tools.get(id);
    if (t?.ended) return id;
    if (!t) {
      t = { name, args: '', ended: false, answered: false };
      s.tools.set(id, t);
      out.emit({ type: 'tool-input-start', toolCallId: id, toolName: name });
    }
    t.ended = true;
    const e: EventInit = { type: 'tool-input-end', toolCallId: id, toolName: name, input: toolInput(name, call.arguments) };
    if (meta && Object.keys(meta).length > 0) e.providerMetadata = { [SOURCE]: meta };
    out.emit(e);
    return id;
  }

  return { closeThinking, thinking, endStreamedCalls, toolCall };
}

/** Creates a decoder for smolagents stream events (JSON lines). */
export function createSmolagentsDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, SOURCE);
  const { out, error } = kit;
  const stepIds = new Set<string>();
  const doneNumbers = new Set<number>();
  let step: Step | undefined;
  /** Deltas that arrived before anything said which kind of step they belong to. */
  let pending: { deltas: [Record<string, unknown>, Location | undefined][]; text: string } | undefined;
  let planningCount = 0;
  let lastAction = 0;
  let lastKind: Kind | undefined;
  let lastError: string | undefined;
  let maxSteps = false;
  let total: Usage | undefined;
  let seen = 0;

  function uniqueId(base: string): string {
    let id = base;
    for (let n = 2; stepIds.has(id); n++) id = `${base}-${n}`;
    stepIds.add(id);
    return id;
  }

  function openStep(kind: Kind, number?: number, planningType?: string): Step {
    if (step) closeStep();
    let id: string;
    const e: EventInit = { type: 'step-start', stepId: '', kind };
    if (kind === 'planning') {
      planningCount++;
      id = uniqueId(`planning-${planningCount}`);
      e.name = planningType ?? (planningCount === 1 ? 'initial' : 'update');
      e.providerMetadata = { [SOURCE]: { planning_type: e.name } };
    } else if (kind === 'action') {
      const n = number ?? lastAction + 1;
      id = uniqueId(`step-${n}`);
      e.number = n;
      number = n;
    } else id = uniqueId('final-answer');
    e.stepId = id;
    step = { id, kind, blocks: 0, streamed: '', tools: new Map(), deltaCalls: new Map(), actionOutputs: [] };
    if (number !== undefined) step.number = number;
    out.emit(e);
    return step;
  }

  const { closeThinking, thinking, endStreamedCalls, toolCall } = stepBlocks(kit);

  function closeStep(init: Partial<EventInit & { type: 'step-finish' }> = {}): void {
    const s = step;
    if (!s) return;
    closeThinking(s);
    endStreamedCalls(s);
    step = undefined;
    lastKind = s.kind;
    const e = { ...init, type: 'step-finish', stepId: s.id } as EventInit & { type: 'step-finish' };
    if (s.actionOutputs.length > 0 && !init.providerMetadata) e.providerMetadata = { [SOURCE]: { action_outputs: s.actionOutputs } };
    if (e.usage) total = addUsage(total, e.usage);
    out.emit(e);
  }

  /** Decides the kind of the held deltas' step and replays them into it. */
  function resolvePending(kind: Kind): void {
    const p = pending;
    if (!p) return;
    pending = undefined;
    openStep(kind, undefined, kind === 'planning' && /^\s*(#{1,6}\s*)?(\d+\.\s*)?updated/i.test(p.text) ? 'update' : undefined);
    for (const [d, w] of p.deltas) applyDelta(d, w);
  }

  /** The open step for a part of kind `kind`, opening one when none is. */
  function current(kind: Kind): Step {
    resolvePending(kind);
    return step ?? openStep(kind);
  }

  // -- events ------------------------------------------------------------------------------------

  function streamDelta(d: Record<string, unknown>, where?: Location): void {
    if (!step) {
      const hasCalls = Array.isArray(d.tool_calls) && d.tool_calls.length > 0;
      if (hasCalls || lastKind === 'planning') resolvePending('action');
      else {
        // Planning or action? Hold the text until its first line tells.
        pending ??= { deltas: [], text: '' };
        pending.deltas.push([d, where]);
        if (typeof d.content === 'string') pending.text += d.content;
        const t = pending.text.trimStart();
        if (t.includes('\n') || t.length >= 64) resolvePending(looksLikePlan(t) ? 'planning' : 'action');
        return;
      }
    }
    applyDelta(d, where);
  }

  function applyDelta(d: Record<string, unknown>, where?: Location): void {
    const s = step ?? openStep('action');
    if (d.content !== undefined && d.content !== null && typeof d.content !== 'string') {
      error('invalid_field', `${describe(at(where, 'content'))}: expected a string or null`, at(where, 'content', 'string or null'));
    } else if (typeof d.content === 'string') thinking(s, d.content, true);
    if (Array.isArray(d.tool_calls)) {
      d.tool_calls.forEach((tc, i) => {
        if (!isObject(tc)) {
          error(
            'invalid_field',
            `${describe(at(where, `tool_calls[${i}]`))}: expected a tool call delta object`,
            at(where, `tool_calls[${i}]`, 'object'),
          );
          return;
        }
        const index = typeof tc.index === 'number' ? tc.index : i;
        const f = isObject(tc.function) ? tc.function : {};
        let id = s.deltaCalls.get(index);
        if (id === undefined) {
          closeThinking(s);
          id = str(tc, 'id') ?? `${s.id}:call${index}`;
          const name = str(f, 'name') || 'unknown';
          s.deltaCalls.set(index, id);
          s.tools.set(id, { name, args: '', ended: false, answered: false, index });
          out.emit({ type: 'tool-input-start', toolCallId: id, toolName: name });
        }
        const t = s.tools.get(id) as ToolState;
        if (typeof f.arguments === 'string' && f.arguments) {
          t.args += f.arguments;
          out.emit({ type: 'tool-input-delta', toolCallId: id, delta: f.arguments });
        }
      });
    }
    if (isObject(d.token_usage)) out.emit({ type: 'usage', scope: 'increment', usage: tokenUsage(d.token_usage) });
  }

  /** Starts (if new) and completes a tool call. */
  function toolOutput(v: Record<string, unknown>, where?: Location): void {
    const s = current('action');
    const call = isObject(v.tool_call) ? callOf(v.tool_call) : { id: str(v, 'id'), arguments: undefined };
    const id = str(v, 'id') ?? call.id;
    if (id === undefined || !s.tools.has(id) || !s.tools.get(id)?.ended) toolCall(s, { ...call, id }, where);
    const toolCallId = id ?? [...s.tools.keys()].at(-1) ?? `${s.id}:call0`;
    const t = s.tools.get(toolCallId);
    if (t) t.answered = true;
    const output = (v.output ?? v.observation ?? null) as Json;
    const meta: JsonObject = {};
    if (typeof v.observation === 'string' && v.observation !== output) meta.observation = v.observation;
    if (v.is_final_answer === true) meta.is_final_answer = true;
    Object.assign(meta, rest(v, ['type', 'step_type', 'id', 'output', 'observation', 'is_final_answer', 'tool_call']));
    if (isObject(v.tool_call) && call.id !== undefined && call.id !== toolCallId) meta.tool_call = v.tool_call as JsonObject;
    const e: EventInit = { type: 'tool-output', toolCallId, output };
    if (t) e.toolName = t.name;
    if (Object.keys(meta).length > 0) e.providerMetadata = { [SOURCE]: meta };
    out.emit(e);
  }

  function planningStep(v: Record<string, unknown>): void {
    const plan = str(v, 'plan');
    const type = plan?.startsWith('I still need to solve the task')
      ? 'update'
      : plan?.startsWith('Here are the facts I know')
        ? 'initial'
        : undefined;
    resolvePending('planning');
    const s = step ?? openStep('planning', undefined, type);
    const mom = isObject(v.model_output_message) ? v.model_output_message : undefined;
    const content = textOf(mom?.content) ?? plan ?? '';
    if (!s.streamed) thinking(s, content, false);
    const meta = rest(v, ['type', 'step_type', 'token_usage']) ?? {};
    meta.planning_type = type ?? (planningCount <= 1 && s.kind === 'planning' ? 'initial' : 'update');
    if (s.kind !== 'planning') meta.step_type = 'PlanningStep';
    if (s.actionOutputs.length > 0) meta.action_outputs = s.actionOutputs;
    const init: Partial<EventInit & { type: 'step-finish' }> = { providerMetadata: { [SOURCE]: meta } };
    if (isObject(v.token_usage)) init.usage = tokenUsage(v.token_usage);
    const ms = durationMs(v.timing);
    if (ms !== undefined) init.durationMs = ms;
    closeStep(init);
  }

  function actionStep(v: Record<string, unknown>, where?: Location): void {
    let number: number | undefined;
    if (typeof v.step_number === 'number') number = v.step_number;
    else if (v.step_number !== undefined)
      error('invalid_field', `${describe(at(where, 'step_number'))}: expected an integer`, at(where, 'step_number', 'integer'));
    if (number !== undefined && doneNumbers.has(number) && !step && !pending) {
      // smolagents yields the last ActionStep again when max_steps is reached.
      maxSteps = true;
      kit.raw(v, `ActionStep ${number} again (smolagents repeats the last step when max_steps is reached)`, where);
      return;
    }
    resolvePending('action');
    const s = step ?? openStep('action', number);
    const meta = rest(v, ['type', 'step_type', 'step_number', 'tool_calls', 'token_usage', 'model_output']) ?? {};
    if (number !== undefined && number !== s.number) meta.step_number = number;
    if (s.kind !== 'action') meta.step_type = 'ActionStep';
    // The model output is the agent's reasoning; skip it when it was streamed already.
    const output = textOf(v.model_output);
    if (!s.streamed && output) thinking(s, output, false);
    else if (v.model_output !== undefined && v.model_output !== null && output !== s.streamed) meta.model_output = v.model_output as Json;
    if (Array.isArray(v.tool_calls)) {
      v.tool_calls.forEach((tc, i) => {
        if (isObject(tc)) toolCall(s, callOf(tc), at(where, `tool_calls[${i}]`));
      });
    }
    endStreamedCalls(s);
    const err = isObject(v.error) ? v.error : typeof v.error === 'string' ? { message: v.error } : undefined;
    const errType = err ? (str(err, 'type') ?? str(err, '_type') ?? 'AgentError') : undefined;
    const errMessage = err ? (str(err, 'message') ?? errType ?? 'error') : undefined;
    const unanswered = [...s.tools].filter(([, t]) => !t.answered);
    const observations = v.observations;
    if (err && unanswered.length > 0) {
      for (const [id, t] of unanswered) {
        t.answered = true;
        const e: EventInit = { type: 'tool-error', toolCallId: id, toolName: t.name, error: errMessage as string };
        if (typeof observations === 'string') e.output = observations;
        e.providerMetadata = { [SOURCE]: { error: err as JsonObject } };
        out.emit(e);
      }
      delete meta.error;
      if (typeof observations === 'string') delete meta.observations;
    } else if (typeof observations === 'string' && unanswered.length > 0) {
      for (const [id, t] of unanswered) {
        t.answered = true;
        const e: EventInit = { type: 'tool-output', toolCallId: id, toolName: t.name, output: observations };
        if (v.action_output !== undefined && v.action_output !== null)
          e.providerMetadata = { [SOURCE]: { action_output: v.action_output as Json } };
        out.emit(e);
      }
      delete meta.observations;
      delete meta.action_output;
    }
    if (err && meta.error !== undefined) {
      // No tool call to pin it on (a parsing error, max steps): a non-fatal error of the step.
      error(errType as string, errMessage as string, where, false, { error: err as JsonObject });
    }
    // ActionOutput events repeat the step's action_output: keep them only when the step has none.
    if (s.actionOutputs.length > 0 && !('action_output' in v)) meta.action_outputs = s.actionOutputs;
    lastError = errType;
    const init: Partial<EventInit & { type: 'step-finish' }> = { providerMetadata: { [SOURCE]: meta } };
    init.finishReason = v.is_final_answer === true ? 'stop' : err ? 'error' : s.tools.size > 0 ? 'tool-calls' : 'other';
    if (isObject(v.token_usage)) init.usage = tokenUsage(v.token_usage);
    const ms = durationMs(v.timing);
    if (ms !== undefined) init.durationMs = ms;
    if (s.number !== undefined) lastAction = Math.max(lastAction, s.number);
    if (number !== undefined) {
      doneNumbers.add(number);
      lastAction = Math.max(lastAction, number);
    }
    closeStep(init);
  }

  function finalAnswer(v: Record<string, unknown>): void {
    resolvePending('action');
    if (step) closeStep();
    const s = openStep('final-answer');
    const output = v.output;
    let answer: Record<string, unknown> | undefined;
    let fromText = false;
    if (isObject(output)) answer = output;
    else if (typeof output === 'string' && output.trim().startsWith('{')) {
      try {
        const parsed = JSON.parse(output);
        if (isObject(parsed)) {
          answer = parsed;
          fromText = true;
        }
      } catch {
        // Plain text that happens to start with a brace.
      }
    }
    const structured = answer !== undefined && typeof answer.content === 'string';
    const text = structured
      ? (answer?.content as string)
      : typeof output === 'string'
        ? output
        : output === null || output === undefined
          ? ''
          : JSON.stringify(output);
    const id = `${s.id}:${s.blocks++}`;
    const start: EventInit = { type: 'text-start', blockId: id };
    if (structured) {
      const meta = rest(answer as Record<string, unknown>, ['content']) ?? {};
      meta.structured = true;
      if (fromText) meta.output = output as string;
      start.providerMetadata = { [SOURCE]: meta };
    }
    out.emit(start);
    if (text) out.emit({ type: 'text-delta', blockId: id, delta: text });
    out.emit({ type: 'text-end', blockId: id });
    if (structured && Array.isArray(answer?.sources)) emitAnswerSources(kit, s.id, answer.sources);
    const extra = rest(v, ['type', 'step_type', 'output']) ?? {};
    closeStep({ finishReason: 'stop', ...(Object.keys(extra).length > 0 ? { providerMetadata: { [SOURCE]: extra } } : {}) });
    if (lastError === 'AgentMaxStepsError') maxSteps = true;
    const finishReason: FinishReason = maxSteps ? 'length' : 'stop';
    const e: EventInit = { type: 'run-finish', finishReason };
    if (maxSteps) e.rawFinishReason = 'max_steps';
    if (total) e.usage = total;
    out.emit(e);
  }

  function handle(v: Record<string, unknown>, type: string, where?: Location): void {
    switch (type) {
      case 'ChatMessageStreamDelta':
        return streamDelta(v, where);
      case 'ToolCall':
      case 'ChatMessageToolCall': {
        const s = current('action');
        const extra = rest(v, ['type', 'step_type', 'id', 'name', 'arguments', 'function']) ?? {};
        if (isObject(v.function)) Object.assign(extra, rest(v.function, ['name', 'arguments']));
        toolCall(s, callOf(v), where, extra);
        return;
      }
      case 'ToolOutput':
        return toolOutput(v, where);
      case 'ActionOutput': {
        const s = current('action');
        if (v.output !== undefined && v.output !== null) s.actionOutputs.push(v.output as Json);
        return;
      }
      case 'PlanningStep':
        return planningStep(v);
      case 'ActionStep':
        return actionStep(v, where);
      case 'FinalAnswerStep':
        return finalAnswer(v);
      default:
        kit.raw(
          v,
          type === 'TaskStep' || type === 'SystemPromptStep'
            ? `${type}: the canonical model has no event for the task or system prompt`
            : `unknown event type ${JSON.stringify(type)}`,
          where,
        );
    }
  }

  return kit.decoder({
    push(value, where) {
      seen++;
      const v = kit.object(value, where, 'a smolagents event object with a "type"');
      if (!v) return;
      const type =
        typeof v.type === 'string' && (TYPES.has(v.type) || typeof v.step_type !== 'string')
          ? v.type
          : typeof v.step_type === 'string'
            ? (STEP_TYPES[v.step_type] ?? v.step_type)
            : undefined;
      if (type === undefined) {
        error('invalid_field', `${describe(at(where, 'type'))}: expected the event class name as a string`, at(where, 'type', 'string'));
      } else handle(v, type, where);
    },
    finish() {
      resolvePending('action');
      if (seen === 0) kit.empty('the stream contained no smolagents events');
      else kit.truncated('the stream ended without a FinalAnswerStep');
      if (step) closeStep({ finishReason: 'error' });
      const e: EventInit = { type: 'run-finish', finishReason: 'error' };
      if (total) e.usage = total;
      out.emit(e);
    },
  });
}

/** True when one parsed value is unmistakably a smolagents stream event. */
export function detectSmolagents(value: unknown): boolean {
  if (!isObject(value) || 'data' in value) return false;
  const type = typeof value.type === 'string' ? value.type : typeof value.step_type === 'string' ? STEP_TYPES[value.step_type] : undefined;
  switch (type) {
    case 'ActionStep':
      return 'step_number' in value;
    case 'PlanningStep':
      return 'plan' in value;
    case 'FinalAnswerStep':
      return 'output' in value;
    case 'ChatMessageStreamDelta':
      return 'content' in value || 'tool_calls' in value || 'token_usage' in value;
    case 'ToolCall':
      return 'arguments' in value && 'id' in value;
    case 'ToolOutput':
      return 'observation' in value && 'id' in value;
    case 'ActionOutput':
      return 'is_final_answer' in value && 'output' in value;
    default:
      return false;
  }
}
