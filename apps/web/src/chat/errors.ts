/** Turns transport errors (which often carry the server's JSON error body) into one readable line. */
import { isRecord } from '../lib/types.ts';

export function readableError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  try {
    const body: unknown = JSON.parse(message);
    if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // not JSON
  }
  return message;
}
