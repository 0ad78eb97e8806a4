/**
 * Stock CopilotKit — `CopilotKit` + `CopilotChat` in Chromium, the CopilotKit runtime with an
 * `HttpAgent` → the gateway's `/api/agui` — against a real gateway and its demo agent:
 * `useInterrupt` approve and deny each end in the continued answer, the frontend tool runs and
 * the answer continues, a reload shows the gateway's history (a runner whose `connect` reads the
 * thread from the gateway, as docs/gateway.md shows) — an approval still waiting included — and
 * CopilotChat's stop stores the run `aborted` (the runner's `stop` calls the gateway's stop route). The app — the page
 * (stock-copilotkit-page.tsx, bundled here by rolldown) and the runtime at `/api/copilotkit` — is
 * served by one loopback server, as a Next.js or Express app would serve both.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type AgentRunnerConnectRequest, type AgentRunnerStopRequest, CopilotRuntime, InMemoryAgentRunner } from '@copilotkit/runtime/v2';
import { createCopilotNodeListener } from '@copilotkit/runtime/v2/node';
// The @ag-ui/client line the CopilotKit runtime pins (0.0.59).
import { HttpAgent } from 'ag-ui-client-0.0';
import type { Browser, Page } from 'playwright-core';
import { from, type ObservedValueOf, switchMap } from 'rxjs';

import { type RunningServer, startServer } from '../../../packages/server/src/server/start.ts';
import { Gate, gatedAgent, quietLogger, testConfig } from '../../../packages/server/test/gateway-support.ts';
import { bundlePage, chromiumMissing, IS_CI, launch } from './support.ts';

// The runtime reports usage to CopilotKit unless told not to; a test talks to nothing outside.
process.env.COPILOTKIT_TELEMETRY_DISABLED = 'true';

const PAGE = fileURLToPath(new URL('./stock-copilotkit-page.tsx', import.meta.url));

interface StoredRun {
  id: string;
  status: string;
}
interface AgUiHistory {
  type: string;
  messages: { id: string; role: string; content?: unknown; toolCalls?: unknown[] }[];
  state: Record<string, unknown>;
}

/**
 * An AG-UI event as the runtime's runners stream them. The runtime has its own copy of
 * @ag-ui/core 0.0.59, whose `EventType` TypeScript keeps apart from the `ag-ui-client-0.0` copy
 * (an app with one copy writes `EventType.RUN_STARTED`, as docs/gateway.md does).
 */
type RunnerEvent = ObservedValueOf<ReturnType<InMemoryAgentRunner['connect']>>;

/**
 * The runtime's in-memory runner, with threads read from the gateway: a page that opens (or
 * reloads) a thread gets the gateway's stored conversation — its AG-UI history, the
 * MESSAGES_SNAPSHOT and state of `GET /api/chats/:id/messages?protocol=ag-ui` — unless a run of
 * the thread is still going through this runtime (then its live stream, as the in-memory runner has
 * it); a last run that ended waiting ends it with its interrupts. Its stop also stops the
 * gateway's run: the gateway takes a closed connection for a disconnect, after which the run goes on.
 */
class GatewayThreadsRunner extends InMemoryAgentRunner {
  private readonly gateway: string;
  constructor(gateway: string) {
    super();
    this.gateway = gateway;
  }
  override connect(request: AgentRunnerConnectRequest) {
    return from(this.isRunning(request)).pipe(
      switchMap((running) => (running ? super.connect(request) : from(this.history(request)).pipe(switchMap((events) => from(events))))),
    );
  }
  override async stop(request: AgentRunnerStopRequest) {
    await fetch(`${this.gateway}/api/chat/${encodeURIComponent(request.threadId)}/stop`, { method: 'POST' });
    return super.stop(request);
  }
  private async history({ threadId, headers }: AgentRunnerConnectRequest): Promise<RunnerEvent[]> {
    const chat = `${this.gateway}/api/chats/${encodeURIComponent(threadId)}`;
    const res = await fetch(`${chat}/messages?protocol=ag-ui`, { headers });
    if (!res.ok) throw new Error(`the gateway answered ${res.status} for thread ${threadId}`);
    const { messages, state } = (await res.json()) as AgUiHistory;
    const runId = randomUUID();
    return [
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'MESSAGES_SNAPSHOT', messages },
      { type: 'STATE_SNAPSHOT', snapshot: state },
      { type: 'RUN_FINISHED', threadId, runId, ...(await this.waitingFor(chat, headers)) },
    ] as unknown as RunnerEvent[];
  }
  /** The interrupts the thread's last run ended waiting for (a pending approval survives a reload), as its outcome. */
  private async waitingFor(chat: string, headers?: Record<string, string>): Promise<{ outcome?: unknown }> {
    const res = await fetch(chat, { headers });
    const last = res.ok ? ((await res.json()) as { runs: { id: string; finishReason?: string }[] }).runs.at(-1) : undefined;
    if (last?.finishReason !== 'tool-calls' && last?.finishReason !== 'other') return {};
    const stream = await (await fetch(`${this.gateway}/api/runs/${encodeURIComponent(last.id)}/stream?protocol=ag-ui`, { headers })).text();
    const finished = JSON.parse(
      stream
        .trim()
        .split('\n')
        .at(-1)
        ?.replace(/^data: /, '') ?? '{}',
    ) as { outcome?: { type?: string } };
    return finished.outcome?.type === 'interrupt' ? { outcome: finished.outcome } : {};
  }
}

