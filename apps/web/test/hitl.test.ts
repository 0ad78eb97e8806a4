/**
 * A person in the loop in Debian's Chromium against the real gateway and the demo agent, in both
 * chat modes: `approval` → Approve (pressed from the keyboard) → "Deleted notes.txt"; `approval` →
 * Deny → "Left notes.txt alone"; `location` → the page answers `get_location` itself → "You are in
 * Paris" (the browser context is granted no geolocation, so the page falls back to Paris). A reload
 * shows the same states from history. Every wait is for a state of the page, never for time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';

import { ensureBuilt } from '../scripts/ensure-built.ts';
import { artifactsDir, chromiumMissing, IS_CI, launch } from './support.ts';
import { startUxServer, type UxServer } from './ux-support.ts';

const missing = chromiumMissing();
const skip = missing && !IS_CI ? missing : undefined;
if (missing && IS_CI) test('approvals in the browser', () => assert.fail(`${missing} (CI=true: a missing browser is a failure)`));

const SCREENS = process.env.SCREENS_DIR;
const LONG = { timeout: 60_000 };

describe('a person in the loop (web UI)', { skip }, () => {
  let ux: UxServer;
  let browser: Browser;
  let page: Page;
  let base: string;
  const errors: string[] = [];
  /** Runs the page asked for (POST /api/chat or /api/agui). */
  let posts = 0;
  /** Their bodies (AG-UI: RunAgentInput). */
  let bodies: Record<string, unknown>[] = [];

  before(async () => {
    await ensureBuilt({ quiet: true });
    ux = await startUxServer();
    base = ux.server.url;
    browser = await launch();
    // No geolocation permission: get_location answers the fallback, Paris.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/api\/(chat|agui)$/.test(new URL(r.url()).pathname)) {
        posts++;
        bodies.push(r.postDataJSON());
      }
    });
    await artifactsDir();
  });

  after(async () => {
    await browser?.close();
    await ux?.server.close();
  });

  /** A new chat with the demo agent in `mode`. */
  async function fresh(mode: 'ai-sdk' | 'ag-ui'): Promise<void> {
    posts = 0;
    bodies = [];
    await page.goto(`${base}/`);
    await page.evaluate((m) => {
      localStorage.setItem('switchboard.agent', 'demo');
      localStorage.setItem('switchboard.mode', m);
    }, mode);
    await page.reload();
    await page.waitForSelector('[data-testid=empty]');
    await page.waitForFunction(() => window.__switchboard?.agent === 'demo');
  }

  async function send(text: string): Promise<void> {
    await page.fill('[data-testid=composer-input]', text);
    await page.press('[data-testid=composer-input]', 'Enter');
  }

  const card = (tool: string) => `[data-role=assistant] [data-testid=tool-card][data-tool=${tool}]`;
  /** Waits until the (only) assistant message's text includes `text`. */
  const saysSoon = (text: string) =>
    page.waitForFunction(
      (t) => [...document.querySelectorAll('[data-role=assistant] [data-testid=text-part]')].some((e) => e.textContent?.includes(t)),
      text,
      LONG,
    );
  const stateOf = (tool: string) => page.getAttribute(card(tool), 'data-state');
  /** No run going and no request in flight. */
  const settled = () => page.waitForFunction(() => document.querySelector('[role=log]')?.getAttribute('aria-busy') === 'false', null, LONG);

  for (const mode of ['ai-sdk', 'ag-ui'] as const) {
    test(`${mode}: approval → Approve (keyboard) → the tool runs, "Deleted notes.txt"`, async () => {
      await fresh(mode);
      await send('approval');
      const approve = page.getByRole('button', { name: 'Approve' });
      await approve.waitFor(LONG);
      assert.equal(await stateOf('delete_file'), 'approval-requested');
      assert.equal(await page.getByRole('button', { name: 'Deny' }).count(), 1);
      assert.match((await page.textContent(`${card('delete_file')} [data-testid=tool-status]`)) ?? '', /awaiting approval/);
      if (mode === 'ai-sdk') {
        if (SCREENS) await page.screenshot({ path: `${SCREENS}/approval.png` });
        const axe = await new AxeBuilder({ page }).analyze();
        const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        assert.deepEqual(
          bad.map((v) => `${v.id} (${v.impact}): ${v.nodes[0]?.target.join(' ')}`),
          [],
          'axe-core on a card waiting for approval',
        );
      }
      await approve.focus();
      await page.keyboard.press('Enter');
      await saysSoon('Deleted notes.txt');
      await page.waitForFunction(
        (sel) => document.querySelector(sel)?.getAttribute('data-state') === 'output-available',
        card('delete_file'),
        LONG,
      );
      await settled();
      assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0, 'no buttons once answered');
      assert.equal(await page.locator('[data-role=assistant]').count(), 1, 'the answer continues the same message');
      // History shows the same.
      await page.reload();
      await page.waitForSelector(card('delete_file'));
      assert.equal(await stateOf('delete_file'), 'output-available');
      await saysSoon('Deleted notes.txt');
      assert.equal(posts, 2, 'the question and the answer: no request sent again by itself');
      if (mode === 'ag-ui') {
        const approvalId = (bodies[1].resume as { interruptId: string }[] | undefined)?.[0]?.interruptId;
        assert.deepEqual(bodies[1].resume, [{ interruptId: approvalId, status: 'resolved', payload: { approved: true } }]);
      }
    });

    test(`${mode}: approval → Deny → the tool does not run, "Left notes.txt alone"`, async () => {
      await fresh(mode);
      await send('approval');
      const deny = page.getByRole('button', { name: 'Deny' });
      await deny.waitFor(LONG);
      await deny.click();
      await saysSoon('Left notes.txt alone');
      await page.waitForSelector(`${card('delete_file')} [data-testid=tool-denied]`, LONG);
      await settled();
      assert.match((await page.textContent(`${card('delete_file')} [data-testid=tool-denied]`)) ?? '', /Denied/);
      assert.match((await page.textContent(`${card('delete_file')} [data-testid=tool-status]`)) ?? '', /denied/);
      await page.reload();
      await page.waitForSelector(card('delete_file'));
      await saysSoon('Left notes.txt alone');
      assert.match((await page.textContent(`${card('delete_file')} [data-testid=tool-status]`)) ?? '', /denied/);
      assert.equal(posts, 2, 'the question and the answer: no request sent again by itself');
    });

    test(`${mode}: location → the page answers get_location (no geolocation: Paris) → "You are in Paris"`, async () => {
      await fresh(mode);
      await send('location');
      await saysSoon('You are in Paris');
      await settled();
      assert.equal(await stateOf('get_location'), 'output-available');
      assert.match((await page.textContent(`${card('get_location')} [data-testid=terminal]`)) ?? '', /Paris/);
      assert.equal(await page.locator('[data-role=assistant]').count(), 1);
      await page.reload();
      await page.waitForSelector(card('get_location'));
      await saysSoon('You are in Paris');
      assert.equal(await stateOf('get_location'), 'output-available');
      assert.equal(posts, 2, 'the question and the answer: no request sent again by itself');
      if (mode === 'ag-ui') {
        for (const b of bodies)
          assert.ok(
            (b.tools as { name: string }[]).some((t) => t.name === 'get_location'),
            'get_location declared',
          );
        const toolMessage = (bodies[1].messages as Record<string, unknown>[]).find((m) => m.role === 'tool');
        assert.equal(toolMessage?.content, 'Paris');
      }
    });
  }

  for (const mode of ['ai-sdk', 'ag-ui'] as const)
    test(`${mode}: reloaded while an approval waits: the buttons come back from history, and Approve goes on`, async () => {
      await fresh(mode);
      await send('approval');
      await page.getByRole('button', { name: 'Approve' }).waitFor(LONG);
      await settled();
      await page.reload();
      const approve = page.getByRole('button', { name: 'Approve' });
      await approve.waitFor(LONG);
      assert.equal(await stateOf('delete_file'), 'approval-requested');
      await approve.click();
      await saysSoon('Deleted notes.txt');
      await page.waitForFunction(
        (sel) => document.querySelector(sel)?.getAttribute('data-state') === 'output-available',
        card('delete_file'),
        LONG,
      );
      await settled();
      assert.equal(await page.locator('[data-role=assistant]').count(), 1);
    });

  test('no uncaught errors', () => {
    assert.deepEqual(errors, []);
  });
});
