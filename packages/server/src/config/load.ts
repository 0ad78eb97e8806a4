/**
 * Loading the configuration: the file (`switchboard.config.json` in the working directory, or the
 * path in `SWITCHBOARD_CONFIG`), then the environment over it, then the defaults; the built-in
 * agents added, each enabled or not (with the reason). Every problem is reported with where it is
 * (file and key, or environment variable) and what was expected, all at once.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { apiKeyFrom, DEFAULT_LIMITS, langchainAvailable, PROVIDER_DEFAULTS, PROVIDER_FRAMEWORK, REPLAY_INTERVAL_MS } from './defaults.ts';
import { type ConfigFile, configFileSchema, HEADER_NAME, HOST_PATTERN, ORIGIN, POSTGRES_URL, REDIS_URL } from './schema.ts';
import type {
  AgentDefinition,
  BuiltinAgent,
  BuiltinName,
  Provider,
  ProviderSettings,
  ServerSettings,
  SwitchboardConfig,
  TokenConfig,
} from './types.ts';
import { PROVIDERS } from './types.ts';

/** The file read when nothing else is said. */
export const DEFAULT_CONFIG_FILE = 'switchboard.config.json';

/** Defaults of the server settings. */
export const SERVER_DEFAULTS = {
  port: 3000,
  host: '127.0.0.1',
  dataDir: 'data',
  requestBytes: 8 * 1024 * 1024,
  rateLimitPerMinute: 120,
  runsPerCaller: 32,
  authFailuresPerMinute: 30,
  runLeaseMs: 6000,
} as const;

/** One problem in the configuration. */
export interface ConfigIssue {
  /** The file, or `environment`. */
  source: string;
  /** Key path in the file (`agents[0].framework`) or the variable name. */
  path: string;
  message: string;
}

/** The configuration cannot be used; `issues` says where and why. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(issues.map((i) => `${i.source}: ${i.path ? `${i.path}: ` : ''}${i.message}`).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  /** Working directory (default `process.cwd()`): where the default file is looked for. */
  cwd?: string;
  /** Environment (default `process.env`). */
  env?: Env;
  /** Config file to read; it must exist. Default: `SWITCHBOARD_CONFIG`, else `switchboard.config.json` if present. */
  path?: string;
}

// ---------------------------------------------------------------------------------------------
// Located messages
// ---------------------------------------------------------------------------------------------

function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(p))) out += out ? `.${String(p)}` : String(p);
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const TYPE_NAMES: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  record: 'an object',
};

/** The keys an object schema allows at `path` (for "unknown key" messages). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: unknown = schema;
  for (const p of path) {
    while (s instanceof z.ZodOptional) s = s.unwrap();
    if (s instanceof z.ZodArray && typeof p === 'number') s = s.element;
    else if (s instanceof z.ZodObject) s = (s.shape as Record<string, unknown>)[String(p)];
    else return [];
  }
  while (s instanceof z.ZodOptional) s = s.unwrap();
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

function issueMessages(issue: z.core.$ZodIssue, root: unknown): { path: string; message: string }[] {
  const value = valueAt(root, issue.path);
  const path = keyPath(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = keysAt(configFileSchema, issue.path).filter((k) => k !== '$schema');
      return issue.keys.map((key) => ({
        path: keyPath([...issue.path, key]),
        message: `unknown key${allowed.length ? `; expected one of: ${allowed.join(', ')}` : ''}`,
      }));
    }
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return [
        { path, message: value === undefined ? `missing; expected ${expected}` : `expected ${expected}, got ${describeValue(value)}` },
      ];
    }
    case 'invalid_value':
      return [{ path, message: `expected one of: ${issue.values.map((v) => String(v)).join(', ')}; got ${describeValue(value)}` }];
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = small ? (issue as { minimum: unknown }).minimum : (issue as { maximum: unknown }).maximum;
      const inclusive = issue.inclusive !== false;
      if (issue.origin === 'number') {
        const word = small ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than';
        return [{ path, message: `expected a number ${word} ${bound}, got ${describeValue(value)}` }];
      }
      if (issue.origin === 'string' && small)
        return [{ path, message: issue.message.startsWith('Too small') ? 'expected a non-empty string' : issue.message }];
      return [{ path, message: `${issue.message}, got ${describeValue(value)}` }];
    }
    case 'invalid_format':
      return [{ path, message: `${issue.message}, got ${describeValue(value)}` }];
    case 'invalid_key':
      return [{ path, message: `invalid key: ${issue.issues[0]?.message ?? issue.message}` }];
    default:
      return [{ path, message: issue.message }];
  }
}

/** Line and column of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length} column ${before[before.length - 1].length + 1}`;
}

/** Parses the file's JSON; a syntax error says where. */
function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    let message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    if (at && !/\(line \d+ column \d+\)/.test(message)) message += ` (${lineColumn(text, Number(at[1]))})`;
    throw new ConfigError([{ source, path: '', message: `not valid JSON: ${message}` }]);
  }
}

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

