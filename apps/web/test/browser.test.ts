/**
 * The web UI in a real browser (Debian's Chromium through playwright-core) against the real
 * Switchboard server: startServer on port 0 serving the built UI, the demo agent. See ui-suite.ts
 * for what is checked; routes the server does not have yet are reported as todos.
 */
import { startServer } from '../../../packages/server/src/server/start.ts';
import { tempDataDir } from './support.ts';
import { uiSuite } from './ui-suite.ts';

uiSuite('server', async () => {
  // A data directory of its own, for a server that has a store.
  process.env.SWITCHBOARD_DATA_DIR ??= await tempDataDir();
  // 80 ms between the demo agent's events: every block lives long enough to be seen streaming.
  return startServer({ port: 0, delayMs: 80 });
});
