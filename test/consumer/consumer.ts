/**
 * The consumer test: Switchboard as a user gets it from npm. Packs every package with `npm pack`
 * (which runs each one's `prepack` build), installs the tarballs into a fresh project in a temporary
 * folder, and there, on Node 22 (the `node` npm package at NODE_22, installed once into a cache
 * folder) and on Node 24 (this repository's pinned Node):
 *   (a) a plain ESM script imports @switchboard/core and converts an Anthropic capture to AI SDK SSE,
 *       the store records and reads back a run in node:sqlite, every package's entry points import;
 *   (b) a TypeScript project ("module": "nodenext", "strict": true, nothing else) type-checks a file
 *       that uses core, store, server and client, with this repository's TypeScript and with the oldest
 *       the README states (5.7), and with neither `pg` nor `@redis/client` installed;
 *   (c) Vite bundles a page that uses @switchboard/client and @switchboard/core, with no `node:` import;
 *   (d) the installed `switchboard` converts, validates, inspects and replays a capture, and
 *       `switchboard serve` answers /healthz, POST /api/chat (an AI SDK stream from the demo agent)
 *       and the web UI's HTML at /, storing in ./data or SWITCHBOARD_DATA_DIR;
 *   (e) examples/nextjs, with the latest `next`, builds with `next build` and, under `next start`,
 *       answers POST /api/chat with a stream the official client reads.
 * It also checks each tarball: built JavaScript, declarations and source maps, no TypeScript source,
 * no test, fixture or script, no `.ts` target in package.json.
 *
 * Run with `npm run test:consumer` (CI runs it after `npm test`). It needs the npm registry (or the
 * npm cache) for the packages' dependencies and Node 22; nothing else.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { assembleUIMessage, parseAiSdkSse } from '../support/ai-sdk-oracle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGES = ['core', 'store', 'server', 'client'];
/** The oldest Node 22 the packages declare (`engines`): what is tested is what is promised. */
const NODE_22 = '22.16.0';
const NODE_24 = join(ROOT, 'node_modules/.bin/node');
const CAPTURE = join(ROOT, 'test/fixtures/anthropic/thinking-text-tool-use.sse');

const work = mkdtempSync(join(tmpdir(), 'switchboard-consumer-'));
const project = join(work, 'project');
const tarballs = join(work, 'tarballs');
const children = new Set<ChildProcess>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
  if (!process.env.SWITCHBOARD_KEEP_CONSUMER) rmSync(work, { recursive: true, force: true });
});

/** Runs a command; its output, or a failure that shows what it printed. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): string {
  try {
    return execFileSync(command, args, {
      cwd: options.cwd ?? project,
      env: { ...process.env, ...options.env },
      encoding: 'utf8',
      input: options.input,
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    throw new Error(`${command} ${args.join(' ')} exited ${e.status}\n${e.stdout}\n${e.stderr}`);
  }
}

// npm runs under whatever node is on PATH; the repository's scripts put its pinned Node 24 first.
const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });

/** Node 22 from the `node` npm package, installed once into a cache folder shared by later runs. */
function installNode22(): string {
  const dir = join(tmpdir(), `switchboard-consumer-node-${NODE_22}`);
  const binary = join(dir, 'node_modules/node/bin/node');
  if (existsSync(binary) && run(binary, ['--version'], { cwd: dir }).trim() === `v${NODE_22}`) return binary;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'node-22', private: true }));
  npm(['install', '--prefer-offline', `node@${NODE_22}`], dir);
  assert.equal(run(binary, ['--version'], { cwd: dir }).trim(), `v${NODE_22}`);
  return binary;
}

/** The oldest TypeScript the README states: Node's and Hono's declarations use `Uint8Array<…>` (5.7). */
const TYPESCRIPT_MIN = '5.7';

/** The oldest supported TypeScript, installed once into a cache folder shared by later runs. */
function installOldestTypeScript(): string {
  const dir = join(tmpdir(), `switchboard-consumer-typescript-${TYPESCRIPT_MIN}`);
  const tsc = join(dir, 'node_modules/typescript/bin/tsc');
  if (existsSync(tsc)) return tsc;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'typescript-min', private: true }));
  npm(['install', '--prefer-offline', `typescript@~${TYPESCRIPT_MIN}.0`], dir);
  return tsc;
}

