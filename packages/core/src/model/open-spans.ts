/**
 * "Close what is open": what a run has open (text and reasoning blocks, tool inputs, steps,
 * subagents), followed event by event, and the events that close all of it so a run cut off at any
 * point still ends well formed. One place for the runner's sequencer (a crashed or aborted agent),
 * the store's projector (an interrupted run) and `validate` (deltas only inside open blocks).
 *
 * The closing events come without envelope (`runId`, `seq`, `ts`): the caller stamps them, and puts
 * its own error and terminal event around them.
 */
import type { CanonicalEvent, EventInit } from './events.ts';

type Owned = { subagentId?: string };

/** How {@link OpenSpans.close} closes. */
export interface CloseOptions {
  /** `inputError` of a tool input that never completed. */
  inputError: string;
  /**
   * The `input` of such a tool call: `text`, the input text streamed so far (a string); `empty`, an
   * empty object. Default `empty`.
   */
  input?: 'text' | 'empty';
  /** Also finish open steps (finishReason `error`) and subagents (with this `error`). Default: blocks and tool inputs only. */
  steps?: { subagentError: string };
}

/** What a run has open, in the order it opened. */
export class OpenSpans {
  private readonly blocks = new Map<string, Owned & { kind: 'text' | 'reasoning' }>();
  private readonly tools = new Map<string, Owned & { toolName: string; providerExecuted?: true; input: string[] }>();
  private readonly steps = new Map<string, Owned>();
  private readonly subagents = new Set<string>();

  /** True while the block is open. */
  hasBlock(blockId: string): boolean {
    return this.blocks.has(blockId);
  }

  /** True while nothing is open. */
  get empty(): boolean {
    return this.blocks.size === 0 && this.tools.size === 0 && this.steps.size === 0 && this.subagents.size === 0;
  }

  /** Follows one event. A delta of a block that is not open opens it (so a tolerant reader can close it). */
  track(e: CanonicalEvent): void {
    const owner: Owned = e.subagentId !== undefined ? { subagentId: e.subagentId } : {};
    switch (e.type) {
      case 'text-start':
      case 'text-delta':
        if (!this.blocks.has(e.blockId)) this.blocks.set(e.blockId, { kind: 'text', ...owner });
        return;
      case 'reasoning-start':
      case 'reasoning-delta':
        if (!this.blocks.has(e.blockId)) this.blocks.set(e.blockId, { kind: 'reasoning', ...owner });
        return;
      case 'text-end':
      case 'reasoning-end':
        this.blocks.delete(e.blockId);
        return;
      case 'tool-input-start': {
        const t: Owned & { toolName: string; providerExecuted?: true; input: string[] } = { toolName: e.toolName, input: [], ...owner };
        if (e.providerExecuted) t.providerExecuted = true;
        this.tools.set(e.toolCallId, t);
        return;
      }
      case 'tool-input-delta':
        this.tools.get(e.toolCallId)?.input.push(e.delta);
        return;
      case 'tool-input-end':
        this.tools.delete(e.toolCallId);
        return;
      case 'step-start':
        this.steps.set(e.stepId, owner);
        return;
      case 'step-finish':
        this.steps.delete(e.stepId);
        return;
      case 'subagent-start':
        this.subagents.add(e.subagentId);
        return;
      case 'subagent-finish':
        this.subagents.delete(e.subagentId);
        return;
      default:
        return;
    }
  }

  /**
   * The events that close everything still open (blocks, then tool inputs, then with `steps` the
   * steps and subagents), each in the order it opened; forgets them.
   */
  close(options: CloseOptions): EventInit[] {
    const out: EventInit[] = [];
    const own = (e: EventInit, o: Owned): EventInit => {
      if (o.subagentId !== undefined) e.subagentId = o.subagentId;
      return e;
    };
    for (const [blockId, b] of this.blocks) out.push(own({ type: b.kind === 'text' ? 'text-end' : 'reasoning-end', blockId }, b));
    this.blocks.clear();
    for (const [toolCallId, t] of this.tools) {
      const input = options.input === 'text' ? t.input.join('') : {};
      const e: EventInit = { type: 'tool-input-end', toolCallId, toolName: t.toolName, input, inputError: options.inputError };
      if (t.providerExecuted) e.providerExecuted = true;
      out.push(own(e, t));
    }
    this.tools.clear();
    if (options.steps) {
      for (const [stepId, s] of this.steps) out.push(own({ type: 'step-finish', stepId, finishReason: 'error' }, s));
      this.steps.clear();
      for (const subagentId of this.subagents) out.push({ type: 'subagent-finish', subagentId, error: options.steps.subagentError });
      this.subagents.clear();
    }
    return out;
  }
}
