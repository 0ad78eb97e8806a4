/**
 * The defaults the configuration resolves against, and what it needs to know about the built-in
 * agents to enable them: run limits, the environment allow-list pattern, the replay pace, each
 * provider's decoder, model, base URL and key variables, and whether LangChain can be loaded. They
 * live here, below the runner and the agents, so that config, runner and agents import in one
 * direction (config ← runner ← agents).
 */
import type { Framework } from '@switchboard/core';
import type { Provider } from './types.ts';

/** Default limits of an agent run. */
export const DEFAULT_LIMITS = {
  /** Wall-clock time of one run: 10 minutes. */
  timeoutMs: 10 * 60_000,
  /** Longest silence on stdout: 5 minutes. */
  idleTimeoutMs: 5 * 60_000,
  /** Longest stdout line: 1 MiB. */
  maxLineBytes: 1024 * 1024,
  /** All of a run's stdout: 64 MiB. */
  maxOutputBytes: 64 * 1024 * 1024,
} as const;

/** A valid allow-list entry: a variable name, or a prefix ending in `*` (`OPENAI_*`). */
export const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Default pause between values without timestamps. */
export const REPLAY_INTERVAL_MS = 20;

/** The decoder of each provider's stream. */
export const PROVIDER_FRAMEWORK: Record<Provider, Framework> = { anthropic: 'anthropic', openai: 'openai-chat', gemini: 'gemini' };

/** Default settings of the SDK agents (base URLs as the official SDKs take them from the environment). */
export const PROVIDER_DEFAULTS: Record<
  Provider,
  { model: string; baseUrl: string; apiKeyEnv: string[]; baseUrlEnv: string; modelEnv: string }
> = {
  anthropic: {
    model: 'claude-sonnet-4-5',
    baseUrl: 'https://api.anthropic.com',
    apiKeyEnv: ['ANTHROPIC_API_KEY'],
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    modelEnv: 'ANTHROPIC_MODEL',
  },
  openai: {
    model: 'gpt-4.1-mini',
    baseUrl: 'https://api.openai.com/v1',
    apiKeyEnv: ['OPENAI_API_KEY'],
    baseUrlEnv: 'OPENAI_BASE_URL',
    modelEnv: 'OPENAI_MODEL',
  },
  gemini: {
    model: 'gemini-2.5-flash',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    apiKeyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
    baseUrlEnv: 'GEMINI_BASE_URL',
    modelEnv: 'GEMINI_MODEL',
  },
};

/** The API key from the first of `names` that is set, or undefined. */
export function apiKeyFrom(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value) return value;
  }
  return undefined;
}

/** True when `@langchain/core` can be loaded. */
export function langchainAvailable(): boolean {
  try {
    import.meta.resolve('@langchain/core/language_models/chat_models');
    return true;
  } catch {
    return false;
  }
}
