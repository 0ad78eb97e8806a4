/**
 * `switchboard convert`: streams a framework's SSE / JSON-lines body through core's fused converter
 * into a UI protocol, chunk by chunk, never holding the whole input or output in memory.
 */

import { stat } from 'node:fs/promises';
import { type ConverterOptions, createConverter, type Framework, type Protocol, thinkTagsOf } from '@switchboard/core';
import { LINE_PROTOCOLS } from '@switchboard/core/names';
import { createErrorTally } from './error-tally.ts';
import { frameworkHint, HINT_HEAD_BYTES } from './framework-hint.ts';
import { ioFailure, openInput, openOutput } from './io.ts';
import { createProgress, type Progress } from './progress.ts';

/**
 * Whether to draw a progress bar: forced by `--progress` / `--no-progress`, else only for a file
 * input when stderr is a terminal and the output is not on that terminal too.
 */
function wantsProgress(flags: Record<string, string | undefined>, fromFile: boolean): boolean {
  if (flags.progress !== undefined) return true;
  if (flags['no-progress'] !== undefined) return false;
  const toStdout = flags.output === undefined || flags.output === '-';
  return fromFile && process.stderr.isTTY === true && !(toStdout && process.stdout.isTTY);
}

/** Runs `convert` with parsed flags (already checked against their choices). */
export async function run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number> {
  if (flags.progress !== undefined && flags['no-progress'] !== undefined) {
    process.stderr.write(
      'switchboard convert: --progress and --no-progress cannot go together\nRun "switchboard convert --help" for the options.\n',
    );
    return 2;
  }
  const to = (flags.to ?? 'ai-sdk') as Protocol;
  const options: ConverterOptions = {
    from: (flags.from ?? 'auto') as Framework | 'auto',
    to,
    format: (flags.format as ConverterOptions['format']) ?? (LINE_PROTOCOLS.includes(to) ? 'jsonl' : 'sse'),
    namespace: flags.namespace ?? 'switchboard',
  };
  if (flags['run-id'] !== undefined) options.runId = flags['run-id'];
  if (flags['message-id'] !== undefined) options.messageId = flags['message-id'];
  if (flags.continues !== undefined) options.continues = true;
  if (flags['think-tags'] !== undefined) {
    try {
      thinkTagsOf(flags['think-tags']);
    } catch (err) {
      process.stderr.write(
        `switchboard convert: ${(err as Error).message.replace('thinkTags', '--think-tags')}\nRun "switchboard convert --help" for the options.\n`,
      );
      return 2;
    }
    options.thinkTags = flags['think-tags'];
  }
  if (flags['input-format'] !== undefined) options.inputFormat = flags['input-format'] as 'sse' | 'jsonl';
  if (flags.verbose !== undefined)
    options.onInputFormat = (format, forced) =>
      process.stderr.write(
        `switchboard convert: input read as ${format === 'sse' ? 'SSE' : 'JSON lines'} (${forced ? '--input-format' : 'recognised from its first line'})\n`,
      );

  const tally = createErrorTally();
  // With an explicit --from, the input's start is kept to tell a wrong framework apart (frameworkHint).
  const head: Uint8Array[] = [];
  let headBytes = options.from === 'auto' ? HINT_HEAD_BYTES : 0;
  try {
    const path = positionals[0];
    const input = await openInput(path);
    const fromFile = path !== undefined && path !== '-';
    let progress: Progress | undefined;
    if (wantsProgress(flags, fromFile)) {
      const total = fromFile ? (await stat(path)).size : undefined;
      progress = createProgress({ sink: process.stderr, ...(total !== undefined ? { total } : {}) });
    }
    const output = await openOutput(flags.output);
    const converter = createConverter(options);
    const write = async (frames: string[]): Promise<void> => {
      if (frames.length === 0) return;
      // The converter gives one string per input chunk: one write, waiting only when the stream asks.
      const text = frames.length === 1 ? (frames[0] as string) : frames.join('');
      tally.scan(text);
      const pending = output.write(text);
      if (pending) await pending;
    };
    for await (const chunk of input.chunks) {
      progress?.add(chunk.byteLength);
      if (headBytes < HINT_HEAD_BYTES) {
        head.push(chunk.subarray(0, HINT_HEAD_BYTES - headBytes));
        headBytes += chunk.byteLength;
      }
      await write(converter.push(chunk));
    }
    await write(converter.end());
    await output.close();
    progress?.done();
  } catch (err) {
    return ioFailure('convert', err);
  }
  const summary = tally.summary();
  if (summary) process.stderr.write(`switchboard convert: ${summary}\n`);
  const hint = options.from === 'auto' ? undefined : frameworkHint(Buffer.concat(head), options.from);
  if (hint) process.stderr.write(`switchboard convert: ${hint}\n`);
  return 0;
}
