/**
 * End to end with the Python example agent (examples/agents/echo.py, a real child process per
 * run): the official clients — the `ai` package's DefaultChatTransport + readUIMessageStream, and
 * `@ag-ui/client`'s HttpAgent — each hold a two-turn conversation through the gateway, and the
 * history endpoints give the same conversation back; a client that asked for abort-on-disconnect
 * and goes away mid-run leaves no process behind and an aborted message; an agent that crashes gives an error frame, a clean end
 * and a stored partial message.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { HttpAgent, type Message } from '@ag-ui/client';
import { DefaultChatTransport, isToolUIPart, readUIMessageStream, type UIMessage } from 'ai';

import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, BodyReader, quietLogger, sseData, testConfig, userMessage } from './gateway-support.ts';

let s: RunningServer;
const logs: string[] = [];
before(async () => {
  s = await startServer({
    port: 0,
    config: testConfig(),
    defaultAgent: 'echo-py',
    runOptions: { logger: quietLogger(logs), killGraceMs: 2000 },
    onError: () => {},
  });
});
after(() => s.close());

const textOf = (m: { parts: readonly { type: string; text?: string }[] }) =>
  m.parts.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');

/** A UIMessage with what can legitimately differ between live and reloaded left out. */
function comparable(m: UIMessage): unknown {
  // JSON: the live parts carry keys set to undefined.
  return JSON.parse(
    JSON.stringify({
      id: m.id,
      role: m.role,
      parts: m.parts.map((p) => {
        const { state: _state, providerMetadata, ...rest } = p as Record<string, unknown> & { providerMetadata?: Record<string, unknown> };
        if (!providerMetadata) return rest;
        // The stored reasoning part has the server-measured duration the live one carries on reasoning-end only.
        const ns = providerMetadata.switchboard as Record<string, unknown> | undefined;
        if (!ns) return { ...rest, providerMetadata };
        const { durationMs: _d, ...keep } = ns;
        return { ...rest, providerMetadata: { ...providerMetadata, switchboard: keep } };
      }),
    }),
  );
}

describe('AI SDK client ↔ gateway ↔ Python agent', () => {
  test('a two-turn conversation, then the same conversation from the history endpoint', async () => {
    const chatId = `ai-${randomUUID()}`;
    const transport = new DefaultChatTransport<UIMessage>({ api: `${s.url}/api/chat`, body: { agent: 'echo-py' } });
    let messages: UIMessage[] = [];
    const turn = async (text: string): Promise<UIMessage> => {
      messages = [...messages, userMessage(text)];
      const stream = await transport.sendMessages({
        trigger: 'submit-message',
        chatId,
        messageId: undefined,
        messages,
        abortSignal: undefined,
      });
      let last: UIMessage | undefined;
      for await (const m of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) last = m;
      assert.ok(last);
      messages = [...messages, last];
      return last;
    };

    const first = await turn('hello there');
    assert.equal(first.role, 'assistant');
    assert.equal(textOf(first), 'You said: hello there');
    const [tool] = first.parts.filter(isToolUIPart);
    assert.equal(tool.type, 'tool-count_words');
    assert.equal(tool.state, 'output-available');
    assert.deepEqual(tool.state === 'output-available' ? tool.output : undefined, { words: 2, characters: 11 });
    const variants = first.parts.flatMap((p) => (p.type === 'reasoning' ? [p.providerMetadata?.switchboard?.variant] : []));
    assert.ok(variants.includes('processing') && variants.includes('thinking'), JSON.stringify(variants));
    assert.ok(first.parts.some((p) => p.type === 'data-todos'));

    const second = await turn('and now three words');
    assert.equal(textOf(second), 'You said: and now three words');
    const reasoning = second.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
    assert.ok(
      reasoning.some((t) => t.includes('3 message(s)')),
      'the agent got the whole conversation',
    );

    const history = (await (await api(s.url, `/api/chats/${chatId}/messages?protocol=ai-sdk`)).json()) as UIMessage[];
    assert.deepEqual(history.map(comparable), messages.map(comparable));
    const { validateUIMessages } = await import('ai');
    await validateUIMessages({ messages: history });
  });
});

