/**
 * The stock `useChat({ resume: true })` — the AI SDK's React hook with its default transport, in
 * Chromium — against the gateway as it boots by default: a reload mid-run ends with the whole answer
 * on the page and the run stored `complete`; the one-line stop of docs/gateway.md stores it `aborted`.
 * The page (stock-use-chat-page.tsx) is bundled here by rolldown and served at the gateway's
 * origin, so its relative `/api/chat` is the gateway's. Agents wait at a gate the test opens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';

import { type RunningServer, startServer } from '../../../packages/server/src/server/start.ts';
import { Gate, gatedAgent, quietLogger, testConfig } from '../../../packages/server/test/gateway-support.ts';
import { bundleModule, chromiumMissing, IS_CI, launch } from './support.ts';

const PAGE = fileURLToPath(new URL('./stock-use-chat-page.tsx', import.meta.url));
const FULL_ANSWER = 'Hello from the first half. And the second half.';
const PAGE_HTML = '<!doctype html><div id="root"></div><script type="module" src="/stock/app.js"></script>';

interface StoredRun {
  id: string;
  status: string;
  messageId: string;
}

const missing = chromiumMissing();
const skip = missing && !IS_CI ? missing : undefined;
if (missing && IS_CI) test('stock useChat in the browser', () => assert.fail(`${missing} (CI=true: a missing browser is a failure)`));

describe('stock useChat({ resume: true }) in Chromium, default transport, default gateway', { skip }, () => {
  const resumeGate = new Gate();
  const resumeAgent = gatedAgent('gated-resume', resumeGate);
  const stopAgent = gatedAgent('gated-stop', new Gate());
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    const script = await bundleModule(PAGE);
    server = await startServer({
      port: 0,
      config: testConfig(),
      agents: [resumeAgent.spec, stopAgent.spec],
      runOptions: { logger: quietLogger() },
      onError: () => {},
    });
    browser = await launch();
    page = await browser.newPage();
    await page.route(`${server.url}/stock/**`, (route) =>
      new URL(route.request().url()).pathname === '/stock/app.js'
        ? route.fulfill({ contentType: 'text/javascript', body: script })
        : route.fulfill({ contentType: 'text/html', body: PAGE_HTML }),
    );
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The texts of the page's messages, as `role: text`. */
  const messages = () => page.locator('[data-role]').evaluateAll((ps) => ps.map((p) => `${p.dataset.role}: ${p.textContent}`));
  const assistantSays = (text: string) => page.locator('[data-role="assistant"]', { hasText: text }).waitFor();
  const runsOf = async (chatId: string): Promise<StoredRun[]> => (await (await fetch(`${server.url}/api/chats/${chatId}`)).json()).runs;

  test('a reload mid-run: the page ends with the whole answer, the run is stored complete', async () => {
    await page.goto(`${server.url}/stock/?chat=stock-reload&agent=gated-resume`);
    await page.getByRole('button', { name: 'Send' }).click();
    await resumeAgent.waiting;
    await assistantSays('first half');

    // The reload drops the request that started the run; the run goes on, and the page comes back for it.
    await page.reload();
    const [running] = await runsOf('stock-reload');
    assert.equal(running?.status, 'running');
    await assistantSays('first half'); // from the resumed stream: the history left the pending message out
    resumeGate.open();
    await assistantSays(FULL_ANSWER);
    await page.getByTestId('status').filter({ hasText: 'ready' }).waitFor();
    assert.deepEqual(await messages(), ['user: go', `assistant: ${FULL_ANSWER}`]);

    await server.core.runs.get(running.id)?.done;
    const [run] = await runsOf('stock-reload');
    assert.equal(run?.status, 'complete');
    assert.equal((await server.core.store.getMessage(run.messageId))?.content, FULL_ANSWER);
  });

  test('the documented stop line (the chat id, then chat.stop()) stores the run aborted', async () => {
    await page.goto(`${server.url}/stock/?chat=stock-stop&agent=gated-stop`);
    await page.getByRole('button', { name: 'Send' }).click();
    await stopAgent.waiting;
    await assistantSays('first half');
    const [stopped] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/chat/stock-stop/stop')),
      page.getByRole('button', { name: 'Stop' }).click(),
    ]);
    assert.equal(stopped.status(), 202);
    const [running] = await runsOf('stock-stop');
    await server.core.runs.get(running?.id ?? '')?.done;
    const [run] = await runsOf('stock-stop');
    assert.equal(run?.status, 'aborted');
    const message = await server.core.store.getMessage(run.messageId);
    assert.equal(message?.metadata.status, 'aborted');
    assert.equal(message?.content, 'Hello from the first half. ');
    await page.getByTestId('status').filter({ hasText: 'ready' }).waitFor();
  });
});
