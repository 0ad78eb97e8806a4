/** Fixtures, runs and backend environments shared by the store tests. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { createClient } from '@redis/client';
import { type CanonicalEvent, createDecoder, framed } from '@switchboard/core';
import pg from 'pg';

import { demoScript } from '../../server/src/agents/demo.ts';
import { MemoryData, openMemoryStore } from '../src/memory.ts';
import { openPostgresStore } from '../src/postgres.ts';
import { openRedisStore } from '../src/redis.ts';
import { openSqliteStore, type SqliteStoreOptions } from '../src/sqlite.ts';
import type { Store } from '../src/store.ts';

export const FIXTURES = new URL('../../../test/fixtures/', import.meta.url).pathname;

/** What node:sqlite was asked to do: transactions begun, statements run. */
export interface SqliteWork {
  transactions: number;
  statements: number;
}

let work: SqliteWork | undefined;

/** The work `fn` makes node:sqlite do in this process (its prototypes are wrapped to count, on first use). */
export async function countSqliteWork<T>(fn: () => Promise<T>): Promise<SqliteWork & { value: T }> {
  if (!work) {
    const w: SqliteWork = { transactions: 0, statements: 0 };
    const exec = DatabaseSync.prototype.exec;
    DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
      if (/^\s*BEGIN/i.test(sql)) w.transactions++;
      return exec.call(this, sql);
    };
    for (const name of ['run', 'get', 'all'] as const) {
      const original = StatementSync.prototype[name] as (...args: unknown[]) => unknown;
      (StatementSync.prototype as unknown as Record<string, unknown>)[name] = function (this: StatementSync, ...args: unknown[]) {
        w.statements++;
        return original.apply(this, args);
      };
    }
    work = w;
  }
  work.transactions = 0;
  work.statements = 0;
  const value = await fn();
  return { value, transactions: work.transactions, statements: work.statements };
}

/** A deterministic clock: starts at `start`, `step` ms per call. */
export function ticking(start = 1_763_870_000_000, step = 250): () => number {
  let t = start - step;
  return () => (t += step);
}

