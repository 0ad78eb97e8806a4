/**
 * The SQLite store's writer thread (see sqlite-writer-thread.ts): a connection of its own to the
 * store's file, and `SqliteWriter`'s operations run on it as the requests arrive, in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteConnection, type SqliteConnectionOptions, SqliteWriter } from './sqlite-writer.ts';
import { toWire, type WriterReply, type WriterRequest } from './sqlite-writer-thread.ts';

const port = parentPort;
if (!port) throw new Error('sqlite-worker.ts runs as a worker thread of a SQLite store');
const { path, options } = workerData as { path: string; options: SqliteConnectionOptions };
const writer = new SqliteWriter(openSqliteConnection(path, options), path);

port.on('message', ({ id, op, args }: WriterRequest) => {
  if (op === 'close') {
    writer.close();
    port.postMessage({ id } satisfies WriterReply);
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    const result = (writer[op] as (...a: unknown[]) => unknown)(...args);
    if (op !== 'writeMany') reply = { id, result };
    else {
      const r = result as ReturnType<SqliteWriter['writeMany']>;
      reply = { id, result: { errors: r.errors.map((e) => (e === undefined ? undefined : toWire(e))), inserted: r.inserted } };
    }
  } catch (err) {
    reply = { id, error: toWire(err) };
  }
  port.postMessage(reply);
});
