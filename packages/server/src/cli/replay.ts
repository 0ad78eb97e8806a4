/**
 * `switchboard replay`: plays a recorded capture (any framework, or a stored canonical run) as a
 * live stream on stdout, in any protocol, paced by the capture's timestamps where it has them and a
 * small fixed interval otherwise.
 */
import {
  type CanonicalEvent,
  createEncoder,
  createSseEncoder,
  FRAMEWORKS,
  type Framework,
  isProtocol,
  jsonlFramer,
  type Machine,
  type Protocol,
  pipe,
} from '@switchboard/core';
import { LINE_PROTOCOLS } from '@switchboard/core/names';
import { replayCapture } from '../agents/replay.ts';
import { REPLAY_INTERVAL_MS } from '../config/defaults.ts';
import { ioFailure, openInput, openOutput } from './io.ts';

function usage(message: string): number {
  process.stderr.write(`switchboard replay: ${message}\nRun "switchboard replay --help" for the options.\n`);
  return 2;
}

/** Runs `replay`. Exit 0; 1 on I/O errors; 2 on usage errors. */
export async function run(flags: Record<string, string | undefined>, positionals: string[]): Promise<number> {
  const from = flags.from ?? 'auto';
  if (from !== 'auto' && from !== 'canonical' && !Object.hasOwn(FRAMEWORKS, from)) {
    return usage(`invalid --from "${from}"; expected one of: auto, canonical, ${Object.keys(FRAMEWORKS).join(', ')}`);
  }
  const to = flags.to ?? 'ai-sdk';
  if (!isProtocol(to)) return usage(`invalid --to "${to}"`);
  if (flags.speed !== undefined && flags.realtime !== undefined) return usage('--speed and --realtime cannot go together');
  let speed = 1;
  if (flags.speed !== undefined) {
    speed = Number(flags.speed);
    if (flags.speed.trim() === '' || !Number.isFinite(speed) || speed < 0)
      return usage(`invalid --speed "${flags.speed}"; expected a number ≥ 0`);
  }
  let interval = REPLAY_INTERVAL_MS;
  if (flags.interval !== undefined) {
    interval = Number(flags.interval);
    if (!Number.isFinite(interval) || interval < 0) return usage(`invalid --interval "${flags.interval}"; expected milliseconds ≥ 0`);
  }
  if (positionals.length === 0) return usage('missing the capture to replay (a file, or - for stdin)');
  // Protocols without an SSE transport of their own (canonical, ws, dsagent) default to one frame per line.
  const format = flags.format ?? (LINE_PROTOCOLS.includes(to) ? 'jsonl' : 'sse');
  const protocol = to as Protocol;
  const namespace = flags.namespace ?? 'switchboard';
  const framer: Machine<CanonicalEvent, string> =
    format === 'jsonl'
      ? pipe(createEncoder(protocol, { namespace }) as Machine<CanonicalEvent, object>, jsonlFramer())
      : createSseEncoder(protocol, { namespace, ids: protocol === 'canonical' });

  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const input = await openInput(positionals[0]);
    const output = await openOutput(flags.output);
    const write = async (frames: string[]) => {
      if (frames.length === 0) return;
      const pending = output.write(frames.join(''));
      if (pending) await pending;
    };
    const options = {
      from: from as Framework | 'auto' | 'canonical',
      speed,
      intervalMs: interval,
      signal: controller.signal,
      ...(flags['run-id'] !== undefined ? { runId: flags['run-id'] } : {}),
    };
    for await (const event of replayCapture(input.chunks, options)) await write(framer.push(event));
    if (!controller.signal.aborted) await write(framer.end());
    await output.close();
  } catch (err) {
    return ioFailure('replay', err);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return controller.signal.aborted ? 130 : 0;
}
