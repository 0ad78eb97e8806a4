/**
 * Input and output of the CLI commands: files or stdin / stdout, streamed, with write backpressure
 * and I/O failures turned into one clear message.
 */
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** An I/O failure: the command prints the message and exits 1. */
export class CliIoError extends Error {
  /** The errno code, e.g. `ENOENT`, when there was one. */
  code?: string;
}

/**
 * The exit code of a command that failed on I/O: 1, with the message on stderr (none when the reader
 * closed the pipe, as `| head` does: not worth a message). Any other error is thrown on.
 */
export function ioFailure(command: string, err: unknown): number {
  if (!(err instanceof CliIoError)) throw err;
  if (err.code !== 'EPIPE') process.stderr.write(`switchboard ${command}: ${err.message}\n`);
  return 1;
}

function ioError(message: string, err: unknown): CliIoError {
  const e = new CliIoError(message, { cause: err });
  e.code = (err as NodeJS.ErrnoException).code;
  return e;
}

const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  EPIPE: 'the reader closed the pipe',
  ENOSPC: 'no space left on device',
};

/** Why an fs call failed, in words. */
function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return (code && REASONS[code]) ?? (err as Error).message;
}

/** A readable input: its name for messages and its bytes in chunks. */
export interface Input {
  name: string;
  chunks: AsyncIterable<Uint8Array>;
}

async function* guarded(name: string, source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* source;
  } catch (err) {
    throw ioError(`cannot read ${name}: ${reason(err)}`, err);
  }
}

/** Opens a file, or stdin for `-` / no path. Fails before anything is read when the file cannot be opened. */
export async function openInput(path: string | undefined): Promise<Input> {
  if (path === undefined || path === '-') return { name: 'stdin', chunks: guarded('stdin', process.stdin) };
  const name = `"${path}"`;
  try {
    const handle = await open(path, 'r');
    if ((await handle.stat()).isDirectory()) {
      await handle.close();
      throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    }
    return { name, chunks: guarded(name, handle.createReadStream({ highWaterMark: 64 * 1024 })) };
  } catch (err) {
    throw ioError(`cannot open input file ${name}: ${reason(err)}`, err);
  }
}

/** Where a command writes: text in, with backpressure. */
export interface Output {
  /** Writes text; returns a promise to await when the stream asks to wait for 'drain'. */
  write(text: string): Promise<void> | undefined;
  /** Flushes (and closes a file). */
  close(): Promise<void>;
}

function output(stream: Writable, name: string, closeStream: boolean): Output {
  let failure: unknown;
  // Without a listener an async write error (EPIPE, ENOSPC) would crash the process.
  stream.on('error', (err) => {
    failure ??= err;
  });
  const fail = (err: unknown): never => {
    throw ioError(`cannot write ${name}: ${reason(err)}`, err);
  };
  return {
    write(text) {
      if (failure) fail(failure);
      if (stream.write(text)) return undefined;
      return once(stream, 'drain').then(() => undefined, fail);
    },
    async close() {
      if (failure) fail(failure);
      try {
        if (closeStream) {
          stream.end();
          await finished(stream);
        } else if (stream.writableNeedDrain) await once(stream, 'drain');
      } catch (err) {
        fail(err);
      }
      if (failure) fail(failure);
    },
  };
}

/** Opens a file for writing (created or truncated), or stdout for `-` / no path. */
export async function openOutput(path: string | undefined): Promise<Output> {
  if (path === undefined || path === '-') return output(process.stdout, 'stdout', false);
  const name = `"${path}"`;
  try {
    const handle = await open(path, 'w');
    return output(handle.createWriteStream(), name, true);
  } catch (err) {
    throw ioError(`cannot open output file ${name}: ${reason(err)}`, err);
  }
}
