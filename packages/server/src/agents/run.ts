/**
 * `runAgent(agent, request)`: one run of a configured agent — a child process (the runner's
 * `runProcessAgent`) or a built-in (the runner's `runInProcess` with the built-in's function). It
 * sits above the runner and the built-in agents, so the runner imports no agent.
 */
import type { AgentDefinition } from '../config/types.ts';
import { runInProcess } from '../runner/in-process.ts';
import { runProcessAgent } from '../runner/process.ts';
import type { AgentRun, RunOptions, RunRequest } from '../runner/types.ts';
import { builtinAgent } from './builtin.ts';

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
