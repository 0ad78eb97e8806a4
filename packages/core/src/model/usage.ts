/**
 * Usage arithmetic on canonical {@link Usage} values.
 */
import type { Json, Usage } from './events.ts';

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

/** Token counts read from a provider's usage object (undefined: the provider did not say). */
export type UsageCounts = { [K in (typeof USAGE_COUNTS)[number]]?: number | undefined };

/**
 * A canonical usage from a provider's usage object (kept whole as `raw`) and the counts read from
 * it: undefined counts are left out, and without a total the total is input + output (when either
 * is known).
 */
export function usageOf(raw: unknown, counts: UsageCounts): Usage {
  const usage: Usage = { raw: raw as Json };
  for (const k of USAGE_COUNTS) {
    const v = counts[k];
    if (v !== undefined) usage[k] = v;
  }
  if (usage.totalTokens === undefined && (usage.inputTokens !== undefined || usage.outputTokens !== undefined))
    usage.totalTokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return usage;
}

/** The sum of the counts that are known, or undefined when none is (a count split over two provider fields). */
export function sumCounts(...counts: (number | undefined)[]): number | undefined {
  let sum: number | undefined;
  for (const c of counts) if (c !== undefined) sum = (sum ?? 0) + c;
  return sum;
}
