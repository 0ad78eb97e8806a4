import type { ZodError } from 'zod';
import type { CanonicalEvent } from './events.ts';
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
 * after run-finish / run-abort).
 *
 * @example
 * const { ok, issues } = validate(events);
 * for (const i of issues) console.error(`event ${i.index} ${i.path}: ${i.message}`);
 */
export function validate(events: Iterable<unknown>): ValidationResult {
  const issues: ValidationIssue[] = [];
  const open = new OpenSpans();
  const tools = new Set<string>();
  let runId: string | undefined;
  let lastSeq = -1;
  let ended = false;
  let index = -1;
  for (const input of events) {
    index++;
    const parsed = canonicalEventSchema.safeParse(input);
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
  return { ok: issues.length === 0, issues };
}
