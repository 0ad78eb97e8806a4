import type { ZodError } from 'zod';
import type { CanonicalEvent } from './events.ts';
import { inspect, MAX_DEPTH } from './hostile.ts';
import { OpenSpans } from './open-spans.ts';
import { canonicalEventSchema } from './schema.ts';

/** One problem found by {@link validate}: which event, which field, what was expected. */
export interface ValidationIssue {
  /** 0-based index of the event in the input. */
  index: number;
  /** Dotted path of the field inside that event (`''` for the event itself). */
  path: string;
  /** What was wrong and what was expected, in words. */
  message: string;
}

export interface ValidationResult {
  ok: boolean;
  issues: ValidationIssue[];
}

/** Options of {@link validate}. */
export interface ValidateOptions {
  /**
   * The events are a whole stream (a file, a finished response): it must end with run-finish or
   * run-abort. Default false (a prefix of a live stream is valid).
   */
  complete?: boolean;
}

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function zodIssues(index: number, error: ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({ index, path: pathOf(issue.path), message: issue.message }));
}

/**
 * Checks a sequence of canonical events: each against the schema, and the sequence as a whole
 * (one run id, `seq` strictly increasing, run-start first, deltas only inside open blocks, nothing
 * after run-finish / run-abort; with `complete`, also that the stream ended). Never throws: an event
 * nested deeper than the depth limit, or one the schema cannot even walk, is an issue.
 *
 * @example
 * const { ok, issues } = validate(events);
 * for (const i of issues) console.error(`event ${i.index} ${i.path}: ${i.message}`);
 */
export function validate(events: Iterable<unknown>, options: ValidateOptions = {}): ValidationResult {
  const issues: ValidationIssue[] = [];
  const open = new OpenSpans();
  const tools = new Set<string>();
  let runId: string | undefined;
  let lastSeq = -1;
  let ended = false;
  let index = -1;
  for (const input of events) {
    index++;
    if (inspect(input, MAX_DEPTH + 8).tooDeep) {
      issues.push({ index, path: '', message: `expected at most ${MAX_DEPTH} levels of nesting` });
      continue;
    }
    let parsed: ReturnType<typeof canonicalEventSchema.safeParse>;
    try {
      parsed = canonicalEventSchema.safeParse(input);
    } catch (err) {
      issues.push({ index, path: '', message: `could not be checked: ${(err as Error)?.message ?? String(err)}` });
      continue;
    }
    if (!parsed.success) {
      issues.push(...zodIssues(index, parsed.error));
      continue;
    }
    const e = parsed.data;
    const issue = (path: string, message: string) => issues.push({ index, path, message });
    if (index === 0 && e.type !== 'run-start') issue('type', `expected the first event to be "run-start", got "${e.type}"`);
    if (runId === undefined) runId = e.runId;
    else if (e.runId !== runId) issue('runId', `expected runId "${runId}" (one run per stream), got "${e.runId}"`);
    if (e.seq <= lastSeq) issue('seq', `expected seq greater than ${lastSeq}, got ${e.seq}`);
    lastSeq = e.seq;
    if (ended) issue('type', `expected nothing after the run ended, got "${e.type}"`);
    switch (e.type) {
      case 'run-finish':
      case 'run-abort':
        ended = true;
        break;
      case 'text-start':
      case 'reasoning-start':
        if (open.hasBlock(e.blockId)) issue('blockId', `block "${e.blockId}" is already open`);
        break;
      case 'text-delta':
      case 'reasoning-delta':
      case 'citation':
        if (!open.hasBlock(e.blockId))
          issue('blockId', `expected an open block "${e.blockId}" (no ${e.type.split('-')[0]}-start before it)`);
        break;
      case 'text-end':
      case 'reasoning-end':
        if (!open.hasBlock(e.blockId)) issue('blockId', `expected an open block "${e.blockId}" to close`);
        break;
      case 'tool-input-start':
        tools.add(e.toolCallId);
        break;
      case 'tool-input-delta':
        if (!tools.has(e.toolCallId)) issue('toolCallId', `expected a tool-input-start for "${e.toolCallId}" first`);
        break;
      case 'tool-input-end':
        tools.add(e.toolCallId);
        break;
    }
    // Starts and ends only: a delta outside its block is reported each time, not taken as opening it.
    if (e.type.endsWith('-start') || e.type.endsWith('-end')) open.track(e as CanonicalEvent);
  }
  if (options.complete) {
    const last = Math.max(index, 0);
    if (index === -1) issues.push({ index: 0, path: '', message: 'expected a run (run-start … run-finish), got no events' });
    else if (!ended) issues.push({ index: last, path: 'type', message: 'the stream ends without run-finish or run-abort (truncated)' });
  }
  return { ok: issues.length === 0, issues };
}
