/**
 * SSE framing per the WHATWG spec: `id:`, `event:`, `retry:` and one `data:` line per line of data.
 */

/** One SSE event to write. */
export interface SseMessage {
  data: string;
  id?: string;
  event?: string;
  retry?: number;
}

/** Formats one SSE event, ending with the blank line. Multi-line data becomes several `data:` lines. */
export function formatSse(message: SseMessage): string {
  let s = '';
  if (message.id !== undefined) s += `id: ${message.id}\n`;
  if (message.event !== undefined) s += `event: ${message.event}\n`;
  if (message.retry !== undefined) s += `retry: ${message.retry}\n`;
  const data = message.data;
  // JSON.stringify output never has raw newlines: the common case is one line.
  if (data.indexOf('\n') === -1 && data.indexOf('\r') === -1) return `${s}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) s += `data: ${line}\n`;
  return `${s}\n`;
}

/** An SSE comment, used as a heartbeat that keeps proxies from closing an idle stream. */
export function formatSseComment(text = ''): string {
  return `: ${text}\n\n`;
}
