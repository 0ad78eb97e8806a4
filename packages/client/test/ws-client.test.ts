/**
 * createWsClient against an in-process WebSocket server (node:http upgrade) serving a stored
 * `agent:event` session of two runs, dropping the connection after a random number of frames
 * (fast-check, several drops per run, a server that resends earlier frames, three message
 * envelopes): the frames the client delivers equal the session exactly, and every resubscribe
 * carries the last sequence number seen. No sleeps: the backoff is injected (0 ms).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createWsEncoder } from '@switchboard/core';
import fc from 'fast-check';
import { createWsClient, type WsFrame } from '../src/ws-client.ts';
import { decodeCapture, drain } from './helpers.ts';
import { startWsSessionServer } from './ws-server.ts';

const fast = { backoff: () => 0, sleep: async () => {} };

/** A session of two runs, numbered by a store-like session counter. */
function session(): Record<string, unknown>[] {
  let n = 1000;
  const first = drain(
    createWsEncoder({ sessionId: 's1', sequenceNumber: () => ++n }),
    decodeCapture('anthropic/thinking-text-tool-use.sse', 'auto', 'r1'),
  ) as unknown as Record<string, unknown>[];
  const second = drain(
    createWsEncoder({ sessionId: 's1', sequenceNumber: () => ++n, firstEventIndex: first.length }),
    decodeCapture('anthropic/text-basic.sse', 'auto', 'r2'),
  ) as unknown as Record<string, unknown>[];
  return [...first, ...second];
}

async function receiveAll(url: string, last: (f: WsFrame) => boolean, options = {}): Promise<{ frames: WsFrame[]; reconnects: number }> {
  const client = createWsClient(url, { sessionId: 's1', ...fast, ...options });
  const frames: WsFrame[] = [];
  for await (const frame of client) {
    frames.push(frame);
    if (last(frame)) client.close();
  }
  return { frames, reconnects: client.reconnects };
}

describe('WS client: frames across reconnects equal the session', () => {
  const frames = session();
  const isLast = (f: WsFrame) => f.type === 'complete' && String(f.eventId).startsWith('r2:');

  test('random drops, a server that resends, every envelope', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: frames.length }), { maxLength: 4 }),
        fc.nat({ max: 4 }),
        fc.constantFrom('bare' as const, 'typed' as const, 'array' as const),
        async (cuts, overlap, envelope) => {
          const server = await startWsSessionServer({ sessions: { s1: frames }, cuts, overlap, envelope });
          try {
            const got = await receiveAll(server.url, isLast);
            assert.deepEqual(got.frames, frames);
            // Each resubscribe resumes after the last sequence number delivered before the drop.
            let delivered = 0;
            server.subscribes.forEach((subs, i) => {
              assert.equal(subs.length, 1);
              const seen = frames.slice(0, delivered).filter((f) => typeof f.sequenceNumber === 'number');
              assert.equal(subs[0].lastSequenceNumber, seen.at(-1)?.sequenceNumber, `connection ${i}`);
              // What this connection added: frames up to its cut, counted from where it resumed.
              const resumeAt =
                subs[0].lastSequenceNumber === undefined ? 0 : frames.findIndex((f) => f.sequenceNumber === subs[0].lastSequenceNumber) + 1;
              const from = subs[0].lastSequenceNumber === undefined ? 0 : Math.max(0, resumeAt - overlap);
              const cut = cuts[i];
              delivered = Math.max(delivered, cut === undefined ? frames.length : Math.min(frames.length, from + cut));
            });
          } finally {
            await server.close();
          }
        },
      ),
      { numRuns: Number(process.env.FC_RUNS ?? 40) },
    );
  });

  test('subscribing with a sequence number resumes after it', async () => {
    const at = frames.findIndex((f) => f.type === 'complete');
    const server = await startWsSessionServer({ sessions: { s1: frames } });
    try {
      const got = await receiveAll(server.url, isLast, { lastSequenceNumber: frames[at].sequenceNumber as number });
      assert.deepEqual(got.frames, frames.slice(at + 1));
    } finally {
      await server.close();
    }
  });
});

describe('WS client: the contract', () => {
  test('a frame sent pending, then persisted with the same eventId, is delivered twice; a plain repeat is not', async () => {
    const base = { type: 'message', sessionId: 's1', content: 'hi', eventIndex: 1, eventId: 'r1:4' };
    const stored = [
      { type: 'session_start', sessionId: 's1', eventIndex: 0, eventId: 'r1:0', sequenceNumber: 1, persistenceState: 'persisted' },
      { ...base, persistenceState: 'pending' },
      { ...base, persistenceState: 'pending' },
      { ...base, persistenceState: 'persisted', sequenceNumber: 2 },
      { ...base, persistenceState: 'persisted', sequenceNumber: 2 },
      { type: 'complete', sessionId: 's1', eventIndex: 2, eventId: 'r1:5', sequenceNumber: 3, persistenceState: 'persisted' },
    ];
    const server = await startWsSessionServer({ sessions: { s1: stored } });
    try {
      const got = await receiveAll(server.url, (f) => f.type === 'complete');
      assert.deepEqual(
        got.frames.map((f) => [f.eventId, f.persistenceState]),
        [
          ['r1:0', 'persisted'],
          ['r1:4', 'pending'],
          ['r1:4', 'persisted'],
          ['r1:5', 'persisted'],
        ],
      );
    } finally {
      await server.close();
    }
  });

  test('messages sent before the socket opens are queued; control messages go to onMessage', async () => {
    const server = await startWsSessionServer({ sessions: { s1: session() } });
    const control: unknown[] = [];
    const client = createWsClient(server.url, { ...fast, onMessage: (m) => control.push(m) });
    client.send({ type: 'message', sessionId: 's1', content: 'hello' });
    client.subscribe('s1');
    try {
      for await (const frame of client) if (frame.type === 'complete' && String(frame.eventId).startsWith('r2:')) client.close();
      // On open: the subscriptions first (so the reply to the message is not missed), then the queue.
      assert.deepEqual(server.received, [
        { type: 'subscribe', sessionId: 's1' },
        { type: 'message', sessionId: 's1', content: 'hello' },
      ]);
      assert.deepEqual(control, [{ type: 'subscribed', sessionId: 's1' }]);
      assert.equal(client.lastSequenceNumber('s1'), (session().at(-1) as { sequenceNumber: number }).sequenceNumber);
    } finally {
      await server.close();
    }
  });

  test('gives up after maxRetries when the server is gone', async () => {
    const server = await startWsSessionServer({ sessions: {} });
    const url = server.url;
    await server.close();
    const statuses: string[] = [];
    const client = createWsClient(url, { sessionId: 's1', maxRetries: 2, ...fast, onStatus: (s) => statuses.push(s) });
    await assert.rejects(async () => {
      for await (const _ of client) {
        // nothing arrives
      }
    }, /gave up after 2 attempts/);
    assert.deepEqual(statuses, ['reconnecting', 'reconnecting', 'closed']);
  });
});
