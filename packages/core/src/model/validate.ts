import type { ZodError, ZodType } from 'zod';
import type { CanonicalEvent, EventOf } from './events.ts';
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

/** Reports an issue in the item being checked. */
export type IssueReporter = (path: string, message: string) => void;

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

/** The sequence rules of approvals, client tool calls and interrupts. */
class HitlRules {
  /** approvalId → toolCallId, asked in this run. */
  private readonly approvals = new Map<string, string>();
  private readonly interrupts = new Set<string>();
  private readonly clientCalls = new Set<string>();
  private readonly answered = new Set<string>();
  private readonly denied = new Set<string>();
  private readonly output = new Set<string>();
  /** An answer came before any content: the run continues an earlier one. */
  private continuation = false;
  private content = false;

  check(e: CanonicalEvent, tools: ReadonlySet<string>, issue: IssueReporter): void {
    const call = (id: string, what: string) => {
      if (!tools.has(id) && !this.continuation)
        issue('toolCallId', `expected a tool call "${id}" of this run (tool-input-end) before this ${what}`);
    };
    switch (e.type) {
      case 'tool-approval-request':
        call(e.toolCallId, e.type);
        if (this.approvals.has(e.approvalId)) issue('approvalId', `approval "${e.approvalId}" was already requested in this run`);
        this.approvals.set(e.approvalId, e.toolCallId);
        break;
      case 'client-tool-call':
        call(e.toolCallId, e.type);
        this.clientCalls.add(e.toolCallId);
        break;
      case 'interrupt':
        if (this.interrupts.has(e.interruptId)) issue('interruptId', `interrupt "${e.interruptId}" was already raised in this run`);
        this.interrupts.add(e.interruptId);
        break;
      case 'tool-approval-response': {
        if (!this.content) this.continuation = true;
        const asked = this.approvals.get(e.approvalId);
        if (asked !== undefined && e.toolCallId !== undefined && e.toolCallId !== asked)
          issue('toolCallId', `approval "${e.approvalId}" was requested for tool call "${asked}", not "${e.toolCallId}"`);
        if (this.answered.has(e.approvalId)) issue('approvalId', `approval "${e.approvalId}" was already answered`);
        this.answered.add(e.approvalId);
        const toolCallId = asked ?? e.toolCallId;
        if (!e.approved && toolCallId !== undefined) this.denied.add(toolCallId);
        break;
      }
      case 'interrupt-response':
        if (!this.content) this.continuation = true;
        if (this.answered.has(e.interruptId)) issue('interruptId', `interrupt "${e.interruptId}" was already answered`);
        this.answered.add(e.interruptId);
        break;
      case 'tool-output':
      case 'tool-error':
        if (!this.content && !tools.has(e.toolCallId)) this.continuation = true;
        if (this.denied.has(e.toolCallId)) issue('toolCallId', `tool call "${e.toolCallId}" was denied: a denied tool does not run`);
        if (!(e.type === 'tool-output' && e.preliminary)) this.output.add(e.toolCallId);
        break;
      case 'run-finish':
        this.checkPending(e, issue);
        break;
      default:
        if (e.type !== 'run-start' && e.type !== 'status' && e.type !== 'usage') this.content = true;
    }
  }

  private checkPending(e: EventOf<'run-finish'>, issue: IssueReporter): void {
    const p = e.pending;
    if (!p) return;
    for (const [i, id] of (p.approvalIds ?? []).entries()) {
      const toolCallId = this.approvals.get(id);
      if (toolCallId === undefined) issue(`pending.approvalIds[${i}]`, `expected an approval requested in this run, got "${id}"`);
      else if (this.answered.has(id) || this.output.has(toolCallId))
        issue(`pending.approvalIds[${i}]`, `approval "${id}" was answered in this run`);
    }
    for (const [i, id] of (p.toolCallIds ?? []).entries()) {
      if (!this.clientCalls.has(id)) issue(`pending.toolCallIds[${i}]`, `expected a client-tool-call of this run, got "${id}"`);
      else if (this.output.has(id)) issue(`pending.toolCallIds[${i}]`, `tool call "${id}" has its output in this run`);
    }
    for (const [i, id] of (p.interruptIds ?? []).entries()) {
      if (!this.interrupts.has(id)) issue(`pending.interruptIds[${i}]`, `expected an interrupt raised in this run, got "${id}"`);
      else if (this.answered.has(id)) issue(`pending.interruptIds[${i}]`, `interrupt "${id}" was answered in this run`);
    }
  }
}

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** A zod error as the issues of the item at `index`. */
export function zodIssues(index: number, error: ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({ index, path: pathOf(issue.path), message: issue.message }));
}

/**
 * The loop of a stream validator: each item against `schema` (an invalid one's issues are listed and
 * it is skipped), then each valid one to `check`, which reports what breaks the stream's sequence
 * rules. Returns the issues and how many items there were, for the checks after the last one.
 */
export function checkEach<T>(
  items: Iterable<unknown>,
  schema: ZodType<T>,
  check: (item: T, issue: IssueReporter, index: number) => void,
): { issues: ValidationIssue[]; count: number } {
  const issues: ValidationIssue[] = [];
  let index = -1;
  for (const input of items) {
    index++;
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      issues.push(...zodIssues(index, parsed.error));
      continue;
    }
    const at = index;
    check(parsed.data, (path, message) => issues.push({ index: at, path, message }), index);
  }
  return { issues, count: index + 1 };
}

/**
 * Checks a sequence of canonical events: each against the schema, and the sequence as a whole
 * (one run id, `seq` strictly increasing, run-start first, deltas only inside open blocks, nothing
 * after run-finish / run-abort; with `complete`, also that the stream ended). A person in the loop:
 * an approval request or a client tool call names a tool call of the run (or, in a run that continues
 * an earlier one — answers before any content —, of the message it continues); approval and interrupt
 * ids are asked once; a denied tool has no output; `run-finish.pending` names only what the run asked
 * and left unanswered. Answers may name what an earlier run asked. Never throws: an event
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
  const hitl = new HitlRules();
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
    const issue: IssueReporter = (path, message) => issues.push({ index, path, message });
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
    hitl.check(e, tools, issue);
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
