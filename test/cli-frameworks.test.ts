/**
 * `switchboard convert --from <framework> --to ai-sdk` for every framework, on a capture of that
 * framework: exit 0, and the output passes the official `ai` package's chunk schema and assembles with
 * its `readUIMessageStream` into a message with content.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { FRAMEWORK_NAMES } from '../packages/core/src/names.ts';
import { assembleUIMessage, parseAiSdkSse } from './support/ai-sdk-oracle.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const SHARED = join(ROOT, 'test/fixtures');
const OWN = join(ROOT, 'packages/core/test/fixtures');
const CLI = join(ROOT, 'packages/server/bin/switchboard.js');
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'));

function write(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return path;
}

async function convert(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, 'convert', ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const agentLines = [
  { type: 'start', data: { model: 'm' } },
  { type: 'status', data: { message: 'Working' } },
  { type: 'thinking', data: { content: 'Hmm.' } },
  { type: 'tool_use', data: { id: 't1', name: 'search', input: { q: 'x' } } },
  { type: 'tool_result', data: { tool_use_id: 't1', content: 'found' } },
  { type: 'text', data: { content: 'Done.' } },
  { type: 'done', data: {} },
];

/** A capture per framework (inputs that only exist as another protocol's output are made with the CLI). */
const CAPTURES: Record<(typeof FRAMEWORK_NAMES)[number], () => Promise<string>> = {
  anthropic: async () => join(SHARED, 'anthropic/thinking-text-tool-use.sse'),
  claude: async () => write('claude.jsonl', agentLines),
  deepagents: async () =>
    write('deepagents.jsonl', [...agentLines.slice(0, -1), { type: 'search', data: { id: 's', query: 'q' } }, { type: 'done', data: {} }]),
  'openai-chat': async () => join(SHARED, 'openai-chat/tool-calls.sse'),
  'openai-responses': async () => join(SHARED, 'openai-responses/function-call.sse'),
  'openai-agents': async () => join(OWN, 'openai-agents/responses-parallel-tools.jsonl'),
  openai: async () =>
    write('openai-simple.jsonl', [
      { type: 'start', data: { model: 'gpt' } },
      { type: 'delta', data: { content: 'Hi' } },
      { type: 'tool_call', data: { id: 'c1', name: 'f', arguments: '{"a":1}' } },
      { type: 'tool_result', data: { id: 'c1', content: 'ok' } },
      { type: 'done', data: { usage: { input_tokens: 1 } } },
    ]),
  langchain: async () => join(SHARED, 'langchain/tool-agent-loop.jsonl'),
  langgraph: async () => join(SHARED, 'recorded/langchain/langgraph.REACT_AGENT_TOOL_CALLING.jsonl'),
  gemini: async () => join(SHARED, 'recorded/gemini/google-tool-call.chunks.txt'),
  'gemini-interactions': async () => join(SHARED, 'recorded/gemini/basic.chunks.txt'),
  'gemini-simple': async () =>
    write('gemini-simple.jsonl', [
      { type: 'start', data: { model: 'gemini' } },
      { type: 'content', data: { text: 'Hi' } },
      { type: 'function_call', data: { name: 'f', args: { a: 1 } } },
      { type: 'function_response', data: { name: 'f', response: { ok: true } } },
      { type: 'done', data: {} },
    ]),
  'claude-agent-sdk': async () => join(OWN, 'claude-agent-sdk/parallel-tools.jsonl'),
  smolagents: async () => join(OWN, 'smolagents/code-agent-planning.jsonl'),
  'ag-ui': async () => {
    const path = join(dir, 'ag-ui.sse');
    writeFileSync(path, await convert(['--from', 'anthropic', '--to', 'ag-ui', join(SHARED, 'anthropic/thinking-text-tool-use.sse')]));
    return path;
  },
  ws: async () => {
    const path = join(dir, 'ws.jsonl');
    writeFileSync(path, await convert(['--from', 'anthropic', '--to', 'ws', join(SHARED, 'anthropic/thinking-text-tool-use.sse')]));
    return path;
  },
  dsagent: async () => {
    const path = join(dir, 'dsagent.jsonl');
    writeFileSync(path, await convert(['--from', 'smolagents', '--to', 'dsagent', join(OWN, 'smolagents/code-agent-planning.jsonl')]));
    return path;
  },
  'ai-sdk': async () => join(SHARED, 'anthropic/thinking-text-tool-use.aisdk-ref.sse'),
  think: async () => write('think.jsonl', ['<thi', 'nk>Let me see.</think>', 'The answer is 4.']),
};

describe('convert --from <framework> --to ai-sdk: every framework', { concurrency: 4 }, () => {
  for (const framework of FRAMEWORK_NAMES) {
    test(framework, async () => {
      const input = await CAPTURES[framework]();
      const sse = await convert(['--from', framework, '--to', 'ai-sdk', input]);
      assert.ok(sse.endsWith('data: [DONE]\n\n'));
      await parseAiSdkSse(sse); // the official schema, or it throws
      const message = await assembleUIMessage(sse);
      assert.ok(
        message.parts.some((p) => p.type === 'text' || p.type === 'reasoning' || p.type.startsWith('tool-')),
        `${framework}: the assembled message has content (${message.parts.map((p) => p.type).join(', ')})`,
      );
      if (framework === 'think') {
        const reasoning = message.parts.find((p) => p.type === 'reasoning');
        assert.equal(reasoning && 'text' in reasoning ? reasoning.text : undefined, 'Let me see.');
      }
    });
  }
});

test('every framework name has a capture here', () => {
  assert.deepEqual(Object.keys(CAPTURES).sort(), [...FRAMEWORK_NAMES].sort());
  void readFileSync;
});
