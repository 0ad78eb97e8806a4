/**
 * The one JSON error shape every route answers with: `{ error: { message, issues? } }`.
 */

/** One problem with a request, located by a dotted field path (`messages.0.parts`; `body` for the whole body). */
export interface Issue {
  path: string;
  message: string;
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { message: string; issues?: Issue[] };
}

/** A JSON error `Response`. */
export function errorResponse(status: number, message: string, issues?: Issue[], headers?: Record<string, string>): Response {
  const body: ErrorBody = { error: issues ? { message, issues } : { message } };
  return Response.json(body, { status, headers });
}
