/**
 * The hint `convert` prints when `--from` names a framework under which nothing of the input is
 * understood (every input value became `raw` or an error): the framework auto-detection finds instead.
 */
import { createDecoder, type Decoder, detectFramework, type Framework, framed } from '@switchboard/core';

/** How much of the input the hint looks at: the start tells the framework. */
export const HINT_HEAD_BYTES = 64 * 1024;

/** The run's frame, which a decoder may emit whatever it understood. */
const FRAME = new Set<string>(['run-start', 'run-finish', 'run-abort', 'step-start', 'step-finish']);

/**
 * Decodes `head` (the input's first bytes) under `from`. Each input value is misread when it gave a
 * `raw` event or an error, understood when it gave anything else beyond the run's frame; when some
 * were misread and none understood, says so and names what auto-detection recognises. Undefined
 * otherwise (lines that do not even parse are the input's fault, not the framework's).
 */
export function frameworkHint(head: Uint8Array, from: Framework): string | undefined {
  const inner = createDecoder(from, { runId: 'hint', now: () => 0 });
  let detected: Framework | undefined;
  let misread = 0;
  let understood = 0;
  const probe: Decoder = {
    push(value, where) {
      detected ??= detectFramework(value);
      const events = inner.push(value, where);
      if (events.some((e) => e.type === 'raw' || e.type === 'error')) misread++;
      else if (events.some((e) => !FRAME.has(e.type))) understood++;
      return events;
    },
    fault: (code, message, where) => inner.fault(code, message, where),
    end: () => inner.end(),
  };
  const m = framed(probe);
  m.push(head);
  m.end();
  if (misread === 0 || understood > 0) return undefined;
  const guess =
    detected && detected !== from
      ? `auto-detection recognises it as "${detected}" (--from ${detected}, or leave --from out)`
      : 'auto-detection recognises no framework in it';
  return `nothing of the input was understood as "${from}" (every event of it became raw or an error); ${guess}`;
}
