/**
 * Crash recovery with two gateway processes on one PostgreSQL schema and one Redis prefix: the
 * instance running a slow agent is killed with SIGKILL; its run's lease stops being renewed, the
 * other instance interrupts it, a follower on that other instance gets a clean end (the
 * `interrupted` error and the finish), the history shows the message interrupted, and the chat
 * takes a new message. The killed instance is then restarted on its data directory and ends the
 * agent process its previous life left behind.
 *
 * Leases are short here (SWITCHBOARD_RUN_LEASE_MS) so that the test waits for conditions, with
 * generous timeouts, and never asserts a duration. PostgreSQL and Redis as in gateway-scale.test.ts
 * (skipped with a message when absent, a failure with CI=true).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import pg from 'pg';

import { api, ECHO_PY, sseData, userMessage } from './gateway-support.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const LEASE_MS = 900;

async function unavailable(): Promise<string | undefined> {
  const probe = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
  } catch (err) {
    return `PostgreSQL not reachable (${(err as Error).message})`;
  } finally {
    await probe.end().catch(() => {});
  }
  const r = createClient({ url: REDIS_URL, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.close();
  } catch (err) {
    return `Redis not reachable (${(err as Error).message})`;
  }
  return undefined;
}

/** Polls `check` until it returns a value (every 50 ms, at most `timeoutMs`): waits for a condition, asserts no duration. */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Instance {
  child: ChildProcess;
  url: string;
  out: () => string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('crash recovery across instances (PostgreSQL + Redis)', async () => {
  const why = await unavailable();
  if (why) {
    test('PostgreSQL and Redis are reachable', (t) => {
      if (process.env.CI === 'true') assert.fail(`${why} (CI=true: a missing service is a failure)`);
      t.skip(`${why} — skipping`);
    });
    return;
  }
  const suffix = crypto.randomUUID().replace(/-/g, '').slice(0, 12);
  const schema = `sb_crash_${suffix}`;
  const prefix = `sbcrash:${suffix}:`;
  const root = mkdtempSync(join(tmpdir(), 'sb-crash-'));
  const config = join(root, 'switchboard.config.json');
  const children = new Set<ChildProcess>();
  /** The agent the killed gateway leaves behind (killed here too should the test fail before the restart reaps it). */
  let orphan: number | undefined;

  const startInstance = async (name: string): Promise<Instance> => {
    const child = spawn(process.execPath, [MAIN], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        SWITCHBOARD_CONFIG: config,
        SWITCHBOARD_DATA_DIR: join(root, name),
        DATABASE_URL: `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}schema=${schema}`,
        REDIS_URL: `${REDIS_URL}${REDIS_URL.includes('?') ? '&' : '?'}prefix=${encodeURIComponent(prefix)}`,
        SWITCHBOARD_RUN_LEASE_MS: String(LEASE_MS),
        SWITCHBOARD_ON_DISCONNECT: 'continue',
      },
    });
    children.add(child);
    child.on('exit', () => children.delete(child));
    let out = '';
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    const url = await until(`${name} to listen`, () => /listening on (\S+)/.exec(out)?.[1]);
    return { child, url, out: () => out };
  };

  before(() => {
    writeFileSync(
      config,
      JSON.stringify({
        agents: [{ name: 'echo-py', command: 'python3', args: [ECHO_PY], framework: 'claude', setEnv: { PYTHONUNBUFFERED: '1' } }],
        builtins: { demo: { delayMs: 0 } },
      }),
    );
  });

  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    if (orphan !== undefined && alive(orphan)) {
      try {
        process.kill(-orphan, 'SIGKILL');
      } catch {
        // gone
      }
    }
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
    const r = createClient({ url: REDIS_URL });
    r.on('error', () => {});
    await r.connect();
    for await (const keys of r.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length) await r.del(keys);
    await r.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('kill -9 of the instance running a slow agent: the run ends interrupted for a follower elsewhere, the chat takes a new message, a restart reaps the agent', async () => {
    const a = await startInstance('a');
    const b = await startInstance('b');
    const chatId = crypto.randomUUID();

    // A run on A whose agent hangs after its first words (echo.py "hang").
    const started = await api(a.url, '/api/chat?agent=echo-py', { json: { id: chatId, messages: [userMessage('hang')] } });
    assert.equal(started.status, 200);
    const runId = started.headers.get('x-switchboard-run-id') as string;
    const reader = started.body?.getReader();
    await reader?.read(); // streaming

    // The agent's process, from A's ledger.
    const ledger = join(root, 'a', 'agent-processes');
    const agentPid = await until('the agent in the ledger', () => {
      try {
        const f = readdirSync(ledger)[0];
        return f ? (JSON.parse(readFileSync(join(ledger, f), 'utf8')) as { pid: number }).pid : undefined;
      } catch {
        return undefined;
      }
    });
    orphan = agentPid;
    assert.ok(alive(agentPid));

    // A follower on B, live.
    const follower = await api(b.url, `/api/chat/${chatId}/stream`);
    assert.equal(follower.status, 200);
    const followed = follower.text();

    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    void reader?.cancel().catch(() => {});

    // B interrupts the run once A's lease has run out; the follower gets its end.
    const text = await followed;
    const chunks = sseData(text) as { type?: string; errorText?: string }[];
    assert.ok(
      chunks.some((c) => c.type === 'error' && /interrupted/i.test(c.errorText ?? '')),
      text.slice(-600),
    );
    assert.ok(chunks.some((c) => c.type === 'finish'));
    assert.ok(text.endsWith('data: [DONE]\n\n'));
    const run = (await (await api(b.url, `/api/runs/${runId}`)).json()) as { run?: { status: string }; status?: string };
    assert.equal(run.run?.status ?? run.status, 'error');
    // The history (AI SDK UIMessages) shows the message interrupted.
    const history = (await (await api(b.url, `/api/chats/${chatId}/messages`)).json()) as { role: string }[];
    const last = history.at(-1);
    assert.equal(last?.role, 'assistant');
    assert.match(JSON.stringify(last), /interrupted/);

    // The chat takes a new message, which streams to its end.
    const next = await api(b.url, '/api/chat?agent=demo', { json: { id: chatId, messages: [userMessage('hello again')] } });
    assert.equal(next.status, 200);
    assert.ok((await next.text()).endsWith('data: [DONE]\n\n'));

    // The killed gateway's agent outlived it; restarted on its data directory, it ends it.
    assert.ok(alive(agentPid), 'the orphaned agent is still running before the restart');
    const again = await startInstance('a');
    assert.match(again.out(), new RegExp(`ended 1 agent process\\(es\\) left behind by a previous gateway: ${agentPid}`));
    await until('the orphaned agent to be gone', () => (alive(agentPid) ? undefined : true));
    again.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    await Promise.all([again, b].map((i) => (i.child.exitCode === null ? new Promise((r) => i.child.once('exit', r)) : undefined)));
  });
});
