/**
 * Reads a request body as text with a size cap, so one huge upload cannot exhaust memory.
 */

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
