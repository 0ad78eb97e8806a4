/**
 * After a 20 MB text run through the gateway has finished and its stream was read, nothing keeps its
 * text: with `global.gc`, the heap goes back to within a margin of its idle size. A memory assertion,
 * measured in a child `node --expose-gc` (the text is in the SQLite file, not in the process).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const CHILD = `
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@switchboard/store';
import { startServer } from './packages/server/src/server/start.ts';
import { linesAgent, quietLogger, testConfig, userMessage } from './packages/server/test/gateway-support.ts';

const KB = 'x'.repeat(1023) + '\\n';
const big = linesAgent('big', async function* () {
  yield { type: 'start', data: { model: 'big' } };
  for (let i = 0; i < 20 * 1024; i++) yield { type: 'text', data: { content: KB } };
  yield { type: 'done', data: {} };
});
const store = await openSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'heap-')), 'db.sqlite') });
const s = await startServer({ port: 0, config: testConfig(), store, agents: [big], runOptions: { logger: quietLogger() }, onError: () => {} });
const used = () => { global.gc(); global.gc(); return process.memoryUsage().heapUsed; };
// Idle: after one small run, so what is loaded once (modules, statements) counts as idle.
const post = async (agent, text) => {
  const res = await fetch(s.url + '/api/chat?agent=' + agent, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: crypto.randomUUID(), messages: [userMessage(text)] }) });
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  return bytes;
};
await post('demo', 'warm up');
const idle = used();
const bytes = await post('big', 'go');
const after = used();
await s.close();
await store.close();
console.log(JSON.stringify({ idle, after, bytes }));
`;

test('the heap returns to idle after a 20 MB run', () => {
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], {
    cwd: new URL('../../../', import.meta.url),
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const { idle, after, bytes } = JSON.parse(out.trim().split('\n').at(-1) as string) as { idle: number; after: number; bytes: number };
  assert.ok(bytes > 20 * 1024 * 1024, `the stream carried the run (${bytes} bytes)`);
  const MB = 1024 * 1024;
  assert.ok(after < idle + 64 * MB, `heap ${Math.round(after / MB)} MB after the run, ${Math.round(idle / MB)} MB idle`);
});
