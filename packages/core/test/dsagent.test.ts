import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type CanonicalEvent, createDecoder, framed, jsonlFramer, pipe } from '../src/index.ts';
import { createSmolagentsDecoder } from '../src/inputs/smolagents.ts';
import { createDsAgentEncoder, type DsAgentEncoderOptions, type DsAgentRunMessage } from '../src/protocols/dsagent/encoder.ts';
import { createDsAgentDecoder, detectDsAgent } from '../src/protocols/dsagent/reader.ts';
import { routeComponent } from '../src/protocols/dsagent/routing.ts';
import { dsAgentRunMessageSchema, validateDsAgentMessages } from '../src/protocols/dsagent/schema.ts';
import { validate } from '../src/schema.ts';
import { FIXTURES, fixture } from './helpers.ts';

const SMOL = new URL('./fixtures/smolagents/', import.meta.url).pathname;

/** Every canonical stream we have: the smolagents captures, and the Anthropic ones (plain LLM runs). */
function corpus(): { name: string; events: CanonicalEvent[] }[] {
  const out: { name: string; events: CanonicalEvent[] }[] = [];
  const decode = (bytes: Uint8Array, make: () => ReturnType<typeof createDecoder>) => {
    const m = framed(make());
    return [...m.push(bytes), ...m.end()];
  };
  const opts = { runId: 'run', now: () => 1763870000000 };
  for (const f of readdirSync(SMOL).filter((f) => f.endsWith('.jsonl')))
    out.push({ name: `smolagents/${f}`, events: decode(readFileSync(SMOL + f), () => createSmolagentsDecoder(opts)) });
  for (const f of readdirSync(`${FIXTURES}anthropic/`).filter((f) => f.endsWith('.sse') && !f.includes('aisdk-ref')))
    out.push({ name: `anthropic/${f}`, events: decode(fixture(`anthropic/${f}`), () => createDecoder('anthropic', opts)) });
  for (const f of readdirSync(`${FIXTURES}recorded/anthropic/`))
    out.push({ name: `recorded/anthropic/${f}`, events: decode(fixture(`recorded/anthropic/${f}`), () => createDecoder('auto', opts)) });
  return out;
}

const byName = (name: string) => corpus().find((c) => c.name === name)?.events ?? [];

function encode(events: CanonicalEvent[], options: DsAgentEncoderOptions = {}): DsAgentRunMessage[] {
  const enc = createDsAgentEncoder(options);
  const out: DsAgentRunMessage[] = [];
  for (const e of events) out.push(...enc.push(e));
  out.push(...enc.end());
  return out;
}

function read(messages: unknown[], deltas?: 'increment' | 'accumulated'): CanonicalEvent[] {
  const d = createDsAgentDecoder({ runId: 'run', now: () => 0, ...(deltas ? { deltas } : {}) });
  const out: CanonicalEvent[] = [];
  messages.forEach((m, i) => {
    out.push(...d.push(JSON.parse(JSON.stringify(m)), { line: i + 1 }));
  });
  out.push(...d.end());
  return out;
}

const types = (messages: DsAgentRunMessage[]) => messages.map((m) => m.metadata.message_type);

interface StepView {
  kind: string;
  id?: string;
  number?: number;
  name?: string;
  items: unknown[];
  answer?: { text: string; sources: unknown[] };
  finish?: unknown;
}

/**
 * What DSAgentRunMessage carries of a canonical run (docs/protocols/dsagent.md): per step its kind
 * (ids and the number of action steps — the previous one + 1 when it had none —, the planning type;
 * a step that starts inside an open one is part of it), in order its reasoning (text, variant),
 * answer text, tool calls (id, name, input), final tool outputs and errors, errors, images; the
 * step's finish reason, token counts and duration; a final-answer step's answer text (joined) and
 * sources. Everything else (usage events, status, todos, state, custom, raw, subagents, citations,
 * sources and files outside the answer, providerMetadata, run-level fields) is lost.
 */
