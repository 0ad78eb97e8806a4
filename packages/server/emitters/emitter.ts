/**
 * Switchboard agent emitter for Node agents: prints the simplified Claude agent format's
 * `{"type", "data"}` JSON lines on stdout, with the same API as the Python `switchboard_emitter.py`
 * (`emit`, `emitText`, `emitDone`, …; the Python names `emit_text`, `emit_done`, … are exported
 * too). No dependencies; runs on Node 24 as it is (type stripping).
 *
 * @example
 * import { emitDone, emitStart, emitText, lastUserText, readRequest } from './emitter.ts';
 *
 * const request = await readRequest(); // { chatId, runId, messages: UIMessage[] }
 * emitStart({ model: 'my-model' });
 * emitText(`You said: ${lastUserText(request)}`);
 * await emitDone(); // resolves once everything is written
 *
 * Write logs to stderr (`log()`); stdout is for events only. Configure the agent with
 * `"framework": "claude"` (the default), or `"deepagents"` to render subagent notes as thinking.
 */
import { randomUUID } from 'node:crypto';

/** A JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A todo item: its text, or an object with a status. */
export type Todo =
  | string
  | { content: string; status?: 'pending' | 'in_progress' | 'completed' | 'cancelled'; activeForm?: string; id?: string };

/** One message of the conversation (an AI SDK `UIMessage`). */
export interface RequestMessage {
  id: string;
  role: 'system' | 'user' | 'assistant' | string;
  parts: { type: string; text?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

/** What the server writes on the agent's stdin. */
export interface AgentRequest {
  chatId?: string;
  runId?: string;
  messages: RequestMessage[];
  /** Frontend tools the client declared: call one with `clientToolCall`. */
  tools?: { name: string; description?: string; parameters?: Record<string, unknown> }[];
  /** Answers to interrupts (AG-UI resume entries that are not approvals). */
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[];
}

/** Where the emitter writes: a Node writable (default `process.stdout`). */
export interface EmitterStream {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  writableNeedDrain?: boolean;
}

function dropUndefined(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (v !== undefined) out[k] = v;
  return out;
}

/** Writes events to a stream, one JSON line each. */
export class Emitter {
  private readonly stream: EmitterStream;

  constructor(stream: EmitterStream = process.stdout) {
    this.stream = stream;
  }

  /** Prints one event `{"type": type, "data": data}`. */
  emit(type: string, data: Record<string, unknown> = {}): void {
    this.stream.write(`${JSON.stringify({ type, data })}\n`);
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void> {
    if (!this.stream.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => this.stream.once('drain', resolve));
  }

  /** The run begins (`start`). */
  start(data: { model?: string; prompt_preview?: string; [key: string]: unknown } = {}): void {
    this.emit('start', dropUndefined(data));
  }

  /** Progress for the user (`status`): shown in a collapsible "processing" block. */
  status(message: string): void {
    this.emit('status', { message });
  }

  /** A piece of the answer (`text`); pieces are concatenated. */
  text(content: string): void {
    this.emit('text', { content });
  }

  /** A piece of model reasoning (`thinking`). */
  thinking(content: string): void {
    this.emit('thinking', { content });
  }

  /** A reflection of a think tool (`think`). */
  think(thought: string, id?: string): void {
    this.emit('think', dropUndefined({ thought, id }));
  }

  /** A tool call with its complete input (`tool_use`). */
  toolUse(id: string, name: string, input: Record<string, unknown> = {}): void {
    this.emit('tool_use', { id, name, input });
  }

  /** The result of a tool call (`tool_result`). */
  toolResult(toolUseId: string, content: unknown, isError = false): void {
    this.emit('tool_result', isError ? { tool_use_id: toolUseId, content, is_error: true } : { tool_use_id: toolUseId, content });
  }

  /**
   * A tool call that waits for a person's approval (`approval_request`). End the run after it
   * (`done()`): the next run's request carries the answer (the call's part in state
   * `approval-responded`, `approval.approved`; see docs/agents.md).
   */
  approvalRequest(
    id: string,
    name: string,
    input: Record<string, unknown> = {},
    options: { approvalId?: string; reason?: string } = {},
  ): void {
    this.emit('approval_request', dropUndefined({ id, name, input, approval_id: options.approvalId, reason: options.reason }));
  }

  /**
   * A tool call the client runs (`client_tool_call`, a frontend tool the request declared in `tools`).
   * End the run after it: the next run's request carries the output (state `output-available`).
   */
  clientToolCall(id: string, name: string, input: Record<string, unknown> = {}): void {
    this.emit('client_tool_call', { id, name, input });
  }

  /** The agent stops to ask for something (`interrupt`); the next run's request carries the answer in `resume`. */
  interrupt(
    id: string,
    reason: string,
    options: { message?: string; value?: unknown; responseSchema?: Record<string, unknown> } = {},
  ): void {
    this.emit(
      'interrupt',
      dropUndefined({ id, reason, message: options.message, value: options.value, response_schema: options.responseSchema }),
    );
  }

  /** A new todo list (`todo_create`). */
  todoCreate(items: readonly Todo[]): void {
    this.emit('todo_create', { items });
  }

  /** The whole todo list again, with new statuses (`todo_update`). */
  todoUpdate(items: readonly Todo[]): void {
    this.emit('todo_update', { items });
  }

  /** One todo item completed (`todo_done`), by 0-based index, id or content. */
  todoDone(which: number | { index?: number; id?: string; content?: string }): void {
    this.emit('todo_done', typeof which === 'number' ? { index: which } : dropUndefined(which));
  }

  /** A subagent was started (`subagent_start`). */
  subagentStart(agent: string, task?: string, id?: string): void {
    this.emit('subagent_start', dropUndefined({ agent, task, id }));
  }

  /** A subagent finished (`subagent_complete`). */
  subagentComplete(agent: string, summary?: string, id?: string): void {
    this.emit('subagent_complete', dropUndefined({ agent, summary, id }));
  }

  /** Token usage of one model call (`usage`). */
  usage(inputTokens: number, outputTokens: number, extra: Record<string, unknown> = {}): void {
    this.emit('usage', { input_tokens: inputTokens, output_tokens: outputTokens, ...extra });
  }

  /** Final statistics (`result`). */
  result(data: { duration_ms?: number; num_turns?: number; usage?: Record<string, unknown>; [key: string]: unknown } = {}): void {
    this.emit('result', dropUndefined(data));
  }

  /** The run failed (`error`); follow it with `done()`. */
  error(message: string, code?: string): void {
    this.emit('error', dropUndefined({ message, code }));
  }

  /** The run is over (`done`); resolves once it is written. Print nothing after it, and exit 0. */
  done(): Promise<void> {
    this.emit('done', {});
    return this.flush();
  }
}

/** The emitter on `process.stdout`, behind the functions below. */
export const emitter = new Emitter();

/** Prints one event `{"type": type, "data": data}` on stdout. */
export const emit = (type: string, data?: Record<string, unknown>): void => emitter.emit(type, data);
export const emitStart = (data?: Parameters<Emitter['start']>[0]): void => emitter.start(data);
export const emitStatus = (message: string): void => emitter.status(message);
export const emitText = (content: string): void => emitter.text(content);
export const emitThinking = (content: string): void => emitter.thinking(content);
export const emitThink = (thought: string, id?: string): void => emitter.think(thought, id);
export const emitToolUse = (id: string, name: string, input?: Record<string, unknown>): void => emitter.toolUse(id, name, input);
export const emitToolResult = (toolUseId: string, content: unknown, isError?: boolean): void =>
  emitter.toolResult(toolUseId, content, isError);
export const emitApprovalRequest = (...args: Parameters<Emitter['approvalRequest']>): void => emitter.approvalRequest(...args);
export const emitClientToolCall = (...args: Parameters<Emitter['clientToolCall']>): void => emitter.clientToolCall(...args);
export const emitInterrupt = (...args: Parameters<Emitter['interrupt']>): void => emitter.interrupt(...args);
export const emitTodoCreate = (items: readonly Todo[]): void => emitter.todoCreate(items);
export const emitTodoUpdate = (items: readonly Todo[]): void => emitter.todoUpdate(items);
export const emitTodoDone = (which: Parameters<Emitter['todoDone']>[0]): void => emitter.todoDone(which);
export const emitSubagentStart = (agent: string, task?: string, id?: string): void => emitter.subagentStart(agent, task, id);
export const emitSubagentComplete = (agent: string, summary?: string, id?: string): void => emitter.subagentComplete(agent, summary, id);
export const emitUsage = (inputTokens: number, outputTokens: number, extra?: Record<string, unknown>): void =>
  emitter.usage(inputTokens, outputTokens, extra);
export const emitResult = (data?: Parameters<Emitter['result']>[0]): void => emitter.result(data);
export const emitError = (message: string, code?: string): void => emitter.error(message, code);
/** Prints `done`; resolves once everything is written. */
export const emitDone = (): Promise<void> => emitter.done();
/**
 * Resolves once stdout has taken everything written so far. Await it now and then in a long loop:
 * when the server reads slowly, this is where the agent waits (instead of buffering in memory).
 */
export const flush = (): Promise<void> => emitter.flush();

// The Python emitter's snake_case names, for agents ported from Python.
export {
  emitApprovalRequest as emit_approval_request,
  emitClientToolCall as emit_client_tool_call,
  emitDone as emit_done,
  emitError as emit_error,
  emitInterrupt as emit_interrupt,
  emitResult as emit_result,
  emitStart as emit_start,
  emitStatus as emit_status,
  emitSubagentComplete as emit_subagent_complete,
  emitSubagentStart as emit_subagent_start,
  emitText as emit_text,
  emitThink as emit_think,
  emitThinking as emit_thinking,
  emitTodoCreate as emit_todo_create,
  emitTodoDone as emit_todo_done,
  emitTodoUpdate as emit_todo_update,
  emitToolResult as emit_tool_result,
  emitToolUse as emit_tool_use,
  emitUsage as emit_usage,
};

/** Reads the run request the server writes on stdin (`{ messages: [] }` when stdin is empty). */
export async function readRequest(stream: AsyncIterable<Uint8Array | string> = process.stdin): Promise<AgentRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return { messages: [] };
  const request = JSON.parse(text) as AgentRequest;
  if (typeof request !== 'object' || request === null || Array.isArray(request)) throw new TypeError('expected a JSON object on stdin');
  request.messages ??= [];
  return request;
}

/** The text parts of one message, joined. */
export function messageText(message: RequestMessage): string {
  return message.parts.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}

/** Text of the last user message of the request, or ''. */
export function lastUserText(request: AgentRequest): string {
  const message = request.messages.findLast((m) => m.role === 'user');
  return message ? messageText(message) : '';
}

/** A fresh id for a tool call or a think entry, e.g. `toolu_3f2a…`. */
export function newId(prefix = 'id'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

/** Prints a log line on stderr (the server logs it with the agent's name; clients never see it). */
export function log(...args: unknown[]): void {
  process.stderr.write(`${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`);
}
