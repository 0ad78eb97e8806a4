/**
 * The identity encoder: canonical events out as they came in (for JSON lines, SSE with seq ids,
 * storage and inspection). It is the one output that loses nothing.
 */

import type { Machine } from '../../machine.ts';
import type { CanonicalEvent } from '../../model/events.ts';

/** Creates the identity encoder. */
export function createCanonicalEncoder(): Machine<CanonicalEvent, CanonicalEvent> {
  return { push: (e) => [e], end: () => [] };
}