function view(events: CanonicalEvent[]): StepView[] {
  const steps: StepView[] = [];
  let cur: StepView = { kind: 'none', items: [] };
  steps.push(cur);
  const blocks = new Map<string, { kind: 'reasoning' | 'text' | 'answer'; variant?: string; parts: string[] }>();
  const calls = new Set<string>();
  const results = new Set<string>();
  const names = new Map<string, string>();
  const nested = new Set<string>();
  let action = 0;
  for (const e of events) {
    switch (e.type) {
      case 'step-start':
        if (cur.kind !== 'none' && cur.kind !== 'final-answer') {
          nested.add(e.stepId);
          break;
        }
        cur = { kind: e.kind, items: [] };
        if (e.kind !== 'final-answer') cur.id = e.stepId;
        if (e.kind === 'action') cur.number = e.number ?? action + 1;
        if (e.kind === 'action' || e.kind === 'model' || e.kind === 'other')
          action = Math.max(action, e.kind === 'action' ? (cur.number as number) : action + 1);
        if (e.kind === 'planning') cur.name = e.name;
        if (e.kind === 'final-answer') cur.answer = { text: '', sources: [] };
        steps.push(cur);
        break;
      case 'step-finish': {
        if (nested.delete(e.stepId)) break;
        if (cur.kind !== 'final-answer') {
          const u = e.usage;
          cur.finish = JSON.parse(
            JSON.stringify({
              finishReason: e.finishReason,
              usage:
                u && (u.inputTokens ?? u.outputTokens ?? u.totalTokens) !== undefined
                  ? { i: u.inputTokens, o: u.outputTokens, t: u.totalTokens }
                  : undefined,
              durationMs: e.durationMs,
            }),
          );
        }
        cur = { kind: 'none', items: [] };
        steps.push(cur);
        break;
      }
      case 'reasoning-start':
        blocks.set(e.blockId, { kind: 'reasoning', variant: e.variant, parts: [] });
        break;
      case 'text-start':
        blocks.set(e.blockId, { kind: cur.kind === 'final-answer' ? 'answer' : 'text', parts: [] });
        break;
      case 'text-delta':
      case 'reasoning-delta':
        blocks.get(e.blockId)?.parts.push(e.delta);
        break;
      case 'text-end':
      case 'reasoning-end': {
        const b = blocks.get(e.blockId);
        blocks.delete(e.blockId);
        if (!b) break;
        if (b.kind === 'answer' && cur.answer) cur.answer.text += b.parts.join('');
        else if (b.kind === 'reasoning') cur.items.push({ reasoning: b.parts.join(''), variant: b.variant });
        else cur.items.push({ text: b.parts.join('') });
        break;
      }
      case 'tool-input-start':
        names.set(e.toolCallId, e.toolName);
        break;
      case 'tool-input-end':
        names.set(e.toolCallId, e.toolName);
        if (calls.has(e.toolCallId)) break;
        calls.add(e.toolCallId);
        cur.items.push({ call: e.toolCallId, name: e.toolName, input: e.input });
        break;
      case 'tool-output':
        if (e.preliminary || results.has(e.toolCallId)) break;
        results.add(e.toolCallId);
        cur.items.push({ output: e.toolCallId, name: e.toolName ?? names.get(e.toolCallId), value: e.output });
        break;
      case 'tool-error':
        if (results.has(e.toolCallId)) break;
        results.add(e.toolCallId);
        cur.items.push(
          JSON.parse(
            JSON.stringify({ failed: e.toolCallId, name: e.toolName ?? names.get(e.toolCallId), error: e.error, output: e.output }),
          ),
        );
        break;
      case 'error':
        cur.items.push(JSON.parse(JSON.stringify({ error: e.message, code: e.code, fatal: e.fatal })));
        break;
      case 'source':
        if (cur.answer) cur.answer.sources.push(e.url ?? e.title ?? e.sourceId);
        break;
      case 'file':
        if (e.mediaType.startsWith('image/'))
          cur.items.push(JSON.parse(JSON.stringify({ file: e.url, mediaType: e.mediaType, filename: e.filename })));
        break;
    }
  }
  return JSON.parse(JSON.stringify(steps.filter((s) => s.kind !== 'none' || s.items.length > 0)));
}

