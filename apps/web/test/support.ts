/**
 * Shared by the browser tests and the render bench: Debian's Chromium (never a downloaded
 * browser), driven by playwright-core, against a real Switchboard server serving the built UI.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

import { WEB_DIR } from '../scripts/ensure-built.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Where screenshots and other artifacts go (git-ignored). */
export const ARTIFACTS = resolve(WEB_DIR, '../..', 'test-results', 'web');

/**
 * Why the browser tests cannot run here, or undefined when they can. On CI (`CI=true`) a missing
 * browser is a failure, not a skip: the caller turns the reason into an error there.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  return `${CHROMIUM_PATH} not found: install Debian's Chromium (apt-get install -y chromium) to run the browser tests`;
}

export const IS_CI = process.env.CI === 'true';

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export async function artifactsDir(): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  return ARTIFACTS;
}

/** A fresh data directory for a server under test (its store, if it has one). */
export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'switchboard-web-'));
}

/**
 * A stock client's test page bundled for the browser (React in production mode), as modules by
 * file name (`/name.js`) with the entry's name; CSS imports are left out (a real app's bundler
 * handles them).
 */
export async function bundlePage(input: string): Promise<{ entry: string; files: Map<string, string> }> {
  const { build } = await import('rolldown');
  const out = await build({
    input,
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    plugins: [{ name: 'no-css', load: (id) => (id.endsWith('.css') ? { code: '', moduleType: 'js' } : null) }],
    output: { format: 'esm' },
  });
  const files = new Map<string, string>();
  let entry = '';
  for (const o of out.output) {
    files.set(`/${o.fileName}`, 'code' in o ? o.code : String(o.source));
    if (o.type === 'chunk' && o.isEntry) entry = `/${o.fileName}`;
  }
  return { entry, files };
}

/** {@link bundlePage} for a page that bundles to one module: its code. */
export async function bundleModule(input: string): Promise<string> {
  const { entry, files } = await bundlePage(input);
  if (files.size !== 1) throw new Error(`${input} bundles to ${files.size} files; serve them with bundlePage`);
  return files.get(entry) as string;
}
