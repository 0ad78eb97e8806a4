/**
 * A person in the loop, with stock clients against the gateway and the demo agent:
 * - the AI SDK's own `AbstractChat` + `DefaultChatTransport`: `approval` answered with
 *   `addToolApprovalResponse` (approved, denied) and `sendAutomaticallyWhen:
 *   lastAssistantMessageIsCompleteWithApprovalResponses`; `location` answered by `onToolCall` →
 *   `addToolOutput` with `lastAssistantMessageIsCompleteWithToolCalls`;
 * - `@ag-ui/client`'s `HttpAgent`: `approval` ends with an interrupt outcome, a `resume` run answers
 *   it; `location` with `tools: [get_location]` leaves the call to the client, a follow-up run with
 *   the tool message continues;
 * - after each flow the history (AI SDK and AG-UI) is what the live client holds;
 * - answers the gateway refuses before any run starts: unknown, stale and already answered approval
 *   ids (located 4xx), and another user's chat.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildResumeArray, HttpAgent, type Message } from '@ag-ui/client';
// The line CopilotKit pins (its strict schema knows neither `pendingToolCallIds` nor `cancelled`).
import { HttpAgent as LegacyHttpAgent } from 'ag-ui-client-0.0';
import {
  AbstractChat,
  type ChatOnToolCallCallback,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';

import { resolveConfig } from '../packages/server/src/config/load.ts';
import { type RunningServer, startServer } from '../packages/server/src/server/start.ts';

/** The smallest ChatState: plain fields. */
class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (m: UIMessage) => {
    this.messages = [...this.messages, m];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (i: number, m: UIMessage) => {
    this.messages = this.messages.map((x, k) => (k === i ? m : x));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

type Predicate = typeof lastAssistantMessageIsCompleteWithToolCalls;

/** A stock chat whose `finished()` settles when its next request ends (automatic sends included). */
class StockChat extends AbstractChat<UIMessage> {
  private waiters: (() => void)[] = [];
  constructor(
    api: string,
    id: string,
    options: { headers?: Record<string, string>; when?: Predicate; onToolCall?: (chat: StockChat) => ChatOnToolCallCallback } = {},
  ) {
    const transport = new DefaultChatTransport<UIMessage>({ api, ...(options.headers ? { headers: options.headers } : {}) });
    super({
      id,
      transport,
      state: new PlainState(),
      ...(options.when ? { sendAutomaticallyWhen: options.when } : {}),
      ...(options.onToolCall ? { onToolCall: (arg) => options.onToolCall?.(this as StockChat)(arg) } : {}),
      onFinish: () => {
        for (const w of this.waiters.splice(0)) w();
      },
    });
  }
  finished(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  get current(): { status: ChatStatus; error: Error | undefined; messages: UIMessage[] } {
    return this.state;
  }
}

const textOf = (m: UIMessage | undefined) => (m?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
const toolPart = (m: UIMessage | undefined, name: string) =>
  m?.parts.find((p) => p.type === `tool-${name}`) as (Record<string, unknown> & { toolCallId: string; state: string }) | undefined;

/** A message as JSON (the live parts carry keys set to undefined), without metadata (the history adds ours). */
const comparable = (list: UIMessage[]) => JSON.parse(JSON.stringify(list.map(({ id, role, parts }) => ({ id, role, parts }))));

/** AG-UI messages as the snapshot and the live client both have them. */
const agUiShape = (list: Message[]) =>
  list
    .filter((m) => m.role !== 'reasoning')
    .map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      ...('toolCalls' in m && m.toolCalls
        ? { toolCalls: m.toolCalls.map(({ id, type, function: f }) => ({ id, type, function: f })) }
        : {}),
      ...('toolCallId' in m ? { toolCallId: m.toolCallId } : {}),
    }));

/** A process agent that asks for a number (an `interrupt` line), then answers with the `resume` it gets on stdin. */
const askerAgent = {
  name: 'asker',
  command: process.execPath,
  args: [
    '-e',
    `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
      const { resume } = JSON.parse(s);
      const line = (type, data) => process.stdout.write(JSON.stringify({ type, data }) + '\\n');
      if (resume) line('text', { content: 'You picked ' + resume[0].payload.answer });
      else line('interrupt', { id: 'int_1', reason: 'input_required', message: 'Pick a number' });
      line('done', {});
    });`,
  ],
  framework: 'claude',
};

let s: RunningServer;
before(async () => {
  const config = resolveConfig(
    {
      agents: [askerAgent],
      builtins: { demo: { delayMs: 0 } },
      tokens: [
        { token: 'token-alice', name: 'alice' },
        { token: 'token-bob', name: 'bob' },
      ],
    },
    { env: {} },
  );
  s = await startServer({ port: 0, config, runOptions: { logger: { log() {} } }, onError: () => {} });
});
after(() => s?.close());

const ALICE = { authorization: 'Bearer token-alice' };
const BOB = { authorization: 'Bearer token-bob' };

/** Alice's stock chat with the demo agent (the transport sends her bearer token). */
function chatOf(id: string, options: ConstructorParameters<typeof StockChat>[2] = {}): StockChat {
  return new StockChat(`${s.url}/api/chat?agent=demo`, id, { headers: ALICE, ...options });
}

async function history(chatId: string, protocol: 'ai-sdk' | 'ag-ui', headers: Record<string, string> = ALICE) {
  const res = await fetch(`${s.url}/api/chats/${encodeURIComponent(chatId)}/messages?protocol=${protocol}`, { headers });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

async function post(path: string, body: unknown, headers: Record<string, string> = ALICE): Promise<Response> {
  return fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('stock AI SDK client: approvals and client tools', () => {
  for (const approved of [true, false]) {
    test(`approval, then addToolApprovalResponse({ approved: ${approved} }) sent automatically`, async () => {
      const chatId = `hitl-ai-approval-${approved}-${randomUUID()}`;
      const chat = chatOf(chatId, { when: lastAssistantMessageIsCompleteWithApprovalResponses });
      await chat.sendMessage({ text: 'approval' });
      assert.equal(chat.current.status, 'ready', String(chat.current.error));
      const asked = toolPart(chat.current.messages.at(-1), 'delete_file');
      assert.equal(asked?.state, 'approval-requested');
      assert.deepEqual(asked?.input, { path: 'notes.txt' });
      assert.deepEqual(comparable(await history(chatId, 'ai-sdk')), comparable(chat.current.messages), 'history while waiting');

      const done = chat.finished();
      const id = (asked?.approval as { id: string } | undefined)?.id ?? '';
      await chat.addToolApprovalResponse({ id, approved });
      await done;
      assert.equal(chat.current.status, 'ready', String(chat.current.error));
      assert.equal(chat.current.messages.length, 2, 'one assistant message for the run and its continuation');
      const answer = chat.current.messages.at(-1);
      const part = toolPart(answer, 'delete_file');
      assert.equal(part?.state, approved ? 'output-available' : 'output-denied');
      if (approved) assert.deepEqual(part?.output, { deleted: 'notes.txt' });
      assert.match(textOf(answer), approved ? /Deleted notes\.txt/ : /Left notes\.txt alone/);
      assert.equal(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: chat.current.messages }), false);
      assert.deepEqual(comparable(await history(chatId, 'ai-sdk')), comparable(chat.current.messages), 'history after the answer');
    });
  }

  test("tools as a record by name, as assistant-ui's transport sends them (`{}` with none), are accepted", async () => {
    for (const tools of [{}, { get_location: { description: 'Where the user is', parameters: { type: 'object', properties: {} } } }]) {
      const res = await post('/api/chat?agent=demo', {
        id: `hitl-ai-tools-record-${randomUUID()}`,
        messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'location' }] }],
        tools,
      });
      assert.equal(res.status, 200, await res.clone().text());
      const body = await res.text();
      assert.match(body, /"toolName":"get_location"/);
      assert.ok(body.trimEnd().endsWith('data: [DONE]'));
    }
  });

  test('location: onToolCall → addToolOutput("Paris"), sent automatically; a new step says where', async () => {
    const chatId = `hitl-ai-location-${randomUUID()}`;
    const calls: string[] = [];
    const chat = chatOf(chatId, {
      when: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall:
        (self) =>
        ({ toolCall }) => {
          calls.push(toolCall.toolName);
          if (toolCall.toolName === 'get_location')
            void self.addToolOutput({ tool: 'get_location', toolCallId: toolCall.toolCallId, output: 'Paris' });
        },
    });
    await chat.sendMessage({ text: 'location' });
    assert.equal(chat.current.status, 'ready', String(chat.current.error));
    assert.deepEqual(calls, ['get_location']);
    assert.equal(chat.current.messages.length, 2);
    const answer = chat.current.messages.at(-1);
    assert.equal(toolPart(answer, 'get_location')?.state, 'output-available');
    assert.equal(toolPart(answer, 'get_location')?.output, 'Paris');
    assert.equal(textOf(answer), 'You are in Paris');
    assert.equal(lastAssistantMessageIsCompleteWithToolCalls({ messages: chat.current.messages }), false);
    assert.deepEqual(comparable(await history(chatId, 'ai-sdk')), comparable(chat.current.messages));
  });
});