describe('DSAgent encoder: every fixture gives messages that pass the DSAgentRunMessage schemas and routing', () => {
  for (const { name, events } of corpus()) {
    test(name, () => {
      for (const deltas of ['increment', 'accumulated'] as const) {
        const messages = encode(events, { deltas });
        assert.deepEqual(validateDsAgentMessages(messages, { deltas }).issues, [], deltas);
        for (const m of messages) {
          assert.ok(dsAgentRunMessageSchema.safeParse(m).success);
          const md = m.metadata;
          assert.equal(
            md.component,
            routeComponent('tool_name' in md ? (md.tool_name ?? undefined) : undefined, md.message_type, m.content),
          );
          if (md.message_type === 'action_thought' && md.thoughts_content !== undefined)
            assert.equal(md.thoughts_content, m.content.length > 60 ? `${m.content.slice(0, 60)}...` : m.content);
        }
      }
    });
  }
});

describe('DSAgent encoder: smolagents runs', () => {
  test('CodeAgent with planning: planning and action messages, python code in the web IDE, logs in the terminal, a structured answer', () => {
    const messages = encode(byName('smolagents/code-agent-planning.jsonl'));
    const shape = messages.filter((m) => !('is_delta' in m.metadata) && m.metadata.message_type !== 'separator');
    assert.deepEqual(types(shape).slice(0, 12), [
      'planning_header',
      'planning_content',
      'planning_content',
      'planning_footer',
      'action_header',
      'tool_call',
      'tool_invocation',
      'action_thought',
      'action_thought',
      'execution_logs',
      'action_footer',
      'action_header',
    ]);
    const header = messages[0];
    assert.ok(header?.metadata.message_type === 'planning_header');
    assert.deepEqual([header.metadata.planning_type, header.metadata.planning_step_number, header.step_number], ['initial', 1, 1]);
    const update = messages.filter((m) => m.metadata.message_type === 'planning_header')[1];
    assert.ok(update?.metadata.message_type === 'planning_header');
    assert.deepEqual([update.metadata.planning_type, update.metadata.is_update_plan, update.step_number], ['update', true, 3]);
    const code = messages.find((m) => m.metadata.message_type === 'tool_invocation');
    assert.ok(code?.metadata.message_type === 'tool_invocation');
    assert.equal(code.metadata.component, 'webide');
    assert.equal(code.metadata.language, 'python');
    assert.match(code.content, /^```python\nfor query in/);
    const logs = messages.find((m) => m.metadata.message_type === 'execution_logs');
    assert.equal(logs?.metadata.component, 'terminal');
    assert.match(logs?.content ?? '', /^```bash\nExecution logs:/);
    const thought = messages.find((m) => m.metadata.message_type === 'action_thought' && m.metadata.streaming === false);
    assert.ok(thought?.metadata.message_type === 'action_thought');
    assert.equal(thought.metadata.thoughts_content, `${thought.content.slice(0, 60)}...`);
    const footer = messages.find((m) => m.metadata.message_type === 'action_footer');
    assert.ok(footer?.metadata.message_type === 'action_footer');
    assert.deepEqual(footer.metadata.token_usage, { input_tokens: 1857, output_tokens: 56, total_tokens: 1913 });
    assert.match(footer.content, /\*\*Step 1\*\* \| Input tokens: 1,857 \| Output tokens: 56 \| Duration: 0\.02s/);
    const error = messages.find((m) => m.metadata.message_type === 'error');
    assert.ok(error?.metadata.message_type === 'error');
    assert.deepEqual(
      [error.metadata.error_type, error.metadata.tool_name, error.step_number],
      ['AgentExecutionError', 'python_interpreter', 2],
    );
    const answer = messages.at(-1);
    assert.ok(answer?.metadata.message_type === 'final_answer');
    assert.equal(answer.content, '');
    assert.equal(answer.metadata.has_structured_data, true);
    assert.equal(answer.metadata.answer_title, 'Python 0.9.0 to Rust 1.0: 24 years');
    assert.match(answer.metadata.answer_content ?? '', /^Python's first public release/);
    assert.deepEqual(answer.metadata.answer_sources, [
      'https://en.wikipedia.org/wiki/History_of_Python',
      'https://blog.rust-lang.org/2015/05/15/Rust-1.0.html',
    ]);
  });

  test('ToolCallingAgent with parallel calls: a badge and an invocation per call, observations in the terminal, the tool failure', () => {
    const messages = encode(byName('smolagents/tool-calling-parallel.jsonl'));
    const step1 = messages.filter((m) => m.step_number === 1);
    assert.deepEqual(types(step1), [
      'action_header',
      'tool_call',
      'tool_invocation',
      'tool_call',
      'tool_invocation',
      'observation',
      'observation',
      'action_footer',
      'separator',
    ]);
    const obs = step1.filter((m) => m.metadata.message_type === 'observation');
    assert.deepEqual(
      obs.map((m) => [m.metadata.component, 'tool_name' in m.metadata && m.metadata.tool_name]),
      [
        ['terminal', 'web_search'],
        ['terminal', 'web_search'],
      ],
    );
    const badge = step1[1];
    assert.ok(badge?.metadata.message_type === 'tool_call');
    assert.equal(badge.metadata.tool_args_summary, 'query=Python first release date');
    const failure = messages.find((m) => m.metadata.message_type === 'error');
    assert.ok(failure?.metadata.message_type === 'error');
    assert.equal(failure.metadata.error_type, 'AgentToolExecutionError');
    const footer = messages.find((m) => m.metadata.message_type === 'action_footer' && m.step_number === 2);
    assert.ok(footer?.metadata.message_type === 'action_footer');
    assert.equal(footer.metadata.error?.type, 'AgentToolExecutionError');
    const answer = messages.at(-1);
    assert.ok(answer?.metadata.message_type === 'final_answer');
    assert.match(answer.content, /^\*\*Final answer:\*\*\nPython 0\.9\.0 came out/);
    assert.equal(answer.step_number, 3);
  });

  test('streaming: an initial message, deltas, a final message with the whole text; accumulated deltas on request', () => {
    const events = byName('smolagents/code-agent-streaming.jsonl');
    const streamOf = (messages: DsAgentRunMessage[]) => {
      const first = messages.find((m) => m.metadata.message_type === 'planning_content');
      const id = first && 'stream_id' in first.metadata ? first.metadata.stream_id : undefined;
      return messages.filter((m) => 'stream_id' in m.metadata && m.metadata.stream_id === id);
    };
    const inc = streamOf(encode(events));
    assert.equal(inc[0]?.metadata.message_type === 'planning_content' && inc[0].metadata.is_initial_stream, true);
    assert.equal(inc[0]?.content, '');
    assert.ok(inc.length > 3);
    const deltas = inc.slice(1, -1);
    for (const m of deltas) assert.equal('is_delta' in m.metadata && m.metadata.is_delta, true);
    const final = inc.at(-1);
    assert.equal(final?.metadata.message_type === 'planning_content' && final.metadata.streaming, false);
    assert.equal(final?.content, deltas.map((m) => m.content).join(''));
    assert.equal(new Set(inc.map((m) => m.message_id)).size, inc.length, 'one message_id per message (DeepSearchAgents: msg_<hex>)');
    for (const m of inc) assert.match(m.message_id, /^msg_[0-9a-f]+$/);
    assert.match(inc[0]?.metadata.message_type === 'planning_content' ? inc[0].metadata.stream_id : '', /^msg-1-planning_content-stream$/);
    const acc = streamOf(encode(events, { deltas: 'accumulated' }));
    assert.equal(acc.at(-2)?.content, acc.at(-1)?.content, 'the last accumulated delta is the whole text');
    for (let i = 2; i < acc.length - 1; i++) assert.ok(acc[i]?.content.startsWith(acc[i - 1]?.content ?? ''));
  });

  test('a plain Anthropic run: model steps are action steps, reasoning is a thought, text an assistant message, tools in chat', () => {
    const messages = encode(byName('anthropic/thinking-text-tool-use.sse'));
    assert.deepEqual(types(messages.filter((m) => !('is_delta' in m.metadata))), [
      'action_header',
      'action_thought',
      'action_thought',
      'assistant_message',
      'assistant_message',
      'tool_call',
      'tool_invocation',
      'action_footer',
      'separator',
    ]);
    const header = messages[0];
    assert.ok(header?.metadata.message_type === 'action_header');
    assert.deepEqual([header.content, header.metadata.step_kind, header.metadata.step_id], ['**Step 1**', 'model', 'msg_01ThinkTool']);
    const invocation = messages.find((m) => m.metadata.message_type === 'tool_invocation');
    assert.equal(invocation?.metadata.component, 'chat');
    assert.deepEqual(JSON.parse(invocation?.content ?? ''), {
      location: 'San Francisco, CA',
      note: 'café "quoted" \\ back\nslash',
      unit: 'celsius',
      days: 12.5,
      include_hourly: true,
    });
    const text = messages.find((m) => m.metadata.message_type === 'assistant_message' && m.metadata.streaming === false);
    assert.equal(text?.content, "I'll check the current weather for you.");
  });

  test('one message per line (JSON lines), as switchboard convert --to dsagent writes them', () => {
    const m = pipe(pipe(framed(createSmolagentsDecoder({ runId: 'r', now: () => 0 })), createDsAgentEncoder()), jsonlFramer());
    const text = [...m.push(readFileSync(`${SMOL}tool-calling-streaming.jsonl`)), ...m.end()].join('');
    const messages = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(validateDsAgentMessages(messages).issues, []);
    assert.equal(messages.at(-1)?.metadata.message_type, 'final_answer');
  });
});

describe('DSAgent reader: round trips', () => {
  for (const { name, events } of corpus()) {
    test(`${name}: canonical → DSAgentRunMessage → canonical keeps what the protocol carries`, () => {
      for (const deltas of ['increment', 'accumulated'] as const) {
        const back = read(encode(events, { deltas }), deltas);
        assert.deepEqual(validate(back).issues, [], deltas);
        assert.deepEqual(view(back), view(events), deltas);
      }
    });
  }

  test('smolagents: step ids, numbers, planning types, the run total usage come back', () => {
    const events = byName('smolagents/code-agent-planning.jsonl');
    const back = read(encode(events));
    const steps = (evs: CanonicalEvent[]) => evs.flatMap((e) => (e.type === 'step-start' ? [[e.stepId, e.kind, e.name, e.number]] : []));
    assert.deepEqual(steps(back), steps(events));
    const total = (evs: CanonicalEvent[]) => {
      const f = evs.at(-1);
      return f?.type === 'run-finish' ? [f.finishReason, f.usage?.inputTokens, f.usage?.outputTokens, f.usage?.totalTokens] : [];
    };
    assert.deepEqual(total(back), total(events));
  });

  test('property: any well-formed canonical run, both delta styles', () => {
    fc.assert(
      fc.property(canonicalRun(), fc.constantFrom('increment' as const, 'accumulated' as const), (run, deltas) => {
        const messages = encode(run, { deltas });
        assert.deepEqual(validateDsAgentMessages(messages, { deltas }).issues, []);
        const back = read(messages, deltas);
        assert.deepEqual(validate(back).issues, []);
        assert.deepEqual(view(back), view(run));
      }),
      { numRuns: Number(process.env.RT_RUNS ?? 300) },
    );
  });
});

describe('DSAgent reader: DeepSearchAgents frames and bad input', () => {
  const msg = (content: string, metadata: Record<string, unknown>, step?: number) => ({
    role: 'assistant',
    content,
    metadata,
    message_id: 'msg_x',
    timestamp: '2025-08-01T10:00:00.000Z',
    session_id: 's',
    ...(step !== undefined ? { step_number: step } : {}),
  });

  test("DeepSearchAgents' own stream: deltas before the step, accumulated, finals without stream_id, tool calls without args", () => {
    const planningDelta = (content: string) =>
      msg(
        content,
        {
          component: 'chat',
          message_type: 'planning_content',
          step_type: 'planning',
          status: 'streaming',
          streaming: true,
          is_delta: true,
          stream_id: 'msg-1-planning_content-stream',
        },
        1,
      );
    const frames = [
      planningDelta('## Plan'),
      planningDelta('## Plan\n1. Search'),
      msg('', { component: 'chat', message_type: 'planning_header', step_type: 'planning', planning_type: 'initial', status: 'done' }, 1),
      msg(
        '## Plan\n1. Search',
        { component: 'chat', message_type: 'planning_content', step_type: 'planning', status: 'done', streaming: false },
        1,
      ),
      msg(
        '<span>**Initial planning step**</span>',
        {
          component: 'chat',
          message_type: 'planning_footer',
          step_type: 'planning',
          token_usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        },
        1,
      ),
      msg('-----', { component: 'chat', message_type: 'separator', step_type: 'planning', status: 'done' }, 1),
      msg('**Step 1**', { component: 'chat', message_type: 'action_header', step_type: 'action', status: 'done' }, 1),
      msg('Thought: search it', { component: 'chat', message_type: 'action_thought', step_type: 'action', status: 'done' }, 1),
      msg(
        '',
        { component: 'chat', message_type: 'tool_call', tool_name: 'python_interpreter', tool_id: 'call_1', tool_args_summary: 'code=...' },
        1,
      ),
      msg(
        '```python\nprint(search_links("x"))\n```',
        { component: 'webide', message_type: 'tool_invocation', tool_name: 'python_interpreter', code: 'print(search_links("x"))' },
        1,
      ),
      msg('```bash\nresults\n```', { component: 'terminal', message_type: 'execution_logs', tool_name: 'python_interpreter' }, 1),
      msg(
        '<span>**Step 1**</span>',
        { component: 'chat', message_type: 'action_footer', step_type: 'action', timing: { duration: 1.25 } },
        1,
      ),
      msg(
        '**Final answer:**\n42\n',
        { component: 'chat', message_type: 'final_answer', step_type: 'final_answer', is_final_answer: true },
        1,
      ),
      { role: 'user', content: 'hi', metadata: {} },
    ];
    const events = read(frames, 'accumulated');
    assert.deepEqual(validate(events).issues, []);
    const kinds = events.map((e) => e.type);
    assert.deepEqual(kinds, [
      'run-start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'step-start',
      'reasoning-end',
      'step-finish',
      'step-start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'tool-input-start',
      'tool-input-end',
      'tool-output',
      'step-finish',
      'step-start',
      'text-start',
      'text-delta',
      'text-end',
      'step-finish',
      'raw',
      'run-finish',
    ]);
    const deltas = events.flatMap((e) => (e.type === 'reasoning-delta' ? [e.delta] : []));
    assert.deepEqual(deltas.slice(0, 2), ['## Plan', '\n1. Search']);
    const end = events.find((e) => e.type === 'tool-input-end');
    assert.deepEqual(end?.type === 'tool-input-end' && end.input, { code: 'print(search_links("x"))' });
    const out = events.find((e) => e.type === 'tool-output');
    assert.deepEqual(out?.type === 'tool-output' && [out.toolCallId, out.output], ['call_1', 'results']);
    const answer = events.find((e) => e.type === 'text-delta');
    assert.equal(answer?.type === 'text-delta' && answer.delta, '42');
    const finish = events.find((e) => e.type === 'step-finish' && e.durationMs !== undefined);
    assert.equal(finish?.type === 'step-finish' && finish.durationMs, 1250);
    assert.equal(events[1]?.ts, Date.parse('2025-08-01T10:00:00.000Z'));
  });

  const good = encode(byName('smolagents/code-agent-streaming.jsonl'));
  const lines = (frames: unknown[]) => frames.map((f) => (typeof f === 'string' ? f : JSON.stringify(f))).join('\n');
  const readText = (text: string) => {
    const m = framed(createDsAgentDecoder({ runId: 'run', now: () => 0 }));
    return [...m.push(text), ...m.end()];
  };
  const textOf = (events: CanonicalEvent[]) =>
    events.map((e) => (e.type === 'text-delta' || e.type === 'reasoning-delta' ? e.delta : '')).join('');
  const whole = textOf(read(good));

  test('truncated inside a stream: what came is kept, a fatal "truncated" error, the run ends with error', () => {
    const i = good.findIndex((m) => 'is_delta' in m.metadata && m.metadata.is_delta === true);
    const cut = good.slice(0, i + 2);
    const events = readText(lines(cut));
    const got = textOf(events);
    assert.ok(whole.startsWith(got) && got.length > 0);
    const err = events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && err.code === 'truncated' && err.fatal);
    const last = events.at(-1);
    assert.equal(last?.type === 'run-finish' && last.finishReason, 'error');
    assert.deepEqual(validate(events).issues, []);
  });

  test('non-JSON, an array, no metadata, no message_type, content not a string, an unknown type: located, reading goes on', () => {
    const [first, ...rest] = good;
    const odd = msg('x', { message_type: 'future_type' });
    const events = readText(
      lines([
        first,
        'nope',
        [1],
        { role: 'assistant', content: 'x' },
        { role: 'assistant', content: 'x', metadata: {} },
        { ...odd, content: 5 },
        odd,
        ...rest,
      ]),
    );
    const errors = events.flatMap((e) => (e.type === 'error' ? [[e.code, e.where]] : []));
    assert.deepEqual(errors, [
      ['invalid_json', { line: 2, expected: 'JSON' }],
      ['invalid_event', { line: 3, expected: 'object' }],
      ['invalid_field', { line: 4, field: 'metadata', expected: 'an object' }],
      ['invalid_field', { line: 5, field: 'metadata.message_type', expected: 'the message type as a string' }],
      ['invalid_field', { line: 6, field: 'content', expected: 'a string' }],
    ]);
    const raw = events.find((e) => e.type === 'raw');
    assert.deepEqual(raw?.type === 'raw' && [raw.event, raw.where, raw.reason], [odd, { line: 7 }, 'unknown message_type "future_type"']);
    assert.equal(textOf(events), whole);
    assert.deepEqual(validate(events).issues, []);
  });

  test('a footer with no step open, a final message that disagrees with its deltas: located errors, nothing lost', () => {
    const footer = msg('', { component: 'chat', message_type: 'action_footer', step_type: 'action' });
    const frames = good.map((m) =>
      m.metadata.message_type === 'action_thought' && m.metadata.streaming === false ? { ...m, content: 'different' } : m,
    );
    const events = readText(lines([footer, ...frames]));
    const errors = events.flatMap((e) => (e.type === 'error' ? [e.code] : []));
    assert.equal(errors[0], 'unknown_step');
    assert.ok(errors.slice(1).every((c) => c === 'content_mismatch') && errors.length > 1);
    assert.equal(textOf(events), whole);
    assert.deepEqual(validate(events).issues, []);
  });

  test('detection: DSAgentRunMessages, not chat messages, agent lines or Anthropic events', () => {
    for (const m of good) assert.equal(detectDsAgent(m), true, m.metadata.message_type);
    assert.equal(detectDsAgent({ role: 'assistant', content: 'x' }), false);
    assert.equal(detectDsAgent({ type: 'text', data: { content: 'x' } }), false);
    assert.equal(detectDsAgent({ type: 'message_start', message: { role: 'assistant', content: [] } }), false);
  });
});

