/**
 * Wraps an agent's events for serving one request: the agent is stopped (its iterator's `return()`)
 * as soon as the client goes away, and a crash becomes a clean `error` + `done` pair, so the client
 * gets a finished message instead of a cut stream.
 */
import type { AgentEvent } from '../agents/agent.ts';

/**
 * Yields the agent's events until it ends, `signal` aborts or the consumer stops; in every case the
 * agent's iterator is closed exactly once.
 *
 * @param onError Told about an agent that threw (the client only sees its message).
 */
export async function* guardAgent(
  events: AsyncIterable<AgentEvent>,
  signal: AbortSignal,
  onError: (err: unknown) => void = () => {},
): AsyncGenerator<AgentEvent> {
  const it = events[Symbol.asyncIterator]();
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    try {
      await it.return?.();
    } catch (err) {
      onError(err);
    }
  };
  // Queued behind a pending `next()` when the agent is busy; agents that watch the signal end it early.
  const stop = () => void close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    while (!signal.aborted) {
      const next = await it.next();
      if (next.done) {
        closed = true;
        return;
      }
      if (signal.aborted) return;
      yield next.value;
    }
  } catch (err) {
    closed = true; // an iterator that threw is finished
    if (signal.aborted) return;
    onError(err);
    const message = err instanceof Error ? err.message : String(err);
    yield { type: 'error', data: { code: 'agent_failed', message: `The agent failed: ${message}` } };
    yield { type: 'done', data: {} };
  } finally {
    signal.removeEventListener('abort', stop);
    await close();
  }
}