let node22: string;
const packed = new Map<string, string>();

before(
  () => {
    mkdirSync(project, { recursive: true });
    mkdirSync(tarballs);
    // `npm pack` runs each package's prepack: the build (and for the server, the web UI's).
    for (const name of PACKAGES) {
      const out = npm(['pack', '--pack-destination', tarballs], join(ROOT, 'packages', name))
        .trim()
        .split('\n');
      packed.set(name, join(tarballs, out.at(-1) as string));
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
    // The tarballs and their dependencies (from npm's cache when this machine has them), and the
    // Node types a TypeScript user of the server has anyway.
    npm(['install', '--prefer-offline', ...packed.values(), '@types/node@24'], project);
    copyFileSync(CAPTURE, join(project, 'capture.sse'));
    node22 = installNode22();
  },
  { timeout: 600_000 },
);

describe('the tarballs', () => {
  for (const name of PACKAGES) {
    test(`@switchboard/${name}: built JavaScript, declarations and maps; no source, test, fixture or script`, () => {
      const files = run('tar', ['-tzf', packed.get(name) as string], { cwd: work })
        .trim()
        .split('\n')
        .map((f) => f.replace(/^package\//, ''));
      assert.ok(files.includes('README.md') && files.includes('LICENSE') && files.includes('package.json'), files.join('\n'));
      assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('dist/index.js.map'));
      const offending = files.filter(
        (f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /(^|\/)(test|tests|fixtures|scripts|src)\//.test(f) || /\.test\./.test(f),
      );
      assert.deepEqual(offending, []);
      const pkg = JSON.parse(run('tar', ['-xzOf', packed.get(name) as string, 'package/package.json'], { cwd: work }));
      const targets = JSON.stringify([pkg.exports, pkg.main, pkg.types, pkg.bin]);
      assert.doesNotMatch(targets, /(?<!\.d)\.[cm]?tsx?"/, 'no TypeScript source as a target');
      for (const dep of Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith('@switchboard/')))
        assert.match(pkg.dependencies[dep], /^\^0\.1\.0$/, `${dep} resolves to the packed version`);
      assert.ok(pkg.engines?.node, 'engines.node');
      assert.equal(pkg.license, 'MIT');
      assert.ok(pkg.author && pkg.keywords?.length, 'author and keywords');
      assert.equal(pkg.publishConfig?.access, 'public', 'a scoped package publishes public');
      const deps = Object.keys(pkg.dependencies ?? {});
      assert.deepEqual(
        deps.filter((d) => d.startsWith('@types/') || d === 'pg' || d === '@redis/client'),
        [],
        'no @types/* in dependencies; pg and @redis/client are optional peers',
      );
      for (const optional of ['pg', '@redis/client'].filter((d) => d in (pkg.peerDependencies ?? {})))
        assert.equal(pkg.peerDependenciesMeta?.[optional]?.optional, true, `${optional} is optional`);
      if (name === 'server') {
        assert.ok(files.includes('bin/switchboard.js') && files.includes('web/index.html'), 'the CLI and the built web UI');
        assert.ok(!files.includes('web/.build-stamp') && !files.some((f) => f.startsWith('web/') && f.endsWith('.map')));
      }
    });
  }
});

const CORE_SCRIPT = `
import { readFileSync } from 'node:fs';
import { createSseResponse, decode } from '@switchboard/core';
const body = readFileSync('capture.sse');
const response = createSseResponse(decode([body], 'anthropic'), 'ai-sdk');
process.stdout.write(response.headers.get('x-vercel-ai-ui-message-stream') + '\\n' + await response.text());
`;

const STORE_SCRIPT = `
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { decode } from '@switchboard/core';
import { loadHistory, openStore, recordRun } from '@switchboard/store';
import { readFileSync } from 'node:fs';
const store = await openStore('sqlite:' + join(mkdtempSync(join(tmpdir(), 'sb-store-')), 'db.sqlite'));
const ids = { chatId: 'c1', runId: 'r1' };
for await (const _ of recordRun(store, { ...ids, userMessage: { content: 'hi' } }, decode([readFileSync('capture.sse')], 'anthropic', ids)));
const history = await loadHistory(store, 'c1', 'ai-sdk');
await store.close();
console.log(JSON.stringify(history.map((m) => [m.role, m.parts.map((p) => p.type)])));
`;

const IMPORTS_SCRIPT = `
const names = ['@switchboard/core', '@switchboard/core/schema', '@switchboard/core/names', '@switchboard/store',
  '@switchboard/store/sqlite', '@switchboard/server', '@switchboard/client'];
const out = {};
for (const name of names) out[name] = Object.keys(await import(name)).length;
console.log(JSON.stringify(out));
`;

for (const [label, node] of [
  ['Node 22', () => node22],
  ['Node 24', () => NODE_24],
] as const) {
  describe(`(a) ${label}`, () => {
    test('the must-show one-liner prints "function"', () => {
      const version = run(node(), ['--version']).trim();
      assert.match(version, label === 'Node 22' ? /^v22\./ : /^v24\./);
      const out = run(node(), ['--input-type=module', '-e', "import('@switchboard/core').then(m => console.log(typeof m.decode))"]);
      assert.equal(out, 'function\n');
    });

    test('a plain ESM script converts an Anthropic capture to AI SDK SSE', async () => {
      writeFileSync(join(project, 'convert.mjs'), CORE_SCRIPT);
      const [header, ...rest] = run(node(), ['convert.mjs']).split('\n');
      assert.equal(header, 'v1');
      const message = await assembleUIMessage(rest.join('\n'));
      assert.ok(message.parts.some((p) => p.type === 'reasoning') && message.parts.some((p) => p.type.startsWith('tool-')));
    });

    test('the store records a run in node:sqlite and reads its history back', () => {
      writeFileSync(join(project, 'store.mjs'), STORE_SCRIPT);
      const history = JSON.parse(run(node(), ['store.mjs']).trim().split('\n').at(-1) as string) as [string, string[]][];
      assert.deepEqual(
        history.map(([role]) => role),
        ['user', 'assistant'],
      );
      assert.ok(history[1][1].includes('reasoning') && history[1][1].includes('text'), JSON.stringify(history));
    });

    test('a library user of the store sees nothing on stderr (no SQLite ExperimentalWarning on Node 22)', () => {
      writeFileSync(join(project, 'store.mjs'), STORE_SCRIPT);
      const child = spawnSync(node(), ['store.mjs'], { cwd: project, encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      assert.equal(child.stderr, '');
    });

    test('PostgreSQL and Redis without their optional packages: an error that names the package to install', () => {
      const out = run(node(), [
        '--input-type=module',
        '-e',
        `import { openStore } from '@switchboard/store';
for (const url of ['postgres://127.0.0.1:1/none', 'redis://127.0.0.1:1']) {
  try { await openStore(url); console.log('opened'); } catch (e) { console.log(e.code + ': ' + e.message); }
}`,
      ]);
      assert.match(out, /^unavailable: .*npm install pg$/m);
      assert.match(out, /^unavailable: .*npm install @redis\/client$/m);
    });

    test("each package README's example runs against the installed package", () => {
      for (const name of PACKAGES) {
        const readme = readFileSync(join(project, 'node_modules/@switchboard', name, 'README.md'), 'utf8');
        const example = /```js\n(.*?)```/s.exec(readme)?.[1];
        assert.ok(example, `${name}: README has a js example`);
        writeFileSync(join(project, `readme-${name}.mjs`), example);
        assert.ok(run(node(), [`readme-${name}.mjs`]).trim().length > 0, `${name}: the example printed nothing`);
      }
    });

    test('every entry point of every package imports', () => {
      writeFileSync(join(project, 'imports.mjs'), IMPORTS_SCRIPT);
      const counts = JSON.parse(run(node(), ['imports.mjs']).trim()) as Record<string, number>;
      for (const [name, n] of Object.entries(counts)) assert.ok(n > 0, `${name} exports nothing`);
    });
  });
}

describe('(b) TypeScript: "module": "nodenext", "strict": true', () => {
  test('a file using core, store, server and client type-checks', () => {
    const dir = join(project, 'ts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true, noEmit: true } }, null, 2),
    );
    writeFileSync(
      join(dir, 'app.ts'),
      `import { type CanonicalEvent, createSseResponse, decode, encode, type Framework } from '@switchboard/core';
import { validate } from '@switchboard/core/schema';
import { loadHistory, openStore, type Store } from '@switchboard/store';
import { createGateway, startServer, type RunningServer } from '@switchboard/server';
import { createMessageAccumulator, readStream } from '@switchboard/client';

export async function convert(body: Uint8Array, from: Framework): Promise<Response> {
  const events: CanonicalEvent[] = [];
  for await (const e of decode([body], from)) events.push(e);
  const issues: unknown[] = validate(events).issues;
  if (issues.length) throw new Error('invalid');
  for await (const chunk of encode(decode([body], from), 'ai-sdk')) void chunk.type;
  return createSseResponse(decode([body], from), 'ai-sdk');
}

export async function serve(): Promise<RunningServer> {
  const store: Store = await openStore('sqlite::memory:');
  const history = await loadHistory(store, 'chat', 'ai-sdk');
  void history.length;
  const gateway = createGateway({ store });
  void gateway.app.fetch;
  return startServer({ port: 0, store });
}

export async function read(res: Response): Promise<string> {
  const acc = createMessageAccumulator();
  for await (const event of readStream(res, 'ai-sdk')) acc.apply(event);
  return acc.message.id;
}
`,
    );
    run(NODE_24, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    // …and with the oldest TypeScript the README states.
    run(NODE_24, [installOldestTypeScript(), '-p', dir], { cwd: dir });
  });
});

describe('(c) Vite bundles a page that uses the client and core', () => {
  test('the bundle has no node: import', () => {
    const dir = join(project, 'page');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="out"></div><script type="module" src="./main.js"></script>\n');
    writeFileSync(
      join(dir, 'main.js'),
      `import { createMessageAccumulator, readStream } from '@switchboard/client';
import { createSseResponse, decode } from '@switchboard/core';
const body = new TextEncoder().encode('event: message_start\\ndata: {"type":"message_start","message":{"id":"m","model":"x","usage":{}}}\\n\\n');
const acc = createMessageAccumulator();
for await (const event of readStream(createSseResponse(decode([body], 'anthropic'), 'ai-sdk'), 'ai-sdk')) acc.apply(event);
document.getElementById('out').textContent = JSON.stringify(acc.message);
`,
    );
    // Vite from this repository, resolving the page's imports from the consumer project.
    run(NODE_24, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error', '--outDir', 'dist', '--emptyOutDir'], {
      cwd: dir,
    });
    const assets = join(dir, 'dist/assets');
    const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
    assert.ok(js.length > 0);
    const bundle = js.map((f) => readFileSync(join(assets, f), 'utf8')).join('\n');
    assert.ok(bundle.includes('createMessageAccumulator') || bundle.length > 10_000, 'the client is in the bundle');
    assert.doesNotMatch(bundle, /["'`]node:[a-z]/);
  });
});

/** Starts `switchboard serve --port 0` and resolves with its URL once it listens. */
function serve(node: string, dataDir: string | undefined): Promise<{ url: string; child: ChildProcess }> {
  const bin = join(project, 'node_modules/.bin/switchboard');
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(SWITCHBOARD_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$)/.test(k)) delete env[k];
  if (dataDir) env.SWITCHBOARD_DATA_DIR = dataDir;
  const child = spawn(node, [bin, 'serve', '--port', '0'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (t: string) => {
      output += t;
      const url = /listening on (http:\S+)/.exec(output)?.[1];
      if (url) resolve({ url, child });
    });
    child.stderr?.setEncoding('utf8').on('data', (t: string) => (output += t));
    child.once('exit', (code) => reject(new Error(`switchboard serve exited ${code}:\n${output}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
  children.delete(child);
}

for (const [label, node] of [
  ['Node 22', () => node22],
  ['Node 24', () => NODE_24],
] as const) {
  describe(`(d) the installed CLI on ${label}`, () => {
    const cli = (args: string[], input?: string) => run(node(), [join(project, 'node_modules/.bin/switchboard'), ...args], { input });

    test('--help, --version, convert, validate, inspect and replay', async () => {
      assert.match(cli(['--help']), /Usage: switchboard <command>/);
      assert.equal(cli(['--version']).trim(), JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')).version);
      const sse = cli(['convert', '--from', 'anthropic', '--to', 'ai-sdk', 'capture.sse']);
      assert.ok((await parseAiSdkSse(sse)).some((c) => c.type === 'tool-input-available'));
      cli(['validate', '--protocol', 'ai-sdk', '-'], sse);
      assert.match(cli(['inspect', '--color', 'never', 'capture.sse']), /tool:/);
      const replayed = cli(['replay', 'capture.sse', '--to', 'ai-sdk', '--speed', '0']);
      assert.ok((await parseAiSdkSse(replayed)).some((c) => c.type === 'tool-input-available'));
    });

    test('serve: /healthz, POST /api/chat from the demo agent, the web UI at /, data in ./data', async () => {
      const dataDir = join(work, `data-${label.replace(' ', '')}`);
      const { url, child } = await serve(node(), dataDir);
      try {
        assert.equal((await (await fetch(`${url}/healthz`)).json()).ok, true);
        const chat = await fetch(`${url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'consumer', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'text hello' }] }] }),
        });
        assert.equal(chat.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
        const message = await assembleUIMessage(await chat.text());
        assert.ok(message.parts.some((p) => p.type === 'text'));
        const page = await fetch(`${url}/`);
        const html = await page.text();
        assert.equal(page.status, 200);
        // The built UI (its hashed bundle), not the minimal fallback page.
        const script = /<script type="module"[^>]*src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
        assert.ok(script, html.slice(0, 500));
        assert.equal((await fetch(`${url}${script}`)).status, 200);
        assert.ok(existsSync(dataDir), 'SWITCHBOARD_DATA_DIR holds the store');
      } finally {
        await stop(child);
      }
    });
  });
}

