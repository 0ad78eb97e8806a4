/**
 * The `npm start` path: main.ts as a child process on a temporary data directory (SQLite), a chat
 * with the demo agent over HTTP, the history; `kill -9`; main.ts again on the same directory: the
 * history is unchanged, and a run that was in progress when the server died is recovered as an
 * interrupted (error) message with what it had streamed.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { api, BodyReader, ECHO_PY, userMessage } from './gateway-support.ts';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sb-start-'));
const orphans = new Set<number>();
after(() => {
  for (const pid of orphans) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

writeFileSync(
  join(dir, 'switchboard.config.json'),
  JSON.stringify({
    agents: [{ name: 'echo-py', command: 'python3', args: [ECHO_PY], setEnv: { ECHO_DELAY_MS: '0', PYTHONUNBUFFERED: '1' } }],
    builtins: { demo: { delayMs: 0 } },
  }),
);

interface Started {
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

/** Starts main.ts like `npm start` (no PostgreSQL / Redis from the environment) and waits for its URL. */
async function start(): Promise<Started> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(DATABASE_URL|REDIS_URL|SWITCHBOARD_)/.test(k)) env[k] = v;
  Object.assign(env, { PORT: '0', SWITCHBOARD_DATA_DIR: join(dir, 'data'), SWITCHBOARD_CONFIG: join(dir, 'switchboard.config.json') });
  const child = spawn(process.execPath, [MAIN], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (t: string) => {
    err += t;
    for (const m of t.matchAll(/\[agent \S+ (\d+)\]/g)) orphans.add(Number(m[1]));
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`main.ts exited with ${code}\n${out}\n${err}`)));
  });
  return { child, url, stderr: () => err };
}

async function kill9(s: Started): Promise<void> {
  const exited = once(s.child, 'exit');
  s.child.kill('SIGKILL');
  const [code, signal] = await exited;
  assert.equal(signal, 'SIGKILL', `exit ${code}`);
}

test('npm start: chat, history, kill -9, start again on the same data directory: history unchanged', { timeout: 60_000 }, async () => {
  const first = await start();
  const res = await api(first.url, '/api/chat', { json: { id: 'chat-1', messages: [userMessage('tool Paris')] } });
  assert.equal(res.status, 200);
  const streamed = await res.text();
  assert.ok(streamed.endsWith('data: [DONE]\n\n'));
  const history = await (await api(first.url, '/api/chats/chat-1/messages?protocol=ai-sdk')).json();
  assert.equal(history.length, 2);
  const canonical = await (await api(first.url, '/api/chats/chat-1/messages?protocol=canonical')).json();

  // A run in progress when the server dies: the Python agent, stopped half-way.
  const live = await api(first.url, '/api/chat?agent=echo-py', { json: { id: 'chat-2', messages: [userMessage('hang')] } });
  const liveRun = live.headers.get('x-switchboard-run-id') as string;
  await new BodyReader(live).until((t) => t.includes('half-way'));
  await kill9(first);

  const second = await start();
  try {
    assert.deepEqual(await (await api(second.url, '/api/chats/chat-1/messages?protocol=ai-sdk')).json(), history);
    assert.deepEqual(await (await api(second.url, '/api/chats/chat-1/messages?protocol=canonical')).json(), canonical);
    const runId = canonical.find((i: { kind: string }) => i.kind === 'run').runId;
    assert.equal(await (await api(second.url, `/api/runs/${runId}/stream`)).text(), streamed, 'the stored run replays byte for byte');

    const run = await (await api(second.url, `/api/runs/${liveRun}`)).json();
    assert.equal(run.status, 'error', 'recovered at start as interrupted');
    const ui = await (await api(second.url, '/api/chats/chat-2/messages')).json();
    assert.equal(ui[1].parts.find((p: { type: string }) => p.type === 'text')?.text, 'This answer stops half-way ');
    assert.ok(
      (await (await api(second.url, '/api/chats')).json()).chats
        .map((c: { id: string }) => c.id)
        .sort()
        .join() === 'chat-1,chat-2',
    );
  } finally {
    await kill9(second);
  }
});

test('a pending approval survives kill -9: start again, approve, the flow completes', { timeout: 60_000 }, async () => {
  const first = await start();
  const asked = await api(first.url, '/api/chat', { json: { id: 'chat-approval', messages: [userMessage('approval')] } });
  assert.equal(asked.status, 200);
  assert.match(await asked.text(), /"type":"tool-approval-request"/);
  const waiting = await (await api(first.url, '/api/chats/chat-approval/messages?protocol=ai-sdk')).json();
  await kill9(first);

  const second = await start();
  try {
    const reloaded = await (await api(second.url, '/api/chats/chat-approval/messages?protocol=ai-sdk')).json();
    assert.deepEqual(reloaded, waiting, 'the approval is still asked for after the restart');
    const part = reloaded[1].parts.find((p: { type: string }) => p.type === 'tool-delete_file');
    assert.equal(part.state, 'approval-requested');
    // What addToolApprovalResponse makes of the message, sent as the AI SDK client sends it.
    const answered = {
      ...reloaded[1],
      parts: reloaded[1].parts.map((p: { type: string }) =>
        p === part ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: true } } : p,
      ),
    };
    const res = await api(second.url, '/api/chat', {
      json: { id: 'chat-approval', messages: [reloaded[0], answered], trigger: 'submit-message', messageId: answered.id },
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Deleted/);
    const done = await (await api(second.url, '/api/chats/chat-approval/messages?protocol=ai-sdk')).json();
    assert.equal(done.length, 2, 'one assistant message for the run and its continuation');
    assert.equal(done[1].id, reloaded[1].id);
    const settled = done[1].parts.find((p: { type: string }) => p.type === 'tool-delete_file');
    assert.equal(settled.state, 'output-available');
    assert.deepEqual(settled.approval, { ...part.approval, approved: true });
    assert.equal(
      done[1].parts
        .filter((p: { type: string }) => p.type === 'text')
        .map((p: { text: string }) => p.text)
        .join(''),
      'Deleted notes.txt',
    );
  } finally {
    await kill9(second);
  }
});
