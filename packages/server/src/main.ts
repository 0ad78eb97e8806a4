/**
 * `npm start`: the Switchboard server with the demo agent. `PORT` (default 3000) and `HOST`
 * (default 127.0.0.1) choose where it listens. SIGINT / SIGTERM shut it down cleanly; a second
 * signal exits at once.
 */
import { startServer } from './server/start.ts';

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Invalid PORT ${JSON.stringify(process.env.PORT)}: expected an integer from 0 to 65535`);
  process.exit(1);
}
const host = process.env.HOST || '127.0.0.1';

let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer({ port, host });
} catch (err) {
  console.error(`Switchboard could not listen on ${host}:${port}: ${(err as Error).message}`);
  process.exit(1);
}
console.log(`Switchboard listening on ${server.url}`);

let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) process.exit(1);
  stopping = true;
  console.log(`${signal}: shutting down`);
  try {
    await server.close();
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  }
  // Nothing else holds the event loop, so the process ends here on its own.
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
