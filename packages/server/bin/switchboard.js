#!/usr/bin/env node
/**
 * Launcher of the `switchboard` CLI: runs the built CLI (dist/cli/main.js). Plain JavaScript that
 * starts under any Node, so that an older one gets a clear message instead of a syntax or import
 * error. The CLI needs Node >= 22.16 (`node:sqlite` as the store uses it). Inside the Switchboard
 * repository, whose dev dependencies pin Node 24 as the `node` npm package, an older system Node
 * re-runs the CLI with that binary instead.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const MINIMUM = [22, 16];
// Set on the child so that a wrong binary cannot make it re-exec forever.
const GUARD = 'SWITCHBOARD_CLI_REEXEC';

const args = process.argv.slice(2);
const [major, minor] = process.versions.node.split('.').map(Number);
const supported = major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);
const required = `Node ${MINIMUM.join('.')} or later is required (this is ${process.versions.node})`;

/** The pinned Node of the repository's dev dependencies: the `node` package, else the workspace root's .bin. */
function findNode() {
  try {
    return createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    const fallback = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
    return existsSync(fallback) ? fallback : undefined;
  }
}

function fail(message) {
  process.stderr.write(`switchboard: ${message}\n`);
  process.exit(1);
}

function reexec(node) {
  const child = spawn(node, [fileURLToPath(import.meta.url), ...args], {
    stdio: 'inherit',
    env: { ...process.env, [GUARD]: '1' },
  });
  // Pass signals on to the child, and leave once it has exited the same way.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (err) => fail(`cannot start ${node}: ${err.message}`));
  child.on('exit', (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

if (supported) {
  // Node 22 flags node:sqlite, which the store uses, as experimental on first use: noise on every
  // command's stderr. This process is the CLI's own, so it drops that one warning and no other.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if (String(warning?.message ?? warning).startsWith('SQLite is an experimental feature')) return;
    return emitWarning.call(process, warning, ...rest);
  };
  const { main } = await import('../dist/cli/main.js').catch((err) => {
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js'))
      fail('the CLI is not built: run `npm run build` in the Switchboard repository');
    throw err;
  });
  process.exitCode = await main(args);
} else {
  const node = process.env[GUARD] ? undefined : findNode();
  if (!node) fail(`${required}: https://nodejs.org`);
  reexec(node);
}
