/**
 * Booting the gateway the way `npm start` and `switchboard serve` do: the configuration (file and
 * environment), the store it names (SQLite in `SWITCHBOARD_DATA_DIR`, PostgreSQL with
 * `DATABASE_URL`, Redis fan-out with `REDIS_URL`), recovery of the runs a previous process left
 * unfinished, the server, and a clean shutdown on SIGINT / SIGTERM.
 */
import { loadConfig } from '../config/load.ts';
import type { SwitchboardConfig } from '../config/types.ts';
import { AgentLedger } from './agent-ledger.ts';
import type { DisconnectPolicy } from './context.ts';
import { type GatewayStore, openGatewayStore, storeSettingsOf } from './gateway-store.ts';
import { type RunningServer, type ServerOptions, startServer } from './start.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Options of `bootGateway`. */
export interface BootOptions {
  /** Config file (default: `SWITCHBOARD_CONFIG`, else `switchboard.config.json` when present). */
  configPath?: string;
  /** Override the configured port / host. */
  port?: number;
  host?: string;
  /** Environment (default `process.env`). */
  env?: Env;
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Where start-up lines go (default: stdout). */
  log?: (line: string) => void;
  /** More server options (agents given in code, a logger…). */
  server?: Omit<ServerOptions, 'config' | 'store' | 'fanout' | 'port' | 'host'>;
}

/** A booted gateway. */
export interface Booted {
  server: RunningServer;
  config: SwitchboardConfig;
  store: GatewayStore;
  /** Runs that were still `running` from an earlier process and were closed as interrupted. */
  recovered: string[];
  /** Agent processes an earlier gateway on this data directory left behind, killed at boot. */
  reaped: number[];
  /** Stops the server, then closes the store. */
  close(): Promise<void>;
}

const SWEEP_MS = 60_000;

/** `SWITCHBOARD_ON_DISCONNECT`: `continue` (default) or `abort`. */
function disconnectPolicy(env: Env): DisconnectPolicy {
  const v = env.SWITCHBOARD_ON_DISCONNECT?.trim();
  if (!v || v === 'continue') return 'continue';
  if (v === 'abort') return 'abort';
  throw new Error(`Invalid SWITCHBOARD_ON_DISCONNECT ${JSON.stringify(v)}: expected continue or abort`);
}

/** Loads the configuration, opens the store, recovers interrupted runs and starts listening. */
export async function bootGateway(options: BootOptions = {}): Promise<Booted> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const config = await loadConfig({
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.configPath ? { path: options.configPath } : {}),
  });
  const settings = config.server;
  const onDisconnect = disconnectPolicy(env);
  const store = await openGatewayStore(storeSettingsOf(settings, env));
  // Alone on the log (SQLite), every run left `running` belongs to a dead process. Sharing it, only
  // runs silent for longer than any agent may be silent are.
  const staleMs = Math.max(settings.limits.idleTimeoutMs, ...config.agents.map((a) => a.limits.idleTimeoutMs)) + 30_000;
  // Agents a gateway killed before it could end them (SIGKILL) are ended now.
  const ledger = new AgentLedger(settings.dataDir);
  const reaped = ledger.reap();
  const userOnProcess = options.server?.runOptions?.onProcess;
  const onProcess = (event: 'spawn' | 'exit', pid: number) => {
    ledger.onProcess(event, pid);
    userOnProcess?.(event, pid);
  };
  let recovered: string[];
  let server: RunningServer;
  try {
    // Runs whose lease ended are orphans whatever the backend; alone on the log (SQLite), all are.
    recovered = await store.store.recoverRuns(store.shared ? { expiredLeases: true } : {});
    if (store.shared) recovered.push(...(await store.store.recoverRuns({ olderThanMs: staleMs })));
    server = await startServer({
      ...options.server,
      config,
      store: store.store,
      ...(store.fanout ? { fanout: store.fanout } : {}),
      port: options.port ?? settings.port,
      host: options.host ?? settings.host,
      onDisconnect,
      runOptions: { env, ...options.server?.runOptions, onProcess },
    });
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  const sweep = store.shared
    ? setInterval(() => {
        store.store.recoverRuns({ olderThanMs: staleMs }).catch(() => {});
      }, SWEEP_MS)
    : undefined;
  sweep?.unref();

  const enabled = config.agents.filter((a) => a.enabled).map((a) => a.name);
  log(`Switchboard listening on ${server.url}`);
  log(`  store: ${store.describe}${recovered.length ? `; ${recovered.length} interrupted run(s) recovered` : ''}`);
  if (reaped.length) log(`  ended ${reaped.length} agent process(es) left behind by a previous gateway: ${reaped.join(', ')}`);
  log(`  config: ${config.source ?? 'none (defaults and environment)'}; agents: ${enabled.join(', ')}`);
  log(`  auth: ${settings.tokens.length ? `${settings.tokens.length} token(s)` : 'off'}; on disconnect: ${onDisconnect}`);

  let closing: Promise<void> | undefined;
  return {
    server,
    config,
    store,
    recovered,
    reaped,
    close: () => {
      closing ??= (async () => {
        if (sweep) clearInterval(sweep);
        try {
          await server.close();
        } finally {
          await store.close();
        }
      })();
      return closing;
    },
  };
}

/**
 * Boots the gateway and runs it until SIGINT / SIGTERM (a second signal exits at once). Resolves
 * to the exit code: 0 after a clean shutdown, 1 when it could not start.
 */
export async function runGateway(options: BootOptions = {}): Promise<number> {
  let booted: Booted;
  try {
    booted = await bootGateway(options);
  } catch (err) {
    process.stderr.write(`switchboard: cannot start: ${(err as Error).message}\n`);
    return 1;
  }
  const { promise, resolve } = Promise.withResolvers<number>();
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
    booted.close().then(
      () => resolve(0),
      (err) => {
        process.stderr.write(`switchboard: error while shutting down: ${(err as Error).message}\n`);
        resolve(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  const code = await promise;
  process.off('SIGINT', shutdown);
  process.off('SIGTERM', shutdown);
  return code;
}
