/**
 * Runs the app on Node's HTTP server (via @hono/node-server).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

import { type AppOptions, createApp } from './app.ts';

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
  /** Stops accepting connections, ends open streams (their agents stop) and resolves once closed. */
  close(): Promise<void>;
}

function urlOf(host: string, port: number): string {
  // A wildcard address is not something a browser can open.
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** Starts the Switchboard server; resolves once it is listening. */
export function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { port = 3000, host = '127.0.0.1', ...appOptions } = options;
  const app = createApp(appOptions);
  return new Promise((resolve, reject) => {
    // Leave the process-wide Request/Response alone: this may run inside someone else's program.
    const server = serve({ fetch: app.fetch, port, hostname: host, overrideGlobalObjects: false }) as Server;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: urlOf(host, bound),
        port: bound,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            // SSE responses never go idle on their own: end them so close() does not wait forever.
            server.closeAllConnections();
          }),
      });
    });
  });
}
