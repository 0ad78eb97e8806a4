/**
 * Decoder for the Claude Agent SDK message stream: the `SDKMessage`s that `query()` from
 * `@anthropic-ai/claude-agent-sdk` yields (the same objects the Claude Code CLI prints with
 * `--output-format stream-json --verbose`), one object per value.
 *
 * - `system/init` starts the run; `result` ends it (usage, cost, duration; error results are fatal).
 * - `assistant` messages carry an Anthropic message with ONE content block each (Claude Code emits a
 *   message per content block, all with the same `message.id`); every API message is one canonical
 *   step. Their content goes through the Anthropic decoder (as `content_block_start`/`_stop` pairs),
 *   so blocks, signatures, server tools and citations map exactly as for the raw Messages stream.
 * - `stream_event` (with `includePartialMessages`) wraps a raw Anthropic stream event, fed as it is
 *   to the Anthropic decoder; the `assistant` messages of a message that was streamed are then not
 *   decoded again (their envelope is kept in the step's providerMetadata).
 * - `user` messages carry tool results (tool-output / tool-error); prompt echoes become `raw`.
 * - `parent_tool_use_id` marks a subagent's messages: each subagent (keyed by the Agent/Task tool
 *   call that spawned it) gets its own Anthropic decoder, and its events carry `subagentId`.
 * - TodoWrite and TaskCreate/TaskUpdate tool calls become `todos` snapshots.
 * - The CLI's stdio transcript (`--output-format stream-json` with the host's answers) also carries the
 *   control protocol: a `can_use_tool` `control_request` (canUseTool asked) is a tool-approval-request
 *   (its request id is the approval id), the host's `control_response` to it the tool-approval-response
 *   (`behavior: 'allow'` approves). A transcript that ends with a prompt unanswered ends waiting
 *   (`run-finish.pending.approvalIds`). Other control messages stay `raw`.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions, Emitter, RunStartInit } from '../model/emitter.ts';
import type { CanonicalEvent, EventInit, FinishReason, Json, JsonObject, Location, Todo, Usage } from '../model/events.ts';
import { todoStatus } from '../model/todos.ts';
import { addUsage } from '../model/usage.ts';
import { anthropicFinishReason, anthropicUsage, createAnthropicDecoder } from './anthropic.ts';
import { at, type Decoder } from './decoder.ts';
import { isObject, Kit, rest, shown, str } from './kit/index.ts';

/** The framework name: `provider` on run-start, `source` of raw events, the providerMetadata key. */
const SOURCE = 'claude-agent-sdk';

/** Tools that spawn a subagent (`Task` before Claude Code 2.1, `Agent` since). */
const SUBAGENT_TOOLS = new Set(['Agent', 'Task']);

/** The text of tool_result content: a string, or the text blocks of a content array. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
  return parts.length > 0 ? parts.join('\n') : undefined;
}

/** What the SDK messages that built one step left over for providerMetadata. */
interface StepMeta {
  id: string;
  /** Envelope fields of the `assistant` messages of this step (uuid, timestamp, request_id, …). */
  messages: JsonObject[];
  /** `uuid`s of the `stream_event`s of this step. */
  streamEventUuids: string[];
  /** Other envelope fields of the `stream_event`s (ttft_ms, api_message_id, …), first value kept. */
  streamEvent: JsonObject;
  /** Envelope values that differed from the first one seen (kept so that nothing is lost). */
  streamEventOther: JsonObject[];
  /** The usage of the first `assistant` message / message_start, to spot differing snapshots. */
  firstUsage?: string;
  clientToolCalls: number;
}

/** A message decoded from whole `assistant` messages (no partial stream): fed block by block. */
interface SyntheticMessage {
  id: string;
  blocks: number;
  usage?: Record<string, unknown>;
  stopReason?: string;
}

/** The main agent or one subagent: its own Anthropic decoder and open step. */
interface Agent {
  subagentId?: string;
  inner: Decoder;
  /** Message ids that arrived as partial `stream_event`s. */
  streamed: Set<string>;
  step?: StepMeta;
  /** True between the inner step-start and step-finish. */
  open: boolean;
  /** The inner step-finish, held until the step's tool results have been emitted. */
  pendingFinish?: { event: EventInit; meta: StepMeta };
  synthetic?: SyntheticMessage;
  /** Stream-event envelope fields that arrived while no step was open. */
  loose?: StepMeta;
}

interface Subagent {
  finished: boolean;
  async: boolean;
}

