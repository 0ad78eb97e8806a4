/**
 * The `switchboard` CLI, run as users run it: the real launcher (node_modules/.bin/switchboard) in a
 * child process. Every Anthropic capture is converted to the AI SDK stream and checked with the
 * OFFICIAL client (schema + `readUIMessageStream`) and against the official server path.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { validateAiSdkChunks } from '@switchboard/core/schema';
import {
  anthropicInputToSse,
  assembleUIMessage,
  type MessageSummary,
  officialAnthropicResult,
  parseAiSdkSse,
  summarizeMessage,
} from '../../../test/support/ai-sdk-oracle.ts';
import { createErrorTally } from '../src/cli/error-tally.ts';
import { readEntries } from '../src/cli/frames.ts';
import { check } from '../src/cli/validate.ts';

/** Reasoning durations are measured on each process's own clock: equal outputs are equal up to them. */
function clockless(sse: string): string {
  return sse.replace(/"durationMs":\d+/g, '"durationMs":0');
}

const ROOT = resolve(import.meta.dirname, '../../..');
const LAUNCHER = join(ROOT, 'node_modules/.bin/switchboard');
const DEV_DIR = new URL('../../../test/fixtures/anthropic', import.meta.url).pathname;
const RECORDED_DIR = new URL('../../../test/fixtures/recorded/anthropic', import.meta.url).pathname;
const CONCURRENCY = Math.min(8, availableParallelism() + 1);

const CAPTURES = [
  ...readdirSync(DEV_DIR)
    .filter((f) => f.endsWith('.sse') && !f.endsWith('.aisdk-ref.sse'))
    .map((f) => join(DEV_DIR, f)),
  ...readdirSync(RECORDED_DIR).map((f) => join(RECORDED_DIR, f)),
].sort();

/**
 * Files on which the OFFICIAL path is itself broken, so only what both sides have is compared
 * (our output still has to pass the official schema and assembly):
 * - spliced-message-start: a second message_start while the first is open makes @ai-sdk/anthropic
 *   emit an error chunk and drop the rest of the stream; ours keeps going.
 * - tool_use_response.txt has no blank line after its last event, so the official SSE parser drops
 *   message_stop (core's framing keeps an unterminated last event).
 */
const OFFICIAL_BROKEN = new Set(['spliced-message-start.chunks.txt', 'tool_use_response.txt']);

/**
 * Differences between our output and the official path that are bugs on our side (decoder or
 * encoder), tracked here so the suite stays green; each is listed in the CLI report.
 */
/**
 * Captures where our message legitimately differs from the official one (none today). A tool call cut
 * off by max_tokens (incomplete_partial_json_response.txt) keeps the members that arrived whole on both
 * sides; ours marks it as an input error where the official one leaves it streaming forever, which the
 * comparison (id, name, input) does not look at.
 */
const KNOWN_DIFFERENCES: ReadonlyMap<string, string> = new Map();

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the launcher (with Node 24 unless `node` says otherwise), feeding `stdin` when given. */
function cli(args: string[], options: { stdin?: string; node?: string; nodeArgs?: string[] } = {}): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(options.node ?? process.execPath, [...(options.nodeArgs ?? []), LAUNCHER, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', fail);
    child.on('close', (code, signal) =>
      done({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => {}); // a command that exits early closes its stdin
    child.stdin.end(options.stdin);
  });
}

/** The in-process half of `validate`: the same reader and checks, without a process per file. */
async function validateText(text: string, protocol: 'ai-sdk' | 'canonical' | 'ag-ui'): Promise<string[]> {
  const entries = await readEntries([new TextEncoder().encode(text)]);
  return (await check(entries, protocol)).map((i) => `event ${i.index} ${i.path}: ${i.message}`);
}

const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);

interface ToolSplit {
  /** Client tools: compared in full. */
  client: { toolCallId: string; toolName: string; input: unknown }[];
  /** Provider-executed tools: compared by id only (see below). */
  server: string[];
}

/**
 * The official path renames code-execution server tools (bash_code_execution /
 * text_editor_code_execution → code_execution) and injects a `type` into their input, so for
 * provider-executed tools only the set of toolCallIds is compared (a documented difference).
 */
