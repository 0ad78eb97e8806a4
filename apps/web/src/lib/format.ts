/** Small display helpers. */

/** Whole seconds for "Thought for Xs": at least 1 (a block that existed took some time). */
export function seconds(ms: number): number {
  return Math.max(1, Math.round(ms / 1000));
}

/** A live timer's text: tenths of a second under a minute. */
export function liveSeconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return s < 60 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
}

export function json(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function ms(n: number): string {
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}
