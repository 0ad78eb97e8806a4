/**
 * Correctness oracle built on the OFFICIAL AG-UI packages (`@ag-ui/client`, `@ag-ui/core`,
 * `@ag-ui/encoder` 1.x).
 *
 * - `runAgUi(body)` runs an SSE body through the whole client pipeline exactly as a browser app
 *   does: `HttpAgent` with a `fetch` that returns the body → `parseSSEStream` → middlewares and the
 *   compatibility boundary → `enforceEvents` (schema) → `transformChunks` → `verifyEvents` →
 *   `defaultApplyEvents`; it returns the messages and state the agent ends with, every event the
 *   subscribers saw, and whatever the client warned or failed with.
 * - `schemaIssues(events)` checks events one by one with `@ag-ui/core`'s `EventSchemas`.
 * - `officialSse(events)` frames events with `@ag-ui/encoder`'s `EventEncoder.encodeSSE`.
 *
 * Everything used is a public export of those packages.
 */
import { createRequire } from 'node:module';
import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';

/** What the official client made of a stream. */
export interface AgUiRun {
  /** `agent.messages` after the run. */
  messages: Message[];
  /** `agent.state` after the run. */
  state: unknown;
  /** Every event the subscribers saw (after schema enforcement, chunk expansion and verification). */
  events: BaseEvent[];
  /** `console.warn` calls during the run (the client warns when it strips or drops material). */
  warnings: string[];
  /** The error the run failed with (verification or schema failure), if any. */
  error?: unknown;
  /** Each MESSAGES_SNAPSHOT with the messages the client held just before it. */
  snapshots: { before: Message[]; snapshot: Message[] }[];
}

export interface RunAgUiOptions {
  initialMessages?: Message[];
  initialState?: unknown;
}

/** Runs an AG-UI SSE body through the official `HttpAgent` pipeline. */
export async function runAgUi(body: string, options: RunAgUiOptions = {}): Promise<AgUiRun> {
  const agent = new HttpAgent({
    url: 'http://agent.invalid/run',
    threadId: 'thread',
    initialMessages: options.initialMessages ?? [],
    initialState: options.initialState ?? {},
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  const events: BaseEvent[] = [];
  const snapshots: AgUiRun['snapshots'] = [];
  const warnings: string[] = [];
  const warn = console.warn;
  const consoleError = console.error;
  console.warn = (...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
  };
  console.error = () => {};
  let error: unknown;
  try {
    await agent.runAgent(
      { runId: 'client-run' },
      {
        onEvent: ({ event }) => {
          events.push(event);
        },
        onMessagesSnapshotEvent: ({ event, messages }) => {
          snapshots.push({ before: structuredClone(messages) as Message[], snapshot: structuredClone(event.messages) as Message[] });
        },
      },
    );
  } catch (err) {
    error = err;
  } finally {
    console.warn = warn;
    console.error = consoleError;
  }
  return { messages: agent.messages, state: agent.state, events, warnings, error, snapshots };
}

/** Schema problems of each event per `@ag-ui/core`'s `EventSchemas` (empty when all are valid). */
export function schemaIssues(events: readonly unknown[]): string[] {
  const issues: string[] = [];
  events.forEach((event, index) => {
    const parsed = EventSchemas.safeParse(event);
    if (!parsed.success) {
      const type = (event as { type?: unknown }).type;
      for (const issue of parsed.error.issues) issues.push(`#${index} ${String(type)} ${issue.path.join('.')}: ${issue.message}`);
    }
  });
  return issues;
}

/** The SSE body the official `EventEncoder.encodeSSE` writes for these events. */
export function officialSse(events: readonly object[]): string {
  const encoder = new EventEncoder();
  return events.map((e) => encoder.encodeSSE(e as BaseEvent)).join('');
}

/** A tool call as the apply step built it. */
export interface AgUiToolSummary {
  toolCallId: string;
  toolName: string;
  /** The arguments parsed as JSON; cut-off arguments repaired as the client does for partial arguments; else the text. */
  input: unknown;
}

/** The comparable content of the messages a run built. */
export interface AgUiSummary {
  /** Content of every assistant message, joined in order. */
  text: string;
  /** Content of each reasoning message. */
  reasoning: string[];
  tools: AgUiToolSummary[];
  /** Tool messages: call id and content. */
  results: { toolCallId: string; content: unknown }[];
}

/**
 * `untruncate-json`, the repair `@ag-ui/client` applies to streaming tool arguments before it hands
 * them to subscribers as `partialToolCallArgs` (a dependency of the client; CommonJS).
 */
const untruncate: (text: string) => string = (() => {
  const mod = createRequire(import.meta.url)('untruncate-json') as ((t: string) => string) | { default: (t: string) => string };
  return typeof mod === 'function' ? mod : mod.default;
})();

/** Tool arguments as the client presents them: JSON, else repaired partial JSON, else the text. */
function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(untruncate(text));
    } catch {
      return text;
    }
  }
}

/** Reduces the messages of a run to what tests compare. */
export function summarizeAgUi(messages: readonly Message[]): AgUiSummary {
  const summary: AgUiSummary = { text: '', reasoning: [], tools: [], results: [] };
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (typeof m.content === 'string') summary.text += m.content;
      for (const c of m.toolCalls ?? [])
        summary.tools.push({ toolCallId: c.id, toolName: c.function.name, input: parseArgs(c.function.arguments) });
    } else if (m.role === 'reasoning') summary.reasoning.push(m.content);
    else if (m.role === 'tool') summary.results.push({ toolCallId: m.toolCallId, content: m.content });
  }
  return summary;
}