/** A random id suffix (not for determinism: to keep test runs apart). */
export function rid(prefix = 'r'): string {
  return `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** Re-stamps a run's events with another runId (and chatId on run-start). */
export function restamp(events: readonly CanonicalEvent[], runId: string, chatId?: string): CanonicalEvent[] {
  return events.map((e) => {
    const out = { ...e, runId } as CanonicalEvent;
    if (out.type === 'run-start' && chatId !== undefined) out.chatId = chatId;
    return out;
  });
}

/** Decodes a whole input with a framework decoder (deterministic ids and clock). */
export function decodeText(
  text: string | Uint8Array,
  framework: Parameters<typeof createDecoder>[0],
  runId: string,
  now = ticking(),
): CanonicalEvent[] {
  const m = framed(createDecoder(framework, { runId, now }));
  return [...m.push(text), ...m.end()];
}

/** Every Anthropic capture: the three hand-checked fixtures and the recorded ones. */
export function anthropicFixtures(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const f of readdirSync(`${FIXTURES}anthropic`)
    .filter((f) => f.endsWith('.sse'))
    .sort())
    out.push({ name: `anthropic/${f}`, text: readFileSync(`${FIXTURES}anthropic/${f}`, 'utf8') });
  for (const f of readdirSync(`${FIXTURES}recorded/anthropic`).sort())
    out.push({ name: `recorded/anthropic/${f}`, text: readFileSync(`${FIXTURES}recorded/anthropic/${f}`, 'utf8') });
  return out;
}

/** Capture folders of the other registered decoders (`auto` = recognised from the input). */
const OTHER_CAPTURES: [string, Parameters<typeof createDecoder>[0]][] = [
  ['openai-chat', 'openai-chat'],
  ['openai-responses', 'openai-responses'],
  ['langchain', 'auto'],
  ['recorded/openai-chat', 'openai-chat'],
  ['recorded/openai-compatible', 'openai-chat'],
  ['recorded/openai-responses', 'openai-responses'],
  ['recorded/gemini', 'auto'],
  ['recorded/langchain', 'auto'],
  ['recorded/ag-ui', 'ag-ui'],
];

/** Every capture of the other registered decoders, decoded (deterministic ids and clock). */
export function otherCaptureRuns(runId: string): { name: string; events: CanonicalEvent[] }[] {
  const out: { name: string; events: CanonicalEvent[] }[] = [];
  for (const [dir, framework] of OTHER_CAPTURES) {
    for (const f of readdirSync(`${FIXTURES}${dir}`).sort()) {
      if (/\.(json|md)$/.test(f) || f.includes('.aisdk-ref.')) continue;
      out.push({ name: `${dir}/${f}`, events: decodeText(readFileSync(`${FIXTURES}${dir}/${f}`), framework, runId) });
    }
  }
  return out;
}

/** One Anthropic capture by the end of its name. */
export function anthropicFixture(suffix: string): string {
  const f = anthropicFixtures().find((x) => x.name.endsWith(suffix));
  if (!f) throw new Error(`no Anthropic fixture ending in ${suffix}`);
  return f.text;
}

/** The demo agent's run for a prompt, through the `claude` decoder (as `POST /api/chat` does). */
export function demoRun(prompt: string, runId: string, now = ticking()): CanonicalEvent[] {
  const d = createDecoder('claude', { runId, now });
  const out: CanonicalEvent[] = [];
  let line = 0;
  for (const ev of demoScript(prompt, () => 0)) out.push(...d.push(ev, { line: ++line }));
  out.push(...d.end());
  return out;
}

/**
 * A hand-made run that uses every canonical event kind: explicit steps, processing and thinking
 * (with an Anthropic signature, redacted data, OpenAI item id + encrypted content), text with
 * citations, parallel tools (streamed input, whole input, provider-executed, preliminary output, a
 * failing call, a bad input), sources, a file, todos, usage, a subagent, state, custom, status, raw, a
 * non-fatal error. `ts` goes up by 1 s per event.
 */
export function kitchenSink(runId: string, chatId?: string): CanonicalEvent[] {
  let seq = 0;
  let ts = 1_763_870_000_000;
  const out: CanonicalEvent[] = [];
  const add = (e: Record<string, unknown>) => {
    out.push({ ...e, runId, seq: seq++, ts } as unknown as CanonicalEvent);
    ts += 1000;
  };
  add({
    type: 'run-start',
    version: 1,
    messageId: `msg_${runId}`,
    provider: 'test',
    model: 'm-1',
    metadata: { tag: 'x' },
    ...(chatId ? { chatId } : {}),
  });
  add({ type: 'step-start', stepId: 's1', kind: 'model', model: 'm-1' });
  add({ type: 'reasoning-start', blockId: 'p1', variant: 'processing' });
  add({ type: 'reasoning-delta', blockId: 'p1', delta: 'Looking around…' });
  add({ type: 'status', status: 'searching', message: 'Searching' });
  add({ type: 'reasoning-end', blockId: 'p1' });
  add({ type: 'reasoning-start', blockId: 't1', variant: 'thinking' });
  add({ type: 'reasoning-delta', blockId: 't1', delta: 'Let me think ' });
  add({ type: 'reasoning-delta', blockId: 't1', delta: 'about it.' });
  add({ type: 'reasoning-end', blockId: 't1', providerMetadata: { anthropic: { signature: 'sig-abc' } } });
  add({ type: 'reasoning-start', blockId: 't2', variant: 'thinking', providerMetadata: { anthropic: { redactedData: 'opaque==' } } });
  add({ type: 'reasoning-end', blockId: 't2' });
  add({ type: 'reasoning-start', blockId: 't3', variant: 'thinking', providerMetadata: { openai: { itemId: 'rs_1' } } });
  add({ type: 'reasoning-delta', blockId: 't3', delta: 'Summary of reasoning.' });
  add({ type: 'reasoning-end', blockId: 't3', providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc==' } } });
  add({ type: 'todos', change: 'create', todos: [{ id: 'a', content: 'Search', status: 'in_progress' }] });
  add({ type: 'tool-input-start', toolCallId: 'c1', toolName: 'search' });
  add({ type: 'tool-input-start', toolCallId: 'c2', toolName: 'web_search', providerExecuted: true });
  add({ type: 'tool-input-delta', toolCallId: 'c1', delta: '{"q":' });
  add({ type: 'tool-input-delta', toolCallId: 'c1', delta: '"cats"}' });
  add({ type: 'tool-input-end', toolCallId: 'c1', toolName: 'search', input: { q: 'cats' } });
  add({ type: 'tool-input-end', toolCallId: 'c2', toolName: 'web_search', input: { query: 'cats' }, providerExecuted: true });
  add({ type: 'tool-input-end', toolCallId: 'c3', toolName: 'calc', input: '{"x": 1', inputError: 'Unexpected end of JSON input' });
  add({ type: 'tool-input-end', toolCallId: 'c4', toolName: 'fail', input: {} });
  add({ type: 'tool-output', toolCallId: 'c1', toolName: 'search', output: { partial: true }, preliminary: true });
  add({ type: 'tool-output', toolCallId: 'c1', toolName: 'search', output: { hits: 3 } });
  add({ type: 'tool-output', toolCallId: 'c2', toolName: 'web_search', output: [{ url: 'https://a.example' }], providerExecuted: true });
  add({ type: 'tool-error', toolCallId: 'c4', toolName: 'fail', error: 'boom', output: { code: 500 } });
  add({ type: 'source', sourceId: 'src1', kind: 'url', url: 'https://a.example', title: 'A' });
  add({ type: 'source', sourceId: 'src2', kind: 'document', title: 'Doc', mediaType: 'application/pdf', filename: 'doc.pdf' });
  add({ type: 'step-finish', stepId: 's1', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } });
  add({ type: 'step-start', stepId: 's2', kind: 'model' });
  add({ type: 'subagent-start', subagentId: 'sub1', name: 'researcher', task: 'dig' });
  add({ type: 'text-start', blockId: 'sx', subagentId: 'sub1' });
  add({ type: 'text-delta', blockId: 'sx', delta: 'sub says hi', subagentId: 'sub1' });
  add({ type: 'text-end', blockId: 'sx', subagentId: 'sub1' });
  add({ type: 'subagent-finish', subagentId: 'sub1', result: 'done' });
  add({ type: 'text-start', blockId: 'x1' });
  add({ type: 'text-delta', blockId: 'x1', delta: 'Cats are great' });
  add({ type: 'citation', blockId: 'x1', citation: { kind: 'url', url: 'https://b.example', title: 'B', citedText: 'great' } });
  add({ type: 'citation', blockId: 'x1', citation: { kind: 'document', title: 'Doc', documentIndex: 0 } });
  add({ type: 'text-delta', blockId: 'x1', delta: ' [1].' });
  add({ type: 'text-end', blockId: 'x1' });
  add({ type: 'file', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png', filename: 'chart.png' });
  add({ type: 'state-snapshot', state: { step: 1 } });
  add({ type: 'state-delta', patch: [{ op: 'replace', path: '/step', value: 2 }] });
  add({ type: 'state-snapshot', state: { step: 2 } });
  add({ type: 'custom', name: 'app.note', value: { n: 1 } });
  add({ type: 'raw', source: 'test', event: { weird: true }, reason: 'unknown' });
  add({ type: 'error', message: 'line 9: bad JSON', code: 'invalid_json', fatal: false, where: { line: 9 } });
  add({ type: 'todos', change: 'done', todos: [{ id: 'a', content: 'Search', status: 'completed' }] });
  add({ type: 'usage', scope: 'increment', usage: { inputTokens: 1, outputTokens: 1 } });
  add({ type: 'step-finish', stepId: 's2', finishReason: 'stop', usage: { inputTokens: 20, outputTokens: 8, totalTokens: 28 } });
  add({ type: 'run-finish', finishReason: 'stop', usage: { inputTokens: 30, outputTokens: 13, totalTokens: 43 } });
  return out;
}

/** A backend to run the contract suite against, or why it cannot run. */
export interface BackendEnv {
  name: string;
  /** Opens a store on the test's database / schema / key prefix (call it again to "reopen"). */
  open(): Promise<Store>;
  /** Removes everything the tests created. */
  cleanup(): Promise<void>;
}

export type BackendSetup = () => Promise<BackendEnv | { skip: string }>;

export const sqliteSetup =
  (options: SqliteStoreOptions = {}): BackendSetup =>
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-store-'));
    const path = join(dir, 'test.db');
    return {
      name: 'SQLite',
      open: () => openSqliteStore({ path, pollIntervalMs: 50, ...options }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  };

/** The PostgreSQL the tests use: `DATABASE_URL`, else the local `test` database. */
export const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why PostgreSQL cannot be used (a skip message), or undefined when the server answers. */
async function postgresProblem(url: string): Promise<string | undefined> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return undefined;
  } catch (err) {
    return `PostgreSQL not reachable at ${new URL(url).host} (set DATABASE_URL): ${(err as Error).message} — skipping`;
  } finally {
    await probe.end().catch(() => {});
  }
}

/**
 * Why a PostgreSQL test skips: undefined when the server answers. In CI (`CI=true`) an unreachable
 * server is an error, not a skip.
 */
export async function postgresSkip(url = POSTGRES_URL): Promise<string | undefined> {
  const problem = await postgresProblem(url);
  if (problem && process.env.CI === 'true')
    throw new Error(`${problem.replace(/ — skipping$/, '')} (CI=true: a missing service is a failure)`);
  return problem;
}

/** Drops a test's schema. */
export async function dropSchema(schema: string, url = POSTGRES_URL): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
}

export const postgresSetup: BackendSetup = async () => {
  const url = POSTGRES_URL;
  const skip = await postgresProblem(url);
  if (skip) return { skip };
  const schema = `sb_test_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  return {
    name: 'PostgreSQL',
    open: () => openPostgresStore({ url, schema, pollIntervalMs: 50, maxConnections: 5 }),
    cleanup: () => dropSchema(schema, url),
  };
};

export const redisSetup: BackendSetup = async () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const probe = createClient({ url, socket: { connectTimeout: 3000, reconnectStrategy: false } });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.close();
  } catch (err) {
    return { skip: `Redis not reachable at ${new URL(url).host} (set REDIS_URL): ${(err as Error).message} — skipping` };
  }
  const prefix = `sbtest:${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}:`;
  return {
    name: 'Redis',
    open: () => openRedisStore({ url, prefix, pollIntervalMs: 50 }),
    cleanup: async () => {
      const c = createClient({ url });
      c.on('error', () => {});
      await c.connect();
      let cursor = '0';
      do {
        const [next, keys] = (await c.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [string, string[]];
        cursor = next;
        if (keys.length > 0) await c.sendCommand(['DEL', ...keys]);
      } while (cursor !== '0');
      await c.close();
    },
  };
};

export const memorySetup: BackendSetup = async () => {
  const data = new MemoryData();
  return {
    name: 'memory',
    open: () => openMemoryStore({ data, pollIntervalMs: 50 }),
    cleanup: async () => {},
  };
};