test('serve without SWITCHBOARD_DATA_DIR stores in ./data of the working directory', async () => {
  const { url, child } = await serve(NODE_24, undefined);
  try {
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.ok(existsSync(join(project, 'data')), readdirSync(project).join(', '));
  } finally {
    await stop(child);
  }
});

/** A port nothing listens on now (`next start` takes a port number, not 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('(e) examples/nextjs with the latest Next.js: next build, then next start', () => {
  test('the built app answers POST /api/chat with a stream the official client reads', { timeout: 900_000 }, async () => {
    const dir = join(work, 'next');
    mkdirSync(join(dir, 'app/api/chat'), { recursive: true });
    const example = join(ROOT, 'examples/nextjs');
    copyFileSync(join(example, 'next.config.mjs'), join(dir, 'next.config.mjs'));
    copyFileSync(join(example, 'app/api/chat/route.ts'), join(dir, 'app/api/chat/route.ts'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-next', private: true }, null, 2));
    // As a Next.js user adds it: the packages from their tarballs, beside Next's own.
    npm(
      [
        'install',
        '--prefer-offline',
        ...packed.values(),
        'next@latest',
        'react@latest',
        'react-dom@latest',
        'typescript',
        '@types/react',
        '@types/node@24',
      ],
      dir,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
    for (const k of Object.keys(env)) if (/^(SWITCHBOARD_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$)/.test(k)) delete env[k];
    run(NODE_24, [join(dir, 'node_modules/next/dist/bin/next'), 'build'], { cwd: dir, env });
    const port = await freePort();
    const child = spawn(NODE_24, [join(dir, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout?.setEncoding('utf8').on('data', (t: string) => {
          output += t;
          if (/Ready/.test(output)) resolve(`http://127.0.0.1:${port}`);
        });
        child.stderr?.setEncoding('utf8').on('data', (t: string) => (output += t));
        child.once('exit', (code) => reject(new Error(`next start exited ${code}:\n${output}`)));
      });
      const chat = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'consumer-next',
          messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'text hello from next' }] }],
        }),
      });
      assert.equal(chat.status, 200);
      assert.equal(chat.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
      const message = await assembleUIMessage(await chat.text());
      assert.match(message.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''), /hello from next/);
    } finally {
      await stop(child);
    }
  });
});