describe('stock AG-UI client (HttpAgent): interrupts, resume and frontend tools', () => {
  const agentOf = (threadId: string) => new HttpAgent({ url: `${s.url}/api/agui?agent=demo`, threadId, headers: ALICE });

  test('approval ends with an interrupt outcome; a resume run approving it deletes the file', async () => {
    const threadId = `hitl-agui-approval-${randomUUID()}`;
    const agent = agentOf(threadId);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'approval' });
    let outcome: string | undefined;
    await agent.runAgent(
      { runId: randomUUID() },
      {
        onRunFinishedEvent: (p) => {
          outcome = p.outcome;
        },
      },
    );
    assert.equal(outcome, 'interrupt');
    const [interrupt] = agent.pendingInterrupts;
    assert.equal(interrupt?.reason, 'tool_approval');
    assert.deepEqual(agUiShape((await history(threadId, 'ag-ui')).messages), agUiShape(agent.messages), 'history while waiting');

    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload: { approved: true } } });
    await agent.runAgent(
      { runId: randomUUID(), resume },
      {
        onRunFinishedEvent: (p) => {
          outcome = p.outcome;
        },
      },
    );
    assert.equal(outcome, 'success');
    const said = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string').map((m) => m.content);
    assert.ok(said.includes('Deleted notes.txt'), JSON.stringify(agent.messages));
    assert.deepEqual(agUiShape((await history(threadId, 'ag-ui')).messages), agUiShape(agent.messages), 'history after the answer');

    // The same resume again: already answered.
    const again = await post('/api/agui', { threadId, runId: randomUUID(), messages: [], resume });
    assert.equal(again.status, 409);
    assert.equal((await again.json()).error.code, 'approval_answered');
  });

  test('location with tools: [get_location] leaves the call to the client; the tool message continues', async () => {
    const threadId = `hitl-agui-location-${randomUUID()}`;
    const agent = agentOf(threadId);
    const tools = [{ name: 'get_location', description: 'Where the user is', parameters: { type: 'object', properties: {} } }];
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'location' });
    let pending: string[] = [];
    await agent.runAgent(
      { runId: randomUUID(), tools },
      {
        onRunFinishedEvent: (p) => {
          pending = p.outcome === 'success' ? p.pendingToolCallIds : [];
        },
      },
    );
    assert.equal(pending.length, 1);
    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: pending[0], content: 'Paris' });
    await agent.runAgent({ runId: randomUUID(), tools });
    const said = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string').map((m) => m.content);
    assert.ok(said.includes('You are in Paris'), JSON.stringify(agent.messages));
    assert.deepEqual(agUiShape((await history(threadId, 'ag-ui')).messages), agUiShape(agent.messages));
  });
});

