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

/**
 * The message of a non-fatal problem: the gateway sends one as a transient `data-error` part (`onData`),
 * which ends nothing — the page shows it as a dismissible notice while the run goes on.
 */
export function nonFatalNotice(part: { type: string; data?: unknown }): string | undefined {
  if (part.type !== 'data-error') return undefined;
  return isRecord(part.data) && typeof part.data.message === 'string' ? part.data.message : 'The agent reported a problem.';
}
