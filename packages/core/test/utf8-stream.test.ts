/**
 * `utf8Stream`, the one edge where text becomes a Response body (createSseResponse, the store's
 * resumeSseResponse): one chunk per string, pulled on demand, errors passed on, cancel reaching the source.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createSseResponse, utf8Stream } from '../src/index.ts';

async function* strings(list: string[], log: string[]): AsyncGenerator<string> {
  try {
    for (const s of list) {
      log.push(`yield ${s}`);
      yield s;
    }
  } finally {
    log.push('finally');
  }
}

test('one UTF-8 chunk per string, pulled as the reader reads', async () => {
  const log: string[] = [];
  const reader = utf8Stream(strings(['a', 'é日'], log)).getReader();
  const first = await reader.read();
  assert.deepEqual([...(first.value ?? [])], [0x61]);
  assert.ok(log.length <= 2, `at most one string ahead of the reader: ${log}`);
  const second = await reader.read();
  assert.equal(new TextDecoder().decode(second.value), 'é日');
  assert.equal((await reader.read()).done, true);
});

test('cancel calls onCancel first, then ends the source', async () => {
  const log: string[] = [];
  const reader = utf8Stream(strings(['a', 'b'], log), () => log.push('onCancel')).getReader();
  await reader.read();
  await reader.cancel();
  assert.deepEqual(log.slice(-2), ['onCancel', 'finally']);
});

test('a failing source errors the stream', async () => {
  async function* failing(): AsyncGenerator<string> {
    yield 'ok';
    throw new Error('boom');
  }
  const reader = utf8Stream(failing()).getReader();
  await reader.read();
  await assert.rejects(reader.read(), /boom/);
});

test('createSseResponse streams through it with the protocol headers', async () => {
  async function* events() {
    yield { type: 'run-start', runId: 'r', seq: 0, ts: 0 } as never;
    yield { type: 'run-finish', runId: 'r', seq: 1, ts: 0, reason: 'stop' } as never;
  }
  const response = createSseResponse(events(), 'ai-sdk');
  assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  const text = await response.text();
  assert.match(text, /"type":"start"/);
  assert.match(text, /"type":"finish"/);
  assert.match(text, /data: \[DONE\]/);
});
