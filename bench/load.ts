/**
 * Section `load`: N concurrent SSE clients on one real gateway (the built `packages/server/dist/main.js`,
 * what `npm start` runs — the section runs `npm run build` first — in its own process) running the
 * demo agent at full speed (no pause between events), rate limit and per-caller cap out of the way,
 * on each store: SQLite (a temporary data dir), PostgreSQL (a schema of its own, dropped after;
 * skipped with a note when unreachable) and the in-memory store (`memory:`, the baseline: the
 * gateway with a store that does no I/O). Each store's row is compared with the memory row of the
 * same N: its events/s ÷ memory's, its p99 TTFB ÷ memory's.
 *
 * Every client POSTs `/api/chat` (loopback, one connection each) and reads its whole UI message
 * stream. Measured per N: time to first body byte (p50 / p99, from the request's start), SSE events
 * received by all clients / wall time, and the server's memory per open stream: (peak RSS during the
 * load − RSS when idle after the warm-up) / the most streams open at once (header received,
 * `[DONE]` not yet): what the measured round added. Every stream is checked: status 200, ends with
 * `data: [DONE]`, carries the demo's answer.
 *
 * Before the measured round the gateway serves `warmup` runs (default 1,000, in rounds of at most
 * 100 clients), so that V8's optimizing compilers have compiled its code, as on a server that has
 * been up for a while; with 20 (`--load-warmup 20`, a cold server), the measured round also pays
 * for compiling the code of every run's start, and for growing the heap and SQLite's page caches
 * (MB/stream ≈ 0.3 then, against ≈ 0.1 warm).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoScript } from '../packages/server/src/agents/demo.ts';
import { fail, fixed, int, table } from './harness.ts';
import { parseUiSse, summarize } from './verify.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = join(ROOT, 'node_modules/.bin/node');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const MAIN = join(ROOT, 'packages/server/dist/main.js');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The stores the section can run on. */
export const LOAD_STORES = ['sqlite', 'postgres', 'memory'] as const;
export type LoadStore = (typeof LOAD_STORES)[number];
/** The default prompt: the demo's full script, every block kind. */
export const LOAD_PROMPT = 'Hello from the load benchmark';
/** The default number of warm-up runs. */
export const LOAD_WARMUP = 1000;
/** Most clients at once in a warm-up round. */
const WARMUP_ROUND = 100;

export interface LoadOptions {
  /** Concurrent clients, one server per value (e.g. [100, 1000]). */
  clients: number[];
  /** Stores, one server per store and N (default: all three). */
  stores?: readonly LoadStore[];
  /** Extra node arguments of the gateway process (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Skip `npm run build` (the dist is known to be fresh). */
  noBuild?: boolean;
  /**
   * The prompt every client sends (default {@link LOAD_PROMPT}). A short script, `text hi` (9
   * SSE events), leaves mostly the start of each run: what time to first byte is made of.
   */
  prompt?: string;
  /** Runs served before the measured round (default {@link LOAD_WARMUP}; at least 1). */
  warmup?: number;
}

/** What every client sends, and the text its stream must carry. */
interface Workload {
  prompt: string;
  expected: string;
  /** Warm-up runs before the measured round. */
  warmup: number;
}

export interface LoadRow {
  store: LoadStore;
  clients: number;
  /** Time to first byte, from the request written to the socket. */
  ttfbP50Ms: number;
  ttfbP99Ms: number;
  /** p99 time to first byte from the request's creation in the load generator (its own queueing included). */
  ttfbP99FromStartMs: number;
  wallMs: number;
  events: number;
  eventsPerSecond: number;
  /** Most streams open at the same time (client side). */
  peakOpen: number;
  idleRssMb: number;
  peakRssMb: number;
  mbPerStream: number;
  /** The gateway's CPU time (user + system) per SSE event delivered, µs: steadier than events/s on a busy machine. */
  cpuUsPerEvent: number;
  /** The same for the gateway's main thread alone (its event loop): what bounds events/s while another thread writes. */
  loopUsPerEvent: number;
  failures: number;
  /** The first failure, when any. */
  firstFailure?: string;
  /** This store's time ÷ the memory store's at the same N (wall time, i.e. memory's events/s ÷ this one's). */
  timeVsMemory?: number;
  /** p99 TTFB ÷ memory's at the same N. */
  p99VsMemory?: number;
}

