/**
 * The agent runner, with real processes: the example agents (Python and Node), tiny test agents
 * (`node -e`) that crash, hang, spew garbage or too much, the limits, environment scrubbing,
 * backpressure, and that no process survives its run (its pid is dead once `exited` settled). Then
 * the built-in agents: demo, replay, and the SDK agents against a loopback server on 127.0.0.1
 * replaying recorded provider streams. Nothing here waits on a clock: runs are awaited to their end.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CanonicalEvent, decode, type EventOf } from '@switchboard/core';
import { validate } from '@switchboard/core/schema';
import fc from 'fast-check';
import { runAgent } from '../src/agents/run.ts';
import { findAgent, resolveConfig } from '../src/config/load.ts';
import type { AgentDefinition, ProcessAgent } from '../src/config/types.ts';
import {
  type AgentRun,
  buildAgentEnv,
  liveAgentProcesses,
  type RunnerLogger,
  type RunOptions,
  type RunRequest,
} from '../src/runner/index.ts';
import { createLineSplitter } from '../src/runner/lines.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const EXAMPLES = join(ROOT, 'examples/agents');
const FIXTURES = new URL('../../../test/fixtures', import.meta.url).pathname;
const NODE = process.execPath;
const now = () => 1_700_000_000_000;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface Logged {
  level: string;
  message: string;
  stream?: string;
}

function logger(): RunnerLogger & { lines: Logged[] } {
  const lines: Logged[] = [];
  return {
    lines,
    log(level, message, fields) {
      lines.push({ level, message, ...(fields.stream ? { stream: fields.stream } : {}) });
    },
  };
}

const LIMITS = { timeoutMs: 60_000, idleTimeoutMs: 60_000, maxLineBytes: 1024 * 1024, maxOutputBytes: 64 * 1024 * 1024 };

function agent(name: string, command: string, args: string[], overrides: Partial<ProcessAgent> = {}): ProcessAgent {
  return {
    kind: 'process',
    name,
    framework: 'claude',
    command,
    args,
    cwd: EXAMPLES,
    env: [],
    setEnv: {},
    exposeStderr: false,
    limits: { ...LIMITS, ...overrides.limits },
    enabled: true,
    ...overrides,
    ...(overrides.limits ? { limits: { ...LIMITS, ...overrides.limits } } : {}),
  };
}

/** A test agent: a Node script given inline. */
function nodeAgent(name: string, code: string, overrides: Partial<ProcessAgent> = {}): ProcessAgent {
  return agent(name, NODE, ['-e', code], overrides);
}

/** Agent lines (the simplified Claude agent format), as a JS expression writing them. */
const line = (type: string, data: object = {}) => `${JSON.stringify({ type, data })}\n`;
const write = (text: string) => `process.stdout.write(${JSON.stringify(text)});`;

function request(text: string, extra: Partial<RunRequest> = {}): RunRequest {
  return {
    runId: 'run-1',
    chatId: 'chat-1',
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
    ...extra,
  };
}

async function collect(run: AsyncIterable<CanonicalEvent>): Promise<CanonicalEvent[]> {
  const events: CanonicalEvent[] = [];
  for await (const e of run) events.push(e);
  return events;
}

/** Runs to the end; checks the run is valid and its process gone. */
async function runAll(
  def: AgentDefinition,
  req: RunRequest,
  options: RunOptions = {},
): Promise<{ events: CanonicalEvent[]; run: AgentRun }> {
  const run = runAgent(def, req, { now, logger: logger(), ...options });
  const events = await collect(run);
  assertValid(events);
  await assertGone(run);
  return { events, run };
}

function assertValid(events: CanonicalEvent[]): void {
  const result = validate(events);
  assert.deepEqual(result.issues, [], 'the run is a valid canonical event sequence');
  const last = events.at(-1)!;
  assert.ok(last.type === 'run-finish' || last.type === 'run-abort', `the run ends with run-finish or run-abort, got ${last.type}`);
}

/** The process has exited and its pid is dead. */
async function assertGone(run: AgentRun): Promise<void> {
  await run.exited;
  if (run.pid !== undefined) assert.throws(() => process.kill(run.pid!, 0), { code: 'ESRCH' }, `process ${run.pid} is gone`);
}

const of = <T extends CanonicalEvent['type']>(events: CanonicalEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type) as EventOf<T>[];

/** Text of every text block, joined. */
const textOf = (events: CanonicalEvent[]) =>
  of(events, 'text-delta')
    .map((e) => e.delta)
    .join('');

/** Reasoning blocks, in order, with their variant and text. */
function reasoningOf(events: CanonicalEvent[]): { variant: string; text: string }[] {
  const blocks = new Map<string, { variant: string; text: string }>();
  for (const e of events) {
    if (e.type === 'reasoning-start') blocks.set(e.blockId, { variant: e.variant, text: '' });
    if (e.type === 'reasoning-delta') blocks.get(e.blockId)!.text += e.delta;
  }
  return [...blocks.values()];
}

const errorsOf = (events: CanonicalEvent[]) => of(events, 'error');

// ---------------------------------------------------------------------------------------------
// The example agents
// ---------------------------------------------------------------------------------------------

const PYTHON = spawnSync('python3', ['--version'], { encoding: 'utf8' });

