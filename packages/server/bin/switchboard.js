#!/usr/bin/env node
/**
 * Launcher of the `switchboard` CLI. Plain JavaScript that starts under any Node >= 18: the CLI is
 * TypeScript run through Node 24's type stripping, so on an older Node (or one without type
 * stripping) it re-runs itself with the Node 24 binary of the pinned `node` npm package.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 24;
// Set on the child so that a wrong binary cannot make it re-exec forever.
const GUARD = 'SWITCHBOARD_CLI_REEXEC';

const args = process.argv.slice(2);
const major = Number(process.versions.node.split('.')[0]);
const canRunTs = major >= MIN_MAJOR && Boolean(process.features?.typescript);

/** The Node 24 binary: the `node` package's, else the workspace root's node_modules/.bin/node. */
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

function reexec() {
  if (process.env[GUARD])
    fail(`${process.execPath} (Node ${process.versions.node}) cannot run TypeScript; Node ${MIN_MAJOR} or later is required`);
  const node = findNode();
  if (!node)
    fail(
      `Node ${MIN_MAJOR} or later is required (this is ${process.versions.node}) and the "node" package is not installed; run npm install`,
    );
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

if (canRunTs) {
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(args);
} else {
  reexec();
}
