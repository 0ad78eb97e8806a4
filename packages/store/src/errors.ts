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

/**
 * A new backend store made ready by `start` (connect, migrate): on failure it is closed, and the error
 * thrown as a StoreError ('unavailable', named after `backend`, unless it is one already).
 */
export async function openBackend<S extends { close(): Promise<void> }>(
  store: S,
  start: (store: S) => Promise<void>,
  backend: string,
): Promise<S> {
  try {
    await start(store);
  } catch (err) {
    await store.close().catch(() => {});
    if (err instanceof StoreError) throw err;
    throw new StoreError('unavailable', `${backend}: ${(err as Error).message}`, { cause: err });
  }
  return store;
}

/**
 * Imports a module that needs an optional dependency (`pg`, `@redis/client`). When the package is
 * not installed, the error says which one to install, instead of Node's ERR_MODULE_NOT_FOUND from
 * deep inside the store.
 */
export async function importOptional<T>(load: () => Promise<T>, pkg: string, what: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'ERR_MODULE_NOT_FOUND' && e.message?.includes(`'${pkg}'`))
      throw new StoreError('unavailable', `${what} needs the ${pkg} package, which is not installed: npm install ${pkg}`, {
        cause: err,
      });
    throw err;
  }
}