describe('example agents', () => {
  const conversation: RunRequest = {
    runId: 'run-echo',
    chatId: 'chat-echo',
    messages: [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'first question' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'first answer' }] },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'hi there' }] },
    ],
  };

  for (const [name, command, args] of [
    ['echo-py', 'python3', ['echo.py']],
    ['echo-ts', NODE, ['echo.ts']],
  ] as const) {
    test(`${name} decodes to processing + thinking blocks, a tool with output, todos and the echoed text`, {
      skip: name === 'echo-py' && PYTHON.status !== 0 ? 'python3 is not installed' : false,
    }, async () => {
      const { events, run } = await runAll(agent(name, command, [...args]), conversation);
      assert.ok(run.pid !== undefined);
      const start = events[0] as EventOf<'run-start'>;
      assert.equal(start.type, 'run-start');
      assert.equal(start.runId, 'run-echo');
      assert.equal(start.chatId, 'chat-echo');
      assert.equal(start.agent, name);
      assert.equal(start.model, name);
      assert.equal(start.provider, 'claude');
      assert.deepEqual(reasoningOf(events), [
        { variant: 'processing', text: 'Reading the conversation…\n3 message(s); the last one has 2 word(s)' },
        { variant: 'thinking', text: 'The user wrote 2 word(s). I will count them with a tool, then echo the message back.' },
      ]);
      const [call] = of(events, 'tool-input-end');
      assert.equal(call.toolName, 'count_words');
      assert.deepEqual(call.input, { text: 'hi there' });
      const [output] = of(events, 'tool-output');
      assert.equal(output.toolCallId, call.toolCallId);
      assert.deepEqual(output.output, { words: 2, characters: 8 });
      const todos = of(events, 'todos');
      assert.deepEqual(
        todos.map((t) => t.change),
        ['create', 'done', 'done', 'done'],
      );
      assert.deepEqual(
        todos.at(-1)!.todos.map((t) => [t.content, t.status]),
        [
          ['Read the message', 'completed'],
          ['Count the words', 'completed'],
          ['Echo it back', 'completed'],
        ],
      );
      assert.equal(textOf(events), 'You said: hi there');
      assert.deepEqual(of(events, 'usage').at(-1)!.usage.outputTokens, 4);
      assert.deepEqual(errorsOf(events), []);
      const finish = events.at(-1) as EventOf<'run-finish'>;
      assert.equal(finish.type, 'run-finish');
      assert.equal(finish.finishReason, 'stop');
      assert.deepEqual(await run.exited, { code: 0, signal: null });
    });
  }

  test('the Python agent gets the conversation on stdin and answers the last user message', { skip: PYTHON.status !== 0 }, async () => {
    const { events } = await runAll(agent('echo-py', 'python3', ['echo.py']), request('  spaced   out  '));
    assert.equal(textOf(events), 'You said: spaced   out');
  });
});

// ---------------------------------------------------------------------------------------------
// Abort, crash, limits
// ---------------------------------------------------------------------------------------------

describe('client abort', () => {
  test('abort mid-run kills the process (pid dead) and yields run-abort with the partial text kept', {
    skip: PYTHON.status !== 0,
  }, async () => {
    const controller = new AbortController();
    const run = runAgent(agent('echo-py', 'python3', ['echo.py']), request('hang', { signal: controller.signal }), {
      now,
      logger: logger(),
    });
    const events: CanonicalEvent[] = [];
    for await (const e of run) {
      events.push(e);
      // The agent prints its partial answer, then hangs: abort once all of it is here.
      if (textOf(events) === 'This answer stops half-way ' && !controller.signal.aborted) controller.abort();
    }
    assertValid(events);
    assert.equal(textOf(events), 'This answer stops half-way ');
    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(-3), ['text-end', 'step-finish', 'run-abort']);
    assert.equal((events.at(-1) as EventOf<'run-abort'>).reason, 'client disconnected');
    assert.deepEqual(errorsOf(events), []);
    assert.deepEqual(await run.exited, { code: null, signal: 'SIGTERM' });
    await assertGone(run);
  });

  test('an agent that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
    const code = `process.on('SIGTERM', () => {}); ${write(line('text', { content: 'stubborn ' }))} setInterval(() => {}, 1e9);`;
    const controller = new AbortController();
    const run = runAgent(nodeAgent('stubborn', code), request('x', { signal: controller.signal }), {
      now,
      logger: logger(),
      killGraceMs: 50,
    });
    const events: CanonicalEvent[] = [];
    for await (const e of run) {
      events.push(e);
      if (e.type === 'text-delta') controller.abort('user pressed stop');
    }
    assertValid(events);
    assert.equal(textOf(events), 'stubborn ');
    assert.equal((events.at(-1) as EventOf<'run-abort'>).reason, 'user pressed stop');
    assert.deepEqual(await run.exited, { code: null, signal: 'SIGKILL' });
    await assertGone(run);
  });

  test('return() mid-run stops the process before it resolves, and nothing more is emitted', async () => {
    const code = `${write(line('text', { content: 'one ' }))} setInterval(() => {}, 1e9);`;
    const run = runAgent(nodeAgent('hang', code), request('x'), { now, logger: logger() });
    const events: CanonicalEvent[] = [];
    for await (const e of run) {
      events.push(e);
      if (e.type === 'text-delta') break;
    }
    // `break` called return(): the process is already gone.
    assert.throws(() => process.kill(run.pid!, 0), { code: 'ESRCH' });
    assert.deepEqual(await run.exited, { code: null, signal: 'SIGTERM' });
    assert.deepEqual((await run.next()).done, true);
  });

  test('return() while a next() waits for a silent agent ends both at once', async () => {
    const run = runAgent(nodeAgent('silent', 'setInterval(() => {}, 1e9);'), request('x'), { now, logger: logger() });
    // The process starts within the first next(); stop the run while that next() is still waiting.
    const pending = run.next();
    assert.ok(run.pid !== undefined);
    await run.return();
    assert.deepEqual(await pending, { done: true, value: undefined });
    await assertGone(run);
  });

  test('a signal aborted before the run starts yields run-start + run-abort and starts nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = runAgent(nodeAgent('never', 'process.exit(3)'), request('x', { signal: controller.signal }), { now, logger: logger() });
    const events = await collect(run);
    assertValid(events);
    assert.deepEqual(
      events.map((e) => e.type),
      ['run-start', 'run-abort'],
    );
    assert.equal(run.pid, undefined);
  });
});

