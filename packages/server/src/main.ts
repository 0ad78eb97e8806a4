/**
 * `npm start`: the Switchboard gateway. Configuration from `switchboard.config.json` (or
 * `SWITCHBOARD_CONFIG`) and the environment — `PORT`, `HOST`, `SWITCHBOARD_DATA_DIR` (SQLite, default
 * ./data), `DATABASE_URL` (PostgreSQL), `REDIS_URL` (live fan-out), `SWITCHBOARD_TOKENS`, … (see
 * docs/gateway.md). Interrupted runs of an earlier process are recovered at start; SIGINT / SIGTERM
 * shut it down cleanly (runs aborted and stored, store closed); a second signal exits at once.
 */
import { runGateway } from './server/boot.ts';

process.exitCode = await runGateway();
