/**
 * The store's errors. Their own module (re-exported by `store.ts`) so the helpers split out of
 * `BaseStore` can throw them without an import cycle.
 */

/** Why a store operation failed. */
export type StoreErrorCode = 'not_found' | 'conflict' | 'gap' | 'finished' | 'invalid' | 'schema' | 'closed' | 'unavailable';

/** An error with a machine-readable `code`. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** Thrown by a backend commit when the run moved on since it was read (another writer); the append is retried. */
export class ConcurrentAppendError extends Error {
  constructor() {
    super('the run was appended to concurrently');
    this.name = 'ConcurrentAppendError';
  }
}