describe('thinkTags', () => {
  test('an agent with thinkTags: its <think> text becomes reasoning', async () => {
    const code = `${write(line('text', { content: 'Hi. <think>plan the' }) + line('text', { content: ' answer</think>Done.' }) + line('done'))}`;
    const { events } = await runAll(nodeAgent('thinker', code, { thinkTags: true }), request('x'));
    assert.equal(textOf(events), 'Hi. Done.');
    assert.deepEqual(
      reasoningOf(events).map((r) => r.text),
      ['plan the answer'],
    );
    const plain = await runAll(nodeAgent('plain', code), request('x'));
    assert.equal(textOf(plain.events), 'Hi. <think>plan the answer</think>Done.', 'off by default');
  });
});

describe('crashes and exit codes', () => {
  const crashing = [
    write(line('start', { model: 'crashy' }) + line('status', { message: 'working' }) + line('text', { content: 'partial ' })),
    `process.stderr.write('warming up\\n' + 'x\\n'.repeat(20) + 'Traceback: something broke\\nValueError: boom\\n');`,
    'process.exitCode = 1;',
  ].join('\n');

  test('exit 1 mid-stream: partial content kept, a fatal error with the exit code (stderr only in the log), run-finish error', async () => {
    const log = logger();
    const { events, run } = await runAll(nodeAgent('crashy', crashing), request('x'), { logger: log });
    assert.equal(textOf(events), 'partial ');
    const [error] = errorsOf(events);
    assert.equal(error.code, 'agent_exit');
    assert.equal(error.fatal, true);
    assert.equal(error.message, 'agent "crashy" exited with code 1 (its stderr is in the server log)');
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'error');
    assert.deepEqual(await run.exited, { code: 1, signal: null });
    assert.ok(log.lines.some((l) => l.stream === 'stderr' && l.message === 'ValueError: boom'));
  });

  test('exposeStderr: the crash error quotes the stderr tail', async () => {
    const code = [
      write(line('start', { model: 'crashy' }) + line('status', { message: 'working' }) + line('text', { content: 'partial ' })),
      `process.stderr.write('warming up\\n' + 'x\\n'.repeat(20) + 'Traceback: something broke\\nValueError: boom\\n');`,
      'process.exitCode = 1;',
    ].join('\n');
    const log = logger();
    const { events, run } = await runAll(nodeAgent('crashy', code, { exposeStderr: true }), request('x'), { logger: log });
    assert.equal(textOf(events), 'partial ');
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'run-start',
        'step-start',
        'reasoning-start',
        'reasoning-delta',
        'reasoning-end',
        'text-start',
        'text-delta',
        'text-end',
        'step-finish',
        'error',
        'run-finish',
      ],
    );
    const [error] = errorsOf(events);
    assert.equal(error.code, 'agent_exit');
    assert.equal(error.fatal, true);
    assert.match(error.message, /^agent "crashy" exited with code 1\n/);
    assert.match(error.message, /Traceback: something broke\nValueError: boom$/);
    assert.ok(!error.message.includes('warming up'), 'only the last stderr lines are quoted');
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'error');
    assert.deepEqual(await run.exited, { code: 1, signal: null });
    // stderr went to the log with the agent's name, line by line; never to the client.
    assert.ok(log.lines.some((l) => l.stream === 'stderr' && l.message === 'ValueError: boom'));
  });

  test('the Python example crashing (exit 1) reports its traceback', { skip: PYTHON.status !== 0 }, async () => {
    const { events } = await runAll(agent('echo-py', 'python3', ['echo.py'], { exposeStderr: true }), request('crash'));
    assert.equal(textOf(events), 'This answer stops half-way ');
    const [error] = errorsOf(events);
    assert.match(error.message, /exited with code 1\n[\s\S]*RuntimeError: the echo agent crashed on purpose$/);
  });

  test('killed by a signal', async () => {
    const code = `${write(line('text', { content: 'a' }))} process.kill(process.pid, 'SIGKILL');`;
    const { events } = await runAll(nodeAgent('killed', code), request('x'));
    assert.equal(textOf(events), 'a');
    assert.match(errorsOf(events)[0].message, /^agent "killed" was killed by SIGKILL$/);
  });

  test('done then exit 1 is a failure; an agent that reported its own error and finished keeps its report', async () => {
    const doneThenFail = `${write(line('text', { content: 'all good?' }) + line('done'))} process.exitCode = 1;`;
    const a = await runAll(nodeAgent('liar', doneThenFail), request('x'));
    assert.deepEqual(a.events.map((e) => e.type).slice(-4), ['text-end', 'step-finish', 'error', 'run-finish']);
    assert.equal(errorsOf(a.events)[0].code, 'agent_exit');

    const reported = `${write(line('error', { message: 'quota exceeded', code: 'quota' }) + line('done'))} process.exitCode = 2;`;
    const b = await runAll(nodeAgent('honest', reported), request('x'));
    assert.deepEqual(
      errorsOf(b.events).map((e) => [e.code, e.message, e.fatal]),
      [['quota', 'quota exceeded', true]],
    );
    assert.equal((b.events.at(-1) as EventOf<'run-finish'>).finishReason, 'error');
  });

  test('exit 0 without done: the decoder reports the truncated run', async () => {
    const { events } = await runAll(nodeAgent('quitter', write(line('text', { content: 'bye' }))), request('x'));
    assert.deepEqual(
      errorsOf(events).map((e) => [e.code, e.fatal]),
      [['truncated', true]],
    );
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'error');
  });

  test('an agent that prints done but keeps running is stopped after the exit grace; its run stands', async () => {
    const code = `${write(line('text', { content: 'finished' }) + line('done'))} setInterval(() => {}, 1e9);`;
    const { events, run } = await runAll(nodeAgent('lingering', code), request('x'), { exitGraceMs: 20 });
    assert.equal(textOf(events), 'finished');
    assert.deepEqual(errorsOf(events), []);
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'stop');
    assert.equal((await run.exited)?.signal, 'SIGTERM');
  });

  test('a command that cannot start: a fatal error, no process', async () => {
    const { events, run } = await runAll(agent('ghost', 'switchboard-no-such-command-xyz', []), request('x'));
    assert.deepEqual(
      events.map((e) => e.type),
      ['run-start', 'error', 'run-finish'],
    );
    assert.equal(errorsOf(events)[0].code, 'agent_spawn_failed');
    assert.match(errorsOf(events)[0].message, /cannot start agent "ghost": .*ENOENT/);
    assert.equal(run.pid, undefined);
    assert.equal(await run.exited, undefined);
  });
});

