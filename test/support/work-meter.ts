/**
 * Counts string work, for linearity tests that do not time anything. While `f` runs, the built-in
 * string operations are metered: every call adds the number of characters it may touch (the
 * characters a search scans, a slice copies, `JSON.parse` or a regular expression reads, a
 * `TextDecoder` decodes, a join produces). Code that rescans, recopies or reparses a growing buffer
 * on every chunk does quadratic work and the count shows it (4x the input → ~16x the count), however
 * loaded the machine is; linear code gives ~4x.
 *
 * It sees built-in calls only, not a loop over `s[i]` written by hand; code whose work lives in such
 * loops counts it itself, as `@switchboard/client`'s `WorkCounter` does. `f` must be synchronous: the
 * built-ins are patched while it runs and restored after.
 */

type Meter = (self: unknown, args: unknown[], result: unknown) => number;

const len = (v: unknown): number => (typeof v === 'string' ? v.length : 0);

/** Characters a search from `from` read before it found its needle (or reached the end). */
function searched(self: unknown, args: unknown[], result: unknown): number {
  const from = Math.max(0, Math.trunc(Number(args[1] ?? 0)) || 0);
  const end = typeof result === 'number' && result >= 0 ? result + len(args[0]) : len(self);
  return Math.max(1, end - from);
}

const STRING_METERS: Record<string, Meter> = {
  indexOf: searched,
  includes: (self, args) => Math.max(1, len(self) - (Math.trunc(Number(args[1] ?? 0)) || 0)),
  lastIndexOf: (self) => Math.max(1, len(self)),
  startsWith: (_self, args) => Math.max(1, len(args[0])),
  endsWith: (_self, args) => Math.max(1, len(args[0])),
  slice: (_self, _args, result) => Math.max(1, len(result)),
  substring: (_self, _args, result) => Math.max(1, len(result)),
  substr: (_self, _args, result) => Math.max(1, len(result)),
  split: (self) => Math.max(1, len(self)),
  trim: (self) => Math.max(1, len(self)),
  trimStart: (self) => Math.max(1, len(self)),
  trimEnd: (self) => Math.max(1, len(self)),
  concat: (_self, _args, result) => Math.max(1, len(result)),
  charCodeAt: () => 1,
  codePointAt: () => 1,
  charAt: () => 1,
  at: () => 1,
};

/** Runs `f` and returns its result with the string work it did. */
export function measureStringWork<T>(f: () => T): { result: T; work: number } {
  let work = 0;
  const restore: (() => void)[] = [];
  const patch = <O extends object>(owner: O, name: string, meter: Meter) => {
    const original = (owner as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
    (owner as Record<string, unknown>)[name] = function metered(this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      work += meter(this, args, result);
      return result;
    };
    restore.push(() => {
      (owner as Record<string, unknown>)[name] = original;
    });
  };
  for (const [name, meter] of Object.entries(STRING_METERS)) patch(String.prototype, name, meter);
  // A global or sticky expression resumes at lastIndex: it reads from there to the end of its match.
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function metered(this: RegExp, input: string) {
    const from = this.global || this.sticky ? this.lastIndex : 0;
    const match = exec.call(this, input);
    work += Math.max(1, (match ? match.index + match[0].length : len(input)) - from);
    return match;
  };
  restore.push(() => {
    RegExp.prototype.exec = exec;
  });
  patch(JSON, 'parse', (_self, args) => Math.max(1, len(args[0])));
  patch(Array.prototype, 'join', (_self, _args, result) => Math.max(1, len(result)));
  patch(TextDecoder.prototype, 'decode', (_self, args) => Math.max(1, (args[0] as ArrayBufferView | undefined)?.byteLength ?? 0));
  try {
    const result = f();
    return { result, work };
  } finally {
    for (const undo of restore.reverse()) undo();
  }
}

/** The string work `f` does (see `measureStringWork`). */
export function stringWork(f: () => unknown): number {
  return measureStringWork(f).work;
}
