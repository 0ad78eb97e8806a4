/**
 * The rules for hostile input, in one place (docs/hostile-input.md):
 *
 * - **Depth**: a value nested deeper than {@link MAX_DEPTH} levels is not read; the line it came on
 *   becomes a located `too_deep` error and the run goes on. Every walk here is iterative or stops one
 *   level past the limit, so nothing overflows the stack whatever the input.
 * - **Unsafe keys**: a `__proto__` key, and a `prototype` key inside a `constructor` object, are what
 *   the official JSON parsers (`ai`'s secure JSON parse) reject; they are moved out of the value and
 *   kept as JSON text in the warning's `providerMetadata.switchboard.removed`.
 * - **Non-finite numbers** (`1e400` parses as Infinity): become `null` in input values; dropped from
 *   canonical events (or `null` inside arrays), with a warning that keeps them as text.
 * - **Null-prototype objects** are read as plain objects.
 * - **Ids**: {@link idProblem} — any Unicode text, but no control characters or lone surrogates.
 */

/** The deepest nesting of objects and arrays an input value may have. */
export const MAX_DEPTH = 256;

/** A part of a value that was changed to make it safe, kept so that nothing is lost. */
export interface Removed {
  /** Dotted path of the field, e.g. `data.input.__proto__`. */
  path: string;
  /** What happened to it. */
  action: 'removed' | 'nulled';
  /** The original value as JSON text (`Infinity` for a non-finite number). */
  json: string;
}

/** What {@link inspect} found: whether the value is too deep, and whether it needs {@link clean}ing. */
export interface Inspection {
  tooDeep: boolean;
  unsafe: boolean;
}

const PROTO = '__proto__';

function isUnsafeKey(key: string, parentKey: string | undefined): boolean {
  return key === PROTO || (key === 'prototype' && parentKey === 'constructor');
}

/** {@link scan} bit: the value holds something {@link clean} changes. */
export const UNSAFE = 1;
/** {@link scan} bit: the value nests deeper than the limit (the walk stopped there). */
export const TOO_DEEP = 2;

/**
 * Walks a value and says whether it is nested deeper than `maxDepth` ({@link TOO_DEEP}) and whether
 * it holds anything {@link clean} changes ({@link UNSAFE}): an unsafe key, a non-finite number, a
 * null-prototype object; 0 when neither. It runs on every decoded value and every event that is not a
 * delta, so it allocates nothing and a primitive costs one test; recursive, but it stops at
 * `maxDepth` + 1 levels, so the stack stays small whatever the input.
 */
export function scan(value: unknown, maxDepth = MAX_DEPTH): number {
  if (typeof value === 'object') return value === null ? 0 : scanObject(value, 1, undefined, maxDepth);
  return typeof value === 'number' && !Number.isFinite(value) ? UNSAFE : 0;
}

/** {@link scan} as two booleans. */
export function inspect(value: unknown, maxDepth = MAX_DEPTH): Inspection {
  const found = scan(value, maxDepth);
  return { tooDeep: (found & TOO_DEEP) !== 0, unsafe: (found & UNSAFE) !== 0 };
}

/**
 * One object or array of {@link scan}, at `depth`, found under `key`. The item test is written out
 * in both loops on purpose: as a helper between two recursive functions it is not inlined, and it
 * cost the readers 10–25% per delta (every frame is scanned; measured side by side with `npm run
 * bench -- --only readers`).
 */
function scanObject(v: object, depth: number, key: string | undefined, maxDepth: number): number {
  if (depth > maxDepth) return TOO_DEEP;
  let found = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item === 'object') {
        if (item !== null) {
          found |= scanObject(item, depth + 1, undefined, maxDepth);
          if (found & TOO_DEEP) return found;
        }
      } else if (typeof item === 'number' && !Number.isFinite(item)) found |= UNSAFE;
    }
    return found;
  }
  if (Object.getPrototypeOf(v) === null) found = UNSAFE;
  // No own-property test (it would double the cost): an inherited enumerable field is only read,
  // and at worst makes the value look unsafe, so that clean() copies it and finds nothing to remove.
  for (const k in v) {
    if (isUnsafeKey(k, key)) found |= UNSAFE;
    const item: unknown = (v as Record<string, unknown>)[k];
    if (typeof item === 'object') {
      if (item !== null) {
        found |= scanObject(item, depth + 1, k, maxDepth);
        if (found & TOO_DEEP) return found;
      }
    } else if (typeof item === 'number' && !Number.isFinite(item)) found |= UNSAFE;
  }
  return found;
}

/**
 * Where a value first nests deeper than `maxDepth`: the dotted path of that field (e.g.
 * `messages[0].parts[0].data.a.a…`, shortened to its first 8 steps), or undefined when it does not.
 */