function splitTools(summary: MessageSummary): ToolSplit {
  const client = summary.tools
    .filter((t) => t.providerExecuted !== true)
    .map((t) => ({ toolCallId: t.toolCallId, toolName: t.toolName, input: t.input }));
  const server = summary.tools.filter((t) => t.providerExecuted === true).map((t) => t.toolCallId);
  return { client, server: [...new Set(server)].sort() };
}

describe('convert --from anthropic --to ai-sdk: every Anthropic capture', { concurrency: CONCURRENCY }, () => {
  for (const file of CAPTURES) {
    const name = base(file);
    test(name, async (t) => {
      const text = readFileSync(file, 'utf8');
      const [run, official] = await Promise.all([
        cli(['convert', '--from', 'anthropic', '--to', 'ai-sdk', file]),
        officialAnthropicResult(anthropicInputToSse(text)),
      ]);
      // Our schema accepts whatever the official server sends.
      assert.deepEqual(validateAiSdkChunks(JSON.parse(JSON.stringify(official.chunks))).issues, [], 'official chunks');
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.stdout.endsWith('data: [DONE]\n\n'), 'ends with data: [DONE]');

      // The official client: schema of every chunk, then assembly (throws on a broken sequence).
      await parseAiSdkSse(run.stdout);
      const ours = summarizeMessage(await assembleUIMessage(run.stdout));
      // Our own validator agrees.
      assert.deepEqual(await validateText(run.stdout, 'ai-sdk'), []);

      const theirs = summarizeMessage(official.message);
      await t.test('same message as the official path', { todo: KNOWN_DIFFERENCES.get(name) }, () => {
        const a = splitTools(ours);
        const b = splitTools(theirs);
        if (!OFFICIAL_BROKEN.has(name)) {
          assert.equal(ours.text, theirs.text, 'text');
          assert.deepEqual(ours.reasoning, theirs.reasoning, 'reasoning');
          assert.deepEqual(a.client, b.client, 'client tools');
          assert.deepEqual(a.server, b.server, 'provider-executed tool ids');
          return;
        }
        // The official side stopped early: it must be a prefix of ours.
        assert.ok(ours.text.startsWith(theirs.text), 'official text is a prefix of ours');
        assert.ok(theirs.reasoning.length <= ours.reasoning.length, 'reasoning parts');
        for (const [i, r] of theirs.reasoning.entries()) assert.ok(ours.reasoning[i].startsWith(r), `reasoning ${i}`);
        // A call the official side was still streaming when it stopped has no final input to compare.
        const complete = new Set(theirs.tools.filter((t) => t.state !== 'input-streaming').map((t) => t.toolCallId));
        for (const c of b.client.filter((c) => complete.has(c.toolCallId))) {
          assert.deepEqual(
            a.client.find((x) => x.toolCallId === c.toolCallId),
            c,
            `client tool ${c.toolCallId}`,
          );
        }
        for (const id of theirs.tools.map((t) => t.toolCallId))
          assert.ok(
            ours.tools.some((t) => t.toolCallId === id),
            `tool ${id}`,
          );
        for (const id of b.server) assert.ok(a.server.includes(id), `provider-executed tool ${id}`);
      });
    });
  }
});

/**
 * A spread of captures for the canonical output (core's own tests validate the canonical decoding
 * of every capture in-process; here it is the CLI path): multi-message, truncated, spliced,
 * unterminated, redacted thinking, citations, server tools, raw SSE in a .chunks.txt.
 */
const CANONICAL_SAMPLE = [
  join(DEV_DIR, 'text-basic.sse'),
  join(DEV_DIR, 'thinking-text-tool-use.sse'),
  join(DEV_DIR, 'error-overloaded.sse'),
  ...[
    'anthropic-programmatic-tool-calling.1.chunks.txt',
    'incomplete_partial_json_response.txt',
    'spliced-message-start.chunks.txt',
    'tool_use_response.txt',
    'test_anthropic_model_thinking_part_redacted_stream.i0.sse.txt',
    'anthropic-web-search-citation-replay.1.chunks.txt',
    'anthropic-code-execution-20250825.2.chunks.txt',
    'issue-13057-approved-tool.1.chunks.txt',
  ].map((f) => join(RECORDED_DIR, f)),
];

