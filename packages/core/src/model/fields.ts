/**
 * Optional fields, copied without their `undefined`s: a frame, an event or a stored record never
 * carries a key set to undefined (JSON drops it, a deep-equal does not, and V8 slows down on objects
 * whose keys are deleted).
 */

/** `fields` without its undefined keys: `fields` itself when it has none (the common case, no copy). */
export function withoutUndefined<T extends object>(fields: T): T {
  const rec = fields as Record<string, unknown>;
  for (const k in rec) {
    if (rec[k] !== undefined) continue;
    const out: Record<string, unknown> = {};
    for (const f in rec) if (rec[f] !== undefined) out[f] = rec[f];
    return out as T;
  }
  return fields;
}

/** Copies each of `keys` that is defined in `source` onto `target`. */
export function copyDefined<T extends object, K extends keyof T & string>(
  target: T,
  source: { readonly [P in K]?: unknown },
  keys: readonly K[],
): T {
  for (const k of keys) if (source[k] !== undefined) target[k] = source[k] as T[K];
  return target;
}
