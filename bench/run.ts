/**
 * `npm run bench`: Switchboard against the official paths, from one run.
 *
 * 1. convert, in process: a 20,000-text-delta Anthropic Messages SSE body → AI SDK UI message
 *    stream, ours vs the official Vercel AI SDK path, ns per text delta.
 * 2. process, whole process: a 100,000-delta capture on disk converted by `switchboard convert` vs
 *    an equivalent official script, wall clock.
 * 3. readers: AI SDK UI message streams and AG-UI streams read back (5k / 20k / 80k text deltas,
 *    1k / 4k one-character tool-input deltas), ours vs `readUIMessageStream` and `HttpAgent.runAgent`.
 * 4. think: `<think>` extraction, ours vs `extractReasoningMiddleware`.
 * 5. load: 100 and 1,000 concurrent SSE clients on one gateway process with the demo agent at full
 *    speed: p50/p99 time to first byte, aggregate events/s, server memory per open stream.
 * 6. big: one run of 5 / 10 / 20 MB of text or tool output through the gateway: seconds per MB, peak
 *    RSS, RSS after the run; with --baseline DIR, another checkout's gateway beside it.
 *
 * Every timed run's output is checked (same text / reasoning / tool input on every side); any
 * difference stops the benchmark. Ends with one `BENCH_JSON {...}` line holding every number.
 *
 * Options: --only convert|process|readers|think|load|big|web (one section), --quick (small sizes, seconds),
 * --runs N (default 5), --deltas N, --process-deltas N, --process-runs N (default 3),
 * --skip-process, --reader-sizes N,N,N, --tool-sizes N,N, --think-deltas N, --load-clients N,N,
 * --big-sizes N,N,N (MB), --baseline DIR (the big section's other checkout), --load-stores sqlite,postgres,memory, --load-node-args "--cpu-prof --cpu-prof-dir=/tmp/prof", --load-prompt "text hi", --load-warmup N (default 1000).
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BigRow, big } from './big.ts';
import { type Contender, floor, officialAnthropic, officialMockObjects, officialMockResponse, ours } from './contenders.ts';
import { type AnthropicFixture, anthropicFixture } from './fixtures.ts';
import { fail, fixed, gc, int, median, ratio, table } from './harness.ts';
import { LOAD_STORES, type LoadResult, type LoadStore, load } from './load.ts';
import { type ReadersResult, readers } from './readers.ts';
import { type ThinkResult, think } from './think.ts';
import { firstDifference, parseUiSse, type StreamSummary, summarize, summarizeOutput } from './verify.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    runs: { type: 'string' },
    quick: { type: 'boolean', default: false },
    deltas: { type: 'string' },
    'process-deltas': { type: 'string' },
    'process-runs': { type: 'string' },
    'skip-process': { type: 'boolean', default: false },
    'reader-sizes': { type: 'string' },
    'tool-sizes': { type: 'string' },
    'think-deltas': { type: 'string' },
    'big-sizes': { type: 'string' },
    baseline: { type: 'string' },
    'load-clients': { type: 'string' },
    'load-stores': { type: 'string' },
    'load-node-args': { type: 'string' },
    'load-prompt': { type: 'string' },
    'load-warmup': { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});

function intArg(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

function sizesArg(value: string | undefined, fallback: number[], name: string): number[] {
  if (value === undefined) return fallback;
  const sizes = value.split(',').map((v) => intArg(v.trim(), 0, name));
  return [...new Set(sizes)].sort((a, b) => a - b);
}

const SECTIONS = ['convert', 'process', 'readers', 'think', 'load', 'big', 'web'] as const;
type Section = (typeof SECTIONS)[number];
if (args.only !== undefined && !(SECTIONS as readonly string[]).includes(args.only))
  throw new Error(`--only must be one of ${SECTIONS.join(', ')}, got ${JSON.stringify(args.only)}`);
const runs = (section: Section) => (args.only === undefined ? section !== 'process' || !args['skip-process'] : args.only === section);

const quick = args.quick ?? false;
const RUNS = intArg(args.runs, quick ? 2 : 5, 'runs');
const DELTAS = intArg(args.deltas, quick ? 2_000 : 20_000, 'deltas');
const PROCESS_DELTAS = intArg(args['process-deltas'], quick ? 10_000 : 100_000, 'process-deltas');
const PROCESS_RUNS = intArg(args['process-runs'], quick ? 1 : 3, 'process-runs');
const READER_SIZES = sizesArg(args['reader-sizes'], quick ? [1_000, 4_000] : [5_000, 20_000, 80_000], 'reader-sizes');
const TOOL_SIZES = sizesArg(args['tool-sizes'], quick ? [250, 1_000] : [1_000, 4_000], 'tool-sizes');
const THINK_DELTAS = intArg(args['think-deltas'], quick ? 2_000 : 20_000, 'think-deltas');
const LOAD_CLIENTS = sizesArg(args['load-clients'], quick ? [20, 100] : [100, 1_000], 'load-clients');
const LOAD_STORE_LIST = (args['load-stores']?.split(',').map((s) => s.trim()) ?? [...LOAD_STORES]) as LoadStore[];
for (const s of LOAD_STORE_LIST)
  if (!(LOAD_STORES as readonly string[]).includes(s))
    fail(`--load-stores: unknown store ${JSON.stringify(s)} (expected ${LOAD_STORES.join(', ')})`);
/** A reader run longer than this is not repeated (the official AG-UI client at 80k deltas takes 10–25 s per run). */
const SINGLE_ABOVE_MS = 6_000;
/** Readers and think: a fast job runs until its runs add up to about this many ms (more runs, steadier medians); off in quick mode. */
const FAST_MS = quick ? 0 : 300;
/** Readers: a job whose warm-up takes over this many ms gets 3 timed runs, not 5 (keeps the full run within ~2 minutes on 2 idle cores). */
const SLOW_ABOVE_MS = 1_000;

