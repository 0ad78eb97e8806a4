/**
 * Decoders for the agent JSON-lines format of seed 000: one `{"type": …, "data": {…}}` object per
 * line, as agents print it on stdout. Two dialects share it:
 * - `claude` (the simplified Claude agent format): start, status, text, thinking / think, tool_use,
 *   tool_result, todo_*, subagent_spawn, result, error, done;
 * - `deepagents`: the same plus tool_call_start, todos, subagent_start / subagent_complete,
 *   search / search_result, usage / usage_total.
 * Both dialects understand every event type; they differ only where seed 000 places subagent notes
 * (claude: the processing block; deepagents: the thinking block). Loose content goes through the
 * shared block rules.
 */
import { describe } from '../codec/framing.ts';
import { type DecoderOptions, Emitter } from '../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location, Todo } from '../model/events.ts';
import { toTodos } from '../model/todos.ts';
import { BlockAssembler } from '../transforms/blocks.ts';
import { anthropicUsage } from './anthropic.ts';
import { at, type Decoder, isObject, readAgentLine } from './decoder.ts';

/** Which agent family wrote the lines. */
export type AgentDialect = 'claude' | 'deepagents';

function str(o: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
}

/** Creates a decoder for seed 000's simplified `{"type","data"}` agent format (framework `claude`). */
export function createClaudeAgentDecoder(options: DecoderOptions = {}): Decoder {
  return createAgentLinesDecoder(options, 'claude');
}

/** Creates a decoder for DeepAgents' `{"type","data"}` lines (framework `deepagents`). */
export function createDeepAgentsDecoder(options: DecoderOptions = {}): Decoder {
  return createAgentLinesDecoder(options, 'deepagents');
}

