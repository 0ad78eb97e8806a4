/**
 * The one JSON error shape every route answers with: `{ error: { message, code?, issues? } }`.
 */

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
  409: 'conflict',
  413: 'too_large',
  426: 'upgrade_required',
  429: 'rate_limited',
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
