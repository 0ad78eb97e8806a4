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

/** The error of a chat created with an id that is taken. */
export function chatExists(chatId: string): StoreError {
  return new StoreError('conflict', `chat ${chatId} already exists`);
}

/** The error of a run start that found another run of the chat in progress. */
export function inProgress(chatId: string, blocker: string): StoreError {
  return new StoreError('conflict', `chat ${chatId} has a run in progress (${blocker}); one run at a time per chat`);
}
