/**
 * Decoders for the simplified Claude agent line format: one `{"type": …, "data": {…}}` object per
 * line, as agents print it on stdout. Two dialects share it:
 * - `claude`: start, status, text, thinking / think, tool_use, tool_result, todo_*, subagent_spawn,
 *   result, error, done;
 * - `deepagents` (its DeepAgents dialect): the same plus tool_call_start, todos, subagent_start /
 *   subagent_complete, search / search_result, usage / usage_total.
 * Both dialects understand every event type; they differ only where they place subagent notes
 * (claude: the processing block; deepagents: the thinking block). Loose content goes through the
 * shared block rules.
 */
import { describe } from '../codec/framing.ts';
import type { DecoderOptions } from '../model/emitter.ts';
import type { EventInit, Json, JsonObject, Todo } from '../model/events.ts';
import { toTodos } from '../model/todos.ts';
import { anthropicUsage } from './anthropic.ts';
import { at, type Decoder } from './decoder.ts';
import {
  type AgentLine,
  type AgentLineContext,
  type AgentLineHandlers,
  createAgentLineDecoder,
  isObject,
  type Obj,
  parseToolInput,
  str,
} from './kit/index.ts';

/** Which agent family wrote the lines. */
export type AgentDialect = 'claude' | 'deepagents';

/** Turns agent todo items into canonical todos (moved to the model; re-exported for old imports). */
export { toTodos };

/** Creates a decoder for the simplified Claude agent format's `{"type","data"}` lines (framework `claude`). */
export function createClaudeAgentDecoder(options: DecoderOptions = {}): Decoder {
  return createAgentLineDecoder(agentLines('claude'), options);
}

/** Creates a decoder for DeepAgents' `{"type","data"}` lines (framework `deepagents`). */
export function createDeepAgentsDecoder(options: DecoderOptions = {}): Decoder {
  return createAgentLineDecoder(agentLines('deepagents'), options);
}

/** The claude / deepagents dialect: handlers on the agent-line skeleton. */
function agentLines(dialect: AgentDialect) {
  return {
    source: dialect,
    truncated: 'the agent output ended without a "done" event',
    errorCode: ['code', 'type'],
    handlers: (ctx: AgentLineContext) => claudeHandlers(ctx, dialect),
  };
}

