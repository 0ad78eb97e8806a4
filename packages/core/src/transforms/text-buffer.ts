/**
 * Text that grows by small deltas, kept linear: appends are O(1) (a chunk list), the string is
 * materialised only when read, and each read joins only what arrived since the previous read (the
 * settled prefix is reused). Nothing re-concatenates the whole text per delta.
 *
 * `WorkCounter` counts the characters that string work touches (chunks joined, partial JSON parsed),
 * so tests can assert linearity by counting operations instead of timing.
 */

/** Counts of the string work a reducer did (for linearity tests and benchmarks). */
export interface WorkCounter {
  /** Characters copied by joining pending chunks. */
  joinedChars: number;
  /** Calls of the partial-JSON parser. */
  partialJsonParses: number;
  /** Characters handed to the partial-JSON parser. */
  partialJsonChars: number;
}

export function createWorkCounter(): WorkCounter {
  return { joinedChars: 0, partialJsonParses: 0, partialJsonChars: 0 };
}

/** An append-only text buffer that materialises lazily and caches. */
export class TextBuffer {
  private settled: string;
  private pending: string[] = [];
  private pendingLength = 0;
  private readonly work: WorkCounter | undefined;

  constructor(initial = '', work?: WorkCounter) {
    this.settled = initial;
    this.work = work;
  }

  /** Appends a delta in O(1). */
  append(delta: string): void {
    if (delta === '') return;
    this.pending.push(delta);
    this.pendingLength += delta.length;
  }

  /** Length of the whole text, without materialising it. */
  get length(): number {
    return this.settled.length + this.pendingLength;
  }

  /** The whole text. Joins only the chunks appended since the last call. */
  toString(): string {
    if (this.pending.length > 0) {
      const tail = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
      if (this.work) this.work.joinedChars += this.pendingLength;
      this.settled = this.settled === '' ? tail : this.settled + tail;
      this.pending = [];
      this.pendingLength = 0;
    }
    return this.settled;
  }

  /** The first `length` characters (the text as it was when it had that length). */
  prefix(length: number): string {
    const whole = this.toString();
    return length >= whole.length ? whole : whole.slice(0, length);
  }
}
