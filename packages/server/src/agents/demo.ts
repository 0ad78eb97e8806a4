/**
 * The built-in demo agent: speaks the simplified Claude agent format with no model behind it, so the
 * whole pipeline (decoder → canonical events → encoder → UI) can be seen working offline.
 *
 * By default it shows every block kind: status lines (processing), thinking, a todo list, a tool
 * call and an answer that echoes the user's text. It also understands the Observability Assistant
 * UI's demo commands: `step`, `tool [city]`, `text <words>`, `code <code>` and `error`.
 */
import type { AgentEvent, AgentFactory, AgentTodo } from './agent.ts';
import { pause } from './replay.ts';

/** Default pause between two events: slow enough for a person to see the stream. */
export const DEMO_DELAY_MS = 40;

/** Options of the demo agent. */
export interface DemoOptions {
  /** Pause between events in milliseconds (default `DEMO_DELAY_MS`; 0 for tests). */
  delayMs?: number;
  /** Stops the agent: a pending pause ends at once and nothing more is produced. */
  signal?: AbortSignal;
  /** Clock for `result.duration_ms`. Default `Date.now`. */
  now?: () => number;
  /** The conversation (AI SDK UIMessages): a continuation's answers are in its last message. */
  messages?: readonly DemoMessage[];
}

/** A message of the conversation, as the demo reads it. */
export type DemoMessage = { id: string; role: string; parts: readonly object[] };

const MODEL = 'switchboard-demo';
const ECHO_LIMIT = 280;

/** Splits text into word-sized fragments that join back to the exact text. */
function fragments(text: string): string[] {
  return text.match(/\s+|\S+\s*/g) ?? [];
}

function* textOf(text: string): Generator<AgentEvent> {
  for (const content of fragments(text)) yield { type: 'text', data: { content } };
}

function* thinkingOf(text: string): Generator<AgentEvent> {
  for (const content of fragments(text)) yield { type: 'thinking', data: { content } };
}

