/**
 * Spots the `error` events in the converter's output frames, for the one-line summary `convert`
 * prints on stderr. Works on the framed text, so the fused converter stays as it is.
 */
import { describeLocation, type Location } from '@switchboard/core';

const MAX_LISTED = 3;
const MAX_MESSAGE = 160;

/** Counts error frames and keeps the first messages, each with its input location. */
export interface ErrorTally {
  /** Looks at one output frame (one SSE event or one JSON line). */
  scan(frame: string): void;
  /** Number of error events seen. */
  readonly count: number;
  /** `N error(s) in the input: <where>: <message>; …`, or undefined when there were none. */
  summary(): string | undefined;
}

/** Creates a tally. Canonical frames carry `where`; ai-sdk frames only the message (`errorText`). */
export function createErrorTally(): ErrorTally {
  const messages: string[] = [];
  let count = 0;
  return {
    scan(frame) {
      // Encoders build every object with `type` first, and JSON text inside strings has its quotes
      // escaped, so this prefix only matches a top-level error event / chunk.
      const start = frame.indexOf('{');
      if (start === -1 || !frame.startsWith('{"type":"error"', start)) return;
      count++;
      if (messages.length === MAX_LISTED) return;
      const end = frame.indexOf('\n', start);
      const e = JSON.parse(frame.slice(start, end === -1 ? undefined : end)) as { message?: string; errorText?: string; where?: Location };
      let text = (e.message ?? e.errorText ?? 'error').replace(/\s+/g, ' ');
      const where = e.where ? describeLocation(e.where) : undefined;
      // Decoder messages usually start with their location already.
      if (where && !text.startsWith(where)) text = `${where}: ${text}`;
      messages.push(text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);
    },
    get count() {
      return count;
    },
    summary() {
      if (count === 0) return undefined;
      const more = count > messages.length ? `; and ${count - messages.length} more` : '';
      return `${count} error${count === 1 ? '' : 's'} in the input: ${messages.join('; ')}${more}`;
    },
  };
}
