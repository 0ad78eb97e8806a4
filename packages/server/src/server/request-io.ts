/**
 * A request's body and its "the client went away" signal, taken from Node's own request and response
 * when the gateway runs on Node's HTTP server. @hono/node-server builds the web `Request` behind
 * `c.req.raw` (its headers copied, an AbortController, a web stream bridged from Node's) the first
 * time its `body` or `signal` is read, ≈ 0.1 ms a request in an earlier profile of the load benchmark,
 * where a run's whole work before its first byte was ≈ 0.55 ms (docs/benchmarks.md, section 5).
 * Without Node's objects (`app.request` in tests, another runtime) both come from the web `Request`,
 * with the same results.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { type BodyResult, readBody, readIncomingBody } from './body.ts';
import type { GatewayContext } from './context.ts';

/** One signal per response, however many handlers ask. */
const signals = new WeakMap<ServerResponse, AbortSignal>();

function nodeObjects(c: GatewayContext): { incoming?: IncomingMessage; outgoing?: ServerResponse } {
  return (c.env ?? {}) as { incoming?: IncomingMessage; outgoing?: ServerResponse };
}

/** Node's response to the request, when the gateway runs on Node's HTTP server (`sse-response.ts` writes to it). */
export function nodeResponse(c: GatewayContext): ServerResponse | undefined {
  const { outgoing } = nodeObjects(c);
  return outgoing?.writeHead ? outgoing : undefined;
}

/** The request body as text, at most `maxBytes` (see `readBody`). */
export function requestBody(c: GatewayContext, maxBytes: number): Promise<BodyResult> {
  const { incoming } = nodeObjects(c);
  // readableFlowing is null until someone reads the stream: if the web Request did, its body is there.
  if (incoming?.on && incoming.readableFlowing === null) return readIncomingBody(incoming, maxBytes);
  return readBody(c.req.raw, maxBytes);
}

/**
 * Aborted when the connection closes before the response was fully written (as @hono/node-server
 * aborts the web Request's signal), or already aborted when that happened before this call.
 */
export function requestSignal(c: GatewayContext): AbortSignal {
  const { incoming, outgoing } = nodeObjects(c);
  if (!outgoing?.once) return c.req.raw.signal;
  let signal = signals.get(outgoing);
  if (signal) return signal;
  const ctl = new AbortController();
  signal = ctl.signal;
  signals.set(outgoing, signal);
  const onClose = () => {
    if (incoming?.errored) ctl.abort(String(incoming.errored));
    else if (!outgoing.writableFinished) ctl.abort('Client connection prematurely closed.');
  };
  if (outgoing.destroyed) onClose();
  else outgoing.once('close', onClose);
  return signal;
}
