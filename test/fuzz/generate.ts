/**
 * Hostile inputs for the fuzz suite, all derived from one seed: byte-level mutations of the fixture
 * captures (flips, deleted / duplicated / swapped lines, truncations, invalid UTF-8, injected hostile
 * lines) and structured values built with fast-check (prototype-named keys, deep nesting, non-finite
 * numbers, lone surrogates, null-prototype objects) spliced into real fixture events.
 */
import fc from 'fast-check';
import { matrixInputs } from '../matrix/inputs.ts';

/**
 * One fuzz case: bytes for the byte API, or parsed values for the object API. `continues`: the
 * earlier run's input when the fixture is a run that continues one (a resumed approval), whose
 * client already holds that run's message (as in the matrix).
 */
export type FuzzCase =
  | { kind: 'bytes'; name: string; body: Uint8Array; continues?: Uint8Array }
  | { kind: 'objects'; name: string; values: unknown[]; hostile: unknown[]; continues?: Uint8Array };

/** A fixture as the fuzz cases use it. */
interface FuzzFixture {
  name: string;
  body: Uint8Array;
  lines: string[];
  continues?: Uint8Array;
}

const KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', 'type', 'data', 'id', 'index'];
/** Keys a byte mutation renames a field to: `__proto__`, or a member every object inherits. */
const INHERITED_KEYS = ['__proto__', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'constructor', 'isPrototypeOf'];

let fixtures: FuzzFixture[] | undefined;

/** Every fixture input, with its lines (SSE data payloads or JSON lines). */
export function fuzzFixtures(): FuzzFixture[] {
  fixtures ??= matrixInputs().map((i) => {
    const text = new TextDecoder().decode(i.body);
    const lines = text
      .split(/\r?\n/)
      .map((l) => (l.startsWith('data:') ? l.slice(5).trim() : l))
      .filter((l) => l.startsWith('{') || l.startsWith('['));
    return { name: i.name, body: i.body, lines, ...(i.continues ? { continues: i.continues } : {}) };
  });
  return fixtures;
}