/** Rough token count for the demo's usage report. */
function words(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

function preview(text: string, limit = ECHO_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** A fence longer than any backtick run in the code, so the block cannot end early. */
function fence(code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function todos(...items: string[]): AgentTodo[] {
  return items.map((content, i) => ({ content, status: i === 0 ? 'in_progress' : 'pending' }));
}

function weather(city: string) {
  return { city, temperature: 18, unit: 'celsius', conditions: 'partly cloudy' };
}

function* full(prompt: string, suffix = ''): Generator<AgentEvent, string> {
  yield { type: 'status', data: { message: 'Analyzing the request…' } };
  yield { type: 'status', data: { message: 'Planning the answer…' } };
  yield { type: 'todo_create', data: { items: todos('Understand the request', 'Check the weather', 'Write the answer') } };
  const quoted = prompt ? `“${preview(prompt)}”` : 'an empty message';
  yield* thinkingOf(`The user wrote ${quoted}. A short, friendly reply fits. Looking up the weather first shows a tool call.`);
  yield { type: 'todo_done', data: { index: 0 } };
  const id = `toolu_demo_weather${suffix}`;
  const input = { city: 'Paris', unit: 'celsius' };
  yield { type: 'tool_use', data: { id, name: 'get_weather', input } };
  yield { type: 'tool_result', data: { tool_use_id: id, content: weather(input.city) } };
  yield { type: 'todo_done', data: { index: 1 } };
  const answer =
    `You said ${quoted}. It is 18 °C and partly cloudy in Paris. ` +
    'This answer was streamed by the Switchboard demo agent through the canonical event model. ' +
    'Try the commands step, tool, text <words>, code <code> or error.';
  yield* textOf(answer);
  yield { type: 'todo_done', data: { index: 2 } };
  return answer;
}

function* steps(): Generator<AgentEvent, string> {
  const names = ['Gather context', 'Work it out', 'Check the result'];
  yield { type: 'todo_create', data: { items: todos(...names) } };
  for (const [i, name] of names.entries()) {
    yield { type: 'status', data: { message: `Step ${i + 1}/3: ${name}…` } };
    yield { type: 'status', data: { message: `Step ${i + 1}/3 done` } };
    yield { type: 'todo_done', data: { index: i } };
  }
  const answer = 'All 3 steps completed.';
  yield* textOf(answer);
  return answer;
}

function* tool(city: string, suffix = ''): Generator<AgentEvent, string> {
  yield { type: 'status', data: { message: 'Choosing a tool…' } };
  const id = `toolu_demo_tool${suffix}`;
  const input = { city, unit: 'celsius' };
  yield { type: 'tool_use', data: { id, name: 'get_weather', input } };
  const output = weather(city);
  yield { type: 'tool_result', data: { tool_use_id: id, content: output } };
  const answer = `get_weather says it is ${output.temperature} °C and ${output.conditions} in ${city}.`;
  yield* textOf(answer);
  return answer;
}

function* code(source: string): Generator<AgentEvent, string> {
  const f = fence(source);
  const answer = `${f}\n${source}\n${f}\n`;
  yield { type: 'text', data: { content: `${f}\n` } };
  yield* textOf(source);
  yield { type: 'text', data: { content: `\n${f}\n` } };
  return answer;
}

type ToolPartLike = { type?: unknown; toolCallId?: unknown; state?: unknown; output?: unknown; approval?: { approved?: unknown } };

/** The answered tool part of the continued (last, assistant) message, if the run continues one. */
function answered(messages: readonly DemoMessage[] | undefined): ToolPartLike | undefined {
  const last = messages?.at(-1);
  if (last?.role !== 'assistant') return undefined;
  return (last.parts as readonly ToolPartLike[]).findLast(
    (p) =>
      (p.type === 'tool-delete_file' && p.state === 'approval-responded' && typeof p.approval?.approved === 'boolean') ||
      (p.type === 'tool-get_location' && p.state === 'output-available'),
  );
}

/** A tool call id no earlier message of the conversation used. */
function callId(name: string, messages: readonly DemoMessage[] | undefined): string {
  return `call_${name}_${(messages?.filter((m) => m.role === 'assistant').length ?? 0) + 1}`;
}

/** The continuation of `approval` / `location`: what the answer leads to. */
function* continued(part: ToolPartLike): Generator<AgentEvent, string> {
  if (part.type === 'tool-get_location') {
    const place = typeof part.output === 'string' ? part.output : JSON.stringify(part.output);
    const answer = `You are in ${place}`;
    yield* textOf(answer);
    return answer;
  }
  if (part.approval?.approved !== true) {
    const answer = 'Left notes.txt alone';
    yield* textOf(answer);
    return answer;
  }
  yield { type: 'tool_result', data: { tool_use_id: String(part.toolCallId), content: { deleted: 'notes.txt' } } };
  const answer = 'Deleted notes.txt';
  yield* textOf(answer);
  return answer;
}

/**
 * The demo's events for one prompt, computed lazily (so `duration_ms` measures the real run).
 * Pure apart from the clock: the same prompt always gives the same events.
 */
export function* demoScript(prompt: string, now: () => number = Date.now, messages?: readonly DemoMessage[]): Generator<AgentEvent> {
  const started = now();
  const text = prompt.trim();
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  const command = match?.[1].toLowerCase() ?? '';
  const arg = match?.[2] ?? '';

  yield { type: 'start', data: { model: MODEL, prompt_preview: preview(text, 80) } };
  const answer = answered(messages);
  if (answer) {
    yield* continued(answer);
    yield { type: 'done', data: {} };
    return;
  }
  if (command === 'approval') {
    const data = { id: callId('delete_file', messages), name: 'delete_file', input: { path: 'notes.txt' } };
    yield { type: 'approval_request', data: { ...data, reason: 'Deleting a file cannot be undone.' } };
    yield { type: 'done', data: {} };
    return;
  }
  if (command === 'location') {
    yield { type: 'client_tool_call', data: { id: callId('get_location', messages), name: 'get_location', input: {} } };
    yield { type: 'done', data: {} };
    return;
  }
  yield* commands(command, arg, text, started, now, turnSuffix(messages));
}

/**
 * Tool-call ids unique within a chat: the first answer keeps the plain ids, later ones get `_<n>`
 * (a client that keeps a thread, AG-UI's HttpAgent, would add a second call's input to the first).
 */
function turnSuffix(messages: readonly DemoMessage[] | undefined): string {
  const turn = (messages?.filter((m) => m.role === 'assistant').length ?? 0) + 1;
  return turn > 1 ? `_${turn}` : '';
}

/** The commands that answer in one run. */
function* commands(command: string, arg: string, text: string, started: number, now: () => number, suffix: string): Generator<AgentEvent> {
  let answer: string;
  switch (command) {
    case 'step':
      answer = yield* steps();
      break;
    case 'tool':
      answer = yield* tool(arg || 'Paris', suffix);
      break;
    case 'text':
      answer = arg || 'Hello from the Switchboard demo agent.';
      yield* textOf(answer);
      break;
    case 'code':
      answer = yield* code(arg || "console.log('hello from Switchboard');");
      break;
    case 'error':
      yield { type: 'status', data: { message: 'Calling a flaky service…' } };
      yield { type: 'error', data: { code: 'demo_error', message: 'The demo agent failed on purpose (you sent "error").' } };
      yield { type: 'done', data: {} };
      return;
    default:
      answer = yield* full(text, suffix);
  }
  const usage = { input_tokens: words(text), output_tokens: words(answer) };
  yield { type: 'result', data: { duration_ms: now() - started, num_turns: 1, usage } };
  yield { type: 'done', data: {} };
}

/** Runs the demo for one prompt, pausing `delayMs` between events; stops when `signal` aborts. */
export async function* demoAgent(prompt: string, options: DemoOptions = {}): AsyncGenerator<AgentEvent> {
  const { delayMs = DEMO_DELAY_MS, signal, now, messages } = options;
  let first = true;
  for (const event of demoScript(prompt, now, messages)) {
    if (!first && delayMs > 0) await pause(delayMs, signal);
    if (signal?.aborted) return;
    first = false;
    yield event;
  }
}

/** The demo agent as an `AgentFactory`. */
export function createDemoAgent(options: Omit<DemoOptions, 'signal'> = {}): AgentFactory {
  return (request) => demoAgent(request.prompt, { ...options, signal: request.signal, messages: request.messages });
}
