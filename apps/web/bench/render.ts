/**
 * Render bench: how the real UI in a real browser copes with long streamed answers.
 *
 * A Switchboard server (the real pipeline: agent → claude decoder → canonical events → the store
 * (SQLite in a temporary data directory, removed at the end) → AI SDK encoder → SSE) runs a
 * synthetic agent, registered as `bench` and chosen in the UI's agent picker, that streams an
 * N-delta markdown answer as fast as the server can write it; Chromium (Debian's, through
 * playwright-core) shows it through the built UI (`useChat`, the tap, the incremental markdown
 * renderer). For N = 5,000 and 20,000 deltas it reports, in the browser:
 *
 * - total: from the click on Send to the last delta rendered in the DOM;
 * - ns/delta: total / N — constant when the cost grows linearly;
 * - longest task: the longest main-thread task (PerformanceObserver `longtask`, which reports
 *   tasks over 50 ms; "<50" when there was none);
 * - longest frame gap: the longest time between two animation frames while streaming (what a user
 *   feels as jank);
 * - commits: how many times React changed the DOM while streaming (the throttle at work).
 *
 * Median of --runs runs (default 3) after one warm-up. --check exits 1 when ns/delta at the
 * largest size is more than 2.5x the smallest (superlinear growth) or the longest task exceeds
 * --max-task ms (default 1000).
 *
 * Usage: node apps/web/bench/render.ts [--runs N] [--sizes 5000,20000] [--check] [--json]
 */
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import type { AgentEvent, AgentFactory } from '../../../packages/server/src/agents/agent.ts';
import { resolveConfig } from '../../../packages/server/src/config/load.ts';
import { fromAgentFactory } from '../../../packages/server/src/server/agent-registry.ts';
import { openGatewayStore } from '../../../packages/server/src/server/gateway-store.ts';
import { startServer } from '../../../packages/server/src/server/start.ts';
import { ensureBuilt } from '../scripts/ensure-built.ts';
import { chromiumMissing, launch, tempDataDir } from '../test/support.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    sizes: { type: 'string', default: '5000,20000' },
    check: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'max-task': { type: 'string', default: '1000' },
  },
});

const RUNS = Math.max(1, Number(args.runs));
const SIZES = String(args.sizes)
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const MAX_TASK = Number(args['max-task']);
const END = 'END-OF-BENCH';
/** The synthetic agent's name. The UI sends the agent chosen in its picker (`demo` by default) with every request. */
const AGENT = 'bench';

const WORDS = ['stream', 'delta', 'render', 'block', 'event', 'canonical', 'protocol', 'frame', 'agent', 'message', 'switchboard', 'token'];

/** The i-th delta of a markdown answer: words, with paragraphs, emphasis, lists and code fences. */
function delta(i: number, n: number): string {
  if (i === n - 1) return ` ${END}\n`;
  const w = WORDS[i % WORDS.length];
  const k = i % 400;
  if (k === 399) return '\n\n';
  if (k === 120) return '\n\n```ts\nconst x = 1;\n';
  if (k === 121) return 'console.log(x);\n```\n\n';
  if (k === 200) return '\n\n- first item\n';
  if (k === 201) return '- second item with `code`\n\n';
  if (i % 40 === 39) return `${w}.\n\n`;
  if (i % 17 === 0) return `**${w}** `;
  return `${w} `;
}

/** A synthetic agent: `bench <n>` streams n text deltas without pauses. */
const benchAgent: AgentFactory = async function* (request): AsyncGenerator<AgentEvent> {
  const n = Number(/bench (\d+)/.exec(request.prompt)?.[1] ?? 1000);
  yield { type: 'start', data: { model: 'bench' } };
  for (let i = 0; i < n; i++) {
    if (request.signal.aborted) return;
    yield { type: 'text', data: { content: delta(i, n) } };
    // Let the server's writes go out in network-sized batches, as a real fast model's would.
    if (i % 256 === 255) await new Promise((r) => setImmediate(r));
  }
  yield { type: 'done', data: {} };
};

