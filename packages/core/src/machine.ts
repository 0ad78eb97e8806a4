/**
 * The one shape every decoder, encoder and transform has: a synchronous state machine.
 * `push` an input, get outputs back; `end` flushes. Streams are only built at the edges, by the
 * helpers below, so a decode → encode pipeline is one synchronous pass per input chunk.
 */

/** A synchronous push-style state machine. */
export interface Machine<I, O> {
  /** Feed one input; returns the outputs it completes (possibly none). */
  push(input: I): O[];
  /** The input is over: flush and return whatever is left. Call once. */
  end(): O[];
}

/**
 * A machine that writes each input's outputs into one array and has nothing left at the end: the
 * shell of the encoders whose state lives in `write`'s closure. Once `ended()` is true, inputs are ignored.
 */
export function writeMachine<I, O>(write: (input: I, out: O[]) => void, ended: () => boolean): Machine<I, O> {
  return {
    push(input) {
      if (ended()) return [];
      const out: O[] = [];
      write(input, out);
      return out;
    },
    end() {
      return [];
    },
  };
}

/** Chains two machines: the outputs of `a` are the inputs of `b`, in one synchronous pass. */
export function pipe<A, B, C>(a: Machine<A, B>, b: Machine<B, C>): Machine<A, C> {
  const feed = (items: B[], out: C[]): C[] => {
    for (const item of items) {
      const produced = b.push(item);
      for (const p of produced) out.push(p);
    }
    return out;
  };
  return {
    push: (input) => feed(a.push(input), []),
    end: () => {
      const out = feed(a.end(), []);
      for (const p of b.end()) out.push(p);
      return out;
    },
  };
}

/** Anything we accept as a source: sync or async iterables, and web ReadableStreams. */
export type Source<T> = AsyncIterable<T> | Iterable<T> | ReadableStream<T>;

/**
 * Runs a machine over a source, as an async iterable of its outputs. (A plain loop, not `yield*`:
 * `yield*` over an array in an async generator wraps it in an async iterator, extra promises per
 * output.)
 */
export async function* run<I, O>(source: Source<I>, machine: Machine<I, O>): AsyncGenerator<O> {
  for await (const input of source as AsyncIterable<I>) {
    for (const out of machine.push(input)) yield out;
  }
  for (const out of machine.end()) yield out;
}

/** Wraps a machine as a web TransformStream (for `readable.pipeThrough`). */
export function toTransformStream<I, O>(machine: Machine<I, O>): TransformStream<I, O> {
  return new TransformStream<I, O>({
    transform(input, controller) {
      for (const out of machine.push(input)) controller.enqueue(out);
    },
    flush(controller) {
      for (const out of machine.end()) controller.enqueue(out);
    },
  });
}