describe('an AG-UI client before 1.0 (@ag-ui/client 0.0.59, as CopilotKit pins it)', () => {
  test('the frontend tool: the run ends without a schema error, the tool message continues it', async () => {
    const threadId = `hitl-agui-legacy-${randomUUID()}`;
    const agent = new LegacyHttpAgent({ url: `${s.url}/api/agui`, threadId, headers: ALICE });
    const tools = [{ name: 'get_location', description: 'Where the user is', parameters: { type: 'object', properties: {} } }];
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'location' });
    await agent.runAgent({ runId: randomUUID(), tools });
    const call = agent.messages
      .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
      .find((c) => c.function.name === 'get_location');
    assert.ok(call, JSON.stringify(agent.messages));
    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: call.id, content: 'Paris' });
    await agent.runAgent({ runId: randomUUID(), tools });
    const said = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string').map((m) => m.content);
    assert.ok(said.includes('You are in Paris'), JSON.stringify(agent.messages));
  });
});

describe("a generic interrupt answered under the interrupted run's id (as CopilotKit's useInterrupt posts it)", () => {
  test('AG-UI: the re-posted runId with resume continues the run; a plain re-post still replays it', async () => {
    const threadId = `hitl-agui-same-run-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${s.url}/api/agui?agent=asker`, threadId, headers: ALICE });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'ask me' });
    const runId = randomUUID();
    await agent.runAgent({ runId });
    assert.deepEqual(
      agent.pendingInterrupts.map((i) => i.id),
      ['int_1'],
    );
    // A plain retry of the same id replays the run: still waiting for the answer.
    const replay = new HttpAgent({ url: `${s.url}/api/agui?agent=asker`, threadId, headers: ALICE });
    replay.setMessages(agent.messages);
    await replay.runAgent({ runId });
    assert.deepEqual(
      replay.pendingInterrupts.map((i) => i.id),
      ['int_1'],
    );
    const resume = buildResumeArray(agent.pendingInterrupts, { int_1: { status: 'resolved', payload: { answer: 7 } } });
    await agent.runAgent({ runId, resume });
    const said = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string').map((m) => m.content);
    assert.deepEqual(said, ['You picked 7']);
    assert.deepEqual(agent.pendingInterrupts, []);
  });
});

