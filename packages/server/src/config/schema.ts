/**
 * The config file's schema (`switchboard.config.json`), in zod. Objects are strict: a misspelt key
 * is an error that names the key and the ones that were expected, not a silently ignored setting.
 */
import { FRAMEWORKS } from '@switchboard/core';
import { z } from 'zod';
import { ENV_PATTERN } from './defaults.ts';
import { BUILTIN_AGENTS, PROVIDERS } from './types.ts';

/** Frameworks an agent can declare: every decoder, or `auto`. */
export const FRAMEWORK_NAMES = ['auto', ...Object.keys(FRAMEWORKS)] as [string, ...string[]];

const positiveInt = z.number().int().positive();
const nonNegative = z.number().nonnegative();
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const agentName = z
  .string()
  .regex(AGENT_NAME, 'expected a name of letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)');

export const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;
export const REDIS_URL = /^rediss?:\/\/\S+$/;
export const ORIGIN = /^(\*|https?:\/\/[^/\s]+)$/;
/** A `Host` allow-list entry: a name or address without port (IPv6 with or without brackets), or `*`. */
export const HOST_PATTERN = /^(\*|\[?[A-Za-z0-9.:_-]+\]?)$/;
/** An HTTP header name (RFC 9110 token characters). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** One agent that runs as a process. */
export const agentSchema = z.strictObject({
  name: agentName,
  description: z.string().optional(),
  command: z.string().min(1, 'expected a program to run'),
  args: z.array(z.string()).optional(),
  cwd: z.string().min(1).optional(),
  framework: z.enum(FRAMEWORK_NAMES).optional(),
  env: z.array(z.string().regex(ENV_PATTERN, 'expected a variable name or a PREFIX_* pattern')).optional(),
  setEnv: z.record(z.string().regex(ENV_NAME, 'expected a variable name'), z.string()).optional(),
  timeoutMs: positiveInt.optional(),
  idleTimeoutMs: positiveInt.optional(),
  maxLineBytes: positiveInt.optional(),
  maxOutputBytes: positiveInt.optional(),
  exposeStderr: z.boolean().optional(),
  thinkTags: z.union([z.boolean(), z.string().regex(/^<?[A-Za-z][\w.:-]*>?$/, 'expected a tag name such as "think"')]).optional(),
  enabled: z.boolean().optional(),
});

const providerSchema = z
  .strictObject({
    enabled: z.boolean(),
    model: z.string().min(1),
    baseUrl: z.string().regex(/^https?:\/\/\S+$/, 'expected an http(s) URL'),
    maxTokens: positiveInt,
    system: z.string(),
    timeoutMs: positiveInt,
    idleTimeoutMs: positiveInt,
  })
  .partial();

/** Settings of the built-in agents. */
export const builtinsSchema = z
  .strictObject({
    demo: z.strictObject({ enabled: z.boolean(), delayMs: nonNegative }).partial(),
    replay: z.strictObject({ enabled: z.boolean(), dir: z.string().min(1), speed: nonNegative, intervalMs: nonNegative }).partial(),
    anthropic: providerSchema,
    openai: providerSchema,
    gemini: providerSchema,
    langchain: providerSchema.extend({ provider: z.enum(PROVIDERS).optional() }),
  })
  .partial();

/** The whole file. */
export const configFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    port: z.number().int().min(0).max(65535).optional(),
    host: z.string().min(1).optional(),
    dataDir: z.string().min(1).optional(),
    databaseUrl: z.string().regex(POSTGRES_URL, 'expected a postgres:// or postgresql:// URL').optional(),
    redisUrl: z.string().regex(REDIS_URL, 'expected a redis:// or rediss:// URL').optional(),
    tokens: z.array(z.strictObject({ token: z.string().min(1), name: z.string().min(1) })).optional(),
    cors: z
      .strictObject({
        origins: z.array(z.string().regex(ORIGIN, 'expected "*" or an origin such as "https://app.example.com"')),
        headers: z.array(z.string().regex(HEADER_NAME, 'expected a header name such as "x-request-id"')),
      })
      .partial()
      .optional(),
    limits: z
      .strictObject({
        requestBytes: positiveInt,
        runTimeMs: positiveInt,
        rateLimitPerMinute: z.number().int().nonnegative(),
        runsPerCaller: z.number().int().nonnegative(),
        authFailuresPerMinute: z.number().int().nonnegative(),
        idleTimeoutMs: positiveInt,
        maxLineBytes: positiveInt,
        maxOutputBytes: positiveInt,
      })
      .partial()
      .optional(),
    allowedHosts: z.array(z.string().regex(HOST_PATTERN, 'expected a host name, an IP address or "*"')).optional(),
    runLeaseMs: z.number().int().min(100).optional(),
    agents: z.array(agentSchema).optional(),
    builtins: builtinsSchema.optional(),
  })
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    file.agents?.forEach((agent, i) => {
      if ((BUILTIN_AGENTS as readonly string[]).includes(agent.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['agents', i, 'name'],
          message: `"${agent.name}" is the name of a built-in agent (configure it under builtins.${agent.name})`,
        });
      }
      const first = seen.get(agent.name);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['agents', i, 'name'], message: `"${agent.name}" is already the name of agents[${first}]` });
      } else seen.set(agent.name, i);
    });
    const tokens = new Map<string, number>();
    file.tokens?.forEach((t, i) => {
      const first = tokens.get(t.token);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: ['tokens', i, 'token'], message: `the same token as tokens[${first}]` });
      else tokens.set(t.token, i);
    });
  });

export type ConfigFile = z.infer<typeof configFileSchema>;
export type AgentFileEntry = z.infer<typeof agentSchema>;
