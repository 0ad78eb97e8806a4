/**
 * Reads a request body as text with a size cap, so one huge upload cannot exhaust memory.
 */
import type { IncomingMessage } from 'node:http';

/** The body text, or `too-large` once more than `maxBytes` arrived (the rest is not read). */
export type BodyResult = { ok: true; text: string } | { ok: false; reason: 'too-large' };

/** Reads `request`'s body as UTF-8 text, giving up after `maxBytes`. */
export async function readBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > maxBytes) return { ok: false, reason: 'too-large' };
  if (!request.body) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { ok: true, text: text + decoder.decode() };
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { ok: false, reason: 'too-large' };
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * {@link readBody} on Node's own request stream: the same text (UTF-8, a BOM dropped, malformed bytes
 * replaced) and the same cap. Past the cap the stream is paused and left as it is (the HTTP server
 * drains or closes it after the response); a stream that errors or closes before its end rejects.
 */
export function readIncomingBody(incoming: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(incoming.headers['content-length']);
  if (declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too-large' });
  if (incoming.readableEnded) return Promise.resolve({ ok: true, text: '' });
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Uint8Array) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        done();
        incoming.pause();
        resolve({ ok: false, reason: 'too-large' });
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve({ ok: true, text: new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)) });
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onClose = () => onError(new Error('The request body ended early: the client closed the connection'));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}
