/** Small JSON helpers shared by the store modules. */
import type { Json, JsonObject } from '@switchboard/core';

/**
 * JSON text with object keys sorted, so two values that differ only in key order compare equal.
 * Used to tell a harmless re-append (same event) from a conflicting one.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableStringify(v))).join(',')}]`;
  const keys = Object.keys(value as object).sort();
  const out: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function') continue;
    out.push(`${JSON.stringify(k)}:${stableStringify(v)}`);
  }
  return `{${out.join(',')}}`;
}

/** True when `a` and `b` are the same JSON value (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

/** Parses a stored JSON object column; `{}` for null / empty. */
export function parseObject(text: string | null | undefined): JsonObject {
  if (text === null || text === undefined || text === '') return {};
  const v = JSON.parse(text) as Json;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/** A deep copy of a JSON value (structuredClone is slower for small objects and keeps undefined). */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
