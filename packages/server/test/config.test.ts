/**
 * Configuration: the file, the environment over it, the defaults, the built-in agents and their
 * enablement, and errors that say where (file and key, or environment variable) and what was
 * expected.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, findAgent, loadConfig, resolveConfig } from '../src/config/load.ts';
import type { AgentDefinition, ProcessAgent } from '../src/config/types.ts';
import { DEFAULT_LIMITS } from '../src/runner/types.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const EXAMPLES = join(ROOT, 'examples/agents');
const dir = mkdtempSync(join(tmpdir(), 'switchboard-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
/** Writes a config file in its own directory; returns its path. */
function file(content: unknown): string {
  const sub = join(dir, `c${++fileCount}`);
  const path = join(sub, 'switchboard.config.json');
  mkdirSync(sub, { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** The issues of a config that must fail, as `source|path|message` strings. */
function issues(fn: () => unknown): { source: string; path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${err}`);
    return err.issues;
  }
  assert.fail('expected the config to be rejected');
}

async function asyncIssues(promise: Promise<unknown>): Promise<{ source: string; path: string; message: string }[]> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${err}`);
    return err.issues;
  }
  assert.fail('expected the config to be rejected');
}

const names = (agents: AgentDefinition[]) => agents.map((a) => a.name);

describe('defaults', () => {
  test('no file, no environment: server defaults and the built-in agents', async () => {
    const config = await loadConfig({ cwd: dir, env: {} });
    assert.equal(config.source, undefined);
    assert.deepEqual(config.server, {
      port: 3000,
      host: '127.0.0.1',
      dataDir: join(dir, 'data'),
      tokens: [],
      cors: { origins: [], headers: [] },
      allowedHosts: [],
      runLeaseMs: 6000,
      limits: {
        requestBytes: 8 * 1024 * 1024,
        runTimeMs: DEFAULT_LIMITS.timeoutMs,
        rateLimitPerMinute: 120,
        runsPerCaller: 32,
        authFailuresPerMinute: 30,
        idleTimeoutMs: DEFAULT_LIMITS.idleTimeoutMs,
        maxLineBytes: DEFAULT_LIMITS.maxLineBytes,
        maxOutputBytes: DEFAULT_LIMITS.maxOutputBytes,
      },
    });
    assert.deepEqual(names(config.agents), ['demo', 'replay', 'anthropic', 'openai', 'gemini', 'langchain']);
    assert.deepEqual(
      config.agents.map((a) => [a.name, a.enabled, a.disabledReason]),
      [
        ['demo', true, undefined],
        ['replay', true, undefined],
        ['anthropic', false, 'ANTHROPIC_API_KEY is not set'],
        ['openai', false, 'OPENAI_API_KEY is not set'],
        ['gemini', false, 'GEMINI_API_KEY or GOOGLE_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY is not set'],
        ['langchain', false, 'no provider key: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY'],
      ],
    );
    const replay = findAgent(config, 'replay')!;
    assert.equal(replay.kind === 'builtin' && replay.builtin === 'replay' && replay.settings.dir, join(dir, 'captures'));
  });

  test('the example config declares both example agents, resolved against its directory', async () => {
    const config = await loadConfig({ cwd: EXAMPLES, env: {} });
    assert.equal(config.source, join(EXAMPLES, 'switchboard.config.json'));
    const py = findAgent(config, 'echo-py') as ProcessAgent;
    assert.deepEqual(
      [py.kind, py.command, py.args, py.cwd, py.framework, py.enabled],
      ['process', 'python3', ['echo.py'], EXAMPLES, 'claude', true],
    );
    assert.deepEqual(py.limits, { ...DEFAULT_LIMITS, timeoutMs: 120_000, idleTimeoutMs: 60_000 });
    const ts = findAgent(config, 'echo-ts') as ProcessAgent;
    assert.deepEqual([ts.command, ts.args], ['../../node_modules/.bin/node', ['echo.ts']]);
    assert.deepEqual(names(config.agents).slice(0, 3), ['echo-py', 'echo-ts', 'demo']);
  });
});

describe('the file', () => {
  test('every key, with relative paths resolved against the file', async () => {
    const path = file({
      port: 8080,
      host: '0.0.0.0',
      dataDir: 'state',
      databaseUrl: 'postgres://u:p@db/switchboard',
      redisUrl: 'redis://cache:6379',
      tokens: [{ token: 'tok-alice-0123456789', name: 'alice' }],
      cors: { origins: ['https://app.example.com'] },
      limits: { requestBytes: 1000, runTimeMs: 5000, rateLimitPerMinute: 10, maxLineBytes: 2048 },
      agents: [
        {
          name: 'py',
          description: 'a Python agent',
          command: 'python3',
          args: ['agent.py', '--fast'],
          cwd: 'agents',
          framework: 'deepagents',
          env: ['OPENAI_API_KEY', 'MY_*'],
          setEnv: { MODE: 'test' },
          idleTimeoutMs: 1000,
        },
        { name: 'off', command: 'x', enabled: false },
      ],
      builtins: { demo: { delayMs: 0 }, replay: { dir: 'captures', speed: 0 }, openai: { enabled: false } },
    });
    const config = await loadConfig({ cwd: dir, env: { OPENAI_API_KEY: 'k' }, path });
    const base = resolve(path, '..');
    assert.equal(config.server.dataDir, join(base, 'state'));
    assert.equal(config.server.databaseUrl, 'postgres://u:p@db/switchboard');
    assert.equal(config.server.redisUrl, 'redis://cache:6379');
    assert.deepEqual(config.server.tokens, [{ token: 'tok-alice-0123456789', name: 'alice' }]);
    assert.deepEqual(config.server.cors.origins, ['https://app.example.com']);
    const py = findAgent(config, 'py') as ProcessAgent;
    assert.deepEqual(py, {
      kind: 'process',
      name: 'py',
      description: 'a Python agent',
      framework: 'deepagents',
      command: 'python3',
      args: ['agent.py', '--fast'],
      cwd: join(base, 'agents'),
      env: ['OPENAI_API_KEY', 'MY_*'],
      setEnv: { MODE: 'test' },
      exposeStderr: false,
      // The server's limits are the defaults of each agent's own.
      limits: { timeoutMs: 5000, idleTimeoutMs: 1000, maxLineBytes: 2048, maxOutputBytes: DEFAULT_LIMITS.maxOutputBytes },
      enabled: true,
    });
    const off = findAgent(config, 'off')!;
    assert.deepEqual([off.enabled, off.disabledReason], [false, 'switched off in the config (enabled: false)']);
    const openai = findAgent(config, 'openai')!;
    assert.deepEqual([openai.enabled, openai.disabledReason], [false, 'switched off in the config (enabled: false)']);
    const replay = findAgent(config, 'replay')!;
    assert.ok(replay.kind === 'builtin' && replay.builtin === 'replay');
    assert.deepEqual(replay.settings, { dir: join(base, 'captures'), speed: 0, intervalMs: 20 });
  });

  test('SWITCHBOARD_CONFIG names the file; a named file that is missing is an error', async () => {
    const path = file({ port: 4000 });
    assert.equal((await loadConfig({ cwd: dir, env: { SWITCHBOARD_CONFIG: path } })).server.port, 4000);
    const missing = join(dir, 'nope.json');
    assert.deepEqual(await asyncIssues(loadConfig({ cwd: dir, env: { SWITCHBOARD_CONFIG: missing } })), [
      { source: missing, path: '', message: 'cannot read the config file (from SWITCHBOARD_CONFIG): no such file' },
    ]);
    assert.deepEqual(await asyncIssues(loadConfig({ cwd: dir, env: {}, path: missing })), [
      { source: missing, path: '', message: 'cannot read the config file: no such file' },
    ]);
  });

  test('invalid JSON says where', async () => {
    const path = file('{\n  "port": 3000,\n  "agents": [\n    { "name": "a", }\n  ]\n}\n');
    const [issue] = await asyncIssues(loadConfig({ cwd: dir, env: {}, path }));
    assert.equal(issue.source, path);
    assert.match(issue.message, /^not valid JSON: .*line 4 column 20/);
  });
});

describe('located errors', () => {
  const check = (value: unknown) => issues(() => resolveConfig(value, { env: {}, cwd: dir, source: '/x/switchboard.config.json' }));

  test('a misspelt key names itself and the keys that were expected', () => {
    assert.deepEqual(check({ agents: [{ name: 'a', command: 'x', framwork: 'claude' }] }), [
      {
        source: '/x/switchboard.config.json',
        path: 'agents[0].framwork',
        message:
          'unknown key; expected one of: name, description, command, args, cwd, framework, env, setEnv, timeoutMs, idleTimeoutMs, maxLineBytes, maxOutputBytes, exposeStderr, thinkTags, enabled',
      },
    ]);
    assert.deepEqual(check({ prot: 1 })[0].path, 'prot');
    assert.match(check({ prot: 1 })[0].message, /^unknown key; expected one of: port, host, dataDir/);
    assert.deepEqual(check({ builtins: { replay: { speedy: 2 } } })[0], {
      source: '/x/switchboard.config.json',
      path: 'builtins.replay.speedy',
      message: 'unknown key; expected one of: enabled, dir, speed, intervalMs',
    });
  });

  test('wrong values: what was expected and what was there', () => {
    const found = check({
      port: 70000,
      databaseUrl: 'mysql://db',
      cors: { origins: ['https://ok.example.com', 'not an origin'] },
      agents: [
        { name: 'a', command: 'x', framework: 'claud', timeoutMs: -5, args: 'run.py', env: ['OK', 'not-ok'] },
        { name: 'bad name!', command: '' },
        { command: 'x' },
        { name: 'c', command: 'x', setEnv: { 'BAD-NAME': 'v', GOOD: 1 } },
      ],
      tokens: [{ token: 't' }],
    });
    const byPath = Object.fromEntries(found.map((i) => [i.path, i.message]));
    assert.deepEqual(byPath, {
      port: 'expected a number at most 65535, got 70000',
      databaseUrl: 'expected a postgres:// or postgresql:// URL, got "mysql://db"',
      'cors.origins[1]': 'expected "*" or an origin such as "https://app.example.com", got "not an origin"',
      'agents[0].framework': byPath['agents[0].framework'],
      'agents[0].timeoutMs': 'expected a number greater than 0, got -5',
      'agents[0].args': 'expected an array, got "run.py"',
      'agents[0].env[1]': 'expected a variable name or a PREFIX_* pattern, got "not-ok"',
      'agents[1].name':
        'expected a name of letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit), got "bad name!"',
      'agents[1].command': 'expected a program to run',
      'agents[2].name': 'missing; expected a string',
      'agents[3].setEnv["BAD-NAME"]': 'invalid key: expected a variable name',
      'agents[3].setEnv.GOOD': 'expected a string, got 1',
      'tokens[0].name': 'missing; expected a string',
    });
    assert.match(byPath['agents[0].framework'], /^expected one of: auto, anthropic, claude, deepagents, .*; got "claud"$/);
  });

  test('duplicate and reserved agent names, duplicate tokens', () => {
    assert.deepEqual(
      check({
        agents: [
          { name: 'a', command: 'x' },
          { name: 'demo', command: 'x' },
          { name: 'a', command: 'y' },
        ],
        tokens: [
          { token: 'same', name: 'x' },
          { token: 'same', name: 'y' },
        ],
      }).map((i) => [i.path, i.message]),
      [
        ['agents[1].name', '"demo" is the name of a built-in agent (configure it under builtins.demo)'],
        ['agents[2].name', '"a" is already the name of agents[0]'],
        ['tokens[1].token', 'the same token as tokens[0]'],
      ],
    );
  });

  test('not an object at all', () => {
    assert.deepEqual(check([1, 2]), [{ source: '/x/switchboard.config.json', path: '', message: 'expected an object, got an array' }]);
  });
});

describe('the environment', () => {
  test('environment variables win over the file', () => {
    const config = resolveConfig(
      { port: 1, host: 'file-host', dataDir: 'from-file', databaseUrl: 'postgres://file/db', tokens: [{ token: 'file', name: 'f' }] },
      {
        cwd: dir,
        source: join(dir, 'switchboard.config.json'),
        env: {
          PORT: '8443',
          HOST: '::',
          SWITCHBOARD_DATA_DIR: 'env-data',
          DATABASE_URL: 'postgresql://env/db',
          REDIS_URL: 'rediss://env:6380',
          SWITCHBOARD_TOKENS: 'alice:tok-a, bob:tok:with:colons,bare-token',
          SWITCHBOARD_CORS_ORIGINS: 'https://a.example.com, http://localhost:5173',
          SWITCHBOARD_MAX_REQUEST_BYTES: '2048',
          SWITCHBOARD_RUN_TIMEOUT_MS: '1000',
          SWITCHBOARD_RATE_LIMIT_PER_MINUTE: '0',
          SWITCHBOARD_CAPTURES_DIR: '/srv/captures',
        },
      },
    );
    assert.equal(config.server.port, 8443);
    assert.equal(config.server.host, '::');
    assert.equal(config.server.dataDir, join(dir, 'env-data'));
    assert.equal(config.server.databaseUrl, 'postgresql://env/db');
    assert.equal(config.server.redisUrl, 'rediss://env:6380');
    assert.deepEqual(config.server.tokens, [
      { name: 'alice', token: 'tok-a' },
      { name: 'bob', token: 'tok:with:colons' },
      { name: 'token-3', token: 'bare-token' },
    ]);
    assert.deepEqual(config.server.cors.origins, ['https://a.example.com', 'http://localhost:5173']);
    assert.deepEqual(
      [config.server.limits.requestBytes, config.server.limits.runTimeMs, config.server.limits.rateLimitPerMinute],
      [2048, 1000, 0],
    );
    assert.equal(findAgent(config, 'demo')!.limits.timeoutMs, 1000);
    const replay = findAgent(config, 'replay')!;
    assert.ok(replay.kind === 'builtin' && replay.builtin === 'replay' && replay.settings.dir === '/srv/captures');
  });

  test('SWITCHBOARD_TOKENS as JSON', () => {
    const config = resolveConfig({}, { cwd: dir, env: { SWITCHBOARD_TOKENS: '[{"token":"t1","name":"one"}]' } });
    assert.deepEqual(config.server.tokens, [{ token: 't1', name: 'one' }]);
  });

  test('bad environment values are located by variable, all at once (with the file problems)', () => {
    const found = issues(() =>
      resolveConfig(
        { port: 'x' },
        {
          cwd: dir,
          source: '/x/switchboard.config.json',
          env: {
            PORT: 'eighty',
            REDIS_URL: 'http://nope',
            SWITCHBOARD_TOKENS: '[{"token": 1}]',
            SWITCHBOARD_CORS_ORIGINS: 'https://ok.example.com,ftp://x',
            SWITCHBOARD_RUN_TIMEOUT_MS: '-1',
            ANTHROPIC_BASE_URL: 'api.anthropic.com',
          },
        },
      ),
    );
    assert.deepEqual(
      found.map((i) => `${i.source}: ${i.path}: ${i.message}`),
      [
        '/x/switchboard.config.json: port: expected a number, got "x"',
        'environment: PORT: expected an integer from 0 to 65535, got "eighty"',
        'environment: SWITCHBOARD_TOKENS: expected a JSON array of {"token", "name"} objects, or "name:token,name:token"',
        'environment: SWITCHBOARD_CORS_ORIGINS: expected "*" or origins such as "https://app.example.com", comma-separated; got "ftp://x"',
        'environment: SWITCHBOARD_RUN_TIMEOUT_MS: expected an integer from 1 up, got "-1"',
        'environment: REDIS_URL: expected a redis:// or rediss:// URL, got "http://nope"',
        'environment: ANTHROPIC_BASE_URL: expected an http(s) URL, got "api.anthropic.com"',
      ],
    );
    // The message of the error lists them too, one per line.
    try {
      resolveConfig({}, { cwd: dir, env: { PORT: 'x' } });
    } catch (err) {
      assert.equal((err as Error).message, 'environment: PORT: expected an integer from 0 to 65535, got "x"');
    }
  });
});

describe('SDK agents', () => {
  test('enabled by their API key, with base URL and model from the environment', () => {
    const config = resolveConfig(
      { builtins: { anthropic: { model: 'from-file', maxTokens: 1000, system: 'Be brief.' } } },
      {
        cwd: dir,
        env: { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/', GOOGLE_API_KEY: 'g', GEMINI_MODEL: 'gemini-test' },
      },
    );
    const anthropic = findAgent(config, 'anthropic')!;
    assert.ok(anthropic.kind === 'builtin' && anthropic.builtin === 'anthropic');
    assert.equal(anthropic.enabled, true);
    assert.equal(anthropic.framework, 'anthropic');
    assert.deepEqual(anthropic.settings, {
      provider: 'anthropic',
      model: 'from-file',
      baseUrl: 'http://127.0.0.1:9/',
      apiKeyEnv: ['ANTHROPIC_API_KEY'],
      maxTokens: 1000,
      system: 'Be brief.',
    });
    const gemini = findAgent(config, 'gemini')!;
    assert.ok(gemini.kind === 'builtin' && gemini.builtin === 'gemini');
    assert.deepEqual([gemini.enabled, gemini.framework, gemini.settings.model], [true, 'gemini', 'gemini-test']);
    assert.equal(findAgent(config, 'openai')!.enabled, false);
    // The key itself is never part of the configuration.
    assert.ok(!JSON.stringify(config).includes('"a"'));
  });

  test('langchain uses the first provider with a key, or the one configured', () => {
    const auto = findAgent(resolveConfig({}, { cwd: dir, env: { OPENAI_API_KEY: 'o' } }), 'langchain')!;
    assert.ok(auto.kind === 'builtin' && auto.builtin === 'langchain');
    assert.deepEqual([auto.enabled, auto.settings.provider, auto.framework], [true, 'openai', 'langchain']);
    const chosen = findAgent(
      resolveConfig({ builtins: { langchain: { provider: 'gemini' } } }, { cwd: dir, env: { OPENAI_API_KEY: 'o' } }),
      'langchain',
    )!;
    assert.deepEqual(
      [chosen.enabled, chosen.disabledReason],
      [false, 'GEMINI_API_KEY or GOOGLE_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY is not set'],
    );
  });
});