/** A JSON text nested `depth` levels deep (arrays or objects). */
export function deepJson(depth: number, object = false): string {
  return object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** A small deterministic PRNG (mulberry32) for the byte mutations. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE_LINES = [
  '{"__proto__":""}',
  '{"__proto__":{"x":1},"type":"x"}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"toString":1,"valueOf":[],"hasOwnProperty":"x"}',
  '{"type":"tool_use","data":{"id":"t1","name":"x","input":{"__proto__":"x"}}}',
  '{"n":1e400,"m":-1e400}',
  '{"s":"\\ud800","t":"\\udfff x"}',
  () => deepJson(5000),
  () => deepJson(6000, true),
  () => `{"type":"text","data":${deepJson(3000, true)}}`,
];

/** Byte mutations of a fixture, one per seed. */
export function byteCase(seed: number): FuzzCase {
  const r = rng(seed);
  const all = fuzzFixtures();
  const f = all[Math.floor(r() * all.length)] as (typeof all)[number];
  const text = new TextDecoder().decode(f.body);
  let lines = text.split('\n');
  const pick = () => Math.floor(r() * lines.length);
  const hostile = () => {
    const h = HOSTILE_LINES[Math.floor(r() * HOSTILE_LINES.length)] as string | (() => string);
    const line = typeof h === 'function' ? h() : h;
    return text.includes('data:') ? `data: ${line}\n` : line;
  };
  const ops = 1 + Math.floor(r() * 3);
  const names: string[] = [];
  let bytes: Uint8Array | undefined;
  for (let i = 0; i < ops; i++) {
    const op = Math.floor(r() * 9);
    const at = pick();
    switch (op) {
      case 0:
        names.push('delete-line');
        lines.splice(at, 1);
        break;
      case 1:
        names.push('duplicate-line');
        lines.splice(at, 0, lines[at] ?? '');
        break;
      case 2: {
        names.push('swap-lines');
        const b = pick();
        [lines[at], lines[b]] = [lines[b] ?? '', lines[at] ?? ''];
        break;
      }
      case 3:
        names.push('truncate');
        lines = lines.slice(0, at);
        break;
      case 4:
        names.push('hostile-line');
        lines.splice(at, 0, hostile());
        break;
      case 5:
        names.push('number-to-1e400');
        lines[at] = (lines[at] ?? '').replace(/(?<=:)\d+/, '1e400');
        break;
      case 6: {
        // A key renamed to `__proto__` or to a name every object inherits (`toString`, …).
        const key = INHERITED_KEYS[Math.floor(r() * INHERITED_KEYS.length)] as string;
        names.push(`key-to-${key}`);
        lines[at] = (lines[at] ?? '').replace(/"[a-z_]+"(?=:)/, `"${key}"`);
        break;
      }
      case 7:
        names.push('wrong-type');
        lines[at] = (lines[at] ?? '').replace(/:"[^"]*"/, ':{"x":[1]}').replace(/:\d+/, ':"7"');
        break;
      default: {
        names.push('byte-flip');
        bytes ??= new TextEncoder().encode(lines.join('\n'));
        const b = bytes;
        for (let k = 0; k < 1 + Math.floor(r() * 4); k++) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
        lines = [];
      }
    }
  }
  const body = bytes && lines.length === 0 ? bytes : new TextEncoder().encode(lines.join('\n'));
  return { kind: 'bytes', name: `${f.name} [${names.join(',')}]`, body, ...(f.continues ? { continues: f.continues } : {}) };
}

/** A hostile JSON-ish value (as a JSON text so that prototype-named keys become own properties). */
const hostileText: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('1e400', '-1e400', '0', '-0', '1.5', '9007199254740993', 'null', 'true', '"\\ud800"', '"\\udc00a"', '""', '"x"'),
    fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.array(tie('v'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 5 })), tie('v')), { maxLength: 4 })
      .map((e) => `{${e.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    fc.integer({ min: 300, max: 6000 }).map((d) => deepJson(d, d % 2 === 0)),
  ),
})).v;

/** Copies a parsed value into null-prototype objects (what `Object.create(null)` callers pass). */
function nullProto(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullProto);
  if (value === null || typeof value !== 'object') return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = nullProto(v);
  return out;
}

function setAt(target: unknown, path: number[], value: unknown, key?: string): unknown {
  if (target === null || typeof target !== 'object') return value;
  const keys = Object.keys(target);
  if (keys.length === 0 || path.length === 0) {
    if (key !== undefined && !Array.isArray(target))
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    return target;
  }
  const k = keys[(path[0] as number) % keys.length] as string;
  const rec = target as Record<string, unknown>;
  rec[k] = setAt(rec[k], path.slice(1), value, key);
  return target;
}

const structured = fc.record({
  fixture: fc.nat(),
  edits: fc.array(
    fc.record({ line: fc.nat(), path: fc.array(fc.nat(), { maxLength: 4 }), key: fc.option(fc.constantFrom(...KEYS)), value: hostileText }),
    { minLength: 1, maxLength: 3 },
  ),
  nullProto: fc.boolean(),
  extra: fc.option(hostileText),
});

/** A structured case: a fixture's events as objects with hostile values and keys spliced in. */
export function structuredCase(seed: number): FuzzCase {
  const [c] = fc.sample(structured, { seed, numRuns: 1 }) as [typeof structured extends fc.Arbitrary<infer T> ? T : never];
  const all = fuzzFixtures().filter((f) => f.lines.length > 0);
  const f = all[c.fixture % all.length] as (typeof all)[number];
  const values: unknown[] = [];
  for (const l of f.lines) {
    try {
      values.push(JSON.parse(l));
    } catch {
      values.push(l);
    }
  }
  const hostile: unknown[] = [];
  for (const e of c.edits) {
    const i = e.line % values.length;
    const v = JSON.parse(e.value);
    values[i] = setAt(values[i], e.path, v, e.key ?? undefined);
    hostile.push(v);
  }
  if (c.extra !== null) {
    const v = JSON.parse(c.extra);
    values.splice(c.fixture % (values.length + 1), 0, v);
    hostile.push(v);
  }
  const out = c.nullProto ? values.map(nullProto) : values;
  return {
    kind: 'objects',
    name: `${f.name} [structured${c.nullProto ? ',null-proto' : ''}]`,
    values: out,
    hostile: c.nullProto ? hostile.map(nullProto) : hostile,
    ...(f.continues ? { continues: f.continues } : {}),
  };
}

/** The objects of a structured case as JSON lines (for the byte API). */
export function asJsonLines(values: unknown[]): Uint8Array | undefined {
  try {
    return new TextEncoder().encode(values.map((v) => JSON.stringify(v)).join('\n'));
  } catch {
    return undefined; // too deep for JSON.stringify: the object API still runs
  }
}