describe('bad output and limits', () => {
  test('garbage lines become located, non-fatal errors; the run goes on', async () => {
    const out = `this is not json\n${line('text', { content: 'kept ' })}[1, 2]\n{"type": 42}\n${line('text', { content: 'too' })}${line('done')}`;
    const { events } = await runAll(nodeAgent('noisy', write(out)), request('x'));
    assert.equal(textOf(events), 'kept too');
    assert.deepEqual(
      errorsOf(events).map((e) => [e.code, e.fatal, e.where?.line]),
      [
        ['invalid_json', false, 1],
        ['invalid_event', false, 3],
        ['invalid_field', false, 4],
      ],
    );
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'stop');
  });

  test('an oversized line (counted in bytes, even split across writes) is a located error and is skipped', async () => {
    const long = line('text', { content: 'x'.repeat(300) });
    const utf8 = line('text', { content: 'é'.repeat(60) }); // 60 characters, 120+ bytes
    const code = [
      write(line('text', { content: 'a' })),
      write(long),
      // One line over several writes, the limit crossed in the middle of one.
      ...Array.from({ length: 5 }, (_, i) => write(i === 0 ? '{"type":"text","data":{"content":"' : 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy')),
      write('"}}\n'),
      write(utf8),
      write(line('text', { content: 'b' }) + line('done')),
    ].join('\n');
    const { events } = await runAll(nodeAgent('verbose', code, { limits: { ...LIMITS, maxLineBytes: 100 } }), request('x'));
    assert.equal(textOf(events), 'ab');
    assert.deepEqual(
      errorsOf(events).map((e) => [e.code, e.fatal, e.where?.line, e.where?.expected]),
      [
        ['line_too_long', false, 2, 'at most 100 bytes'],
        ['line_too_long', false, 3, 'at most 100 bytes'],
        ['line_too_long', false, 4, 'at most 100 bytes'],
      ],
    );
    assert.match(errorsOf(events)[0].message, /^line 2: longer than the limit of 100 bytes/);
  });

  test('too much output: a fatal output_limit error, the process killed, what came before kept', async () => {
    // fs.writeSync on a blocking pipe: the loop blocks while the runner is not reading (process.stdout
    // would make the pipe non-blocking and buffer in the agent's memory instead).
    const code = `const fs = require('fs'); fs.writeSync(1, ${JSON.stringify(line('text', { content: 'start ' }))}); const l = ${JSON.stringify(line('text', { content: 'more ' }))}; for (;;) fs.writeSync(1, l);`;
    const { events, run } = await runAll(nodeAgent('firehose', code, { limits: { ...LIMITS, maxOutputBytes: 10_000 } }), request('x'));
    assert.ok(textOf(events).startsWith('start more '));
    const [error] = errorsOf(events);
    assert.deepEqual([error.code, error.fatal], ['output_limit', true], error.message);
    assert.match(error.message, /more than 10000 bytes/);
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'error');
    assert.ok((await run.exited)?.signal);
  });

  test('output over the limit in one write: the whole lines under the limit are still read', async () => {
    // One write of ~20 KB: the first read can cross the 10,000-byte limit at once.
    const burst = line('text', { content: 'start ' }) + line('text', { content: 'more ' }).repeat(500);
    const code = `require('fs').writeSync(1, ${JSON.stringify(burst)}); setInterval(() => {}, 1e9);`;
    const { events } = await runAll(nodeAgent('burst', code, { limits: { ...LIMITS, maxOutputBytes: 10_000 } }), request('x'));
    assert.ok(textOf(events).startsWith('start more more '));
    assert.ok(textOf(events).length < 10_000);
    assert.deepEqual(
      errorsOf(events).map((e) => e.code),
      ['output_limit'],
    );
  });

  // The idle and run timers start at spawn, so these limits leave room for a child Node's start-up on a
  // loaded machine (it took over 150 ms there): the agent's first line must come before them.
  test('a hung agent hits the idle timeout: killed, a fatal timeout error after its partial text', async () => {
    const code = `${write(line('text', { content: 'waiting ' }))} setInterval(() => {}, 1e9);`;
    const { events, run } = await runAll(nodeAgent('hung', code, { limits: { ...LIMITS, idleTimeoutMs: 1500 } }), request('x'));
    assert.equal(textOf(events), 'waiting ');
    const [error] = errorsOf(events);
    assert.deepEqual([error.code, error.fatal], ['timeout', true]);
    assert.match(error.message, /printed nothing for 1500 ms \(idle timeout\)/);
    assert.deepEqual(events.map((e) => e.type).slice(-4), ['text-end', 'step-finish', 'error', 'run-finish']);
    assert.equal((await run.exited)?.signal, 'SIGTERM');
  });

  test('a busy agent that never finishes hits the run timeout', async () => {
    const code = `setInterval(() => process.stdout.write(${JSON.stringify(line('status', { message: 'still going' }))}), 5);`;
    const { events } = await runAll(
      nodeAgent('busy', code, { limits: { ...LIMITS, timeoutMs: 1500, idleTimeoutMs: 60_000 } }),
      request('x'),
    );
    const [error] = errorsOf(events);
    assert.deepEqual([error.code, error.fatal], ['timeout', true]);
    assert.match(error.message, /ran longer than 1500 ms \(run timeout\)/);
    assert.ok(reasoningOf(events)[0].text.startsWith('still going'));
  });
});

