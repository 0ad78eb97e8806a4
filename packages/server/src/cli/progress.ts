/**
 * A one-line progress bar on stderr for long CLI jobs (`switchboard convert` of a large file):
 * percent of the input read and MB/s, redrawn in place at most every `intervalMs`, cleared at the end.
 */

/** Where the bar is drawn (stderr). */
export interface ProgressSink {
  write(text: string): unknown;
}

/** Options of `createProgress`. */
export interface ProgressOptions {
  /** Input size in bytes; unknown (stdin) shows bytes and MB/s without a percentage. */
  total?: number;
  sink: ProgressSink;
  /** Clock in ms (default `performance.now`). */
  now?: () => number;
  /** Least time between two redraws (default 100 ms: at most ~10 per second). */
  intervalMs?: number;
}

/** A running progress bar. */
export interface Progress {
  /** `bytes` more of the input were read; redraws unless the last redraw is too recent. */
  add(bytes: number): void;
  /** Draws the final state (100% for a known size), then clears the line. */
  done(): void;
}

const WIDTH = 30;
/** Back to the start of the line, erase it. */
const CLEAR = '\r\x1b[2K';

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Creates a progress bar; nothing is drawn before the first `add`. */
export function createProgress(options: ProgressOptions): Progress {
  const { total, sink } = options;
  const now = options.now ?? (() => performance.now());
  const intervalMs = options.intervalMs ?? 100;
  const started = now();
  let read = 0;
  let drawn: number | undefined;

  const draw = (t: number) => {
    drawn = t;
    const seconds = (t - started) / 1000;
    const rate = seconds > 0 ? `${mb(read / seconds)} MB/s` : '– MB/s';
    let line: string;
    if (total !== undefined && total > 0) {
      const fraction = Math.min(1, read / total);
      const full = Math.round(fraction * WIDTH);
      line = `[${'#'.repeat(full)}${'.'.repeat(WIDTH - full)}] ${Math.floor(fraction * 100)
        .toString()
        .padStart(3)}%  ${mb(read)}/${mb(total)} MB  ${rate}`;
    } else line = `${mb(read)} MB  ${rate}`;
    sink.write(`${CLEAR}${line}`);
  };

  return {
    add(bytes) {
      read += bytes;
      const t = now();
      if (drawn === undefined || t - drawn >= intervalMs) draw(t);
    },
    done() {
      draw(now());
      sink.write(CLEAR);
    },
  };
}
