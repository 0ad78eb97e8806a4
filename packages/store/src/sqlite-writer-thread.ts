/**
 * Where a SQLite store's writes run (`WriterPort`): on a thread of their own (`WriterThread`, the
 * default for a database file), or inline on the event loop (`inlineWriter`: `:memory:`, whose
 * database no other connection can open, and `writer: 'inline'`). Either way a write resolves once
 * it is committed, so acknowledged = durable holds as before; the thread only moves SQLite's own
 * work — B-tree inserts, commits, WAL checkpoints — off the event loop, onto the other core.
 */
import { Worker } from 'node:worker_threads';
import { ConcurrentAppendError, StoreError, type StoreErrorCode } from './errors.ts';
import type { SqliteConnectionOptions, SqliteWriter, WriteManyResult } from './sqlite-writer.ts';

/** The writer's operations a store calls. */
export type WriterOp = 'insertChat' | 'updateChat' | 'deleteChat' | 'createRun' | 'commit' | 'writeMany' | 'renewLeases';

/** A store's writer: `SqliteWriter`'s operations, asynchronous. */
export interface WriterPort {
  call<K extends WriterOp>(op: K, ...args: Parameters<SqliteWriter[K]>): Promise<ReturnType<SqliteWriter[K]>>;
  /** Closes the writer's connection (and ends its thread). */
  close(): Promise<void>;
}

/** The writes on the event loop, through the same port. */
export function inlineWriter(writer: SqliteWriter): WriterPort {
  return {
    async call(op, ...args) {
      return (writer[op] as (...a: unknown[]) => never)(...args);
    },
    async close() {
      writer.close();
    },
  };
}

/** An error as it crosses the thread boundary (structured clone keeps neither classes nor `code`). */
export interface WireError {
  name: string;
  message: string;
  /** StoreError's code, or node:sqlite's `ERR_SQLITE_ERROR`. */
  code?: unknown;
  /** node:sqlite's SQLite result code and its text. */
  errcode?: unknown;
  errstr?: unknown;
}

/** A request to the writer thread. */
export interface WriterRequest {
  id: number;
  op: WriterOp | 'close';
  args: unknown[];
}

/** The writer thread's answer: the result, or the error the operation threw. */
export interface WriterReply {
  id: number;
  result?: unknown;
  error?: WireError;
}

/** An error, for the other side of the boundary. */
export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const { code, errcode, errstr } = err as Error & { code?: unknown; errcode?: unknown; errstr?: unknown };
  return { name: err.name, message: err.message, code, errcode, errstr };
}

/** The error again, of the class the store's callers check for. */
export function fromWire(w: WireError): Error {
  if (w.name === 'StoreError') return new StoreError(w.code as StoreErrorCode, w.message);
  if (w.name === 'ConcurrentAppendError') return new ConcurrentAppendError();
  const err = new Error(w.message) as Error & Record<string, unknown>;
  err.name = w.name;
  for (const k of ['code', 'errcode', 'errstr'] as const) if (w[k] !== undefined) err[k] = w[k];
  return err;
}

/** The worker's module, next to this one (`.ts` when run from source, `.js` once built). */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './sqlite-worker.ts' : './sqlite-worker.js', import.meta.url);

/**
 * The thread's Node flags: the process's (loaders and conditions still apply to its imports), but
 * none for a program run as `node -e` / `--input-type`, whose eval flags a worker refuses (and an
 * explicit list must hold only flags a worker takes, so nothing is filtered one by one).
 */
function workerExecArgv(): string[] | undefined {
  const evaluated = process.execArgv.some((a) => /^(-e|-p|--eval|--print|--input-type)(=|$)/.test(a));
  return evaluated ? [] : undefined;
}

interface Pending {
  op: WriterOp | 'close';
  resolve: (value: never) => void;
  reject: (err: unknown) => void;
}

/**
 * The writes on a thread of their own, with a connection of their own to the same file (WAL: the
 * store's reading connection sees each commit once it is acknowledged). Requests are answered in
 * order. The thread keeps the process alive only while a write is in flight, as a database
 * connection would; if it dies, every write in flight and after fails with `unavailable`.
 */
export class WriterThread implements WriterPort {
  private readonly worker: Worker;
  /** Writes sent and not answered yet, by request id. */
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Why the thread can take no more writes (it died, or the store closed it). */
  private failure: StoreError | undefined;

  constructor(path: string, options: SqliteConnectionOptions) {
    this.worker = new Worker(WORKER_URL, { workerData: { path, options }, execArgv: workerExecArgv() });
    this.worker.unref();
    this.worker.on('message', (m: WriterReply) => this.settle(m));
    this.worker.on('error', (err) => this.fail(`the SQLite writer thread of ${path} failed: ${err.message}`));
    this.worker.on('exit', (code) => this.fail(`the SQLite writer thread of ${path} stopped (exit code ${code})`));
  }

  call<K extends WriterOp>(op: K, ...args: Parameters<SqliteWriter[K]>): Promise<ReturnType<SqliteWriter[K]>> {
    return this.send(op, args);
  }

  async close(): Promise<void> {
    if (!this.failure) await this.send('close', []);
    this.failure ??= new StoreError('closed', 'the store is closed');
    await this.worker.terminate();
  }

  private send<T>(op: WriterOp | 'close', args: unknown[]): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { op, resolve: resolve as (value: never) => void, reject });
      try {
        this.worker.postMessage({ id, op, args } satisfies WriterRequest);
      } catch (err) {
        // Not cloneable (a function in a value): this write fails, the thread is fine.
        this.pending.delete(id);
        if (this.pending.size === 0) this.worker.unref();
        reject(err);
      }
    });
  }

  private settle(m: WriterReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.error) return p.reject(fromWire(m.error));
    if (p.op !== 'writeMany') return p.resolve(m.result as never);
    const r = m.result as { errors: (WireError | undefined)[]; inserted: WriteManyResult['inserted'] };
    p.resolve({ errors: r.errors.map((e) => e && fromWire(e)), inserted: r.inserted } satisfies WriteManyResult as never);
  }

  private fail(message: string): void {
    this.failure ??= new StoreError('unavailable', message);
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }
}
