/**
 * The runner's public types: what a run is given, what it returns, and how it reports.
 */
import type { CanonicalEvent, EventInit } from '@switchboard/core';

/** One message of the conversation (an AI SDK `UIMessage`, loosely typed). */
export type RunMessage = { id: string; role: string; parts: readonly object[] };

/**
 * A tool the client declared and runs itself (a frontend tool: AG-UI `tools`, or `tools` in a chat
 * request body). The agent may call it; the run then ends waiting for the client's output.
 */
export type ClientTool = { name: string; description?: string; parameters?: { [key: string]: unknown } };

/** The answer to an interrupt that ended the chat's previous run (AG-UI `ResumeEntry`). */
export type ResumeAnswer = { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown };

export { DEFAULT_LIMITS } from '../config/defaults.ts';
export type { AgentLimits } from '../config/types.ts';

/** What one run of an agent is given. */
export interface RunRequest {
  /** Id of the run: stamped on every event and passed to the agent. */
  runId: string;
  /** Chat (thread) the run belongs to. */
  chatId?: string;
  /** Id of the assistant message the run produces (default: the agent's own, else `runId`). */
  messageId?: string;
  /** The whole conversation, oldest first; the agent answers the last user message. */
  messages: readonly RunMessage[];
  /** Frontend tools the client declared for this run. */
  tools?: readonly ClientTool[];
  /** Answers to the interrupts of the previous run, when this run resumes it. */
  resume?: readonly ResumeAnswer[];
  /**
   * Canonical events the run opens with, right after its run-start: a continuation run's answers to
   * the previous run (`tool-approval-response`, `tool-output` of client tools, `interrupt-response`),
   * emitted by the runner so that the agent never has to repeat them.
   */
  prelude?: readonly EventInit[];
  /**
   * Aborts the run (client gone): the agent is stopped and the run ends with `run-abort`, after the
   * events it produced so far.
   */
  signal?: AbortSignal;
}

/** Levels of runner log lines. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Where the runner reports: agent stderr lines, starts, exits and kills. */
export interface RunnerLogger {
  log(level: LogLevel, message: string, fields: { agent: string; runId: string; pid?: number; stream?: 'stderr' }): void;
}

/** Writes `[agent <name>] message` lines to the server's stderr. */
export const consoleLogger: RunnerLogger = {
  log(level, message, fields) {
    if (level === 'debug') return;
    process.stderr.write(
      `[agent ${fields.agent}${fields.pid ? ` ${fields.pid}` : ''}] ${level === 'info' ? '' : `${level}: `}${message}\n`,
    );
  },
};

/** Options of a run that are not about the agent itself. */
export interface RunOptions {
  /** The server environment agents get their allow-listed variables from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where stderr lines and lifecycle messages go (default: the server's stderr). */
  logger?: RunnerLogger;
  /** Clock for `ts` (default `Date.now`). */
  now?: () => number;
  /** After SIGTERM, how long a process has before SIGKILL, in ms (default 2000). */
  killGraceMs?: number;
  /** After the agent's terminal event, how long it has to exit on its own before it is killed, in ms (default 2000). */
  exitGraceMs?: number;
  /** Unread stdout bytes at which reading pauses until the consumer catches up (default 256 KiB). */
  highWaterMark?: number;
  /** Told when reading stdout pauses (true) and resumes (false) because the consumer is slow. */
  onBackpressure?: (paused: boolean) => void;
  /** Told when an agent process starts and when it has exited (the gateway's ledger of processes to reap after a crash). */
  onProcess?: (event: 'spawn' | 'exit', pid: number) => void;
}

/** How an agent process ended. */
export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * One run: an async iterator of canonical events, always ending with `run-finish` or `run-abort`
 * (unless the consumer stops early with `return()`). When it is done, or `return()` has resolved,
 * the agent's process is gone.
 */
export interface AgentRun extends AsyncIterableIterator<CanonicalEvent, undefined> {
  /** The agent's name. */
  readonly agent: string;
  readonly runId: string;
  /** Process id once the process started (undefined for in-process agents). */
  readonly pid: number | undefined;
  /** Settles when the process has exited (undefined for in-process agents or when none was started). */
  readonly exited: Promise<AgentExit | undefined>;
  /** Bytes read from the agent's stdout and not yet decoded (bounded by `highWaterMark` + one read). */
  readonly bufferedBytes: number;
  /** Stops the run without emitting anything more; resolves once the process is gone. */
  return(): Promise<IteratorResult<CanonicalEvent, undefined>>;
  /**
   * The next events, all those ready together (one agent step, one stdout chunk): what the gateway's
   * pump reads, one await per page instead of per event (runner/pages.ts). Never empty.
   */
  nextPage?(): Promise<IteratorResult<CanonicalEvent[], undefined>>;
}
