/**
 * An in-process HTTP server (node:http on 127.0.0.1) that serves a stored SSE stream and drops the
 * connection where a test says: the stand-in for the gateway in the resume tests. It implements the
 * resume contracts of docs/client.md: a GET with `Last-Event-ID` gets the frames after that id.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored SSE event, as text (`id: …\ndata: …\n\n`), with its id when it has one. */
export interface StoredFrame {
  id?: string;
  text: string;
}

/** Splits SSE text into its events (blank-line separated), keeping each event's text and id. */
export function storedFrames(sse: string): StoredFrame[] {
  const out: StoredFrame[] = [];
  for (const block of sse.split('\n\n')) {
    if (block.trim() === '') continue;
    const id = /^id: (.*)$/m.exec(block)?.[1];
    out.push(id !== undefined ? { id, text: `${block}\n\n` } : { text: `${block}\n\n` });
  }
  return out;
}

export interface Connection {
  method: string;
  url: string;
  lastEventId: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface StreamServerOptions {
  /** The stored stream. */
  frames: StoredFrame[];
  /** Byte offset at which connection n (0-based) is dropped; a connection without one is served to the end. */
  cuts?: (number | undefined)[];
  /** Resend this many frames before the Last-Event-ID position (a sloppy server; the client must dedupe). */
  overlap?: number;
  /** Status to answer connection n with instead of streaming (e.g. 500, 204). */
  statuses?: (number | undefined)[];
  /** Content type of the stream (default text/event-stream). */
  contentType?: string;
  /** Extra response headers (e.g. the gateway's `x-switchboard-run-id`). */
  headers?: Record<string, string>;
}

export interface StreamServer {
  url: string;
  connections: Connection[];
  close(): Promise<void>;
}

function frameIndexAfter(frames: StoredFrame[], lastEventId: string | undefined): number {
  if (lastEventId === undefined) return 0;
  const at = frames.findIndex((f) => f.id === lastEventId);
  return at === -1 ? 0 : at + 1;
}

/** Starts the server; `url` is its origin (`http://127.0.0.1:<port>`). */
export async function startStreamServer(options: StreamServerOptions): Promise<StreamServer> {
  const connections: Connection[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = connections.length;
      const header = req.headers['last-event-id'];
      const lastEventId = typeof header === 'string' ? header : undefined;
      connections.push({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        lastEventId,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = options.statuses?.[n];
      if (status !== undefined && status !== 200) {
        res.writeHead(status, { 'content-type': 'application/json', ...options.headers });
        res.end(status === 204 ? undefined : JSON.stringify({ error: `status ${status}` }));
        return;
      }
      let from = frameIndexAfter(options.frames, lastEventId);
      if (lastEventId !== undefined && options.overlap) from = Math.max(0, from - options.overlap);
      const body = Buffer.from(
        options.frames
          .slice(from)
          .map((f) => f.text)
          .join(''),
      );
      res.writeHead(200, { 'content-type': options.contentType ?? 'text/event-stream', 'cache-control': 'no-cache', ...options.headers });
      const cut = options.cuts?.[n];
      if (cut === undefined || cut >= body.length) {
        res.end(body);
        return;
      }
      // Send the first `cut` bytes, then drop the connection (no clean end of the chunked body).
      res.flushHeaders();
      res.write(body.subarray(0, cut), () => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