/** Well-formed canonical runs shaped like agent runs: planning / action / model / final-answer steps. */
function canonicalRun(): fc.Arbitrary<CanonicalEvent[]> {
  const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
  const json = fc.jsonValue({ maxDepth: 2 });
  const text = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ maxLength: 4, unit: 'grapheme' }), fc.constant('```bash\nx\n```'));
  type E = Record<string, unknown>;
  type Piece = (n: () => number) => E[];
  const block: fc.Arbitrary<Piece> = fc
    .record({
      kind: fc.constantFrom('text', 'reasoning'),
      variant: fc.constantFrom('thinking', 'processing'),
      deltas: fc.array(text, { maxLength: 4 }),
    })
    .map((b) => (n) => {
      const blockId = `b${n()}`;
      const t = b.kind === 'text';
      return [
        t ? { type: 'text-start', blockId } : { type: 'reasoning-start', blockId, variant: b.variant },
        ...b.deltas.map((delta) => ({ type: t ? 'text-delta' : 'reasoning-delta', blockId, delta })),
        { type: t ? 'text-end' : 'reasoning-end', blockId },
      ];
    });
  const tool: fc.Arbitrary<Piece> = fc
    .record({
      name: fc.oneof(word, fc.constant('python_interpreter'), fc.constant('final_answer')),
      input: fc.oneof(json, fc.record({ code: text }), fc.record({ answer: text })),
      replay: fc.boolean(),
      results: fc.array(
        fc.oneof(
          fc.record({ output: fc.oneof(json, text), named: fc.boolean(), preliminary: fc.option(fc.constant(true), { nil: undefined }) }),
          fc.record({ error: text, output: fc.option(fc.oneof(json, text), { nil: undefined }) }),
        ),
        { maxLength: 2 },
      ),
    })
    .map((t) => (n) => {
      const toolCallId = `call_${n()}`;
      const events: E[] = [
        { type: 'tool-input-start', toolCallId, toolName: t.name },
        { type: 'tool-input-delta', toolCallId, delta: '{' },
        { type: 'tool-input-end', toolCallId, toolName: t.name, input: t.input },
      ];
      if (t.replay) events.push({ type: 'tool-input-end', toolCallId, toolName: t.name, input: 'again' });
      for (const r of t.results)
        events.push(
          'error' in r
            ? { type: 'tool-error', toolCallId, error: r.error, output: r.output }
            : { type: 'tool-output', toolCallId, toolName: r.named ? t.name : undefined, output: r.output, preliminary: r.preliminary },
        );
      return events;
    });
  const misc: fc.Arbitrary<Piece> = fc.oneof(
    fc.record({ message: text, code: fc.option(word, { nil: undefined }) }).map((e) => () => [{ type: 'error', ...e, fatal: false }]),
    fc
      .record({ mediaType: fc.constantFrom('image/png', 'text/csv'), filename: fc.option(word, { nil: undefined }) })
      .map((f) => () => [{ type: 'file', url: 'https://x.example/f', ...f }]),
    fc.constant(() => [{ type: 'usage', scope: 'increment', usage: { inputTokens: 1 } }]),
    fc.constant(() => [{ type: 'status', status: 'working' }]),
    fc.constant((n: () => number) => [{ type: 'source', sourceId: `s${n()}`, kind: 'url', url: 'https://lost.example' }]),
    fc.constant(() => [{ type: 'todos', change: 'create', todos: [] }]),
  );
  const piece = fc.oneof(block, tool, misc);
  const usage = fc.option(
    fc.record({ inputTokens: fc.nat(9999), outputTokens: fc.nat(999), totalTokens: fc.nat(99999) }, { requiredKeys: [] }),
    { nil: undefined },
  );
  const step = fc.record({
    kind: fc.constantFrom('planning', 'action', 'action', 'model', 'other'),
    inner: fc.array(piece, { maxLength: 4 }),
    finishReason: fc.option(fc.constantFrom('stop', 'tool-calls', 'error', 'length'), { nil: undefined }),
    usage,
    durationMs: fc.option(fc.nat(99999), { nil: undefined }),
  });
  const answer = fc.record({
    texts: fc.array(fc.array(text, { maxLength: 3 }), { maxLength: 2 }),
    sources: fc.array(
      fc.oneof(
        fc.webUrl().map((url) => ({ kind: 'url', url })),
        word.map((title) => ({ kind: 'document', title })),
      ),
      { maxLength: 2 },
    ),
  });
  return fc
    .record({
      outside: fc.array(piece, { maxLength: 2 }),
      steps: fc.array(step, { maxLength: 4 }),
      answer: fc.option(answer, { nil: undefined }),
      fatal: fc.option(text, { nil: undefined }),
    })
    .map((r) => {
      let id = 0;
      const n = () => ++id;
      let action = 0;
      let planning = 0;
      const body: E[] = [{ type: 'run-start', version: 2, messageId: 'm', provider: 'smolagents' }, ...r.outside.flatMap((p) => p(n))];
      for (const s of r.steps) {
        const stepId = `st${n()}`;
        const start: E = { type: 'step-start', stepId, kind: s.kind };
        if (s.kind === 'action') start.number = ++action;
        if (s.kind === 'planning') start.name = ++planning === 1 ? 'initial' : 'update';
        body.push(start, ...s.inner.flatMap((p) => p(n)), {
          type: 'step-finish',
          stepId,
          finishReason: s.finishReason,
          usage: s.usage,
          durationMs: s.durationMs,
        });
      }
      if (r.answer) {
        body.push({ type: 'step-start', stepId: 'final-answer', kind: 'final-answer' });
        for (const t of r.answer.texts) {
          const blockId = `b${n()}`;
          body.push({ type: 'text-start', blockId }, ...t.map((delta) => ({ type: 'text-delta', blockId, delta })), {
            type: 'text-end',
            blockId,
          });
        }
        r.answer.sources.forEach((s, i) => {
          body.push({ type: 'source', sourceId: `final-answer:source${i}`, ...s });
        });
        body.push({ type: 'step-finish', stepId: 'final-answer', finishReason: 'stop' });
      }
      if (r.fatal !== undefined) body.push({ type: 'error', message: r.fatal, code: 'boom', fatal: true });
      body.push({ type: 'run-finish', finishReason: r.fatal !== undefined ? 'error' : 'stop' });
      return body.map((e, seq) => JSON.parse(JSON.stringify({ ...e, runId: 'gen', seq, ts: 1_700_000_000_000 + seq })) as CanonicalEvent);
    });
}