describe('stdout reading', () => {
  test('chunk boundaries anywhere: an agent writing 3 bytes at a time gives the same run as one write', async () => {
    const out =
      line('start', { model: 'm' }) +
      line('status', { message: 'héllo ☕' }) +
      `not json\r\n` +
      line('tool_use', { id: 't1', name: 'f', input: { a: 'ü' } }) +
      line('tool_result', { tool_use_id: 't1', content: 'ok' }) +
      line('text', { content: 'done 🎉' }) +
      line('done');
    const whole = await runAll(nodeAgent('whole', write(out)), request('x'));
    const pieces = `const b = Buffer.from(${JSON.stringify(out)}); for (let i = 0; i < b.length; i += 3) require('fs').writeSync(1, b.subarray(i, i + 3));`;
    const split = await runAll(nodeAgent('whole', pieces), request('x'));
    assert.deepEqual(split.events, whole.events);
  });

  test('the line splitter: any chunking gives the same lines and the same oversized reports', () => {
    const lineArb = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, '')),
      fc.string({ unit: 'binary', minLength: 20, maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, '')),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(lineArb, fc.boolean()), { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 20 }),
        (lines, lastNewline, cuts) => {
          const text = lines.map(([l, crlf], i) => l + (i < lines.length - 1 || lastNewline ? (crlf ? '\r\n' : '\n') : '')).join('');
          const bytes = Buffer.from(text);
          const max = 40;
          const feed = (chunks: Buffer[]) => {
            const out: Buffer[] = [];
            const oversized: [number, number][] = [];
            const s = createLineSplitter(max, { bytes: (b) => out.push(Buffer.from(b)), oversized: (l, n) => oversized.push([l, n]) });
            for (const c of chunks) s.push(c);
            s.end();
            return { bytes: Buffer.concat(out).toString('latin1'), lines: oversized.map(([l]) => l) };
          };
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let at = 0;
          for (const p of points) {
            chunks.push(bytes.subarray(at, p));
            at = p;
          }
          chunks.push(bytes.subarray(at));
          const one = feed([bytes]);
          assert.deepEqual(feed(chunks), one);
          // What passes is every line that fits, and a bare newline for each one dropped.
          const expected: string[] = [];
          const dropped: number[] = [];
          const raw = bytes.toString('latin1').split('\n');
          raw.forEach((l, i) => {
            const last = i === raw.length - 1;
            if (last && l === '') return;
            const size = l.endsWith('\r') && !last ? l.length - 1 : l.length;
            if (size > max) {
              dropped.push(i + 1);
              if (!last) expected.push('\n');
            } else expected.push(last ? l : `${l}\n`);
          });
          assert.equal(one.bytes, expected.join(''));
          assert.deepEqual(one.lines, dropped);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('backpressure: a slow consumer pauses reading, so unread output stays bounded', async () => {
    const count = 4000;
    const code = `const fs = require('fs'); const l = ${JSON.stringify(line('text', { content: `${'z'.repeat(1000)} ` }))}; for (let i = 0; i < ${count}; i++) fs.writeSync(1, l); fs.writeSync(1, ${JSON.stringify(line('done'))});`;
    const highWaterMark = 64 * 1024;
    let pausedWith = -1;
    let run!: AgentRun;
    const paused = new Promise<void>((resolve) => {
      run = runAgent(nodeAgent('firehose', code), request('x'), {
        now,
        logger: logger(),
        highWaterMark,
        onBackpressure: (p) => {
          if (p && pausedWith === -1) {
            pausedWith = run.bufferedBytes;
            resolve();
          }
        },
      });
    });
    const first = await run.next();
    assert.equal(first.value?.type, 'run-start');
    // The consumer stalls until reading has paused: the agent (4 MB to write) is now blocked.
    await paused;
    assert.ok(pausedWith >= highWaterMark, `paused at ${pausedWith} bytes`);
    assert.ok(
      pausedWith <= highWaterMark + 64 * 1024 + 1024 * 1024,
      `at most the high-water mark plus one read is held, got ${pausedWith}`,
    );
    const rest = await collect(run);
    const events = [first.value!, ...rest];
    assertValid(events);
    assert.equal(of(events, 'text-delta').length, count);
    assert.ok(run.bufferedBytes === 0);
    await assertGone(run);
  });
});

