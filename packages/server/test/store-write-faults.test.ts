/**
 * A store that stops taking writes mid-run: the run still ends in a stored final state. A store
 * wrapper fails the calls the test names (as a cut connection would) until the test clears them.
 * - A short fault: the failed appends are retried and the run completes as if nothing happened.
 * - A long one: the run is stopped and its interruption kept in memory; a new message in the chat
 *   answers 503 `store_unavailable` (the truth) while the store is down, and once it is back the
 *   interruption is stored (by the next message, an abort, or the lease tick on its own), the
 *   starter's stream ends with the protocol's error ending, and the chat takes a new message.
 * - SQLite on a full disk (a database capped with `maxSizeMiB`): the appends are refused and retried,
 *   and the run completes once rows are deleted.
 * Deterministic: the test waits for the wrapper to report each failure, never for time to pass.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';
import { openSqliteStore, type Store } from '@switchboard/store';

import { type RunningServer, startServer } from '../src/index.ts';
import { api, Gate, gatedAgent, quietLogger, testConfig, userMessage } from './gateway-support.ts';

/** Which store calls fail, and promises of the next failure / success of a call. */
class Faults {
  readonly failing = new Set<string>();
  private readonly waiters: { method: string; failed: boolean; resolve: () => void }[] = [];
  /** Resolves at the next call of `method` that fails (`failed`) or succeeds. */
  next(method: string, failed: boolean): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ method, failed, resolve }));
  }
  settle(method: string, failed: boolean): void {
    for (const w of this.waiters.filter((x) => x.method === method && x.failed === failed)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
  }
}

/** `store` with the methods in `faults.failing` rejecting as a lost connection does (and its own failures reported). */
function faulty(store: Store, faults: Faults): Store {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = String(prop);
      return (...args: unknown[]) => {
        if (faults.failing.has(method)) {
          faults.settle(method, true);
          return Promise.reject(new Error(`Connection terminated unexpectedly (${method})`));
        }
        const out = value.apply(target, args);
        if (out instanceof Promise)
          out.then(
            () => faults.settle(method, false),
            () => faults.settle(method, true),
          );
        return out;
      };
    },
  });
}

const chatBody = (id: string, text: string) => ({ id, messages: [userMessage(text)], trigger: 'submit-message' });