/** Our output and every official output must say the same thing as the fixture. */
function check(label: string, s: StreamSummary, f: AnthropicFixture, full: boolean): void {
  if (s.text !== f.text) fail(`${label}: concatenated text differs from the input's (${firstDifference(s.text, f.text)})`);
  if (s.textDeltas !== f.textDeltas.length) fail(`${label}: ${s.textDeltas} text deltas, expected ${f.textDeltas.length}`);
  if (!full) return;
  if (s.reasoning !== f.reasoning) fail(`${label}: reasoning differs (${firstDifference(s.reasoning, f.reasoning)})`);
  if (!s.finished) fail(`${label}: no finish chunk`);
}

// ---------------------------------------------------------------------------------------------
// 1. In process
// ---------------------------------------------------------------------------------------------

interface InProcessResult {
  key: string;
  name: string;
  nsPerDelta: number;
  msPerRun: number;
  runsMs: number[];
  outBytes: number;
  chunks: number;
}

async function inProcess(): Promise<{ fixture: AnthropicFixture; results: InProcessResult[] }> {
  const f = anthropicFixture({ textDeltas: DELTAS });
  const contenders: Contender[] = [ours(f), officialMockObjects(f), officialMockResponse(f), officialAnthropic(f), floor(f)];
  const times = new Map<string, number[]>(contenders.map((c) => [c.key, []]));
  const info = new Map<string, { bytes: number; chunks: number }>();

  console.log(
    `1) In process: Anthropic Messages SSE → AI SDK UI message stream SSE\n` +
      `   input: ${int(f.textDeltas.length)} text deltas (+${f.thinkingDeltas.length} thinking deltas), ` +
      `${fixed(f.bytes.byteLength / 1e6, 2)} MB, fed in 64 KiB chunks; ` +
      `1 warm-up + median of ${RUNS} runs each, runs interleaved, full GC before each\n`,
  );

  const once = async (c: Contender, round: string): Promise<number> => {
    gc();
    const t0 = process.hrtime.bigint();
    const out = await c.run();
    const ns = Number(process.hrtime.bigint() - t0);
    // Checked outside the timed region, on every run.
    const s = summarizeOutput(out.output);
    check(`${c.name} (${round})`, s, f, c.key !== 'floor');
    info.set(c.key, { bytes: out.bytes, chunks: s.chunks });
    return ns;
  };

  for (const c of contenders) await once(c, 'warm-up');
  for (let r = 0; r < RUNS; r++) {
    // Rotate the order so that no contender always runs right after the same other one.
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(i + r) % contenders.length];
      times.get(c.key)?.push(await once(c, `run ${r + 1}`));
    }
  }

  const results = contenders.map((c) => {
    const runs = times.get(c.key) ?? [];
    const ns = median(runs);
    const meta = info.get(c.key) ?? { bytes: 0, chunks: 0 };
    return {
      key: c.key,
      name: c.name,
      nsPerDelta: ns / f.textDeltas.length,
      msPerRun: ns / 1e6,
      runsMs: runs.map((x) => Math.round(x / 1e4) / 100),
      outBytes: meta.bytes,
      chunks: meta.chunks,
    };
  });
  const base = results[0].nsPerDelta;
  console.log(
    table(
      ['contender', 'ns/delta', 'ms/run', 'min–max ms', 'out bytes', 'UI chunks', 'vs ours'],
      results.map((r) => [
        r.name,
        int(r.nsPerDelta),
        fixed(r.msPerRun),
        `${fixed(Math.min(...r.runsMs))}–${fixed(Math.max(...r.runsMs))}`,
        r.outBytes ? int(r.outBytes) : '(objects)',
        int(r.chunks),
        ratio(r.nsPerDelta / base),
      ]),
    ),
  );
  console.log(
    `\n  text check: all outputs carry the same ${int(f.text.length)} characters of text in ${int(f.textDeltas.length)} deltas ` +
      `(and the same reasoning) on every run.`,
  );
  return { fixture: f, results };
}

