/**
 * JSON Patch (RFC 6902) without copying the document: the containers on the paths a patch changes are
 * copied (copy-on-write), everything else is shared with the previous document, which is never
 * mutated. A patch that fails leaves nothing behind (the previous document is still the state).
 *
 * The behaviour follows `fast-json-patch`'s `applyPatch(document, patch, true, false)` — what
 * `@ag-ui/client` applies to STATE_DELTA — including its validation rules and its leniencies (an
 * array index with leading zeros, a `move` target checked before the source is removed, `remove` on
 * the root giving `null`). Where fast-json-patch deep-clones the whole document before every patch
 * (O(state) per delta), this costs O(length of the changed paths).
 */

/** A JSON Patch operation. */
export interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** Why a patch could not be applied (`name` is fast-json-patch's error name). */
export class JsonPatchError extends Error {
  readonly index: number;
  constructor(name: string, message: string, index: number) {
    super(message);
    this.name = name;
    this.index = index;
  }
}

type Container = Record<string, unknown> | unknown[];

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test', '_get']);

function isInteger(key: string | number): boolean {
  if (typeof key === 'number') return true;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function unescapeToken(token: string): string {
  return token.indexOf('~') === -1 ? token : token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function hasUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (value && typeof value === 'object') {
    if (Array.isArray(value)) {
      for (const v of value) if (hasUndefined(v)) return true;
    } else for (const k of Object.keys(value)) if (hasUndefined((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/** Deep equality as fast-json-patch's `test` compares. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const arrA = Array.isArray(a);
    const arrB = Array.isArray(b);
    if (arrA && arrB) {
      if (a.length !== b.length) return false;
      for (let i = a.length; i-- !== 0; ) if (!jsonEquals(a[i], b[i])) return false;
      return true;
    }
    if (arrA !== arrB) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const k of keys) if (!Object.hasOwn(b, k)) return false;
    for (const k of keys) if (!jsonEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
    return true;
  }
  return Number.isNaN(a) && Number.isNaN(b);
}

/** A JSON deep copy (what fast-json-patch's `_deepClone` does: `undefined` becomes `null`). */
function jsonClone(value: unknown): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object') return value;
  return JSON.parse(JSON.stringify(value));
}

/** The working state of one patch application: the document and the containers it already owns (copied). */
interface Work {
  doc: unknown;
  owned: Set<object>;
  /** Set once a `move` from the root may have put the document inside itself (fast-json-patch allows it). */
  cyclic: boolean;
}

/**
 * Documents that contain themselves. fast-json-patch deep-clones through JSON (before every patch, and
 * to validate a move / copy), which throws on them: every later patch of such a state fails.
 */
const cyclicDocuments = new WeakSet<object>();

function circular(): TypeError {
  return new TypeError('Converting circular structure to JSON');
}

/** Whether a value contains itself (only checked after a root move made it possible). */
function hasCycle(value: unknown, path: Set<object> = new Set()): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (path.has(value)) return true;
  path.add(value);
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (hasCycle(v, path)) return true;
  path.delete(value);
  return false;
}

/** Whether the working document is cyclic now (clears the flag when a later operation broke the cycle). */
function isCyclic(w: Work): boolean {
  if (!w.cyclic) return false;
  w.cyclic = hasCycle(w.doc);
  return w.cyclic;
}

function shallowCopy(c: Container): Container {
  return Array.isArray(c) ? c.slice() : { ...c };
}

/** Makes `w.doc` a container this patch owns (copying it the first time). */
function ownRoot(w: Work): void {
  const d = w.doc;
  if (d !== null && typeof d === 'object' && !w.owned.has(d)) {
    const copy = shallowCopy(d as Container);
    w.owned.add(copy);
    w.doc = copy;
  }
}

/** The child `parent[key]`, copied into `parent` first when it is a container the patch does not own yet. */
function ownChild(w: Work, parent: Container, key: string | number): unknown {
  const child = (parent as Record<string | number, unknown>)[key];
  if (child !== null && typeof child === 'object' && !w.owned.has(child)) {
    const copy = shallowCopy(child as Container);
    w.owned.add(copy);
    (parent as Record<string | number, unknown>)[key] = copy;
    return copy;
  }
  return child;
}

function banned(key: string | number, previous: string | undefined): boolean {
  return key === '__proto__' || (key === 'prototype' && previous === 'constructor');
}

const BANNED_MESSAGE = 'JSON-Patch: modifying `__proto__` or `constructor/prototype` prop is banned for security reasons';

/** Reads the value at a pointer without changing anything (fast-json-patch's `getValueByPointer`). */
function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  const keys = pointer.split('/');
  let obj = doc as Record<string | number, unknown>;
  for (let t = 1; ; ) {
    let key: string | number = unescapeToken(keys[t]);
    if (banned(key, keys[t - 1])) throw new TypeError(BANNED_MESSAGE);
    t++;
    if (Array.isArray(obj)) {
      if (key === '-') key = obj.length;
      else if (isInteger(key)) key = Number.parseInt(key, 10) | 0;
    }
    if (t >= keys.length) return obj[key];
    obj = obj[key] as Record<string | number, unknown>;
  }
}

/** fast-json-patch's document-aware validation of one operation, given how much of its path exists. */
function validateAgainst(w: Work, op: JsonPatchOperation, index: number, existing: string): void {
  if (!w.doc) return;
  if (op.op === 'add') {
    const pathLen = op.path.split('/').length;
    const existingLen = existing.split('/').length;
    if (pathLen !== existingLen + 1 && pathLen !== existingLen)
      throw new JsonPatchError('OPERATION_PATH_CANNOT_ADD', 'Cannot perform an `add` operation at the desired path', index);
  } else if (op.op === 'replace' || op.op === 'remove' || op.op === '_get') {
    if (op.path !== existing)
      throw new JsonPatchError('OPERATION_PATH_UNRESOLVABLE', 'Cannot perform the operation at a path that does not exist', index);
  } else if ((op.op === 'move' || op.op === 'copy') && isCyclic(w)) {
    throw circular();
  } else if ((op.op === 'move' || op.op === 'copy') && !resolvable(w.doc, op.from as string)) {
    throw new JsonPatchError('OPERATION_FROM_UNRESOLVABLE', 'Cannot perform the operation from a path that does not exist', index);
  }
}

/** Whether a `_get` of the pointer would validate (fast-json-patch's check of a move / copy `from`). */
function resolvable(doc: unknown, pointer: string): boolean {
  if (pointer === '') return true;
  if (pointer.indexOf('/') !== 0) return true; // fast-json-patch only rejects an unresolvable path here
  const keys = pointer.split('/');
  let obj = doc as Record<string | number, unknown>;
  for (let t = 1; ; ) {
    let key: string | number = unescapeToken(keys[t]);
    if (banned(key, keys[t - 1])) throw new TypeError(BANNED_MESSAGE);
    if (obj[key] === undefined) return keys.slice(0, t).join('/') === pointer;
    if (t === keys.length - 1) return true;
    t++;
    if (Array.isArray(obj)) {
      if (key === '-') key = obj.length;
      else if (!isInteger(key))
        return true; // an illegal index is not "unresolvable" for this check
      else key = Number.parseInt(key, 10) | 0;
    }
    obj = obj[key] as Record<string | number, unknown>;
    if (t < keys.length && (!obj || typeof obj !== 'object')) return false;
  }
}

function checkOperation(op: JsonPatchOperation, index: number): void {
  if (typeof op !== 'object' || op === null || Array.isArray(op))
    throw new JsonPatchError('OPERATION_NOT_AN_OBJECT', 'Operation is not an object', index);
  if (!OPS.has(op.op))
    throw new JsonPatchError('OPERATION_OP_INVALID', 'Operation `op` property is not one of operations defined in RFC-6902', index);
  if (typeof op.path !== 'string') throw new JsonPatchError('OPERATION_PATH_INVALID', 'Operation `path` property is not a string', index);
  if (op.path.indexOf('/') !== 0 && op.path.length > 0)
    throw new JsonPatchError('OPERATION_PATH_INVALID', 'Operation `path` property must start with "/"', index);
  if ((op.op === 'move' || op.op === 'copy') && typeof op.from !== 'string')
    throw new JsonPatchError('OPERATION_FROM_REQUIRED', 'Operation `from` property is not present', index);
  if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && op.value === undefined)
    throw new JsonPatchError('OPERATION_VALUE_REQUIRED', 'Operation `value` property is not present', index);
  if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && hasUndefined(op.value))
    throw new JsonPatchError('OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED', 'Operation `value` property contains undefined', index);
}

/**
 * Applies one operation to the working document (fast-json-patch's `applyOperation`, with
 * copy-on-write). `raw`: insert `op.value` as is (a value moved within the document) instead of a copy.
 */
function applyOperation(w: Work, op: JsonPatchOperation, validate: boolean, index: number, raw = false): unknown {
  if (validate) checkOperation(op, index);
  if (op.path === '') {
    switch (op.op) {
      case 'add':
      case 'replace':
        w.doc = raw ? op.value : jsonClone(op.value);
        return;
      case 'move':
      case 'copy':
        w.doc = valueAt(w.doc, op.from as string);
        return;
      case 'test':
        if (!jsonEquals(w.doc, op.value)) throw new JsonPatchError('TEST_OPERATION_FAILED', 'Test operation failed', index);
        return;
      case 'remove': {
        const removed = w.doc;
        w.doc = null;
        return removed;
      }
      default:
        return;
    }
  }
  const mutating = op.op !== 'test' && op.op !== '_get';
  if (mutating) ownRoot(w);
  const keys = op.path.split('/');
  const len = keys.length;
  let obj = w.doc as Container;
  let existing: string | undefined;
  for (let t = 1; ; ) {
    let key: string | number = unescapeToken(keys[t]);
    if (banned(key, keys[t - 1])) throw new TypeError(BANNED_MESSAGE);
    if (validate && existing === undefined) {
      if ((obj as Record<string | number, unknown>)[key] === undefined) existing = keys.slice(0, t).join('/');
      else if (t === len - 1) existing = op.path;
      if (existing !== undefined) validateAgainst(w, op, index, existing);
    }
    t++;
    if (Array.isArray(obj)) {
      if (key === '-') key = obj.length;
      else if (validate && !isInteger(key))
        throw new JsonPatchError('OPERATION_PATH_ILLEGAL_ARRAY_INDEX', 'Expected an unsigned base-10 integer array index', index);
      else if (isInteger(key)) key = Number.parseInt(key, 10) | 0;
      if (t >= len) {
        if (validate && op.op === 'add' && (key as number) > obj.length)
          throw new JsonPatchError('OPERATION_VALUE_OUT_OF_BOUNDS', 'The index is greater than the number of elements in the array', index);
        return arrayOp(w, obj, key, op, index, raw);
      }
    } else if (t >= len) {
      return objectOp(w, obj as Record<string, unknown>, key as string, op, index, raw);
    }
    obj = (mutating ? ownChild(w, obj, key) : (obj as Record<string | number, unknown>)[key]) as Container;
    if (validate && t < len && (!obj || typeof obj !== 'object'))
      throw new JsonPatchError('OPERATION_PATH_UNRESOLVABLE', 'Cannot perform operation at the desired path', index);
  }
}

/** move = an unvalidated remove of `from`, then an unvalidated add at `path`; copy adds a JSON copy. */
function moveOrCopy(w: Work, op: JsonPatchOperation, index: number): void {
  if (op.op === 'move') {
    // fast-json-patch ignores the new document of this inner remove: moving the root leaves it in place
    // (and then puts it inside itself).
    if (op.from === '') w.cyclic = true;
    const removed = op.from === '' ? w.doc : applyOperation(w, { op: 'remove', path: op.from as string }, false, index);
    applyOperation(w, { op: 'add', path: op.path, value: removed }, false, index, true);
  } else {
    applyOperation(w, { op: 'add', path: op.path, value: jsonClone(valueAt(w.doc, op.from as string)) }, false, index, true);
  }
}

function objectOp(w: Work, obj: Record<string, unknown>, key: string, op: JsonPatchOperation, index: number, raw: boolean): unknown {
  // fast-json-patch runs as sloppy-mode code in @ag-ui/client's bundle: writing to a primitive
  // (a state that became `false` or `3`) silently does nothing instead of throwing.
  const primitive = obj !== null && obj !== undefined && typeof obj !== 'object';
  switch (op.op) {
    case 'add':
    case 'replace':
      if (!primitive) obj[key] = raw ? op.value : jsonClone(op.value);
      return;
    case 'remove': {
      const removed = obj[key];
      if (!primitive) delete obj[key];
      return removed;
    }
    case 'move':
    case 'copy':
      moveOrCopy(w, op, index);
      return;
    case 'test':
      if (!jsonEquals(obj[key], op.value)) throw new JsonPatchError('TEST_OPERATION_FAILED', 'Test operation failed', index);
      return;
    default:
      return;
  }
}

function arrayOp(w: Work, arr: unknown[], key: string | number, op: JsonPatchOperation, index: number, raw: boolean): unknown {
  switch (op.op) {
    case 'add': {
      const value = raw ? op.value : jsonClone(op.value);
      if (isInteger(key)) arr.splice(key as number, 0, value);
      else (arr as unknown as Record<string, unknown>)[key as string] = value;
      return;
    }
    case 'remove':
      return arr.splice(key as number, 1)[0];
    case 'replace':
      arr[key as number] = raw ? op.value : jsonClone(op.value);
      return;
    case 'move':
    case 'copy':
      moveOrCopy(w, op, index);
      return;
    case 'test':
      if (!jsonEquals(arr[key as number], op.value)) throw new JsonPatchError('TEST_OPERATION_FAILED', 'Test operation failed', index);
      return;
    default:
      return;
  }
}

/**
 * Applies a JSON Patch and returns the new document; `document` is not modified (unchanged parts are
 * shared). Throws a {@link JsonPatchError} (or a TypeError for a banned `__proto__` path) when the
 * patch cannot be applied; then nothing changed.
 */
export function applyJsonPatch(document: unknown, patch: readonly JsonPatchOperation[]): unknown {
  if (!Array.isArray(patch)) throw new JsonPatchError('SEQUENCE_NOT_AN_ARRAY', 'Patch sequence must be an array', 0);
  if (document !== null && typeof document === 'object' && cyclicDocuments.has(document)) throw circular();
  const w: Work = { doc: document, owned: new Set(), cyclic: false };
  for (let i = 0; i < patch.length; i++) applyOperation(w, patch[i], true, i);
  if (isCyclic(w)) cyclicDocuments.add(w.doc as object);
  return w.doc;
}
