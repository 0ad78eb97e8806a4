/**
 * Reads a stream to validate as a list of located entries: an SSE body or JSON lines, recognised
 * from the first non-blank character (`{` or `[` means JSON lines), like core's input framing.
 */
import { createSseReader, type SseEvent } from './sse-reader.ts';

/** Where an entry is in the input: its line (JSON lines) or SSE event number. */
export type Where = { line: number } | { event: number };

/** One input event: a JSON value, `[DONE]`, or something that is not JSON. */
export type Entry =
  | { kind: 'value'; value: unknown; where: Where; terminated: boolean }
  | { kind: 'done'; where: Where; terminated: boolean }
  | { kind: 'invalid'; message: string; where: Where };

/** `line 4` / `SSE event 4`. */
export function describeWhere(where: Where): string {
  return 'line' in where ? `line ${where.line}` : `SSE event ${where.event}`;
}

function parse(text: string, where: Where, terminated: boolean): Entry {
  if (text === '[DONE]') return { kind: 'done', where, terminated };
  try {
    return { kind: 'value', value: JSON.parse(text), where, terminated };
  } catch (err) {
    const preview = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    return { kind: 'invalid', message: `expected a JSON value, got ${JSON.stringify(preview)} (${(err as Error).message})`, where };
  }
}

/** Reads all entries of a byte stream. */
export async function readEntries(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<Entry[]> {
  const entries: Entry[] = [];
  const utf8 = new TextDecoder();
  let format: 'sse' | 'jsonl' | undefined;
  let head = '';
  const sse = createSseReader();
  const fromSse = (events: SseEvent[]) => {
    for (const e of events) entries.push(parse(e.data, { event: e.number }, e.terminated));
  };
  let line = 0;
  let carry = '';
  const lines = (text: string, last: boolean) => {
    const parts = (carry + text).split('\n');
    carry = last ? '' : (parts.pop() ?? '');
    for (const part of parts) {
      line++;
      const trimmed = part.endsWith('\r') ? part.slice(0, -1) : part;
      if (trimmed.trim() !== '') entries.push(parse(trimmed, { line }, true));
    }
  };
  const feed = (text: string, last: boolean) => {
    if (format === undefined) {
      head += text;
      const first = head.search(/\S/);
      if (first === -1 && !last) return;
      format = head[first] === '{' || head[first] === '[' ? 'jsonl' : 'sse';
      text = head;
    }
    if (format === 'jsonl') lines(text, last);
    else {
      fromSse(sse.push(text));
      if (last) fromSse(sse.end());
    }
  };
  for await (const chunk of chunks) feed(utf8.decode(chunk, { stream: true }), false);
  feed(utf8.decode(), true);
  return entries;
}
