/**
 * Section `big`: what one big run costs the gateway. A process agent prints `mb` MB of output in
 * the simplified Claude agent line format — text in 1 KB lines, or tool calls whose results are
 * 256 KB each — to a real gateway (the built `packages/server/dist/main.js`, SQLite in a temporary
 * data dir), and one client reads the whole AI SDK stream. Per size: wall seconds (request to
 * `[DONE]`), seconds per MB, and — a fresh gateway for each run — its RSS when idle before the run,
 * its peak RSS during it and its RSS a second after it ended.
 *
 * `--baseline DIR` runs the same sizes against another checkout's built gateway (e.g. a worktree of
 * an older commit, after its own `npm ci` and `npm run build`), side by side, in the same run.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail } from './harness.ts';
import { procMb, resetPeak, type Server, startGateway } from './load.ts';

export interface BigOptions {
  /** Output sizes in MB (default 5, 10, 20). */
  sizes: number[];
  /** Another checkout to measure beside this one (its `packages/server/dist/main.js`). */
  baseline?: string;
}

export interface BigRow {
  tree: 'this' | 'baseline';
  kind: 'text' | 'tool';
  mb: number;
  seconds: number;
  secondsPerMb: number;
  /** The SSE bytes the client read. */
  streamMb: number;
  idleRssMb: number;
  peakRssMb: number;
  /** RSS a second after the run ended. */
  afterRssMb: number;
}

/** The agent: prints `BIG_MB` MB of text lines, or of tool results (`BIG_KIND=tool`), then `done`. */
const AGENT = `
const mb = Number(process.env.BIG_MB), kind = process.env.BIG_KIND;
const line = (type, data) => JSON.stringify({ type, data }) + '\\n';
const out = [];
let size = 0;
const write = (s) => { out.push(s); size += s.length; if (size > 1 << 20) { process.stdout.write(out.join('')); out.length = 0; size = 0; } };
process.stdin.resume();
process.stdin.on('end', () => {
  if (kind === 'tool') {
    const result = 'r'.repeat(256 * 1024);
    for (let i = 0; i < mb * 4; i++) {
      write(line('tool_use', { id: 'call_' + i, name: 'read_file', input: { path: 'part-' + i + '.txt' } }));
      write(line('tool_result', { tool_use_id: 'call_' + i, content: result }));
    }
    write(line('text', { content: 'Read them all.' }));
  } else {
    const text = 'x'.repeat(1023) + '\\n';
    for (let i = 0; i < mb * 1024; i++) write(line('text', { content: text }));
  }
  write(line('done', {}));
  process.stdout.write(out.join(''));
});
`;

function post(server: Server, path: string, body: unknown): Promise<number> {
  return new Promise((done, reject) => {
    const req = request(
      { host: server.host, port: server.port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        let bytes = 0;
        let tail = '';
        res.on('data', (b: Buffer) => {
          bytes += b.length;
          tail = (tail + b.toString('latin1')).slice(-64);
        });
        res.on('end', () => (tail.includes('[DONE]') ? done(bytes) : reject(new Error('the stream did not end with [DONE]'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function measureTree(tree: BigRow['tree'], main: string | undefined, sizes: readonly number[]): Promise<BigRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-big-'));
  const rows: BigRow[] = [];
  try {
    await writeFile(join(dir, 'agent.mjs'), AGENT);
    const agents = ['text', 'tool'].flatMap((kind) =>
      sizes.map((mb) => ({
        name: `big-${kind}-${mb}`,
        command: process.execPath,
        args: [join(dir, 'agent.mjs')],
        framework: 'claude',
        setEnv: { BIG_MB: String(mb), BIG_KIND: kind },
        timeoutMs: 600_000,
        idleTimeoutMs: 600_000,
      })),
    );
    const config = join(dir, 'switchboard.config.json');
    await writeFile(config, JSON.stringify({ agents }));
    // A fresh gateway for each run, so that its peak is this run's alone.
    for (const kind of ['text', 'tool'] as const)
      for (const mb of sizes) {
        const server = await startGateway(dir, config, {}, [], main);
        try {
          await pause(1000);
          const idleRssMb = procMb(server.pid, 'VmRSS');
          resetPeak(server.pid);
          const t0 = performance.now();
          const bytes = await post(server, `/api/chat?agent=big-${kind}-${mb}`, {
            id: `big-${kind}-${mb}`,
            messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go' }] }],
          }).catch((err: Error) => fail(`big ${kind} ${mb} MB (${tree}): ${err.message}`));
          const seconds = (performance.now() - t0) / 1000;
          const peakRssMb = procMb(server.pid, 'VmHWM');
          await pause(1000);
          rows.push({
            tree,
            kind,
            mb,
            seconds,
            secondsPerMb: seconds / mb,
            streamMb: bytes / 1024 / 1024,
            idleRssMb,
            peakRssMb,
            afterRssMb: procMb(server.pid, 'VmRSS'),
          });
        } finally {
          await server.stop();
        }
      }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Runs the section: this checkout, then the baseline's when given. */
export async function big(options: BigOptions): Promise<BigRow[]> {
  const rows = await measureTree('this', undefined, options.sizes);
  if (options.baseline)
    rows.push(...(await measureTree('baseline', join(options.baseline, 'packages/server/dist/main.js'), options.sizes)));
  return rows;
}
