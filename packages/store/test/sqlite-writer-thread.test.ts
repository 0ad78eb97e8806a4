/**
 * SQLite's writer thread (sqlite-writer-thread.ts): a file store writes on a thread of its own and
 * reads on the event loop; `:memory:` and `writer: 'inline'` write on the event loop. Counted, not
 * timed: the statements node:sqlite runs on this thread.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { openStore, sqliteOptionsOf } from '../src/open.ts';
import { openSqliteStore, type SqliteStore } from '../src/sqlite.ts';
import { StoreError } from '../src/store.ts';
import { countSqliteWork, demoRun } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (options: { writer?: 'thread' | 'inline' } = {}) => openSqliteStore({ path: join(dir, `w${n++}.db`), ...options });

/** A started run and its demo events. */
async function started(store: SqliteStore, id: string) {
  await store.startRun({ chatId: id, runId: id, exclusive: true, userMessage: { content: 'hi' } });
  return demoRun('hi', id);
}

describe('SQLite writer thread', () => {
  test('a file store appends on its writer thread: no write on the event loop, and its reads see the commit', async () => {
    const store = await fresh();
    try {
      const events = await started(store, 'threaded');
      const work = await countSqliteWork(() => store.append(events.slice(0, 10)));
      // Here: one read (the message id checked); no transaction, no write.
      assert.equal(work.transactions, 0);
      assert.equal(work.statements, 1);
      // The reading connection sees the commit once the append has returned.
      const run = await store.getRun('threaded');
      assert.equal(run?.lastSeq, 9);
      assert.deepEqual(await store.read('threaded'), events.slice(0, 10));
    } finally {
      await store.close();
    }
  });

  test("writer: 'inline' writes on the event loop, one transaction an append", async () => {
    const store = await fresh({ writer: 'inline' });
    try {
      const events = await started(store, 'inline');
      const work = await countSqliteWork(() => store.append(events.slice(0, 10)));
      assert.equal(work.transactions, 1);
    } finally {
      await store.close();
    }
  });

  test('errors cross from the thread with their class and code', async () => {
    const store = await fresh();
    try {
      await started(store, 'busy');
      const err = await store.startRun({ chatId: 'busy', runId: 'busy-2', exclusive: true, userMessage: { content: 'again' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof StoreError, String(err));
      assert.equal(err.code, 'conflict');
      assert.match(err.message, /has a run in progress \(busy\)/);
    } finally {
      await store.close();
    }
  });

  test('a writer thread that dies fails the writes with `unavailable`; reads go on and the store closes', async () => {
    const store = await fresh();
    const events = await started(store, 'orphan');
    await store.append(events.slice(0, 3));
    // The thread ends as a crash would end it.
    const writer = (store as unknown as { writer: { worker: { terminate(): Promise<number> } } }).writer;
    await writer.worker.terminate();
    const err = await store.append(events.slice(3, 5)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof StoreError, String(err));
    assert.equal(err.code, 'unavailable');
    assert.match(err.message, /writer thread of .* stopped/);
    assert.equal((await store.getRun('orphan'))?.lastSeq, 2);
    await store.close();
  });

  test('a write that cannot be sent to the thread fails alone; the next one and close() go through', async () => {
    const store = await fresh();
    const writer = (store as unknown as { writer: { call(op: string, ...args: unknown[]): Promise<unknown> } }).writer;
    const chat = { id: 'c', createdAt: 1, updatedAt: 1 };
    await assert.rejects(writer.call('updateChat', { ...chat, metadata: { f: () => 1 } }), { name: 'DataCloneError' });
    await store.createChat({ id: 'next' });
    assert.equal((await store.getChat('next'))?.id, 'next');
    await store.close();
  });

  test('a store left open does not keep its process alive', { timeout: 60_000 }, async () => {
    const path = join(dir, 'left-open.db');
    const src = new URL('../src/sqlite.ts', import.meta.url).href;
    const code = `const { openSqliteStore } = await import(${JSON.stringify(src)});
      const store = await openSqliteStore({ path: ${JSON.stringify(path)} });
      await store.createChat({ id: 'c' });
      console.log('written');`;
    // Run as `node --input-type=module -e`: the writer thread must not inherit the flags of an eval.
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    const exit = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(exit, 0);
    assert.equal(out.trim(), 'written');
    const store = await openSqliteStore({ path });
    assert.equal((await store.getChat('c'))?.id, 'c');
    await store.close();
  });

  test('a sqlite: URL takes ?writer=thread|inline', async () => {
    assert.deepEqual(sqliteOptionsOf('sqlite:./x.db?writer=inline'), { path: './x.db', writer: 'inline' });
    assert.deepEqual(sqliteOptionsOf('sqlite:./x.db'), { path: './x.db' });
    assert.throws(() => sqliteOptionsOf('sqlite:./x.db?writer=fast'), /unknown writer "fast"/);
    const store = await openStore(`sqlite:${join(dir, 'url.db')}?writer=inline`);
    const events = await started(store as SqliteStore, 'url');
    assert.equal((await countSqliteWork(() => store.append(events.slice(0, 2)))).transactions, 1);
    await store.close();
  });
});