function claudeHandlers(ctx: AgentLineContext, dialect: AgentDialect): AgentLineHandlers {
  const { out, blocks, kit } = ctx;
  const toolNames = new Map<string, string>();
  let todos: Todo[] = [];
  let result: JsonObject | undefined;
  let toolCount = 0;
  /** Tool calls announced by tool_call_start whose input has not come yet. */
  const pending = new Map<string, string>();
  let lastSearch: string | undefined;

  function setTodos(change: 'create' | 'update' | 'done' | 'snapshot', next: Todo[]): void {
    todos = next;
    out.emit({ type: 'todos', change, todos });
  }

  function toolStart(d: Obj): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_use_id', 'tool_call_id') ?? `tool_${++toolCount}`;
    const toolName = str(d, 'name', 'tool', 'tool_name') ?? 'unknown';
    pending.set(toolCallId, toolName);
    toolNames.set(toolCallId, toolName);
    out.emit({ type: 'tool-input-start', toolCallId, toolName });
  }

  function toolUse(d: Obj, defaults: { name?: string; input?: Json } = {}): string {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_use_id', 'tool_call_id') ?? `tool_${++toolCount}`;
    const toolName = str(d, 'name', 'tool', 'tool_name') ?? pending.get(toolCallId) ?? defaults.name ?? 'unknown';
    let input = (d.input ?? d.arguments ?? d.args ?? defaults.input ?? {}) as Json;
    // Text that is not JSON stays as it is: some agents send plain-text arguments.
    if (typeof input === 'string' && input.trim() !== '') input = parseToolInput(input).input;
    toolNames.set(toolCallId, toolName);
    if (!pending.delete(toolCallId)) out.emit({ type: 'tool-input-start', toolCallId, toolName });
    out.emit({ type: 'tool-input-end', toolCallId, toolName, input });
    // The Claude TodoWrite tool is the todo list: show it like DeepAgents' todos.
    if (toolName === 'TodoWrite' && isObject(input) && Array.isArray(input.todos)) setTodos('snapshot', toTodos(input.todos, todos));
    return toolCallId;
  }

  function toolResult(d: Obj, fallbackId?: string, whole = false): void {
    blocks.closeAll();
    const toolCallId = str(d, 'tool_use_id', 'id', 'tool_call_id') ?? fallbackId ?? `tool_${toolCount}`;
    const toolName = toolNames.get(toolCallId) ?? str(d, 'name', 'tool');
    const output = (whole ? d : (d.content ?? d.output ?? d.result ?? null)) as Json;
    if (d.is_error === true || d.isError === true) {
      const e: EventInit = { type: 'tool-error', toolCallId, error: typeof output === 'string' ? output : JSON.stringify(output), output };
      if (toolName) e.toolName = toolName;
      out.emit(e);
    } else {
      const e: EventInit = { type: 'tool-output', toolCallId, output };
      if (toolName) e.toolName = toolName;
      out.emit(e);
    }
  }

  function todoList(d: Obj, line: AgentLine): void {
    const { type, where } = line;
    const items = d.items ?? d.todos;
    if (!Array.isArray(items)) {
      kit.error('invalid_field', `${describe(at(where, 'data.items'))}: expected an array of todo items`, at(where, 'data.items', 'array'));
      return;
    }
    setTodos(
      type === 'todo_update' ? 'update' : type === 'todos' ? 'snapshot' : 'create',
      toTodos(items, type === 'todo_update' ? todos : []),
    );
  }

  function todoDone(d: Obj): void {
    const id = str(d, 'id');
    const content = str(d, 'content', 'title', 'item');
    const index =
      typeof d.index === 'number' ? d.index : todos.findIndex((t) => t.id === id || (content !== undefined && t.content === content));
    if (index < 0 || index >= todos.length) {
      setTodos('done', [...todos, { id: id ?? `todo-${todos.length + 1}`, content: content ?? '', status: 'completed' }]);
      return;
    }
    setTodos(
      'done',
      todos.map((t, i) => (i === index ? { ...t, status: 'completed' } : t)),
    );
  }

  function usage(d: Obj, scope: 'increment' | 'total'): void {
    const e: EventInit = { type: 'usage', scope, usage: anthropicUsage(d) };
    if (typeof d.cost_usd === 'number') e.usage.costUsd = d.cost_usd;
    out.emit(e);
  }

  /** A subagent note: processing for Claude agents, thinking for DeepAgents. */
  function subagentNote(text: string): void {
    if (dialect === 'deepagents') blocks.thinkingText(text, true);
    else blocks.status(text);
  }

  function subagentStart(d: Obj): void {
    const name = str(d, 'agent', 'name', 'subagent_type', 'subagent') ?? 'subagent';
    const task = str(d, 'task', 'description', 'prompt');
    const subagentId = str(d, 'id', 'tool_use_id', 'subagent_id') ?? `subagent_${name}`;
    const e: EventInit = { type: 'subagent-start', subagentId, name };
    if (task !== undefined) e.task = task;
    const parent = str(d, 'tool_use_id', 'parent_tool_use_id');
    if (parent !== undefined) e.parentToolCallId = parent;
    out.emit(e);
    subagentNote(task ? `Subagent ${name}: ${task}` : `Subagent ${name} started`);
  }

  function subagentFinish(d: Obj): void {
    const name = str(d, 'agent', 'name', 'subagent_type', 'subagent') ?? 'subagent';
    const summary = str(d, 'summary', 'result', 'output');
    const e: EventInit = { type: 'subagent-finish', subagentId: str(d, 'id', 'tool_use_id', 'subagent_id') ?? `subagent_${name}` };
    if (summary !== undefined) e.result = summary;
    const err = str(d, 'error');
    if (err !== undefined) e.error = err;
    out.emit(e);
    subagentNote(summary ? `Subagent ${name} finished: ${summary}` : `Subagent ${name} finished`);
  }

  function runResult(d: Obj): void {
    result = d as JsonObject;
    const u = isObject(d.usage) ? d.usage : undefined;
    const cost = typeof d.total_cost_usd === 'number' ? d.total_cost_usd : typeof d.cost_usd === 'number' ? d.cost_usd : undefined;
    if (u || cost !== undefined || typeof d.duration_ms === 'number') {
      const e: EventInit = { type: 'usage', scope: 'total', usage: {} };
      if (u) e.usage = anthropicUsage(u);
      if (cost !== undefined) e.usage.costUsd = cost;
      if (typeof d.duration_ms === 'number') e.durationMs = d.duration_ms;
      out.emit(e);
    }
    if (d.is_error === true) ctx.fail();
  }

  function finish(): void {
    blocks.closeAll();
    for (const [toolCallId, toolName] of pending) {
      out.emit({ type: 'tool-input-end', toolCallId, toolName, input: {}, inputError: "the agent never sent this tool call's input" });
    }
    pending.clear();
    const e: EventInit = { type: 'run-finish', finishReason: ctx.failed ? 'error' : 'stop' };
    if (result) e.providerMetadata = { [dialect]: { result } };
    out.emit(e);
  }

  return {
    on: {
      start(d) {
        const model = str(d, 'model');
        const meta = Object.keys(d).length ? { [dialect]: d as JsonObject } : undefined;
        out.start({ ...(model ? { model } : {}), ...(meta ? { providerMetadata: meta } : {}) });
      },
      status: (d) => blocks.status(str(d, 'message', 'content', 'text', 'status') ?? ''),
      text: (d) => blocks.textDelta(str(d, 'content', 'text', 'delta') ?? ''),
      delta: (d) => blocks.textDelta(str(d, 'content', 'text', 'delta') ?? ''),
      thinking: (d) => blocks.thinkingText(str(d, 'content', 'thinking', 'text') ?? ''),
      think(d) {
        const thought = str(d, 'thought', 'content') ?? '';
        const id = str(d, 'id');
        if (id === undefined) blocks.thinkingText(thought, true);
        else blocks.thinkingEntry(thought, dialect, 'thinkIds', id);
      },
      tool_call_start: toolStart,
      tool_use: (d) => void toolUse(d),
      tool_call: (d) => void toolUse(d),
      tool_result: (d) => toolResult(d),
      search(d) {
        const { id: _id, ...input } = d;
        lastSearch = toolUse(d, { name: 'internet_search', input: input as Json });
      },
      search_result: (d) => toolResult(d, lastSearch, true),
      usage: (d) => usage(d, 'increment'),
      usage_total: (d) => usage(d, 'total'),
      todos: todoList,
      todo_create: todoList,
      todo_update: todoList,
      todo_done: todoDone,
      subagent_spawn: subagentStart,
      subagent_start: subagentStart,
      subagent_complete: subagentFinish,
      subagent_end: subagentFinish,
      result: runResult,
    },
    finish,
    toolCall: (d) => toolUse(d),
  };
}
