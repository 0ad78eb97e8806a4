/**
 * Stock clients against the gateway: the AI SDK's own `AbstractChat` (the class `useChat` is built on)
 * with its `DefaultChatTransport`, as an app would use them — no Switchboard code on the client side;
 * `@ag-ui/client`'s `HttpAgent`, 1.x and 0.0.59 (the line CopilotKit pins), over every kind of stream
 * the gateway sends.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { EventSchemas as LegacyEventSchemas, HttpAgent as LegacyHttpAgent } from 'ag-ui-client-0.0';
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';
import { resolveConfig } from '../packages/server/src/config/load.ts';
import { type RunningServer, startServer } from '../packages/server/src/server/start.ts';
import { Gate, gatedAgent } from '../packages/server/test/gateway-support.ts';

/** The smallest ChatState: plain fields (what the React/Vue/Svelte bindings wrap in their reactivity). */
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

class StockChat extends AbstractChat<UIMessage> {
  /** `newestOnly`: the AI SDK's persistence pattern, only the newest message goes to the server. */
  constructor(api: string, id: string, options: { newestOnly?: boolean } = {}) {
    const transport = new DefaultChatTransport<UIMessage>({
      api,
      ...(options.newestOnly
        ? {
            prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
              body: { id, messages: messages.slice(-1), trigger, messageId },
            }),
          }
        : {}),
    });
    super({ id, transport, state: new PlainState() });
  }
  get current(): { status: ChatStatus; error: Error | undefined; messages: UIMessage[] } {
    return this.state;
  }
}