/** The todo list: TodoWrite snapshots and Claude Code 2.1's TaskCreate / TaskUpdate, as `todos` events. */
function todoList(out: Emitter, toolInputs: Map<string, Json>) {
  let todos: Todo[] = [];
  let todosSeen = false;

  function setTodos(next: Todo[], subagentId?: string): void {
    todos = next;
    const e: EventInit = { type: 'todos', change: todosSeen ? 'update' : 'create', todos };
    if (subagentId) e.subagentId = subagentId;
    todosSeen = true;
    out.emit(e);
  }

  function todoWrite(input: JsonObject, subagentId?: string): void {
    if (!Array.isArray(input.todos)) return;
    setTodos(
      input.todos.map((item, i) => {
        const o = isObject(item) ? item : {};
        const todo: Todo = {
          id: `todo-${i + 1}`,
          content: str(o, 'content') ?? '',
          status: todoStatus(o.status) ?? 'pending',
        };
        const active = str(o, 'activeForm');
        if (active !== undefined) todo.activeForm = active;
        return todo;
      }),
      subagentId,
    );
  }

  /** TaskCreate / TaskUpdate (Claude Code 2.1's task list) once their tool result confirms them. */
  function taskTool(name: string, toolCallId: string, result: unknown, subagentId?: string): void {
    const input = toolInputs.get(toolCallId);
    if (!isObject(input) || !isObject(result)) return;
    if (name === 'TaskCreate' && isObject(result.task) && typeof result.task.id === 'string') {
      const todo: Todo = { id: result.task.id, content: str(result.task, 'subject') ?? str(input, 'subject') ?? '', status: 'pending' };
      const active = str(input, 'activeForm');
      if (active !== undefined) todo.activeForm = active;
      setTodos([...todos.filter((t) => t.id !== todo.id), todo], subagentId);
    } else if (name === 'TaskUpdate' && result.success === true && typeof input.taskId === 'string') {
      const id = input.taskId;
      if (input.status === 'deleted')
        return setTodos(
          todos.filter((t) => t.id !== id),
          subagentId,
        );
      setTodos(
        todos.map((t) => {
          if (t.id !== id) return t;
          const next: Todo = { ...t };
          const status = todoStatus(input.status);
          if (status) next.status = status;
          const subject = str(input, 'subject');
          if (subject !== undefined) next.content = subject;
          const active = str(input, 'activeForm');
          if (active !== undefined) next.activeForm = active;
          return next;
        }),
        subagentId,
      );
    }
  }

  return { todoWrite, taskTool };
}

/** What the agents' decoding shares with the rest of the decoder. */
interface AgentsShared {
  /** Step ids seen, run-wide. */
  stepIds: Set<string>;
  /** Tool call id → tool name, and → input, run-wide. */
  toolNames: Map<string, string>;
  toolInputs: Map<string, Json>;
  /** A TodoWrite call's input became known. */
  todoWrite: (input: JsonObject, subagentId?: string) => void;
}

/**
 * The main agent and its subagents, each decoding its Anthropic messages with its own inner
 * Anthropic decoder; their events are re-emitted on the SDK decoder's emitter (steps held until their
 * tool results, locations rewritten to the SDK input, subagent ids stamped).
 */
