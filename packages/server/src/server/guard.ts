/**
 * Guards in front of every route and the WebSocket upgrade:
 *
 * - the `Host` allow-list, while authentication is off: a page on `evil.example` whose name was
 *   re-pointed at 127.0.0.1 (DNS rebinding) sends `Host: evil.example`, and gets 403 instead of the
 *   chats. Default list: the bound host, `localhost` and `*.localhost`, 127.0.0.1 and ::1 (and any
 *   IP address when bound to all interfaces: an address cannot be re-pointed). `*` turns it off.
 * - the `Origin` of a WebSocket upgrade and of a CORS preflight: the server's own or a configured one.
 * - the failed-authentication limit: each client address may fail authentication
 *   `authFailuresPerMinute` times a minute; after that it gets 429 with `Retry-After` (a token
 *   bucket, shared through Redis when the fan-out is configured).
 */
import { isIP } from 'node:net';

import type { Principal } from './auth.ts';
import type { GatewayCore } from './context.ts';
import { jsonError } from './errors.ts';

/** Names that always mean this machine. */
const LOCAL = ['localhost', '127.0.0.1', '::1'];

/** The host name of a `Host` header, without port and IPv6 brackets, lower-cased (undefined when malformed). */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(1, end) : undefined;
  }
  const colon = h.indexOf(':');
  // More than one colon and no brackets: a bare IPv6 address.
  if (colon >= 0 && h.indexOf(':', colon + 1) >= 0) return h;
  return colon >= 0 ? h.slice(0, colon) : h;
}

/**
 * A `Host` check for a server bound to `boundHost`, with the configured allow-list (empty: the
 * default). Returns true when the request may proceed.
 */
export function hostChecker(boundHost: string | undefined, allowed: readonly string[]): (header: string | undefined) => boolean {
  if (allowed.includes('*')) return () => true;
  const list = new Set<string>(allowed.length > 0 ? allowed.map((h) => hostName(h) ?? h) : LOCAL);
  const wildcard = boundHost === '0.0.0.0' || boundHost === '::' || boundHost === '';
  if (allowed.length === 0 && boundHost && !wildcard) list.add(hostName(boundHost) ?? boundHost);
  return (header) => {
    const name = hostName(header);
    if (name === undefined) return false;
    if (list.has(name)) return true;
    if (allowed.length === 0 && name.endsWith('.localhost')) return true;
    return allowed.length === 0 && wildcard && isIP(name) !== 0;
  };
}

/** The 403 message of a rejected `Host`. */
export function hostRejection(header: string | undefined): string {
  return `Host ${JSON.stringify(header ?? '')} is not allowed: add it to allowedHosts (SWITCHBOARD_ALLOWED_HOSTS), or turn on authentication`;
}

/** The `Origin` check (WebSocket upgrades, CORS preflights): none (not a browser), an allowed origin, or the server's own host. */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: readonly string[]): boolean {
  if (!origin) return true;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Who the rate limit and the per-caller run cap count a request against: the token's name, else the client address. */
export function callerKey(principal: Principal, address: string | undefined): string {
  return 'name' in principal ? `token:${principal.name}` : `ip:${address ?? 'local'}`;
}

/** After a failed authentication: a 429 response when `address` has failed too often, else undefined (answer 401). */
export async function authFailureLimited(core: GatewayCore, address: string | undefined): Promise<Response | undefined> {
  if (!core.authFailures) return undefined;
  const taken = await core.authFailures.take(`authfail:${address ?? 'local'}`);
  if (taken.ok) return undefined;
  return jsonError(429, 'Too many failed authentication attempts: wait before trying again', {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000))) },
  });
}
