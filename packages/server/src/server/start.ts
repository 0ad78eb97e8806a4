/**
 * Runs the gateway on Node's HTTP server (via @hono/node-server's request listener), with the WebSocket endpoint on
 * the same port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';

import { type AppOptions, createGateway } from './app.ts';
import type { GatewayCore } from './context.ts';
import { endWithError, jsonError } from './errors.ts';
import { attachWebSocket } from './ws.ts';

/** Options of `startServer`: where to listen, plus the app's options. */
export interface ServerOptions extends AppOptions {
  /** Port; 0 picks a free one. Default 3000. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1` (local only). */
  host?: string;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The port actually bound (useful with port 0). */
  port: number;
  /** The store, the runs executing here, the agents… */
  core: GatewayCore;
  /**
   * Stops accepting connections, aborts the runs executing here (their agents stop, their partial
   * messages are stored), closes open streams and sockets, and resolves once all of it is done. A
   * store passed in options is left open (its owner closes it).
   */
  close(): Promise<void>;
}

/**
 * Connections the kernel may hold completed for the server before it accepts them (Linux caps it at
 * `net.core.somaxconn`). Node's default, 511, overflows when a thousand clients connect at once
 * while the loop is busy: the kernel then drops their handshakes' last packet and each client waits
 * for a retransmission (≥ 1 s) before its request is even read.
 */
export const LISTEN_BACKLOG = 4096;

/**
 * @hono/node-server's answer to a request it cannot turn into a web `Request` (no `Host`, a `Host`
 * it cannot parse, a bad path): the gateway's JSON 400 instead of its empty one. Any other error reaching it: a JSON 500.
 */
export function requestErrorResponse(err: unknown): Response {
  if (err instanceof Error && err.name === 'RequestError') return jsonError(400, `Bad request: ${err.message}`);
  return jsonError(500, 'Internal server error');
}

/** Node's parser refused a request (malformed, headers too large, too slow): the JSON error, as Node's own statuses have it. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection, or one whose response has begun: nothing can be answered.
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') endWithError(socket, 431, 'Request headers too large');
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') endWithError(socket, 408, 'Request timeout: the request did not arrive in time');
  else endWithError(socket, 400, 'Bad request: malformed HTTP');
}

function urlOf(host: string, port: number): string {
  // A wildcard address is not something a browser can open.
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** Starts the Switchboard server; resolves once it is listening and its store is open. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { port = 3000, host = '127.0.0.1', ...appOptions } = options;
  const gateway = createGateway({ host, ...appOptions });
  const core = await gateway.ready();
  const server = await new Promise<Server>((resolve, reject) => {
    // Leave the process-wide Request/Response alone: this may run inside someone else's program.
    // A request without Host reaches @hono/node-server, which refuses it (as a malformed one) through errorHandler.
    const listener = getRequestListener(gateway.app.fetch, { overrideGlobalObjects: false, errorHandler: requestErrorResponse });
    const s = createServer({ requireHostHeader: false }, listener);
    s.on('clientError', answerClientError);
    s.once('error', reject);
    s.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      s.off('error', reject);
      resolve(s);
    });
  });
  const ws = attachWebSocket(server, gateway.ready);
  const bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: urlOf(host, bound),
    port: bound,
    core,
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((done, fail) => server.close((err) => (err ? fail(err) : done())));
        // Runs first (their followers then see them end), then the connections.
        await gateway.close();
        await ws.close();
        // SSE responses never go idle on their own: end them so close() does not wait forever.
        server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}