interface Sample {
  totalMs: number;
  longestTaskMs: number;
  longTasks: number;
  longestGapMs: number;
  renders: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) {
    console.error(`render bench: ${missing}`);
    process.exit(process.env.CI === 'true' ? 1 : 0);
  }
  await ensureBuilt({ quiet: true });
  // The store as `npm start` opens it (SQLite file in the data dir), in a throw-away data dir.
  const dataDir = await tempDataDir();
  const opened = await openGatewayStore({ dataDir });
  const server = await startServer({
    port: 0,
    config: resolveConfig({ dataDir }, { env: {} }),
    store: opened.store,
    agents: [fromAgentFactory(AGENT, benchAgent)],
    defaultAgent: AGENT,
    rateLimitPerMinute: 0,
  });
  const browser = await launch();
  const errors: string[] = [];
  try {
    const measure = async (n: number): Promise<Sample> => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(m.text());
      });
      await page.goto(`${server.url}/`);
      await page.waitForSelector('[data-testid=composer-input]');
      // Choose the bench agent as a user would, once the picker lists the server's agents.
      await page.waitForSelector(`[data-testid=agent-picker] option[value=${AGENT}]`, { state: 'attached' });
      await page.selectOption('[data-testid=agent-picker]', AGENT);
      await page.fill('[data-testid=composer-input]', `bench ${n}`);
      // Instrument: long tasks, frame gaps, and commits of the streaming text part.
      await page.evaluate((end) => {
        const w = window as unknown as Record<string, unknown>;
        const tasks: number[] = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) tasks.push(e.duration);
        }).observe({ type: 'longtask', buffered: false });
        w.__tasks = tasks;
        let last = performance.now();
        let gap = 0;
        let renders = 0;
        w.__done = false;
        // One callback per React commit that touched the DOM (mutations are batched per microtask checkpoint).
        const observer = new MutationObserver(() => {
          renders++;
        });
        observer.observe(document.querySelector('[data-testid=messages]') as Node, { subtree: true, childList: true, characterData: true });
        const frame = () => {
          const now = performance.now();
          gap = Math.max(gap, now - last);
          last = now;
          // Only the last rendered block: reading the whole answer every frame would cost O(length).
          const blocks = document.querySelectorAll('[data-role=assistant] .md');
          const tail = blocks.length ? blocks[blocks.length - 1].lastElementChild : null;
          if (tail?.textContent?.includes(end)) {
            w.__t1 = now;
            w.__gap = gap;
            w.__renders = renders;
            w.__done = true;
            observer.disconnect();
            return;
          }
          requestAnimationFrame(frame);
        };
        document.querySelector<HTMLButtonElement>('[data-testid=send]')?.addEventListener(
          'click',
          () => {
            w.__t0 = performance.now();
            last = performance.now();
            requestAnimationFrame(frame);
          },
          { once: true, capture: true },
        );
      }, END);
      await page.click('[data-testid=send]');
      // Until the end marker is rendered, or the run ended without it (another agent answered, an
      // error…): then fail at once, saying what the page shows, instead of waiting out the timeout.
      await page.waitForFunction(
        () => (window as unknown as { __done: boolean }).__done || Number(window.__switchboard?.runsEnded ?? 0) > 0,
        null,
        { timeout: 300_000, polling: 100 },
      );
      // The last throttled commit may land a moment after the run's end.
      const done = await page
        .waitForFunction(() => (window as unknown as { __done: boolean }).__done, null, { timeout: 10_000, polling: 'raf' })
        .then(
          () => true,
          () => false,
        );
      await page.waitForFunction(() => !['submitted', 'streaming'].includes(String(window.__switchboard?.chatStatus)), null, {
        timeout: 300_000,
      });
      const status = await page.evaluate(() => window.__switchboard?.chatStatus);
      if (!done || status !== 'ready') {
        const tail = await page.evaluate(() => {
          const all = document.querySelectorAll('[data-role=assistant]');
          return (all[all.length - 1]?.textContent ?? '(no assistant message)').slice(-300);
        });
        const why = done ? `the chat ended with status ${status}` : `the run ended without "${END}" in the page (chat status ${status})`;
        const more = errors.length ? `; page errors: ${errors.join('; ')}` : '';
        throw new Error(`render bench, ${n} deltas: ${why}; the answer ends with ${JSON.stringify(tail)}${more}`);
      }
      const r = await page.evaluate(() => {
        const w = window as unknown as { __t0: number; __t1: number; __gap: number; __renders: number; __tasks: number[] };
        return { total: w.__t1 - w.__t0, gap: w.__gap, renders: w.__renders, tasks: w.__tasks };
      });
      await page.close();
      return {
        totalMs: r.total,
        longestTaskMs: r.tasks.length ? Math.max(...r.tasks) : 0,
        longTasks: r.tasks.length,
        longestGapMs: r.gap,
        renders: r.renders,
      };
    };

    await measure(Math.min(...SIZES)); // warm-up: JIT, caches
    const results: { n: number; samples: Sample[] }[] = [];
    for (const n of SIZES) {
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await measure(n));
      results.push({ n, samples });
    }

    const rows = results.map(({ n, samples }) => {
      const total = median(samples.map((s) => s.totalMs));
      return {
        deltas: n,
        totalMs: total,
        nsPerDelta: (total * 1e6) / n,
        longestTaskMs: Math.max(...samples.map((s) => s.longestTaskMs)),
        longTasks: median(samples.map((s) => s.longTasks)),
        longestFrameGapMs: Math.max(...samples.map((s) => s.longestGapMs)),
        renders: median(samples.map((s) => s.renders)),
      };
    });
    const first = rows[0];
    const lastRow = rows[rows.length - 1];
    const growth = lastRow.nsPerDelta / first.nsPerDelta;

    if (args.json) console.log(JSON.stringify({ runs: RUNS, rows, growth }, null, 2));
    else {
      const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
      console.log(`\nWeb UI render (Chromium ${browser.version()}, median of ${RUNS}, real server + useChat + markdown)`);
      const head = ['deltas', 'total ms', 'ns/delta', 'longest task ms', 'long tasks', 'longest frame gap ms', 'commits'];
      const body = rows.map((r) => [
        fmt(r.deltas),
        fmt(r.totalMs),
        fmt(r.nsPerDelta),
        r.longestTaskMs ? fmt(r.longestTaskMs) : '<50',
        fmt(r.longTasks),
        fmt(r.longestFrameGapMs),
        fmt(r.renders),
      ]);
      const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
      const line = (cells: string[]) => `  ${cells.map((c, i) => c.padStart(widths[i])).join('   ')}`;
      console.log(line(head));
      console.log(`  ${widths.map((w) => '-'.repeat(w)).join('   ')}`);
      for (const b of body) console.log(line(b));
      console.log(`  ns/delta at ${fmt(lastRow.deltas)} vs ${fmt(first.deltas)}: ${growth.toFixed(2)}x (1.00x = linear)`);
    }
    if (errors.length) console.error(`page errors: ${errors.join('; ')}`);
    if (args.check) {
      const problems: string[] = [];
      if (rows.length > 1 && growth > 2.5)
        problems.push(`cost per delta grew ${growth.toFixed(2)}x from ${first.deltas} to ${lastRow.deltas} deltas`);
      for (const r of rows)
        if (r.longestTaskMs > MAX_TASK) problems.push(`a ${Math.round(r.longestTaskMs)} ms task at ${r.deltas} deltas (limit ${MAX_TASK})`);
      if (errors.length) problems.push('errors in the page');
      if (problems.length) {
        console.error(`RENDER BENCH FAILED: ${problems.join('; ')}`);
        process.exitCode = 1;
      }
    }
  } finally {
    await browser.close();
    await server.close();
    // startServer leaves a store passed in open: its owner closes it.
    await opened.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
