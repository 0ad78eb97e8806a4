/**
 * Live == reloaded through the gateway, in every protocol a client reloads a chat in: a two-turn
 * chat with a regenerate of the second answer, held by the stock client of each protocol, then the
 * same chat loaded again.
 * - AI SDK: `ai`'s DefaultChatTransport + readUIMessageStream, then `GET /api/chats/:id/messages`.
 * - AG-UI: `@ag-ui/client`'s HttpAgent (messages and state), then the MESSAGES_SNAPSHOT with its state.
 * - dsagent: each run's `GET /api/runs/:id/stream?protocol=dsagent`, folded as a DeepSearchAgents
 *   client folds it, then `GET /api/chats/:id/messages?protocol=dsagent`.
 * - ws: the frames a socket received while the runs happened, then the frames a new socket gets
 *   when it subscribes to the session (the contract has no regenerate: two turns).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { type DsAgentHistoryMessage, type DsAgentRunMessage, decode } from '@switchboard/core';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';

import { dsAgentClient } from '../../../test/support/dsagent-client.ts';
import { decoderOptions } from '../src/runner/in-process.ts';
import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, isComplete, quietLogger, sseData, testConfig, userMessage, WsClient } from './gateway-support.ts';

/** An AG-UI agent (read by the AG-UI reader) that keeps a turn counter in its state and answers with it. */
const counter = {
  name: 'counter',
  framework: 'ag-ui' as const,
  run: (ctx: Parameters<typeof decoderOptions>[0]) => {
    const r = ctx.request;
    const turn = (r.messages?.filter((m) => m.role === 'user').length ?? 0) as number;
    const id = `m-${r.runId}`;
    const events: object[] = [
      { type: 'RUN_STARTED', threadId: r.chatId, runId: r.runId },
      turn <= 1
        ? { type: 'STATE_SNAPSHOT', snapshot: { turns: 1, runs: [r.runId] } }
        : {
            type: 'STATE_DELTA',
            delta: [
              { op: 'replace', path: '/turns', value: turn },
              { op: 'add', path: '/runs/-', value: r.runId },
            ],
          },
      { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: `Turn ${turn}` },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: `, run ${r.runId}.` },
      { type: 'TEXT_MESSAGE_END', messageId: id },
      { type: 'RUN_FINISHED', threadId: r.chatId, runId: r.runId },
    ];
    return decode(events, 'ag-ui', decoderOptions(ctx, 'counter'));
  },
};

let s: RunningServer;
before(async () => {
  s = await startServer({
    port: 0,
    config: testConfig(),
    defaultAgent: 'demo',
    agents: [counter],
    runOptions: { logger: quietLogger() },
    onError: () => {},
  });
});
after(() => s.close());

/** JSON without the keys set to undefined (the live parts carry them). */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/**
 * An AI SDK chat through the stock transport; remembers the run id of every answer (the gateway's
 * `x-switchboard-run-id`, read through the transport's own `fetch` option).
 */
