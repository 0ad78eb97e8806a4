/**
 * The agent runner: the machinery that runs one agent — a child process or an in-process function —
 * and returns its canonical events as an async iterator (`runAgent` in `agents/run.ts` picks which
 * for a configured agent; the runner knows no agent by name). Every run ends
 * with `run-finish` or `run-abort`; a crash, a limit or a timeout becomes a fatal `error` first,
 * with everything the agent produced before it kept. When the iterator is done (or `return()`ed),
 * no process of the run is left.
 */
export { BASE_ENV_VARS, buildAgentEnv } from './env.ts';
export type { InProcessAgent, InProcessContext } from './in-process.ts';
export { AgentError, runInProcess } from './in-process.ts';
export { liveAgentProcesses, runProcessAgent } from './process.ts';
export { RunSequencer } from './sequencer.ts';
export type {
  AgentExit,
  AgentLimits,
  AgentRun,
  ClientTool,
  LogLevel,
  ResumeAnswer,
  RunMessage,
  RunnerLogger,
  RunOptions,
  RunRequest,
} from './types.ts';
export { consoleLogger, DEFAULT_LIMITS } from './types.ts';
