/**
 * Builds the web UI when its build is missing or out of date, else does nothing (`npm start` runs
 * this first, so `npm start` works right after `npm install` on a clean clone, and a second start
 * costs a few milliseconds). "Out of date" = the content hash of the UI's sources (apps/web/src,
 * index.html, vite.config.ts, package.json, and packages/core/src which the inspector bundles)
 * differs from the one recorded in the build's .build-stamp.
 *
 * The build is written into the server package, `packages/server/web/`, which serves it and ships it
 * in its tarball. It goes to a temporary folder beside it that replaces web/ only when complete, so
 * a server never serves a half-written build.
 *
 * Usage: node apps/web/scripts/ensure-built.ts [--force] [--quiet] [--strict]
 * (a failed build exits 0 so `npm start` still starts, with the minimal page; --strict exits 1)
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(WEB_DIR, '../..');
/** The built UI: inside the server package, which serves it (packages/server/src/server/static.ts). */
export const DIST_DIR = join(ROOT, 'packages/server/web');
const STAMP = '.build-stamp';

async function files(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Content hash of everything the build reads. */
export async function sourceHash(): Promise<string> {
  const inputs = [
    ...(await files(join(WEB_DIR, 'src'))),
    ...(await files(join(ROOT, 'packages/core/src'))),
    join(WEB_DIR, 'index.html'),
    join(WEB_DIR, 'vite.config.ts'),
    join(WEB_DIR, 'package.json'),
  ].sort();
  const h = createHash('sha256');
  for (const f of inputs) {
    if (!existsSync(f)) continue;
    h.update(relative(ROOT, f));
    h.update('\0');
    h.update(await readFile(f));
    h.update('\0');
  }
  return h.digest('hex');
}

/** True when DIST_DIR holds a build of the current sources. */
export async function isFresh(hash?: string): Promise<boolean> {
  try {
    const stamp = await readFile(join(DIST_DIR, STAMP), 'utf8');
    return existsSync(join(DIST_DIR, 'index.html')) && stamp.trim() === (hash ?? (await sourceHash()));
  } catch {
    return false;
  }
}

const LOCK = join(WEB_DIR, '.build.lock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One build at a time across processes (test files run in parallel): a lock file holding the builder's pid. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const handle = await open(LOCK, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(LOCK, 'utf8').catch(() => ''));
      // A lock left by a process that died is taken over.
      if (Number.isInteger(owner) && owner > 0 && !alive(owner)) await rm(LOCK, { force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(LOCK, { force: true });
  }
}

/** Builds when needed; resolves to true when it built. */
export async function ensureBuilt(options: { force?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  if (!options.force && (await isFresh())) return false;
  // Someone else may have built it while this waited for the lock: check again inside.
  return withLock(() => build(options));
}

async function build(options: { force?: boolean; quiet?: boolean }): Promise<boolean> {
  const hash = await sourceHash();
  if (!options.force && (await isFresh(hash))) return false;
  const started = performance.now();
  if (!options.quiet) console.log('Building the web UI (apps/web)…');
  const tmp = join(dirname(DIST_DIR), `.web-tmp-${process.pid}`);
  const vite = await import('vite');
  try {
    await vite.build({
      configFile: join(WEB_DIR, 'vite.config.ts'),
      root: WEB_DIR,
      logLevel: options.quiet ? 'error' : 'warn',
      build: { outDir: tmp, emptyOutDir: true },
    });
    await writeFile(join(tmp, STAMP), `${hash}\n`);
    await rm(DIST_DIR, { recursive: true, force: true });
    await rename(tmp, DIST_DIR);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  if (!options.quiet)
    console.log(`Web UI built in ${((performance.now() - started) / 1000).toFixed(1)}s → ${relative(process.cwd(), DIST_DIR) || '.'}`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}` || fileURLToPath(import.meta.url) === resolve(process.argv[1] ?? '')) {
  const args = new Set(process.argv.slice(2));
  try {
    await ensureBuilt({ force: args.has('--force'), quiet: args.has('--quiet') });
  } catch (err) {
    console.error(`The web UI could not be built: ${(err as Error).message}`);
    // `npm start` goes on: the server then serves the minimal page at /. --strict makes it an error.
    if (args.has('--strict')) process.exitCode = 1;
    else console.error('Starting anyway: the server serves the minimal page at / until the UI builds.');
  }
}