function innerAgents(kit: Kit, { stepIds, toolNames, toolInputs, todoWrite }: AgentsShared) {
  const { out, error } = kit;
  const innerOptions: DecoderOptions = { runId: out.runId, now: () => 0 };
  const agents = new Map<string, Agent>();
  const subagents = new Map<string, Subagent>();

  function newMeta(id: string): StepMeta {
    return { id, messages: [], streamEventUuids: [], streamEvent: {}, streamEventOther: [], clientToolCalls: 0 };
  }

  function metaJson(m: StepMeta): JsonObject | undefined {
    const o: JsonObject = {};
    if (m.messages.length > 0) o.messages = m.messages;
    if (m.streamEventUuids.length > 0) o.streamEventUuids = m.streamEventUuids;
    if (Object.keys(m.streamEvent).length > 0) o.streamEvent = m.streamEvent;
    if (m.streamEventOther.length > 0) o.streamEventOther = m.streamEventOther;
    return Object.keys(o).length > 0 ? o : undefined;
  }

  function agentFor(parent: unknown, value: Record<string, unknown>): Agent {
    const key = typeof parent === 'string' ? parent : '';
    let a = agents.get(key);
    if (!a) {
      a = { inner: createAnthropicDecoder(innerOptions), streamed: new Set(), open: false };
      if (key) a.subagentId = key;
      agents.set(key, a);
    }
    if (key && !subagents.has(key)) {
      // A subagent whose spawning call we never saw (or not an Agent/Task call): start it now.
      startSubagent(key, str(value, 'subagent_type') ?? 'subagent', str(value, 'task_description'), undefined);
    }
    return a;
  }

  function startSubagent(id: string, name: string, task: string | undefined, parent: string | undefined): void {
    if (subagents.has(id)) return;
    subagents.set(id, { finished: false, async: false });
    const e: EventInit = { type: 'subagent-start', subagentId: id, name, parentToolCallId: id };
    if (task !== undefined) e.task = task;
    if (parent !== undefined) e.parentSubagentId = parent;
    out.emit(e);
  }

  function finishSubagent(id: string, result: string | undefined, failure: string | undefined): void {
    const s = subagents.get(id);
    if (!s || s.finished) return;
    s.finished = true;
    const a = agents.get(id);
    if (a) closeAgent(a, false);
    const e: EventInit = { type: 'subagent-finish', subagentId: id };
    if (result !== undefined) e.result = result;
    if (failure !== undefined) e.error = failure;
    out.emit(e);
  }

  function flushFinish(a: Agent): void {
    const p = a.pendingFinish;
    if (!p) return;
    a.pendingFinish = undefined;
    const meta = metaJson(p.meta);
    if (meta) {
      const e = p.event as EventInit & { providerMetadata?: Record<string, JsonObject> };
      e.providerMetadata = { ...e.providerMetadata, [SOURCE]: meta };
    }
    out.emit(p.event);
  }

  /** Rewrites a location of the inner decoder (fields relative to the Anthropic event) to the SDK input. */
  function relocate(e: EventInit & { where?: Location; message?: string }, mapField: (f: string) => string): void {
    if (!e.where) return;
    const before = describe(e.where);
    const where: Location = { ...e.where };
    if (where.field !== undefined) where.field = mapField(where.field);
    if (typeof e.message === 'string' && e.message.startsWith(before)) e.message = describe(where) + e.message.slice(before.length);
    e.where = where;
  }

  /** Re-emits the inner decoder's events through our emitter, holding step-finish and adding subagentId. */
  function forward(a: Agent, events: CanonicalEvent[], sdkValue: unknown, mapField: (f: string) => string, dropFatal = false): void {
    for (const ev of events) {
      const { runId: _r, seq: _s, ts: _t, ...init } = ev;
      const e = init as EventInit;
      switch (e.type) {
        case 'run-start':
        case 'run-finish':
          continue;
        case 'step-start':
          stepIds.add(e.stepId);
          flushFinish(a);
          a.step = a.loose ? { ...a.loose, id: e.stepId } : newMeta(e.stepId);
          a.loose = undefined;
          a.open = true;
          break;
        case 'step-finish': {
          a.open = false;
          const meta = a.step ?? newMeta(e.stepId);
          if (e.finishReason === 'other' && e.rawFinishReason === undefined) {
            // Whole assistant messages carry no stop_reason (null): what the step did tells it.
            e.finishReason = meta.clientToolCalls > 0 ? 'tool-calls' : 'stop';
          }
          if (a.subagentId) e.subagentId = a.subagentId;
          a.pendingFinish = { event: e, meta };
          continue;
        }
        case 'error':
          if (dropFatal && (e.code === 'truncated' || e.code === 'empty')) continue;
          relocate(e, mapField);
          // A stream error inside one API message: Claude Code retries or ends with an error result,
          // which decides whether the run failed.
          e.fatal = false;
          break;
        case 'raw': {
          const r: EventInit = { type: 'raw', source: SOURCE, event: sdkValue as Json };
          if (e.reason !== undefined) r.reason = e.reason;
          if (e.where) r.where = { ...e.where };
          if (a.subagentId) r.subagentId = a.subagentId;
          out.emit(r);
          continue;
        }
        case 'tool-input-end':
          toolNames.set(e.toolCallId, e.toolName);
          toolInputs.set(e.toolCallId, e.input);
          if (!e.providerExecuted && a.step) a.step.clientToolCalls++;
          break;
        case 'tool-input-start':
          toolNames.set(e.toolCallId, e.toolName);
          break;
      }
      if (a.subagentId) e.subagentId = a.subagentId;
      out.emit(e);
      if (e.type === 'tool-input-end' && isObject(e.input)) {
        if (e.toolName === 'TodoWrite') todoWrite(e.input, a.subagentId);
        else if (SUBAGENT_TOOLS.has(e.toolName)) {
          const input = e.input;
          const name = str(input, 'subagent_type') ?? 'general-purpose';
          startSubagent(e.toolCallId, name, str(input, 'description') ?? str(input, 'prompt'), a.subagentId);
          if (input.run_in_background === true) (subagents.get(e.toolCallId) as Subagent).async = true;
        }
      }
    }
  }

  function feed(a: Agent, ev: JsonObject, where: Location | undefined, sdkValue: unknown, mapField: (f: string) => string): void {
    forward(a, a.inner.push(ev, where), sdkValue, mapField);
  }

  /** Ends the message decoded from whole assistant messages, if one is open. */
  function closeSynthetic(a: Agent): void {
    const s = a.synthetic;
    if (!s) return;
    a.synthetic = undefined;
    const delta: JsonObject = {};
    if (s.stopReason !== undefined) delta.stop_reason = s.stopReason;
    const md: JsonObject = { type: 'message_delta', delta };
    if (s.usage) md.usage = s.usage as JsonObject;
    feed(a, md, undefined, md, (f) => f);
    feed(a, { type: 'message_stop' }, undefined, {}, (f) => f);
  }

  /** Closes everything an agent has open: its whole-message step, a streamed step cut short, the held finish. */
  function closeAgent(a: Agent, atEnd: boolean): void {
    closeSynthetic(a);
    if (a.open) {
      // A streamed message without message_stop: let the Anthropic decoder close its blocks.
      if (!atEnd) error('truncated', `message ${a.step?.id ?? '?'} ended without message_stop`, undefined, false, undefined, a.subagentId);
      forward(a, a.inner.end(), {}, (f) => f, true);
      a.inner = createAnthropicDecoder(innerOptions);
      a.open = false;
    }
    flushFinish(a);
  }

  return { agents, subagents, agentFor, startSubagent, finishSubagent, feed, closeSynthetic, closeAgent, newMeta };
}