function createAgentLinesDecoder(options: DecoderOptions, dialect: AgentDialect): Decoder {
  const out = new Emitter(options, dialect);
  const blocks = new BlockAssembler(out);
  const toolNames = new Map<string, string>();
  let todos: Todo[] = [];
  let failed = false;
  let result: JsonObject | undefined;
  let toolCount = 0;
  /** Tool calls announced by tool_call_start whose input has not come yet. */
  const pending = new Map<string, string>();
  let lastSearch: string | undefined;

  function error(code: string, message: string, where?: Location, fatal = false): void {
    const e: EventInit = { type: 'error', code, message, fatal };
    if (where) e.where = where;
    out.emit(e);
  }

  function setTodos(change: 'create' | 'update' | 'done' | 'snapshot', next: Todo[]): void {
    todos = next;
    out.emit({ type: 'todos', change, todos });
  }

  function toolStart(d: Record<string, unknown>): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_use_id', 'tool_call_id') ?? `tool_${++toolCount}`;
    const toolName = str(d, 'name', 'tool', 'tool_name') ?? 'unknown';
    pending.set(toolCallId, toolName);
    toolNames.set(toolCallId, toolName);
    out.emit({ type: 'tool-input-start', toolCallId, toolName });
  }

  function toolUse(d: Record<string, unknown>, defaults: { name?: string; input?: Json } = {}): string {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_use_id', 'tool_call_id') ?? `tool_${++toolCount}`;
    const toolName = str(d, 'name', 'tool', 'tool_name') ?? pending.get(toolCallId) ?? defaults.name ?? 'unknown';
    let input = (d.input ?? d.arguments ?? d.args ?? defaults.input ?? {}) as Json;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        // Keep the text as it is: some agents send plain-text arguments.
      }
    }
    toolNames.set(toolCallId, toolName);
    if (!pending.delete(toolCallId)) out.emit({ type: 'tool-input-start', toolCallId, toolName });
    out.emit({ type: 'tool-input-end', toolCallId, toolName, input });
    // The Claude TodoWrite tool is the todo list: show it like DeepAgents' todos.
    if (toolName === 'TodoWrite' && isObject(input) && Array.isArray(input.todos)) setTodos('snapshot', toTodos(input.todos, todos));
    return toolCallId;
  }

  function toolResult(d: Record<string, unknown>, fallbackId?: string, whole = false): void {
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

  function todoDone(d: Record<string, unknown>): void {
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

  function usage(d: Record<string, unknown>, scope: 'increment' | 'total'): void {
    const e: EventInit = { type: 'usage', scope, usage: anthropicUsage(d) };
    if (typeof d.cost_usd === 'number') e.usage.costUsd = d.cost_usd;
    out.emit(e);
  }

  /** A subagent note: processing for Claude agents, thinking for DeepAgents (seed 000). */
  function subagentNote(text: string): void {
    if (dialect === 'deepagents') blocks.thinkingText(text, true);
    else blocks.status(text);
  }

  function finish(): void {
    blocks.closeAll();
    for (const [toolCallId, toolName] of pending) {
      out.emit({ type: 'tool-input-end', toolCallId, toolName, input: {}, inputError: "the agent never sent this tool call's input" });
    }
    pending.clear();
    const e: EventInit = { type: 'run-finish', finishReason: failed ? 'error' : 'stop' };
    if (result) e.providerMetadata = { [dialect]: { result } };
    out.emit(e);
  }

  function handle(type: string, d: Record<string, unknown>, raw: Record<string, unknown>, where?: Location): void {
    switch (type) {
      case 'start': {
        const model = str(d, 'model');
        const meta = Object.keys(d).length ? { [dialect]: d as JsonObject } : undefined;
        out.start({ ...(model ? { model } : {}), ...(meta ? { providerMetadata: meta } : {}) });
        return;
      }
      case 'status':
        return blocks.status(str(d, 'message', 'content', 'text', 'status') ?? '');
      case 'text':
      case 'delta':
        return blocks.textDelta(str(d, 'content', 'text', 'delta') ?? '');
      case 'thinking':
        return blocks.thinkingText(str(d, 'content', 'thinking', 'text') ?? '');
      case 'think': {
        const thought = str(d, 'thought', 'content') ?? '';
        const id = str(d, 'id');
        return id === undefined ? blocks.thinkingText(thought, true) : blocks.thinkingEntry(thought, dialect, 'thinkIds', id);
      }
      case 'tool_call_start':
        return toolStart(d);
      case 'tool_use':
      case 'tool_call':
        toolUse(d);
        return;
      case 'tool_result':
        return toolResult(d);
      case 'search': {
        const { id: _id, ...input } = d;
        lastSearch = toolUse(d, { name: 'internet_search', input: input as Json });
        return;
      }
      case 'search_result':
        return toolResult(d, lastSearch, true);
      case 'usage':
        return usage(d, 'increment');
      case 'usage_total':
        return usage(d, 'total');
      case 'todos':
      case 'todo_create':
      case 'todo_update': {
        const items = d.items ?? d.todos;
        if (!Array.isArray(items))
          return error(
            'invalid_field',
            `${describe(at(where, 'data.items'))}: expected an array of todo items`,
            at(where, 'data.items', 'array'),
          );
        return setTodos(
          type === 'todo_update' ? 'update' : type === 'todos' ? 'snapshot' : 'create',
          toTodos(items, type === 'todo_update' ? todos : []),
        );
      }
      case 'todo_done':
        return todoDone(d);
      case 'subagent_spawn':
      case 'subagent_start': {
        const name = str(d, 'agent', 'name', 'subagent_type', 'subagent') ?? 'subagent';
        const task = str(d, 'task', 'description', 'prompt');
        const subagentId = str(d, 'id', 'tool_use_id', 'subagent_id') ?? `subagent_${name}`;
        const e: EventInit = { type: 'subagent-start', subagentId, name };
        if (task !== undefined) e.task = task;
        const parent = str(d, 'tool_use_id', 'parent_tool_use_id');
        if (parent !== undefined) e.parentToolCallId = parent;
        out.emit(e);
        return subagentNote(task ? `Subagent ${name}: ${task}` : `Subagent ${name} started`);
      }
      case 'subagent_complete':
      case 'subagent_end': {
        const name = str(d, 'agent', 'name', 'subagent_type', 'subagent') ?? 'subagent';
        const summary = str(d, 'summary', 'result', 'output');
        const e: EventInit = { type: 'subagent-finish', subagentId: str(d, 'id', 'tool_use_id', 'subagent_id') ?? `subagent_${name}` };
        if (summary !== undefined) e.result = summary;
        const err = str(d, 'error');
        if (err !== undefined) e.error = err;
        out.emit(e);
        return subagentNote(summary ? `Subagent ${name} finished: ${summary}` : `Subagent ${name} finished`);
      }
      case 'result': {
        result = d as JsonObject;
        const usage = isObject(d.usage) ? d.usage : undefined;
        const cost = typeof d.total_cost_usd === 'number' ? d.total_cost_usd : typeof d.cost_usd === 'number' ? d.cost_usd : undefined;
        if (usage || cost !== undefined || typeof d.duration_ms === 'number') {
          const u: EventInit = { type: 'usage', scope: 'total', usage: {} };
          if (usage) u.usage = anthropicUsage(usage);
          if (cost !== undefined) u.usage.costUsd = cost;
          if (typeof d.duration_ms === 'number') u.durationMs = d.duration_ms;
          out.emit(u);
        }
        if (d.is_error === true) failed = true;
        return;
      }
      case 'error': {
        blocks.closeAll();
        failed = true;
        const message = str(d, 'message', 'error') ?? (isObject(d.error) ? (str(d.error, 'message') ?? 'agent error') : 'agent error');
        return error(str(d, 'code', 'type') ?? 'agent_error', message, where, true);
      }
      case 'done':
        return finish();
      default: {
        const e: EventInit = { type: 'raw', source: dialect, event: raw as Json, reason: `unknown event type ${JSON.stringify(type)}` };
        if (where) e.where = where;
        out.emit(e);
      }
    }
  }

  return {
    push(value, where) {
      const line = readAgentLine(value, where);
      if ('code' in line) error(line.code, line.message, line.where);
      else handle(line.type, line.data, line.line, where);
      return out.take();
    },
    fault(code, message, where) {
      error(code, message, where);
      return out.take();
    },
    end() {
      if (!out.finished) {
        if (!failed) error('truncated', 'the agent output ended without a "done" event', undefined, true);
        failed = true;
        finish();
      }
      return out.take();
    },
  };
}
