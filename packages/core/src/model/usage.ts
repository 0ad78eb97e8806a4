/**
 * Usage arithmetic on canonical {@link Usage} values.
 */
import type { Usage } from './events.ts';

/** The numeric fields of a usage, in the order they are summed. */
export const USAGE_COUNTS = [
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'reasoningTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'costUsd',
] as const;

/**
 * Adds up usages (for the run total over several steps). The first usage is copied as it is (its
 * `raw` kept) when there is nothing to add it to; a sum has no `raw`.
 */
export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const sum: Usage = {};
  for (const k of USAGE_COUNTS) {
    if (a[k] !== undefined || b[k] !== undefined) sum[k] = (a[k] ?? 0) + (b[k] ?? 0);
  }
  return sum;
}