type Finished = { finishReason: FinishReason; rawFinishReason?: string };

/** The run-finish for the results seen: the last one's reason, the total usage, every result's fields. */
function runFinish(f: Finished, runUsage: Usage | undefined, results: JsonObject[]): EventInit {
  const e: EventInit = { type: 'run-finish', finishReason: f.finishReason };
  if (f.rawFinishReason !== undefined) e.rawFinishReason = f.rawFinishReason;
  if (runUsage) e.usage = { ...runUsage };
  const last = results.at(-1);
  if (last) {
    const meta: JsonObject = { ...last };
    delete meta.usage;
    if (results.length > 1) meta.earlierResults = results.slice(0, -1);
    if (Object.keys(meta).length > 0) e.providerMetadata = { [SOURCE]: meta };
  }
  return e;
}

/** `tool_progress` (a status event, kept whole too) and `tool_use_summary` (a custom event). */
function progress({ out, raw }: Kit, value: Record<string, unknown>, where?: Location): void {
  if (value.type === 'tool_use_summary') {
    out.emit({ type: 'custom', name: `${SOURCE}.tool_use_summary`, value: rest(value, ['type']) ?? {} });
    return;
  }
  const e: EventInit = { type: 'status', status: 'tool-running' };
  if (typeof value.tool_name === 'string')
    e.message = `${value.tool_name}${typeof value.elapsed_time_seconds === 'number' ? ` (${value.elapsed_time_seconds}s)` : ''}`;
  if (typeof value.parent_tool_use_id === 'string') e.subagentId = value.parent_tool_use_id;
  out.emit(e);
  raw(value, 'tool_progress: mapped to a status event, kept whole here', where);
}

/** The control protocol of the CLI's stdio transcript: permission prompts (`can_use_tool`) and the host's answers. */
function permissionPrompts(kit: Kit, toolNames: Map<string, string>) {
  const { out, raw } = kit;
  /** can_use_tool request id → the tool call it asks about, until the host answers. */
  const permissions = new Map<string, string>();
  /** Tool calls the host denied: their tool_result is the denial Claude Code sends the model, not an output. */
  const denied = new Set<string>();

  /** A `can_use_tool` control request: the CLI asks the host (canUseTool) whether a tool call may run. */
  function controlRequest(value: Record<string, unknown>, where?: Location): void {
    const request = isObject(value.request) ? value.request : undefined;
    const requestId = str(value, 'request_id');
    if (request?.subtype !== 'can_use_tool') return raw(value, 'a control request other than can_use_tool', where);
    const toolCallId = str(request, 'tool_use_id');
    if (!requestId || !toolCallId || !toolNames.has(toolCallId))
      return raw(value, 'a can_use_tool request without a request id or for a tool call not seen', where);
    permissions.set(requestId, toolCallId);
    const e: EventInit = { type: 'tool-approval-request', approvalId: requestId, toolCallId };
    const toolName = str(request, 'tool_name') ?? toolNames.get(toolCallId);
    if (toolName) e.toolName = toolName;
    const reason = str(request, 'decision_reason') ?? str(request, 'title') ?? str(request, 'description');
    if (reason) e.reason = reason;
    const meta = { ...rest(value, ['type', 'request_id', 'request']), ...rest(request, ['subtype', 'tool_use_id', 'tool_name']) };
    if (Object.keys(meta).length > 0) e.providerMetadata = { [SOURCE]: meta };
    out.emit(e);
  }

  /** The host's answer to a `can_use_tool` request; other control responses (initialize, …) are kept whole. */
  function controlResponse(value: Record<string, unknown>, where?: Location): void {
    const response = isObject(value.response) ? value.response : undefined;
    const requestId = response ? str(response, 'request_id') : undefined;
    const toolCallId = requestId ? permissions.get(requestId) : undefined;
    if (!response || !requestId || !toolCallId) return raw(value, 'a control response that answers no permission request', where);
    permissions.delete(requestId);
    const answer = isObject(response.response) ? response.response : {};
    const approved = response.subtype === 'success' && answer.behavior === 'allow';
    if (!approved) denied.add(toolCallId);
    const e: EventInit = { type: 'tool-approval-response', approvalId: requestId, toolCallId, approved };
    const reason = str(answer, 'message') ?? str(response, 'error');
    if (reason) e.reason = reason;
    const meta = {
      ...rest(value, ['type', 'response']),
      ...rest(response, ['request_id', 'response', 'error']),
      ...rest(answer, ['message']),
    };
    if (Object.keys(meta).length > 0) e.providerMetadata = { [SOURCE]: meta };
    out.emit(e);
  }

  return { controlRequest, controlResponse, permissions, denied };
}