function aiSdkChat(chatId: string) {
  const runIds: string[] = [];
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${s.url}/api/chat`,
    body: { agent: 'demo' },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      runIds.push(response.headers.get('x-switchboard-run-id') as string);
      return response;
    },
  });
  let messages: UIMessage[] = [];
  const answer = async (trigger: 'submit-message' | 'regenerate-message', messageId?: string): Promise<UIMessage> => {
    const stream = await transport.sendMessages({ trigger, chatId, messageId, messages, abortSignal: undefined });
    let last: UIMessage | undefined;
    for await (const m of readUIMessageStream<UIMessage>({ stream, terminateOnError: true })) last = m;
    assert.ok(last);
    messages = [...messages, last];
    return last;
  };
  return {
    runIds,
    get messages() {
      return messages;
    },
    say(text: string) {
      messages = [...messages, userMessage(text)];
      return answer('submit-message');
    },
    /** useChat's regenerate(): the conversation cut after the last user message, the old answer's id. */
    regenerate() {
      const old = messages.at(-1) as UIMessage;
      messages = messages.slice(0, -1);
      return answer('regenerate-message', old.id);
    },
  };
}

describe('live == reloaded through the gateway', () => {
  test('AI SDK: two turns and a regenerate, then the history endpoint', async () => {
    const chatId = `ai-${randomUUID()}`;
    const chat = aiSdkChat(chatId);
    await chat.say('hello there');
    const second = await chat.say('tool Rome');
    const again = await chat.regenerate();
    assert.notEqual(again.id, second.id);
    assert.equal(chat.messages.length, 4);

    const history = (await (await api(s.url, `/api/chats/${chatId}/messages`)).json()) as UIMessage[];
    assert.deepEqual(history, plain(chat.messages));
  });

  test('dsagent: the runs of a two-turn chat with a regenerate, as a DeepSearchAgents client collects them, then the history endpoint', async () => {
    const chatId = `ds-${randomUUID()}`;
    const chat = aiSdkChat(chatId);
    const turns: { user: string; messages: DsAgentRunMessage[] }[] = [];
    const collect = async (user: string) => {
      const client = dsAgentClient();
      const runId = chat.runIds.at(-1) as string;
      const body = await (await api(s.url, `/api/runs/${encodeURIComponent(runId)}/stream?protocol=dsagent`)).text();
      for (const m of sseData(body)) client.push(m as DsAgentRunMessage);
      return { user, messages: client.messages };
    };
    await chat.say('hello there');
    turns.push(await collect('hello there'));
    await chat.say('step');
    turns.push(await collect('step'));
    await chat.regenerate();
    turns[1] = await collect('step'); // the client drops the answer it regenerated

    const history = (await (await api(s.url, `/api/chats/${chatId}/messages?protocol=dsagent`)).json()) as DsAgentHistoryMessage[];
    // User messages are the client's own (its id and time); the history gives the stored ones.
    assert.deepEqual(
      history.map((m) => (m.role === 'user' ? { role: 'user', content: m.content, session_id: m.session_id } : m)),
      turns.flatMap((t) => [{ role: 'user', content: t.user, session_id: chatId }, ...t.messages]),
    );
    assert.ok(history.some((m) => m.metadata && (m.metadata as Record<string, unknown>).message_type === 'action_footer'));
  });

  test('AG-UI: HttpAgent holds two turns and a regenerate; the MESSAGES_SNAPSHOT has its messages and its state', async () => {
    const threadId = `agui-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${s.url}/api/agui`, threadId });
    const turn = () => agent.runAgent({ runId: randomUUID(), forwardedProps: { agent: 'counter' } });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'one' });
    await turn();
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'two' });
    await turn();
    const regenerated = agent.messages.at(-1)?.id;
    // A regenerate as an AG-UI client makes one: the thread cut after its last user message, run again.
    agent.setMessages(agent.messages.slice(0, -1));
    const { newMessages } = await turn();
    assert.notEqual(newMessages[0]?.id, regenerated);
    assert.equal((agent.state as { turns: number }).turns, 2);
    assert.equal((agent.state as { runs: string[] }).runs.length, 3); // the state is the agent's: a regenerate keeps it (setMessages leaves it), its delta appends

    const snapshot = await (await api(s.url, `/api/chats/${threadId}/messages?protocol=ag-ui`)).json();
    const { MessagesSnapshotEventSchema } = await import('@ag-ui/core/schemas');
    MessagesSnapshotEventSchema.parse(snapshot);
    assert.deepEqual(snapshot.messages, plain(agent.messages));
    assert.deepEqual(snapshot.state, agent.state);
  });

  test('ws: the frames of a two-turn session live, then the same frames to a new subscriber', async () => {
    const url = `${s.url.replace(/^http/, 'ws')}/ws`;
    const live = new WsClient(url);
    await live.opened;
    live.send({ type: 'message', content: 'hello there', agent: 'demo' });
    const first = await live.until(isComplete);
    const sessionId = first.find((e) => e.event === 'run:started')?.data?.sessionId as string;
    assert.ok(sessionId);
    live.send({ type: 'message', sessionId, content: 'tool Rome', agent: 'demo' });
    const second = await live.until(isComplete);
    live.close();
    const frames = (list: typeof first) => list.filter((e) => e.event === 'agent:event').map((e) => e.data);

    const reload = new WsClient(url);
    await reload.opened;
    reload.send({ type: 'subscribe', sessionId });
    const one = await reload.until(isComplete);
    const two = await reload.until(isComplete);
    reload.close();
    assert.deepEqual([...frames(one), ...frames(two)], [...frames(first), ...frames(second)]);
  });
});