describe('a store that stops taking writes mid-run', () => {
  let base: Store;
  before(async () => {
    base = await openSqliteStore({ path: ':memory:' });
  });
  after(() => base.close());

  async function gateway(faults: Faults, gate: Gate, options: { appendRetryMs: number[]; runLeaseMs?: number }) {
    const { spec, waiting } = gatedAgent('gated', gate);
    const s: RunningServer = await startServer({
      port: 0,
      config: testConfig(),
      store: faulty(base, faults),
      agents: [spec],
      runOptions: { logger: quietLogger() },
      onError: () => {},
      appendRetryMs: options.appendRetryMs,
      runLeaseMs: options.runLeaseMs ?? 0,
    });
    return { s, waiting };
  }

  test('a short fault: the appends are retried, the run completes, its stream is whole', async () => {
    const faults = new Faults();
    const gate = new Gate();
    const { s, waiting } = await gateway(faults, gate, { appendRetryMs: Array(10_000).fill(2) });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: chatBody('fault-short', 'go') });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      const body = res.text();
      await waiting;
      faults.failing.add('append');
      const failed = faults.next('append', true);
      gate.open();
      await failed;
      faults.failing.clear();
      const text = await body;
      assert.match(text, /the second /);
      assert.match(text, /"type":"finish"/);
      assert.ok(text.trimEnd().endsWith('data: [DONE]'));
      assert.equal((await base.getRun(runId))?.status, 'complete');
      assert.deepEqual(s.core.runs.unstoredEnds, []);
    } finally {
      await s.close();
    }
  });

  test('a long fault: 503 store_unavailable while it lasts, then the run is interrupted, its stream ends, the chat goes on', async () => {
    const faults = new Faults();
    const gate = new Gate();
    const { s, waiting } = await gateway(faults, gate, { appendRetryMs: [1] });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: chatBody('fault-long', 'go') });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      const body = res.text();
      await waiting;
      faults.failing.add('append');
      faults.failing.add('interruptRun');
      const interruptFailed = faults.next('interruptRun', true);
      gate.open();
      await interruptFailed;
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(s.core.runs.unstoredEnds, [runId]);
      assert.equal((await base.getRun(runId))?.status, 'running');

      // While the store does not take writes, a new message says so.
      const busy = await api(s.url, '/api/chat?agent=demo', { json: chatBody('fault-long', 'again') });
      assert.equal(busy.status, 503);
      assert.equal(((await busy.json()) as { error: { code: string } }).error.code, 'store_unavailable');
      assert.ok(busy.headers.get('retry-after'));

      // The store is back: the next message stores the interruption, then runs.
      faults.failing.clear();
      const next = await api(s.url, '/api/chat?agent=demo', { json: chatBody('fault-long', 'again') });
      assert.equal(next.status, 200);
      assert.ok((await next.text()).trimEnd().endsWith('data: [DONE]'));
      const run = await base.getRun(runId);
      assert.equal(run?.status, 'error');
      const events = await base.read(runId);
      assert.match(JSON.stringify(events.find((e) => e.type === 'error')), /the store failed/);
      assert.deepEqual(s.core.runs.unstoredEnds, []);
      // The starter's stream ended in the protocol's own terms.
      const text = await body;
      assert.match(text, /"type":"error"/);
      assert.ok(text.trimEnd().endsWith('data: [DONE]'));
    } finally {
      await s.close();
    }
  });

  test('SQLite on a full disk: the appends are retried, the run completes once space is freed', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-full-'));
    const full = await openSqliteStore({ path: join(dir, 'db.sqlite'), maxSizeMiB: 2 });
    t.after(async () => {
      await full.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const faults = new Faults();
    const gate = new Gate();
    const { spec, waiting } = gatedAgent('gated', gate, { after: Array.from({ length: 200 }, (_, i) => `word${i} `.repeat(40)) });
    const s = await startServer({
      port: 0,
      config: testConfig(),
      store: faulty(full, faults),
      agents: [spec],
      runOptions: { logger: quietLogger() },
      onError: () => {},
      appendRetryMs: Array(100_000).fill(5),
      runLeaseMs: 0,
    });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: chatBody('fault-full', 'go') });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      const body = res.text();
      await waiting;
      // Another chat fills the database to its cap.
      await full.startRun({ chatId: 'filler', runId: 'filler', userMessage: { content: 'fill' } });
      const ts = Date.now();
      const at = (seq: number, e: Record<string, unknown>) => ({ runId: 'filler', seq, ts, ...e }) as unknown as CanonicalEvent;
      await full.append([at(0, { type: 'run-start', chatId: 'filler' }), at(1, { type: 'text-start', blockId: 't' })]);
      let refusal: unknown;
      for (let seq = 2; refusal === undefined; seq++)
        await full.append(at(seq, { type: 'text-delta', blockId: 't', delta: 'f'.repeat(64 * 1024) })).catch((err) => {
          refusal = err;
        });
      assert.match(String(refusal), /full/i);
      const refused = faults.next('append', true);
      gate.open();
      await refused;
      // Space is freed: the retried appends go in, the run completes.
      await full.deleteChat('filler');
      const text = await body;
      assert.match(text, /word199 /);
      assert.ok(text.trimEnd().endsWith('data: [DONE]'));
      assert.equal((await full.getRun(runId))?.status, 'complete');
    } finally {
      await s.close();
    }
  });

  test('with leases, the tick stores the interruption once the store is back, with no new request', async () => {
    const faults = new Faults();
    const gate = new Gate();
    const { s, waiting } = await gateway(faults, gate, { appendRetryMs: [1], runLeaseMs: 60 });
    try {
      const res = await api(s.url, '/api/chat?agent=gated', { json: chatBody('fault-tick', 'go') });
      const runId = res.headers.get('x-switchboard-run-id') as string;
      const body = res.text();
      await waiting;
      faults.failing.add('append');
      faults.failing.add('interruptRun');
      faults.failing.add('renewLeases');
      const interruptFailed = faults.next('interruptRun', true);
      gate.open();
      await interruptFailed;
      const stored = faults.next('interruptRun', false);
      faults.failing.clear();
      await stored;
      assert.equal((await base.getRun(runId))?.status, 'error');
      assert.ok((await body).trimEnd().endsWith('data: [DONE]'));
      assert.deepEqual(s.core.runs.unstoredEnds, []);
    } finally {
      await s.close();
    }
  });
});