/** Creates a decoder for the Claude Agent SDK `query()` message stream. */
export function createClaudeAgentSdkDecoder(options: DecoderOptions = {}): Decoder {
  const kit = new Kit(options, SOURCE);
  const { out, error, raw } = kit;
  const toolNames = new Map<string, string>();
  const toolInputs = new Map<string, Json>();
  const { controlRequest, controlResponse, permissions, denied } = permissionPrompts(kit, toolNames);
  /** task_id → tool_use_id of the Agent call, from system/task_started. */
  const taskIds = new Map<string, string>();
  const stepIds = new Set<string>();
  let sessionId: string | undefined;
  let seen = 0;
  let fatal = false;
  /** The finish of the last result (the run finishes at the end of the input). */
  let finished: Finished | undefined;
  const results: JsonObject[] = [];
  let runUsage: Usage | undefined;
  /** System messages that came before system/init (hooks run first): decoded once the run has started. */
  const held: [Record<string, unknown>, Location | undefined][] = [];

  /** The envelope fields of an SDK message that have no canonical home (session_id only when it changes). */
  function envelope(value: Record<string, unknown>, known: readonly string[]): JsonObject | undefined {
    const meta = rest(value, ['type', ...known]);
    if (meta && sessionId !== undefined && meta.session_id === sessionId) delete meta.session_id;
    return meta && Object.keys(meta).length > 0 ? meta : undefined;
  }

  const { todoWrite, taskTool } = todoList(out, toolInputs);
  const { agents, subagents, agentFor, startSubagent, finishSubagent, feed, closeSynthetic, closeAgent, newMeta } = innerAgents(kit, {
    stepIds,
    toolNames,
    toolInputs,
    todoWrite,
  });

  // -- SDK messages ----------------------------------------------------------------------------------

  function assistant(value: Record<string, unknown>, where?: Location): void {
    const message = value.message;
    if (!isObject(message) || !Array.isArray(message.content)) {
      return error(
        'invalid_field',
        `${describe(at(where, 'message.content'))}: expected an Anthropic message with a content array`,
        at(where, 'message.content', 'array of content blocks'),
      );
    }
    const a = agentFor(value.parent_tool_use_id, value);
    const id = str(message, 'id') ?? a.synthetic?.id ?? `message_${seen}`;
    const env = envelope(value, ['message', 'parent_tool_use_id']) ?? {};
    const usage = isObject(message.usage) ? message.usage : undefined;
    const usageJson = usage ? JSON.stringify(usage) : undefined;
    if (a.streamed.has(id)) {
      // Already decoded from its stream events: keep the envelope (and the usage snapshot when it differs).
      const meta = a.step?.id === id ? a.step : undefined;
      if (!meta) return raw(value, `assistant message ${id} after its streamed step ended: kept whole`, where, a.subagentId);
      const extra = rest(message, ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);
      if (extra) env.message = extra;
      if (typeof message.stop_reason === 'string') env.stop_reason = message.stop_reason;
      if (usage && usageJson !== meta.firstUsage) env.usage = usage as JsonObject;
      meta.messages.push(env);
    } else {
      if (a.synthetic?.id !== id) {
        closeSynthetic(a);
        // A message id seen before (its step was closed in between) gets a fresh step id.
        let stepId = id;
        for (let n = 2; stepIds.has(stepId); n++) stepId = `${id}#${n}`;
        const start: JsonObject = { type: 'message_start', message: { ...(message as JsonObject), id: stepId, content: [] } };
        feed(a, start, where, value, (f) => (f.startsWith('message.') ? f : `message.${f}`));
        a.synthetic = { id, blocks: 0 };
        if (stepId !== id && a.step) a.step.messages.push({ id });
        if (a.step) a.step.firstUsage = usageJson;
      }
      const s = a.synthetic as SyntheticMessage;
      for (const [i, block] of message.content.entries()) {
        const mapField = (f: string) => f.replace(/^content_block/, `message.content[${i}]`).replace(/^index$/, `message.content[${i}]`);
        if (!isObject(block)) {
          error(
            'invalid_field',
            `${describe(at(where, `message.content[${i}]`))}: expected a content block object`,
            at(where, `message.content[${i}]`, 'object'),
            false,
            undefined,
            a.subagentId,
          );
          continue;
        }
        const index = s.blocks++;
        feed(a, { type: 'content_block_start', index, content_block: block as JsonObject }, where, value, mapField);
        feed(a, { type: 'content_block_stop', index }, where, value, mapField);
      }
      if (usage) s.usage = usage;
      if (typeof message.stop_reason === 'string') s.stopReason = message.stop_reason;
      const meta = a.step?.id === id || a.synthetic?.id === id ? a.step : undefined;
      if (meta) {
        if (usage && usageJson !== meta.firstUsage) env.usage = usage as JsonObject;
        meta.messages.push(env);
      }
    }
    if (typeof value.error === 'string') {
      // An API error Claude Code turned into a synthetic assistant message; the result follows.
      error(value.error, textOf(message.content) ?? value.error, where, false, undefined, a.subagentId);
    }
  }

  function streamEvent(value: Record<string, unknown>, where?: Location): void {
    const ev = value.event;
    if (!isObject(ev) || typeof ev.type !== 'string') {
      return error(
        'invalid_field',
        `${describe(at(where, 'event'))}: expected a raw Anthropic stream event object with a "type"`,
        at(where, 'event.type', 'string'),
      );
    }
    const a = agentFor(value.parent_tool_use_id, value);
    if (ev.type === 'message_start' && isObject(ev.message) && typeof ev.message.id === 'string') {
      closeSynthetic(a);
      a.streamed.add(ev.message.id);
    }
    feed(a, ev as JsonObject, where, value, (f) => `event.${f}`);
    if (!a.open && !a.pendingFinish && !a.loose) a.loose = newMeta('');
    const meta = a.open || a.pendingFinish ? (a.step as StepMeta) : (a.loose as StepMeta);
    if (ev.type === 'message_start' && isObject(ev.message) && isObject(ev.message.usage))
      meta.firstUsage = JSON.stringify(ev.message.usage);
    const env = envelope(value, ['event', 'parent_tool_use_id']);
    if (!env) return;
    if (typeof env.uuid === 'string') meta.streamEventUuids.push(env.uuid);
    const other: JsonObject = {};
    for (const [k, v] of Object.entries(env)) {
      if (k === 'uuid') continue;
      if (!(k in meta.streamEvent)) meta.streamEvent[k] = v;
      else if (JSON.stringify(meta.streamEvent[k]) !== JSON.stringify(v)) other[k] = v;
    }
    if (Object.keys(other).length > 0) meta.streamEventOther.push(other);
  }

  function user(value: Record<string, unknown>, where?: Location): void {
    const message = value.message;
    if (!isObject(message) || (typeof message.content !== 'string' && !Array.isArray(message.content))) {
      return error(
        'invalid_field',
        `${describe(at(where, 'message.content'))}: expected a user message with string or array content`,
        at(where, 'message.content', 'string or array'),
      );
    }
    const a = agentFor(value.parent_tool_use_id, value);
    let other = typeof message.content === 'string';
    if (Array.isArray(message.content)) {
      for (const [i, block] of message.content.entries()) {
        if (isObject(block) && block.type === 'tool_result' && !denied.has(str(block, 'tool_use_id') ?? ''))
          toolResult(a, block, value, at(where, `message.content[${i}]`));
        else other = true;
      }
    }
    if (other)
      raw(
        value,
        'a user message (prompt, echo, or the tool_result of a denied call, since a denied tool does not run): the canonical model has no event for it',
        where,
        a.subagentId,
      );
  }

  function toolResult(a: Agent, block: Record<string, unknown>, value: Record<string, unknown>, where: Location): void {
    const toolCallId = str(block, 'tool_use_id');
    if (toolCallId === undefined) {
      return error(
        'missing_field',
        `${describe(at(where, `${where.field}.tool_use_id`))}: expected the id of the tool call this result answers`,
        at(where, `${where.field}.tool_use_id`, 'string'),
        false,
        undefined,
        a.subagentId,
      );
    }
    const toolName = toolNames.get(toolCallId);
    const output = (block.content ?? null) as Json;
    const meta: JsonObject = {
      ...envelope(value, ['message', 'parent_tool_use_id']),
      ...rest(block, ['type', 'tool_use_id', 'content', 'is_error']),
    };
    const failed = block.is_error === true;
    const e: EventInit = failed
      ? { type: 'tool-error', toolCallId, error: textOf(block.content) ?? 'tool error', output }
      : { type: 'tool-output', toolCallId, output };
    if (toolName !== undefined) e.toolName = toolName;
    if (Object.keys(meta).length > 0) e.providerMetadata = { [SOURCE]: meta };
    if (a.subagentId) e.subagentId = a.subagentId;
    out.emit(e);
    const result = value.tool_use_result;
    if (!failed && toolName !== undefined) taskTool(toolName, toolCallId, result, a.subagentId);
    const sub = subagents.get(toolCallId);
    if (sub && !sub.finished) {
      const launched =
        isObject(result) && (result.status === 'async_launched' || result.isAsync === true || result.status === 'remote_launched');
      if (launched) sub.async = true;
      else {
        const text = isObject(result) ? (textOf(result.content) ?? textOf(block.content)) : textOf(block.content);
        finishSubagent(toolCallId, failed ? undefined : text, failed ? (text ?? 'failed') : undefined);
      }
    }
  }

  /** The subagent a system/task_* message is about, when it is one we know. */
  function taskSubagent(value: Record<string, unknown>): string | undefined {
    const id = str(value, 'tool_use_id') ?? (typeof value.task_id === 'string' ? taskIds.get(value.task_id) : undefined);
    return id !== undefined && subagents.has(id) ? id : undefined;
  }

  function system(value: Record<string, unknown>, where?: Location): void {
    const subtype = value.subtype;
    switch (subtype) {
      case 'init': {
        if (out.started)
          return raw(value, 'system/init of a follow-up turn (after a background task reported back, or a queued prompt)', where);
        if (typeof value.session_id === 'string') sessionId = value.session_id;
        const init: RunStartInit = {};
        if (typeof value.model === 'string') init.model = value.model;
        const meta = rest(value, ['type', 'subtype', 'model']);
        if (meta) init.providerMetadata = { [SOURCE]: meta };
        out.start(init);
        return replayHeld();
      }
      case 'status': {
        if (value.status === 'requesting') {
          // A new main-loop model request: the previous main-agent step (and its tool results) is complete.
          const main = agents.get('');
          if (main && (!main.open || main.synthetic)) closeAgent(main, false);
        }
        const status = typeof value.status === 'string' ? value.status : value.compact_result === 'failed' ? 'compact-failed' : 'idle';
        const e: EventInit = { type: 'status', status };
        if (typeof value.compact_error === 'string') e.message = value.compact_error;
        out.emit(e);
        return raw(value, 'system/status: mapped to a status event, kept whole here', where);
      }
      case 'api_retry': {
        const attempt = typeof value.attempt === 'number' ? value.attempt : '?';
        const max = typeof value.max_retries === 'number' ? value.max_retries : '?';
        const cause = [value.error, typeof value.error_status === 'number' ? `HTTP ${value.error_status}` : undefined]
          .filter(Boolean)
          .join(', ');
        out.emit({ type: 'status', status: 'retrying', message: `retry ${attempt} of ${max}${cause ? ` (${cause})` : ''}` });
        return raw(value, 'system/api_retry: mapped to a status event, kept whole here', where);
      }
      case 'compact_boundary':
        out.emit({ type: 'custom', name: `${SOURCE}.compact_boundary`, value: rest(value, ['type', 'subtype']) ?? {} });
        return;
      case 'task_started': {
        const toolUseId = str(value, 'tool_use_id');
        if (toolUseId && typeof value.task_id === 'string') taskIds.set(value.task_id, toolUseId);
        if (toolUseId && (value.task_type === 'local_agent' || typeof value.subagent_type === 'string')) {
          startSubagent(
            toolUseId,
            str(value, 'subagent_type') ?? 'general-purpose',
            str(value, 'description') ?? str(value, 'prompt'),
            undefined,
          );
          if (value.is_backgrounded === true) (subagents.get(toolUseId) as Subagent).async = true;
        }
        return raw(value, 'system/task_started: subagent lifecycle, kept whole here', where, taskSubagent(value));
      }
      case 'task_notification': {
        // Kept whole first (inside the subagent), then the subagent finishes.
        raw(value, 'system/task_notification: subagent lifecycle, kept whole here', where, taskSubagent(value));
        const toolUseId = str(value, 'tool_use_id');
        if (toolUseId && subagents.has(toolUseId)) {
          const summary = str(value, 'summary');
          if (value.status === 'completed') finishSubagent(toolUseId, summary, undefined);
          else finishSubagent(toolUseId, undefined, summary || shown(value.status ?? 'failed'));
        }
        return;
      }
      default:
        if (typeof subtype !== 'string')
          return error('invalid_field', `${describe(at(where, 'subtype'))}: expected a string subtype`, at(where, 'subtype', 'string'));
        return raw(value, `system/${subtype}: no canonical event`, where, taskSubagent(value));
    }
  }

  function result(value: Record<string, unknown>, where?: Location): void {
    // Background subagents may go on after a result: leave those open.
    for (const [key, a] of agents) if (!key || !subagents.get(key)?.async || subagents.get(key)?.finished) closeAgent(a, false);
    const subtype = typeof value.subtype === 'string' ? value.subtype : 'success';
    const failed = value.is_error === true || subtype !== 'success';
    // `usage` is per turn (main loop), `total_cost_usd` cumulative: a run of several turns adds the former.
    if (isObject(value.usage)) runUsage = addUsage(runUsage, anthropicUsage(value.usage));
    if (typeof value.total_cost_usd === 'number') {
      runUsage ??= {};
      runUsage.costUsd = value.total_cost_usd;
    }
    if (runUsage || typeof value.duration_ms === 'number') {
      const u: EventInit = { type: 'usage', scope: 'total', usage: { ...runUsage } };
      if (typeof value.duration_ms === 'number') u.durationMs = value.duration_ms;
      out.emit(u);
    }
    const meta = envelope(value, ['usage']) ?? {};
    if (isObject(value.usage)) meta.usage = value.usage as JsonObject;
    if (failed) {
      const errors = Array.isArray(value.errors) ? value.errors.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
      const code = subtype !== 'success' ? subtype : (str(value, 'api_error_type') ?? str(value, 'terminal_reason') ?? 'error');
      const message = errors.join('; ') || str(value, 'result') || subtype;
      fatal = true;
      error(code, message, where, true);
      finished = { finishReason: 'error', rawFinishReason: subtype !== 'success' ? subtype : (str(value, 'terminal_reason') ?? subtype) };
      results.push(meta);
      return out.emit(runFinish(finished, runUsage, results));
    }
    const stop = str(value, 'stop_reason');
    let finishReason: FinishReason = anthropicFinishReason(stop);
    if (finishReason === 'other' && stop === undefined) finishReason = 'stop';
    finished = { finishReason };
    const rawReason = stop ?? str(value, 'terminal_reason');
    if (rawReason !== undefined) finished.rawFinishReason = rawReason;
    // A success result ends the turn, not necessarily the stream: Claude Code starts a follow-up turn
    // by itself when a background task reports back. The run finishes at the end of the input.
    results.push(meta);
  }

  function replayHeld(): void {
    for (const [v, w] of held.splice(0)) (v.type === 'system' ? system : handle)(v, w);
  }

  function handle(value: Record<string, unknown>, where?: Location): void {
    const control = value.type === 'control_request' || value.type === 'control_response';
    if (!out.started && (control || (value.type === 'system' && value.subtype !== 'init' && typeof value.subtype === 'string'))) {
      held.push([value, where]);
      return;
    }
    if (held.length > 0 && !(value.type === 'system' && value.subtype === 'init')) {
      out.start();
      replayHeld();
    }
    if (sessionId === undefined && typeof value.session_id === 'string' && value.type !== 'system') {
      // No init message: the first message's session id is the run's.
      sessionId = value.session_id;
      out.start({ providerMetadata: { [SOURCE]: { session_id: sessionId } } });
    }
    const read = typeof value.type === 'string' && Object.hasOwn(readers, value.type) ? readers[value.type] : undefined;
    if (read) return read(value, where);
    if (typeof value.type !== 'string')
      return error('invalid_field', `${describe(at(where, 'type'))}: expected a string message type`, at(where, 'type', 'string'));
    raw(value, `no canonical event for message type ${JSON.stringify(value.type)}`, where);
  }

  /** The reader of each SDK message type. */
  const readers: Record<string, (value: Record<string, unknown>, where?: Location) => void> = {
    system,
    assistant,
    user,
    stream_event: streamEvent,
    result,
    tool_progress: (value, where) => progress(kit, value, where),
    tool_use_summary: (value, where) => progress(kit, value, where),
    control_request: controlRequest,
    control_response: controlResponse,
  };

  return kit.decoder({
    push(value, where) {
      seen++;
      const message = kit.object(value, where, 'an SDK message object with a "type"');
      if (message) handle(message, where);
    },
    flush() {
      if (held.length > 0) {
        out.start();
        replayHeld();
      }
    },
    finish() {
      if (finished && !fatal) {
        for (const a of agents.values()) closeAgent(a, false);
        out.emit(runFinish(finished as Finished, runUsage, results));
        return;
      }
      if (!fatal && permissions.size > 0) {
        // The host forwarded a permission prompt and ended the run there: it ends waiting for the answer
        // (the emitter names it: run-finish.pending).
        for (const a of agents.values()) closeAgent(a, false);
        out.emit({ type: 'run-finish', finishReason: 'tool-calls', ...(runUsage ? { usage: { ...runUsage } } : {}) });
        return;
      }
      if (!fatal) {
        if (seen === 0) kit.empty('the stream contained no Claude Agent SDK messages');
        else kit.truncated('the stream ended without a result message');
      }
      for (const a of agents.values()) closeAgent(a, true);
      const e: EventInit = { type: 'run-finish', finishReason: 'error' };
      if (runUsage) e.usage = { ...runUsage };
      out.emit(e);
    },
  });
}

/** True when one parsed value is unmistakably a Claude Agent SDK message. */
export function detectClaudeAgentSdk(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string' || 'data' in value) return false;
  switch (value.type) {
    case 'system':
      return typeof value.subtype === 'string' && typeof value.session_id === 'string';
    case 'stream_event':
      return isObject(value.event) && 'parent_tool_use_id' in value;
    case 'assistant':
    case 'user':
      return isObject(value.message) && 'parent_tool_use_id' in value;
    case 'result':
      return typeof value.subtype === 'string' && typeof value.session_id === 'string' && 'is_error' in value;
    case 'control_request':
      return typeof value.request_id === 'string' && isObject(value.request) && typeof value.request.subtype === 'string';
    case 'control_response':
      return isObject(value.response) && typeof value.response.request_id === 'string' && typeof value.response.subtype === 'string';
    default:
      return false;
  }
}
