/**
 * Runs an agent as a child process, one per run: the conversation goes to its stdin as one JSON
 * document, its stdout is read as JSON lines through the configured decoder, its stderr goes to the
 * log. The run is a pull-based async iterator: stdout is read only as fast as the consumer takes
 * events (reading pauses when too much is unread, so the agent blocks on its writes), and limits,
 * timeouts, client aborts and crashes all end the run with clean canonical events and no process
 * left behind.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { CanonicalEvent, Machine } from '@switchboard/core';
import type { ProcessAgent } from '../config/types.ts';
import { buildAgentEnv } from './env.ts';
import type { LineSplitter } from './lines.ts';
import { Pages } from './pages.ts';
import type { RunSequencer } from './sequencer.ts';
import { describeExit, StderrLines } from './stderr.ts';
import { createStdoutReader } from './stdout.ts';
import { RunTimers } from './timers.ts';
import { type AgentExit, type AgentRun, consoleLogger, type RunnerLogger, type RunOptions, type RunRequest } from './types.ts';

/** Why the runner ended a run itself. */
type Stop = { kind: 'abort'; reason: string } | { kind: 'fail'; code: string; message: string };

const POSIX = process.platform !== 'win32';

/** A reason of an aborted signal, in words. */
function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (typeof r === 'string') return r;
  if (r instanceof Error && r.name !== 'AbortError') return r.message;
  return 'client disconnected';
}

/**
 * Process groups of the agents running now. If the server exits without ending its runs (an
 * uncaught exception, `process.exit()`), they are killed on the way out: agents never outlive it.
 */
const live = new Set<number>();
let exitHook = false;

function track(pid: number): void {
  live.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const p of live) {
      try {
        if (POSIX) process.kill(-p, 'SIGKILL');
        else process.kill(p, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}

/** Signals a running agent (kept out of `ProcessRun` so the class stays under 400 lines). */
function signalGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // The agent leads its own process group: whatever it started goes with it.
    if (POSIX) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // Already gone.
  }
}

/** What an agent reads on stdin (docs/agents.md): `tools` and `resume` only when the client sent them. */
function stdinOf(request: RunRequest): object {
  return {
    chatId: request.chatId,
    runId: request.runId,
    messages: request.messages,
    ...(request.tools?.length ? { tools: request.tools } : {}),
    ...(request.resume?.length ? { resume: request.resume } : {}),
  };
}

/** Number of agent processes running now (for health checks and tests). */
export function liveAgentProcesses(): number {
  return live.size;
}

/** Runs one agent process; see the module comment. Nothing starts until the first `next()`. */
export function runProcessAgent(agent: ProcessAgent, request: RunRequest, options: RunOptions = {}): AgentRun {
  return new ProcessRun(agent, request, options);
}

class ProcessRun implements AgentRun {
  readonly agent: string;
  readonly runId: string;
  readonly exited: Promise<AgentExit | undefined>;

  private readonly def: ProcessAgent;
  private readonly request: RunRequest;
  private readonly options: RunOptions;
  private readonly logger: RunnerLogger;
  private readonly highWaterMark: number;
  private readonly seq: RunSequencer;
  private readonly text: Machine<string | Uint8Array, CanonicalEvent>;
  private readonly splitter: LineSplitter;
  private readonly gen: Pages;
  private out: CanonicalEvent[] = [];

  private child: ChildProcessWithoutNullStreams | undefined;
  private resolveExit!: (exit: AgentExit | undefined) => void;
  private exit: AgentExit | undefined;
  private hasExited = false;
  private stdoutEnded = false;
  private stderrEnded = false;
  private queue: Buffer[] = [];
  private queued = 0;
  private paused = false;
  private received = 0;
  private stop: Stop | undefined;
  /** return() was called: emit nothing more. */
  private closing = false;
  /** The agent was killed by us after its terminal event, because it did not exit on its own. */
  private killedAfterDone = false;
  private wake: (() => void) | undefined;
  private readonly timers = new RunTimers();
  private idleTimer: NodeJS.Timeout | undefined;
  private runTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private exitGraceTimer: NodeJS.Timeout | undefined;
  private readonly stderr = new StderrLines((line) => this.log('info', line, 'stderr'));
  private readonly onAbort = () => {
    this.halt({ kind: 'abort', reason: abortReason(this.request.signal!) });
  };