export interface LoadResult {
  prompt: string;
  /** Runs each gateway served before its measured round. */
  warmup: number;
  eventsPerStream: number;
  rows: LoadRow[];
  /** Stores that could not run, and why. */
  skipped: { store: LoadStore; reason: string }[];
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A field of /proc/<pid>/status in MB (Linux), NaN elsewhere. */
export function procMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time (user + system) in ms of a process (all its threads), or of one of its threads with
 * `tid` (the process id itself: the main thread), from /proc (Linux; NaN elsewhere).
 */
function procCpuMs(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 (utime, stime) in clock ticks: 100 per second on Linux.
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Resets the peak RSS (VmHWM) of a process we own; false where the kernel does not allow it. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface Server {
  child: ChildProcess;
  pid: number;
  host: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts a built gateway (`main`: default this checkout's) in its own process, on a free loopback port. */
export async function startGateway(
  dataDir: string,
  config: string,
  storeEnv: Record<string, string>,
  nodeArgs: string[],
  main = MAIN,
): Promise<Server> {
  const child = spawn(NODE, [...nodeArgs, main], {
    cwd: dataDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_CONFIG: config,
      SWITCHBOARD_RATE_LIMIT_PER_MINUTE: '100000000',
      SWITCHBOARD_MAX_RUNS_PER_CALLER: '0',
      ...storeEnv,
    },
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  let err = '';
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const early = (code: number | null) => fail(`the gateway exited with ${code} before listening\n${err}`);
  child.on('exit', early);
  const url = await new Promise<URL>((done) => {
    let out = '';
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        done(new URL(m[1]));
      }
    };
    child.stdout?.on('data', onData);
  });
  child.off('exit', early);
  // `fail` exits at once: the gateway must not outlive the bench.
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  return {
    child,
    pid: child.pid ?? fail('the gateway has no pid'),
    host: url.hostname,
    port: Number(url.port),
    stop: async () => {
      process.off('exit', kill);
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What one client received. */
interface Received {
  /** From the request written to the socket to the first body byte. */
  ttfbMs: number;
  /** From the request's creation in this process to the first body byte (includes this load generator's own queueing). */
  ttfbFromStartMs: number;
  status: number;
  /** The whole body. */
  text: string;
  /** A transport error (the request or the response failed). */
  error?: string;
}

/** A received stream, checked. */
interface StreamResult extends Omit<Received, 'text'> {
  events: number;
  /** Why the stream is wrong, when it is. */
  error?: string;
}

/**
 * Checks one stream: status 200, `data: [DONE]` at the end, the demo's text, a finish chunk. Run
 * after the round, not as each stream ends: the load generator shares the machine's cores with the
 * gateway, and during the timed window it only reads bytes (as wrk and autocannon do).
 */
function checkStream(r: Received, expected: string): StreamResult {
  const { text, ...rest } = r;
  if (r.error) return { ...rest, events: 0 };
  const events = text.split('\n\n').filter((e) => e.includes('data:')).length;
  let error: string | undefined;
  if (r.status !== 200) error = `status ${r.status}: ${text.slice(0, 200)}`;
  else if (!text.endsWith('data: [DONE]\n\n')) error = 'the stream does not end with data: [DONE]';
  else {
    const s = summarize(parseUiSse(text));
    if (s.text !== expected) error = `text ${JSON.stringify(s.text.slice(0, 80))}… differs from the demo's answer`;
    else if (!s.finished) error = 'no finish chunk';
  }
  return { ...rest, events, ...(error ? { error } : {}) };
}

/** One client: POST /api/chat, read the whole SSE body (checked later: `checkStream`). */
function oneClient(server: Server, agent: Agent, prompt: string, id: string, open: { now: number; peak: number }): Promise<Received> {
  const body = JSON.stringify({
    id,
    agent: 'demo',
    trigger: 'submit-message',
    messages: [{ id: `${id}-u`, role: 'user', parts: [{ type: 'text', text: prompt }] }],
  });
  return new Promise((done) => {
    const t0 = performance.now();
    // TTFB counts from the request written to the socket, as wrk and autocannon count latency: one
    // process creating a thousand requests takes ≈ 0.2 ms each, so the last one is written ≈ 200 ms
    // after the first, which is this load generator's queue, not the server's.
    let sentAt = Number.NaN;
    let firstAt = Number.NaN;
    const req = request(
      {
        agent,
        host: server.host,
        port: server.port,
        method: 'POST',
        path: '/api/chat',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        open.now++;
        if (open.now > open.peak) open.peak = open.now;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (s: string) => {
          if (text === '') firstAt = performance.now();
          text += s;
        });
        res.on('error', (e) => {
          open.now--;
          done({ ...ttfb(), status: res.statusCode ?? 0, text, error: e.message });
        });
        res.on('end', () => {
          open.now--;
          done({ ...ttfb(), status: res.statusCode ?? 0, text });
        });
      },
    );
    const ttfb = () => ({ ttfbMs: firstAt - sentAt, ttfbFromStartMs: firstAt - t0 });
    req.on('finish', () => {
      sentAt = performance.now();
    });
    req.on('error', (e) => done({ ...ttfb(), status: 0, text: '', error: e.message }));
    req.end(body);
  });
}

/** N clients at once; what each received (unchecked: `checkStream`). */
async function round(server: Server, prompt: string, n: number, label: string, open: { now: number; peak: number }): Promise<Received[]> {
  const agent = new Agent({ keepAlive: false, maxSockets: n });
  try {
    return await Promise.all(Array.from({ length: n }, (_, i) => oneClient(server, agent, prompt, `${label}-${i}`, open)));
  } finally {
    agent.destroy();
  }
}

/** The demo's answer to a prompt. */
function expectedAnswer(prompt: string): string {
  let text = '';
  for (const e of demoScript(prompt)) if (e.type === 'text') text += (e.data as { content: string }).content;
  return text;
}

/** Whether PostgreSQL answers (the bench skips its rows with a note when not). */
async function postgresReason(): Promise<string | undefined> {
  try {
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
    await c.connect();
    await c.end();
    return undefined;
  } catch (err) {
    return `PostgreSQL not reachable at DATABASE_URL: ${(err as Error).message}`;
  }
}

async function dropSchema(schema: string): Promise<void> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
}

/** A warm-up round of `n` clients, every stream checked. */
async function warmUp(server: Server, work: Workload, n: number, label: string, store: LoadStore): Promise<StreamResult[]> {
  const results = (await round(server, work.prompt, n, label, { now: 0, peak: 0 })).map((r) => checkStream(r, work.expected));
  const bad = results.find((r) => r.error);
  if (bad) fail(`load (${store}): warm-up request failed: ${bad.error}`);
  return results;
}

/** One store at one N: a fresh gateway, a warm-up, then N clients at once. */
async function measure(
  store: LoadStore,
  n: number,
  work: Workload,
  nodeArgs: string[],
): Promise<{ row: LoadRow; eventsPerStream: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-load-'));
  const config = join(dir, 'switchboard.config.json');
  await writeFile(config, JSON.stringify({ builtins: { demo: { delayMs: 0 } } }));
  const schema = `sb_load_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const storeEnv: Record<string, string> =
    store === 'postgres'
      ? { DATABASE_URL: `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}schema=${schema}` }
      : store === 'memory'
        ? { SWITCHBOARD_STORE_URL: 'memory:' }
        : {};
  const server = await startGateway(dir, config, storeEnv, nodeArgs);
  try {
    const warm = await warmUp(server, work, Math.min(WARMUP_ROUND, work.warmup), `warm${n}`, store);
    for (let done = warm.length, k = 1; done < work.warmup; k++) {
      const size = Math.min(WARMUP_ROUND, work.warmup - done);
      await warmUp(server, work, size, `warm${n}-${k}`, store);
      done += size;
    }
    const idleRssMb = procMb(server.pid, 'VmRSS');
    const hwm = resetPeak(server.pid);
    let sampledPeak = idleRssMb;
    const sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, procMb(server.pid, 'VmRSS'));
    }, 5);
    const open = { now: 0, peak: 0 };
    const cpu0 = procCpuMs(server.pid);
    const loop0 = procCpuMs(server.pid, server.pid);
    const t0 = performance.now();
    const received = await round(server, work.prompt, n, `load${n}`, open);
    const wallMs = performance.now() - t0;
    const cpuMs = procCpuMs(server.pid) - cpu0;
    const loopMs = procCpuMs(server.pid, server.pid) - loop0;
    clearInterval(sampler);
    const peakRssMb = Math.max(sampledPeak, hwm ? procMb(server.pid, 'VmHWM') : 0);
    // Every stream checked, once the timed window is over.
    const results = received.map((r) => checkStream(r, work.expected));
    const failed = results.filter((r) => r.error);
    const sorted = (xs: number[]) => xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    const ttfb = sorted(results.map((r) => r.ttfbMs));
    const events = results.reduce((sum, r) => sum + r.events, 0);
    return {
      eventsPerStream: warm[0].events,
      row: {
        store,
        clients: n,
        ttfbP50Ms: percentile(ttfb, 50),
        ttfbP99Ms: percentile(ttfb, 99),
        ttfbP99FromStartMs: percentile(sorted(results.map((r) => r.ttfbFromStartMs)), 99),
        wallMs,
        events,
        eventsPerSecond: events / (wallMs / 1000),
        peakOpen: open.peak,
        idleRssMb,
        peakRssMb,
        mbPerStream: (peakRssMb - idleRssMb) / Math.max(1, open.peak),
        cpuUsPerEvent: (cpuMs * 1000) / Math.max(1, events),
        loopUsPerEvent: (loopMs * 1000) / Math.max(1, events),
        failures: failed.length,
        ...(failed[0]?.error ? { firstFailure: failed[0].error } : {}),
      },
    };
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    if (store === 'postgres') await dropSchema(schema).catch(() => {});
  }
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const prompt = options.prompt ?? LOAD_PROMPT;
  const warmup = Math.max(1, Math.trunc(options.warmup ?? LOAD_WARMUP));
  const work: Workload = { prompt, expected: expectedAnswer(prompt), warmup };
  const stores = options.stores ?? LOAD_STORES;
  const nodeArgs = options.nodeArgs ?? [];
  if (!options.noBuild) {
    // The gateway runs from dist (what `npm start` runs): build it so it is current.
    execFileSync(NPM, ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  console.log(
    `\nload) Concurrent SSE clients on one gateway (node packages/server/dist/main.js, own process), demo agent at full speed, per store\n` +
      `   each client: POST /api/chat on 127.0.0.1 (one connection), prompt ${JSON.stringify(prompt)}${prompt === LOAD_PROMPT ? ' (every block kind)' : ''}, whole stream read (and checked after the round);\n` +
      `   a fresh server per row, ${int(warmup)} warm-up runs (rounds of ≤ ${WARMUP_ROUND}: compiled code, as on a server up for a while), then all N at once. TTFB: from the request written to the socket to the first body byte\n` +
      `   (p99 from start: from its creation here, this process's own queueing included). MB/stream = (peak RSS − idle RSS) / most streams open at once;\n` +
      `   × memory = this store's wall time ÷ the in-memory store's at the same N (1.00 = no cost for durability)\n`,
  );
  const rows: LoadRow[] = [];
  const skipped: { store: LoadStore; reason: string }[] = [];
  let eventsPerStream = 0;
  for (const store of stores) {
    if (store === 'postgres') {
      const reason = await postgresReason();
      if (reason) {
        skipped.push({ store, reason });
        continue;
      }
    }
    for (const n of options.clients) {
      const m = await measure(store, n, work, nodeArgs);
      eventsPerStream = m.eventsPerStream;
      rows.push(m.row);
    }
  }
  for (const r of rows) {
    const base = rows.find((b) => b.store === 'memory' && b.clients === r.clients);
    if (!base) continue;
    r.timeVsMemory = r.wallMs / base.wallMs;
    r.p99VsMemory = r.ttfbP99Ms / base.ttfbP99Ms;
  }
  console.log(
    table(
      [
        'store',
        'clients',
        'p50 TTFB ms',
        'p99 TTFB ms',
        'p99 from start',
        'events/s',
        'wall ms',
        '× memory',
        'p99 × memory',
        'CPU µs/event',
        'loop µs/event',
        'open at peak',
        'idle→peak RSS MB',
        'MB/stream',
        'failures',
      ],
      rows.map((r) => [
        r.store,
        int(r.clients),
        fixed(r.ttfbP50Ms),
        fixed(r.ttfbP99Ms),
        fixed(r.ttfbP99FromStartMs),
        int(r.eventsPerSecond),
        int(r.wallMs),
        r.timeVsMemory === undefined ? '–' : fixed(r.timeVsMemory, 2),
        r.p99VsMemory === undefined ? '–' : fixed(r.p99VsMemory, 2),
        fixed(r.cpuUsPerEvent, 1),
        fixed(r.loopUsPerEvent, 1),
        int(r.peakOpen),
        `${int(r.idleRssMb)}→${int(r.peakRssMb)}`,
        fixed(r.mbPerStream, 3),
        int(r.failures),
      ]),
    ),
  );
  for (const s of skipped) console.log(`\n  ${s.store}: skipped — ${s.reason}`);
  console.log(
    `\n  ${eventsPerStream} SSE events per stream${prompt === LOAD_PROMPT ? " (the demo's full script)" : ''}; every stream checked: status 200, the demo's text, a finish chunk, data: [DONE].`,
  );
  const failedRow = rows.find((r) => r.failures > 0);
  if (failedRow)
    fail(`load (${failedRow.store}): ${failedRow.failures} of ${failedRow.clients} streams failed, first: ${failedRow.firstFailure}`);
  return { prompt, warmup, eventsPerStream, rows, skipped };
}
