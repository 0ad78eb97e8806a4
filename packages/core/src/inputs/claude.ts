/**
 * Decoder for the simplified agent format of seed 000: one `{"type": …, "data": {…}}` object per line,
 * as agents print it on stdout (start, status, text, thinking / think, tool_use, tool_result, todo_*,
 * subagent_spawn, result, error, done). Loose content goes through the shared block rules.
 */
import { describe } from '../codec/framing.ts';
import { type DecoderOptions, Emitter } from '../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location, Todo } from '../model/events.ts';
import { BlockAssembler } from '../transforms/blocks.ts';
import { at, type Decoder, isObject } from './decoder.ts';

const TODO_STATUS: Record<string, Todo['status']> = {
  pending: 'pending',
  todo: 'pending',
  in_progress: 'in_progress',
  'in-progress': 'in_progress',
  active: 'in_progress',
  completed: 'completed',
  done: 'completed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

function str(o: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
}

/** Turns agent todo items (strings or objects) into canonical todos. */
export function toTodos(items: unknown[], previous: Todo[] = []): Todo[] {
  return items.map((item, i) => {
    if (typeof item === 'string') return { id: previous[i]?.id ?? `todo-${i + 1}`, content: item, status: 'pending' };
    const o = isObject(item) ? item : {};
    const todo: Todo = {
      id: str(o, 'id') ?? previous[i]?.id ?? `todo-${i + 1}`,
      content: str(o, 'content', 'title', 'text', 'task') ?? previous[i]?.content ?? '',
      status: TODO_STATUS[str(o, 'status') ?? ''] ?? previous[i]?.status ?? 'pending',
    };
    const active = str(o, 'activeForm', 'active_form');
    if (active !== undefined) todo.activeForm = active;
    return todo;
  });
}

/** Creates a decoder for seed 000's simplified `{"type","data"}` agent format (framework `claude`). */
export function createClaudeAgentDecoder(options: DecoderOptions = {}): Decoder {
  const out = new Emitter(options, 'claude');
  const blocks = new BlockAssembler(out);
  const toolNames = new Map<string, string>();
  let todos: Todo[] = [];
  let failed = false;
  let result: JsonObject | undefined;
  let toolCount = 0;

  function error(code: string, message: string, where?: Location, fatal = false): void {
    const e: EventInit = { type: 'error', code, message, fatal };
    if (where) e.where = where;
    out.emit(e);
  }

  function setTodos(change: 'create' | 'update' | 'done' | 'snapshot', next: Todo[]): void {
    todos = next;
    out.emit({ type: 'todos', change, todos });
  }

  function toolUse(d: Record<string, unknown>): void {
    blocks.closeAll();
    const toolCallId = str(d, 'id', 'tool_use_id', 'tool_call_id') ?? `tool_${++toolCount}`;
    const toolName = str(d, 'name', 'tool', 'tool_name') ?? 'unknown';
    let input = (d.input ?? d.arguments ?? d.args ?? {}) as Json;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        // Keep the text as it is: some agents send plain-text arguments.
      }
    }
    toolNames.set(toolCallId, toolName);
    out.emit({ type: 'tool-input-start', toolCallId, toolName });
    out.emit({ type: 'tool-input-end', toolCallId, toolName, input });
    // The Claude TodoWrite tool is the todo list: show it like DeepAgents' todos.
    if (toolName === 'TodoWrite' && isObject(input) && Array.isArray(input.todos)) setTodos('snapshot', toTodos(input.todos, todos));
  }

  function toolResult(d: Record<string, unknown>): void {
    blocks.closeAll();
    const toolCallId = str(d, 'tool_use_id', 'id', 'tool_call_id') ?? `tool_${toolCount}`;
    const toolName = toolNames.get(toolCallId) ?? str(d, 'name', 'tool');
    const output = (d.content ?? d.output ?? d.result ?? null) as Json;
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

  function finish(): void {
    blocks.closeAll();
    const e: EventInit = { type: 'run-finish', finishReason: failed ? 'error' : 'stop' };
    if (result) e.providerMetadata = { claude: { result } };
    out.emit(e);
  }

  function handle(type: string, d: Record<string, unknown>, raw: Record<string, unknown>, where?: Location): void {
    switch (type) {
      case 'start': {
        const model = str(d, 'model');
        const meta = Object.keys(d).length ? { claude: d as JsonObject } : undefined;
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
      case 'think':
        return blocks.thinkingText(str(d, 'thought', 'content') ?? '', true);
      case 'tool_use':
      case 'tool_call':
      case 'tool_call_start':
        return toolUse(d);
      case 'tool_result':
        return toolResult(d);
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
        return blocks.status(task ? `Subagent ${name}: ${task}` : `Subagent ${name} started`);
      }
      case 'result': {
        result = d as JsonObject;
        const usage = isObject(d.usage) ? d.usage : undefined;
        const cost = typeof d.total_cost_usd === 'number' ? d.total_cost_usd : typeof d.cost_usd === 'number' ? d.cost_usd : undefined;
        if (usage || cost !== undefined || typeof d.duration_ms === 'number') {
          const u: EventInit = { type: 'usage', scope: 'total', usage: {} };
          if (usage) {
            const n = (k: string) => (typeof usage[k] === 'number' ? (usage[k] as number) : undefined);
            const input = n('input_tokens');
            const output = n('output_tokens');
            if (input !== undefined) u.usage.inputTokens = input;
            if (output !== undefined) u.usage.outputTokens = output;
            if (input !== undefined || output !== undefined) u.usage.totalTokens = (input ?? 0) + (output ?? 0);
            if (n('cache_read_input_tokens') !== undefined) u.usage.cacheReadTokens = n('cache_read_input_tokens');
            if (n('cache_creation_input_tokens') !== undefined) u.usage.cacheWriteTokens = n('cache_creation_input_tokens');
            u.usage.raw = usage as Json;
          }
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
        const e: EventInit = { type: 'raw', source: 'claude', event: raw as Json, reason: `unknown event type ${JSON.stringify(type)}` };
        if (where) e.where = where;
        out.emit(e);
      }
    }
  }

  return {
    push(value, where) {
      if (!isObject(value)) {
        error(
          'invalid_event',
          `${describe(where ?? {})}: expected a JSON object {"type", "data"}, got ${Array.isArray(value) ? 'an array' : typeof value}`,
          { ...where, expected: 'object' },
        );
      } else if (typeof value.type !== 'string') {
        error('invalid_field', `${describe(at(where, 'type'))}: expected a string event type`, at(where, 'type', 'string'));
      } else if (value.data !== undefined && value.data !== null && !isObject(value.data)) {
        error('invalid_field', `${describe(at(where, 'data'))}: expected an object`, at(where, 'data', 'object'));
      } else {
        handle(value.type, (value.data ?? {}) as Record<string, unknown>, value, where);
      }
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
