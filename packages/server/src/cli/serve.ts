/**
 * `switchboard serve`: the gateway, as `npm start` runs it, with --port / --host / --config over
 * the configuration file and environment. Runs until SIGINT / SIGTERM; exit 0 after a clean
 * shutdown, 1 when it cannot start (configuration, store, port), 2 on usage errors.
 */
import { runGateway } from '../server/boot.ts';

function usage(message: string): number {
  process.stderr.write(`switchboard serve: ${message}\nRun "switchboard serve --help" for the options.\n`);
  return 2;
}

/** Runs `serve`. */
export async function run(flags: Record<string, string | undefined>, _positionals: string[]): Promise<number> {
  let port: number | undefined;
  if (flags.port !== undefined) {
    port = Number(flags.port);
    if (!/^\d+$/.test(flags.port) || port > 65535) return usage(`invalid --port "${flags.port}"; expected an integer from 0 to 65535`);
  }
  if (flags.host !== undefined && flags.host.trim() === '') return usage('invalid --host ""');
  // Configuration, store and port problems are reported by runGateway (exit 1).
  return runGateway({
    ...(port !== undefined ? { port } : {}),
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(flags.config !== undefined ? { configPath: flags.config } : {}),
  });
}
