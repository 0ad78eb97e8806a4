/**
 * The gateway's CLI commands against a real store: `chats list / export` and `inspect` read what a
 * server stored in SWITCHBOARD_DATA_DIR; `inspect` also reads captures; `serve --help` and usage
 * errors.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '@switchboard/store';

import { startServer } from '../src/server/start.ts';
import { api, quietLogger, testConfig, userMessage } from './gateway-support.ts';

const BIN = fileURLToPath(new URL('../bin/switchboard.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/anthropic/thinking-text-tool-use.sse', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'));
let runId = '';

before(async () => {
  const store = await openSqliteStore({ path: join(dir, 'switchboard.db') });
  const s = await startServer({ port: 0, store, config: testConfig(), runOptions: { logger: quietLogger() } });
  const res = await api(s.url, '/api/chat', { json: { id: 'cli-chat', messages: [userMessage('tool Rome')] } });
  runId = res.headers.get('x-switchboard-run-id') as string;
  await res.text();
  await s.close();
  await store.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|SWITCHBOARD_)/.test(k)) env[k] = v;
  env.SWITCHBOARD_DATA_DIR = dir;
  const r = spawnSync(process.execPath, [BIN, ...args], { env, cwd: dir, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('chats list and export read the store directly', () => {
  const list = cli('chats', 'list');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /cli-chat\s.*\s1\s+complete\s+-\s+tool Rome/);
  const json = JSON.parse(cli('chats', 'list', '--format', 'json').out);
  assert.equal(json[0].id, 'cli-chat');
  const exported = cli('chats', 'export', 'cli-chat', '--protocol', 'ai-sdk');
  assert.equal(exported.code, 0, exported.err);
  const messages = JSON.parse(exported.out);
  assert.deepEqual(
    messages.map((m: { role: string }) => m.role),
    ['user', 'assistant'],
  );
  assert.equal(JSON.parse(cli('chats', 'export', 'cli-chat', '--protocol', 'ag-ui').out).type, 'MESSAGES_SNAPSHOT');
  const missing = cli('chats', 'export', 'nope');
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no chat "nope"/);
  assert.equal(cli('chats', 'export').code, 2);
  assert.equal(cli('chats', 'export', 'cli-chat', '--protocol', 'html').code, 2);
  assert.equal(cli('chats', 'frobnicate').code, 2);
});

test('inspect shows a stored run and a capture, one line per event', () => {
  const run = cli('inspect', runId, '--color', 'never', '--width', '120');
  assert.equal(run.code, 0, run.err);
  const lines = run.out.trimEnd().split('\n');
  assert.match(lines[0], new RegExp(`run ${runId} of chat cli-chat \\(complete\\)`));
  assert.match(lines[1], /^\s+\+0\.000s\s+0 {2}run-start\s+run\s+agent demo/);
  assert.ok(lines.some((l) => /tool-input-start\s+tool:get_weather/.test(l)));
  assert.ok(lines.some((l) => /reasoning-delta\s+reasoning:processing/.test(l)));
  assert.match(lines.at(-1) as string, /^\d+ events over \d+\.\d{3}s · finish: stop/);
  assert.equal(lines.length, 1 + Number(/^(\d+) events/.exec(lines.at(-1) as string)?.[1]) + 1);
  assert.ok(
    lines.every((l) => l.length <= 120),
    'cut to the width',
  );

  const capture = cli('inspect', FIXTURE, '--color', 'always');
  assert.equal(capture.code, 0, capture.err);
  assert.ok(capture.out.includes('\x1b[35m'), 'reasoning in color');
  assert.match(capture.out, /reasoning:thinking/);
  assert.match(capture.out, /tool:get_weather/);

  const none = cli('inspect', 'no-such-thing');
  assert.equal(none.code, 1);
  assert.match(none.err, /no such file, and no stored run/);
  assert.equal(cli('inspect').code, 2);
});

test('serve --help and usage errors', () => {
  const help = cli('serve', '--help');
  assert.equal(help.code, 0);
  assert.match(help.out, /--port <n>/);
  assert.equal(cli('serve', '--port', 'eighty').code, 2);
});
