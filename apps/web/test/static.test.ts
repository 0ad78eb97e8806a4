/**
 * Static serving of the built UI (packages/server/src/server/static.ts): index.html at / and every
 * chat URL, hashed assets with long caching, nothing readable outside assets/, the minimal page when
 * the UI is not built.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { Hono } from 'hono';

import { mountWebApp } from '../../../packages/server/src/server/static.ts';

let dist: string;
let secret: string;

before(async () => {
  const root = await mkdtemp(join(tmpdir(), 'switchboard-static-'));
  dist = join(root, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>built</title><script type="module" src="/assets/app-1.js"></script>');
  await writeFile(join(dist, 'assets', 'app-1.js'), 'console.log(1)');
  await writeFile(join(dist, 'assets', 'app-1.css'), 'body{}');
  // What the build writes beside each asset (vite.config.ts): a Brotli and a gzip copy.
  await writeFile(join(dist, 'assets', 'app-1.js.br'), 'BROTLI');
  await writeFile(join(dist, 'assets', 'app-1.js.gz'), 'GZIP');
  secret = join(root, 'secret.txt');
  await writeFile(secret, 'do not serve');
});

function app(options: Parameters<typeof mountWebApp>[1]): Hono {
  const a = new Hono();
  mountWebApp(a, options);
  return a;
}

test('the built index.html at / and at every chat URL, with a strict CSP and no caching', async () => {
  const a = app({ distDir: dist });
  for (const path of ['/', '/c/abc', '/c/a%20b', '/c/x/y']) {
    const res = await a.request(path);
    assert.equal(res.status, 200, path);
    assert.match(await res.text(), /<title>built<\/title>/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.doesNotMatch(res.headers.get('content-security-policy') ?? '', /unsafe-inline/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
  }
  const head = await a.request('/', { method: 'HEAD' });
  assert.equal(head.status, 200);
});

test('assets with their type and a year of caching; nothing outside assets/', async () => {
  const a = app({ distDir: dist });
  const js = await a.request('/assets/app-1.js');
  assert.equal(js.status, 200);
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.match(js.headers.get('cache-control') ?? '', /immutable/);
  assert.equal(await js.text(), 'console.log(1)');
  assert.equal((await a.request('/assets/app-1.css')).headers.get('content-type'), 'text/css; charset=utf-8');
  for (const path of [
    '/assets/nope.js',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/',
    '/assets/%00',
    '/assets/%E0%A4%A',
  ]) {
    const res = await a.request(path);
    assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
    assert.doesNotMatch(await res.text(), /do not serve/);
  }
});

test('without a build, / serves the minimal page', async () => {
  const a = app({ distDir: join(dist, 'missing') });
  const res = await a.request('/');
  assert.equal(res.status, 200);
  assert.match(await res.text(), /\/api\/chat/);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'unsafe-inline'/);
  const none = app({ distDir: join(dist, 'missing'), fallbackPage: join(dist, 'missing.html') });
  assert.equal((await none.request('/')).status, 404);
});

test('precompressed assets for clients that accept them, the plain file for the others', async () => {
  const a = app({ distDir: dist });
  const br = await a.request('/assets/app-1.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(br.headers.get('content-encoding'), 'br');
  assert.equal(br.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal(br.headers.get('vary'), 'accept-encoding');
  assert.equal(await br.text(), 'BROTLI');
  const gz = await a.request('/assets/app-1.js', { headers: { 'accept-encoding': 'gzip, br;q=0' } });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');
  assert.equal(await gz.text(), 'GZIP');
  const plain = await a.request('/assets/app-1.js');
  assert.equal(plain.headers.get('content-encoding'), null);
  assert.equal(await plain.text(), 'console.log(1)');
  // No copy on disk: the file as it is.
  const css = await a.request('/assets/app-1.css', { headers: { 'accept-encoding': 'br' } });
  assert.equal(css.headers.get('content-encoding'), null);
  assert.equal(await css.text(), 'body{}');
});
