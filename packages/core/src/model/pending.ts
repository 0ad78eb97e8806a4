/**
 * "What is the run waiting for": tool approvals, client tool calls and interrupts asked for in a run
 * and not answered in it, followed event by event. One place for the emitter (a run-finish names what
 * is left), the validator and the encoders that need to know a run ended waiting.
 *
 * An approval is answered by its tool-approval-response, or by an output of its tool call (the agent
 * ran it after all); a client tool call by its tool-output / tool-error; an interrupt by its
 * interrupt-response. An answer that comes before its question (hostile or reordered input) still
 * answers it: the question does not wait.
 */
import type { CanonicalEvent, EventInit, EventOf } from './events.ts';

/** `run-finish.pending`. */
export type Pending = NonNullable<EventOf<'run-finish'>['pending']>;

/** What a run asked for and has not had answered, in the order it asked. */
export class Waiting {
  /** approvalId → toolCallId. */
  private readonly approvals = new Map<string, string>();
  private readonly clientCalls = new Set<string>();
  private readonly interrupts = new Set<string>();
  /** Ids answered so far (approvals, tool calls, interrupts): a question asked after its answer does not wait. */
  private readonly answered = { approvals: new Set<string>(), calls: new Set<string>(), interrupts: new Set<string>() };

  /** True while nothing is waiting. */
  get empty(): boolean {
    return this.approvals.size === 0 && this.clientCalls.size === 0 && this.interrupts.size === 0;
  }

  /** Follows one event. */
  track(e: CanonicalEvent | EventInit): void {
    switch (e.type) {
      case 'tool-approval-request':
        if (!this.answered.approvals.has(e.approvalId) && !this.answered.calls.has(e.toolCallId))
          this.approvals.set(e.approvalId, e.toolCallId);
        return;
      case 'tool-approval-response':
        this.approvals.delete(e.approvalId);
        this.answered.approvals.add(e.approvalId);
        return;
      case 'client-tool-call':
        if (!this.answered.calls.has(e.toolCallId)) this.clientCalls.add(e.toolCallId);
        return;
      case 'tool-output':
      case 'tool-error':
        if (e.type === 'tool-output' && e.preliminary) return;
        this.clientCalls.delete(e.toolCallId);
        this.answered.calls.add(e.toolCallId);
        for (const [approvalId, toolCallId] of this.approvals) if (toolCallId === e.toolCallId) this.approvals.delete(approvalId);
        return;
      case 'interrupt':
        if (!this.answered.interrupts.has(e.interruptId)) this.interrupts.add(e.interruptId);
        return;
      case 'interrupt-response':
        this.interrupts.delete(e.interruptId);
        this.answered.interrupts.add(e.interruptId);
        return;
      default:
        return;
    }
  }

  /** `run-finish.pending` for what is waiting, or undefined when nothing is. */
  get pending(): Pending | undefined {
    if (this.empty) return undefined;
    const p: Pending = {};
    if (this.approvals.size) p.approvalIds = [...this.approvals.keys()];
    if (this.clientCalls.size) p.toolCallIds = [...this.clientCalls];
    if (this.interrupts.size) p.interruptIds = [...this.interrupts];
    return p;
  }

  /** The finish reason of a run that ends waiting: `tool-calls` for approvals and client tools, `other` for interrupts only. */
  get finishReason(): 'tool-calls' | 'other' | undefined {
    if (this.empty) return undefined;
    return this.approvals.size || this.clientCalls.size ? 'tool-calls' : 'other';
  }
}

/** The finish reason of a run that ended waiting for `pending`. */
export function pendingFinishReason(pending: Pending): 'tool-calls' | 'other' {
  return pending.approvalIds?.length || pending.toolCallIds?.length ? 'tool-calls' : 'other';
}
