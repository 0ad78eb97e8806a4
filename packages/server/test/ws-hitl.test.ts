/**
 * A person in the loop over the WebSocket `agent:event` contract (in its snake_case style): the
 * demo agent's `approval` and `location` commands answered with `tool_approval_response` /
 * `tool_result` messages, a refused answer, and history after each flow. No sleeps: every wait is
 * on a frame.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, isComplete, quietLogger, testConfig, WsClient } from './gateway-support.ts';

type Envelope = { event: string; data?: Record<string, unknown> };

const frames = (taken: Envelope[]) => taken.filter((e) => e.event === 'agent:event').map((e) => e.data as Record<string, unknown>);
const textOf = (taken: Envelope[]) =>
  frames(taken)
    .filter((f) => f.type === 'message' || f.type === 'message_chunk')
    .map((f) => String(f.content ?? ''))
    .join('');

describe('WebSocket: a person in the loop', () => {
  let s: RunningServer;
  let ws: WsClient;
  before(async () => {
    s = await startServer({ port: 0, config: testConfig(), runOptions: { logger: quietLogger() }, onError: () => {} });
    ws = new WsClient(`${s.url.replace(/^http/, 'ws')}/ws`);
    await ws.opened;
  });
  after(async () => {
    ws.close();
    await s.close();
  });

  /** Starts `content` with the demo in a new session; the frames up to the run's end. */
  async function ask(sessionId: string, content: string): Promise<Envelope[]> {
    ws.send({ type: 'message', sessionId, content, agent: 'demo' });
    return ws.until(isComplete);
  }

  test('approval → tool_approval_request; tool_approval_response approved → "Deleted notes.txt"', async () => {
    const asked = await ask('ws-approve', 'approval');
    const request = frames(asked).find((f) => f.type === 'tool_approval_request');
    assert.ok(request, 'a tool_approval_request frame');
    assert.equal(request.tool_name, 'delete_file');
    assert.ok((asked.at(-1)?.data as { pending?: unknown } | undefined)?.pending, 'complete names what is pending');

    ws.send({ type: 'tool_approval_response', sessionId: 'ws-approve', approvalId: request.approval_id, approved: true });
    const answered = await ws.until(isComplete);
    assert.ok(answered.some((e) => e.event === 'run:started'));
    assert.ok(frames(answered).some((f) => f.type === 'tool_approval_response' && f.approved === true));
    assert.match(textOf(answered), /Deleted notes\.txt/);

    const history = (await (await api(s.url, '/api/chats/ws-approve/messages?protocol=ai-sdk')).json()) as {
      role: string;
      parts: { type: string; state?: string; approval?: { approved?: boolean } }[];
    }[];
    const assistant = history.filter((m) => m.role === 'assistant');
    assert.equal(assistant.length, 1, 'one assistant message for the run and its continuation');
    const tool = assistant[0].parts.find((p) => p.type === 'tool-delete_file');
    assert.equal(tool?.state, 'output-available');
    assert.equal(tool?.approval?.approved, true);
  });

  test('denied → "Left notes.txt alone"; the same answer again is refused, located', async () => {
    const asked = await ask('ws-deny', 'approval');
    const request = frames(asked).find((f) => f.type === 'tool_approval_request') as Record<string, unknown>;
    ws.send({ type: 'tool_approval_response', sessionId: 'ws-deny', approvalId: request.approval_id, approved: false });
    const answered = await ws.until(isComplete);
    assert.match(textOf(answered), /Left notes\.txt alone/);

    ws.send({ type: 'tool_approval_response', sessionId: 'ws-deny', approvalId: request.approval_id, approved: true, requestId: 'again' });
    const [error] = (await ws.until((e) => e.event === 'error')).slice(-1);
    assert.equal(error.data?.code, 'approval_answered');
    assert.equal(error.data?.requestId, 'again');
    assert.match(String(error.data?.message), /^approvalId: /);
  });

  test('location → client_tool_call; tool_result "Paris" → "You are in Paris"', async () => {
    const asked = await ask('ws-location', 'location');
    const call = frames(asked).find((f) => f.type === 'client_tool_call') as Record<string, unknown>;
    assert.equal(call.tool_name, 'get_location');
    ws.send({ type: 'tool_result', sessionId: 'ws-location', toolCallId: call.tool_call_id, output: 'Paris' });
    assert.match(textOf(await ws.until(isComplete)), /You are in Paris/);
  });

  test('bad answers: a missing field and an answer nothing waits for are errors, the socket stays open', async () => {
    ws.send({ type: 'tool_approval_response', sessionId: 'ws-none', approvalId: 'x' });
    assert.match(String((await ws.until((e) => e.event === 'error')).at(-1)?.data?.message), /boolean "approved"/);
    ws.send({ type: 'tool_result', sessionId: 'ws-approve', toolCallId: 'nobody-waits' });
    assert.equal((await ws.until((e) => e.event === 'error')).at(-1)?.data?.code, 'not_waiting');
    ws.send({ type: 'ping' });
    await ws.until((e) => e.event === 'pong');
  });
});
