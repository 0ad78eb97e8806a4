/**
 * The environment an agent process gets: nothing of the server's environment except the basics a
 * program needs to start (PATH, HOME, locale, temp dir) and the variables its config allows, plus
 * the fixed values the config sets and the run's ids. API keys, database URLs and tokens of the
 * server never reach an agent unless its config names them.
 */

/** Variables every agent gets from the server's environment (when set there). */
export const BASE_ENV_VARS: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  // Windows needs these to start most programs.
  ...(process.platform === 'win32' ? ['SYSTEMROOT', 'SYSTEMDRIVE', 'WINDIR', 'COMSPEC', 'PATHEXT', 'TEMP', 'TMP', 'USERPROFILE'] : []),
];

/** What `buildAgentEnv` needs. */
export interface AgentEnvSpec {
  /** Names (or `PREFIX_*` patterns) passed through from the server's environment. */
  allow?: readonly string[];
  /** Fixed values; they win over passed-through ones. */
  set?: Readonly<Record<string, string>>;
  /** Per-run values (`SWITCHBOARD_RUN_ID`, …); they win over everything. */
  run?: Readonly<Record<string, string>>;
}

function matches(name: string, allow: readonly string[]): boolean {
  for (const entry of allow) {
    if (entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry) return true;
  }
  return false;
}

/**
 * Builds an agent's environment from the server's (`source`, default `process.env`): base
 * variables and allow-listed ones copied, then `set`, then `run`.
 */
export function buildAgentEnv(
  spec: AgentEnvSpec,
  source: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  const allow = spec.allow ?? [];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (BASE_ENV_VARS.includes(name) || matches(name, allow)) env[name] = value;
  }
  Object.assign(env, spec.set, spec.run);
  return env;
}
