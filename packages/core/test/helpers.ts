/** Test helpers shared by the core tests. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  type CanonicalEvent,
  type ConverterOptions,
  createConverter,
  createDecoder,
  type Decoder,
  type DecoderOptions,
  type Framework,
  framed,
} from '../src/index.ts';

/** A framework name, or a decoder factory (for decoders and options outside the registry). */
export type DecoderSource = Framework | 'auto' | ((options: DecoderOptions) => Decoder);

function make(source: DecoderSource, options: DecoderOptions): Decoder {
  return typeof source === 'function' ? source(options) : createDecoder(source, options);
}

export const FIXTURES = new URL('../../../test/fixtures/', import.meta.url).pathname;

export function fixture(path: string): Buffer {
  return readFileSync(FIXTURES + path);
}

/** Decodes whole chunks (text or bytes) with deterministic ids and clock. */
export function decodeChunks(
  chunks: (string | Uint8Array)[],
  framework: DecoderSource,
  options: { maxLineLength?: number } = {},
): CanonicalEvent[] {
  const m = framed(make(framework, { runId: 'run', now: () => 0, ...options }), options);
  const out: CanonicalEvent[] = [];
  for (const c of chunks) out.push(...m.push(c));
  out.push(...m.end());
  return out;
}

/** Decodes parsed values (each located by its 1-based line) with deterministic ids and clock. */
export function decodeObjects(values: unknown[], framework: DecoderSource): CanonicalEvent[] {
  const d = make(framework, { runId: 'run', now: () => 0 });
  const out: CanonicalEvent[] = [];
  values.forEach((v, i) => {
    out.push(...d.push(v, { line: i + 1 }));
  });
  out.push(...d.end());
  return out;
}

/**
 * The chunk-boundary property every decoder must have: `bytes` split at random boundaries (up to
 * `maxCuts` cuts) decode to the same events as in one piece (`expected`, default `decode([bytes])`).
 */
export function assertSplitInvariant(
  bytes: Uint8Array,
  decode: (chunks: Uint8Array[]) => unknown,
  { expected = decode([bytes]), maxCuts = 40, numRuns = 100 }: { expected?: unknown; maxCuts?: number; numRuns?: number } = {},
): void {
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: maxCuts }), (cuts) => {
      cuts.sort((a, b) => a - b);
      const chunks = [0, ...cuts].map((c, i) => bytes.subarray(c, [...cuts, bytes.length][i]));
      assert.deepEqual(decode(chunks), expected);
    }),
    { numRuns },
  );
}

/** Converts text in one go. */
export function convert(input: string | Uint8Array, options: Omit<ConverterOptions, 'runId' | 'now'>): string {
  const m = createConverter({ runId: 'run', now: () => 0, ...options });
  return [...m.push(input), ...m.end()].join('');
}

/** The Anthropic-SDK-like message a canonical stream amounts to, for comparison with `*.final.json`. */
export function accumulate(events: CanonicalEvent[]) {
  const content: Record<string, unknown>[] = [];
  const open = new Map<string, Record<string, unknown>>();
  let stopReason: string | undefined;
  let usage: unknown;
  for (const e of events) {
    switch (e.type) {
      case 'text-start': {
        const b = { type: 'text', text: '' };
        open.set(e.blockId, b);
        content.push(b);
        break;
      }
      case 'text-delta':
        (open.get(e.blockId) as { text: string }).text += e.delta;
        break;
      case 'reasoning-start': {
        const b = { type: 'thinking', thinking: '' };
        open.set(e.blockId, b);
        content.push(b);
        break;
      }
      case 'reasoning-delta':
        (open.get(e.blockId) as { thinking: string }).thinking += e.delta;
        break;
      case 'reasoning-end': {
        const sig = e.providerMetadata?.anthropic?.signature;
        if (sig !== undefined) (open.get(e.blockId) as Record<string, unknown>).signature = sig;
        break;
      }
      case 'tool-input-end':
        content.push({ type: 'tool_use', id: e.toolCallId, name: e.toolName, input: e.input });
        break;
      case 'step-finish':
        stopReason = e.rawFinishReason;
        usage = e.usage?.raw;
        break;
    }
  }
  return { content, stopReason, usage };
}

/** The events of one type, typed. */
export function ofType<T extends CanonicalEvent['type']>(events: CanonicalEvent[], type: T): Extract<CanonicalEvent, { type: T }>[] {
  return events.filter((e): e is Extract<CanonicalEvent, { type: T }> => e.type === type);
}

export function types(events: CanonicalEvent[]): string[] {
  return events.map((e) => e.type);
}