describe('no process outlives its run', () => {
  test('a server that exits mid-run (process.exit) takes its agents with it', async () => {
    // The agent holds a connection to this socket: the socket closes exactly when the agent dies.
    const socketPath = join(tmpdir(), `switchboard-runner-${process.pid}-${randomUUID().slice(0, 8)}.sock`);
    after(() => rmSync(socketPath, { force: true }));
    const held = new Promise<{ closed: Promise<void> }>((resolveConnected) => {
      const server = createNetServer((socket) => {
        socket.resume();
        resolveConnected({ closed: new Promise((closed) => socket.on('close', () => closed())) });
        server.close();
      });
      server.listen(socketPath);
    });
    const agentCode = `require('net').connect(process.env.SOCK, () => { ${write(line('text', { content: 'connected' }))} }); setInterval(() => {}, 1e9);`;
    const harness = `
      import { runProcessAgent } from ${JSON.stringify(join(ROOT, 'packages/server/src/runner/process.ts'))};
      const def = { kind: 'process', name: 'orphan', framework: 'claude', command: process.execPath, args: ['-e', ${JSON.stringify(agentCode)}],
        cwd: process.cwd(), env: [], setEnv: { SOCK: ${JSON.stringify(socketPath)} }, exposeStderr: false, enabled: true,
        limits: { timeoutMs: 60000, idleTimeoutMs: 60000, maxLineBytes: 1e6, maxOutputBytes: 1e8 } };
      const run = runProcessAgent(def, { runId: 'r', messages: [] }, { logger: { log() {} } });
      for await (const e of run) {
        if (e.type === 'text-delta') { process.stdout.write(String(run.pid)); process.exit(0); }
        process.stderr.write(JSON.stringify(e) + '\\n');
      }
      process.exit(1);`;
    const child = spawn(NODE, ['--input-type=module', '-e', harness], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pid = '';
    child.stdout.on('data', (b: Buffer) => {
      pid += b.toString();
    });
    const [code] = (await once(child, 'exit')) as [number];
    assert.equal(code, 0);
    assert.match(pid, /^\d+$/);
    // The agent's end of the socket closes: it was killed when the server process exited.
    await await held;
  });

  test('every agent process of this file is gone', () => {
    assert.equal(liveAgentProcesses(), 0);
  });
});

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

describe('environment', () => {
  const printEnv = `${write(line('text', { content: '' }))} process.stdout.write(JSON.stringify({ type: 'text', data: { content: JSON.stringify(process.env) } }) + '\\n'); ${write(line('done'))}`;
  const envOf = async (def: ProcessAgent, req = request('x')) => {
    const { events } = await runAll(def, req);
    return JSON.parse(textOf(events)) as Record<string, string>;
  };

  test('a server secret is not visible to an agent unless its config allows it', async () => {
    process.env.SWITCHBOARD_TEST_SECRET = 's3cret';
    process.env.SWITCHBOARD_TEST_OTHER = 'other';
    try {
      const scrubbed = await envOf(nodeAgent('plain', printEnv, { setEnv: { FIXED: 'yes' } }));
      assert.equal(scrubbed.SWITCHBOARD_TEST_SECRET, undefined);
      assert.equal(scrubbed.SWITCHBOARD_TEST_OTHER, undefined);
      assert.equal(scrubbed.PATH, process.env.PATH);
      assert.equal(scrubbed.FIXED, 'yes');
      assert.equal(scrubbed.SWITCHBOARD_RUN_ID, 'run-1');
      assert.equal(scrubbed.SWITCHBOARD_CHAT_ID, 'chat-1');
      assert.equal(scrubbed.SWITCHBOARD_AGENT, 'plain');
      const allowed = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'FIXED']);
      for (const k of Object.keys(scrubbed)) assert.ok(allowed.has(k) || k.startsWith('SWITCHBOARD_'), `unexpected variable ${k}`);

      const named = await envOf(nodeAgent('named', printEnv, { env: ['SWITCHBOARD_TEST_SECRET'] }));
      assert.equal(named.SWITCHBOARD_TEST_SECRET, 's3cret');
      assert.equal(named.SWITCHBOARD_TEST_OTHER, undefined);

      const pattern = await envOf(nodeAgent('pattern', printEnv, { env: ['SWITCHBOARD_TEST_*'] }));
      assert.equal(pattern.SWITCHBOARD_TEST_SECRET, 's3cret');
      assert.equal(pattern.SWITCHBOARD_TEST_OTHER, 'other');
    } finally {
      delete process.env.SWITCHBOARD_TEST_SECRET;
      delete process.env.SWITCHBOARD_TEST_OTHER;
    }
  });

  test('buildAgentEnv: base variables, allow-list, fixed values, run values win', () => {
    const env = buildAgentEnv(
      { allow: ['KEY_A', 'PRE_*'], set: { KEY_A: 'fixed', OWN: '1' }, run: { SWITCHBOARD_RUN_ID: 'r' } },
      { PATH: '/bin', HOME: '/h', KEY_A: 'server', KEY_B: 'no', PRE_X: 'x', PREX: 'no', SECRET: 'no', SWITCHBOARD_RUN_ID: 'spoofed' },
    );
    assert.deepEqual(env, { PATH: '/bin', HOME: '/h', KEY_A: 'fixed', PRE_X: 'x', OWN: '1', SWITCHBOARD_RUN_ID: 'r' });
  });
});

// ---------------------------------------------------------------------------------------------
// Built-in agents
// ---------------------------------------------------------------------------------------------

