/**
 * The AG-UI run lifecycle: RUN_STARTED, RUN_FINISHED and RUN_ERROR. A stream with several runs is
 * one canonical run; the terminal event is held until the input ends (a finished run followed by
 * another becomes a custom event).
 */

import { isObject } from '../../inputs/decoder.ts';
import { shown } from '../../inputs/kit/index.ts';
import type { EventInit, EventOf, FinishReason, Json, Location, ProviderMetadata, Usage } from '../../model/events.ts';
import { type Ev, FINISH_REASONS, obj, type ReadState, str, usageOf } from './read-state.ts';
import type { Spans } from './spans.ts';

/** The run lifecycle of one reader. */
export type RunLifecycle = ReturnType<typeof createRunLifecycle>;

/** Creates the run lifecycle over a reader's state. */
export function createRunLifecycle(s: ReadState, { openThings, closeAll }: Spans) {
  const { runCalls, answered, em, defined, emit, error, fieldError, sequenceError, extras, rawExtras, rest } = s;

  /** A finished AG-UI run followed by another: its finish becomes a custom event. */
  function flushHeld(): void {
    if (!s.held) return;
    const { type, ...value } = defined(s.held) as Record<string, unknown>;
    emit({ type: 'custom', name: type === 'run-abort' ? 'ag-ui.run-cancelled' : 'ag-ui.run-finished', value: value as Json });
    s.held = undefined;
  }

  function pending(ev: Ev): boolean {
    const outcome = ev.outcome;
    if (isObject(outcome) && Array.isArray(outcome.pendingToolCallIds) && outcome.pendingToolCallIds.length > 0) return true;
    for (const id of runCalls) if (!answered.has(id)) return true;
    return false;
  }

  /**
   * RUN_FINISHED's outcome back to what the run waits for: an interrupt with reason `tool_approval` and
   * a toolCallId → tool-approval-request (our encoder's shape), any other → interrupt; the success
   * outcome's pendingToolCallIds → client-tool-call. Returns how many it read.
   */
  function waits(outcome: Record<string, unknown> | undefined): number {
    let n = 0;
    if (outcome?.type === 'interrupt' && Array.isArray(outcome.interrupts)) {
      for (const i of outcome.interrupts) {
        if (!isObject(i) || !str(i.id) || !str(i.reason)) continue;
        n++;
        const meta = obj(i.metadata);
        const toolCallId = str(i.toolCallId);
        if (i.reason === 'tool_approval' && toolCallId !== undefined) {
          const toolName = str(meta?.toolName) ?? s.toolNames.get(toolCallId);
          emit(defined({ type: 'tool-approval-request', approvalId: i.id, toolCallId, toolName, reason: str(i.message) }) as EventInit);
          continue;
        }
        emit(
          defined({
            type: 'interrupt',
            interruptId: i.id,
            reason: i.reason,
            message: str(i.message),
            toolCallId,
            value: meta?.value,
            responseSchema: obj(i.responseSchema),
            expiresAt: str(i.expiresAt),
          }) as EventInit,
        );
      }
    }
    if (outcome?.type === 'success' && Array.isArray(outcome.pendingToolCallIds)) {
      for (const id of outcome.pendingToolCallIds) {
        if (!str(id)) continue;
        n++;
        emit(defined({ type: 'client-tool-call', toolCallId: id, toolName: s.toolNames.get(id) }) as EventInit);
      }
    }
    return n;
  }

  /**
   * RunAgentInput.resume (on RUN_STARTED's input): the answers this run starts with — an entry whose
   * payload has a boolean `approved` answers an approval (cancelled: a denial), any other an interrupt.
   */
  function resumed(input: unknown): void {
    if (!isObject(input) || !Array.isArray(input.resume)) return;
    for (const r of input.resume) {
      if (!isObject(r) || !str(r.interruptId) || (r.status !== 'resolved' && r.status !== 'cancelled')) continue;
      const payload = obj(r.payload);
      if (payload && typeof payload.approved === 'boolean') {
        const e = {
          type: 'tool-approval-response',
          approvalId: r.interruptId,
          approved: r.status === 'resolved' && payload.approved,
          reason: str(payload.reason),
        };
        emit(defined(e) as EventInit);
      } else emit(defined({ type: 'interrupt-response', interruptId: r.interruptId, status: r.status, payload: r.payload }) as EventInit);
    }
  }

  function runStarted(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    if (s.run === 'open') {
      sequenceError(
        'unexpected_event',
        `RUN_STARTED while run "${shown(ev.runId)}" … the previous run is still open (no RUN_FINISHED or RUN_ERROR)`,
        where,
        'type',
        'RUN_FINISHED or RUN_ERROR first',
      );
      closeAll();
    }
    if (!s.out?.started) {
      const e = em(str(ev.runId));
      let init: Record<string, unknown>;
      if (m) {
        init = {
          messageId: str(m.messageId),
          chatId: str(m.chatId),
          parentRunId: str(ev.parentRunId),
          agent: str(m.agent),
          provider: str(m.provider),
          model: str(m.model),
          metadata: obj(m.metadata),
          providerMetadata: obj(m.providerMetadata),
        };
      } else {
        const x = extras(ev, ['parentRunId']) ?? {};
        init = { chatId: str(ev.threadId), parentRunId: str(ev.parentRunId), providerMetadata: { 'ag-ui': x } };
      }
      e.start(defined(init));
      resumed(ev.input);
    } else {
      flushHeld();
      emit({ type: 'custom', name: 'ag-ui.run-started', value: rest(ev) });
    }
    s.run = 'open';
    s.reportedOutside = false;
    runCalls.clear();
    answered.clear();
  }

  function runFinished(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    if (s.run !== 'open')
      sequenceError(
        'unexpected_event',
        s.run === 'none' ? 'RUN_FINISHED without a RUN_STARTED' : 'RUN_FINISHED after the run already finished',
        where,
        'type',
        'RUN_STARTED first',
      );
    const open = openThings();
    if (open)
      sequenceError(
        'unexpected_event',
        `RUN_FINISHED while ${open} ${open.includes(',') ? 'are' : 'is'} still open (closed here)`,
        where,
        'type',
        'every message, tool call, step and subagent closed before RUN_FINISHED',
      );
    closeAll();
    flushHeld();
    const read = m?.abort ? 0 : waits(isObject(ev.outcome) ? ev.outcome : undefined);
    // Our encoder's outcome is an interrupt when approvals wait too: the client calls are in its pending.
    const waiting = obj(m?.pending);
    if (isObject(ev.outcome) && ev.outcome.type === 'interrupt' && Array.isArray(waiting?.toolCallIds))
      waits({ type: 'success', pendingToolCallIds: waiting.toolCallIds });
    if (m) {
      s.held = m.abort
        ? { type: 'run-abort', reason: str(m.reason) }
        : {
            type: 'run-finish',
            finishReason: FINISH_REASONS.has(m.finishReason as string) ? (m.finishReason as FinishReason) : 'stop',
            rawFinishReason: str(m.rawFinishReason),
            usage: obj(m.usage) as Usage | undefined,
            pending: obj(m.pending) as EventOf<'run-finish'>['pending'],
            providerMetadata: obj(m.providerMetadata) as ProviderMetadata | undefined,
          };
    } else {
      const outcome = isObject(ev.outcome) ? ev.outcome : undefined;
      const x = extras(ev, ['usage']);
      if (outcome?.type === 'cancelled') {
        s.held = { type: 'run-abort' };
        rawExtras(ev, x, where, undefined);
      } else {
        // What the outcome waits for was read as events: the run-finish names it (the emitter's pending).
        const finishReason: FinishReason =
          outcome?.type === 'interrupt' ? (read > 0 ? 'stop' : 'interrupted') : pending(ev) ? 'tool-calls' : 'stop';
        s.held = {
          type: 'run-finish',
          finishReason,
          rawFinishReason: str(outcome?.type),
          usage: usageOf(ev.usage),
          providerMetadata: x ? { 'ag-ui': x } : undefined,
        };
        if (ev.usage !== undefined && !Array.isArray(ev.usage))
          fieldError('RUN_FINISHED', 'usage', 'an array of TokenUsage', ev.usage, where);
      }
    }
    s.heldTs = s.ts;
    s.run = 'finished';
    s.reportedOutside = false;
  }

  function runError(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    flushHeld();
    if (m) {
      s.held = {
        type: 'run-finish',
        finishReason: FINISH_REASONS.has(m.finishReason as string) ? (m.finishReason as FinishReason) : 'error',
        rawFinishReason: str(m.rawFinishReason),
        usage: obj(m.usage) as Usage | undefined,
        providerMetadata: obj(m.providerMetadata) as ProviderMetadata | undefined,
      };
    } else {
      const x = extras(ev, ['message', 'code', 'usage']);
      error(str(ev.code) ?? 'run_error', str(ev.message) ?? 'The run failed (RUN_ERROR).', where, true, x ? { 'ag-ui': x } : undefined);
      s.held = { type: 'run-finish', finishReason: 'error', usage: usageOf(ev.usage) };
    }
    s.fatal = true;
    closeAll();
    s.heldTs = s.ts;
    s.run = 'finished';
    s.reportedOutside = false;
  }

  return { runStarted, runFinished, runError, flushHeld };
}