describe('a generic interrupt (a process agent)', () => {
  test('AG-UI: RUN_FINISHED with the interrupt; the resume entry reaches the agent on stdin', async () => {
    const threadId = `hitl-agui-interrupt-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${s.url}/api/agui?agent=asker`, threadId, headers: ALICE });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'ask me' });
    await agent.runAgent({ runId: randomUUID() });
    assert.deepEqual(
      agent.pendingInterrupts.map((i) => [i.id, i.reason, i.message]),
      [['int_1', 'input_required', 'Pick a number']],
    );
    const resume = buildResumeArray(agent.pendingInterrupts, { int_1: { status: 'resolved', payload: { answer: 42 } } });
    await agent.runAgent({ runId: randomUUID(), resume });
    const said = agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string').map((m) => m.content);
    assert.deepEqual(said, ['You picked 42']);
    assert.deepEqual(agent.pendingInterrupts, []);
    assert.deepEqual(agUiShape((await history(threadId, 'ag-ui')).messages), agUiShape(agent.messages));
    // The AI SDK history keeps the question and the answer as data parts of the one assistant message.
    const ui = (await history(threadId, 'ai-sdk')) as UIMessage[];
    assert.equal(ui.length, 2);
    const data = ui[1].parts.filter((p) => p.type.startsWith('data-interrupt')) as {
      type: string;
      id: string;
      data: Record<string, unknown>;
    }[];
    assert.deepEqual(
      data.map((p) => [p.type, p.id, p.data.status ?? p.data.reason]),
      [
        ['data-interrupt', 'int_1', 'input_required'],
        ['data-interrupt-response', 'int_1', 'resolved'],
      ],
    );
    assert.deepEqual(data[1].data.by, 'alice');
  });
});

