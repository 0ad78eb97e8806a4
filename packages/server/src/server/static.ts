/**
 * Serves the web UI: the Vite build of apps/web, shipped inside this package as `web/`, at `/`,
 * `/c/<chatId>` (the app routes chats client-side, so every chat URL gets index.html) and `/assets/*`.
 * When the UI has not been built, `/` falls back to the self-contained minimal page (`public/index.html`).
 * Both are found relative to this module (src/server/ in the repository, dist/server/ once built), so
 * an installed package serves its own UI whatever the working directory.
 *
 * The built page may only run its own scripts and talk to this server (CSP); hashed assets are
 * cached for a year, index.html never. Nothing outside the assets folder can be read through a URL.
 * The build writes a Brotli and a gzip copy next to each asset (vite.config.ts); a client that
 * accepts one gets it (`Content-Encoding`), with nothing compressed at request time.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';

import { errorResponse } from './errors.ts';

/** Where the built UI is: the package's `web/` folder (apps/web's Vite build writes it there). */
export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/', import.meta.url));
/** The minimal page served when the UI is not built. */
export const FALLBACK_PAGE = fileURLToPath(new URL('../../public/index.html', import.meta.url));

/** Options of `mountWebApp`. */
export interface WebAppOptions {
  /** Folder of the built UI (its index.html and assets/). Default `DEFAULT_WEB_DIST`. */
  distDir?: string;
  /** Page served at `/` when `distDir` has no index.html. Default `FALLBACK_PAGE`. */
  fallbackPage?: string;
}

/** The built app: same-origin scripts, styles and requests only; no plugins, no framing. */
const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// The minimal page is self-contained: inline script and style, and it may only talk to this server.
const FALLBACK_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'";

const COMMON = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch {
    return undefined;
  }
}

/** Encodings the build writes next to each asset (`app.js.br`, `app.js.gz`), best first. */
const ENCODINGS = [
  { name: 'br', ext: '.br' },
  { name: 'gzip', ext: '.gz' },
] as const;

/** The precompressed copy of `file` the client accepts (`Accept-Encoding`), when the build made one. */
async function precompressed(file: string, accept: string | undefined): Promise<{ encoding: string; body: Buffer } | undefined> {
  if (!accept) return undefined;
  const accepted = new Set(
    accept
      .split(',')
      .map((p) => p.trim().split(';'))
      .filter(([, q]) => !/^\s*q\s*=\s*0(\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name.trim().toLowerCase()),
  );
  for (const e of ENCODINGS) {
    if (!accepted.has(e.name)) continue;
    const body = await readIfFile(file + e.ext);
    if (body) return { encoding: e.name, body };
  }
  return undefined;
}

/** Registers `GET /`, `GET /c/*` and `GET /assets/*` (HEAD too) on the app. */
export function mountWebApp(app: Hono, options: WebAppOptions = {}): void {
  const dist = resolve(options.distDir ?? DEFAULT_WEB_DIST);
  const assets = resolve(dist, 'assets');
  const fallback = options.fallbackPage ?? FALLBACK_PAGE;

  const page = async (): Promise<Response> => {
    const built = await readIfFile(resolve(dist, 'index.html'));
    if (built)
      return new Response(new Uint8Array(built), {
        headers: { ...COMMON, 'content-type': TYPES['.html'], 'content-security-policy': APP_CSP, 'cache-control': 'no-cache' },
      });
    const minimal = await readIfFile(fallback);
    if (!minimal) return errorResponse(404, 'No web UI: build it with `npm run build` in the Switchboard repository');
    return new Response(new Uint8Array(minimal), {
      headers: { ...COMMON, 'content-type': TYPES['.html'], 'content-security-policy': FALLBACK_CSP, 'cache-control': 'no-cache' },
    });
  };

  app.get('/', page);
  app.get('/c/:chatId{.+}', page);

  app.get('/assets/*', async (c) => {
    let name: string;
    try {
      name = decodeURIComponent(c.req.path.slice('/assets/'.length));
    } catch {
      return errorResponse(400, `Malformed asset path: ${c.req.path}`);
    }
    const file = resolve(assets, name);
    // Only files inside assets/: no `..`, no absolute paths, no NUL.
    if (name === '' || name.includes('\0') || !file.startsWith(assets + sep)) return errorResponse(404, `Not found: GET ${c.req.path}`);
    const body = await readIfFile(file);
    if (!body) return errorResponse(404, `Not found: GET ${c.req.path}`);
    const headers: Record<string, string> = {
      ...COMMON,
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      // Vite puts a content hash in every asset name: a changed file is a new URL.
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
    };
    const packed = await precompressed(file, c.req.header('accept-encoding'));
    if (packed) return new Response(new Uint8Array(packed.body), { headers: { ...headers, 'content-encoding': packed.encoding } });
    return new Response(new Uint8Array(body), { headers });
  });
}
