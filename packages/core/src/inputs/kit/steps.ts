/**
 * Steps for formats that have no step markers of their own (the agent lines). The AI SDK's server
 * makes one step per model call, so tool results end a step, and its step predicates rely on it
 * (`lastAssistantMessageIsCompleteWithToolCalls` looks at the last step only: an answer in the same
 * step as a finished tool call would make an app that uses it for its own tools re-send for ever).
 * Here a step opens with the first content, and content that follows tool results opens the next.
 */
import { Emitter } from '../../model/emitter.ts';
import type { EventInit, FinishReason, Usage } from '../../model/events.ts';
import { addUsage } from '../../model/usage.ts';

/** Events that begin content (a step opens before them). */
const CONTENT: ReadonlySet<EventInit['type']> = new Set([
  'text-start',
  'reasoning-start',
  'tool-input-start',
  'tool-input-end',
  'source',
  'file',
]);

/** An emitter that wraps the run's content in `step-start` / `step-finish` (ids `step-<n>`, kind `model`). */
export class SteppedEmitter extends Emitter {
  /** Steps opened so far. */
  private steps = 0;
  /** Whether a step is open. */
  private open = false;
  /** Whether tool results came after the open step's last content. */
  private afterResults = false;

  override emit(e: EventInit): void {
    if (this.finished) return;
    if (CONTENT.has(e.type)) {
      if (this.afterResults) this.close();
      if (!this.open) {
        this.open = true;
        super.emit({ type: 'step-start', stepId: `step-${++this.steps}`, kind: 'model' });
      }
    } else if ((e.type === 'tool-output' && !e.preliminary) || e.type === 'tool-error') {
      this.afterResults = this.open;
    } else if (e.type === 'run-finish' || e.type === 'run-abort') {
      this.close();
    }
    super.emit(e);
  }

  private close(): void {
    this.afterResults = false;
    if (!this.open) return;
    this.open = false;
    super.emit({ type: 'step-finish', stepId: `step-${this.steps}` });
  }
}

type RunFinish = Extract<EventInit, { type: 'run-finish' }>;

/** What a step's finish says (a step-finish event, or a model call's result). */
interface StepEnd {
  finishReason?: FinishReason | undefined;
  rawFinishReason?: string | undefined;
  usage?: Usage | undefined;
}

/** What a run says of its own end (a blocked prompt, an interrupt), over what its steps said. */
interface RunEnd {
  finishReason?: FinishReason | undefined;
  rawFinishReason?: string | undefined;
}

/** What a run's finished steps add up to, for its run-finish: the summed usage and the last step's finish reason. */
export class StepTotals {
  private usage: Usage | undefined;
  private finishReason: FinishReason | undefined;
  private rawFinishReason: string | undefined;

  /** Counts a finished step. */
  add(step: StepEnd): void {
    if (step.usage) this.addUsage(step.usage);
    this.finishReason = step.finishReason;
    this.rawFinishReason = step.rawFinishReason;
  }

  /** Counts usage reported outside a step's finish (a Live session's increments). */
  addUsage(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /**
   * The run-finish: a failed run's is `error` (no raw reason); else the last step's reason, or
   * `fallback` without steps. What the run says of its own end (`run`) comes first.
   */
  runFinish(failed: boolean, fallback: FinishReason = 'other', run: RunEnd = {}): RunFinish {
    const e: RunFinish = { type: 'run-finish', finishReason: run.finishReason ?? (failed ? 'error' : (this.finishReason ?? fallback)) };
    const raw = run.rawFinishReason ?? (failed ? undefined : this.rawFinishReason);
    if (raw !== undefined) e.rawFinishReason = raw;
    if (this.usage) e.usage = this.usage;
    return e;
  }
}
