/**
 * A gateway on SQLite (no DATABASE_URL, no REDIS_URL) loads neither the PostgreSQL driver nor the
 * Redis client: both are large module graphs (the Redis client alone is ≈ 500 files and ≈ 7 MB of a
 * gateway's resident memory) that such a gateway would load at every start for nothing. Nor does a
 * program that imports the packages as libraries: the clients load when a store or fan-out opens.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BOOT = new URL('../src/server/boot.ts', import.meta.url).href;
const SERVER_INDEX = new URL('../src/index.ts', import.meta.url).href;
const STORE_INDEX = new URL('../../store/src/index.ts', import.meta.url).href;

/** Specifiers of pg and the Redis client resolved while `code` runs in a child process. */
function driversLoaded(code: string, dir: string): unknown {
  const child = `
import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { seen.add(specifier); return next(specifier, context); } });
const result = await (async () => { ${code} })();
console.log(JSON.stringify({ result, loaded: [...seen].filter((s) => s === 'pg' || s.startsWith('@redis/')) }));
`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', child, dir], { encoding: 'utf8', cwd: dir });
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

test('a gateway on SQLite loads neither pg nor @redis/client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-lazy-'));
  try {
    // Boots, serves one request and closes.
    const code = `
      const { bootGateway } = await import(${JSON.stringify(BOOT)});
      const booted = await bootGateway({ port: 0, env: { SWITCHBOARD_DATA_DIR: process.argv[1] }, log: () => {} });
      const health = await fetch(booted.server.url + '/healthz');
      await booted.close();
      return health.status;`;
    assert.deepEqual(driversLoaded(code, dir), { result: 200, loaded: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('importing @switchboard/server or @switchboard/store loads neither pg nor @redis/client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-lazy-'));
  try {
    const code = `
      const server = await import(${JSON.stringify(SERVER_INDEX)});
      const store = await import(${JSON.stringify(STORE_INDEX)});
      return [typeof server.openRedisFanout, typeof server.RedisFanout, typeof store.openStore];`;
    assert.deepEqual(driversLoaded(code, dir), { result: ['function', 'function', 'function'], loaded: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
