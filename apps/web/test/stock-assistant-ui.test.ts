/**
 * The stock assistant-ui client — `useChatRuntime` with `AssistantChatTransport`, a thread list and
 * a history adapter over the gateway's REST routes, as assistant-ui documents them — in Chromium
 * against the gateway as it boots by default: hi, a tool call, an error, approve, deny, the
 * `location` frontend tool and a second turn in one thread, each stored as the page shows it; a
 * reload shows the same thread from the gateway's history; a reload mid-run ends with the whole
 * answer and the run stored `complete`; the stop route beside the runtime's cancel stores the run
 * `aborted`. The page (stock-assistant-ui-page.tsx) is bundled here by rolldown and served at the
 * gateway's origin. The built-in `demo` agent answers the turns; gated agents hold a run mid-way
 * until the test opens their gate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';

import { type RunningServer, startServer } from '../../../packages/server/src/server/start.ts';
import { Gate, gatedAgent, quietLogger, testConfig } from '../../../packages/server/test/gateway-support.ts';
import { bundleModule, chromiumMissing, IS_CI, launch } from './support.ts';

const PAGE = fileURLToPath(new URL('./stock-assistant-ui-page.tsx', import.meta.url));
const FULL_ANSWER = 'Hello from the first half. And the second half.';
const PAGE_HTML = '<!doctype html><div id="root"></div><script type="module" src="/aui/app.js"></script>';

interface StoredRun {
  id: string;
  status: string;
  messageId: string;
}
interface StoredMessage {
  id: string;
  role: string;
  parts: { type: string; text?: string; state?: string; output?: unknown }[];
}

const missing = chromiumMissing();
const skip = missing && !IS_CI ? missing : undefined;
if (missing && IS_CI) test('stock assistant-ui in the browser', () => assert.fail(`${missing} (CI=true: a missing browser is a failure)`));

describe('stock assistant-ui useChatRuntime in Chromium, default gateway', { skip }, () => {
  const resumeGate = new Gate();
  const resumeAgent = gatedAgent('gated-resume', resumeGate);
  const lateGate = new Gate();
  const lateAgent = gatedAgent('gated-late', lateGate);
  const stopAgent = gatedAgent('gated-stop', new Gate());
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let chatId: string;
  const problems: string[] = [];

  before(async () => {
    const script = await bundleModule(PAGE);
    server = await startServer({
      port: 0,
      config: testConfig(),
      agents: [resumeAgent.spec, lateAgent.spec, stopAgent.spec],
      runOptions: { logger: quietLogger() },
      onError: () => {},
    });
    browser = await launch();
    page = await browser.newPage();
    // What the page logs as a problem (a failed request included).
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.route(`${server.url}/aui/**`, (route) =>
      new URL(route.request().url()).pathname === '/aui/app.js'
        ? route.fulfill({ contentType: 'text/javascript', body: script })
        : route.fulfill({ contentType: 'text/html', body: PAGE_HTML }),
    );
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The page's messages as `role: text` (the parts only, not an error notice). */
  const messages = () =>
    page
      .locator('[data-role]')
      .evaluateAll((ms) => ms.map((m) => `${m.getAttribute('data-role')}: ${m.querySelector('[data-parts]')?.textContent}`));
  const assistantSays = (text: string) => page.locator('[data-role="assistant"]', { hasText: text }).last().waitFor();
  const ready = () => page.getByTestId('status').filter({ hasText: 'ready' }).waitFor();
  const runsOf = async (id: string): Promise<StoredRun[]> => (await (await fetch(`${server.url}/api/chats/${id}`)).json()).runs;
  const stored = async (id: string): Promise<StoredMessage[]> => (await fetch(`${server.url}/api/chats/${id}/messages`)).json();
  /** Waits until the thread list shows these titles, in order. */
  const threadsAre = (titles: string[]) =>
    page.waitForFunction(
      (want) => [...document.querySelectorAll('[data-testid="thread"]')].map((t) => t.textContent).join('\n') === want,
      titles.join('\n'),
    );
  /** Waits until the transport has read the stream's finish: it drops the thread's stored stream id. */
  const streamIdDropped = (id: string) =>
    page.waitForFunction((key) => sessionStorage.getItem(key) === null, `aui-resumable-stream-id:${id}`);
  const chatOfUrl = () => new URL(page.url()).searchParams.get('chat') ?? '';

  /** Types `text` into the composer and sends it. */
  async function send(text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }
  /** The statuses of the chat's runs, oldest first, once every one has ended. */
  async function settledRuns(id: string): Promise<string[]> {
    const runs = await runsOf(id);
    for (const r of runs) await server.core.runs.get(r.id)?.done;
    return (await runsOf(id)).map((r) => r.status);
  }

  test('hi: the answer streams in, the new thread gets a chat id in the URL, stored complete', async () => {
    await page.goto(`${server.url}/aui/`);
    await send('hi');
    await assistantSays('You said “hi”');
    await page.waitForURL(/[?&]chat=/);
    chatId = chatOfUrl();
    await ready();
    assert.deepEqual(await settledRuns(chatId), ['complete']);
    const [user, answer] = await stored(chatId);
    assert.equal(user?.role, 'user');
    assert.equal(answer?.role, 'assistant');
    assert.match(answer?.parts.findLast((p) => p.type === 'text')?.text ?? '', /^You said “hi”/);
  });

  test('a tool call: the get_weather part with its output, then the answer', async () => {
    await send('tool Berlin');
    await assistantSays('get_weather says it is 18 °C and partly cloudy in Berlin.');
    await page.locator('[data-tool="get_weather"]', { hasText: '"city":"Berlin"' }).last().waitFor();
    await page.locator('[data-tool="get_weather"] output', { hasText: 'partly cloudy' }).last().waitFor();
    await ready();
    assert.deepEqual(await settledRuns(chatId), ['complete', 'complete']);
  });

  test('an error: the page shows it, the run is stored as an error', async () => {
    await send('error');
    await page.getByTestId('error').filter({ hasText: 'The demo agent failed on purpose' }).waitFor();
    assert.deepEqual(await settledRuns(chatId), ['complete', 'complete', 'error']);
  });

  test('approve: the approved delete_file runs in the continued message', async () => {
    await send('approval');
    await page.getByRole('button', { name: 'Approve' }).click();
    await assistantSays('Deleted notes.txt');
    await ready();
    assert.deepEqual((await settledRuns(chatId)).slice(3), ['complete', 'complete']);
    const answer = (await stored(chatId)).at(-1);
    assert.deepEqual(
      answer?.parts.filter((p) => p.type === 'tool-delete_file').map((p) => [p.state, p.output]),
      [['output-available', { deleted: 'notes.txt' }]],
    );
  });

  test('deny: the denied delete_file is left alone', async () => {
    await send('approval');
    await page.getByRole('button', { name: 'Deny' }).click();
    await assistantSays('Left notes.txt alone');
    await ready();
    assert.deepEqual((await settledRuns(chatId)).slice(5), ['complete', 'complete']);
    const answer = (await stored(chatId)).at(-1);
    assert.deepEqual(
      answer?.parts.filter((p) => p.type === 'tool-delete_file').map((p) => p.state),
      ['output-denied'],
    );
  });

  test('the location frontend tool: the page runs get_location, the agent answers with its output', async () => {
    await send('location');
    await assistantSays('You are in Paris');
    await ready();
    assert.deepEqual((await settledRuns(chatId)).slice(7), ['complete', 'complete']);
    const answer = (await stored(chatId)).at(-1);
    assert.deepEqual(
      answer?.parts.filter((p) => p.type === 'tool-get_location').map((p) => [p.state, p.output]),
      [['output-available', 'Paris']],
    );
  });

  test('a second turn of plain text, then a reload shows the same thread from the gateway', async () => {
    await send('text That is all for now.');
    await assistantSays('That is all for now.');
    await ready();
    const live = await messages();
    assert.equal(live.length, 14);
    assert.deepEqual(
      live.filter((m) => m.startsWith('user: ')),
      ['hi', 'tool Berlin', 'error', 'approval', 'approval', 'location', 'text That is all for now.'].map((t) => `user: ${t}`),
    );

    await page.reload();
    await page.locator('[data-role="assistant"]', { hasText: 'That is all for now.' }).waitFor();
    await ready();
    assert.equal(chatOfUrl(), chatId);
    assert.deepEqual(await messages(), live);
    // The thread list is the gateway's chat list, titled by the gateway from the first message.
    await threadsAre(['hi']);
    assert.deepEqual(
      (await stored(chatId)).map((m) => m.role),
      live.map((m) => m.slice(0, m.indexOf(':'))),
    );
  });

  test('a reload mid-run: the page resumes the run and ends with the whole answer, stored complete', async () => {
    await page.goto(`${server.url}/aui/?agent=gated-resume`);
    await send('go');
    await resumeAgent.waiting;
    await assistantSays('first half');
    await page.waitForURL(/[?&]chat=/);
    const id = chatOfUrl();

    // The reload drops the request that started the run; the run goes on, and the page comes back for
    // it at the run's stream, named by the x-resumable-stream-id the transport kept.
    const [running] = await runsOf(id);
    assert.equal(running?.status, 'running');
    assert.equal(await page.evaluate((key) => sessionStorage.getItem(key), `aui-resumable-stream-id:${id}`), running.id);
    const [resumed] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === `/api/runs/${running.id}/stream`),
      page.reload(),
    ]);
    assert.equal(resumed.status(), 200);
    assert.equal((await server.core.store.getRun(running.id))?.status, 'running');
    await assistantSays('first half'); // from the resumed stream: the history left the pending message out
    resumeGate.open();
    await assistantSays(FULL_ANSWER);
    await streamIdDropped(id);
    await ready();
    assert.deepEqual(await messages(), ['user: go', `assistant: ${FULL_ANSWER}`]);
    await threadsAre(['go', 'hi']);

    await server.core.runs.get(running.id)?.done;
    const [run] = await runsOf(id);
    assert.equal(run?.status, 'complete');
    assert.equal((await server.core.store.getMessage(run.messageId))?.content, FULL_ANSWER);
  });

  test('a run that ends during the reload: the resumed replay writes over the message the history has', async () => {
    await page.goto(`${server.url}/aui/?agent=gated-late`);
    await send('go');
    await lateAgent.waiting;
    await assistantSays('first half');
    await page.waitForURL(/[?&]chat=/);
    const id = chatOfUrl();
    const [running] = await runsOf(id);

    // The reopened page's history is read only once the run has ended, so it holds the whole answer;
    // the transport still holds the run's stream id (the old page never read its finish) and resumes.
    await page.route(`${server.url}/api/chats/${id}/messages*`, async (route) => {
      lateGate.open();
      await server.core.runs.get(running.id)?.done;
      await route.continue();
    });
    const [resumed] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === `/api/runs/${running.id}/stream`),
      page.reload(),
    ]);
    assert.equal(resumed.status(), 200);
    await streamIdDropped(id);
    await ready();
    assert.deepEqual(await messages(), ['user: go', `assistant: ${FULL_ANSWER}`]);
    assert.equal((await server.core.store.getRun(running.id))?.status, 'complete');
    await page.unroute(`${server.url}/api/chats/${id}/messages*`);
  });

  test("stop: the stop route beside the runtime's cancel stores the run aborted", async () => {
    await page.goto(`${server.url}/aui/?agent=gated-stop`);
    await send('go');
    await stopAgent.waiting;
    await assistantSays('first half');
    await page.waitForURL(/[?&]chat=/);
    const id = chatOfUrl();
    const [stopped] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === `/api/chat/${id}/stop`),
      page.getByRole('button', { name: 'Stop' }).click(),
    ]);
    assert.equal(stopped.status(), 202);
    const [running] = await runsOf(id);
    await server.core.runs.get(running?.id ?? '')?.done;
    const [run] = await runsOf(id);
    assert.equal(run?.status, 'aborted');
    const message = await server.core.store.getMessage(run.messageId);
    assert.equal(message?.metadata.status, 'aborted');
    assert.equal(message?.content, 'Hello from the first half. ');
    await ready();
  });

  test('the page logged no error or warning on the way', () => {
    assert.deepEqual(problems, []);
  });
});
