/**
 * Spots the `error` events in the converter's output frames, for the one-line summary `convert`
 * prints on stderr. Works on the framed text, so the fused converter stays as it is.
 */
import { describeLocation, type Location } from '@switchboard/core';

const MAX_LISTED = 3;
const MAX_MESSAGE = 160;
/** How an error event or chunk's JSON starts. */
const ERROR = '{"type":"error"';

/** Counts error frames and keeps the first messages, each with its input location. */
export interface ErrorTally {
  /** Looks at output text: any number of whole frames (SSE events or JSON lines). */
  scan(text: string): void;
  /** Number of error events seen. */
  readonly count: number;
  /** `N error(s) in the input: <where>: <message>; …`, or undefined when there were none. */
  summary(): string | undefined;
}

/** Creates a tally. Canonical frames carry `where`; ai-sdk frames only the message (`errorText`). */
export function createErrorTally(): ErrorTally {
  const messages: string[] = [];
  let count = 0;
  const note = (json: string): void => {
    count++;
    if (messages.length === MAX_LISTED) return;
    const e = JSON.parse(json) as { message?: string; errorText?: string; where?: Location };
    let text = (e.message ?? e.errorText ?? 'error').replace(/\s+/g, ' ');
    const where = e.where ? describeLocation(e.where) : undefined;
    // Decoder messages usually start with their location already.
    if (where && !text.startsWith(where)) text = `${where}: ${text}`;
    messages.push(text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);
  };
  return {
    scan(text) {
      // Encoders build every object with `type` first, and JSON text inside strings has its quotes
      // escaped, so this prefix at the start of a frame's JSON (a line's start, or after `data: `)
      // only matches a top-level error event / chunk.
      for (let at = text.indexOf(ERROR); at !== -1; at = text.indexOf(ERROR, at + ERROR.length)) {
        if (!(at === 0 || text[at - 1] === '\n' || text.endsWith('data: ', at))) continue;
        const end = text.indexOf('\n', at);
        note(text.slice(at, end === -1 ? undefined : end));
      }
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
