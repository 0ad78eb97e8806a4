/** The store contract against SQLite, and what only SQLite has: the file, WAL, a process killed mid-run. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import { validate } from '@switchboard/core/schema';

import { openStore, sqlitePathOf } from '../src/open.ts';
import { project } from '../src/projection.ts';
import { defaultSqlitePath, openSqliteStore } from '../src/sqlite.ts';
import { contract } from './contract.ts';
import { sqliteSetup } from './support.ts';

contract('SQLite', sqliteSetup());
// Again with every write on the event loop (a file's default is the writer thread).
contract('SQLite, writes inline', sqliteSetup({ writer: 'inline' }));

const NODE = process.execPath;
const CHILD = new URL('./fixtures/crash-child.ts', import.meta.url).pathname;

describe('SQLite specifics', () => {
  test('the file is in WAL mode with a busy timeout; the default path follows SWITCHBOARD_DATA_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-sqlite-'));
    try {
      const path = join(dir, 'nested', 'x.db');
      const store = await openSqliteStore({ path });
      await store.createChat({ id: 'c' });
      await store.close();
      const db = new DatabaseSync(path);
      assert.deepEqual({ ...db.prepare('PRAGMA journal_mode').get() }, { journal_mode: 'wal' });
      assert.deepEqual(
        db
          .prepare('SELECT version FROM schema_migrations')
          .all()
          .map((r) => r.version),
        [1, 2],
      );
      db.close();
      assert.equal(defaultSqlitePath({ SWITCHBOARD_DATA_DIR: '/srv/sb' }), '/srv/sb/switchboard.db');
      assert.equal(defaultSqlitePath({}), './data/switchboard.db');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the database file is created owner-only (0600) in a directory created owner-only (0700)', async (t) => {
    if (process.platform === 'win32') return t.skip('POSIX modes');
    const dir = mkdtempSync(join(tmpdir(), 'sb-mode-'));
    const old = process.umask(0o022);
    try {
      const path = join(dir, 'new', 'deeper', 'x.db');
      const store = await openSqliteStore({ path });
      await store.createChat({ id: 'c' });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.equal(statSync(`${path}-wal`).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'new', 'deeper')).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, 'new')).mode & 0o777, 0o700);
      await store.close();
      // An existing file with a loose mode is tightened when opened.
      chmodSync(path, 0o644);
      await (await openSqliteStore({ path })).close();
      assert.equal(statSync(path).mode & 0o777, 0o600);
    } finally {
      process.umask(old);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('openStore picks the backend from the URL', async () => {
    assert.equal(sqlitePathOf('sqlite:data/x.db'), 'data/x.db');
    assert.equal(sqlitePathOf('sqlite:./x.db'), './x.db');
    assert.equal(sqlitePathOf('sqlite:///abs/x.db'), '/abs/x.db');
    assert.equal(sqlitePathOf('sqlite:/abs/x.db'), '/abs/x.db');
    assert.equal(sqlitePathOf('sqlite::memory:'), ':memory:');
    const store = await openStore('sqlite::memory:');
    assert.equal(store.kind, 'sqlite');
    await store.close();
    await assert.rejects(openStore('mysql://x'), /cannot tell the store/);
  });

  test('a process killed with SIGKILL mid-run: every append that returned is there, the partial message projects, then closes with an error state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-crash-'));
    const path = join(dir, 'crash.db');
    try {
      const child = spawn(NODE, [CHILD, path, 'chat-crash', 'run-crash'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      let confirmed = -1;
      for await (const line of createInterface({ input: child.stdout })) {
        const m = /^appended (\d+)$/.exec(line);
        if (m) confirmed = Number(m[1]);
        if (confirmed >= 300) {
          child.kill('SIGKILL');
          break;
        }
      }
      assert.equal(await exited, 'SIGKILL');

      const store = await openSqliteStore({ path });
      try {
        const log = await store.read('run-crash');
        assert.ok(log.length - 1 >= confirmed, `seq ${confirmed} was confirmed, the log ends at ${log.length - 1}`);
        assert.deepEqual(
          log.map((e) => e.seq),
          log.map((_, i) => i),
          'no gap',
        );
        const [user, partial] = await store.listMessages('chat-crash');
        assert.equal(user.content, 'crash me');
        assert.ok(partial.role === 'assistant');
        assert.equal(partial.persistenceState, 'pending');
        assert.deepEqual(partial, project(log, { runId: 'run-crash', chatId: 'chat-crash', messageId: 'msg_run-crash' }, 'pending'));
        assert.ok(partial.content.startsWith('w0 w1 · w2 · w3 '));

        assert.deepEqual(await store.recoverRuns(), ['run-crash']);
        const closed = await store.read('run-crash');
        assert.deepEqual(validate(closed).issues, []);
        const [, final] = await store.listMessages('chat-crash');
        assert.ok(final.role === 'assistant');
        assert.equal(final.persistenceState, 'persisted');
        assert.equal(final.metadata.status, 'error');
        assert.equal(final.metadata.error?.code, 'interrupted');
        assert.equal(final.content, partial.content, 'the partial text is kept');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
