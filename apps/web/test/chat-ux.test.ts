/**
 * The chat UX people expect, in Debian's Chromium against the real gateway: one test (or more) per
 * behaviour. Streams the test must see "in the middle" come from the scripted agent
 * (ux-support.ts), whose events the test releases; recorded captures come from the replay agent.
 * Every wait is for a state of the page or the server, never for time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { APIResponse, Browser, BrowserContext, Page } from 'playwright-core';

import { ensureBuilt } from '../scripts/ensure-built.ts';
import { artifactsDir, chromiumMissing, IS_CI, launch } from './support.ts';
import { type Feed, startUxServer, type UxServer } from './ux-support.ts';

const missing = chromiumMissing();
const skip = missing && !IS_CI ? missing : undefined;
if (missing && IS_CI) test('chat UX in the browser', () => assert.fail(`${missing} (CI=true: a missing browser is a failure)`));

/** Screenshots for the lead's note (outside the repository when SCREENS_DIR is set). */
const SCREENS = process.env.SCREENS_DIR;

describe('chat UX', { skip }, () => {
  let ux: UxServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const errors: string[] = [];

  before(async () => {
    await ensureBuilt({ quiet: true });
    ux = await startUxServer();
    base = ux.server.url;
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
    await artifactsDir();
  });

  after(async () => {
    await browser?.close();
    await ux?.server.close();
  });

  const shot = async (name: string, p: Page = page) => {
    if (SCREENS) await p.screenshot({ path: `${SCREENS}/${name}.png` });
  };
  const status = (p: Page = page) => p.evaluate(() => String(window.__switchboard?.chatStatus));
  const idle = (p: Page = page) =>
    p.waitForFunction(() => ['ready', 'error'].includes(String(window.__switchboard?.chatStatus)), null, { timeout: 60_000 });
  const runsEnded = (p: Page = page) => p.evaluate(() => Number(window.__switchboard?.runsEnded ?? 0));

  /** A new chat with `agent` (the agent of new chats is the last one picked, kept in localStorage). */
  async function fresh(agent: string, p: Page = page): Promise<void> {
    await p.goto(`${base}/`);
    await p.evaluate((a) => localStorage.setItem('switchboard.agent', a), agent);
    await p.reload();
    await p.waitForSelector('[data-testid=empty]');
    await p.waitForFunction((a) => window.__switchboard?.agent === a, agent);
  }

  /** Sends and waits for the run to end. */
  async function send(text: string, p: Page = page): Promise<void> {
    const n = await runsEnded(p);
    await p.fill('[data-testid=composer-input]', text);
    await p.press('[data-testid=composer-input]', 'Enter');
    await p.waitForFunction((k) => Number(window.__switchboard?.runsEnded ?? 0) > k, n, { timeout: 60_000 });
    await idle(p);
  }

  const lastAssistant = '[data-role=assistant]:last-of-type';
  const textOfLast = () => page.textContent(`${lastAssistant} [data-testid=text-part]`);

  async function axe(p: Page, what: string): Promise<void> {
    const result = await new AxeBuilder({ page: p }).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target.join(' ')}`),
      [],
      `axe-core on ${what}`,
    );
  }

  test('Enter while an answer streams queues the next message; the answer is not stopped', async () => {
    await fresh('scripted');
    const first = ux.script.next();
    await page.fill('[data-testid=composer-input]', 'first question');
    await page.press('[data-testid=composer-input]', 'Enter');
    await first.started;
    first.text('The first answer ');
    await page.waitForFunction(() =>
      document.querySelector('[data-role=assistant] [data-testid=text-part]')?.textContent?.includes('first answer'),
    );
    // Enter again while it streams.
    await page.fill('[data-testid=composer-input]', 'second question');
    await page.press('[data-testid=composer-input]', 'Enter');
    await page.waitForSelector('[data-testid=queued] >> text=second question');
    assert.equal(await status(), 'streaming', 'the first answer still streams');
    const second = ux.script.next();
    first.text('goes on to its end.');
    first.done();
    await second.started;
    assert.equal(first.aborted, false, 'the first run was not stopped');
    second.text('Second answer.');
    second.done();
    await page.waitForFunction(() => document.querySelectorAll('[data-role=assistant]').length === 2);
    await idle();
    const roles = await page.$$eval('[data-testid=message]', (els) =>
      els.map((e) => `${(e as HTMLElement).dataset.role}:${e.querySelector('.user-text, [data-testid=text-part]')?.textContent?.trim()}`),
    );
    assert.deepEqual(roles, [
      'user:first question',
      'assistant:The first answer goes on to its end.',
      'user:second question',
      'assistant:Second answer.',
    ]);
  });

  test('every text part grows while it streams (checked at each step)', async () => {
    await fresh('scripted');
    const feed = ux.script.next();
    await page.fill('[data-testid=composer-input]', 'grow');
    await page.press('[data-testid=composer-input]', 'Enter');
    await feed.started;
    const parts = () => page.$$eval(`${lastAssistant} [data-testid=text-part]`, (els) => els.map((e) => (e.textContent ?? '').trim()));
    const expect = async (want: string[]) => {
      await page.waitForFunction(
        (w) => {
          const msgs = document.querySelectorAll('[data-role=assistant]');
          const got = [...(msgs[msgs.length - 1]?.querySelectorAll('[data-testid=text-part]') ?? [])].map((e) =>
            (e.textContent ?? '').trim(),
          );
          return JSON.stringify(got) === JSON.stringify(w);
        },
        want,
        { timeout: 15_000 },
      );
    };
    feed.text('Alpha');
    await expect(['Alpha']);
    feed.text(' beta');
    await expect(['Alpha beta']);
    feed.text(' gamma');
    await expect(['Alpha beta gamma']);
    feed.push(
      { type: 'tool_use', data: { id: 't1', name: 'lookup', input: { q: 'x' } } },
      { type: 'tool_result', data: { tool_use_id: 't1', content: 'found' } },
    );
    feed.text('Second');
    await expect(['Alpha beta gamma', 'Second']);
    feed.text(' part');
    await expect(['Alpha beta gamma', 'Second part']);
    feed.text(' grows.');
    await expect(['Alpha beta gamma', 'Second part grows.']);
    feed.done();
    await idle();
    assert.deepEqual(await parts(), ['Alpha beta gamma', 'Second part grows.']);
  });

  test('leaving a chat mid-answer keeps it running; reopening shows the whole answer; Stop is explicit and marked', async () => {
    // Leave mid-answer: New chat.
    const { feed, chatPath } = await leftMidAnswer();
    feed.text('Part two. ');
    // Come back: the run is still going, and the page follows it live.
    await page.click(`[data-testid=chat-list] a[href="${chatPath}"]`);
    await page.waitForFunction(
      () => document.querySelector('[data-role=assistant] [data-testid=text-part]')?.textContent?.trim() === 'Part one. Part two.',
    );
    feed.text('Part three.');
    feed.done();
    await page.waitForFunction(
      () =>
        document.querySelector('[data-role=assistant] [data-testid=text-part]')?.textContent?.trim() === 'Part one. Part two. Part three.',
    );
    assert.equal(feed.aborted, false, 'leaving did not abort the run');
    await idle();
    await page.reload();
    await page.waitForSelector('[data-role=assistant] [data-testid=text-part]');
    assert.equal((await textOfLast())?.trim(), 'Part one. Part two. Part three.', 'the stored answer is whole');

    // Stop: explicit, and it says so.
    const stopped = ux.script.next();
    await page.fill('[data-testid=composer-input]', 'stop me');
    await page.press('[data-testid=composer-input]', 'Enter');
    await stopped.started;
    stopped.text('Half an ans');
    await page.waitForFunction(() => document.querySelectorAll('[data-role=assistant]').length === 2);
    await page.click('[data-testid=stop]');
    await stopped.ended;
    assert.equal(stopped.aborted, true, 'Stop aborted the run on the server');
    await page.waitForSelector(`${lastAssistant} [data-testid=stopped]`);
    await idle();
    await page.reload();
    await page.waitForSelector(`${lastAssistant} [data-testid=stopped]`);
  });

  /**
   * A run of the scripted agent that has shown "Part one." and goes on after the page left for a new
   * chat; returns its feed, the chat's page path, its API path and the run's id.
   */
  async function leftMidAnswer(): Promise<{ feed: Feed; chatPath: string; chatApiPath: string; runId: string }> {
    await fresh('scripted');
    const feed = ux.script.next();
    await page.fill('[data-testid=composer-input]', 'a long answer');
    await page.press('[data-testid=composer-input]', 'Enter');
    await feed.started;
    feed.text('Part one. ');
    await page.waitForFunction(
      () => document.querySelector('[data-role=assistant] [data-testid=text-part]')?.textContent?.trim() === 'Part one.',
    );
    const chatPath = new URL(page.url()).pathname;
    const chatApiPath = `/api${chatPath.replace(/^\/c\//, '/chats/')}`;
    const chat = (await (await fetch(`${base}${chatApiPath}`)).json()) as { runs: { id: string }[] };
    await page.click('[data-testid=new-chat]');
    await page.waitForSelector('[data-testid=empty]');
    return { feed, chatPath, chatApiPath, runId: chat.runs[0].id };
  }

  /** Ends the run and resolves once the store has its end (its stream, read to the end, is the store's tail). */
  async function finish(feed: Feed, runId: string): Promise<void> {
    feed.text('Part two.');
    feed.done();
    await (await fetch(`${base}/api/runs/${runId}/stream?protocol=canonical`)).text();
  }

  const wholeAnswer = async () => {
    await page.waitForFunction(
      () => document.querySelector('[data-role=assistant] [data-testid=text-part]')?.textContent?.trim() === 'Part one. Part two.',
    );
    await idle();
  };

  // The flake of test 7 (1 run in ~7): the page read the history while the run went on, the run
  // ended, and only then did the resume request arrive: `GET /api/chat/:id/stream` answered 204
  // (nothing in progress) and the page kept the partial answer. Each of these holds one request
  // of the reopen until the run has ended.
  test('reopened while the run goes on: the run ends before the resume request, the page still shows the whole answer', async () => {
    const { feed, chatPath, chatApiPath, runId } = await leftMidAnswer();
    // The history is read while the run goes on ("Part one."), and reaches the page after its end.
    const historyPath = `${chatApiPath}/messages`;
    let held = false;
    await page.route(
      (url) => url.pathname === historyPath,
      async (route) => {
        if (held) return route.fallback();
        held = true;
        const response = await route.fetch();
        await finish(feed, runId);
        await route.fulfill({ response });
      },
    );
    try {
      await page.click(`[data-testid=chat-list] a[href="${chatPath}"]`);
      await wholeAnswer();
    } finally {
      await page.unrouteAll();
    }
  });

  test('reopened while the run goes on: the run ends between reading the chat and its history, the page still shows the whole answer', async () => {
    const { feed, chatPath, chatApiPath, runId } = await leftMidAnswer();
    // The chat (its runs: is one still running?) is answered after the run's end; a history the
    // page asked for before that is read before the end, and reaches the page after it.
    let historyRead: Promise<APIResponse> | undefined;
    let ended: Promise<void> | undefined;
    await page.route(
      (url) => url.pathname === `${chatApiPath}/messages`,
      async (route) => {
        if (historyRead) return route.fallback();
        historyRead = route.fetch();
        const response = await historyRead;
        await ended;
        await route.fulfill({ response });
      },
    );
    await page.route(
      (url) => url.pathname === chatApiPath,
      async (route) => {
        if (!ended) {
          await historyRead;
          ended = finish(feed, runId);
          await ended;
        }
        await route.fallback();
      },
    );
    try {
      await page.click(`[data-testid=chat-list] a[href="${chatPath}"]`);
      await wholeAnswer();
    } finally {
      await page.unrouteAll();
    }
  });

  test('keyboard only: skip link, Enter sends, Escape stops', async () => {
    await fresh('scripted');
    // The first thing Tab reaches is the skip link, and it leads to the message box…
    const first = await page.evaluate(
      () => document.querySelector('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])')?.className,
    );
    assert.equal(first, 'skip-link');
    await page.focus('.skip-link');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'composer-input', 'the skip link lands in the message box');
    // …which has focus anyway whenever a chat opens: no Tab at all.
    await page.reload();
    await page.waitForFunction(() => document.activeElement?.id === 'composer-input');
    const feed = ux.script.next();
    await page.keyboard.type('typed only');
    await page.keyboard.press('Enter');
    await feed.started;
    feed.text('Streaming…');
    await page.waitForFunction(
      () => document.querySelector('[data-role=assistant] [data-testid=text-part]')?.textContent?.trim() === 'Streaming…',
    );
    await page.keyboard.press('Escape');
    await feed.ended;
    assert.equal(feed.aborted, true, 'Escape stopped the run');
    await page.waitForSelector(`${lastAssistant} [data-testid=stopped]`);
  });

  test('a failed request offers Retry, and Retry sends it again', async () => {
    await fresh('demo');
    let failures = 0;
    await page.route('**/api/chat', async (route) => {
      if (failures++ === 0)
        await route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":{"message":"Internal server error"}}' });
      else await route.fallback();
    });
    await page.fill('[data-testid=composer-input]', 'hi');
    await page.press('[data-testid=composer-input]', 'Enter');
    await page.waitForSelector('[data-testid=retry]');
    assert.match((await page.textContent('[data-testid=inline-error]')) ?? '', /Internal server error/);
    await shot('error-retry');
    const n = await runsEnded();
    await page.click('[data-testid=retry]');
    await page.waitForFunction((k) => Number(window.__switchboard?.runsEnded ?? 0) > k, n, { timeout: 60_000 });
    await idle();
    assert.match((await textOfLast()) ?? '', /You said “hi”/);
    assert.equal(await page.$$eval('[data-testid=inline-error]', (els) => els.length), 0, 'the error is gone');
    await page.unroute('**/api/chat');
  });

  test('a reopened chat keeps its agent', async () => {
    await fresh('replay');
    await send('which captures are there?');
    const chatPath = new URL(page.url()).pathname;
    await page.click('[data-testid=new-chat]');
    await page.selectOption('[data-testid=agent-picker]', 'demo');
    await page.click(`[data-testid=chat-list] a[href="${chatPath}"]`);
    await page.waitForFunction(() => window.__switchboard?.historyState === 'ready' && document.querySelector('[data-role=assistant]'));
    assert.equal(await page.$eval('[data-testid=agent-picker]', (e) => (e as HTMLSelectElement).value), 'replay');
    // The page says which chat this is, not its id.
    assert.equal(await page.textContent('[data-testid=chat-title]'), 'which captures are there?');
    assert.equal(await page.title(), 'which captures are there? · Switchboard');
  });

  test('a replayed web search shows inline markers and one source list whose numbers match', async () => {
    await fresh('replay');
    await send('anthropic-web-search-tool.1.chunks.txt');
    const msg = lastAssistant;
    // The cited prose is one flow, not one paragraph (and one list) per cited span.
    assert.equal(await page.$$eval(`${msg} [data-testid=text-part]`, (els) => els.length), 1);
    assert.equal(await page.$$eval(`${msg} .citations`, (els) => els.length), 0);
    const markers = await page.$$eval(`${msg} a[data-cite]`, (els) =>
      els.map((e) => ({ n: (e as HTMLElement).dataset.cite, href: e.getAttribute('href') })),
    );
    assert.ok(markers.length >= 5, `inline markers: ${markers.length}`);
    const sources = await page.$$eval(`${msg} [data-testid=sources] li`, (els) =>
      els.map((e) => ({ id: e.id, n: e.getAttribute('value'), title: e.querySelector('a')?.textContent })),
    );
    assert.equal(await page.$$eval(`${msg} [data-testid=sources]`, (els) => els.length), 1, 'one source list');
    for (const m of markers) {
      const target = sources.find((s) => `#${s.id}` === m.href);
      assert.ok(target, `marker ${m.n} points at a source`);
      assert.equal(target.n, m.n, 'the marker number is the source number');
    }
    // Hover: the card names the same source the list does under that number.
    const first = page.locator(`${msg} a[data-cite]`).first();
    await first.hover();
    const card = (await page.textContent('[data-testid=cite-card] .cite-card-title')) ?? '';
    const n = await first.getAttribute('data-cite');
    const listed = sources.find((s) => s.n === n)?.title ?? '';
    assert.ok(card.includes(listed), `card "${card}" names source ${n} "${listed}"`);
    await shot('citations');
  });

  test('code: highlighted, with its language and a working Copy; provider code execution as a file and a terminal', async () => {
    await fresh('demo');
    await send('text Here:\n\n```python\ndef add(a, b):\n    return a + b\n```');
    const block = `${lastAssistant} [data-testid=code-block]`;
    await page.waitForSelector(`${block}[data-highlighted=true]`);
    assert.equal(await page.getAttribute(block, 'data-lang'), 'python');
    assert.equal(await page.textContent(`${block} .code-lang`), 'python');
    const colored = await page.$$eval(
      `${block} .tok`,
      (els) => els.filter((e) => (e as HTMLElement).style.getPropertyValue('--shiki-light')).length,
    );
    assert.ok(colored > 3, `coloured tokens: ${colored}`);
    const size = await page.$eval(`${block} code`, (e) => Number.parseFloat(getComputedStyle(e).fontSize));
    assert.ok(size >= 13, `code text is readable (${size}px)`);
    await page.click(`${block} [data-testid=copy]`);
    await page.waitForSelector(`${block} [data-testid=copy] >> text=Copied`);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'def add(a, b):\n    return a + b');

    await page.selectOption('[data-testid=agent-picker]', 'replay');
    await send('anthropic-code-execution-20250825.1.chunks.txt');
    const file = `${lastAssistant} [data-tool=text_editor_code_execution] [data-testid=file-view]`;
    assert.match((await page.textContent(`${file} .code-lang`)) ?? '', /create \/tmp\/fibonacci\.py/);
    assert.match((await page.textContent(`${file} code`)) ?? '', /def fibonacci\(n\):/);
    const terminal = (await page.textContent(`${lastAssistant} [data-tool=bash_code_execution] [data-testid=terminal]`)) ?? '';
    assert.match(terminal, /\$ python \/tmp\/fibonacci\.py/);
    assert.match(terminal, /The 10th Fibonacci number is: 34/);
    assert.doesNotMatch(terminal, /"stdout"/, 'the output, not its JSON');
    await shot('code');
  });

  test('no empty reasoning expanders; sub-second durations say so', async () => {
    await fresh('replay');
    await send('openai-web-search-tool.1.chunks.txt');
    const empty = await page.$$eval(
      `${lastAssistant} [data-testid=reasoning]`,
      (els) => els.filter((e) => (e.querySelector('.reasoning-text')?.textContent ?? '').trim() === '').length,
    );
    assert.equal(empty, 0, 'no reasoning block without text');
    // The replay runs at full speed: whatever blocks there are took well under a second.
    const labels = await page.$$eval('[data-testid=reasoning] .label', (els) => els.map((e) => e.textContent ?? ''));
    for (const l of labels) assert.doesNotMatch(l, /^Thought for 1s$/);
  });

  test('sending while scrolled up shows the new message; "Jump to latest" comes back', async () => {
    await fresh('demo');
    await send(`text ${Array.from({ length: 60 }, (_, i) => `Line ${i}.`).join('\n\n')}`);
    // Scroll up until the list lets go. use-stick-to-bottom ignores a scroll that lands together with a
    // late resize (a highlighter or font settling), so one programmatic scroll can be swallowed: nudge
    // between 1 and 0 (each a real scroll event, the last one upwards) until the button is there.
    await page.waitForFunction(
      () => {
        if (document.querySelector('[data-testid=jump-to-latest]')) return true;
        const list = document.querySelector('[data-testid=messages]');
        if (list) list.scrollTop = list.scrollTop === 0 ? 1 : 0;
        return false;
      },
      null,
      { polling: 50 },
    );
    const n = await runsEnded();
    await page.fill('[data-testid=composer-input]', 'visible please');
    await page.press('[data-testid=composer-input]', 'Enter');
    const inView = () =>
      page.waitForFunction(() => {
        const box = document.querySelector('[data-testid=messages]')?.getBoundingClientRect();
        const users = [...document.querySelectorAll('[data-role=user]')];
        const mine = users.at(-1)?.getBoundingClientRect();
        return (
          box && mine && users.at(-1)?.textContent?.includes('visible please') && mine.top >= box.top - 1 && mine.bottom <= box.bottom + 1
        );
      });
    await inView();
    await page.waitForFunction((k) => Number(window.__switchboard?.runsEnded ?? 0) > k, n, { timeout: 60_000 });
    await idle();
  });

  test('chat list: shows a chat when its run starts, dates, rename, delete only after confirming', async () => {
    await fresh('scripted');
    const feed = ux.script.next();
    await page.fill('[data-testid=composer-input]', 'listed at once');
    await page.press('[data-testid=composer-input]', 'Enter');
    await feed.started;
    const chatPath = new URL(page.url()).pathname;
    const item = `[data-testid=chat-list] li:has(a[href="${chatPath}"])`;
    await page.waitForSelector(`${item} .chat-date`);
    feed.done();
    await idle();
    await page.click(`${item} [data-testid=rename-chat]`);
    await page.fill('[data-testid=rename-input]', 'Renamed chat');
    await page.press('[data-testid=rename-input]', 'Enter');
    await page.waitForSelector(`${item} >> text=Renamed chat`);
    await page.waitForFunction(() => document.title === 'Renamed chat · Switchboard');
    await page.click(`${item} [data-testid=delete-chat]`);
    await page.waitForSelector('[data-testid=confirm-delete]');
    assert.equal(await (await fetch(`${base}/api/chats/${chatPath.slice(3)}`)).status, 200, 'not deleted before confirming');
    // The list drops the chat at once; the DELETE may still be on its way, so wait for its answer.
    const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE' && r.url().endsWith(`/api/chats/${chatPath.slice(3)}`));
    await page.click('[data-testid=confirm-delete-yes]');
    await page.waitForSelector(`[data-testid=chat-list] a[href="${chatPath}"]`, { state: 'detached' });
    assert.equal((await deleted).status(), 204);
    assert.equal((await fetch(`${base}/api/chats/${chatPath.slice(3)}`)).status, 404);
  });

  test('the UI is served compressed', async () => {
    const html = await (await fetch(`${base}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, 'the page loads a script');
    const br = await fetch(`${base}${script}`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(br.headers.get('content-encoding'), 'br');
    const plain = await fetch(`${base}${script}`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    const [a, b] = [await br.arrayBuffer(), await plain.arrayBuffer()];
    assert.ok(a.byteLength > 0 && b.byteLength > 0);
  });

  test('polish: usage shows no zero counts; suggestions fill the box', async () => {
    await fresh('demo');
    await page.click('[data-testid=suggestion] >> nth=1');
    assert.equal(await page.inputValue('[data-testid=composer-input]'), 'tool London');
    await send('tool London');
    assert.doesNotMatch((await page.textContent(`${lastAssistant} [data-testid=usage]`)) ?? '', /(^|· )0 /);
  });

  test('axe-core: no serious or critical violation on the empty state, a finished demo reply and the inspector', async () => {
    await fresh('demo');
    await axe(page, 'the empty state');
    await shot('empty');
    await send('hello');
    await page.waitForFunction(() => !document.querySelector('[data-testid=reasoning][open]'));
    await axe(page, 'a finished demo reply');
    await shot('demo-reply');
    await page.click('[data-testid=toggle-inspector]');
    await page.waitForSelector('[data-testid=canonical-table]');
    await page.click('[data-testid=canonical-table] .row-toggle >> nth=2');
    await page.waitForSelector('.json-row');
    await axe(page, 'the inspector');
    await shot('inspector');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid=inspector]', { state: 'detached' });
  });

  test('the inspector opened before the first message says so, with no failed request', async () => {
    const failed: string[] = [];
    const onResponse = (r: { status(): number; url(): string }) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    };
    page.on('response', onResponse);
    await fresh('demo');
    await page.click('[data-testid=toggle-inspector]');
    await page.waitForSelector('[data-testid=inspector-empty]');
    page.off('response', onResponse);
    assert.deepEqual(failed, []);
    await page.keyboard.press('Escape');
  });

  test('at 390×844: no horizontal overflow, and New chat, the chat list and the agent are reachable', async () => {
    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await mobile.newPage();
    try {
      await fresh('demo', p);
      await send(`text \`\`\`\n${'x'.repeat(400)}\n\`\`\``, p);
      await send('hello', p);
      const width = await p.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `page width ${width}`);
      const send1 = await p.$eval('[data-testid=send]', (e) => e.getBoundingClientRect().right);
      assert.ok(send1 <= 390, 'Send is on screen');
      await axe(p, 'mobile');
      await shot('mobile', p);
      await p.click('[data-testid=open-sidebar]');
      await p.waitForSelector('[data-testid=new-chat]', { state: 'visible' });
      assert.ok(await p.isVisible('[data-testid=agent-picker]'));
      assert.ok(await p.isVisible('[data-testid=chat-list] a'));
      await axe(p, 'mobile with the chat list open');
      await shot('mobile-drawer', p);
      await p.click('[data-testid=new-chat]');
      await p.waitForSelector('[data-testid=empty]');
      assert.equal(new URL(p.url()).pathname, '/');
    } finally {
      await mobile.close();
    }
  });

  test('no uncaught errors', () => {
    assert.deepEqual(errors, []);
  });
});

export type { Feed };
