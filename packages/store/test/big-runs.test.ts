/**
 * A run's store cost is linear in its output: the bytes and writes a run of 5, 10, 20 and 40 MB of
 * text (and 5, 10, 20 MB of streamed tool input) makes the backend write, counted at the backend's
 * commit, not timed. The message row of a live run is rewritten at widening intervals (reads of a
 * pending message re-project it from the log), so its rewrites add up to less than twice its final size.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalEvent } from '@switchboard/core';

import { MemoryStore } from '../src/memory.ts';
import type { Commit } from '../src/store.ts';

/** A memory store that counts what each commit writes. */
class CountingStore extends MemoryStore {
  commitCount = 0;
  eventBytes = 0;
  messageWrites = 0;
  messageBytes = 0;
  lastMessageBytes = 0;
  protected override async dbCommit(c: Commit): Promise<void> {
    this.commitCount++;
    for (const e of c.events) this.eventBytes += e.json.length;
    if (c.message) {
      this.messageWrites++;
      this.lastMessageBytes = JSON.stringify(c.message).length;
      this.messageBytes += this.lastMessageBytes;
    }
    return super.dbCommit(c);
  }
}

const KB = `${'x'.repeat(1023)}\n`;

/** A run of `mb` MB of output in 1 KB deltas: text, or a tool call's streamed input. */
function* bigRun(runId: string, mb: number, kind: 'text' | 'tool'): Generator<CanonicalEvent> {
  let seq = 0;
  const base = { runId, ts: 1_763_870_000_000 };
  const ev = (e: Record<string, unknown>) => ({ ...base, seq: seq++, ...e }) as unknown as CanonicalEvent;
  yield ev({ type: 'run-start', chatId: runId });
  const n = mb * 1024;
  if (kind === 'text') {
    yield ev({ type: 'text-start', blockId: 't' });
    for (let i = 0; i < n; i++) yield ev({ type: 'text-delta', blockId: 't', delta: KB });
    yield ev({ type: 'text-end', blockId: 't' });
  } else {
    yield ev({ type: 'tool-input-start', toolCallId: 'c', toolName: 'write_file' });
    yield ev({ type: 'tool-input-delta', toolCallId: 'c', delta: '{"content":"' });
    for (let i = 0; i < n; i++) yield ev({ type: 'tool-input-delta', toolCallId: 'c', delta: KB.slice(0, -1) });
    yield ev({ type: 'tool-input-delta', toolCallId: 'c', delta: '"}' });
    yield ev({ type: 'tool-input-end', toolCallId: 'c', toolName: 'write_file', input: { content: KB.slice(0, -1).repeat(n) } });
  }
  yield ev({ type: 'run-finish', finishReason: 'stop' });
}

async function cost(mb: number, kind: 'text' | 'tool') {
  const store = new CountingStore();
  const runId = `big-${kind}-${mb}`;
  await store.startRun({ chatId: runId, runId, userMessage: { content: 'go' } });
  for (const e of bigRun(runId, mb, kind)) await store.append(e);
  assert.equal((await store.getRun(runId))?.status, 'complete');
  const { commitCount: commits, eventBytes, messageWrites, messageBytes, lastMessageBytes } = store;
  await store.close();
  return { commits, eventBytes, messageWrites, messageBytes, lastMessageBytes, bytes: eventBytes + messageBytes };
}

describe('a big run costs the store linear work in its output', () => {
  for (const [kind, sizes] of [
    ['text', [5, 10, 20, 40]],
    ['tool', [5, 10, 20]],
  ] as const) {
    test(`${kind}: ${sizes.join(', ')} MB — bytes and writes per MB stay flat`, async () => {
      const rows = [];
      for (const mb of sizes) rows.push({ mb, ...(await cost(mb, kind)) });
      const first = rows[0] as (typeof rows)[number];
      for (const r of rows) {
        const detail = JSON.stringify(
          rows.map(({ mb, bytes, messageBytes, messageWrites }) => ({ mb, bytes, messageBytes, messageWrites })),
        );
        // Doubling the output at most doubles the bytes and the commits (10 % slack for the run's own frame).
        assert.ok(r.bytes / r.mb <= (first.bytes / first.mb) * 1.1, `bytes per MB grew: ${detail}`);
        assert.ok(r.commits / r.mb <= (first.commits / first.mb) * 1.1, `commits per MB grew: ${detail}`);
        // The rewrites of a live run's message (each one the whole message so far, at doubling intervals) add
        // up to less than twice the final message: at most three times it in all.
        assert.ok(r.messageBytes <= 3 * r.lastMessageBytes, `message rewrites: ${detail}`);
      }
    });
  }
});
