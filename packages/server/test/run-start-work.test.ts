/**
 * The store work of starting a run (the gateway at scale), counted, not timed: the SQLite
 * transactions and statements of `POST /api/chat` for a new chat (the store's side, many starts and
 * appends: packages/store/test/sqlite-work.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSqliteStore, type SqliteStore } from '@switchboard/store';
import { countSqliteWork } from '../../store/test/support.ts';
import type { AgentEvent } from '../src/agents/agent.ts';
import { RunStartError } from '../src/server/runs.ts';
import { type RunningServer, startServer } from '../src/server/start.ts';
import { api, Gate, linesAgent, quietLogger, testConfig, userMessage } from './gateway-support.ts';

describe('the store work of a run start (SQLite)', () => {
  let dir: string;
  let store: SqliteStore;
  let s: RunningServer;
  let gate = new Gate();
  let waiting: () => void = () => {};
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-start-'));
    // Inline, so that the writes are counted on this thread (a file store's default runs the same
    // statements on its writer thread, where this process's counters do not see them).
    store = await openSqliteStore({ path: join(dir, 'work.db'), writer: 'inline' });
    s = await startServer({
      port: 0,
      store,
      config: testConfig(),
      runOptions: { logger: quietLogger() },
      onError: () => {},
      // Waits at its gate before its first event: what is counted up to then is the start alone.
      agents: [
        linesAgent('held', async function* (): AsyncGenerator<AgentEvent> {
          waiting();
          await gate.opened;
          yield { type: 'text', data: { content: 'hi' } };
          yield { type: 'done', data: {} };
        }),
      ],
    });
    // Warm: statements prepared.
    await start('warm');
  });
  after(async () => {
    await s.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Starts a run in a new chat; resolves once the agent waits at its gate, with its response (which
   * comes with the run's first event, after the gate: the head waits for it, sse-response.ts).
   */
  async function start(chatId: string): Promise<{ response: Promise<Response> }> {
    gate = new Gate();
    const reached = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const response = api(s.url, '/api/chat?agent=held', { json: { id: chatId, messages: [userMessage('hi')] } });
    await reached;
    if (chatId === 'warm') {
      gate.open();
      await (await response).text();
    }
    return { response };
  }

  test('POST /api/chat for a new chat: its start-up writes are one transaction', async () => {
    const r = await countSqliteWork(() => start('c1'));
    gate.open();
    await (await r.value.response).text();
    // The chat, the run and the user message in one transaction (was 2: the chat on its own); 5
    // statements (was 12, then 8, then 6): the chat looked up, the user message id checked, the
    // three inserts. The run id is not checked: the gateway made it (and the message id) from
    // random UUIDs (`newIds`). The response's tail does not read the run it knows was just inserted
    // here (it read the log and the run: two statements) and waits for its first commit.
    assert.equal(r.transactions, 1);
    assert.ok(r.statements <= 5, `${r.statements} statements`);
  });

  test("a chat seen missing but created meanwhile: someone else's answers 404, one's own starts as any existing chat", async () => {
    const runs = s.core.runs;
    await store.createChat({ id: 'taken', title: "alice's", metadata: { owner: 'alice' } });
    const bob = { name: 'bob' };
    await assert.rejects(
      runs.start({ chatId: 'taken', agent: 'demo', messages: [], principal: bob, knownChat: null, userMessage: { content: 'mine?' } }),
      (err: unknown) => err instanceof RunStartError && err.status === 404,
    );
    assert.deepEqual(await store.listRuns('taken'), []);
    assert.deepEqual((await store.getChat('taken'))?.metadata, { owner: 'alice' });
    const run = await runs.start({
      chatId: 'taken',
      agent: 'demo',
      messages: [userMessage('hi')],
      principal: { name: 'alice' },
      knownChat: null,
      userMessage: { content: 'hi' },
    });
    await run.done;
    assert.deepEqual(
      (await store.listRuns('taken')).map((r) => r.status),
      ['complete'],
    );
    assert.deepEqual((await store.getChat('taken'))?.metadata, { owner: 'alice', agent: 'demo' });
  });
});
