/**
 * How a process run reads its agent's stdout: bytes → lines within the size limit → the configured
 * decoder → the run's sequencer. Split out of `process.ts` so `ProcessRun` stays a readable size
 * (the 400-line rule of scripts/check-function-length.ts).
 */
import { type CanonicalEvent, createDecoder, framed, type Machine } from '@switchboard/core';
import type { ProcessAgent } from '../config/types.ts';
import { createLineSplitter, type LineSplitter } from './lines.ts';
import { RunSequencer } from './sequencer.ts';
import type { RunOptions, RunRequest } from './types.ts';

/** The pieces a process run reads stdout through. */
export interface StdoutReader {
  readonly seq: RunSequencer;
  readonly text: Machine<string | Uint8Array, CanonicalEvent>;
  readonly splitter: LineSplitter;
}

/** Builds the reader; what it decodes goes through `seq` into the array `out()` returns at the time. */
export function createStdoutReader(def: ProcessAgent, request: RunRequest, options: RunOptions, out: () => CanonicalEvent[]): StdoutReader {
  const decoderOptions = {
    runId: request.runId,
    agent: def.name,
    ...(request.chatId !== undefined ? { chatId: request.chatId } : {}),
    ...(request.messageId !== undefined ? { messageId: request.messageId } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  const seq = new RunSequencer({
    ...decoderOptions,
    provider: def.framework,
    ...(request.prelude ? { prelude: request.prelude } : {}),
  });
  const decoder = createDecoder(def.framework, {
    ...decoderOptions,
    ...(def.thinkTags !== undefined ? { thinkTags: def.thinkTags } : {}),
  });
  // Lines arrive whole and within the limit (the splitter sees to it), so the framer's own
  // character limit never triggers; agents print JSON lines, never SSE.
  const text = framed(decoder, { maxLineLength: def.limits.maxLineBytes + 1, inputFormat: 'jsonl' });
  const splitter = createLineSplitter(def.limits.maxLineBytes, {
    bytes: (chunk) => {
      for (const e of text.push(chunk)) seq.pass(e, out());
    },
    oversized: (line, size) => {
      const max = def.limits.maxLineBytes;
      const message = `line ${line}: longer than the limit of ${max} bytes (at least ${size}); skipped`;
      for (const e of decoder.fault('line_too_long', message, { line, expected: `at most ${max} bytes` })) seq.pass(e, out());
    },
  });
  return { seq, text, splitter };
}
