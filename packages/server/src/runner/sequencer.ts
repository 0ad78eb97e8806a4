/**
 * The last stage of every run the runner serves: it owns the run's `seq` numbers, so it can add
 * events of its own (a fatal error when the agent crashes, `run-abort` when the client goes away)
 * to whatever the decoder produced, and it knows which blocks are still open so a run that is cut
 * off still ends well formed (every open block closed, then the terminal event).
 *
 * Events from the decoder pass through with a fresh `seq` (the same numbers the decoder gave them
 * as long as nothing was added). The decoder's terminal event (`run-finish` / `run-abort`) is held
 * back until the runner knows how the agent ended: an agent that prints `done` and then exits 1
 * did not succeed.
 */
import { CANONICAL_VERSION, type CanonicalEvent, type EventInit, type Framework, OpenSpans } from '@switchboard/core';

/** What the sequencer stamps on events it makes itself. */
export interface SequencerInit {
  runId: string;
  chatId?: string;
  messageId?: string;
  /** Agent name, recorded on a run-start the sequencer has to make. */
  agent?: string;
  /** Framework of the decoder, recorded as `provider` on such a run-start. */
  provider?: Framework | 'auto' | string;
  /** Clock for `ts`. Default `Date.now`. */
  now?: () => number;
  /** Events emitted right after run-start (RunRequest.prelude). */
  prelude?: readonly EventInit[];
}

/** Renumbers a run's events, holds back its terminal event and ends cut-off runs cleanly. */
export class RunSequencer {
  private readonly init: SequencerInit;
  private readonly now: () => number;
  private seq = 0;
  /** What the run has open (core's "close what is open"). */
  private readonly open = new OpenSpans();
  /** True once run-start went out. */
  started = false;
  /** True once a terminal event went out: nothing more is emitted. */
  finished = false;
  /** The source's terminal event, waiting for the agent's exit status. */
  held: CanonicalEvent | undefined;

  constructor(init: SequencerInit) {
    this.init = init;
    this.now = init.now ?? Date.now;
  }

  /** Number of events emitted so far. */
  get count(): number {
    return this.seq;
  }

  /**
   * Passes one event of the source through (restamped). A terminal event is held back (see
   * `release`); anything after it is dropped.
   *
   * @param closing The source is being wound up by the runner: its fatal errors and its terminal
   *   event are dropped, because the runner says why the run ended.
   */
  pass(e: CanonicalEvent, out: CanonicalEvent[], closing = false): void {
    if (this.finished || this.held) return;
    if (e.type === 'run-finish' || e.type === 'run-abort') {
      if (!closing) this.held = e;
      return;
    }
    if (closing && e.type === 'error' && e.fatal) return;
    if (e.type === 'run-start') {
      if (this.started) return;
      this.started = true;
      this.open.track(e);
      if (this.continues) e.continues = true;
      this.stamp(e, out);
      this.emitPrelude(out);
      return;
    }
    if (!this.started) this.startRun(out);
    this.open.track(e);
    this.stamp(e, out);
  }

  /** A run with a prelude continues the message it answers for: its run-start says so. */
  private get continues(): boolean {
    return (this.init.prelude?.length ?? 0) > 0;
  }

  /** The prelude (the gateway's answers of a continuation run), right after run-start. */
  private emitPrelude(out: CanonicalEvent[]): void {
    for (const p of this.init.prelude ?? []) this.stampNew({ ...p } as EventInit, out);
  }

  /** Emits the held terminal event, if any. */
  release(out: CanonicalEvent[]): boolean {
    const e = this.held;
    if (!e) return false;
    this.held = undefined;
    this.finished = true;
    this.stamp(e, out);
    return true;
  }

  /** Forgets the held terminal event (the runner ends the run itself). */
  dropHeld(): CanonicalEvent | undefined {
    const e = this.held;
    this.held = undefined;
    return e;
  }

  /** Ends the run as failed: open blocks closed, a fatal `error`, then `run-finish` with `error`. */
  fail(code: string, message: string, out: CanonicalEvent[]): void {
    if (this.finished) return;
    this.held = undefined;
    this.closeOpen(out);
    this.emit({ type: 'error', code, message, fatal: true }, out);
    this.emit({ type: 'run-finish', finishReason: 'error' }, out);
    this.finished = true;
  }

  /** Ends the run as aborted: open blocks closed, then `run-abort`. */
  abort(reason: string, out: CanonicalEvent[]): void {
    if (this.finished) return;
    this.held = undefined;
    this.closeOpen(out);
    this.emit({ type: 'run-abort', reason }, out);
    this.finished = true;
  }

  /** Ends a run whose source stopped without a terminal event and without a reason of its own. */
  finishTruncated(out: CanonicalEvent[]): void {
    this.fail('truncated', 'the agent stopped without finishing its run', out);
  }

  private startRun(out: CanonicalEvent[]): void {
    this.started = true;
    const i = this.init;
    const e: EventInit = { type: 'run-start', version: CANONICAL_VERSION, messageId: i.messageId ?? i.runId };
    if (this.continues) e.continues = true;
    if (i.chatId !== undefined) e.chatId = i.chatId;
    if (i.agent !== undefined) e.agent = i.agent;
    if (i.provider !== undefined) e.provider = i.provider;
    this.stampNew(e, out);
    this.emitPrelude(out);
  }

  private emit(e: EventInit, out: CanonicalEvent[]): void {
    if (!this.started) this.startRun(out);
    this.stampNew(e, out);
  }

  private stampNew(e: EventInit, out: CanonicalEvent[]): void {
    const ev = e as CanonicalEvent;
    ev.runId = this.init.runId;
    ev.ts = this.now();
    this.stamp(ev, out);
  }

  private stamp(e: CanonicalEvent, out: CanonicalEvent[]): void {
    e.seq = this.seq++;
    out.push(e);
  }

  /** Closes every block and tool input that is still open, so a cut-off run stays well formed. */
  private closeOpen(out: CanonicalEvent[]): void {
    for (const e of this.open.close({ inputError: 'the run ended before the input of this tool call was complete' })) this.emit(e, out);
  }
}
