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

/** One of {@link FINISH_REASONS}. */
export type FinishReasonName = (typeof FINISH_REASONS)[number];
/** One of {@link TODO_STATUSES}. */
export type TodoStatus = (typeof TODO_STATUSES)[number];
/** One of {@link PATCH_OPERATIONS}. */
export type PatchOperation = (typeof PATCH_OPERATIONS)[number];

const finishReasons: ReadonlySet<string> = new Set(FINISH_REASONS);
const todoStatuses: ReadonlySet<string> = new Set(TODO_STATUSES);
const patchOperations: ReadonlySet<string> = new Set(PATCH_OPERATIONS);

/** True when `value` is a canonical finish reason. */
export function isFinishReason(value: unknown): value is FinishReasonName {
  return typeof value === 'string' && finishReasons.has(value);
}

/** True when `value` is a canonical todo status. */
export function isTodoStatus(value: unknown): value is TodoStatus {
  return typeof value === 'string' && todoStatuses.has(value);
}

/** True when `value` is a JSON Patch operation name. */
export function isPatchOperation(value: unknown): value is PatchOperation {
  return typeof value === 'string' && patchOperations.has(value);
}
