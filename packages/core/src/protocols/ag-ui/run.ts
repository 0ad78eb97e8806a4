/**
 * The AG-UI run lifecycle: RUN_STARTED, RUN_FINISHED and RUN_ERROR. A stream with several runs is
 * one canonical run; the terminal event is held until the input ends (a finished run followed by
 * another becomes a custom event).
 */

import { isObject } from '../../inputs/decoder.ts';
import type { FinishReason, Json, Location, ProviderMetadata, Usage } from '../../model/events.ts';
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

  function runStarted(ev: Ev, m: Record<string, unknown> | undefined, where: Location | undefined): void {
    if (s.run === 'open') {
      sequenceError(
        'unexpected_event',
        `RUN_STARTED while run "${String(ev.runId)}" … the previous run is still open (no RUN_FINISHED or RUN_ERROR)`,
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
    if (m) {
      s.held = m.abort
        ? { type: 'run-abort', reason: str(m.reason) }
        : {
            type: 'run-finish',
            finishReason: FINISH_REASONS.has(m.finishReason as string) ? (m.finishReason as FinishReason) : 'stop',
            rawFinishReason: str(m.rawFinishReason),
            usage: obj(m.usage) as Usage | undefined,
            providerMetadata: obj(m.providerMetadata) as ProviderMetadata | undefined,
          };
    } else {
      const outcome = isObject(ev.outcome) ? ev.outcome : undefined;
      const x = extras(ev, ['usage']);
      if (outcome?.type === 'cancelled') {
        s.held = { type: 'run-abort' };
        rawExtras(ev, x, where, undefined);
      } else {
        const finishReason: FinishReason = outcome?.type === 'interrupt' ? 'interrupted' : pending(ev) ? 'tool-calls' : 'stop';
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
