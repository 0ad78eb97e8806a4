import { isObject } from '../../inputs/decoder.ts';
import type { Emitter } from '../../model/emitter.ts';
import type { EventInit, EventOf, Json, JsonObject, Location, Todo } from '../../model/events.ts';

import { type Frame, locationOf, num, type ReadState, SOURCE, STEP_KINDS, str, TODO_STATUS, WS_TYPES } from './read-state.ts';

/** Creates the frame handler of one reader. */
export function createFrameHandler(s: ReadState) {
  const { out } = s;
  function handle(type: string, v: Frame, where?: Location): void {
    switch (type) {
      case 'session_start': {
        const config = isObject(v.modelConfig) ? v.modelConfig : {};
        const init: Parameters<Emitter['start']>[0] = {};
        const messageId = str(v, 'messageId') ?? str(v, 'sessionId');
        if (messageId !== undefined) init.messageId = messageId;
        if (typeof config.model === 'string') init.model = config.model;
        if (typeof config.provider === 'string') init.provider = config.provider;
        for (const k of ['chatId', 'parentRunId', 'agent'] as const) {
          const s = str(v, k);
          if (s !== undefined) init[k] = s;
        }
        if (isObject(v.metadata)) init.metadata = v.metadata as JsonObject;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) init.providerMetadata = pm;
        return out.start(init);
      }
      case 'thinking_chunk':
        return s.chunk('reasoning', v, where);
      case 'message_chunk':
      case 'message_partial':
        return s.chunk('text', v, where);
      case 'thinking':
      case 'thinking_complete':
        return s.final('reasoning', v, where);
      case 'message':
        return s.final('text', v, where);
      case 'tool_use':
        return s.toolUse(v, where);
      case 'tool_result':
        return s.toolResult(v, where);
      case 'complete':
        return s.complete(v, where);
      case 'error': {
        const message = str(v, 'error') ?? (isObject(v.error) && typeof v.error.message === 'string' ? v.error.message : undefined);
        if (message === undefined) return s.invalid(where, 'error', 'an error message string');
        const e: EventInit = { type: 'error', message, fatal: v.fatal === true };
        const code = str(v, 'code') ?? str(v, 'errorCode');
        if (code !== undefined) e.code = code;
        const loc = locationOf(v.where);
        if (loc) e.where = loc;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        if (e.fatal) s.failed = true;
        return s.emit(e, v);
      }
      case 'step_start': {
        if (!s.required(v, where, 'stepId')) return;
        const kind = str(v, 'kind') ?? 'other';
        if (!STEP_KINDS.has(kind)) s.invalid(where, 'kind', 'model, planning, action, final-answer or other');
        const e: EventInit = { type: 'step-start', stepId: v.stepId as string, kind: (STEP_KINDS.has(kind) ? kind : 'other') as 'other' };
        const name = str(v, 'name');
        if (name !== undefined) e.name = name;
        if (Number.isInteger(v.number)) e.number = v.number as number;
        const model = str(v, 'model');
        if (model !== undefined) e.model = model;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        s.steps.push(e.stepId);
        return s.emit(e, v);
      }
      case 'step_finish': {
        if (!s.required(v, where, 'stepId')) return;
        const e: EventInit = { type: 'step-finish', stepId: v.stepId as string, ...s.finishOf(v, false) };
        const usage = s.usageOf(v, 'usage', where);
        if (usage) e.usage = usage;
        const ms = num(v, 'durationMs');
        if (ms !== undefined) e.durationMs = ms;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        const i = s.steps.lastIndexOf(e.stepId);
        if (i >= 0) s.steps.splice(i, 1);
        return s.emit(e, v);
      }
      case 'source': {
        if (!s.required(v, where, 'sourceId')) return;
        const e: EventInit = { type: 'source', sourceId: v.sourceId as string, kind: v.kind === 'url' ? 'url' : 'document' };
        for (const k of ['url', 'title', 'mediaType', 'filename'] as const) {
          const s = str(v, k);
          if (s !== undefined) e[k] = s;
        }
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        return s.emit(e, v);
      }
      case 'file': {
        if (!s.required(v, where, 'url', 'mediaType')) return;
        const e: EventInit = { type: 'file', url: v.url as string, mediaType: v.mediaType as string };
        const filename = str(v, 'filename');
        if (filename !== undefined) e.filename = filename;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        return s.emit(e, v);
      }
      case 'todos': {
        const change = str(v, 'change');
        if (change !== 'create' && change !== 'update' && change !== 'done' && change !== 'snapshot')
          return s.invalid(where, 'change', 'create, update, done or snapshot');
        if (!Array.isArray(v.todos)) return s.invalid(where, 'todos', 'an array of todos');
        const todos: Todo[] = [];
        for (const [i, t] of v.todos.entries()) {
          if (!isObject(t) || typeof t.id !== 'string' || typeof t.content !== 'string' || !TODO_STATUS.has(t.status as string))
            return s.invalid(where, `todos[${i}]`, 'a todo {id, content, status}');
          const todo: Todo = { id: t.id, content: t.content, status: t.status as Todo['status'] };
          if (typeof t.activeForm === 'string') todo.activeForm = t.activeForm;
          todos.push(todo);
        }
        return s.emit({ type: 'todos', change, todos }, v);
      }
      case 'subagent_start': {
        if (!s.required(v, where, 'subagentId', 'name')) return;
        const e: EventInit = { type: 'subagent-start', subagentId: v.subagentId as string, name: v.name as string };
        for (const k of ['parentSubagentId', 'task', 'parentToolCallId'] as const) {
          const s = str(v, k);
          if (s !== undefined) e[k] = s;
        }
        return out.emit(e);
      }
      case 'subagent_finish': {
        if (!s.required(v, where, 'subagentId')) return;
        const e: EventInit = { type: 'subagent-finish', subagentId: v.subagentId as string };
        for (const k of ['result', 'error'] as const) {
          const s = str(v, k);
          if (s !== undefined) e[k] = s;
        }
        return out.emit(e);
      }
      case 'usage': {
        const usage = s.usageOf(v, 'usage', where);
        if (!usage) return s.invalid(where, 'usage', 'a usage object', 'missing_field');
        const scope = v.scope === 'step' || v.scope === 'total' ? v.scope : 'increment';
        const e: EventInit = { type: 'usage', scope, usage };
        const ms = num(v, 'durationMs');
        if (ms !== undefined) e.durationMs = ms;
        return s.emit(e, v);
      }
      case 'status': {
        if (!s.required(v, where, 'status')) return;
        const e: EventInit = { type: 'status', status: v.status as string };
        const message = str(v, 'message');
        if (message !== undefined) e.message = message;
        return s.emit(e, v);
      }
      case 'state_snapshot':
        return s.emit({ type: 'state-snapshot', state: (v.state ?? null) as Json }, v);
      case 'state_delta': {
        if (!Array.isArray(v.patch) || !v.patch.every((p) => isObject(p) && typeof p.op === 'string' && typeof p.path === 'string'))
          return s.invalid(where, 'patch', 'a JSON Patch array');
        return s.emit({ type: 'state-delta', patch: v.patch as EventOf<'state-delta'>['patch'] }, v);
      }
      case 'tool_approval_request': {
        if (!s.required(v, where, 'approval_id', 'tool_call_id')) return;
        const e = { type: 'tool-approval-request', approvalId: v.approval_id, toolCallId: v.tool_call_id } as EventInit & {
          type: 'tool-approval-request';
        };
        if (str(v, 'tool_name') !== undefined) e.toolName = str(v, 'tool_name');
        if (str(v, 'reason') !== undefined) e.reason = str(v, 'reason');
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        return s.emit(e, v);
      }
      case 'tool_approval_response': {
        if (!s.required(v, where, 'approval_id')) return;
        if (typeof v.approved !== 'boolean') return s.invalid(where, 'approved', 'a boolean');
        const e = { type: 'tool-approval-response', approvalId: v.approval_id, approved: v.approved } as EventInit & {
          type: 'tool-approval-response';
        };
        for (const [from, to] of [
          ['tool_call_id', 'toolCallId'],
          ['reason', 'reason'],
          ['by', 'by'],
        ] as const)
          if (str(v, from) !== undefined) e[to] = str(v, from);
        if (typeof v.providerExecuted === 'boolean') e.providerExecuted = v.providerExecuted;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        return s.emit(e, v);
      }
      case 'client_tool_call': {
        if (!s.required(v, where, 'tool_call_id')) return;
        const e = { type: 'client-tool-call', toolCallId: v.tool_call_id } as EventInit & { type: 'client-tool-call' };
        if (str(v, 'tool_name') !== undefined) e.toolName = str(v, 'tool_name');
        return s.emit(e, v);
      }
      case 'interrupt': {
        if (!s.required(v, where, 'interrupt_id', 'reason')) return;
        const e = { type: 'interrupt', interruptId: v.interrupt_id, reason: v.reason } as EventInit & { type: 'interrupt' };
        for (const [from, to] of [
          ['message', 'message'],
          ['tool_call_id', 'toolCallId'],
          ['expires_at', 'expiresAt'],
        ] as const)
          if (str(v, from) !== undefined) e[to] = str(v, from);
        if (v.value !== undefined) e.value = v.value as Json;
        if (isObject(v.response_schema)) e.responseSchema = v.response_schema as JsonObject;
        const pm = s.pmOf(v, 'providerMetadata', where);
        if (pm) e.providerMetadata = pm;
        return s.emit(e, v);
      }
      case 'interrupt_response': {
        if (!s.required(v, where, 'interrupt_id')) return;
        if (v.status !== 'resolved' && v.status !== 'cancelled') return s.invalid(where, 'status', 'resolved or cancelled');
        const e = { type: 'interrupt-response', interruptId: v.interrupt_id, status: v.status } as EventInit & {
          type: 'interrupt-response';
        };
        if (v.payload !== undefined) e.payload = v.payload as Json;
        if (str(v, 'by') !== undefined) e.by = str(v, 'by');
        return s.emit(e, v);
      }
      case 'custom':
        if (!s.required(v, where, 'name')) return;
        return s.emit({ type: 'custom', name: v.name as string, value: (v.value ?? null) as Json }, v);
      case 'raw': {
        const e: EventInit = { type: 'raw', source: str(v, 'source') ?? SOURCE, event: (v.event ?? null) as Json };
        const reason = str(v, 'reason');
        if (reason !== undefined) e.reason = reason;
        // The location in the original input (the frame itself is located by its line here).
        const loc = locationOf(v.where);
        if (loc) e.where = loc;
        return s.emit(e, v);
      }
      default: {
        const e: EventInit = {
          type: 'raw',
          source: SOURCE,
          event: v as Json,
          reason: WS_TYPES.has(type)
            ? `agent:event "${type}" has no canonical mapping`
            : `unknown agent:event type ${JSON.stringify(type)}`,
        };
        if (where) e.where = where;
        return s.emit(e, v);
      }
    }
  }

  return handle;
}
