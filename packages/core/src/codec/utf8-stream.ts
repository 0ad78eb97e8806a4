/**
 * The edge where text becomes a `Response` body: a byte stream pulled from an async sequence of
 * strings, one string per chunk (one socket write each), encoded as UTF-8.
 */

/**
 * A `ReadableStream` of `text`'s strings as UTF-8 bytes. Pulled: the next string is asked for only
 * when the reader wants more, so a slow client never makes memory grow. A failure of `text` errors the
 * stream; cancelling the stream calls `onCancel` (before anything else) and then returns `text`.
 *
 * @example
 * new Response(utf8Stream(toSse(events, 'ai-sdk')), { headers: { 'content-type': 'text/event-stream' } });
 */
export function utf8Stream(text: AsyncIterator<string>, onCancel?: () => void): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await text.next();
        if (next.done) controller.close();
        else controller.enqueue(bytes.encode(next.value));
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      onCancel?.();
      await text.return?.(undefined);
    },
  });
}
