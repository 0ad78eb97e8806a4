/**
 * `switchboard convert`'s progress bar: forced with `--progress` it draws on stderr and ends at 100%,
 * then clears its line; off by default when stderr is not a terminal (pipes and tests see nothing);
 * `createProgress` redraws at most once per interval (fake clock).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createProgress } from '../src/cli/progress.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const LAUNCHER = join(ROOT, 'node_modules/.bin/switchboard');
const CLEAR = '\r\x1b[2K';
const DELTAS = 40_000;

/** A valid Anthropic Messages SSE body of about 4 MB: one text block of `DELTAS` deltas. */
function largeCapture(): { sse: string; text: string } {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const parts = [
    event('message_start', {
      message: {
        id: 'msg_big',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        content: [],
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ];
  let text = '';
  for (let i = 0; i < DELTAS; i++) {
    const delta = `word ${i} of a large capture, `;
    text += delta;
    parts.push(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: delta } }));
  }
  parts.push(
    event('content_block_stop', { index: 0 }),
    event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: DELTAS } }),
    event('message_stop', {}),
  );
  return { sse: parts.join(''), text };
}

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** The text of an AI SDK UI message stream. */
function textOf(sse: string): string {
  let text = '';
  for (const event of sse.split('\n\n')) {
    const data = event.split('\n').find((l) => l.startsWith('data: '));
    if (!data || data === 'data: [DONE]') continue;
    const chunk = JSON.parse(data.slice(6)) as { type: string; delta?: string };
    if (chunk.type === 'text-delta') text += chunk.delta;
  }
  return text;
}

describe('convert --progress', () => {
  let dir: string;
  let file: string;
  let expected: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-progress-'));
    file = join(dir, 'large.sse');
    const capture = largeCapture();
    writeFileSync(file, capture.sse);
    expected = capture.text;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('forced: a bar on stderr that ends at 100% and is cleared; stdout unchanged', async () => {
    const [plain, forced] = await Promise.all([
      cli(['convert', '--from', 'anthropic', file]),
      cli(['convert', '--progress', '--from', 'anthropic', file]),
    ]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(textOf(forced.stdout), expected);
    assert.equal(forced.stdout.replace(/"durationMs":\d+/g, ''), plain.stdout.replace(/"durationMs":\d+/g, ''));
    const frames = forced.stderr.split(CLEAR);
    assert.equal(frames[0], '', 'every frame starts by clearing the line');
    assert.equal(frames.at(-1), '', 'the last write clears the bar');
    const last = frames.at(-2) ?? '';
    assert.match(last, /^\[#{30}\] 100% {2}\d+\.\d\/\d+\.\d MB {2}(\d+\.\d|–) MB\/s$/);
    for (const frame of frames.slice(1, -1)) assert.match(frame, /^\[[#.]{30}\] +\d{1,3}% /);
    assert.ok(!forced.stderr.includes('\n'), 'the bar never moves to a new line');
  });

  test('default with stderr not a terminal, and --no-progress: nothing on stderr', async () => {
    for (const flags of [[], ['--no-progress']]) {
      const run = await cli(['convert', ...flags, '--from', 'anthropic', file]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '');
      assert.equal(textOf(run.stdout), expected);
    }
  });

  test('--progress with --no-progress is a usage error', async () => {
    const run = await cli(['convert', '--progress', '--no-progress', file]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /cannot go together/);
    assert.equal(run.stdout, '');
  });
});

describe('createProgress', () => {
  test('redraws at most once per interval, always draws the final state, then clears', () => {
    let t = 0;
    const writes: string[] = [];
    const p = createProgress({ total: 10_000_000, sink: { write: (s: string) => writes.push(s) }, now: () => t, intervalMs: 100 });
    t = 10;
    p.add(1_000_000); // first add: drawn
    t = 50;
    p.add(1_000_000); // 40 ms later: skipped
    t = 110;
    p.add(3_000_000); // 100 ms after the last draw: drawn
    t = 150;
    p.add(5_000_000); // skipped
    t = 1000;
    p.done();
    assert.deepEqual(writes, [
      `${CLEAR}[###...........................]  10%  1.0/10.0 MB  100.0 MB/s`,
      `${CLEAR}[###############...............]  50%  5.0/10.0 MB  45.5 MB/s`,
      `${CLEAR}[##############################] 100%  10.0/10.0 MB  10.0 MB/s`,
      CLEAR,
    ]);
  });

  test('unknown size: bytes and rate, no percentage', () => {
    let t = 0;
    const writes: string[] = [];
    const p = createProgress({ sink: { write: (s: string) => writes.push(s) }, now: () => t });
    t = 1000;
    p.add(5_000_000);
    p.done();
    assert.deepEqual(writes, [`${CLEAR}5.0 MB  5.0 MB/s`, `${CLEAR}5.0 MB  5.0 MB/s`, CLEAR]);
  });
});
