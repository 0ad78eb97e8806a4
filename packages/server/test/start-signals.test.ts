/**
 * `npm start` as users run it: npm runs the start script through a shell, so the gateway must be
 * the process npm signals (the script `exec`s node). SIGTERM or SIGINT to the npm process ends the
 * server: once npm has exited, the gateway's port refuses connections (no orphan left listening).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sb-signals-'));
const groups = new Set<number>();
after(() => {
  // Only if an assertion failed midway: the whole process group, so nothing outlives the test.
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});
writeFileSync(join(dir, 'switchboard.config.json'), JSON.stringify({ builtins: { demo: { delayMs: 0 } } }));

/** Starts `npm start` in the repository (its own process group) and waits for the gateway's URL. */
async function npmStart(): Promise<{ npm: ChildProcess; url: URL }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|SWITCHBOARD_|npm_)/.test(k)) env[k] = v;
  Object.assign(env, {
    PORT: '0',
    HOST: '127.0.0.1',
    SWITCHBOARD_DATA_DIR: join(dir, 'data'),
    SWITCHBOARD_CONFIG: join(dir, 'switchboard.config.json'),
  });
  const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  if (npm.pid !== undefined) groups.add(npm.pid);
  let out = '';
  let err = '';
  npm.stderr?.setEncoding('utf8').on('data', (t: string) => {
    err += t;
  });
  const url = await new Promise<URL>((done, fail) => {
    npm.stdout?.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) done(new URL(m[1]));
    });
    npm.once('exit', (code) => fail(new Error(`npm start exited with ${code}\n${out}\n${err}`)));
  });
  return { npm, url };
}

/** Whether something accepts connections on the URL's port. */
function listening(url: URL): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to the npm process of \`npm start\` ends the gateway`, { timeout: 120_000 }, async () => {
    const { npm, url } = await npmStart();
    assert.equal(await listening(url), true);
    const exited = once(npm, 'exit');
    npm.kill(signal);
    await exited;
    assert.equal(await listening(url), false, 'the gateway outlived npm');
    if (npm.pid !== undefined) groups.delete(npm.pid);
  });
}