class EnvReader {
  readonly issues: ConfigIssue[] = [];
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  private fail(name: string, message: string): undefined {
    this.issues.push({ source: 'environment', path: name, message });
    return undefined;
  }

  string(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  int(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      return this.fail(
        name,
        `expected an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}, got ${JSON.stringify(v)}`,
      );
    }
    return Number(v);
  }

  matching(name: string, pattern: RegExp, expected: string): string | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    return pattern.test(v) ? v : this.fail(name, `expected ${expected}, got ${JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v)}`);
  }

  /** `name:token,name:token` (a bare token gets the name `token-<n>`), or a JSON array of `{token, name}`. */
  tokens(name: string): TokenConfig[] | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (v.startsWith('[')) {
      try {
        const parsed = z.array(z.strictObject({ token: z.string().min(1), name: z.string().min(1) })).safeParse(JSON.parse(v));
        if (parsed.success) return parsed.data;
      } catch {
        // Reported below.
      }
      return this.fail(name, 'expected a JSON array of {"token", "name"} objects, or "name:token,name:token"');
    }
    const out: TokenConfig[] = [];
    for (const [i, entry] of v.split(',').entries()) {
      const item = entry.trim();
      if (!item) continue;
      const colon = item.indexOf(':');
      const token = colon === -1 ? item : item.slice(colon + 1);
      const who = colon === -1 ? `token-${i + 1}` : item.slice(0, colon);
      if (!token || !who) return this.fail(name, `entry ${i + 1}: expected "name:token"`);
      out.push({ token, name: who });
    }
    return out;
  }

  /** A comma-separated list whose every item matches `pattern`; `expected` says what in the error. */
  private list(name: string, pattern: RegExp, expected: string): string[] | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const list = v
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    const bad = list.find((item) => !pattern.test(item));
    return bad === undefined ? list : this.fail(name, `expected ${expected}, comma-separated; got ${JSON.stringify(bad)}`);
  }

  headerNames(name: string): string[] | undefined {
    return this.list(name, HEADER_NAME, 'header names such as "x-request-id"');
  }

  hosts(name: string): string[] | undefined {
    return this.list(name, HOST_PATTERN, 'host names or addresses (or "*")');
  }

  origins(name: string): string[] | undefined {
    return this.list(name, ORIGIN, '"*" or origins such as "https://app.example.com"');
  }
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

/** Options of `resolveConfig`. */
export interface ResolveOptions {
  env?: Env;
  /** Working directory: defaults are relative to it. */
  cwd?: string;
  /** Absolute path of the file the value came from (relative paths in it resolve against its directory). */
  source?: string;
}

/**
 * Validates a parsed config file (or `{}`) and resolves it with the environment and the defaults.
 * Throws a `ConfigError` listing every problem.
 */
