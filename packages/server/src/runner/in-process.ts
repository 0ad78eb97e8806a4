/**
 * Runs an in-process agent (the built-ins: demo, replay, the SDK agents) with the same contract as
 * an agent process: the same run request, the same limits (run time, idle time), client aborts
 * ending with `run-abort`, failures with a fatal `error` + `run-finish`, and the same sequencing.
 * The agent is a function from a context to canonical events; it must stop when the context's
 * signal aborts (fetch does).
 */
import type { CanonicalEvent, DecoderOptions, Framework } from '@switchboard/core';
import { Pages } from './pages.ts';
import { RunSequencer } from './sequencer.ts';
import type { AgentExit, AgentLimits, AgentRun, RunnerLogger, RunOptions, RunRequest } from './types.ts';
import { consoleLogger } from './types.ts';

/** What an in-process agent is given. */
export interface InProcessContext {
  request: RunRequest;
  /** Aborts when the client goes away or a limit is hit: stop at once. */
  signal: AbortSignal;
  /** The server's environment (API keys are read from it at run time). */
  env: Readonly<Record<string, string | undefined>>;
  /** Clock for `ts`. */
  now: () => number;
  logger: RunnerLogger;
}

/** An in-process agent. */
export type InProcessAgent = (context: InProcessContext) => AsyncIterable<CanonicalEvent>;

/** Decoder options of a run: its ids, the agent's name and the clock. */
export function decoderOptions(ctx: InProcessContext, agent: string): DecoderOptions {
  const r = ctx.request;
  return {
    runId: r.runId,
    agent,
    now: ctx.now,
    ...(r.chatId !== undefined ? { chatId: r.chatId } : {}),
    ...(r.messageId !== undefined ? { messageId: r.messageId } : {}),
  };
}

/** An error an in-process agent throws to end its run with a given code (e.g. `provider_error`). */
export class AgentError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = 'AgentError';
  }
}

type Stop = { kind: 'abort'; reason: string } | { kind: 'fail'; code: string; message: string };

const STOPPED = Symbol('stopped');

