/**
 * The lossless check used by every decoder's tests: walks every leaf of the input objects and looks
 * for it in the canonical output — mapped to a field, inside a delta (deltas of one block are also
 * checked joined, since decoders may merge or split them), or kept under `raw` / providerMetadata.
 *
 * Booleans and nulls are flags and absences that decoders turn into structure (an event kind, an
 * omitted field), so they are not looked up; everything else must be found or be explicitly listed as
 * structural by the caller (`ignore`), with a reason in the test.
 */
import type { CanonicalEvent } from '../src/index.ts';

export interface LosslessOptions {
  /** Input paths (dotted, array indexes as [n]) whose values are structural, e.g. `type` discriminators. */
  ignore?: (path: string, value: string | number) => boolean;
}

function leaves(value: unknown, path: string, out: [string, string | number][]): void {
  if (typeof value === 'string' || typeof value === 'number') out.push([path, value]);
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) leaves(v, `${path}[${i}]`, out);
  } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
}

/** Returns the input leaves that cannot be found in the output (empty when lossless). */
export function missingLeaves(inputs: unknown[], events: CanonicalEvent[], options: LosslessOptions = {}): string[] {
  const outLeaves: [string, string | number][] = [];
  leaves(events, '', outLeaves);
  const joined = new Map<string, string>();
  for (const e of events) {
    const key = 'blockId' in e ? e.blockId : 'toolCallId' in e && e.type === 'tool-input-delta' ? e.toolCallId : undefined;
    if (key !== undefined && 'delta' in e) joined.set(key, (joined.get(key) ?? '') + e.delta);
  }
  const haystack = [...outLeaves.map(([, v]) => String(v)), ...joined.values()].join('\u0000');
  const numbers = new Set(outLeaves.filter(([, v]) => typeof v === 'number').map(([, v]) => v));
  const inLeaves: [string, string | number][] = [];
  for (const [i, input] of inputs.entries()) leaves(input, `[${i}]`, inLeaves);
  const missing: string[] = [];
  for (const [path, value] of inLeaves) {
    if (options.ignore?.(path.replace(/^\[\d+\]\.?/, ''), value)) continue;
    if (typeof value === 'number' ? numbers.has(value) || haystack.includes(String(value)) : value === '' || haystack.includes(value))
      continue;
    missing.push(`${path} = ${JSON.stringify(value).slice(0, 80)}`);
  }
  return missing;
}