export function resolveConfig(file: unknown, options: ResolveOptions = {}): SwitchboardConfig {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const sourceName = options.source ?? 'config';
  const baseDir = options.source ? dirname(options.source) : cwd;

  const issues: ConfigIssue[] = [];
  const parsed = configFileSchema.safeParse(file ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) for (const m of issueMessages(issue, file)) issues.push({ source: sourceName, ...m });
  }
  const f: ConfigFile = parsed.success ? parsed.data : {};
  const e = new EnvReader(env);

  const limits = f.limits ?? {};
  const server: ServerSettings = {
    port: e.int('PORT', 0, 65535) ?? f.port ?? SERVER_DEFAULTS.port,
    host: e.string('HOST') ?? f.host ?? SERVER_DEFAULTS.host,
    dataDir: e.string('SWITCHBOARD_DATA_DIR')
      ? resolve(cwd, e.string('SWITCHBOARD_DATA_DIR')!)
      : f.dataDir
        ? resolve(baseDir, f.dataDir)
        : resolve(cwd, SERVER_DEFAULTS.dataDir),
    tokens: e.tokens('SWITCHBOARD_TOKENS') ?? f.tokens ?? [],
    cors: {
      origins: e.origins('SWITCHBOARD_CORS_ORIGINS') ?? f.cors?.origins ?? [],
      headers: e.headerNames('SWITCHBOARD_CORS_HEADERS') ?? f.cors?.headers ?? [],
    },
    allowedHosts: e.hosts('SWITCHBOARD_ALLOWED_HOSTS') ?? f.allowedHosts ?? [],
    runLeaseMs: e.int('SWITCHBOARD_RUN_LEASE_MS', 100) ?? f.runLeaseMs ?? SERVER_DEFAULTS.runLeaseMs,
    limits: {
      requestBytes: e.int('SWITCHBOARD_MAX_REQUEST_BYTES', 1) ?? limits.requestBytes ?? SERVER_DEFAULTS.requestBytes,
      runTimeMs: e.int('SWITCHBOARD_RUN_TIMEOUT_MS', 1) ?? limits.runTimeMs ?? DEFAULT_LIMITS.timeoutMs,
      rateLimitPerMinute: e.int('SWITCHBOARD_RATE_LIMIT_PER_MINUTE', 0) ?? limits.rateLimitPerMinute ?? SERVER_DEFAULTS.rateLimitPerMinute,
      runsPerCaller: e.int('SWITCHBOARD_MAX_RUNS_PER_CALLER', 0) ?? limits.runsPerCaller ?? SERVER_DEFAULTS.runsPerCaller,
      authFailuresPerMinute:
        e.int('SWITCHBOARD_AUTH_FAILURES_PER_MINUTE', 0) ?? limits.authFailuresPerMinute ?? SERVER_DEFAULTS.authFailuresPerMinute,
      idleTimeoutMs: e.int('SWITCHBOARD_IDLE_TIMEOUT_MS', 1) ?? limits.idleTimeoutMs ?? DEFAULT_LIMITS.idleTimeoutMs,
      maxLineBytes: e.int('SWITCHBOARD_MAX_LINE_BYTES', 1) ?? limits.maxLineBytes ?? DEFAULT_LIMITS.maxLineBytes,
      maxOutputBytes: e.int('SWITCHBOARD_MAX_OUTPUT_BYTES', 1) ?? limits.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
    },
  };
  const databaseUrl = e.matching('DATABASE_URL', POSTGRES_URL, 'a postgres:// or postgresql:// URL') ?? f.databaseUrl;
  if (databaseUrl) server.databaseUrl = databaseUrl;
  const redisUrl = e.matching('REDIS_URL', REDIS_URL, 'a redis:// or rediss:// URL') ?? f.redisUrl;
  if (redisUrl) server.redisUrl = redisUrl;
  const tokenSeen = new Set<string>();
  for (const t of server.tokens) {
    if (tokenSeen.has(t.token))
      issues.push({ source: 'environment', path: 'SWITCHBOARD_TOKENS', message: `token of "${t.name}" is listed twice` });
    tokenSeen.add(t.token);
  }

  const agentLimits = (own: { timeoutMs?: number; idleTimeoutMs?: number; maxLineBytes?: number; maxOutputBytes?: number }) => ({
    timeoutMs: own.timeoutMs ?? server.limits.runTimeMs,
    idleTimeoutMs: own.idleTimeoutMs ?? server.limits.idleTimeoutMs,
    maxLineBytes: own.maxLineBytes ?? server.limits.maxLineBytes,
    maxOutputBytes: own.maxOutputBytes ?? server.limits.maxOutputBytes,
  });

  const agents: AgentDefinition[] = (f.agents ?? []).map((a) => {
    const def: AgentDefinition = {
      kind: 'process',
      name: a.name,
      framework: (a.framework ?? 'claude') as AgentDefinition['framework'],
      command: a.command,
      args: a.args ?? [],
      cwd: resolve(baseDir, a.cwd ?? '.'),
      env: a.env ?? [],
      setEnv: a.setEnv ?? {},
      exposeStderr: a.exposeStderr === true,
      ...(a.thinkTags !== undefined ? { thinkTags: a.thinkTags } : {}),
      limits: agentLimits(a),
      enabled: a.enabled !== false,
    };
    if (a.description !== undefined) def.description = a.description;
    if (a.enabled === false) def.disabledReason = 'switched off in the config (enabled: false)';
    return def;
  });

  const b = f.builtins ?? {};
  const builtin = <K extends BuiltinName>(
    name: K,
    description: string,
    framework: AgentDefinition['framework'],
    settings: Extract<BuiltinAgent, { builtin: K }>['settings'],
    own: { enabled?: boolean; timeoutMs?: number; idleTimeoutMs?: number },
    missing?: string,
  ): BuiltinAgent => {
    const def = {
      kind: 'builtin',
      builtin: name,
      name,
      description,
      framework,
      settings,
      limits: agentLimits(own),
      enabled: true,
    } as BuiltinAgent;
    if (own.enabled === false) {
      def.enabled = false;
      def.disabledReason = 'switched off in the config (enabled: false)';
    } else if (missing) {
      def.enabled = false;
      def.disabledReason = missing;
    }
    return def;
  };

  const providerSettings = (p: Provider, own: NonNullable<typeof b.anthropic>): ProviderSettings => {
    const d = PROVIDER_DEFAULTS[p];
    const baseUrl = e.matching(d.baseUrlEnv, /^https?:\/\/\S+$/, 'an http(s) URL') ?? own.baseUrl ?? d.baseUrl;
    const s: ProviderSettings = {
      provider: p,
      model: e.string(d.modelEnv) ?? own.model ?? d.model,
      baseUrl,
      apiKeyEnv: d.apiKeyEnv,
      maxTokens: own.maxTokens ?? 4096,
    };
    if (own.system !== undefined) s.system = own.system;
    return s;
  };
  const keyMissing = (p: Provider) =>
    apiKeyFrom(env, PROVIDER_DEFAULTS[p].apiKeyEnv) ? undefined : `${PROVIDER_DEFAULTS[p].apiKeyEnv.join(' or ')} is not set`;

  agents.push(
    builtin(
      'demo',
      'Offline demo: every block kind, and the commands step, tool, text, code, error.',
      'claude',
      { delayMs: b.demo?.delayMs ?? 40 },
      b.demo ?? {},
    ),
    builtin(
      'replay',
      'Replays a recorded capture of any framework as a live stream.',
      'auto',
      {
        dir: e.string('SWITCHBOARD_CAPTURES_DIR')
          ? resolve(cwd, e.string('SWITCHBOARD_CAPTURES_DIR')!)
          : b.replay?.dir
            ? resolve(baseDir, b.replay.dir)
            : resolve(cwd, 'captures'),
        speed: b.replay?.speed ?? 1,
        intervalMs: b.replay?.intervalMs ?? REPLAY_INTERVAL_MS,
      },
      b.replay ?? {},
    ),
  );
  const labels: Record<Provider, string> = { anthropic: 'Anthropic Messages API', openai: 'OpenAI Chat Completions', gemini: 'Gemini API' };
  for (const p of PROVIDERS) {
    const own = b[p] ?? {};
    agents.push(
      builtin(p, `${labels[p]} (streaming, called with fetch).`, PROVIDER_FRAMEWORK[p], providerSettings(p, own), own, keyMissing(p)),
    );
  }
  const lc = b.langchain ?? {};
  const lcProvider = lc.provider ?? PROVIDERS.find((p) => !keyMissing(p)) ?? 'openai';
  const lcSettings = providerSettings(lcProvider, { ...(b[lcProvider] ?? {}), ...lc });
  const lcMissing = lc.provider
    ? keyMissing(lc.provider)
    : PROVIDERS.some((p) => !keyMissing(p))
      ? undefined
      : 'no provider key: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY';
  agents.push(
    builtin(
      'langchain',
      `A LangChain.js chat model (${lcProvider}) run through streamEvents v2.`,
      'langchain',
      lcSettings,
      lc,
      lcMissing ?? (langchainAvailable() ? undefined : '@langchain/core is not installed'),
    ),
  );

  issues.push(...e.issues);
  if (issues.length) throw new ConfigError(issues);
  const config: SwitchboardConfig = { baseDir, server, agents };
  if (options.source) config.source = options.source;
  return config;
}

/**
 * Loads the configuration: the file (explicit path, else `SWITCHBOARD_CONFIG`, else
 * `switchboard.config.json` in `cwd` when there is one), the environment over it, the defaults.
 * Throws a `ConfigError` that says where each problem is.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<SwitchboardConfig> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const explicit = options.path ?? (env.SWITCHBOARD_CONFIG?.trim() || undefined);
  const path = resolve(cwd, explicit ?? DEFAULT_CONFIG_FILE);
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // The default file is optional; a file someone named is not.
    if (code === 'ENOENT' && explicit === undefined) return resolveConfig({}, { env, cwd });
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    const by = options.path !== undefined ? '' : ' (from SWITCHBOARD_CONFIG)';
    throw new ConfigError([{ source: path, path: '', message: `cannot read the config file${by}: ${why}` }]);
  }
  return resolveConfig(parseJson(text, path), { env, cwd, source: path });
}

/** The agent with this name, or undefined. */
export function findAgent(config: SwitchboardConfig, name: string): AgentDefinition | undefined {
  return config.agents.find((a) => a.name === name);
}
