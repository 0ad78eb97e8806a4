/**
 * A small incremental SSE reader (WHATWG event stream rules) for `validate`. Unlike core's input
 * framing it reports `[DONE]` and an unterminated last event, because the AI SDK client treats both
 * specially (the first must be last; the second is dropped).
 */
import type { Machine } from '@switchboard/core';

/** One dispatched SSE event. */
export interface SseEvent {
  /** The data lines joined with `\n`. */
  data: string;
  /** The `event:` name, when there was one. */
  event?: string;
  /** 1-based number of the event in the body. */
  number: number;
  /** 1-based line of the event's first field. */
  line: number;
  /** False for a last event without its closing blank line. */
  terminated: boolean;
}

/** Creates a reader: text chunks split anywhere in, events out. */
export function createSseReader(): Machine<string, SseEvent> {
  const out: SseEvent[] = [];
  let carry = '';
  let skipLf = false; // the last chunk ended with \r: a \n right after belongs to it
  let line = 0;
  let number = 0;
  let data: string[] = [];
  let event: string | undefined;
  let firstLine = 0;

  function dispatch(terminated: boolean): void {
    if (data.length > 0) {
      const e: SseEvent = { data: data.join('\n'), number: ++number, line: firstLine, terminated };
      if (event !== undefined) e.event = event;
      out.push(e);
    }
    data = [];
    event = undefined;
    firstLine = 0;
  }

  function takeLine(text: string): void {
    line++;
    if (text === '') return dispatch(true);
    if (text.startsWith(':')) return;
    if (firstLine === 0) firstLine = line;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    // id and retry do not matter here; unknown fields are ignored, as browsers do.
  }

  return {
    push(text) {
      let start = 0;
      if (skipLf && text.startsWith('\n')) start = 1;
      skipLf = false;
      for (let i = start; i < text.length; i++) {
        const ch = text.charCodeAt(i);
        if (ch !== 10 && ch !== 13) continue;
        takeLine(carry + text.slice(start, i));
        carry = '';
        if (ch === 13) {
          if (i + 1 === text.length) skipLf = true;
          else if (text.charCodeAt(i + 1) === 10) i++;
        }
        start = i + 1;
      }
      carry += text.slice(start);
      return out.splice(0);
    },
    end() {
      if (carry) takeLine(carry);
      carry = '';
      dispatch(false);
      return out.splice(0);
    },
  };
}
