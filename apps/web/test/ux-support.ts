/**
 * What the chat UX tests run on: the real gateway with the demo agent, the replay agent reading the
 * recorded captures of `test/fixtures/`, and a *scripted* agent whose events the test releases one
 * step at a time — so "while it streams" is a state the test controls, never a race.
 */
import { fileURLToPath } from 'node:url';
import { decode } from '@switchboard/core';

import type { AgentEvent } from '../../../packages/server/src/agents/agent.ts';
import { resolveConfig } from '../../../packages/server/src/config/load.ts';
import { decoderOptions } from '../../../packages/server/src/runner/in-process.ts';
import { type RunningServer, startServer } from '../../../packages/server/src/server/start.ts';
import { tempDataDir } from './support.ts';

export const CAPTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The events of one run of the scripted agent, released by the test. */
export class Feed {
  private readonly queue: AgentEvent[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  /** Resolves when the run started reading this feed. */
  readonly started: Promise<void>;
  private markStarted!: () => void;
  /** Resolves when the run ended (finished, or aborted: `aborted` says which). */
  readonly ended: Promise<void>;
  private markEnded!: () => void;
  aborted = false;

  constructor() {
    this.started = new Promise((r) => {
      this.markStarted = r;
    });
    this.ended = new Promise((r) => {
      this.markEnded = r;
    });
  }

  /** Releases events to the agent. */
  push(...events: AgentEvent[]): void {
    this.queue.push(...events);
    this.wake?.();
  }

  /** Releases some text. */
  text(content: string): void {
    this.push({ type: 'text', data: { content } });
  }

  /** Ends the run normally. */
  done(): void {
    this.push({ type: 'done', data: {} });
    this.closed = true;
    this.wake?.();
  }

  async *events(signal: AbortSignal): AsyncGenerator<AgentEvent> {
    this.markStarted();
    try {
      yield { type: 'start', data: { model: 'scripted' } };
      for (;;) {
        while (this.queue.length) yield this.queue.shift() as AgentEvent;
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          // Aborted while this generator waited to be read: the abort event has already fired.
          if (signal.aborted) return resolve();
          this.wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        this.wake = undefined;
        if (signal.aborted) {
          this.aborted = true;
          return;
        }
      }
    } finally {
      this.markEnded();
    }
  }
}

/** Runs of the scripted agent take the feeds in the order the test queued them. */
export class Script {
  private readonly feeds: Feed[] = [];
  private readonly waiting: ((f: Feed) => void)[] = [];

  /** The feed of the next run. */
  next(): Feed {
    const f = new Feed();
    const w = this.waiting.shift();
    if (w) w(f);
    else this.feeds.push(f);
    return f;
  }

  take(): Promise<Feed> {
    const f = this.feeds.shift();
    return f ? Promise.resolve(f) : new Promise((resolve) => this.waiting.push(resolve));
  }
}

export interface UxServer {
  server: RunningServer;
  script: Script;
}

/** The gateway for the UX tests: demo (40 ms between events), replay over test/fixtures, scripted. */
export async function startUxServer(): Promise<UxServer> {
  process.env.SWITCHBOARD_DATA_DIR ??= await tempDataDir();
  const script = new Script();
  const { openSqliteStore } = await import('@switchboard/store');
  const store = await openSqliteStore({ path: `${await tempDataDir()}/ux.db` });
  const server = await startServer({
    port: 0,
    store,
    config: resolveConfig(
      {
        builtins: { demo: { delayMs: 40 }, replay: { dir: CAPTURES, speed: 0 } },
        // The page and the tests make well over 120 API requests a minute from one address: no rate
        // limit here (its own tests are the gateway's).
        limits: { rateLimitPerMinute: 0 },
      },
      { env: {} },
    ),
    onError: () => {},
    agents: [
      {
        name: 'scripted',
        description: 'A test agent whose events the test releases',
        framework: 'claude',
        run: (ctx) => {
          const lines = async function* () {
            const feed = await script.take();
            yield* feed.events(ctx.signal);
          };
          return decode(lines(), 'claude', decoderOptions(ctx, 'scripted'));
        },
      },
    ],
  });
  const close = server.close;
  server.close = async () => {
    await close();
    await store.close();
  };
  return { server, script };
}
