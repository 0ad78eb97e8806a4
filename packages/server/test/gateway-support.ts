/**
 * Helpers of the gateway tests: servers with test agents, SSE reading that stops at an exact event
 * boundary, a gate that holds an agent mid-run (so "live" is a state the test controls, not a
 * timing), WebSocket clients that wait for frames.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { decode } from '@switchboard/core';

import type { AgentEvent } from '../src/agents/agent.ts';
import { resolveConfig } from '../src/config/load.ts';
import type { SwitchboardConfig } from '../src/config/types.ts';
import { decoderOptions, type InProcessContext } from '../src/runner/in-process.ts';
import type { RunnerLogger } from '../src/runner/types.ts';
import type { InProcessAgentSpec } from '../src/server/agent-registry.ts';

/** examples/agents/echo.py. */
export const ECHO_PY = fileURLToPath(new URL('../../../examples/agents/echo.py', import.meta.url));

/** A logger that keeps runner lines (tests stay quiet). */
export function quietLogger(lines: string[] = []): RunnerLogger {
  return { log: (level, message, f) => lines.push(`${level} [${f.agent}] ${message}`) };
}

/** A config with the Python echo agent (`echo-py`, no pacing) beside the built-ins. */
export function testConfig(file: Record<string, unknown> = {}): SwitchboardConfig {
  return resolveConfig(
    {
      agents: [
        {
          name: 'echo-py',
          description: 'examples/agents/echo.py',
          command: 'python3',
          args: [ECHO_PY],
          framework: 'claude',
          setEnv: { ECHO_DELAY_MS: '0', PYTHONUNBUFFERED: '1' },
          timeoutMs: 60_000,
          idleTimeoutMs: 60_000,
        },
      ],
      builtins: { demo: { delayMs: 0 } },
      ...file,
    },
    { env: {} },
  );
}

/** A promise the test opens when it wants. */
export class Gate {
  readonly opened: Promise<void>;
  open!: () => void;
  constructor() {
    this.opened = new Promise((resolve) => {
      this.open = resolve;
    });
  }
}

/** An in-process agent (agent lines, decoded as `claude`) from a function of its run's context. */
export function linesAgent(name: string, lines: (ctx: InProcessContext) => AsyncIterable<AgentEvent>): InProcessAgentSpec {
  return { name, framework: 'claude', run: (ctx) => decode(lines(ctx), 'claude', decoderOptions(ctx, name)) };
}

/**
 * An in-process agent that writes `before`, then waits for `gate` (or its abort), then writes
 * `after` and finishes. `started` resolves when it is waiting at the gate.
 */
export function gatedAgent(
  name: string,
  gate: Gate,
  options: { before?: string[]; after?: string[]; onStop?: () => void } = {},
): { spec: InProcessAgentSpec; waiting: Promise<void> } {
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const before = options.before ?? ['Hello ', 'from ', 'the first half. '];
  const after = options.after ?? ['And ', 'the second ', 'half.'];
  const spec = linesAgent(name, (ctx) => {
    async function* lines(): AsyncGenerator<AgentEvent> {
      try {
        yield { type: 'start', data: { model: 'gated' } };
        yield { type: 'thinking', data: { content: 'Thinking about it.' } };
        for (const t of before) yield { type: 'text', data: { content: t } };
        reached();
        await Promise.race([
          gate.opened,
          new Promise((resolve) =>
            ctx.signal.aborted ? resolve(undefined) : ctx.signal.addEventListener('abort', resolve, { once: true }),
          ),
        ]);
        if (ctx.signal.aborted) return;
        for (const t of after) yield { type: 'text', data: { content: t } };
        yield { type: 'done', data: {} };
      } finally {
        options.onStop?.();
      }
    }
    return lines();
  });
  return { spec, waiting };
}

/** Reads a streaming body chunk by chunk; `until` decides when to stop (the rest stays unread). */
export class BodyReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly utf8 = new TextDecoder();
  text = '';
  done = false;
  constructor(response: Response) {
    assert.ok(response.body, 'a streaming body');
    this.reader = response.body.getReader();
  }

  /** Reads until `predicate(text)` holds (or the body ends). */
  async until(predicate: (text: string) => boolean): Promise<string> {
    while (!predicate(this.text)) {
      const { done, value } = await this.reader.read();
      if (done) {
        this.done = true;
        this.text += this.utf8.decode();
        break;
      }
      this.text += this.utf8.decode(value, { stream: true });
    }
    return this.text;
  }

  /** Reads to the end. */
  async all(): Promise<string> {
    return this.until(() => false);
  }

  /** Stops reading (the connection goes away). */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

/** The complete SSE events of `text` (up to the last blank line) and the id of the last one. */
export function completeEvents(text: string): { prefix: string; count: number; lastId: string | undefined } {
  const end = text.lastIndexOf('\n\n');
  const prefix = end === -1 ? '' : text.slice(0, end + 2);
  const events = prefix.split('\n\n').filter((e) => e !== '');
  let lastId: string | undefined;
  for (const e of events) for (const line of e.split('\n')) if (line.startsWith('id: ')) lastId = line.slice(4);
  return { prefix, count: events.length, lastId };
}

/** The `data:` payloads of an SSE text, parsed (`[DONE]` kept as a string). */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const e of text.split('\n\n')) {
    const data = e
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    if (data === '') continue;
    out.push(data === '[DONE]' ? data : JSON.parse(data));
  }
  return out;
}

/** JSON `fetch` with an optional bearer token. */
export async function api(base: string, path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<Response> {
  const { token, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (json !== undefined) headers.set('content-type', 'application/json');
  return fetch(`${base}${path}`, {
    ...rest,
    headers,
    ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? 'POST' } : {}),
  });
}

/** A user UIMessage. */
export function userMessage(text: string, id = crypto.randomUUID()) {
  return { id, role: 'user' as const, parts: [{ type: 'text' as const, text }] };
}

/** A WebSocket client (Node's global WebSocket) that queues the envelopes it receives. */
export class WsClient {
  readonly ws: WebSocket;
  private readonly queue: { event: string; data?: Record<string, unknown> }[] = [];
  private waiter: (() => void) | undefined;
  closed = false;
  readonly opened: Promise<void>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.addEventListener('open', () => resolve(), { once: true });
      this.ws.addEventListener('error', () => reject(new Error('WebSocket error')), { once: true });
    });
    this.ws.addEventListener('message', (m) => {
      this.queue.push(JSON.parse(String(m.data)));
      this.waiter?.();
    });
    this.ws.addEventListener('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Takes envelopes until `predicate` accepts one; returns everything taken (the accepted one last). */
  async until(
    predicate: (e: { event: string; data?: Record<string, unknown> }) => boolean,
  ): Promise<{ event: string; data?: Record<string, unknown> }[]> {
    const taken: { event: string; data?: Record<string, unknown> }[] = [];
    for (;;) {
      while (this.queue.length) {
        const e = this.queue.shift() as { event: string; data?: Record<string, unknown> };
        taken.push(e);
        if (predicate(e)) return taken;
      }
      if (this.closed) throw new Error(`socket closed; got ${JSON.stringify(taken.map((e) => e.event))}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
      this.waiter = undefined;
    }
  }

  close(): void {
    this.ws.close();
  }
}

/** True when frame `e` is the `complete` frame (the end of a run) of the ws encoder. */
export const isComplete = (e: { event: string; data?: Record<string, unknown> }) =>
  e.event === 'agent:event' && e.data?.type === 'complete';