describe('answers the gateway refuses', () => {
  /** A chat waiting for an approval, and that approval's id. */
  async function waitingChat(): Promise<{ chatId: string; messages: UIMessage[]; approvalId: string }> {
    const chatId = `hitl-refuse-${randomUUID()}`;
    const chat = chatOf(chatId);
    await chat.sendMessage({ text: 'approval' });
    const part = toolPart(chat.current.messages.at(-1), 'delete_file');
    const id = (part?.approval as { id: string } | undefined)?.id ?? '';
    return { chatId, messages: chat.current.messages, approvalId: id };
  }
  const answering = (messages: UIMessage[], approvalId: string): UIMessage[] =>
    messages.map((m, i) =>
      i < messages.length - 1
        ? m
        : {
            ...m,
            parts: m.parts.map((p) =>
              p.type === 'tool-delete_file'
                ? ({ ...p, state: 'approval-responded', approval: { id: approvalId, approved: true } } as never)
                : p,
            ),
          },
    );

  test('an unknown approval id: 404 located at the part, no run started', async () => {
    const { chatId, messages } = await waitingChat();
    const res = await post('/api/chat?agent=demo', { id: chatId, messages: answering(messages, 'approval_nope') });
    assert.equal(res.status, 404);
    const { error } = await res.json();
    assert.equal(error.code, 'unknown_approval');
    assert.equal(error.issues[0].path, `messages.1.parts.${messages[1].parts.findIndex((p) => p.type === 'tool-delete_file')}.approval.id`);
    assert.equal((await history(chatId, 'ai-sdk')).length, 2, 'nothing ran');
  });

  test('a stale approval id (the chat went on without an answer): 409', async () => {
    const { chatId, messages, approvalId } = await waitingChat();
    const next = await post('/api/chat?agent=demo', {
      id: chatId,
      messages: [...messages, { id: randomUUID(), role: 'user', parts: [{ type: 'text', text: 'text never mind' }] }],
    });
    await next.text();
    const res = await post('/api/chat?agent=demo', { id: chatId, messages: answering(messages, approvalId) });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).error.code, 'approval_stale');
  });

  test('an answered approval id: 409', async () => {
    const { chatId, messages, approvalId } = await waitingChat();
    const first = await post('/api/chat?agent=demo', { id: chatId, messages: answering(messages, approvalId) });
    assert.equal(first.status, 200);
    await first.text();
    const res = await post('/api/chat?agent=demo', { id: chatId, messages: answering(messages, approvalId) });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).error.code, 'approval_answered');
  });

  test("only the chat's owner answers: another user gets 404 (AI SDK and AG-UI), the approval still waits", async () => {
    const { chatId, messages, approvalId } = await waitingChat();
    const res = await post('/api/chat?agent=demo', { id: chatId, messages: answering(messages, approvalId) }, BOB);
    assert.equal(res.status, 404);
    const agui = await post(
      '/api/agui?agent=demo',
      {
        threadId: chatId,
        runId: randomUUID(),
        messages: [],
        resume: [{ interruptId: approvalId, status: 'resolved', payload: { approved: true } }],
      },
      BOB,
    );
    assert.equal(agui.status, 404);
    const ok = await post('/api/chat?agent=demo', { id: chatId, messages: answering(messages, approvalId) });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /Deleted notes\.txt|Deleted/);
  });
});