/** A process agent: Node printing these agent lines (strings go out as they are). */
function agent(name: string, lines: (object | string)[]) {
  const out = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
  return { name, command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(`${out}\n`)})`], framework: 'claude' };
}

const text = (content: string) => ({ type: 'text', data: { content } });

/** A tool-using agent: thinking, a tool call with its result, text, usage. */
const toolsAgent = agent('tools', [
  { type: 'thinking', data: { content: 'Count the words first.' } },
  { type: 'tool_use', data: { id: 'call_1', name: 'count_words', input: { text: 'a b c' } } },
  { type: 'tool_result', data: { tool_use_id: 'call_1', content: { words: 3 } } },
  text('Three words.'),
  { type: 'result', data: { duration_ms: 5, usage: { input_tokens: 7, output_tokens: 3 } } },
  { type: 'done', data: {} },
]);

/** An agent that answers with the roles of the conversation it was given on stdin. */
const rolesAgent = {
  name: 'roles',
  command: process.execPath,
  args: [
    '-e',
    `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
      const roles = JSON.parse(s).messages.map((m) => m.role).join(',');
      process.stdout.write(JSON.stringify({ type: 'text', data: { content: roles } }) + '\\n' + JSON.stringify({ type: 'done', data: {} }) + '\\n');
    });`,
  ],
  framework: 'claude',
};

describe('stock AI SDK client (AbstractChat + DefaultChatTransport)', () => {
  let s: RunningServer;
  before(async () => {
    const config = resolveConfig(
      {
        agents: [
          agent('bad-line', [text('one two '), 'this line is not JSON', text('three'), { type: 'done', data: {} }]),
          agent('boom', [text('half an answer'), { type: 'error', data: { message: 'boom' } }]),
          rolesAgent,
          toolsAgent,
        ],
        builtins: { demo: { delayMs: 0 } },
      },
      { env: {} },
    );
    s = await startServer({ port: 0, config, runOptions: { logger: { log() {} } }, onError: () => {} });
  });
  after(() => s?.close());

  test('a non-JSON line mid-stream: the chat ends ready, every text line is there, the run is complete', async () => {
    const chat = new StockChat(`${s.url}/api/chat?agent=bad-line`, 'stock-bad-line');
    await chat.sendMessage({ text: 'go' });
    assert.equal(chat.current.status, 'ready', String(chat.current.error));
    const answer = chat.current.messages.at(-1);
    const said = answer?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    assert.equal(said, 'one two three');
    const detail = (await (await fetch(`${s.url}/api/chats/stock-bad-line`)).json()) as { runs: { status: string }[] };
    assert.deepEqual(
      detail.runs.map((r) => r.status),
      ['complete'],
    );
  });

  test('an agent error after text: every part of the final message is settled', async () => {
    const chat = new StockChat(`${s.url}/api/chat?agent=boom`, 'stock-boom');
    await chat.sendMessage({ text: 'go' });
    assert.equal(chat.current.status, 'error');
    const answer = chat.current.messages.at(-1) as UIMessage;
    assert.equal(answer.role, 'assistant');
    const unsettled = answer.parts.filter((p) => 'state' in p && (p.state === 'streaming' || p.state === 'input-streaming'));
    assert.deepEqual(unsettled, []);
    assert.match(answer.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''), /half an answer/);
  });

  test('only the newest message sent: the agent gets the whole conversation from the store', async () => {
    const chat = new StockChat(`${s.url}/api/chat?agent=roles`, 'stock-newest-only', { newestOnly: true });
    await chat.sendMessage({ text: 'first' });
    await chat.sendMessage({ text: 'second' });
    assert.equal(chat.current.status, 'ready', String(chat.current.error));
    const answers = chat.current.messages
      .filter((m) => m.role === 'assistant')
      .map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
    assert.deepEqual(answers, ['user', 'user,assistant,user']);
  });

  for (const newestOnly of [false, true]) {
    test(`regenerate replaces the last answer in history (${newestOnly ? 'newest message only' : 'whole conversation'})`, async () => {
      const chatId = `stock-regenerate-${newestOnly}`;
      const chat = new StockChat(`${s.url}/api/chat?agent=roles`, chatId, { newestOnly });
      await chat.sendMessage({ text: 'first' });
      await chat.sendMessage({ text: 'second' });
      const old = chat.current.messages.at(-1)?.id;
      await chat.regenerate();
      assert.equal(chat.current.status, 'ready', String(chat.current.error));
      const answer = chat.current.messages.at(-1) as UIMessage;
      assert.notEqual(answer.id, old);
      // The agent got the conversation without the answer being replaced.
      assert.deepEqual(
        answer.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])),
        ['user,assistant,user'],
      );
      const history = (await (await fetch(`${s.url}/api/chats/${chatId}/messages?protocol=ai-sdk`)).json()) as UIMessage[];
      assert.deepEqual(
        history.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant'],
      );
      assert.deepEqual(JSON.parse(JSON.stringify(chat.current.messages)), history);
      // The superseded run stays in the store for audit.
      const detail = (await (await fetch(`${s.url}/api/chats/${chatId}`)).json()) as { runs: { messageId: string }[] };
      assert.equal(detail.runs.length, 3);
      assert.ok(detail.runs.some((r) => r.messageId === old));
    });
  }

  test('after the demo answer (a server-side tool, then text) the step predicate says the turn is over', async () => {
    const chat = new StockChat(`${s.url}/api/chat?agent=demo`, 'stock-demo-steps');
    await chat.sendMessage({ text: 'hi' });
    assert.equal(chat.current.status, 'ready', String(chat.current.error));
    const answer = chat.current.messages.at(-1) as UIMessage;
    assert.ok(
      answer.parts.some((p) => p.type.startsWith('tool-')),
      'the demo answer has a tool call',
    );
    // The text after the tool's output is a step of its own, as the official server makes it, so an app
    // using this predicate for sendAutomaticallyWhen does not re-send for ever.
    assert.equal(lastAssistantMessageIsCompleteWithToolCalls({ messages: chat.current.messages }), false);
  });

  for (const name of ['demo', 'tools', 'boom']) {
    test(`live equals reloaded (${name}): the message the client holds deep-equals the history's, metadata included`, async () => {
      const chatId = `stock-live-reloaded-${name}`;
      const chat = new StockChat(`${s.url}/api/chat?agent=${name}`, chatId);
      await chat.sendMessage({ text: 'hi' });
      const history = (await (await fetch(`${s.url}/api/chats/${chatId}/messages?protocol=ai-sdk`)).json()) as UIMessage[];
      // JSON: the live parts carry keys set to undefined.
      const live = JSON.parse(JSON.stringify(chat.current.messages)) as UIMessage[];
      assert.deepEqual(live, history);
      const ours = (history.at(-1) as UIMessage<{ switchboard: { status: string; runId: string } }>).metadata?.switchboard;
      assert.equal(ours?.status, name === 'boom' ? 'error' : 'complete');
      assert.ok(ours?.runId);
    });
  }

  test('resume on a chat the server has never seen: 204, the chat stays ready', async () => {
    const chat = new StockChat(`${s.url}/api/chat`, 'stock-never-seen');
    await chat.resumeStream();
    assert.equal(chat.current.status, 'ready');
    assert.equal(chat.current.error, undefined);
  });
});