describe('convert --to canonical passes validate --protocol canonical', { concurrency: CONCURRENCY }, () => {
  for (const file of CANONICAL_SAMPLE) {
    test(base(file), async () => {
      const run = await cli(['convert', '--from', 'auto', '--to', 'canonical', '--run-id', 'r', file]);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(await validateText(run.stdout, 'canonical'), []);
      for (const line of run.stdout.trimEnd().split('\n')) assert.equal(JSON.parse(line).runId, 'r');
    });
  }
});

/** The chunk types our schema knows, in its order (as the unknown-type message lists them). */
const AI_SDK_TYPES = (() => {
  const result = validateAiSdkChunks([{ type: '?' }]);
  return /expected one of: (.*), data-<name>$/.exec(result.issues[0].message)?.[1];
})();

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

describe('validate, as a process', { concurrency: CONCURRENCY }, () => {
  const file = join(DEV_DIR, 'thinking-text-tool-use.sse');

  test('ai-sdk output from stdin (-) → ok, exit 0', async () => {
    const converted = await cli(['convert', '--from', 'anthropic', '--to', 'ai-sdk', file]);
    const run = await cli(['validate', '--protocol', 'ai-sdk', '-'], { stdin: converted.stdout });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^ok \(\d+ events\)\n$/);
  });

  test('an empty input and one of blank lines: a verdict and exit 1, no stack trace, for every protocol', async () => {
    for (const stdin of ['', '\n\n  \r\n\n'])
      for (const protocol of ['ai-sdk', 'ag-ui', 'canonical', 'ws', 'dsagent']) {
        const run = await cli(['validate', '--protocol', protocol, '-'], { stdin });
        assert.equal(run.code, 1, `${protocol} ${JSON.stringify(stdin)}: ${run.stdout}${run.stderr}`);
        assert.match(run.stdout, /^invalid: the input holds no events/);
        assert.equal(run.stderr, '');
      }
  });

  test('binary input, prose, and a stream cut before its first event: a verdict and exit 1, no stack trace, for every protocol', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const inputs: [string, Uint8Array | string, RegExp][] = [
      ['binary', Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256), /^invalid: the input is binary/],
      ['prose', 'Hello, this is not a stream.\nNor is this.\n', /^invalid: nothing in the input reads as an event/],
      ['cut', 'data: {"type":"sta', /^event 0 \(SSE event 1\).*Unterminated string/],
    ];
    for (const [name, bytes, verdict] of inputs) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      for (const protocol of ['ai-sdk', 'ag-ui', 'canonical', 'ws', 'dsagent']) {
        const run = await cli(['validate', '--protocol', protocol, file]);
        assert.equal(run.code, 1, `${protocol} ${name}: ${run.stdout}${run.stderr}`);
        assert.match(run.stdout, verdict, `${protocol} ${name}`);
        assert.equal(run.stderr, '');
      }
    }
  });

  test('canonical JSON lines and canonical SSE from a file → ok', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    for (const format of ['jsonl', 'sse']) {
      const out = join(dir, `out.${format}`);
      const converted = await cli(['convert', '--to', 'canonical', '--format', format, '-o', out, file]);
      assert.equal(converted.code, 0, converted.stderr);
      assert.equal(converted.stdout, '');
      if (format === 'sse') assert.match(readFileSync(out, 'utf8'), /^id: 0\ndata: \{"type":"run-start"/);
      const run = await cli(['validate', '-p', 'canonical', out]);
      assert.equal(run.code, 0, run.stdout);
      assert.match(run.stdout, /^ok \(22 events\)\n$/);
    }
  });

  test('the official reference renderings pass', async () => {
    for (const name of ['text-basic', 'thinking-text-tool-use', 'error-overloaded']) {
      const run = await cli(['validate', '--protocol', 'ai-sdk', join(DEV_DIR, `${name}.aisdk-ref.sse`)]);
      assert.equal(run.code, 0, `${name}: ${run.stdout}`);
    }
  });

  test('a hand-broken AI SDK stream: located issues, exit 1', async () => {
    const body = [
      'data: {"type":"start","messageId":"m"}',
      'data: {"type":"text-delta","id":"t1","delta":"hi"}',
      'data: {"type":"bogus-chunk"}',
      'data: {not json',
      'data: {"type":"tool-output-available","toolCallId":"nope","output":1}',
      'data: {"type":"finish"}',
      'data: {"type":"text-start","id":"late"}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const run = await cli(['validate', '--protocol', 'ai-sdk'], { stdin: body });
    assert.equal(run.code, 1);
    assert.deepEqual(run.stdout.trimEnd().split('\n'), [
      'event 1 (SSE event 2) id: expected an open text part "t1" (no text-start before this text-delta)',
      `event 2 (SSE event 3) type: unknown chunk type "bogus-chunk"; expected one of: ${AI_SDK_TYPES}, data-<name>`,
      `event 3 (SSE event 4): expected a JSON value, got "{not json" (${jsonError('{not json')})`,
      'event 4 (SSE event 5) toolCallId: expected a known tool call "nope" (no tool-input-* for it before this tool-output-available)',
      'event 6 (SSE event 7) type: expected nothing but [DONE] after "finish"',
    ]);
  });

  test('[DONE] before the end, and an unterminated last event', async () => {
    const body = 'data: {"type":"start"}\n\ndata: [DONE]\n\ndata: {"type":"finish"}';
    const run = await cli(['validate', '--protocol', 'ai-sdk'], { stdin: body });
    assert.equal(run.code, 1);
    assert.deepEqual(run.stdout.trimEnd().split('\n'), [
      'event 1 (SSE event 2): expected [DONE] only as the last event',
      'event 2 (SSE event 3): the last SSE event has no closing blank line; the AI SDK client drops it',
      'event 2 (SSE event 3): the stream ends without [DONE]',
    ]);
  });

  test('canonical JSON lines: schema and sequence issues located by line', async () => {
    const lines = [
      '{"type":"run-start","version":1,"messageId":"m","runId":"r","seq":0,"ts":1}',
      '',
      '{"type":"text-delta","blockId":"b","delta":"x","runId":"r","seq":1,"ts":1}',
      'not json',
      '{"type":"text-start","runId":"r","seq":2,"ts":1}',
    ].join('\n');
    const run = await cli(['validate', '--protocol', 'canonical', '-'], { stdin: lines });
    assert.equal(run.code, 1);
    assert.deepEqual(run.stdout.trimEnd().split('\n'), [
      'event 1 (line 3) blockId: expected an open block "b" (no text-start before it)',
      `event 2 (line 4): expected a JSON value, got "not json" (${jsonError('not json')})`,
      'event 3 (line 5) blockId: Invalid input: expected string, received undefined',
      'event 3 (line 5) type: the stream ends without run-finish or run-abort (truncated)',
    ]);
  });

  test('truncated streams are invalid: AI SDK cut before finish, canonical without run-finish', async () => {
    const ai = [
      'data: {"type":"start"}',
      'data: {"type":"tool-input-start","toolCallId":"t1","toolName":"x"}',
      'data: {"type":"tool-input-delta","toolCallId":"t1","inputTextDelta":"{\\"a\\":"}',
      '',
    ].join('\n\n');
    const run = await cli(['validate', '--protocol', 'ai-sdk'], { stdin: ai });
    assert.equal(run.code, 1);
    assert.deepEqual(run.stdout.trimEnd().split('\n'), [
      'event 2 (SSE event 3) toolCallId: tool input "t1" is still streaming at the end (no tool-input-available)',
      'event 2 (SSE event 3) type: the stream ends without "finish" or "abort" (truncated)',
      'event 2 (SSE event 3): the stream ends without [DONE]',
    ]);
    const canonical = [
      '{"type":"run-start","version":1,"messageId":"m","runId":"r","seq":0,"ts":1}',
      '{"type":"text-start","blockId":"b","runId":"r","seq":1,"ts":1}',
    ].join('\n');
    const cut = await cli(['validate', '--protocol', 'canonical'], { stdin: canonical });
    assert.equal(cut.code, 1);
    assert.deepEqual(cut.stdout.trimEnd().split('\n'), [
      'event 1 (line 2) type: the stream ends without run-finish or run-abort (truncated)',
    ]);
  });

  test('validate --protocol ai-sdk: a __proto__ key the official client rejects is an issue', async () => {
    const body =
      'data: {"type":"start"}\n\ndata: {"type":"data-x","data":{"__proto__":{"a":1}}}\n\ndata: {"type":"finish"}\n\ndata: [DONE]\n\n';
    const run = await cli(['validate', '--protocol', 'ai-sdk'], { stdin: body });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "event 1 (SSE event 2) data.__proto__: a key the AI SDK client's secure JSON parse rejects\n");
  });

  test('validate --protocol ag-ui: official schemas and verifier rules, truncation', async () => {
    const line = (e: object) => `data: ${JSON.stringify(e)}\n\n`;
    const start = { type: 'RUN_STARTED', threadId: 't', runId: 'r' };
    const good = [
      start,
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'hi' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
    ];
    const ok = await cli(['validate', '--protocol', 'ag-ui'], { stdin: good.map(line).join('') });
    assert.equal(ok.stdout, 'ok (5 events)\n');
    assert.equal(ok.code, 0);
    // Content for a message that was never started breaks the verifier's rules.
    const broken = await cli(['validate', '--protocol', 'ag-ui'], {
      stdin: [start, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'x', delta: 'hi' }].map(line).join(''),
    });
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /^event 1 \(SSE event 2\) type: @ag-ui\/client verifier: /);
    const schema = await cli(['validate', '--protocol', 'ag-ui'], { stdin: line({ type: 'RUN_STARTED' }) });
    assert.equal(schema.code, 1);
    assert.match(schema.stdout, /^event 0 \(SSE event 1\) threadId: /);
    const cut = await cli(['validate', '--protocol', 'ag-ui'], { stdin: good.slice(0, 3).map(line).join('') });
    assert.equal(cut.code, 1);
    assert.match(cut.stdout, /the stream ends without RUN_FINISHED or RUN_ERROR \(truncated\)/);
  });
});