// ---------------------------------------------------------------------------------------------
// 2. Whole process
// ---------------------------------------------------------------------------------------------

const NODE = join(ROOT, 'node_modules/.bin/node');

interface Command {
  label: string;
  args: string[];
  note?: string;
}

/** The real CLI when it is there (run with the pinned Node, not its shebang's), else the fallback script. */
function oursCommand(file: string): Command {
  const convert = ['convert', '--from', 'anthropic', '--to', 'ai-sdk', file];
  for (const candidate of [join(ROOT, 'node_modules/.bin/switchboard'), join(ROOT, 'packages/server/bin/switchboard.js')]) {
    if (existsSync(candidate))
      return { label: 'ours: switchboard convert --from anthropic --to ai-sdk', args: [realpathSync(candidate), ...convert] };
  }
  return {
    label: 'ours: bench/ours-convert.ts (createConverter)',
    args: [join(ROOT, 'bench/ours-convert.ts'), file],
    note: 'the switchboard CLI (packages/server/bin/switchboard.js) does not exist yet: used the bench/ours-convert.ts fallback',
  };
}

/** Spawns the pinned Node; resolves with wall ns and stdout (when captured). Fails loudly on a non-zero exit. */
function spawnTimed(args: string[], capture: boolean): Promise<{ ns: number; stdout: string }> {
  return new Promise((done) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(NODE, args, { cwd: ROOT, stdio: ['ignore', capture ? 'pipe' : 'ignore', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => fail(`could not spawn ${NODE}: ${e.message}`));
    child.on('close', (code, signal) => {
      const ns = Number(process.hrtime.bigint() - t0);
      if (code !== 0) fail(`${args.join(' ')} exited with ${code ?? signal}\n${Buffer.concat(err).toString()}`);
      done({ ns, stdout: Buffer.concat(out).toString('utf8') });
    });
  });
}

interface ProcessResult {
  key: string;
  name: string;
  wallMs: number;
  runsMs: number[];
  outBytes: number;
}

async function wholeProcess(): Promise<{ results: ProcessResult[]; note?: string; inputBytes: number }> {
  const f = anthropicFixture({ textDeltas: PROCESS_DELTAS, seed: 2 });
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-bench-'));
  const file = join(dir, `anthropic-${PROCESS_DELTAS}.sse`);
  await writeFile(file, f.bytes);
  try {
    const oursCmd = oursCommand(file);
    const commands: (Command & { key: string })[] = [
      { key: 'ours_process', ...oursCmd },
      {
        key: 'official_process',
        label: 'official: bench/official-convert.ts (@ai-sdk/anthropic + streamText)',
        args: [join(ROOT, 'bench/official-convert.ts'), file],
      },
      { key: 'node_startup', label: 'reference: node -e "" (process start-up only)', args: ['-e', ''] },
    ];
    console.log(
      `\n2) Whole process: ${int(PROCESS_DELTAS)}-delta Anthropic capture (${fixed(f.bytes.byteLength / 1e6, 2)} MB file in ${tmpdir()}) → stdout\n` +
        `   spawned with ${relative(ROOT, NODE)} (${process.version}); wall clock, 1 warm-up (output checked) + median of ${PROCESS_RUNS}, stdout to /dev/null\n`,
    );
    if (oursCmd.note) console.log(`   NOTE: ${oursCmd.note}\n`);

    const bytes = new Map<string, number>();
    const summaries = new Map<string, StreamSummary>();
    for (const c of commands) {
      const { stdout } = await spawnTimed(c.args, true);
      if (c.key === 'node_startup') continue;
      const s = summarize(parseUiSse(stdout));
      check(`${c.label} (warm-up)`, s, f, true);
      summaries.set(c.key, s);
      bytes.set(c.key, Buffer.byteLength(stdout));
    }
    const a = summaries.get('ours_process');
    const b = summaries.get('official_process');
    if (a && b && a.text !== b.text) fail(`whole process: ours and official text differ (${firstDifference(a.text, b.text)})`);

    const times = new Map<string, number[]>(commands.map((c) => [c.key, []]));
    for (let r = 0; r < PROCESS_RUNS; r++) {
      for (let i = 0; i < commands.length; i++) {
        const c = commands[(i + r) % commands.length];
        times.get(c.key)?.push((await spawnTimed(c.args, false)).ns);
      }
    }
    const results = commands.map((c) => {
      const runs = times.get(c.key) ?? [];
      return {
        key: c.key,
        name: c.label,
        wallMs: median(runs) / 1e6,
        runsMs: runs.map((x) => Math.round(x / 1e4) / 100),
        outBytes: bytes.get(c.key) ?? 0,
      };
    });
    const base = results[0].wallMs;
    console.log(
      table(
        ['command', 'wall ms', 'min–max ms', 'out bytes', 'vs ours'],
        results.map((r) => [
          r.name,
          fixed(r.wallMs),
          `${fixed(Math.min(...r.runsMs))}–${fixed(Math.max(...r.runsMs))}`,
          r.outBytes ? int(r.outBytes) : '-',
          ratio(r.wallMs / base),
        ]),
      ),
    );
    return { results, note: oursCmd.note, inputBytes: f.bytes.byteLength };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const cpu = cpus();
console.log(
  `Switchboard benchmark — node ${process.version}, ${process.platform} ${process.arch}, ${cpu.length} CPU(s) (${cpu[0]?.model.trim() ?? '?'})` +
    `${quick ? ' — QUICK MODE (small sizes, not for quoting)' : ''}\n`,
);

const t0 = performance.now();
const json: Record<string, unknown> = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpu.length,
  cpuModel: cpu[0]?.model.trim(),
  quick,
  ...(args.only ? { only: args.only } : {}),
};

if (runs('convert')) {
  const one = await inProcess();
  const byKey = new Map(one.results.map((r) => [r.key, r]));
  const ns = (k: string) => byKey.get(k)?.nsPerDelta ?? Number.NaN;
  const summary = {
    oursVsOfficialMockResponse: ns('official_mock_response') / ns('ours'),
    oursVsOfficialAnthropic: ns('official_anthropic') / ns('ours'),
    floorVsOfficialAnthropic: ns('official_anthropic') / ns('floor'),
    oursVsFloor: ns('ours') / ns('floor'),
  };
  console.log(
    `\n  ours is ${ratio(summary.oursVsOfficialMockResponse)} faster than official (b2) and ${ratio(summary.oursVsOfficialAnthropic)} faster than official (c); ` +
      `target ≥ 5x: ${summary.oursVsOfficialMockResponse >= 5 && summary.oursVsOfficialAnthropic >= 5 ? 'met' : 'NOT MET'}\n` +
      `  the floor is ${ratio(summary.floorVsOfficialAnthropic)} below official (c); ours costs ${ratio(summary.oursVsFloor)} the floor`,
  );
  json.inProcess = { textDeltas: DELTAS, inputBytes: one.fixture.bytes.byteLength, runs: RUNS, results: one.results, ...summary };
}

if (runs('process')) {
  const two = await wholeProcess();
  const [a, b] = two.results;
  const processRatio = b.wallMs / a.wallMs;
  console.log(`\n  whole process: ours is ${ratio(processRatio)} faster than official (wall clock, including Node start-up)`);
  json.wholeProcess = {
    textDeltas: PROCESS_DELTAS,
    inputBytes: two.inputBytes,
    runs: PROCESS_RUNS,
    results: two.results,
    oursVsOfficial: processRatio,
    ...(two.note ? { note: two.note } : {}),
  };
}

if (runs('readers')) {
  const r: ReadersResult = await readers({
    textSizes: READER_SIZES,
    toolSizes: TOOL_SIZES,
    runs: RUNS,
    singleAboveMs: SINGLE_ABOVE_MS,
    fastMs: FAST_MS,
    slowAboveMs: SLOW_ABOVE_MS,
  });
  json.readers = { runs: RUNS, singleAboveMs: SINGLE_ABOVE_MS, slowAboveMs: SLOW_ABOVE_MS, fastMs: FAST_MS, ...r };
}

if (runs('think')) {
  const r: ThinkResult = await think({ deltas: THINK_DELTAS, runs: RUNS, fastMs: FAST_MS });
  json.think = { runs: RUNS, fastMs: FAST_MS, ...r };
}

if (runs('load')) {
  const r: LoadResult = await load({
    clients: LOAD_CLIENTS,
    stores: LOAD_STORE_LIST,
    noBuild: args['no-build'] ?? false,
    ...(args['load-prompt'] ? { prompt: args['load-prompt'] } : {}),
    ...(args['load-warmup'] ? { warmup: intArg(args['load-warmup'], 1000, 'load-warmup') } : {}),
    ...(args['load-node-args'] ? { nodeArgs: args['load-node-args'].split(' ').filter(Boolean) } : {}),
  });
  json.load = r;
}

if (runs('big')) {
  const sizes = sizesArg(args['big-sizes'], quick ? [1, 2, 4] : [5, 10, 20], 'big-sizes');
  console.log(`\n## big: one run of ${sizes.join(' / ')} MB of output through the gateway (SQLite)\n`);
  const rows: BigRow[] = await big({ sizes, ...(args.baseline ? { baseline: resolve(args.baseline) } : {}) });
  console.log(
    table(
      ['gateway', 'output', 'MB', 's', 's/MB', 'peak RSS MB', 'idle → after MB'],
      rows.map((r) => [
        r.tree === 'this' ? 'this checkout' : `baseline ${args.baseline}`,
        r.kind,
        String(r.mb),
        fixed(r.seconds, 2),
        fixed(r.secondsPerMb, 3),
        fixed(r.peakRssMb, 0),
        `${fixed(r.idleRssMb, 0)} → ${fixed(r.afterRssMb, 0)}`,
      ]),
    ),
  );
  for (const tree of ['this', 'baseline'] as const)
    for (const kind of ['text', 'tool'] as const) {
      const of = rows.filter((r) => r.tree === tree && r.kind === kind);
      const [small, large] = [of[0], of.at(-1)];
      if (small && large && large !== small)
        console.log(
          `  ${tree} ${kind}: ${large.mb} MB took ${fixed(large.seconds / small.seconds, 1)}x the ${small.mb} MB run (linear: ${fixed(large.mb / small.mb, 1)}x)`,
        );
    }
  json.big = { sizes, baseline: args.baseline, rows };
}

if (runs('web')) {
  // The web UI in Chromium: longest main-thread task and total render time at 5,000 / 20,000 deltas
  // (its own process: it starts a server and a browser). Skipped with a note where Chromium is missing.
  const code = await new Promise<number | null>((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'apps/web/bench/render.ts'), ...(args.quick ? ['--runs', '1'] : [])], {
      stdio: 'inherit',
    });
    child.on('exit', done);
  });
  if (code !== 0) fail(`the web render bench exited with ${code}`);
}

console.log(`\n  total: ${fixed((performance.now() - t0) / 1000, 1)} s`);
json.totalSeconds = (performance.now() - t0) / 1000;
console.log(`\nBENCH_JSON ${JSON.stringify(json)}`);
