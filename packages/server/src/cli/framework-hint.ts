/**
 * The hint `convert` prints when `--from` names a framework under which nothing of the input is
 * understood (every event became `raw` or an error): the framework auto-detection finds instead.
 */
import { type CanonicalEvent, createDecoder, type Decoder, detectFramework, type Framework, framed } from '@switchboard/core';

/** How much of the input the hint looks at: the start tells the framework. */
export const HINT_HEAD_BYTES = 64 * 1024;

/** The run's frame, which every decoder emits whatever it understood. */
const FRAME = new Set<CanonicalEvent['type']>(['run-start', 'run-finish', 'run-abort', 'step-start', 'step-finish']);

/**
 * Decodes `head` (the input's first bytes) under `from`; when no event is content (only the run's
 * frame, `raw` and errors), says so and names what auto-detection recognises. Undefined otherwise.
 */
export function frameworkHint(head: Uint8Array, from: Framework): string | undefined {
  const inner = createDecoder(from, { runId: 'hint', now: () => 0 });
  let detected: Framework | undefined;
  let understood = false;
  let misread = 0;
  const tally = (events: CanonicalEvent[]): CanonicalEvent[] => {
    for (const e of events) {
      if (e.type === 'raw' || e.type === 'error') misread++;
      else if (!FRAME.has(e.type)) understood = true;
    }
    return events;
  };
  const probe: Decoder = {
    push(value, where) {
      detected ??= detectFramework(value);
      return tally(inner.push(value, where));
    },
    fault: (code, message, where) => tally(inner.fault(code, message, where)),
    end: () => tally(inner.end()),
  };
  const m = framed(probe);
  m.push(head);
  m.end();
  if (understood || misread === 0) return undefined;
  const guess =
    detected && detected !== from
      ? `auto-detection recognises it as "${detected}" (--from ${detected}, or leave --from out)`
      : 'auto-detection recognises no framework in it';
  return `nothing of the input was understood as "${from}" (every event became raw or an error); ${guess}`;
}
