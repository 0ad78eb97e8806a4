/** Test helpers shared by the core tests. */
import { readFileSync } from 'node:fs';
import { type CanonicalEvent, type ConverterOptions, createConverter, createDecoder, type Framework, framed } from '../src/index.ts';

export const FIXTURES = new URL('../../../test/fixtures/', import.meta.url).pathname;

export function fixture(path: string): Buffer {
  return readFileSync(FIXTURES + path);
}

/** Decodes whole chunks (text or bytes) with deterministic ids and clock. */
export function decodeChunks(
  chunks: (string | Uint8Array)[],
  framework: Framework | 'auto',
  options: { maxLineLength?: number } = {},
): CanonicalEvent[] {
  const m = framed(createDecoder(framework, { runId: 'run', now: () => 0, ...options }), options);
  const out: CanonicalEvent[] = [];
  for (const c of chunks) out.push(...m.push(c));
  out.push(...m.end());
  return out;
}

/** Decodes parsed objects. */
export function decodeObjects(values: unknown[], framework: Framework | 'auto'): CanonicalEvent[] {
  const d = createDecoder(framework, { runId: 'run', now: () => 0 });
  const out: CanonicalEvent[] = [];
  values.forEach((v, i) => {
    out.push(...d.push(v, { line: i + 1 }));
  });
  out.push(...d.end());
  return out;
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
