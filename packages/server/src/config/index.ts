/**
 * Configuration of the gateway and its agents: `loadConfig()` reads `switchboard.config.json` (or
 * `SWITCHBOARD_CONFIG`), the environment and the defaults; see docs/agents.md for every key.
 */
export type { ConfigIssue, LoadConfigOptions, ResolveOptions } from './load.ts';
export { ConfigError, DEFAULT_CONFIG_FILE, findAgent, loadConfig, resolveConfig, SERVER_DEFAULTS } from './load.ts';
export type { AgentFileEntry, ConfigFile } from './schema.ts';
export { configFileSchema } from './schema.ts';
export type * from './types.ts';
export { BUILTIN_AGENTS, PROVIDERS } from './types.ts';
