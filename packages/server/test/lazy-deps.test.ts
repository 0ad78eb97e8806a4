/**
 * A gateway on SQLite (no DATABASE_URL, no REDIS_URL) loads neither the PostgreSQL driver nor the
 * Redis client: both are large module graphs (the Redis client alone is ≈ 500 files and ≈ 7 MB of a
 * gateway's resident memory) that such a gateway would load at every start for nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BOOT = new URL('../src/server/boot.ts', import.meta.url).href;

// In a child process: every module specifier resolved while the gateway boots, serves one request
// and closes is recorded (Node's synchronous module hooks), and the driver-like ones are printed.
const CHILD = `
import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { seen.add(specifier); return next(specifier, context); } });
const { bootGateway } = await import(${JSON.stringify(BOOT)});
const booted = await bootGateway({ port: 0, env: { SWITCHBOARD_DATA_DIR: process.argv[1] }, log: () => {} });
const health = await fetch(booted.server.url + '/healthz');
await booted.close();
console.log(JSON.stringify({ status: health.status, loaded: [...seen].filter((s) => s === 'pg' || s.startsWith('@redis/')) }));
`;

test('a gateway on SQLite loads neither pg nor @redis/client', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-lazy-'));
  try {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHILD, dir], { encoding: 'utf8', cwd: dir });
    assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1) as string), { status: 200, loaded: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
