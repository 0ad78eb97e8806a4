/**
 * The resolved configuration: what `loadConfig` returns after reading the file, the environment and
 * the defaults. Paths are absolute; every limit has its value.
 */
import type { Framework } from '@switchboard/core';

/** Resolved limits of one agent. */
export interface AgentLimits {
  timeoutMs: number;
  idleTimeoutMs: number;
  maxLineBytes: number;
  maxOutputBytes: number;
}

/** Names of the built-in agents. */
export const BUILTIN_AGENTS = ['demo', 'replay', 'anthropic', 'openai', 'gemini', 'langchain'] as const;
export type BuiltinName = (typeof BUILTIN_AGENTS)[number];

/** Providers the SDK agents (and the langchain agent's model) can call. */
export const PROVIDERS = ['anthropic', 'openai', 'gemini'] as const;
export type Provider = (typeof PROVIDERS)[number];

interface AgentCommon {
  name: string;
  description?: string;
  /** Decoder of what the agent produces (`auto` recognises it). */
  framework: Framework | 'auto';
  limits: AgentLimits;
  /** False when the agent cannot run (a missing API key, switched off in the config). */
  enabled: boolean;
  /** Why it is disabled. */
  disabledReason?: string;
}

/** An agent that runs as a child process, one per run. */
export interface ProcessAgent extends AgentCommon {
  kind: 'process';
  /** Program to run (looked up on PATH; a relative path is relative to `cwd`). Never run through a shell. */
  command: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** Variables (or `PREFIX_*` patterns) passed through from the server's environment. */
  env: string[];
  /** Fixed variables. */
  setEnv: Record<string, string>;
  /**
   * Quote the last stderr lines in the error a crash sends to clients (default false: stderr, with its
   * tracebacks and server paths, stays in the server log; clients get a short message and the code).
   */
  exposeStderr: boolean;
  /** Split `<think>` (true) or `<tag>` sections out of the agent's text as reasoning (the decoder option `thinkTags`). */
  thinkTags?: boolean | string;
}

/** Settings of the SDK agents (`anthropic`, `openai`, `gemini`). */
export interface ProviderSettings {
  provider: Provider;
  model: string;
  /** API base URL, e.g. `https://api.anthropic.com` or a loopback replay server. */
  baseUrl: string;
  /** Environment variables tried, in order, for the API key (read at run time, never stored). */
  apiKeyEnv: string[];
  /** `max_tokens` / `max_output_tokens`. */
  maxTokens: number;
  /** System prompt. */
  system?: string;
}

/** Settings of the built-in agents, by name. */
export interface BuiltinSettings {
  demo: { delayMs: number };
  replay: {
    /** Directory of the captures the replay agent may read (nothing outside it). */
    dir: string;
    /** 1 = original pace, 2 = twice as fast, 0 = as fast as possible. */
    speed: number;
    /** Pause between values that carry no timestamp, in ms (before dividing by speed). */
    intervalMs: number;
  };
  anthropic: ProviderSettings;
  openai: ProviderSettings;
  gemini: ProviderSettings;
  langchain: ProviderSettings;
}

/** A built-in agent. */
export type BuiltinAgent = {
  [K in BuiltinName]: AgentCommon & { kind: 'builtin'; builtin: K; settings: BuiltinSettings[K] };
}[BuiltinName];

/** Any configured agent. */
export type AgentDefinition = ProcessAgent | BuiltinAgent;

/** A bearer token and whose it is. */
export interface TokenConfig {
  token: string;
  name: string;
}

/** What the gateway needs to know about itself. */
export interface ServerSettings {
  port: number;
  host: string;
  /** Absolute directory of the embedded store (sqlite) and other state. */
  dataDir: string;
  /** PostgreSQL URL of the durable log (several instances). */
  databaseUrl?: string;
  /** Redis URL of the live fan-out (several instances). */
  redisUrl?: string;
  /** Accepted bearer tokens; empty = no authentication. */
  tokens: TokenConfig[];
  cors: {
    origins: string[];
    /** Request headers allowed cross-origin besides the built-in ones (a transport's own headers). */
    headers: string[];
  };
  /**
   * `Host` header values accepted while authentication is off (DNS-rebinding guard); a mismatch
   * answers 403. Empty: the bound host, `localhost` names, 127.0.0.1 and ::1. `*`: any host.
   */
  allowedHosts: string[];
  /** How long a run's lease lasts (ms): another instance interrupts a run whose lease its instance stopped renewing. */
  runLeaseMs: number;
  limits: {
    /** Largest request body in bytes. */
    requestBytes: number;
    /** Default wall-clock limit of a run (agents may set their own). */
    runTimeMs: number;
    /** Requests per minute per token (0 = unlimited). */
    rateLimitPerMinute: number;
    /** Runs one caller (token name, or client address without auth) may have running at once (0 = unlimited). */
    runsPerCaller: number;
    /** Failed authentications per minute per client address before 429 (0 = unlimited). */
    authFailuresPerMinute: number;
    /** Defaults of the agents' own limits. */
    idleTimeoutMs: number;
    maxLineBytes: number;
    maxOutputBytes: number;
  };
}

/** The whole resolved configuration. */
export interface SwitchboardConfig {
  /** Absolute path of the config file that was read, if any. */
  source?: string;
  /** Directory relative paths of the file were resolved against. */
  baseDir: string;
  server: ServerSettings;
  /** Configured agents first, then the built-in ones, each with `enabled` / `disabledReason`. */
  agents: AgentDefinition[];
}
