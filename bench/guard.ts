/**
 * The hostile-input guard's own cost per input value (`node bench/guard.ts`): the same parsed delta
 * values pushed into a trivial decoder, bare and behind `guard()` (packages/core/src/inputs/guard.ts),
 * for the three delta shapes the benchmark's sections 1 and 3 read most. The best of many rounds is
 * kept, so the number holds on a machine shared with other work, where the full benchmark's wall
 * clock does not. Options: --values N (per round, default 20000), --rounds N (default 200).
 */
import { parseArgs } from 'node:util';
import type { CanonicalEvent, Decoder } from '@switchboard/core';
import { guard } from '../packages/core/src/inputs/guard.ts';

const { values: args } = parseArgs({ options: { values: { type: 'string' }, rounds: { type: 'string' } } });
const N = Number(args.values ?? 20_000);
const ROUNDS = Number(args.rounds ?? 200);

const SHAPES: Record<string, (i: number) => object> = {
  'Anthropic content_block_delta': (i) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `w${i} ` } }),
  'AI SDK text-delta': (i) => ({ type: 'text-delta', id: 'txt-0', delta: `w${i} ` }),
  'AG-UI TEXT_MESSAGE_CONTENT': (i) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'msg-0', delta: `w${i} ` }),
};

/** A decoder that does next to nothing: one text-delta event per value. */
function trivial(): Decoder {
  let seq = 0;
  return {
    push: () => [{ type: 'text-delta', runId: 'run', seq: ++seq, ts: 0, blockId: 't', delta: 'x' } as CanonicalEvent],
    fault: () => [],
    end: () => [],
  };
}

function round(decoder: Decoder, values: unknown[], wheres: { event: number }[]): number {
  const start = performance.now();
  for (let i = 0; i < values.length; i++) decoder.push(values[i], wheres[i]);
  return performance.now() - start;
}

console.log(`guard cost per input value: best of ${ROUNDS} rounds of ${N.toLocaleString('en-US')} values, node ${process.version}\n`);
console.log(`${'value'.padEnd(32)}${'bare ns'.padStart(10)}${'guarded ns'.padStart(12)}${'guard ns'.padStart(10)}`);
for (const [name, make] of Object.entries(SHAPES)) {
  const values = Array.from({ length: N }, (_, i) => JSON.parse(JSON.stringify(make(i))));
  const wheres = values.map((_, i) => ({ event: i + 1 }));
  let bare = Number.POSITIVE_INFINITY;
  let guarded = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    bare = Math.min(bare, round(trivial(), values, wheres));
    guarded = Math.min(guarded, round(guard(trivial()), values, wheres));
  }
  const ns = (ms: number) => (ms * 1e6) / N;
  console.log(
    `${name.padEnd(32)}${ns(bare).toFixed(0).padStart(10)}${ns(guarded).toFixed(0).padStart(12)}${(ns(guarded) - ns(bare)).toFixed(0).padStart(10)}`,
  );
}
