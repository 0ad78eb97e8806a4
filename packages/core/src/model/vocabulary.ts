/**
 * The canonical model's vocabularies, each listed once: the zod schemas (`schema.ts`), the decoders
 * and the protocol schemas take their lists from here. Plain constants (no zod), so the hot decode →
 * encode path can use them without loading the schema module.
 */

/** Why a step or run ended: the AI SDK vocabulary (the provider value is kept in `rawFinishReason`). */
export const FINISH_REASONS = ['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other'] as const;

/** The status of a todo item. */
export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;

/** JSON Patch (RFC 6902) operations, as carried by state deltas. */
export const PATCH_OPERATIONS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;

/** What a step is: a model call, a plan, an agent action, the final answer, or something else. */
export const STEP_KINDS = ['model', 'planning', 'action', 'final-answer', 'other'] as const;

/** How a `todos` event changes the list. */
export const TODO_CHANGES = ['create', 'update', 'done', 'snapshot'] as const;

/** What a source is: a web page or a document. */
export const SOURCE_KINDS = ['url', 'document'] as const;

/** What a citation points at: a source's kinds, or a char / page / block range. */
export const CITATION_KINDS = [...SOURCE_KINDS, 'location'] as const;

/** One of {@link FINISH_REASONS}. */
export type FinishReasonName = (typeof FINISH_REASONS)[number];
/** One of {@link TODO_STATUSES}. */
export type TodoStatus = (typeof TODO_STATUSES)[number];
/** One of {@link PATCH_OPERATIONS}. */
export type PatchOperation = (typeof PATCH_OPERATIONS)[number];
/** One of {@link STEP_KINDS}. */
export type StepKind = (typeof STEP_KINDS)[number];
/** One of {@link TODO_CHANGES}. */
export type TodoChange = (typeof TODO_CHANGES)[number];

const finishReasons: ReadonlySet<string> = new Set(FINISH_REASONS);
const todoStatuses: ReadonlySet<string> = new Set(TODO_STATUSES);
const patchOperations: ReadonlySet<string> = new Set(PATCH_OPERATIONS);
const stepKinds: ReadonlySet<string> = new Set(STEP_KINDS);
const todoChanges: ReadonlySet<string> = new Set(TODO_CHANGES);

/** True when `value` is a canonical finish reason. */
export function isFinishReason(value: unknown): value is FinishReasonName {
  return typeof value === 'string' && finishReasons.has(value);
}

/**
 * A provider's finish / stop reason in the canonical vocabulary, through the provider's own `table`:
 * the one place decoders map finish reasons. A value the table has no own entry for (`"weird"`,
 * `"__proto__"`, `"toString"`, a missing one) is `other`; the decoder keeps the provider value in
 * `rawFinishReason`.
 */
export function finishReasonFrom(table: Readonly<Record<string, FinishReasonName>>, raw: string | null | undefined): FinishReasonName {
  if (typeof raw !== 'string' || !Object.hasOwn(table, raw)) return 'other';
  const reason = table[raw];
  return isFinishReason(reason) ? reason : 'other';
}

/** True when `value` is a canonical todo status. */
export function isTodoStatus(value: unknown): value is TodoStatus {
  return typeof value === 'string' && todoStatuses.has(value);
}

/** True when `value` is a JSON Patch operation name. */
export function isPatchOperation(value: unknown): value is PatchOperation {
  return typeof value === 'string' && patchOperations.has(value);
}

/** True when `value` is a canonical step kind. */
export function isStepKind(value: unknown): value is StepKind {
  return typeof value === 'string' && stepKinds.has(value);
}

/** True when `value` is a canonical todo-list change. */
export function isTodoChange(value: unknown): value is TodoChange {
  return typeof value === 'string' && todoChanges.has(value);
}
