/**
 * The resume clients against the real gateway (`@switchboard/server`, in process, the demo agent at
 * full speed): the connection is cut on the client side at a random byte (fast-check) and the client
 * resumes through the gateway's own routes — the AI SDK and AG-UI streams at
 * `GET /api/runs/:runId/stream?protocol=…` with `Last-Event-ID`, the WebSocket with `subscribe`. The
 * frames received equal those of an uninterrupted run (the same ids, the same frame kinds; the demo's
 * generated ids and times differ between runs).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDemoAgent, type RunningServer, startServer } from '@switchboard/server';
import fc from 'fast-check';
import { ResumableHttpAgent } from '../src/ag-ui-agent.ts';
import { resumableFetch } from '../src/resume.ts';
import type { SseFrame } from '../src/sse.ts';
import { createWsClient } from '../src/ws-client.ts';

const fast = { backoff: () => 0, sleep: async () => {} };

/** A fetch whose first response body breaks after `cut` bytes: a network drop as the client sees it. */
function dropping(cut: number, calls: string[] = []) {
  let n = 0;
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    calls.push(
      `${init.method ?? 'GET'} ${new URL(url).pathname}${new URL(url).search} ${new Headers(init.headers).get('last-event-id') ?? '-'}`,
    );
    const res = await fetch(url, init);
    if (n++ > 0 || !res.body) return res;
    const reader = res.body.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (sent + value.length >= cut) {
          controller.enqueue(value.subarray(0, cut - sent));
          await reader.cancel();
          controller.error(new TypeError('terminated'));
          return;
        }
        sent += value.length;
        controller.enqueue(value);
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** What two runs of the demo agent have in common: frame ids and kinds. */
const shape = (frames: SseFrame[]) =>
  frames.map((f) => [f.id, f.data === '[DONE]' ? f.data : (JSON.parse(f.data) as { type: string }).type]);

describe('resume through the gateway', () => {
  let server: RunningServer;
  let chat = 0;
  before(async () => {
    // `continue`: a dropped POST does not abort its run (the gateway's default aborts, see docs/client.md).
    server = await startServer({ port: 0, onDisconnect: 'continue', rateLimitPerMinute: 0, agent: createDemoAgent({ delayMs: 0 }) });
  });
  after(async () => {
    await server.close();
  });

  const post = (id: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      trigger: 'submit-message',
      messages: [{ id: `u-${id}`, role: 'user', parts: [{ type: 'text', text: 'demo' }] }],
    }),
  });

  async function collect(stream: AsyncIterable<SseFrame>): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    for await (const f of stream) out.push(f);
    return out;
  }

  test('AI SDK: POST /api/chat cut anywhere, resumed at the run stream', async () => {
    const whole = await collect(resumableFetch(`${server.url}/api/chat`, post(`c${chat++}`), { protocol: 'ai-sdk', ...fast }));
    assert.equal(whole.at(-1)?.data, '[DONE]');
    const total = whole.reduce((n, f) => n + Buffer.byteLength(f.data) + 16, 0);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: total }), async (cut) => {
        const calls: string[] = [];
        const got = await collect(
          resumableFetch(`${server.url}/api/chat`, post(`c${chat++}`), { protocol: 'ai-sdk', ...fast, fetch: dropping(cut, calls) }),
        );
        assert.deepEqual(shape(got), shape(whole));
        for (const call of calls.slice(1)) assert.match(call, /^GET \/api\/runs\/[^/]+\/stream\?protocol=ai-sdk \S+$/);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 8) },
    );
  });

  test('AG-UI: ResumableHttpAgent ends with the messages of an uninterrupted run', async () => {
    const plain = new ResumableHttpAgent({
      url: `${server.url}/api/agui`,
      threadId: `t${chat++}`,
      initialMessages: [{ id: 'u', role: 'user', content: 'demo' }],
    });
    await plain.runAgent({ runId: `r${chat++}` });
    const summary = (messages: { role: string; content?: unknown }[]) =>
      messages.map((m) => [m.role, typeof m.content === 'string' ? m.content.length : 0]);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 6000 }), async (cut) => {
        const calls: string[] = [];
        const agent = new ResumableHttpAgent({
          url: `${server.url}/api/agui`,
          threadId: `t${chat++}`,
          initialMessages: [{ id: 'u', role: 'user', content: 'demo' }],
          fetch: dropping(cut, calls),
          resume: fast,
        });
        const runId = `r${chat++}`;
        await agent.runAgent({ runId });
        assert.deepEqual(summary(agent.messages as never), summary(plain.messages as never));
        for (const call of calls.slice(1)) assert.match(call, new RegExp(`^GET /api/runs/${runId}/stream\\?protocol=ag-ui \\S+$`));
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 8) },
    );
  });

  test('WebSocket: subscribe to a finished session, every frame once', async () => {
    const id = `c${chat++}`;
    await collect(resumableFetch(`${server.url}/api/chat`, post(id), { protocol: 'ai-sdk', ...fast }));
    const control: unknown[] = [];
    const client = createWsClient(`${server.url.replace('http', 'ws')}/ws`, { sessionId: id, ...fast, onMessage: (m) => control.push(m) });
    const frames: Record<string, unknown>[] = [];
    for await (const f of client) {
      frames.push(f);
      if (f.type === 'complete') client.close();
    }
    assert.equal(frames[0].type, 'session_start');
    assert.equal(new Set(frames.map((f) => f.eventId)).size, frames.length);
    assert.deepEqual(control[0], { event: 'subscribed', data: { sessionId: id } });
  });
});