describe('convert, as a process', { concurrency: CONCURRENCY }, () => {
  const file = join(DEV_DIR, 'thinking-text-tool-use.sse');

  test('reads stdin with - and without a file, same output as from the file', async () => {
    const fromFile = await cli(['convert', '--from', 'anthropic', '--to', 'ai-sdk', file]);
    const dash = await cli(['convert', '--from', 'anthropic', '--to', 'ai-sdk', '-'], { stdin: readFileSync(file, 'utf8') });
    const none = await cli(['convert', '--from', 'anthropic'], { stdin: readFileSync(file, 'utf8') });
    assert.equal(fromFile.code, 0);
    assert.equal(dash.code, 0, dash.stderr);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(clockless(dash.stdout), clockless(fromFile.stdout));
    assert.equal(clockless(none.stdout), clockless(fromFile.stdout));
  });

  test('a --from under which nothing is understood says so and names the framework auto-detection finds', async () => {
    const wrong = await cli(['convert', '--from', 'openai-chat', file]);
    assert.equal(wrong.code, 0, wrong.stderr);
    assert.match(wrong.stderr, /nothing of the input was understood as "openai-chat"/);
    assert.match(wrong.stderr, /auto-detection recognises it as "anthropic"/);
    const right = await cli(['convert', '--from', 'anthropic', file]);
    assert.equal(right.stderr, '');
    const auto = await cli(['convert', file]);
    assert.equal(auto.stderr, '');
  });

  test('JSON lines input (one event per line) gives the same ai-sdk stream as its SSE body', async () => {
    const jsonl = join(RECORDED_DIR, 'anthropic-text.chunks.txt');
    const sse = anthropicInputToSse(readFileSync(jsonl, 'utf8'));
    const [a, b] = await Promise.all([cli(['convert', jsonl]), cli(['convert', '-'], { stdin: sse })]);
    assert.equal(a.code, 0);
    assert.equal(clockless(a.stdout), clockless(b.stdout));
  });

  test('--namespace and --message-id reach the output', async () => {
    const run = await cli(['convert', '--namespace', 'mobox', '--message-id', 'msg_x', file]);
    assert.equal(run.code, 0, run.stderr);
    const chunks = await parseAiSdkSse(run.stdout);
    assert.deepEqual(chunks[0], { type: 'start', messageId: 'msg_x' });
    const start = chunks.find((c) => c.type === 'reasoning-start');
    assert.deepEqual(start?.providerMetadata?.mobox, { variant: 'thinking' });
  });

  test('--continues: run-start says the run continues the message --message-id names', async () => {
    const run = await cli(['convert', '--to', 'canonical', '--message-id', 'msg_x', '--continues', file]);
    assert.equal(run.code, 0, run.stderr);
    const start = JSON.parse(run.stdout.split('\n')[0] ?? '{}');
    assert.deepEqual([start.type, start.messageId, start.continues], ['run-start', 'msg_x', true]);
  });

  test('error events: everything written, exit 0, one-line summary on stderr', async () => {
    const run = await cli(['convert', '--to', 'ai-sdk', join(DEV_DIR, 'error-overloaded.sse')]);
    assert.equal(run.code, 0);
    assert.ok(run.stdout.includes('data: {"type":"error","errorText":"Overloaded"}'));
    assert.ok(run.stdout.endsWith('data: [DONE]\n\n'));
    assert.equal(run.stderr, 'switchboard convert: 1 error in the input: Overloaded\n');

    const canonical = await cli(['convert', '--to', 'canonical', join(DEV_DIR, 'error-overloaded.sse')]);
    assert.equal(canonical.code, 0);
    assert.equal(canonical.stderr, 'switchboard convert: 1 error in the input: SSE event 5 (error): Overloaded\n');

    const bad = await cli(['convert', '--from', 'anthropic', '--to', 'canonical'], {
      stdin: '{"type":"message_start","message":{"id":"m"}}\n{oops\n',
    });
    assert.equal(bad.code, 0);
    assert.match(bad.stderr, /^switchboard convert: 2 errors in the input: line 2: expected a JSON value, got "\{oops"[^\n]*; [^\n]+\n$/);
  });

  test("the error tally reads every frame of a chunk's text, and only top-level error frames", () => {
    const tally = createErrorTally();
    tally.scan(
      [
        'data: {"type":"text-delta","id":"t","delta":"{\\"type\\":\\"error\\"}"}\n\n',
        'data: {"type":"error","errorText":"first"}\n\n',
        'id: 4\ndata: {"type":"raw","event":{"type":"error","message":"nested"}}\n\n',
        'data: {"type":"error","errorText":"second"}\n\n',
      ].join(''),
    );
    tally.scan('{"type":"error","message":"a JSON line"}\n');
    assert.equal(tally.count, 3);
    assert.equal(tally.summary(), '3 errors in the input: first; second; a JSON line');
  });

  test('hostile input: a __proto__ key in an openai-chat chunk keeps the text before it, exit 0', async () => {
    const stdin = [
      '{"id":"a","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}',
      '{"id":"a","object":"chat.completion.chunk","choices":[],"__proto__":""}',
      '',
    ].join('\n');
    const run = await cli(['convert', '--from', 'openai-chat'], { stdin });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /data: \{"type":"text-delta","id":"a:0","delta":"hi"\}/);
    assert.match(run.stdout, /"type":"data-error","data":\{"message":"line 2: unsafe for JSON clients: __proto__ removed;/);
    assert.match(run.stdout, /data: \[DONE\]\n\n$/);
  });

  test('a claude tool_use whose input holds __proto__: the tool input reaches the client without it', async () => {
    const stdin = '{"type":"tool_use","data":{"id":"t1","name":"x","input":{"__proto__":"x","a":1}}}\n{"type":"done","data":{}}\n';
    const run = await cli(['convert', '--from', 'claude'], { stdin });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /"type":"tool-input-available","toolCallId":"t1","toolName":"x","input":\{"a":1\}/);
    assert.doesNotMatch(run.stdout, /"__proto__":/);
  });

  test('--from claude with a first line that is not JSON: a located error for that line, the rest converted', async () => {
    const stdin = 'starting agent…\n{"type":"text","data":{"text":"after"}}\n{"type":"done","data":{}}\n';
    const run = await cli(['convert', '--from', 'claude', '--verbose'], { stdin });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /"message":"line 1: expected a JSON value, got \\"starting agent…\\"/);
    assert.match(run.stdout, /"delta":"after"/);
    assert.match(run.stderr, /input read as JSON lines \(recognised from its first line\)/);
  });

  test('--input-format forces the framing', async () => {
    // An SSE body read as JSON lines: each line is a located error, nothing is silently dropped.
    const sse = 'data: {"type":"text","data":{"text":"x"}}\n\n';
    const forced = await cli(['convert', '--from', 'claude', '--input-format', 'jsonl', '--verbose'], { stdin: sse });
    assert.equal(forced.code, 0);
    assert.match(forced.stdout, /"message":"line 1: expected a JSON value, got \\"data: /);
    assert.match(forced.stderr, /input read as JSON lines \(--input-format\)/);
    const sseRun = await cli(['convert', '--from', 'claude', '--input-format', 'sse'], { stdin: sse });
    assert.match(sseRun.stdout, /"delta":"x"/);
  });

  test('a line nested 6,000 deep: a located too_deep error, the lines after it converted', async () => {
    const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    const stdin = `{"type":"text","data":{"text":"before "}}\n${deep}\n{"type":"text","data":{"text":"after"}}\n{"type":"done","data":{}}\n`;
    const run = await cli(['convert', '--from', 'claude', '--to', 'canonical'], { stdin });
    assert.equal(run.code, 0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      events.filter((e) => e.type === 'text-delta').map((e) => e.delta),
      ['before ', 'after'],
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'error').map((e) => [e.code, e.fatal, e.where?.line]),
      [['too_deep', false, 2]],
    );
  });

  test('a missing input file: exit 1, a clear message, nothing on stdout', async () => {
    const run = await cli(['convert', '/nonexistent/capture.sse']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'switchboard convert: cannot open input file "/nonexistent/capture.sse": no such file or directory\n');
    const validate = await cli(['validate', '-p', 'ai-sdk', '/nonexistent/out.sse']);
    assert.equal(validate.code, 1);
    assert.match(validate.stderr, /cannot open input file "\/nonexistent\/out.sse": no such file or directory/);
  });
});