/** Runs an in-process agent as an `AgentRun`. Nothing starts until the first `next()`. */
export function runInProcess(
  agent: { name: string; framework: Framework | 'auto'; limits: AgentLimits },
  request: RunRequest,
  options: RunOptions,
  make: InProcessAgent,
): AgentRun {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? consoleLogger;
  const seq = new RunSequencer({
    runId: request.runId,
    agent: agent.name,
    provider: agent.framework,
    now,
    ...(request.chatId !== undefined ? { chatId: request.chatId } : {}),
    ...(request.messageId !== undefined ? { messageId: request.messageId } : {}),
    ...(request.prelude ? { prelude: request.prelude } : {}),
  });
  const controller = new AbortController();
  let stop: Stop | undefined;
  let closing = false;
  /** Ends the wait for the source's step in progress (set per step). */
  let wakeStop: (() => void) | undefined;
  const timers = new Set<NodeJS.Timeout>();
  let idleArmed = false;

  const log = (level: Parameters<RunnerLogger['log']>[0], message: string) => {
    try {
      logger.log(level, message, { agent: agent.name, runId: request.runId });
    } catch {
      // A broken logger must not break the run.
    }
  };
  const halt = (s: Stop) => {
    if (stop || closing) return;
    stop = s;
    if (s.kind === 'fail') log('warn', `stopping: ${s.message}`);
    controller.abort(s.kind === 'abort' ? s.reason : s.message);
    wakeStop?.();
  };
  const timer = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };
  // The idle timer is not reset per event (a timer per event costs more than the event): it
  // fires, looks at when the agent last produced something, and waits again for the rest.
  let lastActive = 0;
  const checkIdle = () => {
    const ms = agent.limits.idleTimeoutMs;
    const quiet = performance.now() - lastActive;
    if (quiet < ms) timer(Math.max(1, Math.ceil(ms - quiet)), checkIdle);
    else halt({ kind: 'fail', code: 'timeout', message: `agent "${agent.name}" produced nothing for ${ms} ms (idle timeout)` });
  };
  const armIdle = () => {
    lastActive = performance.now();
    if (idleArmed) return;
    idleArmed = true;
    timer(agent.limits.idleTimeoutMs, checkIdle);
  };
  const onAbort = () => {
    const r: unknown = request.signal?.reason;
    halt({
      kind: 'abort',
      reason: typeof r === 'string' ? r : r instanceof Error && r.name !== 'AbortError' ? r.message : 'client disconnected',
    });
  };

  let source: AsyncIterator<CanonicalEvent> | undefined;
  /** A next() of the source that has not settled: return() must not wait for it. */
  let pending = false;

  /** The run's events, a page per agent step (pages.ts). */
  async function* pages(): AsyncGenerator<CanonicalEvent[], undefined> {
    let out: CanonicalEvent[] = [];
    try {
      if (request.signal?.aborted) {
        onAbort();
      } else {
        request.signal?.addEventListener('abort', onAbort, { once: true });
        timer(agent.limits.timeoutMs, () =>
          halt({
            kind: 'fail',
            code: 'timeout',
            message: `agent "${agent.name}" ran longer than ${agent.limits.timeoutMs} ms (run timeout)`,
          }),
        );
        armIdle();
        try {
          source = make({ request, signal: controller.signal, env: options.env ?? process.env, now, logger })[Symbol.asyncIterator]();
          while (!stop && !closing) {
            pending = true;
            const step = source.next();
            // Whichever comes first: the step, or a stop (one promise per step; Promise.race
            // would also leave a reaction on a shared "stopped" promise per event). A step left
            // behind when the run stops first rejects into `reject` of a settled promise: handled,
            // and nobody's business then.
            const next = await new Promise<IteratorResult<CanonicalEvent> | typeof STOPPED>((resolve, reject) => {
              wakeStop = () => resolve(STOPPED);
              step.then(resolve, reject);
            });
            if (next === STOPPED) break;
            pending = false;
            if (next.done) break;
            armIdle();
            seq.pass(next.value, out);
            if (out.length) {
              yield out;
              out = [];
            }
          }
        } catch (err) {
          pending = false;
          if (!stop && !closing) {
            const code = err instanceof AgentError ? err.code : 'agent_failed';
            const message = err instanceof Error ? err.message : String(err);
            log('error', `failed: ${message}`);
            halt({ kind: 'fail', code, message: err instanceof AgentError ? message : `agent "${agent.name}" failed: ${message}` });
          }
        }
      }
      if (closing) return;
      if (!seq.release(out)) {
        if (stop?.kind === 'abort') seq.abort(stop.reason, out);
        else if (stop) seq.fail(stop.code, stop.message, out);
        else seq.finishTruncated(out);
      }
      if (out.length) yield out;
    } finally {
      closing = true;
      request.signal?.removeEventListener('abort', onAbort);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      if (!controller.signal.aborted) controller.abort('run ended');
      // A source stuck in a next() that ignores its signal is left to settle on its own.
      if (source && !pending) await source.return?.().catch(() => {});
      else if (source) void source.return?.()?.catch(() => {});
    }
  }

  const gen = new Pages(pages());
  const run: AgentRun = {
    agent: agent.name,
    runId: request.runId,
    pid: undefined,
    bufferedBytes: 0,
    exited: Promise.resolve<AgentExit | undefined>(undefined),
    [Symbol.asyncIterator]() {
      return run;
    },
    next: () => gen.next(),
    nextPage: () => gen.nextPage(),
    async return() {
      closing = true;
      controller.abort('run closed');
      wakeStop?.();
      return gen.return();
    },
    async throw(err?: unknown) {
      closing = true;
      controller.abort('run closed');
      wakeStop?.();
      return gen.throw(err);
    },
  };
  return run;
}
