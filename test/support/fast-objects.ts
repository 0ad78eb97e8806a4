/**
 * Run by test/fast-objects.test.ts as `node --allow-natives-syntax test/support/fast-objects.ts`:
 * every matrix input through its decoder and every encoder, counting the canonical events and the
 * encoders' frames that V8 keeps as dictionaries (slow properties) rather than fast objects. An
 * object turns into a dictionary when a field is `delete`d from it (or it gets very many fields),
 * and every later reader of it — the emitter's stamp, the guard, the encoders, `JSON.stringify` —
 * is then slower: the AG-UI reader's `delete` of undefined fields cost ≈ 20% of reading a stream.
 * Prints one JSON line: per decoder, the events, the slow ones and their types.
 */
import { createDecoder, createEncoder, framed, PROTOCOLS, type Protocol } from '../../packages/core/src/index.ts';
import { matrixInputs } from '../matrix/inputs.ts';
import { detectInput } from '../matrix/matrix.ts';

// %HasFastProperties is V8's own answer; the syntax needs --allow-natives-syntax, so it is compiled here.
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const counts: Record<string, { events: number; frames: number; slow: string[] }> = {};
for (const input of matrixInputs()) {
  const framework = detectInput(input.body) ?? 'auto';
  counts[framework] ??= { events: 0, frames: 0, slow: [] };
  const row = counts[framework];
  const decoder = framed(createDecoder(framework as never, { runId: 'r', now: () => 1 }), {});
  const events = [...decoder.push(input.body), ...decoder.end()];
  for (const e of events) {
    row.events++;
    if (!hasFastProperties(e)) row.slow.push(`${input.name}: ${e.type} event`);
  }
  for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
    const encoder = createEncoder(protocol, {});
    for (const e of events)
      for (const frame of encoder.push(e)) {
        row.frames++;
        if (typeof frame === 'object' && frame !== null && !hasFastProperties(frame)) row.slow.push(`${input.name}: a ${protocol} frame`);
      }
  }
}
process.stdout.write(`${JSON.stringify(counts)}\n`);