  constructor(def: ProcessAgent, request: RunRequest, options: RunOptions) {
    this.def = def;
    this.agent = def.name;
    this.runId = request.runId;
    this.request = request;
    this.options = options;
    this.logger = options.logger ?? consoleLogger;
    this.highWaterMark = options.highWaterMark ?? 256 * 1024;
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    const reader = createStdoutReader(def, request, options, () => this.out);
    this.seq = reader.seq;
    this.text = reader.text;
    this.splitter = reader.splitter;
    this.gen = new Pages(this.pages());
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get bufferedBytes(): number {
    return this.queued + this.splitter.pendingBytes;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<CanonicalEvent, undefined>> {
    return this.gen.next();
  }

  nextPage(): Promise<IteratorResult<CanonicalEvent[], undefined>> {
    return this.gen.nextPage();
  }

  async return(): Promise<IteratorResult<CanonicalEvent, undefined>> {
    // Stop at once, even when a next() is waiting for the agent: the generator's own return() would
    // only run after it.
    this.closing = true;
    this.terminate();
    this.notify();
    await this.gen.return();
    await this.cleanup();
    return { done: true, value: undefined };
  }

  async throw(err?: unknown): Promise<IteratorResult<CanonicalEvent, undefined>> {
    this.closing = true;
    this.terminate();
    this.notify();
    try {
      return await this.gen.throw(err);
    } finally {
      await this.cleanup();
    }
  }

  private log(level: Parameters<RunnerLogger['log']>[0], message: string, stream?: 'stderr'): void {
    const fields: Parameters<RunnerLogger['log']>[2] = { agent: this.agent, runId: this.runId };
    if (this.child?.pid !== undefined) fields.pid = this.child.pid;
    if (stream) fields.stream = stream;
    try {
      this.logger.log(level, message, fields);
    } catch {
      // A broken logger must not break the run.
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Ends the run for a reason of the runner's (the first reason wins) and stops the process. */
  private halt(stop: Stop): void {
    if (this.stop || this.closing) return;
    this.stop = stop;
    this.log('warn', stop.kind === 'abort' ? `stopping: ${stop.reason}` : `stopping: ${stop.message}`);
    this.terminate();
    this.notify();
  }

  private armIdle(): void {
    this.timers.clear(this.idleTimer);
    this.idleTimer = undefined;
    // Runs until every pipe is closed and the process is gone: a child that keeps a pipe open counts.
    if ((this.stdoutEnded && this.stderrEnded && this.hasExited) || this.paused || this.stop) return;
    const ms = this.def.limits.idleTimeoutMs;
    this.idleTimer = this.timers.start(ms, () =>
      this.halt({ kind: 'fail', code: 'timeout', message: `agent "${this.agent}" printed nothing for ${ms} ms (idle timeout)` }),
    );
  }

  private signalProcess(signal: NodeJS.Signals): void {
    if (this.child && !this.hasExited) signalGroup(this.child, signal);
  }

  /** SIGTERM now, SIGKILL after the grace period. */
  private terminate(): void {
    if (!this.child || this.hasExited || this.killTimer) return;
    this.signalProcess('SIGTERM');
    this.killTimer = this.timers.start(this.options.killGraceMs ?? 2000, () => {
      this.log('warn', 'did not exit after SIGTERM: SIGKILL');
      this.signalProcess('SIGKILL');
    });
  }

  private start(): void {
    const { def, request } = this;
    const run: Record<string, string> = { SWITCHBOARD_RUN_ID: request.runId, SWITCHBOARD_AGENT: def.name };
    if (request.chatId !== undefined) run.SWITCHBOARD_CHAT_ID = request.chatId;
    const env = buildAgentEnv({ allow: def.env, set: def.setEnv, run }, this.options.env);
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(def.command, def.args, { cwd: def.cwd, env, stdio: 'pipe', detached: POSIX, windowsHide: true, shell: false });
    } catch (err) {
      // Synchronous failures (a bad cwd type, an invalid argument) are reported like spawn errors.
      this.spawnFailed(err as Error);
      return;
    }
    this.child = child;
    child.on('error', (err) => {
      if (child.pid === undefined) this.spawnFailed(err);
      else this.log('error', `process error: ${err.message}`);
    });
    child.on('exit', (code, signal) => this.onExit({ code, signal }));
    if (child.pid !== undefined) {
      track(child.pid);
      this.options.onProcess?.('spawn', child.pid);
    }
    if (child.pid !== undefined) this.log('info', `started: ${def.command} ${def.args.join(' ')}`.trimEnd());

    child.stdin.on('error', (err) => this.log('debug', `stdin: ${err.message}`));
    child.stdin.end(`${JSON.stringify(stdinOf(request))}\n`);

    child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stdout.on('end', () => {
      this.stdoutEnded = true;
      this.idleIfDone();
      this.notify();
    });
    child.stdout.on('error', (err) => this.log('debug', `stdout: ${err.message}`));

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => this.stderr.push(text));
    child.stderr.on('end', () => {
      this.stderr.end();
      this.stderrEnded = true;
      this.idleIfDone();
      this.notify();
    });
    child.stderr.on('error', (err) => this.log('debug', `stderr: ${err.message}`));

    this.runTimer = this.timers.start(def.limits.timeoutMs, () =>
      this.halt({
        kind: 'fail',
        code: 'timeout',
        message: `agent "${this.agent}" ran longer than ${def.limits.timeoutMs} ms (run timeout)`,
      }),
    );
    this.armIdle();
  }

  private spawnFailed(err: Error): void {
    this.log('error', `cannot start: ${err.message}`);
    this.stdoutEnded = this.stderrEnded = true;
    this.markExited(undefined);
    this.halt({ kind: 'fail', code: 'agent_spawn_failed', message: `cannot start agent "${this.agent}": ${err.message}` });
    this.notify();
  }

  private markExited(exit: AgentExit | undefined): void {
    if (this.hasExited) return;
    this.hasExited = true;
    this.exit = exit;
    // The run time limit bounds the agent, not a slow consumer reading what it left.
    this.timers.clear(this.runTimer);
    this.timers.clear(this.killTimer);
    this.timers.clear(this.exitGraceTimer);
    this.idleIfDone();
    this.resolveExit(exit);
  }

  private idleIfDone(): void {
    if (this.stdoutEnded && this.stderrEnded && this.hasExited) this.timers.clear(this.idleTimer);
  }

  private onExit(exit: AgentExit): void {
    const pid = this.child?.pid;
    this.log(exit.code === 0 ? 'info' : 'warn', exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`);
    if (pid !== undefined) live.delete(pid);
    this.markExited(exit);
    if (pid !== undefined) this.options.onProcess?.('exit', pid);
    // Whatever the agent left running in its process group goes too, so its pipes close.
    if (POSIX && pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Nothing left.
      }
    }
    this.notify();
  }

  private onStdout(chunk: Buffer): void {
    if (this.stop || this.closing) return;
    this.received += chunk.length;
    const max = this.def.limits.maxOutputBytes;
    if (this.received > max) {
      // What fits under the limit, up to its last whole line, is still read: the text before the
      // limit is kept however the pipe cut the output into chunks (a first read may exceed it).
      const room = max - (this.received - chunk.length);
      const nl = room > 0 ? chunk.lastIndexOf(10, room - 1) : -1;
      if (nl >= 0) {
        this.queue.push(chunk.subarray(0, nl + 1));
        this.queued += nl + 1;
      }
      this.halt({
        kind: 'fail',
        code: 'output_limit',
        message: `agent "${this.agent}" wrote more than ${max} bytes on stdout (output limit)`,
      });
      return;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued >= this.highWaterMark && !this.paused) {
      this.paused = true;
      this.child?.stdout.pause();
      this.options.onBackpressure?.(true);
    }
    this.armIdle();
    this.notify();
  }

  private take(): CanonicalEvent[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  /** The run's events, a page per stdout chunk (see pages.ts). */
  private async *pages(): AsyncGenerator<CanonicalEvent[], undefined> {
    const signal = this.request.signal;
    try {
      if (signal?.aborted) {
        this.seq.abort(abortReason(signal), this.out);
        yield this.take();
        return;
      }
      signal?.addEventListener('abort', this.onAbort, { once: true });
      this.start();
      while (!this.closing) {
        const chunk = this.queue.shift();
        if (chunk) {
          this.queued -= chunk.length;
          if (this.paused && this.queued <= this.highWaterMark / 2 && !this.stop) {
            this.paused = false;
            this.child?.stdout.resume();
            this.options.onBackpressure?.(false);
            this.armIdle();
          }
          this.splitter.push(chunk);
          this.checkHeld();
          if (this.out.length) yield this.take();
          continue;
        }
        if (this.stop) break;
        if (this.stdoutEnded && this.stderrEnded && this.hasExited) break;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      if (this.closing) return;
      this.finish();
      if (this.out.length) yield this.take();
    } finally {
      signal?.removeEventListener('abort', this.onAbort);
      await this.cleanup();
    }
  }

  /** Once the agent has said it is done, it gets a grace period to exit before it is stopped. */
  private checkHeld(): void {
    if (!this.seq.held || this.exitGraceTimer || this.hasExited) return;
    this.exitGraceTimer = this.timers.start(this.options.exitGraceMs ?? 2000, () => {
      if (this.hasExited || this.stop) return;
      this.log('warn', 'still running after its run finished: stopping it');
      this.killedAfterDone = true;
      this.terminate();
    });
  }

  /** Builds the end of the run from how the agent ended. */
  private finish(): void {
    const { seq, out } = this;
    const stop = this.stop;
    if (stop) {
      // Cut off mid-write: the unfinished last line is dropped; the decoder closes what it had open.
      for (const e of this.text.end()) seq.pass(e, out, true);
      // The agent had already finished its run: that stands.
      if (seq.release(out)) return;
      if (stop.kind === 'abort') seq.abort(stop.reason, out);
      else seq.fail(stop.code, stop.message, out);
      return;
    }
    const exit = this.exit;
    const ok = (exit?.code === 0 && !exit.signal) || this.killedAfterDone;
    this.splitter.end();
    for (const e of this.text.end()) seq.pass(e, out, !ok);
    if (ok) {
      if (!seq.release(out)) seq.finishTruncated(out);
      return;
    }
    const held = seq.held;
    // An agent that reported its own failure and finished its run keeps its report.
    if (held?.type === 'run-finish' && held.finishReason === 'error') {
      seq.release(out);
      return;
    }
    seq.fail('agent_exit', describeExit(this.agent, exit, this.stderr.tail, this.def.exposeStderr), out);
  }

  private async cleanup(): Promise<void> {
    this.timers.clearAll(this.killTimer);
    const child = this.child;
    if (!child) {
      if (!this.hasExited) this.markExited(undefined);
      return;
    }
    if (!this.hasExited) {
      // SIGTERM (unless sent already), SIGKILL after the grace period: bounded.
      this.terminate();
      await this.exited;
    }
    this.timers.clearAll();
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
  }
}
