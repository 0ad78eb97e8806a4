/**
 * Keeps the page responsive under a fast stream. Over localhost (or any fast link) a long answer
 * arrives in a few large network chunks, and everything downstream of `fetch` (SSE parsing, the AI
 * SDK's message assembly) runs in promise callbacks: one chunk of a megabyte would be processed in
 * one main-thread task, freezing the page for its whole duration. This stream cuts the body into
 * small slices and gives the event loop a turn between them, so a task handles one slice at most
 * (input, timers — the useChat throttle — and painting run in between).
 */

/** Bytes handed on per task. ~100 AI SDK frames: a few ms of work. */
export const SLICE_BYTES = 8 * 1024;

const channel = typeof MessageChannel === 'function' ? new MessageChannel() : undefined;
const waiting: (() => void)[] = [];
if (channel) channel.port1.onmessage = () => waiting.shift()?.();

/** Resolves in a new task (a message-channel task: no 4 ms timer clamping). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    if (!channel) return void setTimeout(resolve, 0);
    waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

/** `body` in slices of at most `sliceBytes`, each in its own task. */
export function paced(body: ReadableStream<Uint8Array>, sliceBytes = SLICE_BYTES): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        if (chunk.byteLength <= sliceBytes) {
          controller.enqueue(chunk);
          await nextTask();
          return;
        }
        for (let at = 0; at < chunk.byteLength; at += sliceBytes) {
          controller.enqueue(chunk.subarray(at, Math.min(at + sliceBytes, chunk.byteLength)));
          await nextTask();
        }
      },
    }),
  );
}