describe('command line', { concurrency: CONCURRENCY }, () => {
  test('--help and -h everywhere: usage on stdout, exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['convert', '--help'], ['validate', '-h'], ['help', 'convert'], ['convert', '--bogus', '-h']]) {
      const run = await cli(args);
      assert.equal(run.code, 0, args.join(' '));
      assert.match(run.stdout, /^Usage: switchboard /, args.join(' '));
      assert.equal(run.stderr, '');
    }
  });

  test('--version', async () => {
    const run = await cli(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `${JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')).version}\n`);
  });

  test('unknown command, flag or value, missing --protocol, extra argument: message + usage on stderr, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /^switchboard: unknown command "frobnicate"\n\nUsage: switchboard <command>/],
      [['--bogus'], /^switchboard: unknown option "--bogus"\n\nUsage: switchboard <command>/],
      [[], /^switchboard: missing command\n/],
      [['convert', '--bogus'], /^switchboard convert: Unknown option '--bogus'\.\n\nUsage: switchboard convert/],
      [
        ['convert', '--to', 'html'],
        /^switchboard convert: invalid --to "html"; expected one of: ai-sdk, ag-ui, ws, dsagent, canonical\n\nUsage:/,
      ],
      [['convert', 'a', 'b'], /^switchboard convert: unexpected argument "b"\n/],
      [['validate', 'x.sse'], /^switchboard validate: missing --protocol <protocol>\n\nUsage: switchboard validate/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '', args.join(' '));
      assert.match(run.stderr, message, args.join(' '));
    }
  });
});

