/**
 * SSE frames: what the resumable readers keep of each server-sent event (id, event name, data), parsed
 * by eventsource-parser per the WHATWG rules, and written back with core's `formatSse`.
 */
import { formatSse } from '@switchboard/core';
import { createParser } from 'eventsource-parser';

/** One server-sent event. `id` is the event's own `id:` field (not the inherited last event id). */
export interface SseFrame {
  data: string;
  id?: string;
  event?: string;
}

/** Callbacks of {@link createSseFrameParser}. */
export interface SseFrameHandlers {
  /** A complete event with data. */
  frame(frame: SseFrame): void;
  /** An `id:` field was dispatched (also for an event without data, which moves the last event id). */
  id?(id: string): void;
  /** The server's `retry:` reconnection time, in milliseconds. */
  retry?(ms: number): void;
}

/**
 * A push parser from SSE text to frames. An event without its closing blank line is never
 * dispatched (the spec's rule for a stream that ends mid-event), so a connection that drops inside
 * an event yields only whole events.
 */
export function createSseFrameParser(handlers: SseFrameHandlers): { feed(text: string): void } {
  const parser = createParser({
    onEvent(message) {
      const frame: SseFrame = { data: message.data };
      if (message.id !== undefined) frame.id = message.id;
      if (message.event !== undefined) frame.event = message.event;
      handlers.frame(frame);
    },
    onId: handlers.id ? (id) => handlers.id?.(id) : undefined,
    onRetry: handlers.retry ? (ms) => handlers.retry?.(ms) : undefined,
  });
  return { feed: (text) => parser.feed(text) };
}

/** Writes a frame back as SSE text (`id:`, `event:`, `data:` lines and the blank line). */
export function formatSseFrame(frame: SseFrame): string {
  const message: { data: string; id?: string; event?: string } = { data: frame.data };
  if (frame.id !== undefined) message.id = frame.id;
  if (frame.event !== undefined) message.event = frame.event;
  return formatSse(message);
}

/** True for an object that looks like an {@link SseFrame}. */
export function isSseFrame(value: unknown): value is SseFrame {
  return typeof value === 'object' && value !== null && typeof (value as { data?: unknown }).data === 'string';
}
