/**
 * The one JSON error shape every route answers with: `{ error: { message, code?, issues? } }`.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { STORE_FAULT_CODE, type StoreReadError } from '@switchboard/store';

/** One problem with a request, located by a dotted field path (`messages.0.parts`; `body` for the whole body). */
export interface Issue {
  path: string;
  message: string;
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { message: string; code?: string; issues?: Issue[] };
}

/** Machine-readable error codes by status, when the route gives none. */
const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'timeout',
  409: 'conflict',
  413: 'too_large',
  426: 'upgrade_required',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal',
  503: 'unavailable',
};

/** A JSON error `Response`. */
export function errorResponse(status: number, message: string, issues?: Issue[], headers?: Record<string, string>): Response {
  return jsonError(status, message, { ...(issues ? { issues } : {}), ...(headers ? { headers } : {}) });
}

/** A JSON error `Response` with a code (default: the status's) and optional issues and headers. */
export function jsonError(
  status: number,
  message: string,
  options: { code?: string; issues?: Issue[]; headers?: Record<string, string> } = {},
): Response {
  const error: ErrorBody['error'] = { message };
  const code = options.code ?? CODES[status];
  if (code) error.code = code;
  if (options.issues) error.issues = options.issues;
  return Response.json({ error } satisfies ErrorBody, { status, ...(options.headers ? { headers: options.headers } : {}) });
}

/** A store read that failed before a follower sent anything: 503, `store read failed: <reason>`, code `store_unavailable`. */
export function storeFaultResponse(err: StoreReadError): Response {
  return jsonError(503, err.message, { code: STORE_FAULT_CODE });
}

/**
 * The JSON error as a whole HTTP response written to a raw socket, then the connection closes: for
 * answers given before any `Response` can exist (a refused WebSocket upgrade, a request Node's parser
 * refused).
 */
export function endWithError(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  const error: ErrorBody['error'] = { message };
  if (CODES[status]) error.code = CODES[status];
  const body = JSON.stringify({ error } satisfies ErrorBody);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