describe('stock AG-UI client (@ag-ui/client HttpAgent)', () => {
  let s: RunningServer;
  before(async () => {
    const config = resolveConfig({ agents: [toolsAgent], builtins: { demo: { delayMs: 0 } } }, { env: {} });
    s = await startServer({ port: 0, config, runOptions: { logger: { log() {} } }, onError: () => {} });
  });
  after(() => s?.close());

  for (const name of ['demo', 'tools']) {
    test(`live equals reloaded (${name}): the messages HttpAgent holds deep-equal the history's MESSAGES_SNAPSHOT`, async () => {
      const threadId = `stock-agui-${name}`;
      const client = new HttpAgent({ url: `${s.url}/api/agui`, threadId });
      client.addMessage({ id: `${threadId}-u`, role: 'user', content: 'hi' });
      await client.runAgent({ runId: `${threadId}-r`, forwardedProps: { agent: name } });
      const snapshot = (await (await fetch(`${s.url}/api/chats/${threadId}/messages?protocol=ag-ui`)).json()) as {
        messages: unknown[];
        state: unknown;
      };
      assert.deepEqual(JSON.parse(JSON.stringify(client.messages)), snapshot.messages);
      assert.deepEqual(JSON.parse(JSON.stringify(client.state)), snapshot.state);
      assert.ok(client.messages.some((m) => m.role === 'tool'));
    });
  }

  test('live equals reloaded over two turns: messages and state', async () => {
    const threadId = 'stock-agui-two-turns';
    const client = new HttpAgent({ url: `${s.url}/api/agui`, threadId });
    client.addMessage({ id: `${threadId}-u1`, role: 'user', content: 'hi' });
    await client.runAgent({ runId: `${threadId}-r1`, forwardedProps: { agent: 'tools' } });
    client.addMessage({ id: `${threadId}-u2`, role: 'user', content: 'again' });
    await client.runAgent({ runId: `${threadId}-r2`, forwardedProps: { agent: 'demo' } });
    const snapshot = (await (await fetch(`${s.url}/api/chats/${threadId}/messages?protocol=ag-ui`)).json()) as {
      type: string;
      messages: unknown[];
      state: unknown;
    };
    assert.equal(snapshot.type, 'MESSAGES_SNAPSHOT');
    assert.deepEqual(JSON.parse(JSON.stringify(client.messages)), snapshot.messages);
    assert.deepEqual(JSON.parse(JSON.stringify(client.state)), snapshot.state);
    assert.equal(client.messages.filter((m) => m.role === 'user').length, 2);
  });

  test('live equals reloaded over two turns and a regenerate: messages and state', async () => {
    const threadId = 'stock-agui-regenerate';
    const client = new HttpAgent({ url: `${s.url}/api/agui`, threadId });
    client.addMessage({ id: `${threadId}-u1`, role: 'user', content: 'hi' });
    await client.runAgent({ runId: `${threadId}-r1`, forwardedProps: { agent: 'tools' } });
    client.addMessage({ id: `${threadId}-u2`, role: 'user', content: 'again' });
    await client.runAgent({ runId: `${threadId}-r2`, forwardedProps: { agent: 'demo' } });
    // Regenerate as an HttpAgent app does: drop the answer after the last user message, run again.
    const lastUser = client.messages.findLastIndex((m) => m.role === 'user');
    const replaced = client.messages.slice(lastUser + 1).map((m) => m.id);
    client.setMessages(client.messages.slice(0, lastUser + 1));
    await client.runAgent({ runId: `${threadId}-r3`, forwardedProps: { agent: 'demo' } });
    const snapshot = (await (await fetch(`${s.url}/api/chats/${threadId}/messages?protocol=ag-ui`)).json()) as {
      messages: { id: string }[];
      state: unknown;
    };
    assert.deepEqual(JSON.parse(JSON.stringify(client.messages)), snapshot.messages);
    assert.deepEqual(JSON.parse(JSON.stringify(client.state)), snapshot.state);
    assert.equal(client.messages.filter((m) => m.role === 'user').length, 2);
    assert.ok(!snapshot.messages.some((m) => replaced.includes(m.id)), 'the replaced answer is not in history');
  });

  test('the documented stop line (the thread id, then abortRun()) stops the run: it is stored aborted', async () => {
    const { spec, waiting } = gatedAgent('gated', new Gate());
    const gated = await startServer({ port: 0, agents: [spec], runOptions: { logger: { log() {} } }, onError: () => {} });
    try {
      const client = new HttpAgent({ url: `${gated.url}/api/agui`, threadId: 'stock-agui-stop' });
      client.addMessage({ id: 'stock-agui-stop-u', role: 'user', content: 'go' });
      const running = client.runAgent({ runId: 'stock-agui-stop-r', forwardedProps: { agent: 'gated' } }).catch(() => {});
      await waiting;
      // docs/gateway.md: `void fetch(`/api/chat/${agent.threadId}/stop`, { method: 'POST' }); agent.abortRun();`
      const stopped = fetch(`${gated.url}/api/chat/${client.threadId}/stop`, { method: 'POST' });
      client.abortRun();
      assert.equal((await stopped).status, 202);
      await running;
      await gated.core.runs.get('stock-agui-stop-r')?.done;
      const run = (await (await fetch(`${gated.url}/api/runs/stock-agui-stop-r`)).json()) as { status: string };
      assert.equal(run.status, 'aborted');
    } finally {
      await gated.close();
    }
  });
});