export function tooDeepAt(value: unknown, maxDepth = MAX_DEPTH): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // Nearly every value is within the limit: the walk that allocates a path per node is only for one that is not.
  if ((scan(value, maxDepth) & TOO_DEEP) === 0) return undefined;
  const stack: [unknown, number, (string | number)[]][] = [[value, 1, []]];
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop() as [unknown, number, (string | number)[]];
    if (depth > maxDepth) {
      const shown = path.slice(0, 8).map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`));
      return `${shown.join('')}${path.length > 8 ? '…' : ''}`;
    }
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((item, i) => [i, item]) : Object.entries(v as object);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, item] = entries[i] as [string | number, unknown];
      if (item !== null && typeof item === 'object') stack.push([item, depth + 1, path.length < 9 ? [...path, k] : path]);
    }
  }
  return undefined;
}

/**
 * Returns a safe copy of a value (call only after {@link inspect} said it is not too deep):
 * unsafe keys removed, non-finite numbers `null` (or dropped from objects where `dropNonFinite` says),
 * null-prototype objects made plain. `removed` gets what was taken out, as JSON text.
 */
export function clean(
  value: unknown,
  removed: Removed[],
  dropNonFinite: boolean | ((path: string) => boolean) = false,
  base = '',
): unknown {
  const drop = typeof dropNonFinite === 'function' ? dropNonFinite : () => dropNonFinite;
  const copyLeaf = (v: unknown, path: string): unknown => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      removed.push({ path, action: 'nulled', json: String(v) });
      return null;
    }
    return v;
  };
  if (value === null || typeof value !== 'object') return copyLeaf(value, base);
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: [unknown, unknown, string, string | undefined][] = [[value, root, base, undefined]];
  while (stack.length > 0) {
    const [from, to, path, parentKey] = stack.pop() as [unknown, Record<string, unknown> | unknown[], string, string | undefined];
    const child = (v: unknown, p: string, k: string | undefined): unknown => {
      if (v === null || typeof v !== 'object') return copyLeaf(v, p);
      const c: unknown = Array.isArray(v) ? [] : {};
      stack.push([v, c, p, k]);
      return c;
    };
    if (Array.isArray(from)) {
      const arr = to as unknown[];
      from.forEach((item, i) => {
        arr.push(child(item, `${path}[${i}]`, undefined));
      });
      continue;
    }
    const obj = to as Record<string, unknown>;
    for (const k in from as object) {
      if (!Object.hasOwn(from as object, k)) continue;
      const item = (from as Record<string, unknown>)[k];
      const p = path ? `${path}.${k}` : k;
      if (isUnsafeKey(k, parentKey)) {
        removed.push({ path: p, action: 'removed', json: safeJson(item) });
        continue;
      }
      if (typeof item === 'number' && !Number.isFinite(item) && drop(p)) {
        removed.push({ path: p, action: 'removed', json: String(item) });
        continue;
      }
      const c = child(item, p, k);
      // defineProperty: a plain assignment of a key named like an accessor of Object.prototype would not create an own field.
      Object.defineProperty(obj, k, { value: c, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

/** JSON text of a value that may itself hold unsafe keys or be too deep; never throws. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"(not representable as JSON)"';
  }
}

/** Fields of canonical events that hold free JSON (where `null` is a valid value). */
const JSON_FIELDS = new Set(['value', 'input', 'output', 'state', 'event', 'raw', 'metadata', 'providerMetadata', 'patch']);

/**
 * For {@link clean} on a canonical event: a non-finite number in a typed numeric field (`usage.*`,
 * `durationMs`, …) is dropped (the field is optional, `null` would not be valid); inside a free JSON
 * payload (`value`, `input`, `output`, `raw`, …) it becomes `null`.
 */
export function dropFromEvent(path: string): boolean {
  const top = /^[^.[]*/.exec(path)?.[0] ?? '';
  return !JSON_FIELDS.has(top) && !/\.raw(\.|\[|$)/.test(path);
}

/**
 * Says what is wrong with an id (chat, run, message, tool call), or undefined when it is fine.
 * The one id rule: a non-empty string of at most `max` characters, any Unicode, but no control
 * characters (C0, DEL, C1) and no lone surrogates.
 */
export function idProblem(id: unknown, max = 512): string | undefined {
  if (typeof id !== 'string') return 'expected a string';
  if (id.length === 0) return 'expected a non-empty string';
  if (id.length > max) return `expected at most ${max} characters, got ${id.length}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(id);
  if (control) return `control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at ${control.index}`;
  if (!id.isWellFormed()) return 'contains a lone surrogate (not well-formed Unicode)';
  return undefined;
}

/**
 * True when JSON text nests objects/arrays deeper than `maxDepth` (a bracket count outside strings;
 * cheap, and the reason the parse of such a line is never attempted).
 */
export function textTooDeep(text: string, maxDepth = MAX_DEPTH): boolean {
  if (text.length <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}
