/**
 * The agent runner: `runAgent(agent, request)` starts one run of a configured agent — a child
 * process or a built-in — and returns its canonical events as an async iterator. Every run ends
 * with `run-finish` or `run-abort`; a crash, a limit or a timeout becomes a fatal `error` first,
 * with everything the agent produced before it kept. When the iterator is done (or `return()`ed),
 * no process of the run is left.
 */
import { builtinAgent } from '../agents/builtin.ts';
import type { AgentDefinition } from '../config/types.ts';
import { runInProcess } from './in-process.ts';
import { runProcessAgent } from './process.ts';
import type { AgentRun, RunOptions, RunRequest } from './types.ts';

export { BASE_ENV_VARS, buildAgentEnv } from './env.ts';
export type { InProcessAgent, InProcessContext } from './in-process.ts';
export { AgentError, runInProcess } from './in-process.ts';
export { liveAgentProcesses, runProcessAgent } from './process.ts';
export { RunSequencer } from './sequencer.ts';
export type { AgentExit, AgentLimits, AgentRun, LogLevel, RunMessage, RunnerLogger, RunOptions, RunRequest } from './types.ts';
export { consoleLogger, DEFAULT_LIMITS } from './types.ts';

/** The agent cannot run (disabled: a missing key, switched off). Thrown by `runAgent` before anything starts. */
export class AgentUnavailableError extends Error {
  readonly agent: string;
  constructor(agent: AgentDefinition) {
    super(`agent "${agent.name}" is disabled: ${agent.disabledReason ?? 'switched off'}`);
    this.name = 'AgentUnavailableError';
    this.agent = agent.name;
  }
}

/**
 * Starts one run of an agent (nothing happens until the first `next()`).
 *
 * @throws AgentUnavailableError when the agent is disabled.
 * @example
 * const run = runAgent(findAgent(config, 'echo-py')!, { runId, chatId, messages, signal: request.signal });
 * for await (const event of run) store.append(event);
 */
export function runAgent(agent: AgentDefinition, request: RunRequest, options: RunOptions = {}): AgentRun {
  if (!agent.enabled) throw new AgentUnavailableError(agent);
  if (agent.kind === 'process') return runProcessAgent(agent, request, options);
  return runInProcess(agent, request, options, builtinAgent(agent));
}
