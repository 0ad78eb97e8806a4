/**
 * Canonical events → each protocol's frames, in the browser, with the same encoders the server
 * uses (`@switchboard/core`'s PROTOCOLS). The inspector shows every canonical event beside the frames it
 * became in each protocol.
 */
import { type CanonicalEvent, PROTOCOLS } from '@switchboard/core';

export const ENCODED_PROTOCOLS = (Object.keys(PROTOCOLS) as (keyof typeof PROTOCOLS)[]).filter((p) => p !== 'canonical');
export type EncodedProtocol = (typeof ENCODED_PROTOCOLS)[number];

export interface Row {
  event: CanonicalEvent;
  /** The frames this event became, per protocol. */
  frames: Record<string, object[]>;
  /** An encoder that threw on this event. */
  errors?: Record<string, string>;
}

export function encodeRun(events: readonly CanonicalEvent[]): Row[] {
  const rows: Row[] = events.map((event) => ({ event, frames: {} }));
  for (const protocol of ENCODED_PROTOCOLS) {
    const machine = PROTOCOLS[protocol].create({});
    for (const row of rows) {
      try {
        row.frames[protocol] = machine.push(row.event) as object[];
      } catch (err) {
        row.frames[protocol] = [];
        row.errors = { ...row.errors, [protocol]: (err as Error).message };
      }
    }
    const tail = machine.end() as object[];
    if (tail.length && rows.length) rows[rows.length - 1].frames[protocol].push(...tail);
  }
  return rows;
}
