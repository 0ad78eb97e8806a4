/** Small display helpers. */

/**
 * A duration for "Thought for …": tenths under ten seconds ("0.3s", "2.4s"), whole seconds under a
 * minute, then minutes and seconds. Never "0s": a block that existed took some time.
 */
export function duration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${Math.max(0.1, Math.round(s * 10) / 10).toFixed(1)}s`;
  if (s < 60) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
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

/** A chat's date for the list: the time today, the weekday this week, else the date. */
export function chatDate(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  if (d.toDateString() === today.toDateString()) return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (now - ms < 6 * 86_400_000 && now >= ms) return d.toLocaleDateString(undefined, { weekday: 'short' });
  return d.toLocaleDateString(undefined, {
    day: 'numeric',
    month: 'short',
    ...(d.getFullYear() !== today.getFullYear() ? { year: 'numeric' } : {}),
  });
}

/** The host of a URL without `www.` (for source lists), or undefined when it is not a URL. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}
