/**
 * The fuzz driver: splits `runs` cases over worker threads; every case goes through every decoder
 * the CLI lists (and `auto`). Deterministic for a seed: case i uses seed + i, whatever the number of
 * workers. Failing inputs are written as reproducers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { FRAMEWORKS } from '../../packages/core/src/index.ts';
import { openSqliteStore } from '../../packages/store/src/index.ts';
import { checkInput, type Finding, type FindingKind } from './check.ts';
import { byteCase, type FuzzCase, structuredCase } from './generate.ts';

/** Every decoder the CLI lists, and `auto`. */
export const FUZZ_FRAMEWORKS = ['auto', ...Object.keys(FRAMEWORKS)];

export interface FuzzJob {
  seed: number;
  /** Case indexes [from, to). */
  from: number;
  to: number;
  frameworks: string[];
  /** Where to write reproducers (none when absent). */
  out?: string;
  /** Also append to a SQLite store (in memory). */
  store?: boolean;
}

/** What a worker posts: progress now and then, its result at the end. */
export type WorkerMessage = { type: 'progress'; cases: number; findings: number } | { type: 'result'; result: FuzzResult };

export interface FuzzResult {
  cases: number;
  /** framework → kind → count. */
  counts: Record<string, Partial<Record<FindingKind, number>>>;
  /** A few examples per kind. */
  examples: (Finding & { case: string; index: number })[];
}

/** The case with index i for a seed: even ones are byte mutations, odd ones structured values. */
export function caseAt(seed: number, i: number): FuzzCase {
  return i % 2 === 0 ? byteCase(seed + i) : structuredCase(seed + i);
}

function writeRepro(out: string, index: number, framework: string, c: FuzzCase, f: Finding): void {
  mkdirSync(out, { recursive: true });
  const base = join(out, `${f.kind}-${framework}-${index}`);
  if (c.kind === 'bytes') writeFileSync(`${base}.txt`, c.body);
  else {
    try {
      writeFileSync(`${base}.json`, JSON.stringify(c.values));
    } catch {
      writeFileSync(`${base}.json`, '"too deep to write"');
    }
  }
  writeFileSync(`${base}.why`, `${c.name}\n${f.kind}: ${f.note}\nnode test/fuzz/cli.ts --repro ${index} --frameworks ${framework}\n`);
}

/** Cases appended to one in-memory store before it is replaced by a fresh one. */
const STORE_CASES = 500;

/** Cases between two progress reports of a worker. */
const PROGRESS_EVERY = 100;

/** Told now and then how far a job got: cases done and findings so far (this job's). */
export type OnProgress = (cases: number, findings: number) => void;

function findingsIn(r: FuzzResult): number {
  let n = 0;
  for (const kinds of Object.values(r.counts)) for (const v of Object.values(kinds)) n += v ?? 0;
  return n;
}

/** Runs cases [from, to) in this thread. */
export async function runJob(job: FuzzJob, onProgress?: OnProgress): Promise<FuzzResult> {
  const result: FuzzResult = { cases: 0, counts: {}, examples: [] };
  let store = job.store ? await openSqliteStore({ path: ':memory:' }) : undefined;
  const seen = new Set<string>();
  for (let i = job.from; i < job.to; i++) {
    if (store && (i - job.from) % STORE_CASES === STORE_CASES - 1) {
      // A fresh in-memory database now and then: every case appends runs, so one database for a long
      // run would hold them all (memory grew by gigabytes over 100,000 cases).
      await store.close();
      store = await openSqliteStore({ path: ':memory:' });
    }
    const c = caseAt(job.seed, i);
    result.cases++;
    if (onProgress && result.cases % PROGRESS_EVERY === 0) onProgress(result.cases, findingsIn(result));
    const counted = new Set<string>();
    for (const f of await checkInput(c, job.seed + i, job.frameworks, store)) {
      const fw = f.framework;
      const key = `${fw}:${f.kind}`;
      if (counted.has(key)) continue; // count each kind once per input and decoder
      counted.add(key);
      result.counts[fw] ??= {};
      const per = result.counts[fw];
      per[f.kind] = (per[f.kind] ?? 0) + 1;
      if (!seen.has(key)) {
        seen.add(key);
        result.examples.push({ ...f, case: c.name, index: i });
        if (job.out) writeRepro(job.out, i, fw, c, f);
      }
    }
  }
  await store?.close();
  return result;
}

/** Runs `runs` cases over `workers` threads and merges the results. */
export async function runFuzz(options: {
  runs: number;
  seed: number;
  workers: number;
  frameworks?: string[];
  out?: string;
  store?: boolean;
  /** Told every few hundred cases how far the whole run got (all workers together). */
  onProgress?: OnProgress;
}): Promise<FuzzResult> {
  const frameworks = options.frameworks ?? FUZZ_FRAMEWORKS;
  const n = Math.max(1, Math.min(options.workers, options.runs));
  const per = Math.ceil(options.runs / n);
  const jobs: FuzzJob[] = [];
  for (let w = 0; w < n; w++) {
    const from = w * per;
    const to = Math.min(options.runs, from + per);
    if (from < to) jobs.push({ seed: options.seed, from, to, frameworks, out: options.out, store: options.store ?? true });
  }
  const progress = jobs.map(() => ({ cases: 0, findings: 0 }));
  const results = await Promise.all(
    jobs.map(
      (job, w) =>
        new Promise<FuzzResult>((resolve, reject) => {
          const worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData: job });
          worker.on('message', (m: WorkerMessage) => {
            if (m.type === 'result') return resolve(m.result);
            progress[w] = { cases: m.cases, findings: m.findings };
            options.onProgress?.(
              progress.reduce((a, p) => a + p.cases, 0),
              progress.reduce((a, p) => a + p.findings, 0),
            );
          });
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (code !== 0) reject(new Error(`fuzz worker exited with ${code}`));
          });
        }),
    ),
  );
  const merged: FuzzResult = { cases: 0, counts: {}, examples: [] };
  for (const r of results) {
    merged.cases += r.cases;
    merged.examples.push(...r.examples);
    for (const [fw, kinds] of Object.entries(r.counts)) {
      merged.counts[fw] ??= {};
      const into = merged.counts[fw];
      for (const [k, v] of Object.entries(kinds)) into[k as FindingKind] = (into[k as FindingKind] ?? 0) + (v ?? 0);
    }
  }
  return merged;
}

/** The counts as a table: one row per decoder, one column per kind. */
export function formatReport(r: FuzzResult, frameworks = FUZZ_FRAMEWORKS): string {
  const kinds: FindingKind[] = [
    'decode-throw',
    'split-differs',
    'validate-throw',
    'invalid-event',
    'encode-throw',
    'ai-sdk-rejected',
    'ag-ui-rejected',
    'schema-rejected',
    'store-throw',
    'input-mutated',
  ];
  const rows = [['decoder', ...kinds, 'total']];
  const total: number[] = kinds.map(() => 0);
  for (const fw of frameworks) {
    const c = r.counts[fw] ?? {};
    const vals = kinds.map((k) => c[k] ?? 0);
    vals.forEach((v, i) => {
      total[i] = (total[i] ?? 0) + v;
    });
    rows.push([fw, ...vals.map(String), String(vals.reduce((a, b) => a + b, 0))]);
  }
  rows.push(['TOTAL', ...total.map(String), String(total.reduce((a, b) => a + b, 0))]);
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  const lines = rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  '));
  return `${r.cases} inputs × ${frameworks.length} decoders (counts: inputs with at least one finding of that kind)\n${lines.join('\n')}\n`;
}
