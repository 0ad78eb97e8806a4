/** Test helpers shared by the client tests. */
import { readdirSync, readFileSync } from 'node:fs';
import { type CanonicalEvent, createDecoder, type Framework, framed, type Machine, pipe } from '@switchboard/core';

export const FIXTURES = new URL('../../../test/fixtures/', import.meta.url).pathname;

export function fixture(path: string): Buffer {
  return readFileSync(FIXTURES + path);
}

/** Every Anthropic capture (the SDK-verified bodies and the recorded ones). */
export const ANTHROPIC_CAPTURES: string[] = [
  ...readdirSync(`${FIXTURES}anthropic`)
    .filter((f) => f.endsWith('.sse'))
    .map((f) => `anthropic/${f}`),
  ...readdirSync(`${FIXTURES}recorded/anthropic`).map((f) => `recorded/anthropic/${f}`),
];

/** Runs a machine over inputs. */
export function drain<I, O>(m: Machine<I, O>, inputs: Iterable<I>): O[] {
  const out: O[] = [];
  for (const i of inputs) for (const o of m.push(i)) out.push(o);
  for (const o of m.end()) out.push(o);
  return out;
}

/** Decodes a capture with a deterministic run id and clock. */
export function decodeCapture(path: string, framework: Framework | 'auto' = 'auto', runId = 'run'): CanonicalEvent[] {
  let t = 1_763_870_000_000;
  return drain(framed(createDecoder(framework, { runId, now: () => (t += 7) })), [fixture(path)]);
}

/** Encodes canonical events with a machine (an encoder). */
export function encodeWith<O>(machine: Machine<CanonicalEvent, O>, events: CanonicalEvent[]): O[] {
  return drain(machine, events);
}

/** A capture decoded and encoded in one pass. */
export function convertCapture<O>(path: string, encoder: Machine<CanonicalEvent, O>): O[] {
  return drain(pipe(framed(createDecoder('auto', { runId: 'run', now: () => 0 })), encoder), [fixture(path)]);
}

/** The AG-UI recorded traces, one event list per (file, journey), in seq order. */
export function agUiJourneys(): { name: string; events: Record<string, unknown>[] }[] {
  const dir = `${FIXTURES}recorded/ag-ui/`;
  const out: { name: string; events: Record<string, unknown>[] }[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    const lines = readFileSync(dir + file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { journey: string; seq: number; event: Record<string, unknown> });
    const journeys = new Map<string, { seq: number; event: Record<string, unknown> }[]>();
    for (const l of lines) {
      const list = journeys.get(l.journey) ?? [];
      list.push(l);
      journeys.set(l.journey, list);
    }
    for (const [journey, list] of journeys) {
      list.sort((a, b) => a.seq - b.seq);
      out.push({ name: `${file} ${journey}`, events: list.map((l) => l.event) });
    }
  }
  return out;
}

/** SSE body of AG-UI events, as @ag-ui/encoder writes it. */
export function agUiSse(events: readonly object[]): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
}

/** Silences console.warn / console.error while `fn` runs. */
export async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  const error = console.error;
  console.warn = () => {};
  console.error = () => {};
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.error = error;
  }
}