describe('AG-UI HttpAgent ↔ gateway ↔ Python agent', () => {
  test('a two-turn conversation, then the same conversation as a MESSAGES_SNAPSHOT', async () => {
    const threadId = `agui-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${s.url}/api/agui`, threadId });
    const turn = async (text: string) => {
      agent.addMessage({ id: randomUUID(), role: 'user', content: text });
      const { newMessages } = await agent.runAgent({ runId: randomUUID(), forwardedProps: { agent: 'echo-py' } });
      return newMessages;
    };
    const first = await turn('hello agui');
    const answer = (list: Message[]) =>
      list.filter((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content).map((m) => m.content);
    assert.deepEqual(answer(first), ['You said: hello agui']);
    assert.ok(first.some((m) => m.role === 'assistant' && m.toolCalls?.[0]?.function.name === 'count_words'));
    assert.ok(first.some((m) => m.role === 'tool' && JSON.parse(String(m.content)).words === 2));
    assert.ok(first.some((m) => m.role === 'reasoning'));

    const second = await turn('second agui turn');
    assert.deepEqual(answer(second), ['You said: second agui turn']);

    const snapshot = await (await api(s.url, `/api/chats/${threadId}/messages?protocol=ag-ui`)).json();
    assert.equal(snapshot.type, 'MESSAGES_SNAPSHOT');
    const { MessagesSnapshotEventSchema } = await import('@ag-ui/core/schemas');
    MessagesSnapshotEventSchema.parse(snapshot);
    const shape = (list: Message[]) =>
      list.map((m) => ({
        id: m.id,
        role: m.role,
        content: m.content,
        // The live TOOL_CALL_START carries metadata ({switchboard: {whole: true}}) that the stored snapshot leaves out.
        ...('toolCalls' in m && m.toolCalls
          ? { toolCalls: m.toolCalls.map(({ id, type, function: f }) => ({ id, type, function: f })) }
          : {}),
        ...('toolCallId' in m ? { toolCallId: m.toolCallId } : {}),
      }));
    assert.deepEqual(shape(snapshot.messages), shape(agent.messages));

    // The same conversation through the AI SDK history.
    const ui = (await (await api(s.url, `/api/chats/${threadId}/messages?protocol=ai-sdk`)).json()) as UIMessage[];
    assert.deepEqual(
      ui.map((m) => [m.role, textOf(m)]),
      [
        ['user', 'hello agui'],
        ['assistant', 'You said: hello agui'],
        ['user', 'second agui turn'],
        ['assistant', 'You said: second agui turn'],
      ],
    );
  });
});

describe('misbehaving agents and clients', () => {
  test('a client that asked for abort-on-disconnect goes away mid-run: the agent process is gone, the partial message is stored as aborted', async () => {
    const res = await api(s.url, '/api/chat', {
      headers: { 'x-switchboard-on-disconnect': 'abort' },
      json: { id: `abort-${randomUUID()}`, messages: [userMessage('hang')] },
    });
    assert.equal(res.status, 200);
    const runId = res.headers.get('x-switchboard-run-id') as string;
    const local = s.core.runs.get(runId);
    assert.ok(local);
    const reader = new BodyReader(res);
    await reader.until((t) => t.includes('half-way'));
    const pid = local.pid;
    assert.ok(pid, 'the agent runs as a process');
    process.kill(pid, 0); // alive

    await reader.cancel();
    const exit = (await local.exited) as { code: number | null; signal: string | null };
    assert.ok(exit.signal === 'SIGTERM' || exit.signal === 'SIGKILL', `killed by the runner: ${JSON.stringify(exit)}`);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    await local.done;

    const run = await (await api(s.url, `/api/runs/${runId}`)).json();
    assert.equal(run.status, 'aborted');
    const message = await s.core.store.getMessage(run.messageId);
    assert.equal(message?.metadata.status, 'aborted');
    assert.equal(message?.persistenceState, 'persisted');
    assert.equal(message?.content, 'This answer stops half-way ');
    const events = (await (await api(s.url, `/api/runs/${runId}/events`)).json()) as { type: string; reason?: string }[];
    assert.equal(events.at(-1)?.type, 'run-abort');
    assert.equal(events.at(-1)?.reason, 'client disconnected');
  });

  test('the agent exits 1 mid-stream: an error frame, a clean end, the partial message stored', async () => {
    const chatId = `crash-${randomUUID()}`;
    const res = await api(s.url, '/api/chat', { json: { id: chatId, messages: [userMessage('crash')] } });
    const runId = res.headers.get('x-switchboard-run-id') as string;
    const body = await res.text();
    assert.ok(body.endsWith('data: [DONE]\n\n'), 'the stream ends cleanly');
    const chunks = sseData(body) as { type: string; errorText?: string; finishReason?: string }[];
    const error = chunks.find((c) => c.type === 'error');
    assert.match(error?.errorText ?? '', /exited with code 1/);
    assert.doesNotMatch(error?.errorText ?? '', /crashed on purpose|Traceback/, 'the traceback stays in the server log');
    const { messageMetadata, ...finish } = chunks.at(-2) as { messageMetadata?: { switchboard: { status: string } } };
    assert.deepEqual(finish, { type: 'finish', finishReason: 'error' });
    assert.equal(messageMetadata?.switchboard.status, 'error');

    const run = await (await api(s.url, `/api/runs/${runId}`)).json();
    assert.equal(run.status, 'error');
    const message = await s.core.store.getMessage(run.messageId);
    assert.equal(message?.metadata.status, 'error');
    assert.equal(message?.content, 'This answer stops half-way ');
    const ui = (await (await api(s.url, `/api/chats/${chatId}/messages`)).json()) as UIMessage[];
    assert.equal(textOf(ui[1]), 'This answer stops half-way ');
  });
});