describe('@ag-ui/client 1.x and 0.0.59 (as CopilotKit pins it) accept every stream the gateway sends', () => {
  // 1.x sends `protocolVersion` and gets every outcome; 0.0.59 sends none and gets the outcomes its strict schema knows.
  const clients = [
    { version: '1.x', Agent: HttpAgent, schemas: EventSchemas },
    { version: '0.0.59', Agent: LegacyHttpAgent, schemas: LegacyEventSchemas },
  ] as const;
  type Client = (typeof clients)[number];
  // One gated agent per client: each run stops while its agent waits at the gate.
  const gated = Object.fromEntries(clients.map((c) => [c.version, gatedAgent(`gated-${c.version}`, new Gate())]));
  /** Asks once (a generic interrupt), then answers with the resume it gets on stdin. */
  const asker = {
    name: 'asker',
    command: process.execPath,
    args: [
      '-e',
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
        const answer = JSON.parse(s).resume?.[0]?.payload?.answer;
        const line = (type, data) => process.stdout.write(JSON.stringify({ type, data }) + '\\n');
        if (answer === undefined) line('interrupt', { id: 'int_1', reason: 'input_required', message: 'Pick a number' });
        else line('text', { content: 'You picked ' + answer });
        line('done', {});
      });`,
    ],
    framework: 'claude',
  };
  let s: RunningServer;
  before(async () => {
    const config = resolveConfig({ agents: [toolsAgent, asker], builtins: { demo: { delayMs: 0 } } }, { env: {} });
    s = await startServer({
      port: 0,
      config,
      agents: Object.values(gated).map((g) => g.spec),
      runOptions: { logger: { log() {} } },
      onError: () => {},
    });
  });
  after(() => s?.close());

  interface Seen {
    events: BaseEvent[];
    /** What the client warned or logged as an error while it ran. */
    complaints: string[];
    error?: unknown;
  }

  /** One run of `agent`; every event the client applied, its complaints, and what the run rejected with. */
  async function run(agent: InstanceType<Client['Agent']>, params: Record<string, unknown>, during?: () => Promise<void>): Promise<Seen> {
    const seen: Seen = { events: [], complaints: [] };
    const { warn, error } = console;
    console.warn = (...a: unknown[]) => void seen.complaints.push(a.map(String).join(' '));
    console.error = console.warn;
    try {
      const running = (agent as HttpAgent).runAgent(
        { runId: randomUUID(), ...params },
        { onEvent: ({ event }) => void seen.events.push(event) },
      );
      running.catch(() => {}); // awaited below, after `during`
      await during?.();
      await running;
    } catch (e) {
      seen.error = e;
    } finally {
      Object.assign(console, { warn, error });
    }
    return seen;
  }

  /** Every event passes the client's own `EventSchemas`, and the client complained of nothing. */
  function accepted(client: Client, seen: Seen) {
    for (const event of seen.events) {
      const parsed = client.schemas.safeParse(event);
      assert.ok(parsed.success, `${client.version} rejects ${JSON.stringify(event)}: ${parsed.error?.message}`);
    }
    assert.deepEqual(seen.complaints, []);
    assert.equal(seen.error, undefined, String(seen.error));
    const types = seen.events.map((e) => e.type);
    assert.equal(types[0], 'RUN_STARTED');
    assert.ok(['RUN_FINISHED', 'RUN_ERROR'].includes(String(types.at(-1))), types.join(' '));
  }

  const said = (agent: { messages: { role: string; content?: unknown }[] }) =>
    agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content !== '').map((m) => m.content);
  const outcomeOf = (seen: Seen) => (seen.events.at(-1) as { outcome?: { type: string } }).outcome?.type;

  for (const client of clients) {
    const agentOf = (name: string, threadId: string) =>
      new client.Agent({ url: `${s.url}/api/agui?agent=${name}`, threadId: `${threadId}-${client.version}` });
    const user = (agent: ReturnType<typeof agentOf>, content: string) => agent.addMessage({ id: randomUUID(), role: 'user', content });

    test(`${client.version}: hi (the demo's every block kind), a tool call with its result, an agent error`, async () => {
      for (const [name, prompt] of [
        ['demo', 'hi'],
        ['demo', 'tool Paris'],
        ['tools', 'go'],
      ]) {
        const agent = agentOf(name, `accept-${name}-${prompt.split(' ')[0]}`);
        user(agent, prompt);
        const seen = await run(agent, {});
        accepted(client, seen);
        assert.ok(
          agent.messages.some((m) => m.role === 'tool'),
          `${name} ${prompt}: a tool result`,
        );
      }
      const failing = agentOf('demo', 'accept-error');
      user(failing, 'error');
      const seen = await run(failing, {});
      accepted(client, seen);
      const ended = seen.events.at(-1) as unknown as { type: string; message: string };
      assert.equal(ended.type, 'RUN_ERROR');
      assert.match(ended.message, /failed on purpose/);
    });

    test(`${client.version}: an approval interrupt, answered with resume (approve, deny)`, async () => {
      for (const [status, payload, answer] of [
        ['resolved', { approved: true }, 'Deleted notes.txt'],
        ['cancelled', undefined, 'Left notes.txt alone'],
      ] as const) {
        const agent = agentOf('demo', `accept-approval-${status}`);
        user(agent, 'approval');
        const asked = await run(agent, {});
        accepted(client, asked);
        assert.equal(outcomeOf(asked), 'interrupt');
        const [interrupt] = (asked.events.at(-1) as unknown as { outcome: { interrupts: { id: string; reason: string }[] } }).outcome
          .interrupts;
        assert.equal(interrupt.reason, 'tool_approval');
        const resume = [{ interruptId: interrupt.id, status, ...(payload ? { payload } : {}) }];
        const answered = await run(agent, { resume });
        accepted(client, answered);
        assert.deepEqual(said(agent), [answer]);
      }
    });

    test(`${client.version}: a generic interrupt, answered with resume`, async () => {
      const agent = agentOf('asker', 'accept-interrupt');
      user(agent, 'ask me');
      const asked = await run(agent, {});
      accepted(client, asked);
      assert.equal(outcomeOf(asked), 'interrupt');
      const answered = await run(agent, { resume: [{ interruptId: 'int_1', status: 'resolved', payload: { answer: 7 } }] });
      accepted(client, answered);
      assert.deepEqual(said(agent), ['You picked 7']);
    });

    test(`${client.version}: a frontend tool, its call left to the client, the tool message continues`, async () => {
      const tools = [{ name: 'get_location', description: 'Where the user is', parameters: { type: 'object', properties: {} } }];
      const agent = agentOf('demo', 'accept-location');
      user(agent, 'location');
      const called = await run(agent, { tools });
      accepted(client, called);
      const finished = called.events.at(-1) as unknown as { outcome?: { type: string; pendingToolCallIds?: string[] } };
      const call = agent.messages
        .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
        .find((c) => c.function.name === 'get_location');
      assert.ok(call);
      // Only 1.x knows `pendingToolCallIds`; 0.0.59 runs its frontend tools from the TOOL_CALL_* events.
      assert.deepEqual(
        finished.outcome,
        client.version === '1.x' ? { type: 'success', pendingToolCallIds: [call.id] } : { type: 'success' },
      );
      agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: call.id, content: 'Paris' });
      const continued = await run(agent, { tools });
      accepted(client, continued);
      assert.deepEqual(said(agent), ['You are in Paris']);
    });

    test(`${client.version}: a run stopped mid-stream (the stop route) ends the stream cleanly`, async () => {
      const agent = agentOf(`gated-${client.version}`, 'accept-abort');
      user(agent, 'go');
      const seen = await run(agent, {}, async () => {
        await gated[client.version].waiting;
        assert.equal((await fetch(`${s.url}/api/chat/${agent.threadId}/stop`, { method: 'POST' })).status, 202);
      });
      accepted(client, seen);
      // 1.x: AG-UI's `cancelled`; 0.0.59 knows no such outcome and gets none.
      assert.equal(outcomeOf(seen), client.version === '1.x' ? 'cancelled' : undefined);
      assert.deepEqual(said(agent), ['Hello from the first half. ']);
    });

    test(`${client.version}: the AG-UI history of every chat above is a MESSAGES_SNAPSHOT its schema accepts`, async () => {
      const { chats } = (await (await fetch(`${s.url}/api/chats?limit=100`)).json()) as { chats: { id: string }[] };
      const mine = chats.filter((c) => c.id.endsWith(`-${client.version}`));
      assert.ok(mine.length >= 8, String(mine.length));
      for (const { id } of mine) {
        const snapshot = await (await fetch(`${s.url}/api/chats/${encodeURIComponent(id)}/messages?protocol=ag-ui`)).json();
        const parsed = client.schemas.safeParse(snapshot);
        assert.ok(parsed.success, `${id}: ${parsed.error?.message}`);
      }
    });
  }
});
