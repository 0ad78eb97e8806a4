/**
 * One canonical event → AG-UI events: the mapping table of docs/protocols/ag-ui.md, on the encoder's
 * state (`encoder-state.ts`).
 */
import type { CanonicalEvent, EventOf } from '../../model/events.ts';
import { carriedOutcome, type EncoderState, type Owner, tokenUsage, validPatch } from './encoder-state.ts';
import type { AgUiEvent } from './schema.ts';

/** Events that are content of the run (answers to an earlier run come before any), as the AI SDK encoder counts them. */
const CONTENT: ReadonlySet<CanonicalEvent['type']> = new Set([
  'step-start',
  'text-start',
  'text-delta',
  'reasoning-start',
  'reasoning-delta',
  'tool-input-start',
  'tool-input-end',
]);

/** Creates the event mapping of one encoder. */
export function createEventEncoder(s: EncoderState) {
  function encode(e: CanonicalEvent, out: AgUiEvent[]): void {
    if (!s.started && e.type !== 'run-start') s.startRun(out, e);
    const owner = e.subagentId;
    if (CONTENT.has(e.type)) s.content = true;
    switch (e.type) {
      case 'run-start':
        if (!s.started) s.startRun(out, e);
        return;
      case 'step-start':
        s.startStep(out, e);
        return;
      case 'step-finish':
        if (!s.steps.has(e.stepId)) s.startStep(out, { ...e, type: 'step-start', kind: 'other' } as EventOf<'step-start'>);
        s.endStep(out, e.stepId, e);
        return;
      case 'text-start':
        if (!s.texts.has(e.blockId)) s.startText(out, e.blockId, owner, e.providerMetadata);
        return;
      case 'text-delta': {
        if (!s.texts.has(e.blockId)) s.startText(out, e.blockId, owner, undefined);
        const t = s.texts.get(e.blockId) as { messageId: string; owner: Owner };
        s.push(out, { type: 'TEXT_MESSAGE_CONTENT', messageId: t.messageId, delta: e.delta }, t.owner);
        return;
      }
      case 'text-end':
        s.endText(out, e.blockId, e.providerMetadata);
        return;
      case 'citation':
        s.custom(out, e, 'citation');
        return;
      case 'reasoning-start':
        if (s.sendReasoning && !s.reasoning.has(e.blockId)) s.startReasoning(out, e);
        return;
      case 'reasoning-delta': {
        if (!s.sendReasoning) return;
        if (!s.reasoning.has(e.blockId)) s.startReasoning(out, { blockId: e.blockId, variant: 'thinking', subagentId: owner });
        const r = s.reasoning.get(e.blockId) as { messageId: string; owner: Owner };
        s.push(out, { type: 'REASONING_MESSAGE_CONTENT', messageId: r.messageId, delta: e.delta }, r.owner);
        return;
      }
      case 'reasoning-end':
        s.endReasoning(out, e.blockId, e.providerMetadata);
        return;
      case 'tool-input-start':
        if (!s.tools.has(e.toolCallId)) s.startTool(out, e);
        return;
      case 'tool-input-delta': {
        const t = s.tools.get(e.toolCallId);
        if (!t) return; // no name to open a call with; the tool-input-end sends the whole input
        t.streamed = true;
        t.args.push(e.delta);
        s.push(out, { type: 'TOOL_CALL_ARGS', toolCallId: e.toolCallId, delta: e.delta }, t.owner);
        return;
      }
      case 'tool-input-end':
        if (!s.tools.has(e.toolCallId)) s.startTool(out, e);
        s.endTool(out, e, e.toolCallId);
        return;
      case 'tool-output':
      case 'tool-error': {
        const unseen = !s.toolParents.has(e.toolCallId) && !s.tools.has(e.toolCallId);
        // An answer to a call of an earlier run (a continuation): the client has the call.
        if (unseen && !s.content) {
          s.earlier.add(e.toolCallId);
          s.continues();
        }
        // A frontend tool's output the client sent (the gateway marks it): the client has its tool message.
        if (unseen && s.earlier.has(e.toolCallId) && e.providerMetadata?.[s.ns]?.fromClient === true) return;
        if (unseen && !s.earlier.has(e.toolCallId)) {
          // A result for a call the stream never showed (a provider-run tool): open and close the call
          // first, as the AI SDK encoder does, so the client has a call to attach the result to.
          const call: EventOf<'tool-input-end'> = { ...e, type: 'tool-input-end', toolName: e.toolName ?? 'unknown', input: {} };
          s.startTool(out, call);
          s.endTool(out, call, e.toolCallId);
        }
        const count = (s.resultCount.get(e.toolCallId) ?? 0) + 1;
        s.resultCount.set(e.toolCallId, count);
        const messageId = s.unique(`${s.base}:${e.toolCallId}:result${count > 1 ? `:${count}` : ''}`);
        let content: string;
        let m: Record<string, unknown>;
        if (e.type === 'tool-output') {
          const json = typeof e.output !== 'string';
          content = json ? JSON.stringify(e.output) : (e.output as string);
          m = { toolName: e.toolName, json: json || undefined, preliminary: e.preliminary, providerExecuted: e.providerExecuted };
        } else {
          content = e.error;
          m = { error: true, toolName: e.toolName, output: e.output, providerExecuted: e.providerExecuted };
        }
        m.providerMetadata = e.providerMetadata;
        s.push(out, { type: 'TOOL_CALL_RESULT', messageId, toolCallId: e.toolCallId, content, role: 'tool' }, owner, m);
        // Text after a tool result is a new assistant message (assistant → tool → assistant).
        s.current.delete(owner);
        return;
      }
      case 'tool-approval-request':
      case 'interrupt':
        // Asked here, carried by RUN_FINISHED's outcome when the run ends waiting for it.
        s.ask(e);
        return;
      case 'tool-approval-response':
        if (e.toolCallId !== undefined && !s.toolParents.has(e.toolCallId) && !s.tools.has(e.toolCallId)) s.earlier.add(e.toolCallId);
        s.continues();
        return;
      case 'interrupt-response':
        s.continues();
        return;
      case 'client-tool-call':
        // The client sent the answers; a client tool call is RUN_FINISHED's pendingToolCallIds.
        return;
      case 'todos':
        s.todos(out, e);
        return;
      case 'state-snapshot':
        s.push(out, { type: 'STATE_SNAPSHOT', snapshot: e.state }, owner);
        s.stateSent = true;
        s.stateIsObject = typeof e.state === 'object' && e.state !== null && !Array.isArray(e.state);
        return;
      case 'state-delta':
        if (!validPatch(e.patch)) {
          s.custom(out, e, 'state-delta');
          return;
        }
        s.push(out, { type: 'STATE_DELTA', delta: e.patch }, owner);
        if (e.patch.some((op) => op.path === '')) s.stateIsObject = false;
        return;
      case 'subagent-start': {
        if (s.openSubagents.has(e.subagentId)) return;
        const ev: AgUiEvent = { type: 'SUBAGENT_STARTED', subagentRunId: e.subagentId, name: e.name };
        if (e.task !== undefined) ev.description = e.task;
        const parentKnown = e.parentSubagentId !== undefined && s.knownSubagents.has(e.parentSubagentId);
        if (parentKnown) ev.parentSubagentRunId = e.parentSubagentId;
        if (e.parentToolCallId !== undefined) {
          ev.parentToolCallId = e.parentToolCallId;
          const parentMessage = s.toolParents.get(e.parentToolCallId);
          if (parentMessage !== undefined) ev.parentMessageId = parentMessage;
        }
        s.openSubagents.add(e.subagentId);
        s.knownSubagents.add(e.subagentId);
        // Always carries metadata: it marks parentMessageId as ours (derived, not input).
        s.push(out, ev, undefined, { parentSubagentId: parentKnown ? undefined : e.parentSubagentId });
        return;
      }
      case 'subagent-finish': {
        if (!s.openSubagents.has(e.subagentId)) encode({ ...e, type: 'subagent-start', name: e.subagentId } as CanonicalEvent, out);
        s.openSubagents.delete(e.subagentId);
        if (e.error !== undefined)
          s.pushIf(out, { type: 'SUBAGENT_ERROR', subagentRunId: e.subagentId, message: e.error }, undefined, { result: e.result });
        else {
          const ev: AgUiEvent = { type: 'SUBAGENT_FINISHED', subagentRunId: e.subagentId };
          if (e.result !== undefined) ev.result = e.result;
          s.push(out, ev, undefined);
        }
        return;
      }
      case 'source':
        if (s.sendSources) s.custom(out, e, 'source');
        return;
      case 'file':
      case 'status':
        s.custom(out, e, e.type);
        return;
      case 'usage':
        if (e.scope === 'total') s.lastTotal = e.usage;
        s.custom(out, e, 'usage');
        return;
      case 'error':
        if (e.fatal && !s.fatal) s.fatal = e;
        s.custom(out, e, 'error');
        return;
      case 'custom':
        s.push(out, { type: 'CUSTOM', name: e.name, value: e.value }, owner);
        return;
      case 'raw':
        // Always with metadata: it tells the reader this RAW is a canonical raw event, not a producer's.
        s.push(out, { type: 'RAW', event: e.event, source: e.source }, owner, { reason: e.reason, where: e.where });
        return;
      case 'run-finish': {
        const usage = tokenUsage(e.usage ?? s.lastTotal, s.provider, s.model);
        const m = {
          finishReason: e.finishReason,
          rawFinishReason: e.rawFinishReason,
          usage: e.usage,
          pending: e.pending,
          providerMetadata: e.providerMetadata,
        };
        s.ended = true;
        if (s.fatal || e.finishReason === 'error') {
          // RUN_ERROR needs nothing closed (the verifier only checks RUN_FINISHED); blocks the
          // canonical stream closed before run-finish are already closed.
          s.snapshot(out);
          const ev: AgUiEvent = { type: 'RUN_ERROR', message: s.fatal?.message ?? e.rawFinishReason ?? 'The run failed.' };
          if (s.fatal?.code !== undefined) ev.code = s.fatal.code;
          if (usage) ev.usage = usage;
          s.push(out, ev, undefined, m);
          return;
        }
        s.closeAll(out);
        s.snapshot(out);
        const ev: AgUiEvent = {
          type: 'RUN_FINISHED',
          threadId: s.threadId,
          runId: s.runId,
          outcome: s.waitingOutcome(e.pending) ?? carriedOutcome(e.providerMetadata) ?? { type: 'success' },
        };
        const result = e.providerMetadata?.['ag-ui']?.result;
        if (result !== undefined && result !== null) ev.result = result;
        if (usage) ev.usage = usage;
        s.push(out, ev, undefined, m);
        return;
      }
      case 'run-abort':
        // AG-UI's own word for a run stopped by whoever ran it, without failing: outcome cancelled.
        s.ended = true;
        s.closeAll(out);
        s.snapshot(out);
        s.push(out, { type: 'RUN_FINISHED', threadId: s.threadId, runId: s.runId, outcome: { type: 'cancelled' } }, undefined, {
          abort: true,
          reason: e.reason,
        });
        return;
    }
  }

  return encode;
}