describe('built-in agents', () => {
  test('demo: the tool command, decoded through the claude decoder', async () => {
    const config = resolveConfig({ builtins: { demo: { delayMs: 0 } } }, { env: {}, cwd: ROOT });
    const { events } = await runAll(findAgent(config, 'demo')!, request('tool Oslo'));
    const [call] = of(events, 'tool-input-end');
    assert.deepEqual([call.toolName, call.input], ['get_weather', { city: 'Oslo', unit: 'celsius' }]);
    assert.match(textOf(events), /in Oslo\.$/);
    assert.equal((events[0] as EventOf<'run-start'>).agent, 'demo');
  });

  test('demo: abort mid-run ends with run-abort', async () => {
    const config = resolveConfig({}, { env: {}, cwd: ROOT });
    const controller = new AbortController();
    const run = runAgent(findAgent(config, 'demo')!, request('hello', { signal: controller.signal }), { now, logger: logger() });
    const events: CanonicalEvent[] = [];
    for await (const e of run) {
      events.push(e);
      if (e.type === 'todos') controller.abort();
    }
    assertValid(events);
    assert.equal(events.at(-1)!.type, 'run-abort');
  });

  const replayConfig = resolveConfig({ builtins: { replay: { dir: FIXTURES, speed: 0 } } }, { env: {}, cwd: ROOT });
  const replay = findAgent(replayConfig, 'replay')!;

  test('replay: a capture by name is the same run as decoding it', async () => {
    const { events } = await runAll(replay, request('anthropic/thinking-text-tool-use.sse'));
    const expected = await collect(
      decode([readFileSync(join(FIXTURES, 'anthropic/thinking-text-tool-use.sse'))], 'auto', {
        runId: 'run-1',
        chatId: 'chat-1',
        agent: 'replay',
        now,
      }),
    );
    assert.deepEqual(events, expected);
  });

  test('replay: pacing follows the timestamps of a canonical capture, divided by speed', async () => {
    const { replayCapture } = await import('../src/agents/replay.ts');
    const stored = [
      { type: 'run-start', runId: 'old', seq: 0, ts: 1000, version: 1, messageId: 'm' },
      { type: 'text-start', runId: 'old', seq: 1, ts: 1000, blockId: 'b' },
      { type: 'text-delta', runId: 'old', seq: 2, ts: 1400, blockId: 'b', delta: 'hi' },
      { type: 'text-end', runId: 'old', seq: 3, ts: 9000, blockId: 'b' },
      { type: 'run-finish', runId: 'old', seq: 4, ts: 9100, finishReason: 'stop' },
    ];
    const pauses: number[] = [];
    const sleep = async (ms: number) => void pauses.push(ms);
    const text = stored.map((e) => JSON.stringify(e)).join('\n');
    const events = await collect(replayCapture([text], { speed: 2, sleep, runId: 'new', now, maxGapMs: 5000 }));
    assert.deepEqual(pauses, [200, 2500, 50]);
    assertValid(events);
    assert.deepEqual(
      events.map((e) => [e.type, e.runId, e.seq]),
      stored.map((e, i) => [e.type, 'new', i]),
    );
    // No timestamps (a provider stream): a fixed interval between values.
    const sse = readFileSync(join(FIXTURES, 'openai-chat/text-usage.sse'));
    pauses.length = 0;
    await collect(replayCapture([sse], { intervalMs: 20, speed: 4, sleep }));
    assert.ok(pauses.length > 2 && pauses.every((p) => p === 5));
  });

  test('replay: no name, an unknown one or one outside its directory gets the list of captures', async () => {
    for (const prompt of ['', 'list', 'nope.sse', '../../etc/passwd', '/etc/passwd', 'anthropic/text-basic.sse speed=fast']) {
      const { events } = await runAll(replay, request(prompt));
      const text = textOf(events);
      assert.match(text, /- anthropic\/text-basic\.sse/, prompt);
      assert.ok(!text.includes('root:'), prompt);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// SDK agents against a loopback replay server
// ---------------------------------------------------------------------------------------------

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

interface Loopback {
  url: string;
  requests: Received[];
  /** What the next request gets. */
  respond: (req: Received, res: ServerResponse) => void;
  closed: Promise<void>[];
}

/** Sends a recorded body in small pieces, like a network would. */
function replayBody(res: ServerResponse, body: Buffer, contentType = 'text/event-stream'): void {
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  for (let i = 0; i < body.length; i += 7) res.write(body.subarray(i, i + 7));
  res.end();
}

describe('SDK agents (loopback server on 127.0.0.1)', () => {
  let server: Server;
  const loop: Loopback = { url: '', requests: [], respond: () => {}, closed: [] };

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      loop.closed.push(new Promise((r) => res.on('close', () => r())));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: Received = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'),
        };
        loop.requests.push(received);
        loop.respond(received, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    loop.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const conversation: RunRequest = {
    runId: 'run-sdk',
    chatId: 'chat-sdk',
    messages: [
      { id: 's', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hello' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'hidden' },
          { type: 'text', text: 'Hi! How can I help?' },
        ],
      },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'What is the weather in Paris?' }] },
    ],
  };

  async function sdkRun(name: string, env: Record<string, string>, fixture: string, framework: Parameters<typeof decode>[1]) {
    const body = readFileSync(fixture);
    loop.requests.length = 0;
    loop.respond = (_req, res) => replayBody(res, body);
    const config = resolveConfig({}, { env, cwd: ROOT });
    const def = findAgent(config, name)!;
    assert.equal(def.enabled, true, def.disabledReason);
    const { events } = await runAll(def, conversation, { env });
    const expected = await collect(
      decode([body], framework, { runId: 'run-sdk', chatId: 'chat-sdk', agent: name, now, inputFormat: 'sse' }),
    );
    assert.equal(loop.requests.length, 1);
    return { events, expected, received: loop.requests[0] };
  }

  test('anthropic: POST /v1/messages with the conversation; the run is the decoded capture', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: loop.url, ANTHROPIC_MODEL: 'claude-test' };
    const { events, expected, received } = await sdkRun(
      'anthropic',
      env,
      join(FIXTURES, 'anthropic/thinking-text-tool-use.sse'),
      'anthropic',
    );
    assert.deepEqual(events, expected);
    assert.equal(received.method, 'POST');
    assert.equal(received.url, '/v1/messages');
    assert.equal(received.headers['x-api-key'], 'sk-ant-test');
    assert.equal(received.headers['anthropic-version'], '2023-06-01');
    assert.equal(received.body.model, 'claude-test');
    assert.equal(received.body.stream, true);
    assert.equal(received.body.system, 'Be brief.');
    assert.deepEqual(received.body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi! How can I help?' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
    ]);
    assert.deepEqual(
      reasoningOf(events).map((r) => r.variant),
      ['thinking'],
    );
    assert.equal(of(events, 'tool-input-end').length, 1);
    assert.equal((events.at(-1) as EventOf<'run-finish'>).finishReason, 'tool-calls');
  });

  test('openai: POST /chat/completions with the conversation; the run is the decoded capture', async () => {
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${loop.url}/v1` };
    const { events, expected, received } = await sdkRun('openai', env, join(FIXTURES, 'openai-chat/tool-calls.sse'), 'openai-chat');
    assert.deepEqual(events, expected);
    assert.equal(received.url, '/v1/chat/completions');
    assert.equal(received.headers.authorization, 'Bearer sk-test');
    assert.deepEqual(received.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    assert.deepEqual(received.body.stream_options, { include_usage: true });
    assert.ok(of(events, 'tool-input-end').length >= 1);
  });

  test('gemini: POST models/<model>:streamGenerateContent?alt=sse; the run is the decoded capture', async () => {
    const env = { GOOGLE_API_KEY: 'g-test', GEMINI_BASE_URL: loop.url };
    const fixture = join(FIXTURES, 'recorded/gemini/streaming-success-thinking-reply-thought-summary.txt');
    const { events, expected, received } = await sdkRun('gemini', env, fixture, 'gemini');
    assert.deepEqual(events, expected);
    assert.equal(received.url, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    assert.equal(received.headers['x-goog-api-key'], 'g-test');
    assert.deepEqual(received.body.contents, [
      { role: 'user', parts: [{ text: 'Hello' }] },
      { role: 'model', parts: [{ text: 'Hi! How can I help?' }] },
      { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
    ]);
    assert.deepEqual(received.body.systemInstruction, { parts: [{ text: 'Be brief.' }] });
    assert.deepEqual(
      reasoningOf(events).map((r) => r.variant),
      ['thinking'],
    );
    assert.ok(textOf(events).length > 0);
  });

  test('an HTTP error from the provider: a fatal provider_error with its message', async () => {
    loop.respond = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    };
    const env = { ANTHROPIC_API_KEY: 'wrong', ANTHROPIC_BASE_URL: loop.url };
    const def = findAgent(resolveConfig({}, { env, cwd: ROOT }), 'anthropic')!;
    const { events } = await runAll(def, conversation, { env });
    assert.deepEqual(
      events.map((e) => e.type),
      ['run-start', 'error', 'run-finish'],
    );
    assert.deepEqual(
      [errorsOf(events)[0].code, errorsOf(events)[0].message],
      ['provider_error', 'anthropic answered HTTP 401: invalid x-api-key'],
    );
  });

  test('abort mid-stream closes the provider connection and ends with run-abort', async () => {
    const body = readFileSync(join(FIXTURES, 'anthropic/text-basic.sse'));
    const cut = body.indexOf('content_block_delta') + 200;
    loop.closed.length = 0;
    loop.respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(body.subarray(0, cut)); // then nothing more: a stalled provider
    };
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: loop.url };
    const def = findAgent(resolveConfig({}, { env, cwd: ROOT }), 'anthropic')!;
    const controller = new AbortController();
    const run = runAgent(def, { ...conversation, signal: controller.signal }, { env, now, logger: logger() });
    const events: CanonicalEvent[] = [];
    for await (const e of run) {
      events.push(e);
      if (e.type === 'text-delta') controller.abort();
    }
    assertValid(events);
    assert.deepEqual(events.map((e) => e.type).slice(-2), ['text-end', 'run-abort']);
    assert.ok(textOf(events).length > 0);
    await loop.closed[0];
  });

  test('langchain: a LangChain chat model over the OpenAI stream, decoded from streamEvents v2', async () => {
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${loop.url}/v1` };
    const body = readFileSync(join(FIXTURES, 'openai-chat/tool-calls.sse'));
    loop.requests.length = 0;
    loop.respond = (_req, res) => replayBody(res, body);
    const def = findAgent(resolveConfig({}, { env, cwd: ROOT }), 'langchain')!;
    assert.equal(def.enabled, true, def.disabledReason);
    const { events } = await runAll(def, conversation, { env });
    const direct = await collect(decode([body], 'openai-chat', { now }));
    const calls = (list: CanonicalEvent[]) => of(list, 'tool-input-end').map((e) => [e.toolCallId, e.toolName, e.input]);
    assert.deepEqual(calls(events), calls(direct));
    assert.equal((events[0] as EventOf<'run-start'>).provider, 'langchain');
    assert.deepEqual(loop.requests[0].body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: 'What is the weather in Paris?' },
    ]);
    assert.equal((events.at(-1) as EventOf<'run-finish'>).type, 'run-finish');
  });
});

