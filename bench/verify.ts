/**
 * Correctness checks for benchmark output: what an AI SDK UI message stream (SSE bytes or chunk
 * objects) says, reduced to the concatenated text and reasoning, so contenders can be compared.
 */

/** The content of a UI message stream. */
export interface StreamSummary {
  text: string;
  reasoning: string;
  textDeltas: number;
  chunks: number;
  finished: boolean;
}

type Chunk = { type: string; delta?: unknown };

/** Parses AI SDK UI message stream SSE text into chunk objects (`data: [DONE]` skipped). */
export function parseUiSse(sse: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const event of sse.split('\n\n')) {
    if (event === '') continue;
    const data: string[] = [];
    for (const line of event.split('\n')) {
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length === 0) continue;
    const payload = data.join('\n');
    if (payload === '[DONE]') continue;
    chunks.push(JSON.parse(payload) as Chunk);
  }
  return chunks;
}

/** Summarises UI message chunks: text and reasoning joined, text-delta count, a `finish` seen. */
export function summarize(chunks: readonly Chunk[]): StreamSummary {
  let text = '';
  let reasoning = '';
  let textDeltas = 0;
  let finished = false;
  for (const c of chunks) {
    if (c.type === 'text-delta' && typeof c.delta === 'string') {
      text += c.delta;
      textDeltas++;
    } else if (c.type === 'reasoning-delta' && typeof c.delta === 'string') reasoning += c.delta;
    else if (c.type === 'finish') finished = true;
  }
  return { text, reasoning, textDeltas, chunks: chunks.length, finished };
}

/** Summarises SSE byte chunks or chunk objects. */
export function summarizeOutput(output: readonly (Uint8Array | object)[]): StreamSummary {
  if (output.length > 0 && output[0] instanceof Uint8Array) {
    const utf8 = new TextDecoder();
    let sse = '';
    for (const b of output as Uint8Array[]) sse += utf8.decode(b, { stream: true });
    sse += utf8.decode();
    return summarize(parseUiSse(sse));
  }
  return summarize(output as Chunk[]);
}

/** Where two strings first differ, for a readable failure message. */
export function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 20), i + 40));
  return `lengths ${a.length} vs ${b.length}, first difference at ${i}: ${show(a)} vs ${show(b)}`;
}
