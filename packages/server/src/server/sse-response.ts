/**
 * A run's SSE stream as the response to a request: the one place the gateway's routes (chat, AG-UI,
 * the REST stream) turn `resumeSse`'s text into bytes on the wire.
 *
 * On Node's HTTP server the text is written straight to Node's response: one `write` per page of the
 * tail (Node encodes the string as it writes it), and the head goes out with the first page rather
 * than in a packet of its own — unless that page takes longer than {@link HEAD_WAIT_MS}, then the
 * head is sent alone, as before. The route answers @hono/node-server with a response marked
 * `x-hono-already-sent` (its documented escape hatch), so no web `Response`, `ReadableStream` or
 * `TextEncoder` stands between the tail and the socket; the head carries the headers the middleware
 * put on that response (CORS), read once the middleware is done. Elsewhere (`app.request` in tests,
 * another runtime) the route answers with `resumeSseResponse`'s web `Response`. The bytes of the body
 * are the same either way. A store read that fails under the stream is logged once and answered
 * with the JSON error (503 `store_unavailable`) when nothing went out yet, else with the protocol's
 * own error ending (resume.ts).
 */
import type { ServerResponse } from 'node:http';
import { PROTOCOLS, type Protocol } from '@switchboard/core';
import { type ResumeOptions, resumeSse, resumeSseResponse, type Store, StoreReadError } from '@switchboard/store';

import type { GatewayContext } from './context.ts';
import { storeFaultResponse } from './errors.ts';
import { nodeResponse } from './request-io.ts';

/** How long the head waits for the first page of the stream, to go out in the same packet (ms). */
export const HEAD_WAIT_MS = 1000;

/** The header by which @hono/node-server leaves a response to the handler that wrote it. */
const ALREADY_SENT = 'x-hono-already-sent';

/**
 * The web `Response` as this module found it. Once it serves, @hono/node-server replaces the global
 * with a lighter one of its own, and 2.x writes the head of such a response itself, marker or not
 * (the body stays empty). Its own `RESPONSE_ALREADY_SENT` is built at load time, before the
 * replacement, and so is this.
 */
const WebResponse = globalThis.Response;

/**
 * The SSE text of run `runId` in `protocol` after `lastEventId`, then live until the run ends (see
 * `resumeSse`), as this request's response, with `headers` added to the protocol's.
 */
export function sseResponse(
  c: GatewayContext,
  store: Store,
  runId: string,
  protocol: Protocol,
  lastEventId: string | null | undefined,
  options: ResumeOptions & { headers?: Record<string, string> } = {},
): Response {
  // HEAD: the stream's head now, not when the run ends (Node would hold it until the body's end).
  if (c.req.method === 'HEAD') return new Response(null, { headers: { ...PROTOCOLS[protocol].headers, ...(options.headers ?? {}) } });
  const outgoing = nodeResponse(c);
  if (!outgoing) return resumeSseResponse(store, runId, protocol, lastEventId, options);
  const { headers, ...rest } = options;
  // Aborted when the client goes away, or when writing fails: the tail stops either way.
  const ctl = new AbortController();
  rest.signal?.addEventListener('abort', () => ctl.abort(), { once: true });
  const text = resumeSse(store, runId, protocol, lastEventId, { ...rest, signal: ctl.signal });
  void writeSse(c, outgoing, text, { ...PROTOCOLS[protocol].headers, ...headers }, ctl);
  // A response of its own (not the package's shared one): the middleware adds its headers to it.
  return new WebResponse(null, { headers: { [ALREADY_SENT]: 'true' } });
}

/** The response's head: the middleware's headers (CORS) and the stream's. */
function writeHead(c: GatewayContext, res: ServerResponse, headers: Record<string, string>, status = 200): void {
  if (res.headersSent) return;
  const head: Record<string, string | string[]> = {};
  for (const [name, value] of c.res.headers) if (name !== ALREADY_SENT) head[name] = value;
  const cookies = c.res.headers.getSetCookie();
  if (cookies.length > 0) head['set-cookie'] = cookies;
  for (const [name, value] of Object.entries(headers)) head[name.toLowerCase()] = value;
  res.writeHead(status, head);
}

/** Resolves when `res` can take more (`drain`), or has closed. */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A store read failed under the stream: the JSON error when nothing went out yet, else the
 * protocol's error ending (the client resumes from its last id once the store is back).
 */
async function endWithFault(c: GatewayContext, res: ServerResponse, err: StoreReadError): Promise<void> {
  if (res.destroyed) return;
  if (res.headersSent) {
    res.end(err.ending);
    return;
  }
  const answer = storeFaultResponse(err);
  writeHead(c, res, Object.fromEntries(answer.headers), answer.status);
  res.end(await answer.text());
}

async function writeSse(
  c: GatewayContext,
  res: ServerResponse,
  text: AsyncGenerator<string>,
  headers: Record<string, string>,
  ctl: AbortController,
): Promise<void> {
  const onClose = () => ctl.abort('client disconnected');
  res.once('close', onClose);
  // The head waits for the first page, at most HEAD_WAIT_MS.
  let timer: NodeJS.Timeout | undefined = setTimeout(() => {
    timer = undefined;
    if (!res.headersSent && !res.destroyed) {
      writeHead(c, res, headers);
      res.flushHeaders();
    }
  }, HEAD_WAIT_MS);
  // The middleware finishes with the route's response (CORS adds `Vary` to it) in this turn's
  // microtasks: the head, which copies its headers, waits for a later turn. Only the head: the tail
  // starts now, so that a new run's tail is waiting before the run's first commit (a tail that
  // starts after it reads the store instead: two queries per stream on PostgreSQL).
  const later = new Promise<void>((resolve) => setImmediate(resolve));
  try {
    for await (const chunk of text) {
      if (!res.headersSent) await later;
      if (res.destroyed) break;
      writeHead(c, res, headers);
      if (!res.write(chunk)) await writable(res);
    }
    await later;
    if (!res.destroyed) {
      writeHead(c, res, headers);
      res.end();
    }
  } catch (err) {
    c.get('core').onError(err);
    if (err instanceof StoreReadError) {
      await later;
      await endWithFault(c, res, err);
    } else if (!res.headersSent && !res.destroyed) {
      // Anything else: the client sees the connection cut, as a web stream that errors makes
      // @hono/node-server do.
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Error: the stream failed');
    } else res.destroy(err instanceof Error ? err : new Error(String(err)));
  } finally {
    if (timer) clearTimeout(timer);
    res.off('close', onClose);
    ctl.abort();
  }
}