describe('continuation runs', () => {
  test('the prelude follows run-start (seq 1 on), tools and resume reach the agent on stdin', async () => {
    const echo = nodeAgent(
      'stdin-echo',
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
        const { tools, resume } = JSON.parse(s);
        process.stdout.write(JSON.stringify({ type: 'text', data: { content: JSON.stringify({ tools, resume }) } }) + '\\n');
        process.stdout.write(JSON.stringify({ type: 'done', data: {} }) + '\\n');
      });`,
    );
    const tools = [{ name: 'get_location', description: 'Where the user is' }];
    const resume = [{ interruptId: 'int_1', status: 'resolved' as const, payload: { answer: 42 } }];
    const answer = { type: 'tool-approval-response' as const, approvalId: 'approval_1', toolCallId: 'call_1', approved: true, by: 'alice' };
    const { events } = await runAll(echo, request('go', { tools, resume, prelude: [answer] }));
    assert.equal(events[0].type, 'run-start');
    assert.deepEqual({ ...events[1], ts: 0 }, { ...answer, runId: 'run-1', seq: 1, ts: 0 });
    assert.deepEqual(JSON.parse(textOf(events)), { tools, resume });

    // Without them, the stdin document is as before: no tools, no resume keys.
    const plain = await runAll(echo, request('go'));
    assert.deepEqual(JSON.parse(textOf(plain.events)), {});
    assert.equal(plain.events[1].type, 'step-start');
  });
});