/** A `node` older than the CLI supports on PATH (or the usual places), if there is one: what `/usr/bin/env node` may find. */
function olderNode(): string | undefined {
  const candidates = [...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'node')), '/usr/local/bin/node', '/usr/bin/node'];
  for (const path of new Set(candidates)) {
    if (!existsSync(path)) continue;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    const major = Number(/^v(\d+)\./.exec(version ?? '')?.[1]);
    if (major >= 18 && major < 22) return path;
  }
  return undefined;
}

describe('launcher re-exec', () => {
  const old = olderNode();
  const file = join(DEV_DIR, 'thinking-text-tool-use.sse');

  test(`under an older node (${old ?? 'none found'}): same output, exit codes forwarded`, {
    skip: old ? false : 'no node older than 22 on this machine',
  }, async () => {
    const node = old as string;
    const [direct, viaOld] = await Promise.all([cli(['convert', file]), cli(['convert', file], { node })]);
    assert.equal(viaOld.code, 0, viaOld.stderr);
    assert.equal(clockless(viaOld.stdout), clockless(direct.stdout));
    assert.equal((await cli(['convert', '--bogus'], { node })).code, 2);
    assert.equal((await cli(['convert', '/nonexistent'], { node })).code, 1);
    const validate = await cli(['validate', '-p', 'ai-sdk', '-'], { node, stdin: direct.stdout });
    assert.equal(validate.code, 0, validate.stdout);
  });

  test('the built CLI runs without type stripping', async () => {
    const run = await cli(['--version'], { nodeArgs: ['--no-experimental-strip-types'] });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  test('a signal to the launcher reaches the re-executed CLI', async () => {
    // The older node when there is one (it re-execs), else Node 24 running the CLI itself.
    const argv = old ? [old, LAUNCHER] : [process.execPath, LAUNCHER];
    const child = spawn(argv[0], [...argv.slice(1), 'convert', '--from', 'anthropic', '-'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('close', (code, signal) => done([code, signal])));
    // The first output proves the Node 24 child is running and reading stdin.
    const firstOutput = new Promise((done) => child.stdout.once('data', done));
    child.stdin.write('{"type":"message_start","message":{"id":"m","model":"x","usage":{}}}\n');
    await firstOutput;
    child.kill('SIGTERM');
    // 'close' comes only once the child has closed its end of stdout too: no orphan left reading.
    assert.deepEqual(await closed, [null, 'SIGTERM']);
    child.stdin.destroy();
  });
});

describe('convert --think-tags', () => {
  /** A Chat Completions stream whose content carries a think section mid-text. */
  const openAiChat = (open: string, close: string) =>
    [
      {
        id: 'a',
        object: 'chat.completion.chunk',
        model: 'm',
        choices: [{ index: 0, delta: { role: 'assistant', content: `Sure. ${open}the user` } }],
      },
      {
        id: 'a',
        object: 'chat.completion.chunk',
        model: 'm',
        choices: [{ index: 0, delta: { content: ` wants a haiku${close}Here it is.` } }],
      },
      { id: 'a', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ]
      .map((c) => `${JSON.stringify(c)}\n`)
      .join('');
  /** LangChain streamEvents v2: a chat model streaming the same text in two chunks. */
  const langchain = [
    { event: 'on_chat_model_start', data: { input: {} }, name: 'ChatOllama', tags: [], run_id: 'r1', metadata: {} },
    ...['<think>the user wants', ' a haiku</think>Here it is.'].map((content) => ({
      event: 'on_chat_model_stream',
      data: {
        chunk: {
          lc: 1,
          type: 'constructor',
          id: ['langchain_core', 'messages', 'AIMessageChunk'],
          kwargs: { id: 'm1', content, tool_call_chunks: [] },
        },
      },
      name: 'ChatOllama',
      tags: [],
      run_id: 'r1',
      metadata: {},
    })),
    { event: 'on_chat_model_end', data: { output: {} }, name: 'ChatOllama', tags: [], run_id: 'r1', metadata: {} },
  ]
    .map((e) => `${JSON.stringify(e)}\n`)
    .join('');

  test('--from openai-chat --think-tags: the think section becomes reasoning, in the official client too', async () => {
    const plain = await cli(['convert', '--from', 'openai-chat', '--to', 'ai-sdk', '-'], { stdin: openAiChat('<think>', '</think>') });
    assert.deepEqual(summarizeMessage(await assembleUIMessage(plain.stdout)).reasoning, [], 'off by default: mid-text tags stay text');
    const run = await cli(['convert', '--from', 'openai-chat', '--think-tags', '--to', 'ai-sdk', '-'], {
      stdin: openAiChat('<think>', '</think>'),
    });
    assert.equal(run.code, 0, run.stderr);
    const message = summarizeMessage(await assembleUIMessage(run.stdout));
    assert.deepEqual(message.reasoning, ['the user wants a haiku']);
    assert.equal(message.text, 'Sure. Here it is.');
  });

  test('--think-tags=<tag> splits another tag; a bad tag is a usage error', async () => {
    const run = await cli(['convert', '--from', 'openai-chat', '--think-tags=thinking', '-'], {
      stdin: openAiChat('<thinking>', '</thinking>'),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(summarizeMessage(await assembleUIMessage(run.stdout)).reasoning, ['the user wants a haiku']);
    const bad = await cli(['convert', '--think-tags=not a tag', '-'], { stdin: '' });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /invalid --think-tags "not a tag"/);
  });

  test('--from langchain --think-tags', async () => {
    const run = await cli(['convert', '--from', 'langchain', '--think-tags', '--to', 'ai-sdk', '-'], { stdin: langchain });
    assert.equal(run.code, 0, run.stderr);
    const message = summarizeMessage(await assembleUIMessage(run.stdout));
    assert.deepEqual(message.reasoning, ['the user wants a haiku']);
    assert.equal(message.text, 'Here it is.');
  });
});
