/**
 * The small readers every decoder needs: typed field access on parsed JSON, "everything else" for
 * providerMetadata, and tool-input JSON parsing. Pure functions, no state.
 */
import type { Json, JsonObject, Location } from '../../model/events.ts';
import { at, isObject } from '../decoder.ts';

export { isObject };

/** A parsed JSON object. */
export type Obj = Record<string, unknown>;

/** How a value reads in an error message: `an array`, `null`, or its `typeof`. */
export function kindOf(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
}

/**
 * A value from the input, as text for a message: a string, number, boolean or null as it is, anything
 * else by its kind. Never `String(value)` on input: an object with an own `toString` that is not a
 * function (`{"toString": {}}`) makes it throw.
 */
export function shown(value: unknown): string {
  const t = typeof value;
  return t === 'string'
    ? (value as string)
    : t === 'number' || t === 'boolean' || value === null || t === 'undefined'
      ? `${value}`
      : kindOf(value);
}

/** The first of `keys` that holds a string, or undefined. */
export function str(o: Obj, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return undefined;
}

/** The first of `keys` that holds a number in `o` (any value; undefined when it is not an object). */
export function num(o: unknown, ...keys: string[]): number | undefined {
  if (!isObject(o)) return undefined;
  for (const k of keys) if (typeof o[k] === 'number') return o[k] as number;
  return undefined;
}

/**
 * Everything but the `known` keys (undefined values skipped), or undefined when nothing is left:
 * what goes to providerMetadata so nothing is lost.
 */
export function rest(o: Obj, known: readonly string[]): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const k in o) {
    if (known.includes(k) || o[k] === undefined) continue;
    out ??= {};
    out[k] = o[k] as Json;
  }
  return out;
}

/** A tool call's input read from its JSON text. */
export interface ToolInput {
  /** The parsed input: `{}` for empty text, the text itself when it is not JSON. */
  input: Json;
  /** Set when the text is not valid JSON: `<label> is not valid JSON: <parser message>`. */
  inputError?: string;
}

/**
 * Parses a tool call's arguments text. Blank text is `{}`; text that is not JSON is kept as it is
 * (lossless) with an `inputError` naming `label` (default `tool input`).
 */
export function parseToolInput(text: string, label = 'tool input'): ToolInput {
  if (text.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(text) as Json };
  } catch (err) {
    return { input: text, inputError: `${label} is not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * The location of a field below `where`: field paths are joined (`a` + `b` → `a.b`, `a` + `[0]` →
 * `a[0]`), not replaced as `at` does.
 */
export function sub(where: Location, field: string, expected?: string): Location {
  const joined = !field
    ? (where.field ?? '')
    : !where.field
      ? field
      : field.startsWith('[')
        ? `${where.field}${field}`
        : `${where.field}.${field}`;
  return joined ? at(where, joined, expected) : expected !== undefined ? { ...where, expected } : { ...where };
}
