/**
 * Splits an agent's stdout into lines by bytes, enforcing the line-size limit before anything is
 * buffered further: a line is passed on only once it is known to fit, so an agent that prints an
 * endless line costs at most `maxLineBytes` of memory. Chunk boundaries can fall anywhere (inside a
 * line, inside a UTF-8 sequence); the pieces of a line are passed on as they arrived, without
 * copying, and the consumer (core's JSON-lines framer) joins them.
 */

/** What the splitter calls, in input order. */
export interface LineSink {
  /** Bytes of one or more lines that fit; a piece ending in `\n` ends a line. */
  bytes(chunk: Uint8Array): void;
  /** A line longer than the limit was dropped (1-based line number; `size` is a lower bound). */
  oversized(line: number, size: number): void;
}

/** A byte line splitter with a size limit. */
export interface LineSplitter {
  push(chunk: Uint8Array): void;
  /** The input is over: a last line without its newline is passed on (when it fits). */
  end(): void;
  /** Bytes held for the current, unfinished line. */
  readonly pendingBytes: number;
}

const NL = 0x0a;
const CR = 0x0d;

/** Creates a splitter; `maxLineBytes` counts the bytes of a line without its `\n` (nor a `\r` before it). */
export function createLineSplitter(maxLineBytes: number, sink: LineSink): LineSplitter {
  /** Pieces of the current line, in order; together never more than the limit (+1 for a CR). */
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let line = 1;
  /** Inside a line that was too long: drop everything up to its newline. */
  let skipping = false;

  const dropPending = () => {
    pending = [];
    pendingBytes = 0;
  };

  return {
    push(chunk) {
      let pos = 0;
      // Whole fitting lines of this chunk go on as one piece: [runStart, runEnd).
      let runStart = 0;
      let runEnd = 0;
      const flushRun = () => {
        if (runEnd > runStart) sink.bytes(chunk.subarray(runStart, runEnd));
        runStart = runEnd;
      };
      while (pos < chunk.length) {
        const nl = chunk.indexOf(NL, pos);
        if (nl === -1) {
          // An unfinished line: keep it while it may still fit (a CR may yet precede its newline).
          const size = pendingBytes + chunk.length - pos;
          flushRun();
          if (skipping) return;
          if (size > maxLineBytes + 1) {
            sink.oversized(line, size);
            dropPending();
            skipping = true;
          } else {
            pending.push(chunk.subarray(pos));
            pendingBytes = size;
          }
          return;
        }
        if (skipping) {
          // The dropped line still counts: its newline keeps the framer's line numbers in step.
          flushRun();
          sink.bytes(Uint8Array.of(NL));
          skipping = false;
          runStart = runEnd = nl + 1;
        } else {
          const last = nl > pos ? chunk[nl - 1] : pending.at(-1)?.at(-1);
          const size = pendingBytes + nl - pos - (last === CR ? 1 : 0);
          if (size > maxLineBytes) {
            flushRun();
            sink.oversized(line, size);
            dropPending();
            sink.bytes(Uint8Array.of(NL));
            runStart = runEnd = nl + 1;
          } else if (pendingBytes > 0) {
            flushRun();
            for (const p of pending) sink.bytes(p);
            dropPending();
            runStart = pos;
            runEnd = nl + 1;
          } else runEnd = nl + 1;
        }
        line++;
        pos = nl + 1;
      }
      flushRun();
    },
    end() {
      if (!skipping && pendingBytes > 0) {
        const last = pending.at(-1)?.at(-1);
        if (pendingBytes - (last === CR ? 1 : 0) > maxLineBytes) sink.oversized(line, pendingBytes);
        else for (const p of pending) sink.bytes(p);
      }
      dropPending();
      skipping = false;
    },
    get pendingBytes() {
      return pendingBytes;
    },
  };
}
