/**
 * What every benchmark section shares: number formatting, plain-text tables, a loud failure, a full
 * GC before each timed run, and `measure`, the interleaved warm-up + median loop with a correctness
 * check of every run's output outside the timed region.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { firstDifference } from './verify.ts';

// A full GC before every timed run, so one contender's garbage is not collected on another's clock.
setFlagsFromString('--expose-gc');
export const gc = runInNewContext('gc') as () => void;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const fixed = (n: number, d = 1) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
export const ratio = (n: number) => `${n >= 10 ? fixed(n, 1) : fixed(n, 2)}x`;
/** 5000 → "5k", 80000 → "80k", 1500 → "1,500". */
export const short = (n: number) => (n % 1000 === 0 ? `${n / 1000}k` : int(n));

/** Plain-text table: first column left-aligned, the others right-aligned. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ')}`;
  return [line(head), `  ${widths.map((w) => '-'.repeat(w)).join('   ')}`, ...rows.map(line)].join('\n');
}

export function fail(message: string): never {
  process.stderr.write(`\nBENCHMARK FAILED: ${message}\n`);
  process.exit(1);
}

/** Fails unless `actual === expected`, saying where the two strings first differ. */
export function sameText(label: string, what: string, actual: string, expected: string): void {
  if (actual !== expected) fail(`${label}: ${what} differs from the input's (${firstDifference(actual, expected)})`);
}

/** Most runs a fast case gets (see `MeasureOptions.minTotalMs`). */
export const FAST_RUNS = 30;

/** Timed runs of a slow case (see `MeasureOptions.slowAboveMs`). */
export const SLOW_RUNS = 3;

/** "5 runs" or "5 runs (fast jobs: as many as fill 300 ms, up to 30; jobs over 1 s: 3)". */
export function runsText(runs: number, fastMs: number, slowAboveMs: number): string {
  const rules: string[] = [];
  if (fastMs > 0) rules.push(`fast jobs: as many as fill ${fastMs} ms, up to ${FAST_RUNS}`);
  if (slowAboveMs > 0 && runs > SLOW_RUNS) rules.push(`jobs over ${slowAboveMs / 1000} s: ${SLOW_RUNS}`);
  return rules.length > 0 ? `${runs} runs (${rules.join('; ')})` : `${runs} runs`;
}

/** One contender of a measurement: a full job, and a check of its output. */
export interface Case<T = unknown> {
  key: string;
  name: string;
  /** One full job; the whole call is timed. */
  run(): Promise<T>;
  /** Calls `fail` when the output is wrong. Called on every run's output, outside the timed region. */
  check(output: T, round: string): void;
}

export interface Measured {
  key: string;
  name: string;
  /** Median wall time of the timed runs, ns. */
  ns: number;
  /** Every timed run, ms (2 decimals). */
  runsMs: number[];
  /** True when the warm-up took so long that it was kept as the only measurement. */
  single: boolean;
}

export interface MeasureOptions {
  /** Timed runs per case after the warm-up. */
  runs: number;
  /**
   * A case whose warm-up run takes longer than this (ms) is not run again: that run is its
   * measurement (the code is already warm from the same job at a smaller size or from the other
   * cases). Keeps a quadratic contender from taking minutes.
   */
  singleAboveMs?: number;
  /** A case whose warm-up run takes longer than this (ms) gets `slowRuns` timed runs instead of `runs`. */
  slowAboveMs?: number;
  slowRuns?: number;
  /**
   * A fast case runs more often: until its timed runs add up to about this many ms (estimated from
   * its warm-up), at most `maxRuns` times. Steadier medians for millisecond jobs on a busy machine.
   */
  minTotalMs?: number;
  maxRuns?: number;
}

/**
 * Runs every case once (warm-up, checked), then `runs` more times (fast cases more, slow ones once:
 * see the options), interleaved (round-robin, rotating the order) with a full GC before each run;
 * returns the medians. Every run's output is checked.
 */
export async function measure(cases: readonly Case[], options: MeasureOptions): Promise<Measured[]> {
  const times = new Map<string, number[]>(cases.map((c) => [c.key, []]));
  const single = new Set<string>();
  const planned = new Map<string, number>(cases.map((c) => [c.key, options.runs]));
  const once = async (c: Case, round: string): Promise<number> => {
    gc();
    const t0 = process.hrtime.bigint();
    const out = await c.run();
    const ns = Number(process.hrtime.bigint() - t0);
    c.check(out, `${c.name} (${round})`);
    return ns;
  };
  for (const c of cases) {
    const ns = await once(c, 'warm-up');
    if (options.singleAboveMs !== undefined && ns / 1e6 > options.singleAboveMs) {
      single.add(c.key);
      times.get(c.key)?.push(ns);
    } else if (options.slowAboveMs !== undefined && ns / 1e6 > options.slowAboveMs) {
      planned.set(c.key, Math.min(options.runs, options.slowRuns ?? options.runs));
    } else if (options.minTotalMs) {
      const wanted = Math.ceil(options.minTotalMs / Math.max(ns / 1e6, 0.01));
      planned.set(c.key, Math.max(options.runs, Math.min(options.maxRuns ?? options.runs, wanted)));
    }
  }
  const repeated = cases.filter((c) => !single.has(c.key));
  const rounds = Math.max(0, ...repeated.map((c) => planned.get(c.key) ?? 0));
  for (let r = 0; r < rounds; r++) {
    const due = repeated.filter((c) => (planned.get(c.key) ?? 0) > r);
    for (let i = 0; i < due.length; i++) {
      const c = due[(i + r) % due.length];
      times.get(c.key)?.push(await once(c, `run ${r + 1}`));
    }
  }
  return cases.map((c) => {
    const runs = times.get(c.key) ?? [];
    return {
      key: c.key,
      name: c.name,
      ns: median(runs),
      runsMs: runs.map((x) => Math.round(x / 1e4) / 100),
      single: single.has(c.key),
    };
  });
}
