/**
 * Resumable SSE against an in-process HTTP server that serves a stored stream and drops the
 * connection at random byte offsets (fast-check over the cut points, several cuts per run, a server
 * that resends frames the client already has): the frames received across reconnects equal the
 * uninterrupted stream exactly, ids included. Then the official clients on top: the AI SDK's
 * DefaultChatTransport with `createResumableFetch`, and `ResumableHttpAgent` (an `@ag-ui/client`
 * HttpAgent) — each ends with what it builds from the uninterrupted stream. No sleeps: the backoff is
 * injected (0 ms).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CanonicalEvent, createSseEncoder, type Protocol } from '@switchboard/core';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import fc from 'fast-check';
import { runAgUi } from '../../../test/support/ag-ui-oracle.ts';
import { assembleUIMessage } from '../../../test/support/ai-sdk-oracle.ts';
import { ResumableHttpAgent } from '../src/ag-ui-agent.ts';
import { readStream } from '../src/read.ts';
import { createResumableFetch, type ReconnectInfo, resumableFetch } from '../src/resume.ts';
import { createSseFrameParser, type SseFrame } from '../src/sse.ts';
import { decodeCapture, drain } from './helpers.ts';
import { startStreamServer, storedFrames } from './server.ts';

const now = async () => {};
const fast = { backoff: () => 0, sleep: now };

function framesOf(sse: string): SseFrame[] {
  const out: SseFrame[] = [];
  const p = createSseFrameParser({ frame: (f) => out.push(f) });
  p.feed(sse);
  return out;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const CAPTURE = 'anthropic/thinking-text-tool-use.sse';
const events: CanonicalEvent[] = decodeCapture(CAPTURE);

function encoded(protocol: Protocol, ids = true): string {
  return drain(createSseEncoder(protocol, { ids }), events).join('');
}

const ROUTES: Record<string, { post: string; resume: (body: string) => string }> = {
  'ai-sdk': { post: '/api/chat', resume: () => '/api/chat/chat-1/stream' },
  // The run id of the stream's RUN_STARTED (`run`), or — cut before it arrived — the request's `runId`.
  'ag-ui': { post: '/api/agui', resume: () => '/api/runs/(run|client-run)/stream\\?protocol=ag-ui' },
  canonical: { post: '/api/stream', resume: () => '/api/stream' },
};

describe('resumableFetch: frames across reconnects equal the uninterrupted stream', () => {
  for (const protocol of ['ai-sdk', 'ag-ui', 'canonical'] as const) {
    test(`${protocol}: random cuts, a server that resends, Last-Event-ID`, async () => {
      const body = encoded(protocol);
      const expected = framesOf(body);
      const total = Buffer.byteLength(body);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.nat({ max: total - 1 }), { minLength: 1, maxLength: 4 }),
          fc.nat({ max: 3 }),
          async (cuts, overlap) => {
            const server = await startStreamServer({ frames: storedFrames(body), cuts, overlap });
            try {
              const route = ROUTES[protocol];
              const init: RequestInit =
                protocol === 'canonical'
                  ? { method: 'GET' }
                  : {
                      method: 'POST',
                      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
                      body: JSON.stringify({ id: 'chat-1', runId: 'client-run' }),
                    };
              const stream = resumableFetch(server.url + route.post, init, { protocol, ...fast });
              const got = await collect(stream);
              assert.deepEqual(got, expected);
              // Every reconnect went to the resume URL with the last id received, and kept the auth header.
              for (const c of server.connections.slice(1)) {
                assert.equal(c.method, 'GET');
                assert.match(c.url, new RegExp(`^${route.resume(body)}$`));
                if (protocol !== 'canonical') assert.equal(c.headers.authorization, 'Bearer t');
                assert.equal(c.headers['content-type'], undefined);
              }
              assert.equal(stream.reconnects, server.connections.length - 1);
            } finally {
              await server.close();
            }
          },
        ),
        { numRuns: Number(process.env.FC_RUNS ?? 30) },
      );
    });
  }

  test('a server without ids: resumes from the start and skips what was delivered', async () => {
    const body = encoded('ai-sdk', false);
    const expected = framesOf(body);
    const total = Buffer.byteLength(body);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: total - 1 }), { minLength: 1, maxLength: 3 }), async (cuts) => {
        const server = await startStreamServer({ frames: storedFrames(body), cuts });
        try {
          const got = await collect(resumableFetch(`${server.url}/stream`, {}, { protocol: 'ai-sdk', ...fast }));
          assert.deepEqual(got, expected);
          for (const c of server.connections) assert.equal(c.lastEventId, undefined);
        } finally {
          await server.close();
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 20) },
    );
  });

  test("the gateway's x-switchboard-run-id header: the run's own stream, which serves it live or finished", async () => {
    const body = encoded('ai-sdk');
    const server = await startStreamServer({ frames: storedFrames(body), cuts: [900], headers: { 'x-switchboard-run-id': 'run-7' } });
    try {
      const init = { method: 'POST', body: JSON.stringify({ id: 'chat-1', messages: [] }) };
      const got = await collect(resumableFetch(`${server.url}/api/chat`, init, { protocol: 'ai-sdk', ...fast }));
      assert.deepEqual(got, framesOf(body));
      assert.deepEqual(
        server.connections.map((c) => [c.method, c.url]),
        [
          ['POST', '/api/chat'],
          ['GET', '/api/runs/run-7/stream?protocol=ai-sdk'],
        ],
      );
    } finally {
      await server.close();
    }
  });

  test('readStream over a resumable stream: the canonical events of the uninterrupted one', async () => {
    const body = encoded('canonical');
    const server = await startStreamServer({ frames: storedFrames(body), cuts: [700, 300, 2000] });
    try {
      const got = await collect(readStream(resumableFetch(`${server.url}/s`, {}, { protocol: 'canonical', ...fast }), 'canonical'));
      assert.deepEqual(got, events);
      assert.equal(server.connections.length, 4);
    } finally {
      await server.close();
    }
  });
});

describe('resumableFetch: failures', () => {
  const body = encoded('ai-sdk');
  const post: RequestInit = { method: 'POST', body: JSON.stringify({ id: 'chat-1' }) };

  test('bounded retries: gives up with the last error; exponential backoff by default', async () => {
    const server = await startStreamServer({ frames: storedFrames(body), cuts: [500], statuses: [200, 503, 503, 503, 503] });
    const reconnects: ReconnectInfo[] = [];
    const slept: number[] = [];
    try {
      const stream = resumableFetch(`${server.url}/api/chat`, post, {
        protocol: 'ai-sdk',
        maxRetries: 3,
        sleep: async (ms) => {
          slept.push(ms);
        },
        onReconnect: (info) => reconnects.push(info),
      });
      await assert.rejects(collect(stream), /HTTP 503/);
      assert.deepEqual(slept, [250, 500, 1000]);
      assert.deepEqual(
        reconnects.map((r) => r.attempt),
        [1, 2, 3],
      );
      assert.equal(server.connections.length, 4);
    } finally {
      await server.close();
    }
  });

  test('429 / 503 on resume: retried, waiting at least Retry-After', async () => {
    const server = await startStreamServer({
      frames: storedFrames(body),
      cuts: [500],
      statuses: [200, 429],
      headers: { 'retry-after': '2' },
    });
    const slept: number[] = [];
    try {
      const sleep = async (ms: number) => {
        slept.push(ms);
      };
      const got = await collect(resumableFetch(`${server.url}/api/chat`, post, { protocol: 'ai-sdk', sleep }));
      assert.deepEqual(got, framesOf(body));
      assert.deepEqual(slept, [250, 2000]);
    } finally {
      await server.close();
    }
  });

  test('delivered frames reset the retry count', async () => {
    // Five cuts, each after some progress, with maxRetries 1: never two failures in a row.
    const total = Buffer.byteLength(body);
    const cuts = [1, 2, 3, 4, 5].map((k) => Math.floor((total * k) / 12));
    const server = await startStreamServer({ frames: storedFrames(body), cuts });
    try {
      const got = await collect(resumableFetch(`${server.url}/api/chat`, post, { protocol: 'ai-sdk', maxRetries: 1, ...fast }));
      assert.deepEqual(got, framesOf(body));
    } finally {
      await server.close();
    }
  });

  test('404 on resume fails at once; 204 means nothing is left to resume', async () => {
    const s404 = await startStreamServer({ frames: storedFrames(body), cuts: [500], statuses: [200, 404] });
    try {
      await assert.rejects(collect(resumableFetch(`${s404.url}/api/chat`, post, { protocol: 'ai-sdk', ...fast })), /HTTP 404/);
      assert.equal(s404.connections.length, 2);
    } finally {
      await s404.close();
    }
    const s204 = await startStreamServer({ frames: storedFrames(body), cuts: [500], statuses: [200, 204] });
    try {
      const got = await collect(resumableFetch(`${s204.url}/api/chat`, post, { protocol: 'ai-sdk', ...fast }));
      assert.deepEqual(got, framesOf(body).slice(0, got.length));
      assert.ok(got.length < framesOf(body).length);
    } finally {
      await s204.close();
    }
  });

  test('a non-2xx first response throws with its status', async () => {
    const server = await startStreamServer({ frames: [], statuses: [401] });
    try {
      await assert.rejects(collect(resumableFetch(`${server.url}/api/chat`, post, { protocol: 'ai-sdk', ...fast })), /HTTP 401/);
    } finally {
      await server.close();
    }
  });

  test('abortable: aborting while waiting to reconnect stops at once', async () => {
    const server = await startStreamServer({ frames: storedFrames(body), cuts: [500] });
    const controller = new AbortController();
    try {
      const stream = resumableFetch(
        `${server.url}/api/chat`,
        { ...post, signal: controller.signal },
        // The default sleep (1 minute) is cut short by the abort.
        { protocol: 'ai-sdk', backoff: () => 60_000, onReconnect: () => controller.abort(new Error('user stopped')) },
      );
      await assert.rejects(collect(stream), /user stopped/);
      assert.equal(server.connections.length, 1);
    } finally {
      await server.close();
    }
  });

  test('an AI SDK POST without a chat id cannot be resumed without resumeUrl', async () => {
    const server = await startStreamServer({ frames: storedFrames(body), cuts: [500] });
    try {
      await assert.rejects(
        collect(resumableFetch(`${server.url}/x`, { method: 'POST', body: '{}' }, { protocol: 'ai-sdk', ...fast })),
        /no URL to resume/,
      );
    } finally {
      await server.close();
    }
  });
});

describe('the official clients on top of the resumable fetch', () => {
  test('AI SDK DefaultChatTransport + readUIMessageStream: the uninterrupted message', async () => {
    const body = encoded('ai-sdk');
    const expected = await assembleUIMessage(body);
    const total = Buffer.byteLength(body);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: total - 1 }), { minLength: 1, maxLength: 3 }), async (cuts) => {
        const server = await startStreamServer({ frames: storedFrames(body), cuts });
        try {
          const transport = new DefaultChatTransport<UIMessage>({
            api: `${server.url}/api/chat`,
            fetch: createResumableFetch({ protocol: 'ai-sdk', ...fast }),
          });
          const chunks = await transport.sendMessages({
            trigger: 'submit-message',
            chatId: 'chat-1',
            messageId: undefined,
            messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
            abortSignal: undefined,
          });
          let last: UIMessage | undefined;
          for await (const m of readUIMessageStream({ stream: chunks })) last = m;
          assert.deepEqual(last?.parts, expected.parts);
          assert.ok(server.connections.slice(1).every((c) => c.url === '/api/chat/chat-1/stream'));
        } finally {
          await server.close();
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 15) },
    );
  });

  test('ResumableHttpAgent (@ag-ui/client HttpAgent): the messages of the uninterrupted run', async () => {
    const body = encoded('ag-ui');
    const expected = await runAgUi(body);
    assert.equal(expected.error, undefined);
    const total = Buffer.byteLength(body);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: total - 1 }), { minLength: 1, maxLength: 3 }), async (cuts) => {
        const server = await startStreamServer({ frames: storedFrames(body), cuts });
        try {
          const agent = new ResumableHttpAgent({ url: `${server.url}/api/agui`, threadId: 'thread', resume: fast });
          await agent.runAgent({ runId: 'client-run' });
          assert.deepEqual(agent.messages, expected.messages);
          assert.deepEqual(agent.state, expected.state);
          assert.equal(server.connections[0].method, 'POST');
          for (const c of server.connections.slice(1)) {
            // The run id of RUN_STARTED, or the request's when the first cut came before it.
            assert.match(c.url, /^\/api\/runs\/(run|client-run)\/stream\?protocol=ag-ui$/);
            assert.equal(c.method, 'GET');
          }
        } finally {
          await server.close();
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 15) },
    );
  });
});
