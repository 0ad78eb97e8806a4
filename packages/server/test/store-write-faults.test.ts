/**
 * A store that stops taking writes mid-run: the run still ends in a stored final state. A store
 * wrapper fails the calls the test names (as a cut connection would) until the test clears them.
 * - A short fault: the failed appends are retried and the run completes as if nothing happened.
 * - A long one: the run is stopped and its interruption kept in memory; a new message in the chat
 *   answers 503 `store_unavailable` (the truth) while the store is down, and once it is back the
 *   interruption is stored (by the next message, an abort, or the lease tick on its own), the
 *   starter's stream ends with the protocol's error ending, and the chat takes a new message.
 * Deterministic: the test waits for the wrapper to report each failure, never for time to pass.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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

/** `store` with the methods in `faults.failing` rejecting as a lost connection does. */
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
        if (out instanceof Promise) out.then(() => faults.settle(method, false)).catch(() => {});
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