/** The app: the page and its modules, and the CopilotKit runtime at /api/copilotkit. */
async function startApp(gateway: string): Promise<{ server: Server; url: string }> {
  const { entry, files } = await bundlePage(PAGE);
  const runtime = new CopilotRuntime({
    agents: {
      default: new HttpAgent({ url: `${gateway}/api/agui?agent=demo` }),
      gated: new HttpAgent({ url: `${gateway}/api/agui?agent=gated` }),
    },
    runner: new GatewayThreadsRunner(gateway),
  });
  const copilotkit = createCopilotNodeListener({ runtime, basePath: '/api/copilotkit' });
  const html = `<!doctype html><div id="root"></div><script type="module" src="${entry}"></script>`;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    if (path.startsWith('/api/copilotkit')) return void copilotkit(req, res);
    const code = files.get(path);
    res.writeHead(200, { 'content-type': code === undefined ? 'text/html' : 'text/javascript' });
    res.end(code ?? html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return { server, url: `http://127.0.0.1:${address.port}` };
}

const missing = chromiumMissing();
const skip = missing && !IS_CI ? missing : undefined;
if (missing && IS_CI) test('stock CopilotKit in the browser', () => assert.fail(`${missing} (CI=true: a missing browser is a failure)`));

describe('stock CopilotKit (CopilotKit + CopilotChat, runtime HttpAgent → /api/agui) in Chromium', { skip }, () => {
  const gated = gatedAgent('gated', new Gate());
  let gateway: RunningServer;
  let app: { server: Server; url: string };
  let browser: Browser;
  let page: Page;
  /** What the page and the runtime logged as errors (a schema the runtime's client rejects lands here). */
  const errorsLogged: string[] = [];
  const consoleError = console.error;

  before(async () => {
    console.error = (...args: unknown[]) => void errorsLogged.push(`runtime: ${args.map(String).join(' ')}`);
    gateway = await startServer({
      port: 0,
      config: testConfig({ builtins: { demo: { delayMs: 0 } } }),
      agents: [gated.spec],
      runOptions: { logger: quietLogger() },
      onError: () => {},
    });
    app = await startApp(gateway.url);
    browser = await launch();
    page = await browser.newPage();
    page.on('pageerror', (e) => errorsLogged.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errorsLogged.push(m.text());
    });
  });
  after(async () => {
    console.error = consoleError;
    await browser?.close();
    await new Promise((resolve) => app?.server.close(resolve));
    await gateway?.close();
  });

  /** The chat's messages on the page, as `role: text`. */
  const shown = () =>
    page
      .locator('[data-testid="copilot-user-message"], [data-testid="copilot-assistant-message"]')
      .evaluateAll((els) =>
        els.map((e) => `${e.dataset.testid === 'copilot-user-message' ? 'user' : 'assistant'}: ${e.textContent?.trim()}`),
      );
  const assistantSays = (text: string) => page.locator('[data-testid="copilot-assistant-message"]', { hasText: text }).waitFor();
  const send = async (text: string) => {
    await page.getByTestId('copilot-chat-textarea').fill(text);
    await page.getByTestId('copilot-send-button').click();
  };
  const runsOf = async (chatId: string): Promise<StoredRun[]> => (await (await fetch(`${gateway.url}/api/chats/${chatId}`)).json()).runs;
  /** The chat's runs once each has ended (the page shows an answer as soon as its events are stored). */
  const settledRuns = async (chatId: string): Promise<StoredRun[]> => {
    for (const run of await runsOf(chatId)) await gateway.core.runs.get(run.id)?.done;
    return runsOf(chatId);
  };
  const history = async (chatId: string): Promise<AgUiHistory> =>
    (await fetch(`${gateway.url}/api/chats/${chatId}/messages?protocol=ag-ui`)).json();
  /** The user and assistant messages of the gateway's AG-UI history, as `role: text` (what CopilotChat shows of them). */
  const historyTexts = async (chatId: string) =>
    (await history(chatId)).messages
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : ''}`);
  /** What the page shows live equals what it shows after a reload, and that is the gateway's history. */
  const reloadShowsHistory = async (chatId: string, said: string) => {
    const live = await shown();
    await page.reload();
    await assistantSays(said);
    assert.deepEqual(await shown(), live);
    assert.deepEqual(await shown(), await historyTexts(chatId));
  };

  for (const [answer, button, said] of [
    ['approve', 'Approve', 'Deleted notes.txt'],
    ['deny', 'Deny', 'Left notes.txt alone'],
  ] as const) {
    test(`useInterrupt ${answer}: the approval interrupt, ${button}, the continued answer; a reload shows the gateway's history`, async () => {
      const chat = `cpk-approval-${answer}`;
      await page.goto(`${app.url}/?chat=${chat}`);
      await send('approval');
      const interrupt = page.getByTestId('interrupt');
      await interrupt.filter({ hasText: 'Deleting a file cannot be undone.' }).waitFor();
      await interrupt.getByRole('button', { name: button }).click();
      await assistantSays(said);
      await interrupt.waitFor({ state: 'detached' });

      // The answer continued the interrupted run: two runs in the gateway, both ended well.
      assert.deepEqual(
        (await settledRuns(chat)).map((r) => r.status),
        ['complete', 'complete'],
      );
      assert.ok((await historyTexts(chat)).includes(`assistant: ${said}`));
      await reloadShowsHistory(chat, said);
      assert.deepEqual(errorsLogged, []);
    });
  }

  test("the frontend tool (useFrontendTool get_location) runs in the page and the answer continues; a reload shows the gateway's history", async () => {
    const chat = 'cpk-location';
    await page.goto(`${app.url}/?chat=${chat}`);
    await send('location');
    await assistantSays('You are in Paris');
    assert.deepEqual(
      (await settledRuns(chat)).map((r) => r.status),
      ['complete', 'complete'],
    );
    const { messages } = await history(chat);
    const result = messages.find((m) => m.role === 'tool');
    assert.equal(result?.content, 'Paris', 'the tool message is the one the page sent');
    assert.ok((await historyTexts(chat)).includes('assistant: You are in Paris'));
    await reloadShowsHistory(chat, 'You are in Paris');
    assert.deepEqual(errorsLogged, []);
  });

  test("CopilotChat's stop (the runner's stop stops the gateway's run): the run is stored aborted", async () => {
    const chat = 'cpk-stop';
    await page.goto(`${app.url}/?chat=${chat}&agent=gated`);
    await send('go');
    await gated.waiting;
    await assistantSays('first half');
    const [stopped] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/stop/${chat}`)),
      page.getByTestId('copilot-send-button').click(), // the send button stops while a run goes
    ]);
    assert.equal(stopped.status(), 200);
    const [run] = await settledRuns(chat);
    assert.equal(run?.status, 'aborted');
    const message = await gateway.core.store.getMessage((await (await fetch(`${gateway.url}/api/runs/${run.id}`)).json()).messageId);
    assert.equal(message?.metadata.status, 'aborted');
    assert.equal(message?.content, 'Hello from the first half. ');
    await page.locator('[data-copilot-running="false"]').first().waitFor();
    assert.deepEqual(errorsLogged, []);
  });

  test('a reload while an approval waits shows it again; Approve continues the run', async () => {
    const chat = 'cpk-approval-reload';
    await page.goto(`${app.url}/?chat=${chat}`);
    await send('approval');
    const interrupt = page.getByTestId('interrupt');
    await interrupt.filter({ hasText: 'Deleting a file cannot be undone.' }).waitFor();
    await page.reload();
    await interrupt.filter({ hasText: 'Deleting a file cannot be undone.' }).waitFor();
    await interrupt.getByRole('button', { name: 'Approve' }).click();
    await assistantSays('Deleted notes.txt');
    assert.deepEqual(
      (await settledRuns(chat)).map((r) => r.status),
      ['complete', 'complete'],
    );
    assert.deepEqual(await shown(), await historyTexts(chat));
    assert.deepEqual(errorsLogged, []);
  });

  test('a thread this runtime never ran opens with the gateway history', async () => {
    // Written by another client, straight to the gateway.
    const chat = `cpk-elsewhere-${randomUUID()}`;
    const other = new HttpAgent({ url: `${gateway.url}/api/agui?agent=demo`, threadId: chat });
    other.addMessage({ id: randomUUID(), role: 'user', content: 'text Written elsewhere.' });
    await other.runAgent({ runId: randomUUID() });
    await page.goto(`${app.url}/?chat=${chat}`);
    await assistantSays('Written elsewhere.');
    assert.deepEqual(await shown(), ['user: text Written elsewhere.', 'assistant: Written elsewhere.']);
    assert.deepEqual(await shown(), await historyTexts(chat));
    assert.deepEqual(errorsLogged, []);
  });
});
