/**
 * One AG-UI event (checked, chunks expanded) → canonical events: the run lifecycle and the spans are
 * handed to `run.ts` and `spans.ts`; steps, tool results, encrypted values, state, snapshots,
 * activity, RAW, CUSTOM and subagents are mapped here.
 */

import { isObject } from '../../inputs/decoder.ts';
import type { EventInit, FinishReason, Json, Location, Usage } from '../../model/events.ts';
import { CUSTOM_KINDS, type Ev, FINISH_REASONS, obj, PATCH_OPS, type ReadState, STEP_KINDS, str } from './read-state.ts';
import type { RunLifecycle } from './run.ts';
import type { Spans } from './spans.ts';

/** Creates the event mapping of one reader. */
export function createApply(s: ReadState, { handleSpan }: Spans, { runStarted, runFinished, runError }: RunLifecycle) {
  function apply(type: string, ev: Ev, where: Location | undefined): void {
    const m = s.ours(ev);
    const owner = str(ev.subagentRunId);
    if (type !== 'RUN_STARTED' && type !== 'RUN_ERROR' && s.run !== 'open' && !s.reportedOutside) {
      s.reportedOutside = true;
      s.sequenceError(
        'unexpected_event',
        s.run === 'none' ? `${type} before RUN_STARTED` : `${type} after the run finished (RUN_FINISHED)`,
        where,
        'type',
        s.run === 'none' ? 'RUN_STARTED first' : 'RUN_STARTED before more events',
      );
    }
    if (handleSpan(type, ev, m, where)) return;
    switch (type) {
      case 'RUN_STARTED':
        return runStarted(ev, m, where);
      case 'RUN_FINISHED':
        return runFinished(ev, m, where);
      case 'RUN_ERROR':
        return runError(ev, m, where);

      case 'STEP_STARTED': {
        const name = ev.stepName as string;
        const key = `${owner ?? ''}\u0000${name}`;
        if (s.steps.has(key))
          return s.sequenceError(
            'unexpected_event',
            `STEP_STARTED for step "${name}", which is already active`,
            where,
            'stepName',
            'a step that is not active',
          );
        const stepId = s.unique(s.stepIds, str(m?.stepId) ?? name);
        s.steps.set(key, { stepId, owner, name });
        const x = s.extras(ev, ['stepName']);
        if (m) {
          s.emit({
            type: 'step-start',
            stepId,
            kind: STEP_KINDS.has(m.kind as string) ? (m.kind as 'other') : 'other',
            name: str(m.name),
            number: typeof m.number === 'number' ? m.number : undefined,
            model: str(m.model),
            subagentId: owner,
            providerMetadata: s.pmOf(m, x),
          });
        } else s.emit({ type: 'step-start', stepId, kind: 'other', name, subagentId: owner, providerMetadata: s.pmOf(undefined, x) });
        return;
      }
      case 'STEP_FINISHED': {
        const name = ev.stepName as string;
        const key = `${owner ?? ''}\u0000${name}`;
        const step = s.steps.get(key);
        if (!step)
          return s.sequenceError(
            'unknown_block',
            `STEP_FINISHED for step "${name}", which was not started`,
            where,
            'stepName',
            'the name of an active step',
          );
        s.steps.delete(key);
        s.emit({
          type: 'step-finish',
          stepId: step.stepId,
          finishReason: FINISH_REASONS.has(m?.finishReason as string) ? (m?.finishReason as FinishReason) : undefined,
          rawFinishReason: str(m?.rawFinishReason),
          usage: obj(m?.usage) as Usage | undefined,
          durationMs: typeof m?.durationMs === 'number' ? m.durationMs : undefined,
          subagentId: owner,
          providerMetadata: s.pmOf(m, s.extras(ev, ['stepName'])),
        });
        return;
      }

      case 'TOOL_CALL_RESULT': {
        const id = ev.toolCallId as string;
        const content = ev.content;
        if (typeof content !== 'string' && !Array.isArray(content))
          return s.fieldError(type, 'content', 'a string or an array of content parts', content, where);
        s.answered.add(id);
        if (m) {
          const x = s.extras(ev, ['messageId', 'toolCallId', 'content', 'role']);
          const common = {
            toolCallId: id,
            toolName: str(m.toolName),
            providerExecuted: m.providerExecuted === true ? true : undefined,
            subagentId: owner,
            providerMetadata: s.pmOf(m, x),
          };
          if (m.error === true) {
            s.emit({
              type: 'tool-error',
              ...common,
              error: typeof content === 'string' ? content : JSON.stringify(content),
              output: m.output as Json | undefined,
            });
          } else {
            let output = content as Json;
            if (m.json === true && typeof content === 'string') {
              try {
                output = JSON.parse(content);
              } catch {
                // not what we wrote: keep the text
              }
            }
            s.emit({ type: 'tool-output', ...common, output, preliminary: m.preliminary === true ? true : undefined });
          }
          return;
        }
        const x = s.extras(ev, ['toolCallId', 'content', 'role']);
        s.emit({
          type: 'tool-output',
          toolCallId: id,
          toolName: s.toolNames.get(id),
          output: content as Json,
          subagentId: owner,
          providerMetadata: s.pmOf(undefined, x),
        });
        return;
      }

      case 'REASONING_ENCRYPTED_VALUE': {
        const subtype = ev.subtype;
        if (subtype !== 'message' && subtype !== 'tool-call')
          return s.fieldError(type, 'subtype', '"message" or "tool-call"', subtype, where);
        const target = subtype === 'message' ? s.reasonings.get(ev.entityId as string) : s.tools.get(ev.entityId as string);
        const x = s.extras(ev, ['subtype', 'entityId', 'encryptedValue']);
        if (target && !x) {
          // Attached to the block: it ends up in that block's providerMetadata.
          target.encrypted = ev.encryptedValue as string;
          return;
        }
        s.emit({ type: 'custom', name: 'ag-ui.reasoning-encrypted-value', value: s.rest(ev), subagentId: owner });
        return;
      }

      case 'STATE_SNAPSHOT': {
        if (ev.snapshot === undefined) return s.fieldError(type, 'snapshot', 'a JSON value', undefined, where);
        const snap = ev.snapshot;
        if (m?.event === 'todos' && isObject(snap) && Array.isArray(snap.todos))
          s.emit({ type: 'todos', change: (str(m.change) as 'update') ?? 'snapshot', todos: snap.todos as never, subagentId: owner });
        else s.emit({ type: 'state-snapshot', state: snap as Json, subagentId: owner });
        s.rawExtras(ev, s.extras(ev, ['snapshot']), where, owner);
        return;
      }
      case 'STATE_DELTA': {
        const delta = ev.delta;
        if (!Array.isArray(delta)) return s.fieldError(type, 'delta', 'a JSON Patch array', delta, where);
        const patch: { op: 'add'; path: string; from?: string; value?: Json }[] = [];
        let opExtras = false;
        for (let i = 0; i < delta.length; i++) {
          const op = delta[i];
          if (
            !isObject(op) ||
            !PATCH_OPS.has(op.op as string) ||
            typeof op.path !== 'string' ||
            (op.from !== undefined && typeof op.from !== 'string')
          )
            return s.fieldError(type, `delta[${i}]`, 'a JSON Patch operation {op, path, from?, value?}', op, where);
          const p: (typeof patch)[number] = { op: op.op as 'add', path: op.path };
          if (op.from !== undefined) p.from = op.from as string;
          if (op.value !== undefined) p.value = op.value as Json;
          for (const k in op) if (k !== 'op' && k !== 'path' && k !== 'from' && k !== 'value') opExtras = true;
          patch.push(p);
        }
        const first = patch[0];
        if (m?.event === 'todos' && patch.length === 1 && first.path === '/todos' && Array.isArray(first.value))
          s.emit({ type: 'todos', change: (str(m.change) as 'update') ?? 'update', todos: first.value as never, subagentId: owner });
        else s.emit({ type: 'state-delta', patch, subagentId: owner });
        let x = s.extras(ev, ['delta']);
        if (opExtras) x = { ...x, delta: delta as Json };
        s.rawExtras(ev, x, where, owner);
        return;
      }
      case 'MESSAGES_SNAPSHOT': {
        if (!Array.isArray(ev.messages)) return s.fieldError(type, 'messages', 'an array of messages', ev.messages, where);
        if (m?.derived === true) return; // ours: a summary of the events already read
        s.emit({ type: 'custom', name: 'ag-ui.messages-snapshot', value: s.rest(ev) });
        return;
      }
      case 'ACTIVITY_SNAPSHOT':
      case 'ACTIVITY_DELTA':
        s.emit({
          type: 'custom',
          name: type === 'ACTIVITY_SNAPSHOT' ? 'ag-ui.activity-snapshot' : 'ag-ui.activity-delta',
          value: s.rest(ev),
          subagentId: owner,
        });
        return;

      case 'RAW': {
        if (ev.event === undefined) return s.fieldError(type, 'event', 'a JSON value', undefined, where);
        if (m) {
          s.emit({
            type: 'raw',
            source: str(ev.source) ?? 'ag-ui',
            event: ev.event as Json,
            reason: str(m.reason),
            where: obj(m.where) as Location | undefined,
            subagentId: owner,
          });
          return;
        }
        const x = s.extras(ev, ['event', 'source']);
        s.emit({
          type: 'raw',
          source: str(ev.source) ?? 'ag-ui',
          event: (x ? ev : ev.event) as Json,
          reason: 'AG-UI RAW event',
          where,
          subagentId: owner,
        });
        return;
      }
      case 'CUSTOM': {
        const name = ev.name as string;
        const value = ev.value;
        const kind = name.startsWith(`${s.ns}.`) ? name.slice(s.ns.length + 1) : undefined;
        if (
          kind !== undefined &&
          CUSTOM_KINDS.has(kind) &&
          isObject(value) &&
          (kind !== 'citation' || s.openBlocks.has(value.blockId as string))
        ) {
          if (kind === 'error' && value.fatal === true) s.fatal = true;
          s.emit({ ...value, type: kind, subagentId: owner } as EventInit);
          return;
        }
        s.emit({ type: 'custom', name, value: (value ?? null) as Json, subagentId: owner });
        s.rawExtras(ev, s.extras(ev, ['name', 'value']), where, owner);
        return;
      }

      case 'SUBAGENT_STARTED': {
        const id = ev.subagentRunId as string;
        s.subagents.add(id);
        const used = ['name', 'description', 'parentSubagentRunId', 'parentToolCallId'];
        if (m) used.push('parentMessageId');
        s.emit({
          type: 'subagent-start',
          subagentId: id,
          name: ev.name as string,
          task: str(ev.description),
          parentSubagentId: str(ev.parentSubagentRunId) ?? str(m?.parentSubagentId),
          parentToolCallId: str(ev.parentToolCallId),
        });
        s.rawExtras(ev, s.extras(ev, used), where, id);
        return;
      }
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR': {
        const id = ev.subagentRunId as string;
        if (!s.subagents.delete(id))
          s.sequenceError(
            'unknown_block',
            `${type} for subagent "${id}", which is not active`,
            where,
            'subagentRunId',
            'the id of an active subagent',
          );
        if (type === 'SUBAGENT_ERROR') {
          s.emit({ type: 'subagent-finish', subagentId: id, error: str(ev.message) ?? 'subagent error', result: str(m?.result) });
          s.rawExtras(ev, s.extras(ev, ['message']), where, id);
        } else {
          const result = str(ev.result);
          s.emit({ type: 'subagent-finish', subagentId: id, result });
          s.rawExtras(ev, s.extras(ev, result !== undefined ? ['result'] : []), where, id);
        }
        return;
      }
    }
  }

  return apply;
}
